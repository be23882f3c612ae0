"""The interface every perception backend implements (ROS-free)."""
from __future__ import annotations

import abc
from typing import Sequence

import numpy as np

from hazard_sim.perception.instances import MAX_CLASSES, Instance, clean_classes


class Backend(abc.ABC):
    """``detect(rgb, extra) -> list[Instance]`` over one camera frame.

    ``rgb``: (H, W, 3|4) uint8 or float in 0..1 (None for backends that do not need it);
    ``extra``: what else a backend may use: ``seg`` + ``labels`` (ground truth), ``depth``
    (z-depth, m) and ``K`` (3x3) for box-only backends to derive masks from depth.
    ``classes`` None means every class the backend knows; :meth:`set_classes` returns the
    names the backend cannot detect.
    """

    name = "base"
    needs_rgb = True
    needs_segmentation = False
    MAX_CLASSES = MAX_CLASSES          # the most distinct class names set_classes takes

    def __init__(self, classes: Sequence[str] | None = None, confidence: float = 0.25):
        self.confidence = float(confidence)
        self._classes: list[str] | None = None
        if classes is not None:
            self.set_classes(classes)

    @property
    def classes(self) -> list[str] | None:
        return None if self._classes is None else list(self._classes)

    def set_classes(self, classes: Sequence[str] | None) -> list[str]:
        """Restrict (or, open vocabulary, define) the classes; returns the names the
        backend cannot detect (empty when all are fine)."""
        self._classes = clean_classes(classes)
        return []

    @abc.abstractmethod
    def detect(self, rgb: np.ndarray | None, extra: dict | None = None) -> list[Instance]:
        """Implemented by each subclass."""

    def describe(self) -> dict:
        """What identifies this backend's output (results files and resume keys use it)."""
        return {"backend": self.name}
