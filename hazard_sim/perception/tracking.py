"""Stable instance ids for a detector's instances across frames (ROS-free).

A learned detector names classes, not objects; an agent names objects by id (``walk_to``,
``pick_up``) and remembers them from frame to frame. :class:`Tracker` gives each detection
the id of the object it most likely is, from its class and its 3-D position (the map frame,
after :func:`hazard_sim.perception.instances.locate`):

* a detection is matched to an existing track of the **same label** whose last position
  is within the gate: ``max(gate_m, 0.5 * the larger horizontal extent of the track or the
  detection)`` (an object is where it was, give or take its own size and the depth noise);
* pairs are taken nearest first, each track and each detection at most once per frame
  (two boxes on one object in one frame are two objects: the detector's call);
* an unmatched detection opens a new track with the next id (1, 2, ...); a detection with
  no position (no valid depth, no pose) gets no id;
* a matched track takes the detection's position and extent (objects move: carried, blown).

Tracks are never dropped: an object out of view is still where it was last seen, which is
what an agent's memory assumes too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: metres: the smallest association gate
GATE_M = 0.75


@dataclass
class Track:
    id: int
    label: str
    position: np.ndarray
    extent: np.ndarray
    first_frame: int
    last_frame: int
    hits: int = 1


class Tracker:
    """See the module docstring."""

    def __init__(self, gate_m: float = GATE_M, first_id: int = 1):
        if gate_m <= 0:
            raise ValueError(f"gate_m must be > 0, got {gate_m}")
        self.gate_m = float(gate_m)
        self.next_id = int(first_id)
        self.tracks: dict[int, Track] = {}

    def _gate(self, track: Track, extent) -> float:
        sizes = [float(np.max(np.asarray(track.extent, float)[:2]))]
        if extent is not None:
            sizes.append(float(np.max(np.asarray(extent, float)[:2])))
        return max(self.gate_m, 0.5 * max(sizes))

    def assign(self, instances, frame: int) -> list[int | None]:
        """The track id of each instance (``label``, ``position``, ``extent``), None for one
        without a position. Updates the tracks."""
        ids: list[int | None] = [None] * len(instances)
        pairs = []
        for k, inst in enumerate(instances):
            if inst.position is None:
                continue
            p = np.asarray(inst.position, float)
            for t in self.tracks.values():
                if t.label != inst.label:
                    continue
                d = float(np.linalg.norm(t.position - p))
                if d <= self._gate(t, inst.extent):
                    pairs.append((d, k, t.id))
        taken: set[int] = set()
        for d, k, tid in sorted(pairs):
            if ids[k] is not None or tid in taken:
                continue
            ids[k] = tid
            taken.add(tid)
        for k, inst in enumerate(instances):
            if inst.position is None:
                continue
            p = np.asarray(inst.position, float)
            ext = np.zeros(3) if inst.extent is None else np.asarray(inst.extent, float)
            if ids[k] is None:
                tid = self.next_id
                self.next_id += 1
                self.tracks[tid] = Track(tid, str(inst.label), p.copy(), ext.copy(), int(frame), int(frame))
                ids[k] = tid
            else:
                t = self.tracks[ids[k]]
                t.position, t.extent, t.last_frame, t.hits = p.copy(), ext.copy(), int(frame), t.hits + 1
        return ids

    def labels(self) -> dict[int, str]:
        """id -> label of every track so far."""
        return {tid: t.label for tid, t in self.tracks.items()}


__all__ = ["GATE_M", "Track", "Tracker"]
