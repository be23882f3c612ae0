"""ROS-free path smoothing: the law of Nav2's simple smoother (gradient steps that pull each
inner point towards its original place, weight ``w_data``, and towards the midpoint of its
neighbours, weight ``w_smooth``; the ends stay), on a path first resampled to the map's
resolution so that corners round off.  A point whose step would enter a blocked cell (the
costmap's obstacles grown by the robot radius) keeps its place: no pose moves into an
obstacle.  Stops when a sweep changes the path by less than ``tolerance`` (m, summed), after
``max_iterations`` or at ``deadline`` (``time.perf_counter()`` value): then ``completed`` is
False, as Nav2 reports ``was_completed``.
"""
from __future__ import annotations

import time

import numpy as np

from hazard_sim.navigation.grid import GridSpec


def resample(points: np.ndarray, spacing: float) -> np.ndarray:
    """``points`` (N, 2) with points inserted so that no segment is longer than ``spacing``
    (the given points are kept)."""
    pts = np.asarray(points, float)
    out = [pts[0]]
    for a, b in zip(pts[:-1], pts[1:]):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / spacing - 1e-9)))
        for k in range(1, n + 1):
            out.append(a + (b - a) * (k / n))
    return np.array(out)


def blocked_at(blocked: np.ndarray, spec: GridSpec, pts: np.ndarray) -> np.ndarray:
    """Whether each point lies in a blocked cell (points outside the grid count as blocked)."""
    x0, y0, x1, y1 = spec.bounds
    inside = (pts[:, 0] >= x0) & (pts[:, 0] < x1) & (pts[:, 1] >= y0) & (pts[:, 1] < y1)
    out = np.ones(len(pts), bool)
    if inside.any():
        i, j = spec.to_cells(pts[inside])
        out[inside] = blocked[i, j]
    return out


def smooth(points, blocked: np.ndarray, spec: GridSpec, w_data: float = 0.2, w_smooth: float = 0.3,
           tolerance: float = 1e-10, max_iterations: int = 1000, deadline: float | None = None,
           spacing: float | None = None) -> tuple[np.ndarray, bool]:
    """(smoothed points, completed); see the module docstring.  Points that start in a
    blocked cell (a path through the inflation near its start) may stay, never move in."""
    orig = resample(points, spacing or spec.resolution) if len(points) > 1 else np.asarray(points, float)
    path = orig.copy()
    if len(path) < 3:
        return path, True
    for _ in range(int(max_iterations)):
        if deadline is not None and time.perf_counter() > deadline:
            return path, False
        step = w_data * (orig[1:-1] - path[1:-1]) + w_smooth * (path[:-2] + path[2:] - 2.0 * path[1:-1])
        proposal = path[1:-1] + step
        ok = ~blocked_at(blocked, spec, proposal)
        moved = np.where(ok[:, None], proposal, path[1:-1])
        change = float(np.abs(moved - path[1:-1]).sum())
        path[1:-1] = moved
        if change < tolerance:
            return path, True
    return path, True


__all__ = ["smooth", "resample", "blocked_at"]
