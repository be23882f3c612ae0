"""ROS-free assembly of the observation / info dicts that ``hazard_sim`` agents consume,
and the parsing of the task and status JSON the simulator publishes.

The decision node decodes ROS messages into numpy arrays (``hazard_ros.conversions``) and
hands them to this module; everything here is numpy only, so it is tested without ROS.

An observation has exactly the keys and dtypes of the embedded env's observations: ``rgb``
(H,W,3) uint8, ``depth`` (H,W) float32 m, ``seg`` (H,W) int32 instance ids, ``field``
(H,W) float32 (the task's process field image, e.g. temperature C or water level m; zeros
when it has none; :func:`hazard_sim.core.sensors.field_entries` adds its older alias), ``camera_K`` (3,3),
``camera_pose`` (4,4) world-from-optical, ``agent_pose`` [x, y, yaw], ``held`` int64 (-1:
empty hands), ``frame`` int64.  An info dict carries ``labels``, ``observations``,
``action_result``, ``rescued_ids``, ``bounds``, ``frame`` and, at reset, ``task``.
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from hazard_ros.tf_math import TfBuffer, TfLookupError
from hazard_sim.core.outcome import ActionResult, Status
from hazard_sim.core.sensors import field_entries
from hazard_sim.embodiment.humanoid import HumanoidSpec

#: the topic of each process field image sim_node publishes (its ``task`` JSON names the channel)
HAZARD_TOPIC = {"temperature": "thermal/image_raw", "water_level": "water_level/image_raw"}
IMAGE_KINDS = ("rgb", "depth", "seg", "field")

BODY_RADIUS = HumanoidSpec().radius


# ============================================================================ observations

def agent_pose_from_matrix(T: np.ndarray) -> np.ndarray:
    """[x, y, yaw] of a 4x4 world-from-base pose."""
    T = np.asarray(T, float)
    return np.array([T[0, 3], T[1, 3], math.atan2(T[1, 0], T[0, 0])])


def frame_of(stamp_ns: int, frame_dt: float = 0.1) -> int:
    """Simulator frame of a stamp (frame n has sim time n * frame_dt)."""
    return int(round(stamp_ns * 1e-9 / frame_dt))


def build_observation(rgb, depth, seg, field, camera_K, camera_pose, agent_pose, held, frame) -> dict:
    """One observation dict (see the module docstring).  ``field`` None gives zeros;
    ``held`` None gives -1.  Raises ValueError on inconsistent inputs."""
    depth = np.asarray(depth, np.float32)
    if depth.ndim != 2:
        raise ValueError(f"depth must be (H, W), got shape {depth.shape}")
    h, w = depth.shape
    rgb = np.asarray(rgb)
    if rgb.shape != (h, w, 3):
        raise ValueError(f"rgb must be ({h}, {w}, 3) like depth, got shape {rgb.shape}")
    seg = np.asarray(seg)
    if seg.shape != (h, w):
        raise ValueError(f"seg must be ({h}, {w}) like depth, got shape {seg.shape}")
    if field is None:
        field = np.zeros((h, w), np.float32)
    field = np.asarray(field, np.float32)
    if field.shape != (h, w):
        raise ValueError(f"field image must be ({h}, {w}) like depth, got shape {field.shape}")
    K = np.asarray(camera_K, float)
    if K.shape != (3, 3) or K[2, 2] == 0:
        raise ValueError(f"camera_K must be a calibrated 3x3 matrix, got {K.tolist()}")
    pose = np.asarray(camera_pose, float)
    if pose.shape != (4, 4):
        raise ValueError(f"camera_pose must be 4x4, got shape {pose.shape}")
    ap = np.asarray(agent_pose, float).reshape(-1)
    if ap.shape != (3,):
        raise ValueError(f"agent_pose must be [x, y, yaw], got {ap.tolist()}")
    return {"rgb": rgb.astype(np.uint8, copy=False), "depth": depth, "seg": seg.astype(np.int32, copy=False),
            **field_entries(field), "camera_K": K, "camera_pose": pose, "agent_pose": ap,
            "held": np.int64(-1 if held is None else int(held)), "frame": np.int64(int(frame))}


def action_result(action: str, status, frames: int, reason: str = "") -> dict:
    """An ``ActionResult.to_dict()``-shaped dict; ``status`` is a Status (True: succeeded)."""
    if status is True:
        status = Status.SUCCEEDED
    return ActionResult(str(action), Status(status), int(frames), str(reason)).to_dict()


def build_info(labels: dict, observations: list, result: dict, rescued_ids=(), bounds=None,
               task: dict | None = None, frame: int | None = None) -> dict:
    """One info dict like the embedded env's (plus ``task`` when given, as at reset)."""
    info = {"action_result": dict(result), "labels": {int(k): str(v) for k, v in labels.items()},
            "bounds": None if bounds is None else [float(b) for b in bounds],
            "observations": list(observations),
            "frame": int(frame if frame is not None else (observations[-1]["frame"] if observations else 0)),
            "rescued_ids": [int(i) for i in rescued_ids]}
    if task is not None:
        info["task"] = task
    return info


def parse_task(task: dict) -> dict:
    """Check the ``task`` JSON of sim_node (``HazardEnv.task_description()`` + bounds ...)."""
    if not isinstance(task, dict):
        raise ValueError(f"task must be a JSON object, got {type(task).__name__}")
    missing = [k for k in ("hazard", "targets", "bounds") if k not in task]
    if missing:
        raise ValueError(f"task JSON lacks {missing}; keys: {sorted(task)}")
    if task.get("channel") not in (None, *HAZARD_TOPIC):
        raise ValueError(f"unknown field channel {task['channel']!r}; expected one of {sorted(HAZARD_TOPIC)} or null")
    if len(task["bounds"]) != 4:
        raise ValueError(f"task bounds must be [xmin, ymin, xmax, ymax], got {task['bounds']}")
    task = dict(task)
    if isinstance(task.get("containers"), dict):       # JSON made the instance ids strings
        task["containers"] = {int(k) if str(k).lstrip("-").isdigit() else k: v
                              for k, v in task["containers"].items()}
    return task


def parse_status(status: dict) -> dict:
    """Normalise ``episode/status`` JSON: held None -> -1, defaults for missing keys."""
    if not isinstance(status, dict):
        raise ValueError(f"episode/status must be a JSON object, got {type(status).__name__}")
    held = status.get("held")
    return {"frame": int(status.get("frame", 0)), "held": -1 if held is None else int(held),
            "rescued_ids": [int(i) for i in status.get("rescued_ids", [])],
            "done": bool(status.get("done", False)), "last_result": status.get("last_result") or {}}


class ObservationAssembler:
    """Collects the images of each stamp and turns complete frames into observations.

    ``add(kind, stamp_ns, array, frame_id)`` with kind rgb / depth / seg / field; a frame is
    complete when rgb, depth, seg (and the field image if the task has one) of one stamp
    are there, the camera intrinsics are known and the TF buffer can place the camera and
    the base at that stamp.  ``pop_complete(...)`` returns the complete observations, oldest
    first (see there for what happens to incomplete ones)."""

    def __init__(self, field_channel: str | None, frame_dt: float = 0.1, max_pending: int = 20,
                 strict: bool = False):
        self.needs = ("rgb", "depth", "seg") + (("field",) if field_channel else ())
        self.strict = strict
        self.frame_dt = frame_dt
        self.max_pending = max_pending
        self.pending: OrderedDict[int, dict] = OrderedDict()
        self.camera_K: np.ndarray | None = None
        self.camera_frame: str | None = None

    def set_camera_info(self, K) -> None:
        self.camera_K = np.asarray(K, float).reshape(3, 3)

    def add(self, kind: str, stamp_ns: int, array: np.ndarray, frame_id: str = "") -> None:
        if kind not in IMAGE_KINDS:
            raise ValueError(f"unknown image kind {kind!r}; expected one of {IMAGE_KINDS}")
        entry = self.pending.setdefault(int(stamp_ns), {})
        entry[kind] = array
        if frame_id and kind != "field":
            self.camera_frame = frame_id.lstrip("/")
        self.pending = OrderedDict(sorted(self.pending.items()))
        while len(self.pending) > self.max_pending:
            self.pending.popitem(last=False)

    def complete_stamps(self) -> list[int]:
        return [s for s, e in self.pending.items() if all(k in e for k in self.needs)]

    def pop_complete(self, tf: TfBuffer, held: int, global_frame: str = "map",
                     base_frame: str = "base_link") -> list[dict]:
        """Observations of the complete stamps whose poses TF knows, oldest first; they
        leave the queue with every older stamp.  ``strict`` (lock-step, where every piece
        of every frame arrives): frames come out in order, an incomplete frame holds the
        newer ones back (until ``max_pending`` frames wait).  Otherwise an incomplete
        frame is skipped once a newer one is complete (free-run may lose messages)."""
        out = []
        if self.camera_K is None or self.camera_frame is None:
            return out
        for stamp in list(self.pending):
            e = self.pending.get(stamp)
            if e is None:
                continue
            if not all(k in e for k in self.needs):
                if self.strict:
                    break
                continue
            try:
                cam = _lookup(tf, global_frame, self.camera_frame, stamp)
                base = _lookup(tf, global_frame, base_frame, stamp)
            except TfLookupError:
                break             # the pose of this stamp (and of newer ones) is not there yet
            out.append(build_observation(e["rgb"], e["depth"], e["seg"], e.get("field"), self.camera_K, cam,
                                         agent_pose_from_matrix(base), held, frame_of(stamp, self.frame_dt)))
            for s in [s for s in self.pending if s <= stamp]:
                del self.pending[s]
        return out


def _lookup(tf: TfBuffer, parent: str, child: str, stamp_ns: int) -> np.ndarray:
    """TF at a stamp; the latest transform when the stamp is newer than the history
    (the pose of the frame arrives a moment after its images)."""
    try:
        return tf.lookup(parent, child, stamp_ns)
    except TfLookupError as exc:
        if "after the newest" in str(exc):
            raise
        if "before the oldest" in str(exc):
            return tf.lookup(parent, child)
        raise


def box_footprint(centre, size) -> tuple[np.ndarray, float]:
    """(centre xy, footprint radius) of a 3-D box (``x, y`` attributes): the radius is the half
    diagonal of its base, what the embedded walk_to's arrival counts. ValueError when not finite."""
    vals = (float(centre.x), float(centre.y), float(size.x), float(size.y))
    if not all(math.isfinite(v) for v in vals):
        raise ValueError(f"box not finite: {vals}")
    return np.array(vals[:2]), float(np.hypot(vals[2] / 2.0, vals[3] / 2.0))


def merge_observations(periodic: list[dict], kept: list[dict], last: dict) -> list[dict]:
    """The observations for the agent after an action: the periodic ones, the kept ones
    and the last, in frame order, one per frame, none newer than ``last``."""
    by_frame = {int(o["frame"]): o for o in [*periodic, *kept, last]}
    end = int(last["frame"])
    return [by_frame[f] for f in sorted(by_frame) if f <= end]


__all__ = ["ObservationAssembler", "build_observation", "build_info", "action_result", "parse_task",
           "parse_status", "merge_observations", "agent_pose_from_matrix", "frame_of",
           "HAZARD_TOPIC", "box_footprint"]
