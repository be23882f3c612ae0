"""Planning time of the navigation node's grid planner on a 120 x 80 cell map (a 12 m x 8 m
room at 0.1 m, a wall with a door; test/test_navigation_core.py's door map): the number the
tests used to assert (under 0.25 s a plan), measured here instead.

  python benchmarks/bench_planning.py [--repeats N]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from planner_node.navigation import GridPlanner, OccupancyMap

RES = 0.1


def door_map() -> np.ndarray:
    """Walls on the border; a wall at x = 6.0..6.1 m with a 1 m door at y = 3.5..4.5 m."""
    g = np.full((80, 120), 100, np.int16)
    g[1:-1, 1:-1] = 0
    g[np.r_[1:35, 45:79], 60] = 100
    return g


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args(argv)
    p = GridPlanner(robot_radius=0.25)
    p.set_map(OccupancyMap(door_map(), RES, (0.0, 0.0)))
    p.plan((1.0, 1.0), (11.0, 1.0))                   # warm up
    t0 = time.perf_counter()
    for _ in range(a.repeats):
        plan = p.plan((1.0, 1.0), (11.0, 7.0))
    per_plan = (time.perf_counter() - t0) / a.repeats
    print(f"planning on 120x80: {per_plan * 1e3:.2f} ms per plan ({a.repeats} plans, path {plan.length:.2f} m)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
