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

from hazard_sim.render import CameraSpec, WaterSurface  # noqa: E402
from hazard_sim.render.backend import make_renderer  # noqa: E402


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{cpu_info()}; {platform.system()} {platform.release()}; load average {load:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=300, help="timed frames per case")
    ap.add_argument("--warmup", type=int, default=20, help="untimed frames per case first")
    ap.add_argument("--sizes", default="256x256,640x480", help="comma separated WxH list")
    ap.add_argument("--backends", default="raycast,raster")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    static, dynamic = make_room(rng)
    water = WaterSurface(level=0.4, origin=[-6.0, 0.0], direction=[1.0, 0.0],
                         slope_rad=np.radians(3.0))
    n_boxes = len(static[0]) + len(dynamic[0])
    backends = args.backends.split(",")
    results = {"machine": machine(), "boxes": n_boxes, "frames": args.frames, "cases": []}
    gl = None
    print(f"machine: {results['machine']}")
    print(f"scene: {n_boxes} boxes ({12 * n_boxes} triangles); {args.warmup} warm-up + "
          f"{args.frames} timed frames per case, cases interleaved frame by frame")
    print(f"\n{'size':>9}  {'backend':<8} {'case':<20} {'median ms':>9} {'fps':>7} "
          f"{'p10 ms':>7} {'p10 fps':>8}")
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.lower().split("x"))
        cam = CameraSpec(width=w, height=h, hfov_deg=90.0)
        renderers = {}
        for name in backends:
            r = make_renderer(cam, name)
            r.set_static(*static)
            r.set_dynamic(*dynamic)
            renderers[name] = r
            if name == "raster":
                gl = r.gl_info
        cases = {(b, c): (r, wat) for c, wat in (("rgb+depth+seg", None),
                                                 ("rgb+depth+seg+water", water))
                 for b, r in renderers.items()}
        times = {k: [] for k in cases}
        walk = list(poses(args.frames))
        for i in range(args.warmup):
            for r, wat in cases.values():
                r.render(*walk[i % len(walk)], wat)
        for pose in walk:
            for key, (r, wat) in cases.items():
                t0 = time.perf_counter()
                r.render(*pose, wat)
                times[key].append(time.perf_counter() - t0)
        for (b, c), t in times.items():
            ms, p10 = 1e3 * float(np.median(t)), 1e3 * float(np.percentile(t, 10))
            print(f"{size:>9}  {b:<8} {c:<20} {ms:9.3f} {1e3 / ms:7.1f} {p10:7.3f} "
                  f"{1e3 / p10:8.1f}")
            results["cases"].append({"size": size, "backend": b, "case": c, "median_ms": ms,
                                     "fps": 1e3 / ms, "p10_ms": p10, "p10_fps": 1e3 / p10})
        if len(renderers) == 2:
            a, b = (r.render(*walk[-1], water) for r in renderers.values())
            agree = float((a.seg == b.seg).mean())
            print(f"{size:>9}  seg agreement of the backends on the last pose: {100 * agree:.2f} %")
            results.setdefault("seg_agreement", {})[size] = agree
        for r in renderers.values():
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
