"""The perception node's detectors: the core's perception backends under their node names.

The interface and every backend live in :mod:`hazard_sim.perception` (ROS-free, shared with
the embedded runner): ``detect(rgb, extra) -> list[Detection]`` where :class:`Detection` is
:class:`hazard_sim.perception.Instance`.

* :class:`GroundTruthDetector` -- boxes and masks from an instance segmentation image and
  an ``instance id -> label`` map (HAZARD's "non-perceptional" track).
* :class:`OnnxDetector` -- an ultralytics ONNX export on onnxruntime (no torch).
* :class:`YoloDetector` -- an ultralytics YOLO detection model from any weights file.
* :class:`YoloWorldDetector` -- ultralytics YOLO-World, open vocabulary through
  :meth:`~YoloWorldDetector.set_classes` (text embeddings offline: ``text_embeddings``).

Create one with :func:`make_detector`. A missing package, a missing or mismatched weights
file or missing text embeddings each raise one :class:`DetectorError` subclass whose
message says what to do.
"""
from __future__ import annotations

from typing import Sequence

from hazard_sim.perception import errors
from hazard_sim.perception.backends import ALIASES as _ALIASES  # noqa: F401 (older name)
from hazard_sim.perception.backends import BACKEND_NAMES, make_backend
from hazard_sim.perception.backends.base import Backend as Detector
from hazard_sim.perception.backends.groundtruth import GroundTruthBackend as GroundTruthDetector
from hazard_sim.perception.backends.onnx import OnnxBackend as OnnxDetector
from hazard_sim.perception.backends.ultralytics import (
    TEXT_EMBEDDINGS_HINT,
    ULTRALYTICS_INSTALL_HINT,
    ultralytics_status,
)
from hazard_sim.perception.backends.ultralytics import YoloBackend as YoloDetector
from hazard_sim.perception.backends.ultralytics import YoloWorldBackend as YoloWorldDetector
from hazard_sim.perception.errors import *  # noqa: F403  (re-exported: every error class, errors.__all__)
from hazard_sim.perception.instances import Instance as Detection
from hazard_sim.perception.instances import clean_classes as _clean_classes  # noqa: F401 (older name)

DETECTOR_NAMES = BACKEND_NAMES
CLIP_INSTALL_HINT = TEXT_EMBEDDINGS_HINT

__all__ = [
    "DETECTOR_NAMES", "Detection", "Detector", *errors.__all__, "GroundTruthDetector", "OnnxDetector", "YoloDetector",
    "YoloWorldDetector", "make_detector", "ultralytics_status", "ULTRALYTICS_INSTALL_HINT", "CLIP_INSTALL_HINT",
]


def make_detector(name: str, weights: str | None = None, classes: Sequence[str] | None = None,
                  confidence: float = 0.25, **kwargs) -> Detector:
    """A detector by name: ``groundtruth``, ``onnx``, ``yolo`` or ``yolo_world``
    (:func:`hazard_sim.perception.make_backend`)."""
    return make_backend(name, weights=weights, classes=classes, confidence=confidence, **kwargs)
