"""Benchmark the ray-casting renderer (a script, not a test).

    .venv/bin/python benchmarks/bench_render.py [--frames 200] [--json out.json]

Renders a ~150 box room (walls, furniture, objects, flames) from a camera that
walks around the room, and reports median frames per second for RGB + depth +
segmentation (+ points) with and without a water surface, plus the cost of a
``set_dynamic`` rebuild (including the scene commit on the next render).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from hazard_sim.geometry import Box
from hazard_sim.render import CameraSpec, RaycastRenderer, WaterSurface, optical_rotation


def make_room(rng: np.random.Generator, n_furniture=20, n_objects=40, n_flames=50):
    """Static boxes (room shell, partitions, furniture) and dynamic boxes
    (objects, flames) with ids and colours; ~150 boxes in total."""
    sx, sy, hz, t = 6.0, 5.0, 3.0, 0.1
    static = [Box.from_yaw([0, 0, -t], [sx, sy, t]),            # floor
              Box.from_yaw([0, 0, hz + t], [sx, sy, t]),        # ceiling
              Box.from_yaw([sx + t, 0, hz / 2], [t, sy, hz / 2]),
              Box.from_yaw([-sx - t, 0, hz / 2], [t, sy, hz / 2]),
              Box.from_yaw([0, sy + t, hz / 2], [sx, t, hz / 2]),
              Box.from_yaw([0, -sy - t, hz / 2], [sx, t, hz / 2])]
    for i in range(24):                                          # partition walls, skirting
        c = rng.uniform([-sx, -sy, 0], [sx, sy, 0])
        static.append(Box.from_yaw(c + [0, 0, 0.3], [rng.uniform(0.3, 1.5), 0.05, 0.3],
                                   rng.choice([0, np.pi / 2])))
    for _ in range(n_furniture):
        half = rng.uniform([0.2, 0.2, 0.2], [0.8, 0.6, 0.6])
        c = np.r_[rng.uniform([-sx + 1, -sy + 1], [sx - 1, sy - 1]), half[2]]
        static.append(Box.from_yaw(c, half, rng.uniform(-np.pi, np.pi)))
    dynamic = []
    for _ in range(n_objects):
        half = rng.uniform(0.03, 0.15, 3)
        c = np.r_[rng.uniform([-sx + 0.5, -sy + 0.5], [sx - 0.5, sy - 0.5]), half[2]]
        dynamic.append(Box.from_yaw(c, half, rng.uniform(-np.pi, np.pi)))
    for _ in range(n_flames):
        half = rng.uniform([0.05, 0.05, 0.1], [0.2, 0.2, 0.5])
        c = np.r_[rng.uniform([-sx + 0.5, -sy + 0.5], [sx - 0.5, sy - 0.5]), half[2]]
        dynamic.append(Box.from_yaw(c, half, rng.uniform(-np.pi, np.pi)))
    sid = np.arange(1, len(static) + 1, dtype=np.int32)
    did = np.arange(1, len(dynamic) + 1, dtype=np.int32) + 1000
    scol = rng.integers(60, 255, (len(static), 3), dtype=np.uint8)
    dcol = rng.integers(60, 255, (len(dynamic), 3), dtype=np.uint8)
    dcol[n_objects:] = [255, 120, 20]
    return (static, sid, scol), (dynamic, did, dcol)


def poses(n: int):
    """Camera poses walking on a circle in the room, looking slightly down."""
    for k in range(n):
        a = 2 * np.pi * k / n
        yield np.array([3 * np.cos(a), 2.5 * np.sin(a), 1.2]), optical_rotation(a + 2.0, 0.2)


def median_ms(fn, n: int) -> float:
    times = []
    for arg in poses(n):
        t0 = time.perf_counter()
        fn(*arg)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def cpu_info() -> str:
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--sizes", default="256x256,640x480", help="comma separated WxH list")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    static, dynamic = make_room(rng)
    water = WaterSurface(level=0.4, origin=[-6.0, 0.0], direction=[1.0, 0.0],
                         slope_rad=np.radians(3.0))
    n_boxes = len(static[0]) + len(dynamic[0])
    print(f"machine: {cpu_info()}")
    print(f"scene: {n_boxes} boxes ({12 * n_boxes} triangles), {args.frames} frames per case\n")
    print(f"{'size':>9}  {'case':<22} {'median ms':>10} {'fps':>8}")
    results = {"machine": cpu_info(), "boxes": n_boxes, "frames": args.frames, "cases": []}
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.lower().split("x"))
        r = RaycastRenderer(CameraSpec(width=w, height=h, hfov_deg=90.0))
        r.set_static(*static)
        r.set_dynamic(*dynamic)
        r.render(*next(poses(1)))  # build + warm up
        cases = {
            "rgb+depth+seg+points": lambda p, R: r.render(p, R),
            "  + water": lambda p, R: r.render(p, R, water),
        }
        for name, fn in cases.items():
            ms = median_ms(fn, args.frames)
            print(f"{size:>9}  {name:<22} {ms:10.3f} {1e3 / ms:8.1f}")
            results["cases"].append({"size": size, "case": name.strip(), "ms": ms, "fps": 1e3 / ms})
        # set_dynamic rebuild (new geometry) and the first render that commits it
        def rebuild(p, R):
            r.set_dynamic(*dynamic)
            r.render(p, R)
        ms_rb = median_ms(rebuild, max(20, args.frames // 4)) - results["cases"][-2]["ms"]
        t0 = time.perf_counter()
        for _ in range(50):
            r.set_dynamic(*dynamic)
        ms_set = 1e3 * (time.perf_counter() - t0) / 50
        print(f"{size:>9}  {'set_dynamic (call)':<22} {ms_set:10.3f}")
        print(f"{size:>9}  {'set_dynamic+commit':<22} {ms_rb:10.3f}")
        results["cases"].append({"size": size, "case": "set_dynamic", "ms": ms_set})
        results["cases"].append({"size": size, "case": "set_dynamic+commit", "ms": ms_rb})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
