"""HAZARD's RL observation: a 5-channel top-down map built from the agent's own observations.

The public HAZARD code gives its PPO agent a top-down map with five channels; here they are
(``CHANNELS``), each a float in [0, 1] on a ``size`` x ``size`` grid over the scene's bounds
(square cells; the longer side of the scene fills the grid):

0. ``height``: the highest point the depth camera has seen in the cell (0..2 m, over 2 m);
1. ``explored``: 1 where the camera has seen any point;
2. ``object``: known objects from the agent's memory: a target that is still to be rescued
   1.0 (valuable, value 5) or 0.6 (value 1), a container (shopping cart) 0.3, another object 0.15;
3. ``goal``: the agent (a 3x3 patch: 0.5, 0.75 while it holds an object), its heading (two
   cells ahead, 0.25) and the goal: the nearest known target, or the nearest cart while it
   holds an object (1.0);
4. ``hazard``: the last hazard reading the camera saw in the cell: temperature
   (20..600 C -> 0..1) for fire, water level (0..1.5 m -> 0..1) for flood, zero for wind.

Only what the agent observed goes in: depth points (back-projected with the camera pose it
is given), the hazard image, and :class:`~hazard_sim.tasks.hazard.agents.memory.Memory`'s records.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.intrinsics import backproject, scaled_K
from hazard_sim.tasks.hazard.agents.memory import Memory

CHANNELS = ("height", "explored", "object", "goal", "hazard")
MAP_SIZE = 32
HEIGHT_MAX = 2.0
#: hazard readings mapped to [0, 1]: (low, high) per hazard
HAZARD_RANGE = {"hazard/fire": (20.0, 600.0), "hazard/flood": (0.0, 1.5)}
STRIDE = 4                 # pixels between back-projected depth samples


def goal_of(memory: Memory):
    """The shaping / goal-map target: ``(key, xy)`` of the nearest open target, or of the nearest
    cart while holding an object (``None`` when holding with a bag, or when nothing is known)."""
    if memory.held >= 0:
        if memory.task.get("container", "bag") != "cart":
            return None
        cart = memory.nearest_container()
        return None if cart is None else (("cart", cart), np.asarray(memory.containers[cart][:2], float))
    open_ = memory.open_targets()
    if not open_:
        return None
    rec = min(open_, key=memory.distance)
    return ("target", rec.id), np.asarray(rec.position[:2], float)


class MapObserver:
    """Keeps the height / explored / hazard layers and draws the 5-channel map."""

    def __init__(self, bounds, hazard: str, size: int = MAP_SIZE):
        if size < 8:
            raise ValueError(f"map size must be at least 8 cells, got {size}")
        x0, y0, x1, y1 = (float(b) for b in bounds)
        if not (x1 > x0 and y1 > y0):
            raise ValueError(f"empty scene bounds {bounds!r}")
        self.size = int(size)
        self.origin = np.array([x0, y0])
        self.cell = max(x1 - x0, y1 - y0) / self.size
        self.hazard_range = HAZARD_RANGE.get(f"hazard/{hazard.split('/')[-1]}")
        self.height = np.zeros((self.size, self.size), np.float32)
        self.explored = np.zeros((self.size, self.size), bool)
        self.hazard = np.zeros((self.size, self.size), np.float32)

    def cells(self, xy) -> tuple[np.ndarray, np.ndarray]:
        """Grid indices (i along x, j along y) of world points (N, 2), clipped to the map."""
        ij = np.floor((np.asarray(xy, float).reshape(-1, 2) - self.origin) / self.cell).astype(int)
        ij = np.clip(ij, 0, self.size - 1)
        return ij[:, 0], ij[:, 1]

    def integrate(self, obs: dict) -> None:
        """Add one observation: depth points (with their hazard reading) into the layers."""
        depth = obs["depth"][::STRIDE, ::STRIDE]
        pts = backproject(depth, scaled_K(obs["camera_K"], STRIDE), obs["camera_pose"]).reshape(-1, 3)
        ok = np.isfinite(pts).all(axis=1)
        if not ok.any():
            return
        pts = pts[ok]
        i, j = self.cells(pts[:, :2])
        np.maximum.at(self.height, (i, j), np.clip(pts[:, 2], 0.0, HEIGHT_MAX).astype(np.float32) / HEIGHT_MAX)
        self.explored[i, j] = True
        hz = obs.get("field")
        if self.hazard_range is not None and hz is not None:
            lo, hi = self.hazard_range
            v = np.asarray(hz, np.float32)[::STRIDE, ::STRIDE].reshape(-1)[ok]
            v = np.clip((np.nan_to_num(v, nan=lo) - lo) / (hi - lo), 0.0, 1.0)
            layer = np.zeros_like(self.hazard)
            np.maximum.at(layer, (i, j), v)
            seen = np.zeros_like(self.explored)
            seen[i, j] = True
            self.hazard[seen] = layer[seen]      # the latest reading replaces the older one

    def render(self, memory: Memory) -> np.ndarray:
        """The (5, size, size) float32 observation."""
        s = self.size
        obj = np.zeros((s, s), np.float32)
        others = [r for r in memory.objects.values() if not r.is_target and r.status == "scene"]
        targets = memory.open_targets()
        for r in others + targets:
            v = (1.0 if r.value >= 5 else 0.6) if r.is_target else 0.15
            i, j = self.cells(r.position[:2])
            obj[i[0], j[0]] = max(obj[i[0], j[0]], v)
        for p in memory.containers.values():
            i, j = self.cells(p[:2])
            obj[i[0], j[0]] = max(obj[i[0], j[0]], 0.3)
        goal = np.zeros((s, s), np.float32)
        x, y, yaw = (float(v) for v in memory.agent_pose)
        i, j = self.cells([x, y])
        i, j = int(i[0]), int(j[0])
        goal[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2] = 0.75 if memory.held >= 0 else 0.5
        for k in (2, 3):
            hi, hj = self.cells([x + k * self.cell * math.cos(yaw), y + k * self.cell * math.sin(yaw)])
            goal[hi[0], hj[0]] = 0.25
        g = goal_of(memory)
        if g is not None:
            gi, gj = self.cells(g[1])
            goal[gi[0], gj[0]] = 1.0
        return np.stack([self.height, self.explored.astype(np.float32), obj, goal, self.hazard])
