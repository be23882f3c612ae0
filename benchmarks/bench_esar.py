"""Speed and memory of ESAR on this machine (a script, not a test).

Measures, in one run:
  * camera rate: the UAV's four 256x256 views (RGB + z-depth + instance segmentation, read
    back to numpy) over the 5 km coastal map while it flies along a line
    at 1 m per frame (10 m/s at the simulator's 10 frames/s; the terrain's level of detail
    follows it and is rebuilt every 192 m), as sets of four views per second and
    images per second; also the whole ``env.observe()`` (four cameras plus the
    visibility-aware segmentation, LiDAR, IMU, GPS, altimeter);
  * memory of the largest map: the terrain arrays, the render meshes and the process's
    peak resident memory after building its env;
  * wall time of whole tasks (each baseline on a few tasks at 256x256).
Prints medians and writes JSON with --json FILE.

    .venv/bin/python benchmarks/bench_esar.py [--frames 400] [--tasks 3] [--json runs/bench_esar.json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.spec import get_spec
from hazard_sim.embodiment.multirotor import CAMERAS
from hazard_sim.render.camera import CameraSpec
from hazard_sim.runner import run_episode

sys.path.insert(0, str(Path(__file__).resolve().parent))   # run from a checkout
import bench_hazard  # noqa: E402  (one machine() for the benchmark scripts)


def machine() -> dict:
    return dict(bench_hazard.machine(), load_avg_1min=round(os.getloadavg()[0], 2))


def coastal_env(size: int) -> EmbodiedEnv:
    ep = get_spec("esar/coastal").dataset.load("test", 0)
    ep.update(weather="clear", time_of_day=12.0)
    env = EmbodiedEnv("esar/coastal", episode_spec=ep, camera=CameraSpec(size, size, 90.0))
    env.reset()
    return env


def camera_rate(env, frames: int) -> dict:
    b = env.agent
    t = env.world.scene.terrain
    start = np.array([800.0, 600.0])
    times = []
    for k in range(frames + 10):
        xy = start + [0.0, 1.0 * k]
        b.xy = xy
        b.z = t.surface_at(np.array([*xy, 0.0])) + 60.0
        t0 = time.perf_counter()
        for c in CAMERAS:
            T = b.frame_pose(f"camera_{c}_optical_frame")
            f = env.render_view(T[:3, 3], T[:3, :3])
            f.rgb, f.depth, f.seg
        if k >= 10:
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"frames": frames, "median_ms_4_views": round(1e3 * med, 2), "sets_per_s": round(1 / med, 1),
            "images_per_s": round(4 / med, 1), "mean_sets_per_s": round(len(times) / sum(times), 1),
            "p90_ms": round(1e3 * float(np.percentile(times, 90)), 2)}


def observe_rate(env, frames: int) -> dict:
    times = []
    for k in range(frames):
        env.agent.xy = env.agent.xy + [0.0, 5.0]
        t0 = time.perf_counter()
        env.observe(update_map=False)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"median_ms_observe": round(1e3 * med, 2), "observes_per_s": round(1 / med, 1)}


def memory(env) -> dict:
    t = env.world.scene.terrain
    meshes = list(env.world.scene.meshes) + [m for p in env.world.processes for m in p.render_meshes()]
    mesh_bytes = sum(m.vertices.nbytes + m.triangles.nbytes + (m.colors.nbytes if m.colors is not None else 0)
                     + m.normals.nbytes for m in meshes)
    view = env.world.process("terrain_view")
    return {"grid": list(t.shape), "terrain_arrays_MB": round(t.nbytes() / 2**20, 2),
            "ground_colours_MB": round(view.colors.nbytes / 2**20, 2),
            "render_meshes_MB": round(mesh_bytes / 2**20, 2),
            "render_triangles": int(sum(len(m.triangles) for m in meshes)),
            "peak_rss_MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def task_times(n: int, size: int) -> list[dict]:
    out = []
    for agent in ("random", "lawnmower", "frontier", "probmap"):
        for ep in range(n):
            m = run_episode("esar", "test", ep, agent, 0, camera=CameraSpec(size, size, 90.0))
            out.append({"agent": agent, "episode": ep, "map": m["map"], "wall_time_s": m["wall_time_s"],
                        "sim_time_s": m["time_s"], "actions": m["actions"], "frames": m["frames"]})
            print(f"  task {ep} {agent:9s} {m['map']:10s} {m['wall_time_s']:6.1f} s wall, {m['time_s']:6.0f} s "
                  f"simulated, {m['actions']} actions", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--tasks", type=int, default=3, help="tasks per baseline for the wall-time measure (0: skip)")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args(argv)
    res = {"machine": machine()}
    t0 = time.perf_counter()
    env = coastal_env(a.size)
    res["coastal_env_build_s"] = round(time.perf_counter() - t0, 2)
    res["backend"] = env.render_backend
    res["memory"] = memory(env)
    print(f"machine: {res['machine']}  backend: {res['backend']}")
    print(f"coastal map (5 km): build {res['coastal_env_build_s']} s, memory {res['memory']}")
    res["cameras"] = camera_rate(env, a.frames)
    print(f"four {a.size}x{a.size} RGB+depth+seg views: {res['cameras']}")
    res["observe"] = observe_rate(env, max(20, a.frames // 4))
    print(f"full observe (4 cameras, seg track, LiDAR, IMU, GPS, altimeter): {res['observe']}")
    res["memory"]["peak_rss_MB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if a.tasks:
        res["tasks"] = task_times(a.tasks, a.size)
        walls = [r["wall_time_s"] for r in res["tasks"]]
        res["task_wall_s_median"] = statistics.median(walls)
        print(f"whole task wall time: median {res['task_wall_s_median']:.1f} s, max {max(walls):.1f} s")
    res["machine"]["load_avg_1min_end"] = round(os.getloadavg()[0], 2)
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
