"""What to report from detections (ESAR's reporting path over ROS; ROS-free).

A search-and-rescue report names a victim position estimate or a clue class and position.
:class:`ReportFilter` turns a stream of 3-D detections (label, position, optional instance id)
into the reports to send: labels ``victim`` and ``clue:<class>`` only, each thing once. A
detection is the same thing as an earlier report when it carries the same instance id (the
ground-truth backend's ids), or, without ids, when it lies within ``merge_radius`` metres of
an earlier report of the same label (a detector's detections of one object from frame to
frame). The embedded searchers follow the same rule with their instance ids.
"""
from __future__ import annotations

import numpy as np

MERGE_RADIUS_M = 10.0


def reportable(label: str) -> bool:
    return label == "victim" or (label.startswith("clue:") and len(label) > 5)


class ReportFilter:
    def __init__(self, merge_radius: float = MERGE_RADIUS_M):
        if not merge_radius >= 0.0:
            raise ValueError(f"merge_radius must be >= 0 m, got {merge_radius}")
        self.merge_radius = float(merge_radius)
        self.ids: set[str] = set()
        self.reported: list[tuple[str, np.ndarray]] = []

    def new_reports(self, detections) -> list[tuple[str, np.ndarray]]:
        """``detections``: iterable of ``(label, position (3,), id or '')``; returns the
        ``(label, position)`` pairs to report now (and remembers them)."""
        out = []
        for label, pos, oid in detections:
            p = np.asarray(pos, float).reshape(3)
            if not reportable(label) or not np.isfinite(p).all():
                continue
            if oid:
                if oid in self.ids:
                    continue
            elif any(lab == label and np.linalg.norm(q - p) <= self.merge_radius for lab, q in self.reported):
                continue
            if oid:
                self.ids.add(oid)
            self.reported.append((label, p))
            out.append((label, p))
        return out
