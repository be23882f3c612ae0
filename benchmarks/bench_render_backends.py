"""Benchmark the two render backends side by side (a script, not a test).

    .venv/bin/python benchmarks/bench_render_backends.py [--frames 300] [--json out.json]

Same scene as benchmarks/bench_render.py (a ~150 box room: walls, furniture,
objects, flames), same camera walk, both backends (raycast = Open3D ray
casting, raster = OpenGL on Mesa llvmpipe through headless EGL) at each image
size, for RGB + depth + segmentation with and without a sloped water surface.
Every case renders the same pose in turn (frame-interleaved), so the noise of
other processes on a small shared CPU hits all cases alike; after a warm-up,
the median over all frames gives fps, and the 10th percentile shows the less
disturbed speed. It also checks, on the last frame of each size, that the two
backends agree (share of pixels with the same instance id).

Before / after the mesh renderer, in the same run:

* ``boxes`` (the box API, the HAZARD path) next to ``box meshes`` (the same
  boxes as ``box_mesh`` meshes) and ``boxes+effects`` (fog, light, sky);
* with ``--ref DIR``, also the renderers of an older checkout, as ``boxes (ref)``:
  DIR holds that checkout's ``hazard_sim`` renamed ``hazard_sim_ref``, e.g.
  ``git archive <rev> hazard_sim | tar -x -C DIR && mv DIR/hazard_sim DIR/hazard_sim_ref``;
* a 1000 x 1000 sample height-field terrain (5 km x 5 km) seen by a camera
  circling at 300 m (``--terrain-frames``, 0 to skip).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_render import cpu_info, make_room, poses  # noqa: E402

from hazard_sim.render import CameraSpec, RenderEffects, WaterSurface, box_mesh, heightfield_mesh, optical_rotation  # noqa: E402
from hazard_sim.render.backend import make_renderer  # noqa: E402

EFFECTS = RenderEffects(light=0.7, visibility=15.0, fog_color=(190, 190, 200), sky=(120, 160, 220))


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu_info()}; {platform.system()} {platform.release()}; load average {load:.1f}"


def ref_renderer(ref_dir: str, backend: str, cam):
    """A renderer of the older checkout in ``ref_dir`` (package ``hazard_sim_ref``)."""
    if ref_dir not in sys.path:
        sys.path.insert(0, ref_dir)
    import importlib
    mod = importlib.import_module("hazard_sim_ref.render." + backend)
    cls = mod.RasterRenderer if backend == "raster" else mod.RaycastRenderer
    ref_cam = importlib.import_module("hazard_sim_ref.render.camera").CameraSpec(
        cam.width, cam.height, cam.hfov_deg, cam.near, cam.far)
    return cls(ref_cam)


def terrain_mesh(n: int = 1000, size_m: float = 5000.0):
    """A hilly n x n height field over size_m x size_m, coloured by height."""
    yy, xx = np.mgrid[0:n, 0:n] / (n - 1)
    h = 120 * np.sin(3 * xx) * np.cos(2 * yy) + 25 * np.sin(17 * xx + 5 * yy) + 8 * np.cos(40 * yy)
    k = (h - h.min()) / (h.max() - h.min())
    cols = np.stack([70 + 120 * k, 130 - 30 * k, 60 + 40 * k], -1).astype(np.uint8)
    return heightfield_mesh(h, origin=(-size_m / 2, -size_m / 2), spacing=size_m / (n - 1),
                            colors=cols, id=1)


def terrain_poses(n: int):
    """A camera circling at 300 m, 1 km from the centre, looking 25 deg down, outwards."""
    for k in range(n):
        a = 2 * np.pi * k / n
        yield np.array([1000 * np.cos(a), 1000 * np.sin(a), 300.0]), optical_rotation(a, 0.45)


def timed(cases: dict, poses_list, warmup: int) -> dict:
    """Median and p10 (ms) of each case ``fn(pos, rot)``, cases interleaved per pose."""
    times = {k: [] for k in cases}
    for i in range(warmup):
        for fn in cases.values():
            fn(*poses_list[i % len(poses_list)])
    keys = list(cases)
    for i, pose in enumerate(poses_list):
        # The case order rotates from pose to pose: none always runs first, just after
        # another library's worker threads were busy.
        for key in keys[i % len(keys):] + keys[:i % len(keys)]:
            t0 = time.perf_counter()
            cases[key](*pose)
            times[key].append(time.perf_counter() - t0)
    return {k: (1e3 * float(np.median(t)), 1e3 * float(np.percentile(t, 10)))
            for k, t in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=300, help="timed frames per case")
    ap.add_argument("--warmup", type=int, default=20, help="untimed frames per case first")
    ap.add_argument("--sizes", default="256x256,640x480", help="comma separated WxH list")
    ap.add_argument("--backends", default="raycast,raster")
    ap.add_argument("--ref", help="directory with an older checkout's package as hazard_sim_ref")
    ap.add_argument("--terrain-frames", type=int, default=30, help="0: no terrain cases")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    static, dynamic = make_room(rng)
    static_meshes = [box_mesh(b, c, i) for b, i, c in zip(*static)]
    dynamic_meshes = [box_mesh(b, c, i) for b, i, c in zip(*dynamic)]
    water = WaterSurface(level=0.4, origin=[-6.0, 0.0], direction=[1.0, 0.0],
                         slope_rad=np.radians(3.0))
    n_boxes = len(static[0]) + len(dynamic[0])
    backends = args.backends.split(",")
    results = {"machine": machine(), "boxes": n_boxes, "frames": args.frames, "cases": [],
               "ratios": {}, "seg_agreement": {}}
    gl = None
    print(f"machine: {results['machine']}")
    print(f"scene: {n_boxes} boxes ({12 * n_boxes} triangles); {args.warmup} warm-up + "
          f"{args.frames} timed frames per case, cases interleaved frame by frame")
    header = (f"\n{'size':>9}  {'backend':<8} {'case':<22} {'median ms':>9} {'fps':>7} "
              f"{'p10 ms':>7} {'p10 fps':>8}")
    print(header)

    def report(size, b, c, ms, p10):
        print(f"{size:>9}  {b:<8} {c:<22} {ms:9.3f} {1e3 / ms:7.1f} {p10:7.3f} {1e3 / p10:8.1f}")
        results["cases"].append({"size": size, "backend": b, "case": c, "median_ms": ms,
                                 "fps": 1e3 / ms, "p10_ms": p10, "p10_fps": 1e3 / p10})

    closers = []
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.lower().split("x"))
        cam = CameraSpec(width=w, height=h, hfov_deg=90.0)
        cases, pairs = {}, {}
        for name in backends:
            r = make_renderer(cam, name)
            r.set_static(*static)
            r.set_dynamic(*dynamic)
            m = make_renderer(cam, name)
            m.set_static_meshes(static_meshes)
            m.set_dynamic_meshes(dynamic_meshes)
            closers += [r, m]
            pairs[name] = (r, m)
            if name == "raster":
                gl = r.gl_info
            cases[(name, "boxes")] = r.render
            cases[(name, "box meshes")] = m.render
            cases[(name, "boxes+water")] = lambda p, R, r=r: r.render(p, R, water)
            cases[(name, "boxes+effects")] = lambda p, R, r=r: r.render(p, R, effects=EFFECTS)
            if args.ref:
                old = ref_renderer(args.ref, name, cam)
                old.set_static(*static)
                old.set_dynamic(*dynamic)
                closers.append(old)
                cases[(name, "boxes (ref)")] = old.render
        res = {}
        for b in backends:          # one backend at a time: their thread pools do not mix
            res.update(timed({k: v for k, v in cases.items() if k[0] == b},
                             list(poses(args.frames)), args.warmup))
        for (b, c), (ms, p10) in res.items():
            report(size, b, c, ms, p10)
        for b in backends:
            ratio = {"box meshes / boxes": res[(b, "box meshes")][0] / res[(b, "boxes")][0],
                     "boxes+effects / boxes": res[(b, "boxes+effects")][0] / res[(b, "boxes")][0]}
            if args.ref:
                ratio["boxes / boxes (ref)"] = res[(b, "boxes")][0] / res[(b, "boxes (ref)")][0]
            results["ratios"][f"{size} {b}"] = ratio
            print(f"{size:>9}  {b:<8} time ratios: " +
                  ", ".join(f"{k} = {v:.3f}" for k, v in ratio.items()))
        if len(pairs) == 2:
            last = list(poses(args.frames))[-1]
            (ra, ma), (rb, mb) = pairs.values()
            for label, x, y in (("boxes", ra, rb), ("box meshes", ma, mb)):
                agree = float((x.render(*last, water).seg == y.render(*last, water).seg).mean())
                print(f"{size:>9}  seg agreement of the backends, {label}, last pose: "
                      f"{100 * agree:.2f} %")
                results["seg_agreement"][f"{size} {label}"] = agree

    if args.terrain_frames:
        t0 = time.perf_counter()
        terrain = terrain_mesh()
        print(f"\nterrain: 1000 x 1000 samples ({len(terrain.triangles)} triangles), built in "
              f"{time.perf_counter() - t0:.2f} s; {args.terrain_frames} frames per case")
        print(header)
        for size in args.sizes.split(","):
            w, h = (int(v) for v in size.lower().split("x"))
            cam = CameraSpec(width=w, height=h, hfov_deg=90.0, near=0.5, far=10000.0)
            cases, rs = {}, []
            for name in backends:
                r = make_renderer(cam, name)
                t0 = time.perf_counter()
                r.set_static_meshes([terrain])
                r.render(*next(terrain_poses(1)))
                print(f"{size:>9}  {name:<8} terrain upload + first frame: "
                      f"{time.perf_counter() - t0:.2f} s")
                closers.append(r)
                rs.append(r)
                cases[(name, "terrain 1000x1000")] = r.render
            tp = list(terrain_poses(args.terrain_frames))
            for (b, c), (ms, p10) in timed(cases, tp, 2).items():
                report(size, b, c, ms, p10)
            if len(rs) == 2:
                agree = float(np.mean([(rs[0].render(*p).seg == rs[1].render(*p).seg).mean()
                                       for p in tp[:5]]))
                print(f"{size:>9}  seg agreement of the backends on terrain (5 poses): "
                      f"{100 * agree:.3f} %")
                results["seg_agreement"][f"{size} terrain"] = agree
    for r in closers:
        if hasattr(r, "close"):
            r.close()
    if gl:
        print(f"\nraster backend: {gl} (LP_NUM_THREADS={os.environ.get('LP_NUM_THREADS', 'default')})")
        results["gl"] = gl
    results["machine_after"] = machine()
    print(f"machine after: {results['machine_after']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
