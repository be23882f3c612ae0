"""Speed of the HAZARD simulator on this machine (a script, not a test).

Measures, in one run:
  * rendering fps of RGB + depth + segmentation (+ the hazard image) on real episode
    scenes at 256x256 and 640x480,
  * simulation frames per second of each task without rendering and with a camera
    frame rendered every frame,
  * wall time of whole episodes (greedy agent; fire's 1500 frames among them), in
    process and as whole processes (``hazard run --json``, start-up included); for the
    processes also their CPU time (user + system), which the load of a shared machine
    changes far less than the wall time,
  * with ``--ref REV``, the same whole-process episodes of an older git revision in the
    same run (exported with ``git archive`` to a temporary directory), interleaved with
    ours so that both see the same machine load.
Prints medians and writes JSON with --json FILE.

    .venv/bin/python benchmarks/bench_hazard.py [--repeats 3] [--ref REV] [--only episodes] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hazard_sim.render.camera import CameraSpec
from hazard_sim.runner import run_episode
from hazard_sim.tasks.hazard.env import HazardEnv


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


EPISODES = (("fire", 0), ("fire", 1), ("flood", 0), ("wind", 0))


def export_revision(rev: str) -> str:
    """A temporary directory holding ``hazard_sim`` of git revision ``rev``."""
    root = Path(__file__).resolve().parent.parent
    out = tempfile.mkdtemp(prefix="bench_ref_")
    try:
        tar = subprocess.run(["git", "-C", str(root), "archive", rev, "hazard_sim", "data"], check=True,
                             capture_output=True).stdout
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"--ref {rev}: git archive failed: {e.stderr.decode().strip()}") from None
    subprocess.run(["tar", "-x", "-C", out], input=tar, check=True)
    return out


def process_episode(task: str, ep: int, pythonpath: str | None) -> tuple[float, dict, float]:
    """Wall time of ``hazard run --json`` as a whole process (start-up included), its
    metrics and its CPU time (user + system, s)."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "hazard_sim.cli", "run", "--task", task, "--split", "test",
                        "--episode", str(ep), "--agent", "greedy", "--json"], env=env, capture_output=True,
                       text=True, cwd=pythonpath or None)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if r.returncode:
        raise SystemExit(f"hazard run failed ({task} {ep}): {r.stderr.strip()[-500:]}")
    return wall, json.loads(r.stdout), cpu


def bench_processes(repeats: int, ref: str | None, out: dict) -> None:
    ref_dir = export_revision(ref) if ref else None
    label = f"ours vs {ref}" if ref else "ours"
    print(f"\nwhole processes, greedy agent, test episodes (median of {repeats}; {label})")
    for task, ep in EPISODES:
        ours, theirs, cpu_ours, cpu_ref, m_ours, m_ref = [], [], [], [], None, None
        for _ in range(repeats):              # interleaved: both see the same load
            w, m_ours, c = process_episode(task, ep, None)
            ours.append(w)
            cpu_ours.append(c)
            if ref_dir:
                w, m_ref, c = process_episode(task, ep, ref_dir)
                theirs.append(w)
                cpu_ref.append(c)
        row = {"task": task, "episode": ep, "frames": m_ours["frames"], "wall_s_median": statistics.median(ours),
               "cpu_s_median": statistics.median(cpu_ours), "value_rate": m_ours["value_rate"]}
        line = (f"  {task:5s} ep {ep}: ours {row['wall_s_median']:6.2f} s, cpu {row['cpu_s_median']:5.2f} s "
                f"({row['frames']} frames)")
        if ref_dir:
            row.update(ref=ref, ref_frames=m_ref["frames"], ref_wall_s_median=statistics.median(theirs),
                       ref_cpu_s_median=statistics.median(cpu_ref), ref_value_rate=m_ref["value_rate"])
            line += (f"   {ref}: {row['ref_wall_s_median']:6.2f} s, cpu {row['ref_cpu_s_median']:5.2f} s "
                     f"({row['ref_frames']} frames)   speed-up x{row['ref_wall_s_median'] / row['wall_s_median']:.1f} "
                     f"(cpu x{row['ref_cpu_s_median'] / row['cpu_s_median']:.1f})")
        out["processes"].append(row)
        print(line, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--ref", metavar="REV", help="also time whole-process episodes of this git revision")
    ap.add_argument("--only", choices=["render", "sim", "episodes", "processes"], action="append",
                    help="run only these parts (repeatable; default all)")
    a = ap.parse_args()
    parts = set(a.only or ["render", "sim", "episodes", "processes"])
    out = {"machine": machine(), "render": [], "sim": [], "episodes": [], "processes": []}
    print(f"machine: {out['machine']}")
    if "processes" in parts:
        bench_processes(a.repeats, a.ref, out)
    if "render" in parts:
        bench_render_all(out)
    if "sim" in parts:
        bench_sim_all(a.repeats, out)
    if "episodes" in parts:
        bench_episodes_all(a.repeats, out)
    out["machine"]["load_avg_1min_end"] = os.getloadavg()[0]
    print(f"\nload average (1 min): {out['machine']['load_avg_1min']:.1f} at the start, "
          f"{out['machine']['load_avg_1min_end']:.1f} at the end")
    if a.json:
        os.makedirs(os.path.dirname(a.json) or ".", exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


def bench_render_all(out: dict) -> None:
    print("\nrendering (median over 200 frames)")
    for task in ("fire", "flood"):
        for w, h in ((256, 256), (640, 480)):
            r = bench_render(task, w, h)
            out["render"].append(r)
            print(f"  {task:5s} {r['size']:>8}: RGB+depth+seg {r['fps_rgb_depth_seg']:7.1f} fps, "
                  f"+ hazard image {r['fps_with_hazard_image']:7.1f} fps")


def bench_sim_all(repeats: int, out: dict) -> None:
    print(f"\nsimulation frames per second (median of {repeats} runs of 300 frames)")
    for task in ("fire", "flood", "wind"):
        for render in (False, True):
            v = statistics.median(bench_sim(task, 300, render) for _ in range(repeats))
            out["sim"].append({"task": task, "render_every_frame": render, "fps": v})
            print(f"  {task:5s} {'with' if render else 'without':>7} rendering: {v:8.1f} frames/s")


def bench_episodes_all(repeats: int, out: dict) -> None:
    print(f"\nwhole episodes in process, greedy agent (median of {repeats})")
    for task, ep in EPISODES:
        walls, frames = [], []
        for _ in range(repeats):
            m = run_episode(task, "test", ep, "greedy")
            walls.append(m["wall_time_s"])
            frames.append(m["frames"])
        out["episodes"].append({"task": task, "episode": ep, "frames": frames[0],
                                "wall_s_median": statistics.median(walls)})
        print(f"  {task:5s} ep {ep}: {frames[0]:5d} frames in {statistics.median(walls):6.2f} s "
              f"({frames[0] / statistics.median(walls):.0f} frames/s)")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
