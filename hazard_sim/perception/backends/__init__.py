"""Perception backends by name: ``groundtruth``, ``onnx``, ``yolo``, ``yolo_world``.

The heavy ones import what they need (onnxruntime, ultralytics) when created, not here.
"""
from __future__ import annotations

from typing import Sequence

from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.errors import UnknownDetectorError

BACKEND_NAMES = ("groundtruth", "onnx", "yolo", "yolo_world")
ALIASES = {
    "groundtruth": "groundtruth", "ground_truth": "groundtruth", "gt": "groundtruth",
    "onnx": "onnx",
    "yolo": "yolo",
    "yolo_world": "yolo_world", "yoloworld": "yolo_world", "yolo-world": "yolo_world",
}


def canonical_name(name: str) -> str:
    key = ALIASES.get(str(name).strip().lower())
    if key is None:
        raise UnknownDetectorError(f"unknown detector {name!r}: expected one of {', '.join(BACKEND_NAMES)}")
    return key


def make_backend(name: str, weights: str | None = None, classes: Sequence[str] | None = None,
                 confidence: float = 0.25, namer: str | None = None, **kwargs) -> Backend:
    """A backend by name. ``kwargs`` go to it (``labels`` / ``min_pixels`` for ground truth;
    ``imgsz``, ``threads``, ``iou`` for onnx; ``device`` / ``imgsz`` for the ultralytics ones;
    ``text_embeddings`` for yolo_world). ``namer``: a namer model (``namer.onnx``,
    :mod:`hazard_sim.perception.namer`) that names the detector's coarse ``object`` instances.
    Raises a :class:`DetectorError` subclass whose message says what to fix."""
    key = canonical_name(name)
    if namer:
        if key == "groundtruth":
            from hazard_sim.perception.errors import DetectorError
            raise DetectorError("a namer names a detector's coarse classes; the groundtruth backend already "
                                "gives the simulator's names (drop the namer, or use onnx / yolo)")
        from hazard_sim.perception.namer import NamedBackend, Namer
        inner = make_backend(key, weights=weights, classes=classes, confidence=confidence, **kwargs)
        return NamedBackend(inner, Namer(namer))
    if key == "groundtruth":
        from hazard_sim.perception.backends.groundtruth import GroundTruthBackend
        return GroundTruthBackend(classes=classes, confidence=0.0, **kwargs)
    if key == "onnx":
        from hazard_sim.perception.backends.onnx import OnnxBackend
        return OnnxBackend(weights, classes=classes, confidence=confidence, **kwargs)
    from hazard_sim.perception.backends.ultralytics import YoloBackend, YoloWorldBackend
    cls = YoloBackend if key == "yolo" else YoloWorldBackend
    return cls(weights, classes=classes, confidence=confidence, **kwargs)
