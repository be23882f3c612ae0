"""Errors of the perception layer: each message says what to fix (no tracebacks for users)."""
from __future__ import annotations

__all__ = ["DetectorError", "DetectorInputError", "DetectorUnavailableError", "TextEncoderUnavailableError",
           "UnknownDetectorError", "WeightsMismatchError", "WeightsNotFoundError"]


class DetectorError(RuntimeError):
    """Base class of every error a perception backend reports; the message says what to do."""


class UnknownDetectorError(DetectorError, ValueError):
    """A backend name that is not known."""


class WeightsNotFoundError(DetectorError, FileNotFoundError):
    """The weights / model file of a backend does not exist (or none was given)."""


class WeightsMismatchError(DetectorError, ValueError):
    """The weights file exists but is not what the backend needs (e.g. a plain detection
    ``.pt`` given to ``yolo_world``, an ONNX file without ultralytics' metadata)."""


class DetectorUnavailableError(DetectorError, ImportError):
    """A package a backend needs (ultralytics, onnxruntime) cannot be imported."""


class TextEncoderUnavailableError(DetectorError):
    """YOLO-World cannot encode new class names: no text embeddings for them."""


class DetectorInputError(DetectorError, ValueError):
    """A backend got inputs it cannot use (no segmentation for ground truth, a bad image)."""
