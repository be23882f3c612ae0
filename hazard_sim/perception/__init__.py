"""Perception: one ROS-free interface from camera frames to instances, used by the embedded
runner (:mod:`.embedded`) and by the ROS perception node alike.

In: RGB (+ depth and the camera model ``K`` / pose; the simulator's segmentation for the
``groundtruth`` backend). Out: :class:`Instance` (box, mask, class name, score, and a 3-D
position / extent from depth). Backends (:func:`make_backend`): ``groundtruth`` (the
oracle), ``onnx`` (an ultralytics ONNX export on onnxruntime: no torch), ``yolo`` and
``yolo_world`` (ultralytics). docs/perception.md, "Perception interface and backends".

The dataset / training / export / evaluation commands live beside this interface
(``dataset_render``, ``training``, ``export``, ``evaluation``).
"""
from __future__ import annotations

from hazard_sim.perception import errors
from hazard_sim.perception.backends import BACKEND_NAMES, Backend, canonical_name, make_backend
from hazard_sim.perception.errors import *  # noqa: F403  (re-exported: every error class, errors.__all__)
from hazard_sim.perception.instances import (
    Instance,
    as_rgb_uint8,
    clean_classes,
    keep_seen,
    locate,
    mask_from_depth,
    rasterize,
)

__all__ = [
    "BACKEND_NAMES", "Backend", "canonical_name", "make_backend", *errors.__all__, "Instance", "as_rgb_uint8",
    "clean_classes", "keep_seen", "locate", "mask_from_depth", "rasterize",
]
