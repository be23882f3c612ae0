"""What an agent remembers, built only from its observations.

HAZARD's non-perceptional track gives agents the ground-truth instance
segmentation as an observation; this memory turns each frame's segmentation,
world points (from depth and the camera pose) and hazard image into per-object
records: last seen position, when, and the hazard reading there.  Agents never
read the simulator's hidden state.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.tasks.hazard.map_plugin import CONTAINER_PREFIXES

LOST_FRAMES = 200


@dataclass
class ObjectRecord:
    id: int
    category: str
    position: np.ndarray
    last_seen: int
    is_target: bool
    value: int = 0
    reading: float = float("nan")           # temperature (C) or water level (m) last seen
    readings: list = field(default_factory=list)   # (frame, reading) history
    status: str = "scene"                   # scene | held | rescued | lost
    lost_until: int = 0                     # a lost object is retried after this frame

    def reading_rate(self) -> float:
        """Change of the hazard reading per 100 frames over the last two sightings."""
        if len(self.readings) < 2:
            return 0.0
        (f0, r0), (f1, r1) = self.readings[-2], self.readings[-1]
        return 0.0 if f1 == f0 else 100.0 * (r1 - r0) / (f1 - f0)


class Memory:
    def __init__(self, task: dict):
        self.task = task
        self.targets = {t["category"]: t for t in task["targets"]}
        self.objects: dict[int, ObjectRecord] = {}
        self.containers: dict[int, np.ndarray] = {}
        self.held: int = -1
        self.frame = 0
        self.agent_pose = np.zeros(3)

    def integrate(self, obs: dict, labels: dict[int, str]) -> None:
        self.frame = int(obs["frame"])
        self.agent_pose = np.asarray(obs["agent_pose"], float)
        self.held = int(obs["held"])
        seg = obs["seg"]
        ids = np.unique(seg)
        ids = ids[ids > 0]
        if len(ids) == 0:
            return
        K, pose, depth = obs["camera_K"], obs["camera_pose"], obs["depth"]
        hazard = obs["field"]
        for i in ids.tolist():
            label = labels.get(i, "")
            is_cart = label.startswith(CONTAINER_PREFIXES)     # a cart, or a detector's "container"
            if label not in self.targets and not is_cart and i < 1000:
                continue
            mask = seg == i
            v, u = np.nonzero(mask)
            if len(v) < 3:
                continue
            z = depth[v, u]
            cam = np.stack([(u - K[0, 2]) / K[0, 0] * z, (v - K[1, 2]) / K[1, 1] * z, z], axis=-1)
            p = np.median(cam @ pose[:3, :3].T + pose[:3, 3], axis=0)
            if is_cart:
                self.containers[i] = p
                continue
            rec = self.objects.get(i)
            reading = float(np.mean(hazard[mask]))
            if rec is None:
                t = self.targets.get(label)
                rec = ObjectRecord(i, label, p, self.frame, t is not None, t["value"] if t else 0)
                self.objects[i] = rec
            rec.position, rec.last_seen, rec.reading = p, self.frame, reading
            if not rec.readings or rec.readings[-1][0] != self.frame:
                rec.readings.append((self.frame, reading))
            if rec.status == "lost" and self.frame >= rec.lost_until:
                rec.status = "scene"       # worth another try after a while

    def note_result(self, info: dict) -> None:
        for i in info.get("rescued_ids", []):
            if i in self.objects:
                self.objects[i].status = "rescued"
        if self.held >= 0 and self.held in self.objects:
            self.objects[self.held].status = "held"

    def mark_lost(self, object_id: int) -> None:
        """The agent gave up on an object (out of reach, no path)."""
        if object_id in self.objects:
            rec = self.objects[object_id]
            rec.status, rec.lost_until = "lost", self.frame + LOST_FRAMES

    def open_targets(self) -> list[ObjectRecord]:
        return [r for r in self.objects.values() if r.is_target and r.status == "scene"]

    def distance(self, rec: ObjectRecord) -> float:
        return float(np.linalg.norm(rec.position[:2] - self.agent_pose[:2]))

    def nearest_container(self) -> int | None:
        if not self.containers:
            return None
        return min(self.containers, key=lambda k: np.linalg.norm(self.containers[k][:2] - self.agent_pose[:2]))
