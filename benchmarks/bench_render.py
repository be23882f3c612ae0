"""Benchmark the ray-casting renderer (a script, not a test).

    .venv/bin/python benchmarks/bench_render.py [--frames 200] [--json out.json]

Renders a ~150 box room (walls, furniture, objects, flames) from a camera that
walks around the room, and reports median frames per second for RGB + depth +
segmentation (+ reading the world points, + a water surface), next to the bare
Open3D ray cast of the same rays (the floor on this machine), plus the cost of
a ``set_dynamic`` rebuild (including the scene commit on the next render) and
of ``set_colors``. ``box meshes`` renders the same boxes given as
``box_mesh`` meshes (the mesh path), ``+effects`` adds fog, light level and a
sky colour (before / after the mesh renderer in one run; see also
``bench_render_backends.py --ref``). The cases take turns frame by frame, so noise from other
processes hits them alike; the 10th percentile shows the less disturbed speed.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from hazard_sim.geometry import Box
from hazard_sim.render import CameraSpec, RaycastRenderer, RenderEffects, WaterSurface, box_mesh, optical_rotation


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
    for _ in range(34):                                          # partition walls, skirting
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


def time_cases(cases: dict, n: int) -> dict:
    """Median and 10th percentile (ms) of each ``fn(position, rot)`` over ``n``
    poses. The cases take turns on every pose, so machine noise (other
    processes on a small shared CPU) hits them alike."""
    times = {name: [] for name in cases}
    for arg in poses(n):
        for name, fn in cases.items():
            t0 = time.perf_counter()
            fn(*arg)
            times[name].append(time.perf_counter() - t0)
    return {name: (1e3 * float(np.median(t)), 1e3 * float(np.percentile(t, 10)))
            for name, t in times.items()}


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
    ap.add_argument("--threads", type=int, default=0, help="Open3D threads (0 = all)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    static, dynamic = make_room(rng)
    water = WaterSurface(level=0.4, origin=[-6.0, 0.0], direction=[1.0, 0.0],
                         slope_rad=np.radians(3.0))
    n_boxes = len(static[0]) + len(dynamic[0])
    machine = cpu_info()
    print(f"machine: {machine}")
    print(f"scene: {n_boxes} boxes ({12 * n_boxes} triangles), {args.frames} frames per case")
    print("fps = 1000 / median ms; 'p10' is the 10th percentile time (less machine noise)\n")
    print(f"{'size':>9}  {'case':<28} {'median ms':>9} {'fps':>7} {'p10 ms':>7} {'p10 fps':>8}")
    results = {"machine": machine, "boxes": n_boxes, "frames": args.frames, "cases": []}

    def report(size, name, ms, p10):
        print(f"{size:>9}  {name:<28} {ms:9.3f} {1e3 / ms:7.1f} {p10:7.3f} {1e3 / p10:8.1f}")
        results["cases"].append({"size": size, "case": name, "median_ms": ms, "fps": 1e3 / ms,
                                 "p10_ms": p10, "p10_fps": 1e3 / p10})

    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.lower().split("x"))
        r = RaycastRenderer(CameraSpec(width=w, height=h, hfov_deg=90.0), nthreads=args.threads)
        r.set_static(*static)
        r.set_dynamic(*dynamic)
        r.render(*next(poses(1)))  # build + warm up
        m = RaycastRenderer(CameraSpec(width=w, height=h, hfov_deg=90.0), nthreads=args.threads)
        m.set_static_meshes([box_mesh(b, c, i) for b, i, c in zip(*static)])
        m.set_dynamic_meshes([box_mesh(b, c, i) for b, i, c in zip(*dynamic)])
        m.render(*next(poses(1)))
        fx = RenderEffects(light=0.7, visibility=15.0, sky=(120, 160, 220))
        cases = {
            # The Open3D ray cast alone (same rays): the floor for this machine.
            "cast only (Open3D)": lambda p, R: r._scene.cast_rays(r._rays_t, nthreads=args.threads),
            "rgb+depth+seg": lambda p, R: r.render(p, R),
            "rgb+depth+seg+points": lambda p, R: r.render(p, R).points,
            "rgb+depth+seg+water": lambda p, R: r.render(p, R, water),
            "rgb+depth+seg, box meshes": lambda p, R: m.render(p, R),
            "rgb+depth+seg+effects": lambda p, R: r.render(p, R, effects=fx),
        }
        for name, (ms, p10) in time_cases(cases, args.frames).items():
            report(size, name, ms, p10)

    # Rebuild cost does not depend on the image size: use a 1x1 camera.
    r = RaycastRenderer(CameraSpec(width=1, height=1))
    r.set_static(*static)

    def rebuild(p, R):
        r.set_dynamic(*dynamic)
        r.render(p, R)            # commits the new Embree scene
    res = time_cases({
        "set_dynamic + commit": rebuild,
        "set_colors (40 ids)": lambda p, R: r.set_colors(dynamic[1][:40], dynamic[2][:40]),
    }, args.frames)
    for name, (ms, p10) in res.items():
        report("any", name, ms, p10)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
