"""The OpenGL (llvmpipe) raster backend: test_render.py's hand-valued checks
run against it, its agreement with the ray caster on random scenes, and the
backend factory. Tests needing OpenGL skip, with the reason, where no
headless EGL context can be created (see scripts/setup_gl.sh)."""
import ast
import multiprocessing as mp
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import test_render as base

from hazard_sim.geometry import Box
from hazard_sim.render import CameraSpec, RaycastRenderer, WaterSurface, optical_rotation
from hazard_sim.render import backend as backend_mod
from hazard_sim.render import raster as raster_mod
from hazard_sim.render.backend import BackendUnavailable, backend_name, make_renderer
from hazard_sim.render.raster import RasterRenderer, RasterUnavailable, raster_available

GL_OK, GL_WHY = raster_available()
needs_gl = pytest.mark.skipif(not GL_OK, reason=f"raster backend unavailable: {GL_WHY}")
REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------ test_render.py, rasterized
HAND_VALUED = [
    "test_box_ahead_depth_is_z_depth_and_seg", "test_left_right_and_yaw",
    "test_pitch_down_sees_floor", "test_points_backproject_with_depth_and_k",
    "test_set_colors_changes_rgb_not_seg", "test_set_dynamic_moves_objects_and_keeps_static",
    "test_far_plane_clips", "test_camera_under_water_tints_everything", "test_invalid_inputs",
]


@pytest.fixture
def rasterized_base(monkeypatch):
    """test_render's helpers build RasterRenderers instead of RaycastRenderers."""
    monkeypatch.setattr(base, "RaycastRenderer", RasterRenderer)


@needs_gl
@pytest.mark.parametrize("name", HAND_VALUED)
def test_hand_valued_checks(name, rasterized_base):
    getattr(base, name)()


@needs_gl
@pytest.mark.parametrize("water", [
    WaterSurface(level=0.5),
    WaterSurface(level=1.0, origin=[-1.0, 0.0], direction=[1.0, 0.0], slope_rad=np.arctan(0.5)),
])
def test_hand_valued_water(water, rasterized_base):
    base.test_water_depth_and_tint(water)


# ------------------------------------------------- agreement with ray casting
def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def random_scene(rng, n_static=40, n_dynamic=40):
    """A walled room with furniture (yawed) and tumbling objects (any rotation)."""
    static = [Box.from_yaw([0, 0, -0.1], [6, 5, 0.1]), Box.from_yaw([0, 0, 3.1], [6, 5, 0.1]),
              Box.from_yaw([6.1, 0, 1.5], [0.1, 5, 1.5]), Box.from_yaw([-6.1, 0, 1.5], [0.1, 5, 1.5]),
              Box.from_yaw([0, 5.1, 1.5], [6, 0.1, 1.5]), Box.from_yaw([0, -5.1, 1.5], [6, 0.1, 1.5])]
    for _ in range(n_static - len(static)):
        half = rng.uniform([0.1, 0.1, 0.1], [0.9, 0.6, 0.8])
        # Lifted a little: faces coinciding with the floor are a tie either
        # renderer may break either way.
        c = np.r_[rng.uniform([-5, -4], [5, 4]), half[2] + rng.uniform(0.005, 0.05)]
        static.append(Box.from_yaw(c, half, rng.uniform(-np.pi, np.pi)))
    dynamic = [Box(rng.uniform([-5, -4, 0.1], [5, 4, 2.5]), rng.uniform(0.03, 0.3, 3),
                   random_rotation(rng)) for _ in range(n_dynamic)]
    sid = rng.choice(np.arange(1, 500), len(static), replace=False).astype(np.int32)
    did = np.arange(1000, 1000 + n_dynamic, dtype=np.int32)
    did[::5] = did[1::5][: len(did[::5])]                      # some multi-box instances
    return ((static, sid, rng.integers(0, 256, (len(static), 3))),
            (dynamic, did, rng.integers(0, 256, (n_dynamic, 3))))


def both_renderers(cam, static, dynamic):
    out = []
    for cls in (RaycastRenderer, RasterRenderer):
        r = cls(cam)
        r.set_static(*static)
        r.set_dynamic(*dynamic)
        out.append(r)
    return out


def edges(f):
    """Pixels at or next to a change of instance, or of face: inverse depth is
    affine in (u, v) on a plane, so its second differences flag creases."""
    h, w = f.seg.shape
    inv = np.where(np.isfinite(f.depth), 1.0 / f.depth.astype(np.float64), 0.0)

    def shifted(a, dv, du):
        return np.pad(a, 1, mode="edge")[1 + dv:1 + dv + h, 1 + du:1 + du + w]

    out = np.zeros((h, w), bool)
    for dv, du in ((0, 1), (1, 0), (1, 1), (1, -1)):
        out |= (shifted(f.seg, dv, du) != f.seg) | (shifted(f.seg, -dv, -du) != f.seg)
        d2 = shifted(inv, dv, du) + shifted(inv, -dv, -du) - 2 * inv
        out |= np.abs(d2) > 1e-4 * inv
    grown = out.copy()
    for dv in (-1, 0, 1):
        for du in (-1, 0, 1):
            grown |= shifted(out, dv, du)
    grown[[0, -1]] = True
    grown[:, [0, -1]] = True
    return grown


def assert_agree(ray, ras, water=False):
    """Seg agrees on >= 99 % of the pixels; where it agrees, both hit or both
    miss, depth is within 1 mm off edges (and on >= 99.9 % of all of them),
    rgb is identical on >= 99.5 %, water depth within 1 mm off edges."""
    same = ray.seg == ras.seg
    assert same.mean() >= 0.99, f"seg agrees on {same.mean():.4f}"
    np.testing.assert_array_equal(np.isinf(ray.depth)[same], np.isinf(ras.depth)[same])
    hit = same & np.isfinite(ray.depth)
    with np.errstate(invalid="ignore"):                      # inf - inf
        err = np.abs(ray.depth - ras.depth)
    inner = hit & ~edges(ray) & ~edges(ras)
    assert inner.sum() >= 0.2 * hit.sum()                   # not a vacuous check
    assert err[inner].max(initial=0) <= 1e-3, f"depth off by {err[inner].max()} m"
    assert not hit.any() or (err[hit] <= 1e-3).mean() >= 0.999
    rgb_same = (ray.rgb == ras.rgb).all(-1)
    assert rgb_same[same].mean() >= 0.995, f"rgb agrees on {rgb_same[same].mean():.4f}"
    assert not inner.any() or rgb_same[inner].mean() >= 0.999
    if water:
        assert ras.water_depth.dtype == np.float32
        np.testing.assert_allclose(ras.water_depth[inner], ray.water_depth[inner], atol=1e-3)
        assert (ras.water_depth[np.isinf(ras.depth)] == 0).all()
    else:
        assert ras.water_depth is None


def walk(n, rng):
    """Camera poses inside the room, any yaw, some pitch, some close to things."""
    for _ in range(n):
        pos = rng.uniform([-5.5, -4.5, 0.2], [5.5, 4.5, 2.8])
        yield pos, optical_rotation(rng.uniform(-np.pi, np.pi), rng.uniform(-0.6, 0.9))


WATERS = [None,
          WaterSurface(level=0.4),
          WaterSurface(level=0.8, origin=[-2.0, 1.0], direction=[1.0, 0.5], slope_rad=0.2,
                       color=[10, 200, 90], alpha=0.3),
          WaterSurface(level=0.0)]                            # dry: no tint anywhere


@needs_gl
@pytest.mark.parametrize("cam", [
    CameraSpec(width=96, height=96, hfov_deg=90.0),
    CameraSpec(width=80, height=61, hfov_deg=70.0, near=0.1, far=8.0),     # far clips
    CameraSpec(width=160, height=120, hfov_deg=110.0, near=0.02, far=50.0),
], ids=["96x96", "80x61-far8", "160x120-wide"])
def test_agrees_with_raycast(cam):
    rng = np.random.default_rng(cam.width)
    static, dynamic = random_scene(rng)
    ray, ras = both_renderers(cam, static, dynamic)
    for i, (pos, rot) in enumerate(walk(12, rng)):
        water = WATERS[i % len(WATERS)]
        assert_agree(ray.render(pos, rot, water), ras.render(pos, rot, water), water is not None)


@needs_gl
def test_agrees_at_256_on_the_benchmark_room():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from bench_render import make_room, poses
    finally:
        sys.path.pop(0)
    static, dynamic = make_room(np.random.default_rng(0))
    ray, ras = both_renderers(CameraSpec(256, 256, 90.0), static, dynamic)
    water = WaterSurface(level=0.4, origin=[-6.0, 0.0], direction=[1.0, 0.0],
                         slope_rad=np.radians(3.0))
    for i, (pos, rot) in enumerate(poses(8)):
        w = water if i % 2 else None
        assert_agree(ray.render(pos, rot, w), ras.render(pos, rot, w), w is not None)


@needs_gl
def test_pixel_centres_match_intrinsics():
    """A thin pole projects to the column K says, for odd and even sizes."""
    for width in (64, 65):
        cam = CameraSpec(width=width, height=33, hfov_deg=90.0)
        pole = Box.from_yaw([4.0, 0.0, 0.0], [0.01, 0.01, 5.0])     # on the optical axis
        r = RasterRenderer(cam)
        r.set_static([pole], [5], [[50, 60, 70]])
        cols = np.nonzero((r.render([0, 0, 0], optical_rotation(0.0)).seg == 5).any(0))[0]
        k = cam.intrinsics()
        # Columns whose centre ray passes the pole: |u - cx| < f * 0.01 / 3.99.
        expect = np.nonzero(np.abs(np.arange(width) - k[0, 2]) < k[0, 0] * 0.01 / 3.99)[0]
        np.testing.assert_array_equal(cols, expect)
        r.close()


@needs_gl
@pytest.mark.parametrize("where", ["inside a box", "within near of a wall"])
def test_inside_or_touching_boxes_like_raycast(where):
    """Back faces are only culled where that cannot show: from inside a box
    both renderers see its inner faces."""
    cam = CameraSpec(width=48, height=48, hfov_deg=90.0, near=0.2)
    wall = Box.from_yaw([3.0, 0.0, 1.0], [0.5, 4.0, 4.0])          # front face at x = 2.5
    crate = Box.from_yaw([0.0, 0.0, 1.0], [1.0, 1.0, 1.0])
    static = ([wall, crate], np.array([2, 3]), np.array([[200, 100, 50], [20, 220, 120]]))
    pos = np.array([0.0, 0.0, 1.2]) if where == "inside a box" else np.array([2.4, 0.0, 2.5])
    ray, ras = both_renderers(cam, static, ([], [], np.zeros((0, 3))))
    for yaw in (0.0, 1.0, np.pi):
        a, b = ray.render(pos, optical_rotation(yaw)), ras.render(pos, optical_rotation(yaw))
        assert_agree(a, b)
        if where == "inside a box":
            assert (b.seg == 3).all()


@needs_gl
def test_scene_updates_and_recolouring_match_raycast():
    rng = np.random.default_rng(5)
    static, dynamic = random_scene(rng, 20, 12)
    cam = CameraSpec(width=64, height=48, hfov_deg=100.0)
    ray, ras = both_renderers(cam, static, dynamic)
    pose = (np.array([-4.0, 0.0, 1.5]), optical_rotation(0.0, 0.3))
    boxes, ids, cols = dynamic
    steps = [
        lambda r: r.set_colors(ids[:5], np.zeros((5, 3))),               # dynamic recolour
        lambda r: r.set_colors(static[1][2:4], [[1, 2, 3], [250, 0, 0]]),  # static recolour
        lambda r: r.set_colors([99999], [[1, 1, 1]]),                    # unknown id: no-op
        lambda r: r.set_dynamic([Box(b.center + 0.3, b.half, b.rot) for b in boxes], ids, cols),
        lambda r: r.set_dynamic(boxes[:3], ids[:3], cols[:3]),           # fewer boxes
        lambda r: r.set_dynamic([], [], np.zeros((0, 3))),
        lambda r: r.set_static([], [], np.zeros((0, 3))),
    ]
    for step in steps:
        for r in (ray, ras):
            step(r)
        assert_agree(ray.render(*pose), ras.render(*pose))


@needs_gl
def test_frames_are_fresh_arrays_and_points_are_lazy():
    r = RasterRenderer(CameraSpec(width=40, height=30))
    r.set_static([base.floor_box()], [1], [[90, 90, 90]])
    pose = ([0.0, 0.0, 1.0], optical_rotation(0.0, np.pi / 2))      # looking down
    f1 = r.render(*pose)
    f1.depth[:] = 0                      # frames own writable arrays, not shared buffers
    f1.rgb[:] = 0
    f2 = r.render(*pose)
    assert (f2.depth > 0).all() and f2.rgb.any()
    assert f2.rgb.flags.c_contiguous and f2.rgb.shape == (30, 40, 3)
    assert f2.__dict__.get("_points") is None              # not computed yet
    np.testing.assert_allclose(f2.points[..., 2], 0.0, atol=1e-5)   # all on the floor


# ------------------------------------------------------- lifetime, threads, fork
@needs_gl
def test_close_is_idempotent_and_final():
    with RasterRenderer(CameraSpec(width=8, height=8)) as r:
        renderer, _, version = r.gl_info.partition(", ")      # "<GL_RENDERER>, <GL_VERSION>"
        assert renderer and version[:1].isdigit(), r.gl_info
    r.close()
    with pytest.raises(RuntimeError, match="closed"):
        r.render([0, 0, 0], optical_rotation(0.0))


@needs_gl
def test_renderers_in_threads():
    """A renderer can move between threads (one at a time); renderers in
    different threads run concurrently."""
    cam = CameraSpec(width=64, height=64)
    rng = np.random.default_rng(3)
    static, dynamic = random_scene(rng, 12, 8)
    poses = list(walk(6, rng))

    def make():
        r = RasterRenderer(cam)
        r.set_static(*static)
        r.set_dynamic(*dynamic)
        return r

    main = make()
    ref = [main.render(p, R).seg for p, R in poses]
    with ThreadPoolExecutor(2) as ex:
        moved = ex.submit(lambda: [main.render(p, R).seg for p, R in poses]).result()
        both = list(ex.map(lambda _: [make().render(p, R).seg for p, R in poses], range(2)))
    for segs in [moved, *both]:
        for a, b in zip(ref, segs):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(main.render(*poses[0]).seg, ref[0])   # still usable here


def _worker_seg(_):
    cam = CameraSpec(width=32, height=32)
    try:
        r = make_renderer(cam)
    except Exception as e:                  # pragma: no cover - reported to the parent
        return f"{type(e).__name__}: {e}"
    r.set_static([Box.from_yaw([4.0, 0.0, 0.0], [0.5, 1.0, 1.0])], [9], [[1, 2, 3]])
    return backend_name(r), int((r.render([0, 0, 0], optical_rotation(0.0)).seg == 9).sum())


@needs_gl
def test_fork_after_gl_falls_back_instead_of_hanging():
    """This process already uses OpenGL: a forked worker must not touch it
    (llvmpipe's threads are gone there). Raster is refused, auto falls back."""
    parent = RasterRenderer(CameraSpec(width=8, height=8))
    parent.render([0, 0, 0], np.eye(3))
    _INHERITED[:] = [parent]                          # what a forked worker inherits
    with ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as ex:
        name, n = ex.submit(_worker_seg, 0).result(timeout=120)
        assert name == "raycast" and n > 0
        assert "forked" in ex.submit(_forced_raster, 0).result(timeout=120)
        assert "inherited" in ex.submit(_inherited_render, 0).result(timeout=120)
    parent.render([0, 0, 0], np.eye(3))                       # the parent's still works


def _forced_raster(_):
    try:
        RasterRenderer(CameraSpec(width=8, height=8))
    except RasterUnavailable as e:
        return str(e)
    return "created"


_INHERITED = []


def _inherited_render(_):
    try:
        _INHERITED[0].render([0, 0, 0], np.eye(3))
    except RuntimeError as e:
        return str(e)
    return "rendered"


@needs_gl
def test_forked_workers_render_raster_when_parent_has_no_gl():
    """The intended use: the parent only plans, each forked worker makes its
    own renderer. Run in a fresh interpreter, whose parent never used OpenGL
    (a 'spawn' or 'forkserver' worker always starts that way)."""
    script = textwrap.dedent(f"""
        import sys, multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        sys.path[:0] = [{str(REPO)!r}]
        import numpy as np
        from hazard_sim.geometry import Box
        from hazard_sim.render import CameraSpec, optical_rotation
        from hazard_sim.render.backend import backend_name, make_renderer

        def work(_):
            r = make_renderer(CameraSpec(width=32, height=32))
            r.set_static([Box.from_yaw([4.0, 0.0, 0.0], [0.5, 1.0, 1.0])], [9], [[1, 2, 3]])
            seg = r.render([0, 0, 0], optical_rotation(0.0)).seg
            return backend_name(r), int((seg == 9).sum())

        with ProcessPoolExecutor(2, mp_context=mp.get_context("fork")) as ex:
            print(list(ex.map(work, range(3))))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=240, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    results = ast.literal_eval(out.stdout.strip().splitlines()[-1])   # [(backend, pixels)]
    assert all(name == "raster" and n > 0 for name, n in results), results


# ---------------------------------------------------------------- the factory
def test_factory_names(monkeypatch):
    monkeypatch.delenv(backend_mod.ENV_VAR, raising=False)
    cam = CameraSpec(width=8, height=8)
    assert isinstance(make_renderer(cam, "raycast"), RaycastRenderer)
    with pytest.raises(ValueError, match="unknown render backend"):
        make_renderer(cam, "vulkan")
    monkeypatch.setenv(backend_mod.ENV_VAR, "raycast")
    assert backend_name(make_renderer(cam)) == "raycast"
    monkeypatch.setenv(backend_mod.ENV_VAR, "nonsense")
    with pytest.raises(ValueError, match=backend_mod.ENV_VAR):
        make_renderer(cam)


@needs_gl
def test_factory_prefers_raster(monkeypatch):
    monkeypatch.delenv(backend_mod.ENV_VAR, raising=False)
    cam = CameraSpec(width=8, height=8)
    assert backend_name(make_renderer(cam)) == "raster"
    assert backend_name(make_renderer(cam, "raster")) == "raster"


def test_factory_without_gl(monkeypatch, caplog):
    """No GL here (simulated): "raster" says why, "auto" falls back to raycast."""
    def no_gl():
        raise RasterUnavailable("no EGL here (simulated)")
    monkeypatch.setattr(raster_mod, "create_context", no_gl)
    monkeypatch.setattr(backend_mod, "_warned", False)
    monkeypatch.delenv(backend_mod.ENV_VAR, raising=False)
    cam = CameraSpec(width=8, height=8)
    with pytest.raises(BackendUnavailable, match="simulated"):
        make_renderer(cam, "raster")
    with caplog.at_level("WARNING"):
        assert isinstance(make_renderer(cam), RaycastRenderer)
    assert "using raycast" in caplog.text
