"""A forward model of the hazard, estimated from the agent's own observations only.

MCTS with this model (``mcts_hazard``) predicts, for every known target, the frame at
which the hazard will damage it (fire / flood) or carry it off (wind), and charges a
rollout for the value it would lose by arriving later than that.

Which model a hazard gets is the task's knowledge (``tasks/hazard/prompts.FORWARD_MODEL``):

* **Fire and flood: a spreading front.**  Every observed frame, the agent's hazard image
  (temperature in C, water level in m) is back-projected onto the floor with its depth
  image; 0.5 m cells whose reading exceeds the damage threshold (100 C; 2 cm of water)
  are marked hazardous.  The front's speed is the growth of the equivalent radius
  ``sqrt(area / pi)`` of the hazardous area the agent has seen, fitted over the last
  ``window`` frames (at least ``min_speed``; ``prior_speed`` before two sightings).  A
  target is predicted to be damaged when the front, from the nearest hazardous cell
  seen, reaches it: ``now + distance / speed``; at once when its own reading is over the
  threshold; never when no hazard has been seen.
* **Wind: drift.**  Each target's velocity from its last two sightings (m per frame); it
  is lost when that drift carries it out of the patch: ``now + distance to the edge
  along the drift / speed``.  Objects seen still are never lost.

Limits: the model sees only what the camera saw; walls and furniture do not slow the
front; fire's ignition points per category are unknown to the agent (one threshold).
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.intrinsics import backproject, scaled_K


class HazardForwardModel:
    """``kind``: "front" (a spreading hazard seen in the hazard image, damaging above
    ``threshold``), "drift" (objects carried off) or None (no prediction)."""

    def __init__(self, kind: str | None, bounds, threshold: float | None = None, cell: float = 0.5,
                 window: int = 300, prior_speed: float = 0.01, min_speed: float = 0.001):
        if kind not in ("front", "drift", None):
            raise ValueError(f"unknown forward model kind {kind!r}: expected front, drift or None")
        if kind == "front" and threshold is None:
            raise ValueError("a front model needs the damage threshold of the hazard reading")
        self.kind, self.threshold = kind, threshold
        self.bounds = tuple(float(b) for b in bounds)
        self.cell, self.window = cell, window
        self.prior_speed, self.min_speed = prior_speed, min_speed
        x0, y0, x1, y1 = self.bounds
        self.shape = (max(1, int(math.ceil((y1 - y0) / cell))), max(1, int(math.ceil((x1 - x0) / cell))))
        self.hot = np.zeros(self.shape, bool)
        self.area_history: list[tuple[int, float]] = []      # (frame, hazardous area seen, m^2)
        self.tracks: dict[int, list[tuple[int, np.ndarray]]] = {}

    # ------------------------------------------------------------ observing
    def observe(self, obs: dict, stride: int = 8) -> None:
        """Update from one observation (``hazard``, ``depth``, ``camera_K``, ``camera_pose``)."""
        frame = int(obs["frame"])
        thr = self.threshold
        img = obs.get("field")
        if self.kind != "front" or img is None:
            return
        pts = backproject(obs["depth"][::stride, ::stride], scaled_K(obs["camera_K"], stride), obs["camera_pose"])
        vals = np.asarray(img)[::stride, ::stride]
        ok = np.isfinite(pts).all(axis=-1) & (vals > thr)
        if ok.any():
            x0, y0 = self.bounds[:2]
            j = np.clip(((pts[ok][:, 0] - x0) / self.cell).astype(int), 0, self.shape[1] - 1)
            i = np.clip(((pts[ok][:, 1] - y0) / self.cell).astype(int), 0, self.shape[0] - 1)
            self.hot[i, j] = True
        area = float(self.hot.sum()) * self.cell ** 2
        if not self.area_history or self.area_history[-1][0] != frame:
            self.area_history.append((frame, area))

    def track(self, object_id: int, frame: int, xy) -> None:
        """A sighting of an object (for the wind's drift)."""
        t = self.tracks.setdefault(object_id, [])
        if not t or t[-1][0] != frame:
            t.append((frame, np.asarray(xy[:2], float).copy()))
            del t[:-2]

    # ------------------------------------------------------------ predicting
    def front_speed(self) -> float:
        """Growth of the equivalent radius of the hazardous area seen (m per frame)."""
        h = self.area_history
        if len(h) < 2 or h[-1][1] <= 0:
            return self.prior_speed
        f1, a1 = h[-1]
        old = [(f, a) for f, a in h if f1 - f >= self.window // 2 and f1 - f <= self.window] or [h[0]]
        f0, a0 = old[-1]
        if f1 <= f0:
            return self.prior_speed
        speed = (math.sqrt(a1 / math.pi) - math.sqrt(a0 / math.pi)) / (f1 - f0)
        return max(speed, self.min_speed)

    def damage_frame(self, object_id: int, xy, reading: float, now: int) -> float:
        """Predicted frame at which the hazard damages (or carries off) the object; inf: never."""
        if self.kind == "drift":
            return self._drift_loss(object_id, now)
        if self.kind != "front":
            return math.inf
        if reading == reading and reading > self.threshold:
            return float(now)
        if not self.hot.any():
            return math.inf
        ii, jj = np.nonzero(self.hot)
        cx = self.bounds[0] + (jj + 0.5) * self.cell
        cy = self.bounds[1] + (ii + 0.5) * self.cell
        d = float(np.min(np.hypot(cx - xy[0], cy - xy[1])))
        return now + max(d - self.cell / 2, 0.0) / self.front_speed()

    def _drift_loss(self, object_id: int, now: int) -> float:
        t = self.tracks.get(object_id, [])
        if len(t) < 2 or t[1][0] <= t[0][0]:
            return math.inf
        (f0, p0), (f1, p1) = t
        v = (p1 - p0) / (f1 - f0)
        speed = float(np.linalg.norm(v))
        if speed < 1e-3:                      # under 1 cm per frame: not drifting
            return math.inf
        x0, y0, x1, y1 = self.bounds
        times = []
        for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
            if v[k] > 0:
                times.append((hi - p1[k]) / v[k])
            elif v[k] < 0:
                times.append((lo - p1[k]) / v[k])
        return f1 + max(min(times), 0.0)
