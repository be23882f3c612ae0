"""Benchmarks of the Nav2 servers (issue 16): planning time of the longest path in a HAZARD and
a DOZE test scene, the controller's loop rate, and spin / backup accuracy.

* planning: the scene's ground-truth obstacles (``EmbodiedEnv.truth_solid``) as an occupancy
  map, the planner server's planner (:class:`planner_node.navigation.GridPlanner`, the
  body's radius, plain law and the core's law); the longest path: a double sweep of
  geodesic distances (from the body's start the farthest reachable cell A, from A the
  farthest B); A -> B planned ``--repeat`` times, median and max wall time.
* controller and behaviors: navigation_node in-process over DDS with test_planner_nodes'
  fake robot (0.5 m/s, 150 deg/s), lock-step (the gait: each cycle one ``sim/step``) and
  free-run (10 Hz): follow_path along a planned path, the cycles per second (wall) and the
  time a cycle spends in the node; spin (+90, -120 degrees) and backup (0.3 m) ``--repeat``
  times each, the error of the final heading / distance against the request.

Run: ``python benchmarks/bench_nav2_servers.py [--repeat 10] [--out runs/bench_nav2.json]``.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "test")]


def longest_path_time(benchmark: str, episode: int, repeat: int) -> dict:
    from hazard_sim.navigation.grid import distance_field
    from hazard_sim.runner import make_env
    from planner_node.navigation import GridPlanner, OccupancyMap

    env = make_env(benchmark, "test", episode).unwrapped
    env.reset()
    grid, solid = env.grid, env.truth_solid
    omap = OccupancyMap(np.where(solid, 100, 0).astype(np.int16), grid.resolution, (grid.bounds[0], grid.bounds[1]))
    out = {"benchmark": benchmark, "episode": episode, "cells": list(solid.shape), "resolution": grid.resolution}
    for law in (False, True):
        planner = GridPlanner(env.agent.radius, core_law=law)
        planner.set_map(omap)
        start = omap.cell(env.agent.xy)
        blocked = planner._blocked_for_start(start)
        d = distance_field(blocked, start, grid.resolution)
        a = np.unravel_index(np.argmax(np.where(np.isfinite(d), d, -1)), d.shape)
        d2 = distance_field(planner._blocked_for_start(a), a, grid.resolution)
        b = np.unravel_index(np.argmax(np.where(np.isfinite(d2), d2, -1)), d2.shape)
        axy, bxy = grid.to_world(a), grid.to_world(b)
        times, length = [], 0.0
        for _ in range(repeat):
            plan = planner.plan(axy, bxy)
            times.append(plan.planning_time)
            length = plan.length
        out["core_law" if law else "plain"] = {"from": [round(float(v), 2) for v in axy],
                                               "to": [round(float(v), 2) for v in bxy],
                                               "path_m": round(length, 2),
                                               "median_ms": round(1e3 * statistics.median(times), 2),
                                               "max_ms": round(1e3 * max(times), 2), "n": repeat}
    return out


def ros_measurements(repeat: int) -> dict:
    from test_nav2_servers import nav_stack

    from hazard_sim.geometry import wrap_angle
    from planner_node.ros_commander import TaskResult, pose_stamped

    out = {}
    with nav_stack(free_start=(1.0, 1.0, 0.0)) as stack:
        for mode in ("lock", "free"):
            nav, robot, node = stack["cmd"][mode], stack["robot"][mode], stack["nav"][mode]

            def here():
                with robot.lock:
                    return robot.pose.copy()

            def put(x, y, yaw):
                with robot.lock:
                    robot.frame += 1
                robot.teleport(x, y, yaw)
                nav._pause(0.3)

            def run():
                while not nav.isTaskComplete():
                    pass
                return nav.getResult() == TaskResult.SUCCEEDED

            put(1.0, 1.0, 0.0)
            path = nav.getPath(pose_stamped(1.0, 1.0), pose_stamped(6.0, 1.0), use_start=True)
            node.cycle_times.clear()
            node.compute_times.clear()
            t0 = time.perf_counter()
            nav.followPath(path)
            ok = run()
            wall = time.perf_counter() - t0
            cyc, comp = list(node.cycle_times), list(node.compute_times)
            res = {"follow_path_ok": ok, "cycles": len(cyc), "wall_s": round(wall, 2),
                   "loop_rate_hz": round(1.0 / statistics.median(cyc), 1),
                   "compute_ms_median": round(1e3 * statistics.median(comp), 2),
                   "compute_only_rate_hz": round(1.0 / statistics.median(comp), 1)}
            spin_err, back_err, fails = [], [], 0
            for _ in range(repeat):
                for angle in (math.pi / 2, -math.radians(120)):
                    put(2.0, 1.5, 0.0)
                    y0 = here()[2]
                    nav.spin(angle)
                    fails += not run()
                    spin_err.append(abs(math.degrees(wrap_angle(here()[2] - (y0 + angle)))))
                put(3.0, 1.5, 0.0)
                x0 = here()[0]
                nav.backup(0.3, 0.25)
                fails += not run()
                back_err.append(abs((x0 - here()[0]) - 0.3))
            res.update(spin_err_deg_mean=round(statistics.mean(spin_err), 4), spin_err_deg_max=round(max(spin_err), 4),
                       spin_n=len(spin_err), backup_err_m_mean=round(statistics.mean(back_err), 4),
                       backup_err_m_max=round(max(back_err), 4), backup_n=len(back_err), failed=fails)
            out["lockstep" if mode == "lock" else "free_run_10hz"] = res
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    report = {"planning": [longest_path_time("hazard/fire", 0, args.repeat),
                           longest_path_time("doze/level1", 0, args.repeat)],
              "ros": ros_measurements(args.repeat)}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
