"""Meshes (per-vertex colour, texture, terrain), render effects and post-effects
on both backends, against hand-computed values and against each other.
Raster checks skip, with the reason, where no headless OpenGL context exists."""
import numpy as np
import pytest
from test_render_raster import assert_agree, random_scene, walk

from hazard_sim.geometry import Box
from hazard_sim.render import (
    CameraSpec,
    Mesh,
    RaycastRenderer,
    RenderEffects,
    WaterSurface,
    box_mesh,
    heightfield_mesh,
    optical_rotation,
    quad_mesh,
    text_texture,
)
from hazard_sim.render import raycast as raycast_mod
from hazard_sim.render.mesh import AMBIENT, DIFFUSE, LIGHT_DIR
from hazard_sim.render.raster import RasterRenderer, raster_available

GL_OK, GL_WHY = raster_available()
BACKENDS = [RaycastRenderer,
            pytest.param(RasterRenderer, marks=pytest.mark.skipif(
                not GL_OK, reason=f"raster backend unavailable: {GL_WHY}"))]
needs_gl = pytest.mark.skipif(not GL_OK, reason=f"raster backend unavailable: {GL_WHY}")
CAM = CameraSpec(width=65, height=65, hfov_deg=90.0, near=0.05, far=50.0)
C = 32                                 # centre pixel: on the optical axis
FACING_CAMERA_SHADE = AMBIENT + DIFFUSE * max(0.0, -LIGHT_DIR[0])   # normal -x


def wall_quad(x, half, id, **kw):
    """A vertical square at distance x ahead of a camera at the origin looking
    along +x, facing it (normal -x); top-left = (+y, +z) as seen from there."""
    return quad_mesh([[x, half, half], [x, -half, half], [x, -half, -half], [x, half, -half]],
                     id, **kw)


def look_x():
    return np.zeros(3), optical_rotation(0.0, 0.0)


# ------------------------------------------------------------------- colours
@pytest.mark.parametrize("cls", BACKENDS)
def test_vertex_colours_are_lit_and_interpolated(cls):
    r = cls(CAM)
    # Left half red, right half blue (as seen); a middle quad goes red -> blue.
    left = wall_quad(3.0, 1.0, 4, color=(200, 0, 0))
    left.vertices[:, 1] += 1.2                                    # move to the left (+y)
    right = wall_quad(3.0, 1.0, 5, color=(0, 0, 200))
    right.vertices[:, 1] -= 1.2
    grad = Mesh(vertices=wall_quad(3.0, 0.2, 6, color=(0, 0, 0)).vertices,
                triangles=[[0, 3, 2], [0, 2, 1]], id=6,
                colors=[[240, 0, 0], [0, 0, 240], [0, 0, 240], [240, 0, 0]],
                normals=np.tile([-1.0, 0.0, 0.0], (4, 1)))
    r.set_static_meshes([left, right, grad])
    f = r.render(*look_x())
    lit = lambda c: np.floor(np.float32(c) * np.float32(FACING_CAMERA_SHADE) + 0.5)  # noqa: E731
    # A point at y = +1.2 (left) projects to column C - f * 1.2 / 3.
    du = int(round(CAM.focal * 1.2 / 3.0))
    assert f.seg[C, C - du] == 4 and f.seg[C, C + du] == 5 and f.seg[C, C] == 6
    np.testing.assert_array_equal(f.rgb[C, C - du], [lit(200), 0, 0])
    np.testing.assert_array_equal(f.rgb[C, C + du], [0, 0, lit(200)])
    # Centre of the gradient quad: half way between the lit red and blue.
    mid = f.rgb[C, C].astype(float)
    assert abs(mid[0] - lit(240) / 2) <= 2 and abs(mid[2] - lit(240) / 2) <= 2 and mid[1] == 0
    # Left of centre is redder than right of centre.
    assert f.rgb[C, C - 2, 0] > f.rgb[C, C + 2, 0] and f.rgb[C, C - 2, 2] < f.rgb[C, C + 2, 2]
    np.testing.assert_allclose(f.depth[C, C], 3.0, atol=1e-5)
    assert (f.seg[0] == 0).all() and (f.rgb[0] == 0).all()          # nothing above: background


@pytest.mark.parametrize("cls", BACKENDS)
def test_mesh_ids_in_seg_and_meshes_with_boxes(cls):
    r = cls(CAM)
    r.set_static([Box.from_yaw([5.0, 0.0, 0.0], [0.1, 3.0, 3.0])], [2], [[100, 100, 100]])
    r.set_static_meshes([wall_quad(4.0, 0.5, 77, color=(10, 200, 10))])
    r.set_dynamic_meshes([wall_quad(2.0, 0.1, 2 ** 31 - 1, color=(200, 10, 10))])
    f = r.render(*look_x())
    assert f.seg[C, C] == 2 ** 31 - 1 and f.seg.dtype == np.int32
    assert f.seg[C, C + 3] == 77 and f.seg[C, C + 8] == 2
    np.testing.assert_allclose([f.depth[C, C], f.depth[C, C + 3]], [2.0, 4.0], atol=1e-5)
    r.set_dynamic_meshes([])                                        # gone again
    f = r.render(*look_x())
    assert f.seg[C, C] == 77 and 2 ** 31 - 1 not in f.seg


# ------------------------------------------------------------------- texture
@pytest.mark.parametrize("cls", BACKENDS)
def test_texture_orientation(cls):
    """Image row 0 / column 0 land on the quad's top-left corner."""
    tex = np.zeros((2, 2, 3), np.uint8)
    tex[0, 0] = (255, 0, 0)        # top-left red
    tex[0, 1] = (0, 255, 0)        # top-right green
    tex[1, 0] = (0, 0, 255)        # bottom-left blue
    tex[1, 1] = (255, 255, 255)
    r = cls(CAM)
    r.set_static_meshes([wall_quad(2.0, 1.0, 3, texture=tex)])
    f = r.render(*look_x())
    q = int(round(CAM.focal * 0.8 / 2.0))                          # 0.8 m off centre
    s = FACING_CAMERA_SHADE * 255
    for (dv, du), want in (((-q, -q), (s, 0, 0)), ((-q, q), (0, s, 0)),
                           ((q, -q), (0, 0, s)), ((q, q), (s, s, s))):
        np.testing.assert_allclose(f.rgb[C + dv, C + du], want, atol=3)


@pytest.fixture(scope="module")
def ocr():
    rapidocr = pytest.importorskip(
        "rapidocr_onnxruntime",
        reason="rapidocr-onnxruntime is not installed (pip install -r requirements.txt)")
    return rapidocr.RapidOCR()


@pytest.mark.parametrize("cls", BACKENDS)
def test_whiteboard_text_is_read_by_ocr(cls, ocr):
    """A 1.6 m x 0.8 m whiteboard, 2 m ahead, at 640x480: OCR reads its lines."""
    lines = ["GOAL: RED MUG", "KITCHEN LEFT"]
    tex = text_texture(lines, width=640, height=320, font_size=64)
    board = quad_mesh([[2.0, 0.8, 0.4], [2.0, -0.8, 0.4], [2.0, -0.8, -0.4], [2.0, 0.8, -0.4]],
                      9, texture=tex)
    r = cls(CameraSpec(640, 480, 70.0))
    r.set_static([Box.from_yaw([0, 0, -1.2], [5, 5, 0.1])], [1], [[120, 110, 100]])  # a floor
    r.set_static_meshes([board])
    f = r.render(*look_x())
    assert (f.seg == 9).mean() > 0.15
    result, _ = ocr(f.rgb)
    read = [text for _, text, _ in (result or [])]
    norm = [t.replace(" ", "").upper() for t in read]
    for line in lines:
        assert line.replace(" ", "") in norm, f"OCR read {read}"


# ------------------------------------------------------------------- terrain
@pytest.mark.parametrize("cls", BACKENDS)
def test_heightfield_depth_from_above(cls):
    """Seen straight down from z = 10: z-depth = 10 - terrain height, for a
    plane and for a ramp (height linear in x: exact on every triangle)."""
    rows, cols = 61, 61
    yy, xx = np.mgrid[0:rows, 0:cols]
    look_down = optical_rotation(0.0, np.pi / 2)
    for heights, h_at in ((np.full((rows, cols), 1.5), lambda x, y: 1.5 + 0 * x),
                          (0.2 * (xx * 0.5 - 15.0), lambda x, y: 0.2 * x)):
        terrain = heightfield_mesh(heights, origin=(-15.0, -15.0), spacing=0.5,
                                   colors=(80, 120, 60), id=11)
        r = cls(CAM)
        r.set_static_meshes([terrain])
        f = r.render([0.0, 0.0, 10.0], look_down)
        assert (f.seg == 11).all()
        p = f.points
        np.testing.assert_allclose(f.depth, 10.0 - h_at(p[..., 0], p[..., 1]), atol=1e-4)
        np.testing.assert_allclose(p[..., 2], h_at(p[..., 0], p[..., 1]), atol=1e-4)


@pytest.mark.parametrize("cls", BACKENDS)
def test_heightfield_1000x1000(cls):
    """A 1000 x 1000 sample terrain (2e6 triangles) renders: a bump's height
    read back from the depth at the pixel below the camera."""
    n = 1000
    heights = np.zeros((n, n), np.float32)
    heights[495:506, 495:506] = 7.0                   # a plateau around x = y = 0
    terrain = heightfield_mesh(heights, origin=(-500.0, -500.0), spacing=1.0,
                               colors=(90, 140, 60), id=3)
    cam = CameraSpec(64, 48, 60.0, near=0.5, far=3000.0)
    r = cls(cam)
    r.set_static_meshes([terrain])
    r.set_dynamic([Box.from_yaw([120.0, 0.0, 2.0], [3.0, 3.0, 2.0])], [5], [[255, 0, 0]])
    f = r.render([0.0, 0.0, 50.0], optical_rotation(0.0, np.pi / 2))
    cv, cu = 23, 31                                    # next to the optical axis
    np.testing.assert_allclose(f.depth[cv:cv + 2, cu:cu + 2], 43.0, atol=1e-3)
    assert (f.seg == 3).mean() > 0.95
    far = r.render([0.0, 0.0, 50.0], optical_rotation(0.0, 0.3))     # oblique: to the horizon
    assert 5 in far.seg and (far.seg == 3).mean() > 0.3 and np.isinf(far.depth).any()


def test_raycast_split_scene_matches_merged(monkeypatch):
    """Big static geometry gets its own ray-casting scene; pictures are the same."""
    rng = np.random.default_rng(3)
    heights = rng.uniform(0, 0.3, (30, 30))
    meshes = [heightfield_mesh(heights, origin=(-6.0, -6.0), spacing=0.4, colors=(90, 90, 90),
                               id=8)]
    static, dynamic = random_scene(rng, n_static=12, n_dynamic=20)
    # Copies of the dynamic boxes, moved (coinciding surfaces would be a tie).
    dyn_meshes = [box_mesh(Box(b.center + [0.3, 0.2, 0.1], b.half, b.rot), c, i + 3000)
                  for i, (b, c) in enumerate(zip(dynamic[0], dynamic[2]))]
    frames = []
    for split in (10 ** 9, 10):
        monkeypatch.setattr(raycast_mod, "SPLIT_TRIANGLES", split)
        r = RaycastRenderer(CameraSpec(48, 48, 90.0))
        r.set_static(*static)
        r.set_static_meshes(meshes)
        r.set_dynamic(*dynamic)
        r.set_dynamic_meshes(dyn_meshes[:10])
        r.render(*look_x())
        r.set_dynamic_meshes(dyn_meshes[10:])                       # rebuilds only dynamic
        assert r._split == (split == 10)
        poses = list(walk(5, np.random.default_rng(1)))
        frames.append([r.render(p, R) for p, R in poses])
        frames.append(r.cast_rays(np.array([[0, 0, 1, 1, 0, 0], [0, 0, 1, 0, 0, -1.0]])))
    for a, b in zip(frames[0], frames[2]):
        np.testing.assert_array_equal(a.seg, b.seg)
        np.testing.assert_array_equal(a.rgb, b.rgb)
        np.testing.assert_allclose(a.depth, b.depth, atol=1e-5)
    np.testing.assert_allclose(frames[1], frames[3], atol=1e-5)


# ------------------------------------------------------------------- effects
def two_walls(cls, cam=CAM):
    r = cls(cam)
    r.set_static([Box.from_yaw([3.0, 0.0, 0.0], [0.05, 5.0, 0.5]),      # near strip
                  Box.from_yaw([20.0, 0.0, 0.0], [0.05, 8.0, 8.0])],    # far wall, sky around
                 [1, 2], [[200, 150, 100], [200, 150, 100]])
    return r


@pytest.mark.parametrize("cls", BACKENDS)
def test_default_effects_reproduce_plain_images(cls):
    r = two_walls(cls)
    water = WaterSurface(level=0.3)
    for w in (None, water):
        a, b = r.render(*look_x(), w), r.render(*look_x(), w, effects=RenderEffects())
        for k in ("rgb", "depth", "seg"):
            np.testing.assert_array_equal(getattr(a, k), getattr(b, k))


@pytest.mark.parametrize("cls", BACKENDS)
@pytest.mark.parametrize("fog", ["exp", "linear"])
def test_fog_changes_rgb_with_distance_only(cls, fog):
    r = two_walls(cls)
    plain = r.render(*look_x())
    fx = RenderEffects(fog=fog, visibility=25.0, fog_start=1.0, fog_color=(230, 230, 240),
                       sky=(40, 60, 200))
    f = r.render(*look_x(), effects=fx)
    np.testing.assert_array_equal(f.seg, plain.seg)
    np.testing.assert_array_equal(f.depth, plain.depth)
    near, far = (C, C), (C - 8, C)                                     # near strip, far wall
    assert f.seg[near] == 1 and f.seg[far] == 2
    for px in (near, far):
        d = float(plain.depth[px]) * np.sqrt(1 + ((px[0] - C) / CAM.focal) ** 2)
        t = 1 - np.exp(-3.0 * d / 25.0) if fog == "exp" else np.clip((d - 1.0) / 24.0, 0, 1)
        want = plain.rgb[px] * (1 - t) + np.array([230, 230, 240]) * t
        np.testing.assert_allclose(f.rgb[px], want, atol=1.01)
    # Farther is foggier: closer to the fog colour.
    gap = lambda px: np.abs(f.rgb[px].astype(int) - [230, 230, 240]).sum()   # noqa: E731
    assert gap(far) < gap(near)
    assert (f.rgb[plain.seg == 0] == [40, 60, 200]).all()           # the sky keeps its colour


@pytest.mark.parametrize("cls", BACKENDS)
def test_light_level(cls):
    r = two_walls(cls)
    plain = r.render(*look_x(), WaterSurface(level=0.2))
    night = r.render(*look_x(), WaterSurface(level=0.2), effects=RenderEffects(light=0.0,
                                                                             sky=(5, 5, 20)))
    hit = plain.seg > 0
    assert hit.any() and (~hit).any()
    assert (night.rgb[hit] == 0).all()
    assert (night.rgb[~hit] != 0).all()                       # sky (under no water here)
    np.testing.assert_array_equal(night.water_depth, plain.water_depth)
    dusk = r.render(*look_x(), effects=RenderEffects(light=0.5)).rgb
    plain = r.render(*look_x())
    np.testing.assert_allclose(dusk[hit], np.floor(plain.rgb[hit] * np.float32(0.5) + 0.5), atol=0)


@pytest.mark.parametrize("cls", BACKENDS)
def test_post_effects_run_in_order_on_rgb(cls):
    r = two_walls(cls)
    plain = r.render(*look_x())
    calls = []

    def invert(rgb):
        calls.append("invert")
        return 255 - rgb

    def streak(rgb):                     # in place is allowed
        calls.append("streak")
        rgb[:, 10] = 255
        return rgb

    f = r.render(*look_x(), effects=RenderEffects(post=(invert, streak)))
    assert calls == ["invert", "streak"]
    want = 255 - plain.rgb
    want[:, 10] = 255
    np.testing.assert_array_equal(f.rgb, want)
    np.testing.assert_array_equal(f.depth, plain.depth)
    with pytest.raises(ValueError, match="must return"):
        r.render(*look_x(), effects=RenderEffects(post=(lambda rgb: rgb[::2],)))


def test_effects_validation():
    with pytest.raises(ValueError, match="light"):
        RenderEffects(light=1.5)
    with pytest.raises(ValueError, match="fog"):
        RenderEffects(fog="cubic")
    with pytest.raises(ValueError, match="visibility"):
        RenderEffects(visibility=0.0)
    with pytest.raises(ValueError, match="sky"):
        RenderEffects(sky=(0, 0, 300))
    with pytest.raises(TypeError, match="callables"):
        RenderEffects(post=("rain",))
    assert RenderEffects(post=[abs]).post == (abs,)


def test_mesh_validation():
    v = np.zeros((3, 3))
    with pytest.raises(ValueError, match="either per-vertex colors or uv"):
        Mesh(v, [[0, 1, 2]], 1)
    with pytest.raises(ValueError, match="positive"):
        Mesh(v, [[0, 1, 2]], 0, colors=(1, 2, 3))
    with pytest.raises(ValueError, match="indices"):
        Mesh(v, [[0, 1, 3]], 1, colors=(1, 2, 3))
    with pytest.raises(ValueError, match="uv"):
        Mesh(v, [[0, 1, 2]], 1, texture=np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="texture"):
        Mesh(v, [[0, 1, 2]], 1, uv=np.zeros((3, 2)), texture=np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="2D grid"):
        heightfield_mesh(np.zeros(5), colors=(1, 1, 1))
    with pytest.raises(ValueError, match="colors"):
        heightfield_mesh(np.zeros((3, 3)), colors=np.zeros((2, 2, 3)))
    with pytest.raises(TypeError, match="Mesh"):
        RaycastRenderer(CAM).set_static_meshes([Box.from_yaw([0, 0, 0], [1, 1, 1])])
    img = text_texture("HELLO\nWORLD", width=200, font_size=20)
    assert img.shape[1] == 200 and img.dtype == np.uint8 and (img == 0).any()


# ---------------------------------------------------------- the two backends
@needs_gl
def test_box_api_and_box_meshes_give_identical_images():
    """Boxes given as boxes or as box_mesh meshes: the same rgb, depth and seg
    (bit for bit on all but a few silhouette pixels, where the raster backend
    culls back faces of boxes but draws meshes two-sided)."""
    rng = np.random.default_rng(11)
    static, dynamic = random_scene(rng)
    cam = CameraSpec(96, 72, 90.0)
    for cls in (RaycastRenderer, RasterRenderer):
        boxes, meshes = cls(cam), cls(cam)
        boxes.set_static(*static)
        boxes.set_dynamic(*dynamic)
        meshes.set_static_meshes([box_mesh(b, c, i) for b, i, c in zip(*static)])
        meshes.set_dynamic_meshes([box_mesh(b, c, i) for b, i, c in zip(*dynamic)])
        same = total = 0
        for pos, rot in walk(10, np.random.default_rng(2)):
            a, b = boxes.render(pos, rot), meshes.render(pos, rot)
            eq = (a.seg == b.seg) & (a.rgb == b.rgb).all(-1) & (a.depth == b.depth)
            same += eq.sum()
            total += eq.size
        assert same / total >= 0.9995, f"{cls.__name__}: {same / total:.5f} identical"


def jumps(f):
    """Pixels within 1 px of a change of instance or a jump of depth (> 2 %):
    silhouettes and occlusion boundaries, not the creases of smooth terrain."""
    h, w = f.seg.shape
    d = np.where(np.isfinite(f.depth), f.depth, 1e9)
    pad_s, pad_d = np.pad(f.seg, 1, mode="edge"), np.pad(d, 1, mode="edge")
    out = np.zeros((h, w), bool)
    for dv in (-1, 0, 1):
        for du in (-1, 0, 1):
            s2 = pad_s[1 + dv:1 + dv + h, 1 + du:1 + du + w]
            d2 = pad_d[1 + dv:1 + dv + h, 1 + du:1 + du + w]
            out |= (s2 != f.seg) | (np.abs(d2 - d) > 0.02 * np.minimum(d, d2))
    return out


def mesh_scene(rng):
    """Terrain (per-sample colours), a textured board, a textured box-like
    mesh, box meshes with ids, and plain boxes."""
    n = 60
    yy, xx = np.mgrid[0:n, 0:n]
    heights = 0.3 * np.sin(xx / 6.0) * np.cos(yy / 9.0) + 0.002 * xx
    cols = np.stack([40 + 3 * xx, 90 + 2 * yy, 60 + 0 * xx], -1).astype(np.uint8)
    terrain = heightfield_mesh(heights, origin=(-6.0, -6.0, -0.3), spacing=0.2, colors=cols, id=40)
    checker = (((np.arange(64)[:, None] // 8) + (np.arange(64)[None, :] // 8)) % 2 * 200 + 30)
    tex = np.repeat(checker[..., None], 3, -1).astype(np.uint8)
    tex[..., 0] = np.arange(64)[None, :] * 4
    board = quad_mesh([[3.0, 1.0, 1.8], [3.0, -1.0, 1.8], [3.0, -1.0, 0.6], [3.0, 1.0, 0.6]],
                      41, texture=text_texture(["EXIT", "NORTH 12"], width=256, font_size=48))
    tilted = quad_mesh([[-2.0, -3.0, 1.5], [-1.0, -2.0, 1.6], [-1.2, -2.1, 0.3],
                        [-2.2, -3.1, 0.2]], 42, texture=tex)
    boxes = [box_mesh(Box(rng.uniform([-4, -4, 0.2], [4, 4, 1.5]), rng.uniform(0.1, 0.4, 3),
                          np.eye(3)), rng.integers(0, 256, 3), 100 + i) for i in range(8)]
    plain = ([Box.from_yaw([0.0, 4.0, 0.8], [3.0, 0.1, 0.8])], [7], [[150, 60, 60]])
    return terrain, board, tilted, boxes, plain


@needs_gl
@pytest.mark.parametrize("cam", [CameraSpec(128, 96, 90.0), CameraSpec(160, 120, 70.0, near=0.1)],
                         ids=["128x96", "160x120"])
def test_backends_agree_on_a_mesh_scene(cam):
    rng = np.random.default_rng(cam.width)
    terrain, board, tilted, boxes, plain = mesh_scene(rng)
    renderers = []
    for cls in (RaycastRenderer, RasterRenderer):
        r = cls(cam)
        r.set_static(*plain)
        r.set_static_meshes([terrain, board])
        r.set_dynamic_meshes([tilted] + boxes)
        renderers.append(r)
    waters = [None, WaterSurface(level=0.1), None]
    effects = [RenderEffects(), RenderEffects(light=0.6, visibility=12.0, sky=(90, 120, 200)),
               RenderEffects(fog="linear", visibility=9.0, fog_start=2.0)]
    seg_same, n_inner, n_hit = [], 0, 0
    for i in range(12):                                 # around the scene, looking in
        a = 2 * np.pi * i / 12 + rng.uniform(0, 0.3)
        pos = np.array([4.5 * np.cos(a), 4.5 * np.sin(a), rng.uniform(0.5, 2.5)])
        rot = optical_rotation(a + np.pi + rng.uniform(-0.5, 0.5), rng.uniform(0.05, 0.6))
        w, fx = waters[i % 3], effects[i % 3]
        ray, ras = (r.render(pos, rot, w, effects=fx) for r in renderers)
        same = ray.seg == ras.seg
        seg_same.append(same.mean())
        hit = same & np.isfinite(ray.depth)
        np.testing.assert_array_equal(np.isinf(ray.depth)[same], np.isinf(ras.depth)[same])
        inner = hit & ~jumps(ray) & ~jumps(ras)
        n_inner, n_hit = n_inner + inner.sum(), n_hit + hit.sum()
        with np.errstate(invalid="ignore"):                     # inf - inf off the hits
            err = np.abs(ray.depth - ras.depth)[inner]
        assert err.max(initial=0) <= 1e-3, f"depth off by {err.max()} m"
        drgb = np.abs(ray.rgb.astype(int) - ras.rgb.astype(int)).max(-1)
        # Interpolated colour and bilinear texture: off by a rounding step or two
        # (llvmpipe filters textures in 8-bit fixed point), never more inside faces.
        assert (drgb[inner] <= 3).mean() >= 0.995, f"rgb differs by {drgb[inner].max()}"
        if w is not None:
            np.testing.assert_allclose(ras.water_depth[inner], ray.water_depth[inner], atol=1e-3)
    assert min(seg_same) >= 0.99 and np.mean(seg_same) >= 0.998, seg_same
    assert n_hit > 0.5 * 12 * cam.width * cam.height and n_inner >= 0.4 * n_hit
    # LiDAR-style rays see the meshes on both (the raster backend mirrors its scene).
    rays = np.array([[0, 0, 1.2, 1, 0, 0], [0, 0, 5, 0, 0, -1], [0, 0, 1.2, 0, 1, 0]], np.float32)
    np.testing.assert_allclose(renderers[0].cast_rays(rays), renderers[1].cast_rays(rays),
                               atol=1e-5)
    assert np.isfinite(renderers[1].cast_rays(rays)).all()


@needs_gl
def test_backends_agree_on_the_benchmark_room_as_meshes():
    """The HAZARD benchmark room as box meshes: the box agreement criteria hold."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        from bench_render import make_room, poses
    finally:
        sys.path.pop(0)
    static, dynamic = make_room(np.random.default_rng(0))
    rs = []
    for cls in (RaycastRenderer, RasterRenderer):
        r = cls(CameraSpec(128, 128, 90.0))
        r.set_static_meshes([box_mesh(b, c, i) for b, i, c in zip(*static)])
        r.set_dynamic_meshes([box_mesh(b, c, i) for b, i, c in zip(*dynamic)])
        rs.append(r)
    for pos, rot in poses(6):
        assert_agree(rs[0].render(pos, rot), rs[1].render(pos, rot))
