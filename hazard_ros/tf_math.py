"""A small ROS-free TF buffer (tf2_ros is not on PyPI).

Feed it the contents of ``/tf`` and ``/tf_static`` messages (anything shaped like
tf2_msgs/TFMessage: ``.transforms``, each with ``header.stamp``,
``header.frame_id``, ``child_frame_id`` and ``transform``) and look up
``parent_T_child`` 4x4 matrices along any chain of the tree::

    buf = TfBuffer()
    buf.add_message(tf_static_msg, static=True)      # in the /tf_static callback
    buf.add_message(tf_msg)                          # in the /tf callback
    T = buf.lookup("map", "camera_optical_frame")    # latest; or stamp_ns=...
    p_map = T @ [x, y, z, 1]

As in tf2, every frame has at most one parent; static transforms hold at all
times, dynamic ones keep a short history and are interpolated in time (linear
translation, spherical rotation). numpy and scipy only (the rotation maths is
:mod:`hazard_sim.rotations`).
"""
from __future__ import annotations

import bisect
from collections import deque

import numpy as np

from hazard_sim.rotations import matrix_to_quaternion, quaternion_to_matrix, slerp


class TfLookupError(LookupError):
    """A transform that cannot be looked up (unknown frame, disconnected tree, time)."""


# ============================================================================ rotations
# quaternion maths lives in hazard_sim.rotations (scipy); re-exported for existing callers
__all__ = ["TfBuffer", "TfLookupError", "invert", "transform_to_matrix", "matrix_to_quaternion",
           "quaternion_to_matrix", "slerp"]


def invert(T: np.ndarray) -> np.ndarray:
    """Inverse of a rigid 4x4 transform."""
    out = np.eye(4)
    R = T[:3, :3]
    out[:3, :3] = R.T
    out[:3, 3] = -R.T @ T[:3, 3]
    return out


def transform_to_matrix(t) -> np.ndarray:
    """4x4 of a geometry_msgs/Transform-like object (``translation``, ``rotation``)."""
    r, p = t.rotation, t.translation
    T = np.eye(4)
    T[:3, :3] = quaternion_to_matrix([r.x, r.y, r.z, r.w])
    T[:3, 3] = (p.x, p.y, p.z)
    return T


# ============================================================================ buffer
class TfBuffer:
    """Latest static transforms plus a time-ordered history of dynamic ones."""

    def __init__(self, history: int = 200):
        self.history = int(history)
        self._parent: dict[str, str] = {}
        self._static: dict[str, np.ndarray] = {}
        self._dynamic: dict[str, deque] = {}       # child -> deque of (stamp_ns, T)

    # ------------------------------------------------------------------ input
    def set_transform(self, T: np.ndarray, parent: str, child: str, stamp_ns: int = 0,
                      static: bool = False) -> None:
        """Store ``parent_T_child`` (4x4). A frame's parent cannot change."""
        parent, child = parent.lstrip("/"), child.lstrip("/")
        if not parent or not child or parent == child:
            raise ValueError(f"bad transform frames: parent {parent!r}, child {child!r}")
        old = self._parent.get(child)
        if old is not None and old != parent:
            raise ValueError(f"frame {child!r} already has parent {old!r}; got a transform from {parent!r}")
        self._parent[child] = parent
        T = np.asarray(T, float).reshape(4, 4)
        if static:
            self._static[child] = T
            self._dynamic.pop(child, None)
            return
        hist = self._dynamic.setdefault(child, deque(maxlen=self.history))
        stamp_ns = int(stamp_ns)
        if hist and stamp_ns < hist[-1][0]:       # out of order: keep the deque sorted
            items = sorted([*hist, (stamp_ns, T)], key=lambda e: e[0])[-self.history:]
            hist.clear()
            hist.extend(items)
        elif hist and stamp_ns == hist[-1][0]:
            hist[-1] = (stamp_ns, T)
        else:
            hist.append((stamp_ns, T))

    def add_message(self, msg, static: bool = False) -> int:
        """Store every TransformStamped of a TFMessage(-like) ``msg``; returns how many."""
        transforms = getattr(msg, "transforms", msg)
        for t in transforms:
            stamp = t.header.stamp
            self.set_transform(transform_to_matrix(t.transform), t.header.frame_id, t.child_frame_id,
                               int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec), static)
        return len(transforms)

    # ------------------------------------------------------------------ queries
    def frames(self) -> set[str]:
        return set(self._parent) | set(self._parent.values())

    def _edge(self, child: str, stamp_ns: int | None) -> np.ndarray:
        """parent_T_child of one edge at a time (latest when ``stamp_ns`` is None)."""
        if child in self._static:
            return self._static[child]
        hist = self._dynamic[child]
        if stamp_ns is None or stamp_ns == hist[-1][0]:
            return hist[-1][1]
        stamps = [s for s, _ in hist]
        k = bisect.bisect_left(stamps, stamp_ns)
        if k < len(stamps) and stamps[k] == stamp_ns:
            return hist[k][1]
        if k == 0 or k == len(stamps):
            side = "before the oldest" if k == 0 else "after the newest"
            raise TfLookupError(f"{self._parent[child]} -> {child}: time {stamp_ns * 1e-9:.3f} s is {side} "
                                f"stored transform ({stamps[0] * 1e-9:.3f} .. {stamps[-1] * 1e-9:.3f} s)")
        (s0, T0), (s1, T1) = hist[k - 1], hist[k]
        a = (stamp_ns - s0) / (s1 - s0)
        T = np.eye(4)
        T[:3, 3] = (1 - a) * T0[:3, 3] + a * T1[:3, 3]
        T[:3, :3] = quaternion_to_matrix(slerp(matrix_to_quaternion(T0), matrix_to_quaternion(T1), a))
        return T

    def _chain(self, frame: str) -> list[str]:
        chain = [frame]
        while chain[-1] in self._parent:
            chain.append(self._parent[chain[-1]])
            if len(chain) > 1000:
                raise TfLookupError(f"TF loop through {frame!r}")
        return chain

    def lookup(self, parent: str, child: str, stamp_ns: int | None = None) -> np.ndarray:
        """4x4 ``parent_T_child`` (maps points in ``child`` into ``parent``)."""
        parent, child = parent.lstrip("/"), child.lstrip("/")
        known = self.frames()
        for f in (parent, child):
            if f not in known:
                raise TfLookupError(f"unknown frame {f!r}; known frames: {sorted(known)}")
        if parent == child:
            return np.eye(4)
        up_child, up_parent = self._chain(child), self._chain(parent)
        common = next((f for f in up_child if f in set(up_parent)), None)
        if common is None:
            raise TfLookupError(f"frames {parent!r} and {child!r} are not connected "
                                f"(roots {up_parent[-1]!r} and {up_child[-1]!r})")
        root_T_child = np.eye(4)
        for f in up_child[:up_child.index(common)]:
            root_T_child = self._edge(f, stamp_ns) @ root_T_child
        root_T_parent = np.eye(4)
        for f in up_parent[:up_parent.index(common)]:
            root_T_parent = self._edge(f, stamp_ns) @ root_T_parent
        return invert(root_T_parent) @ root_T_child

    def can_transform(self, parent: str, child: str, stamp_ns: int | None = None) -> bool:
        try:
            self.lookup(parent, child, stamp_ns)
            return True
        except TfLookupError:
            return False
