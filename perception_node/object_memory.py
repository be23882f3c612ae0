"""What has been seen where (ROS-free): the object memory of the mapping node.

* :class:`ObjectObservation` -- one object seen in one frame (from a Detection3D);
* :class:`TrackedObject` -- a remembered object: id, label, last pose and size, when it was
  seen, its field readings, its state and its role in the task;
* :class:`ObjectMemory` -- the records keyed by id, fed per frame.

Stamps are float seconds, positions map-frame metres. The task's roles come from the
``task`` topic JSON: ``targets`` (``category``, ``value``) mark targets, ``containers``
(id -> label) name containers; what else a benchmark's memory reports (task keys copied into
the JSON, label prefixes of its containers) its mapping plug-in declares
(:mod:`perception_node.map_plugins`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["ObjectObservation", "TrackedObject", "ObjectMemory"]


@dataclass
class ObjectObservation:
    """One object seen in one frame (from a Detection3D)."""

    label: str
    position: np.ndarray
    size: np.ndarray = field(default_factory=lambda: np.zeros(3))
    score: float = 1.0
    instance_id: int | None = None
    reading: float = float("nan")


@dataclass
class TrackedObject:
    """A remembered object. ``category`` is its label; ``last_seen``, ``first_seen`` and the
    times in ``readings`` ((stamp, reading) pairs, the newest last) are stamps in seconds;
    ``status`` is ``scene``, ``held``, ``rescued`` or ``lost``."""

    id: int
    category: str
    position: np.ndarray
    last_seen: float
    is_target: bool = False
    value: int = 0
    reading: float = float("nan")
    readings: list = field(default_factory=list)
    status: str = "scene"
    size: np.ndarray = field(default_factory=lambda: np.zeros(3))
    score: float = 0.0
    first_seen: float = 0.0
    times_seen: int = 0
    is_container: bool = False

    def reading_rate_per_s(self) -> float:
        """Change of the reading per second over the last two finite readings."""
        pts = [(t, r) for t, r in self.readings if np.isfinite(r)]
        if len(pts) < 2:
            return 0.0
        (t0, r0), (t1, r1) = pts[-2], pts[-1]
        return 0.0 if t1 == t0 else (r1 - r0) / (t1 - t0)


def _finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else None


class ObjectMemory:
    """Object records keyed by id.

    Observations with an instance id (ground truth) update that record; others are
    associated with the nearest record of the same label within ``match_radius`` m that
    was not matched in the same update, or get a new id from ``first_track_id`` upward.
    ``task`` (the ``task`` topic JSON) marks targets (``is_target``, ``value``) and
    containers (its ``containers`` labels, and labels starting with one of
    ``container_prefixes``). ``apply_status`` takes the simulator's held / rescued ids.
    ``task_keys``: keys of the task JSON copied into :meth:`to_dict`.
    """

    def __init__(self, task: dict | None = None, match_radius: float = 0.75, history: int = 20,
                 first_track_id: int = 1_000_000, container_prefixes=(), task_keys=()):
        self.match_radius = float(match_radius)
        self.history = int(history)
        self._next_id = int(first_track_id)
        self.objects: dict[int, TrackedObject] = {}
        self.task: dict = {}
        self.targets: dict[str, dict] = {}
        self.container_prefixes = tuple(container_prefixes)
        self.task_keys = tuple(task_keys)
        self.container_labels: set[str] = set(self.container_prefixes)
        self.set_task(task)

    def set_plugin(self, container_prefixes=(), task_keys=()) -> None:
        """What the benchmark's mapping plug-in declares (see the class docstring)."""
        self.container_prefixes, self.task_keys = tuple(container_prefixes), tuple(task_keys)
        self.set_task(self.task)

    def set_task(self, task: dict | None) -> None:
        self.task = dict(task or {})
        self.targets = {t["category"]: t for t in self.task.get("targets", []) if "category" in t}
        self.container_labels = set(self.container_prefixes) | set(
            map(str, (self.task.get("containers") or {}).values()))
        for rec in self.objects.values():
            t = self.targets.get(rec.category)
            rec.is_target, rec.value = t is not None, int(t["value"]) if t else 0
            rec.is_container = self._is_container(rec.category)

    def _is_container(self, label: str) -> bool:
        return label in self.container_labels or label.startswith(self.container_prefixes)

    def _match(self, obs: ObjectObservation, taken: set[int]) -> int | None:
        best, best_d = None, self.match_radius
        for oid, rec in self.objects.items():
            if oid in taken or rec.category != obs.label or rec.status in ("held", "rescued"):
                continue
            d = float(np.linalg.norm(rec.position[:2] - np.asarray(obs.position, float)[:2]))
            if d <= best_d:
                best, best_d = oid, d
        return best

    def update(self, observations: list[ObjectObservation], stamp: float) -> list[int]:
        """Integrate one frame's observations; returns the ids updated."""
        taken: set[int] = set()
        ids: list[int] = []
        order = sorted(range(len(observations)),
                       key=lambda k: (observations[k].instance_id is None, -observations[k].score))
        for k in order:
            obs = observations[k]
            pos = np.asarray(obs.position, float).reshape(3)
            if not np.all(np.isfinite(pos)):
                continue
            oid = obs.instance_id if obs.instance_id is not None else self._match(obs, taken)
            if oid is None:
                oid = self._next_id
                self._next_id += 1
            oid = int(oid)
            taken.add(oid)
            rec = self.objects.get(oid)
            if rec is None:
                t = self.targets.get(obs.label)
                rec = TrackedObject(oid, obs.label, pos, stamp, t is not None, int(t["value"]) if t else 0,
                                    first_seen=stamp, is_container=self._is_container(obs.label))
                self.objects[oid] = rec
            elif rec.category != obs.label and obs.instance_id is None:
                continue
            rec.category = obs.label
            rec.position = pos
            rec.size = np.asarray(obs.size, float).reshape(3)
            rec.score = float(obs.score)
            rec.last_seen = float(stamp)
            rec.times_seen += 1
            if np.isfinite(obs.reading):
                rec.reading = float(obs.reading)
                if rec.readings and rec.readings[-1][0] == stamp:
                    rec.readings[-1] = (stamp, rec.reading)
                else:
                    rec.readings.append((float(stamp), rec.reading))
                    del rec.readings[:-self.history]
            if rec.status == "held":            # seen in the scene again
                rec.status = "scene"
            ids.append(oid)
        return ids

    def apply_status(self, held: int | None, rescued_ids=()) -> bool:
        """Simulator status (``episode/status``): held object id (-1/None for none) and
        rescued ids. Returns True when a state changed."""
        rescued = {int(i) for i in rescued_ids or ()}
        held = -1 if held is None else int(held)
        changed = False
        for oid, rec in self.objects.items():
            new = ("rescued" if oid in rescued else "held" if oid == held
                   else "scene" if rec.status in ("held", "rescued") else rec.status)
            if new != rec.status:
                rec.status, changed = new, True
        return changed

    def in_scene_boxes(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(centre, size) of objects believed to be in the scene (to keep them off the map)."""
        return [(r.position, r.size) for r in self.objects.values()
                if r.status == "scene" and not r.is_container and np.all(r.size > 0)]

    def to_dict(self, stamp: float | None = None, frame_id: str = "map", unit: str = "") -> dict:
        objs = []
        for oid in sorted(self.objects):
            r = self.objects[oid]
            objs.append({
                "id": oid, "label": r.category,
                "position": [round(float(a), 4) for a in r.position],
                "size": [round(float(a), 4) for a in r.size],
                "last_seen": r.last_seen, "first_seen": r.first_seen, "times_seen": r.times_seen,
                "score": round(r.score, 4), "reading": _finite_or_none(r.reading),
                "reading_rate": round(r.reading_rate_per_s(), 6),
                "state": r.status, "is_target": r.is_target, "value": r.value,
                "is_container": r.is_container,
            })
        return {"stamp": stamp, "frame_id": frame_id, **{k: self.task.get(k) for k in self.task_keys},
                "reading_unit": unit, "objects": objs}
