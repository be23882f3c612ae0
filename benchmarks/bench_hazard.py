"""Speed of the HAZARD simulator on this machine (a script, not a test).

Measures, in one run:
  * rendering fps of RGB + depth + segmentation (+ the hazard image) on real episode
    scenes at 256x256 and 640x480,
  * simulation frames per second of each task without rendering and with a camera
    frame rendered every frame,
  * wall time of whole episodes (greedy agent; fire's 1500 frames among them).
Prints medians and writes JSON with --json FILE.

    .venv/bin/python benchmarks/bench_hazard.py [--repeats 3] [--json runs/bench_speed.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

from hazard_sim.env import HazardEnv
from hazard_sim.render.camera import CameraSpec
from hazard_sim.runner import run_episode


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "load_avg_1min": os.getloadavg()[0]}


def bench_render(task: str, w: int, h: int, frames: int = 200) -> dict:
    env = HazardEnv(task, "test", 0, camera=CameraSpec(width=w, height=h))
    env.reset()
    env.advance(300)                      # some fire / water on screen
    env.sync_render_scene()
    pos, rot = env.agent.camera_pose()
    proc = env.world.processes[0]
    water = proc.render_surface()
    times, full = [], []
    for k in range(frames):
        env.agent.yaw += 0.03
        pos, rot = env.agent.camera_pose()
        t0 = time.perf_counter()
        f = env.renderer.render(pos, rot, water)
        _ = f.rgb, f.depth, f.seg
        t1 = time.perf_counter()
        proc.field_image(f, env.world)
        t2 = time.perf_counter()
        times.append(t1 - t0)
        full.append(t2 - t0)
    return {"task": task, "size": f"{w}x{h}", "fps_rgb_depth_seg": 1 / statistics.median(times),
            "fps_with_hazard_image": 1 / statistics.median(full)}


def bench_sim(task: str, frames: int, render: bool) -> float:
    env = HazardEnv(task, "test", 0)
    env.reset()
    t0 = time.perf_counter()
    for _ in range(frames):
        env.advance(1)
        if render:
            env.observe()
    return frames / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    out = {"machine": machine(), "render": [], "sim": [], "episodes": []}
    print(f"machine: {out['machine']}")
    print("\nrendering (median over 200 frames)")
    for task in ("fire", "flood"):
        for w, h in ((256, 256), (640, 480)):
            r = bench_render(task, w, h)
            out["render"].append(r)
            print(f"  {task:5s} {r['size']:>8}: RGB+depth+seg {r['fps_rgb_depth_seg']:7.1f} fps, "
                  f"+ hazard image {r['fps_with_hazard_image']:7.1f} fps")
    print(f"\nsimulation frames per second (median of {a.repeats} runs of 300 frames)")
    for task in ("fire", "flood", "wind"):
        for render in (False, True):
            v = statistics.median(bench_sim(task, 300, render) for _ in range(a.repeats))
            out["sim"].append({"task": task, "render_every_frame": render, "fps": v})
            print(f"  {task:5s} {'with' if render else 'without':>7} rendering: {v:8.1f} frames/s")
    print(f"\nwhole episodes, greedy agent (median of {a.repeats})")
    for task, ep in (("fire", 0), ("fire", 1), ("flood", 0), ("wind", 0)):
        walls, frames = [], []
        for _ in range(a.repeats):
            m = run_episode(task, "test", ep, "greedy")
            walls.append(m["wall_time_s"])
            frames.append(m["frames"])
        out["episodes"].append({"task": task, "episode": ep, "frames": frames[0],
                                "wall_s_median": statistics.median(walls)})
        print(f"  {task:5s} ep {ep}: {frames[0]:5d} frames in {statistics.median(walls):6.2f} s "
              f"({frames[0] / statistics.median(walls):.0f} frames/s)")
    if a.json:
        os.makedirs(os.path.dirname(a.json) or ".", exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
