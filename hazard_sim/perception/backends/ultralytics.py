"""The ``yolo`` and ``yolo_world`` backends: ultralytics models (need torch; see
``scripts/setup_yolo.sh`` for a separate CPU environment). ultralytics is imported only
when such a backend is created, with ``YOLO_OFFLINE`` set first (no DNS look-ups, no
analytics), auto-install off and quiet logs.

Pixel convention: ultralytics puts pixel *edges* at integers; boxes are shifted by -0.5 px
to this project's pixel centres. ``imgsz`` defaults to the camera's size rounded up to a
stride of 32 (not ultralytics' 640, which upsamples a 256 px camera 2.5 times).
"""
from __future__ import annotations

import abc
import os

import numpy as np

from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.backends.onnx import check_model_file, default_imgsz
from hazard_sim.perception.errors import (
    DetectorError,
    DetectorInputError,
    DetectorUnavailableError,
    TextEncoderUnavailableError,
    WeightsMismatchError,
)
from hazard_sim.perception.instances import Instance, as_rgb_uint8, clean_classes

ULTRALYTICS_INSTALL_HINT = (
    "install it in a separate environment with `scripts/setup_yolo.sh` (ultralytics with a CPU torch and "
    "torchvision; `pip install ultralytics` alone pulls a 6 GB CUDA torch) and run from there; the "
    "groundtruth and onnx backends need none of this")
TEXT_EMBEDDINGS_HINT = (
    "YOLO-World turns class names into text embeddings with CLIP, whose weights cannot be fetched here: "
    "give them offline with `text_embeddings=minilm` (MiniLM, zero-padded to 512) or "
    "`text_embeddings=FILE` (an .npz of names + embeddings, or ultralytics' text_embeddings_*.pt; "
    "docs/perception.md, 'YOLO-World text embeddings'), or use weights whose saved vocabulary already "
    "holds the classes you ask for")
OFFLINE_ENV = {"YOLO_OFFLINE": "true", "YOLO_AUTOINSTALL": "false", "YOLO_VERBOSE": "false"}


def import_ultralytics():
    """``(YOLO, YOLOWorld)`` with the offline environment set before the first import."""
    for k, v in OFFLINE_ENV.items():
        os.environ.setdefault(k, v)
    try:
        import ultralytics  # noqa: F401
        from ultralytics import YOLO, YOLOWorld
    except Exception as exc:   # ImportError, or OSError from a broken torch install
        raise DetectorUnavailableError(
            f"the YOLO detectors need the Python package ultralytics, which cannot be imported "
            f"({type(exc).__name__}: {exc}); {ULTRALYTICS_INSTALL_HINT}") from exc
    return YOLO, YOLOWorld


def ultralytics_status() -> tuple[bool, str]:
    """(True, version) when ultralytics imports, else (False, why)."""
    try:
        import_ultralytics()
    except DetectorUnavailableError as exc:
        return False, str(exc)
    import ultralytics
    return True, getattr(ultralytics, "__version__", "?")


def clip_usable() -> bool:
    """True when the module ``clip`` is OpenAI's CLIP (has ``load`` and ``tokenize``)."""
    import importlib.util
    if importlib.util.find_spec("clip") is None:
        return False
    try:
        import clip
    except Exception:
        return False
    return callable(getattr(clip, "load", None)) and callable(getattr(clip, "tokenize", None))


class UltralyticsBackend(Backend):
    """Common part of the ultralytics backends."""

    def __init__(self, weights, classes=None, confidence=0.25, device=None, imgsz=None):
        self.weights = check_model_file(weights, self.name, "an ultralytics .pt file")
        self.device = device or None
        self.imgsz = None if imgsz in (None, 0, "") else int(imgsz)
        self.model = self._load()
        self._warm_up()
        super().__init__(classes, confidence)

    def _warm_up(self) -> None:
        """One prediction on a small black image now: torch and ultralytics import parts of
        themselves on the first prediction, and importing them after an OpenGL (llvmpipe)
        context exists crashes the process."""
        try:
            self.model.predict(np.zeros((32, 32, 3), np.uint8), imgsz=32, verbose=False, device=self.device)
        except Exception as exc:
            raise WeightsMismatchError(f"{self.weights} loads but cannot predict ({type(exc).__name__}: "
                                       f"{str(exc)[:200]})") from exc

    @abc.abstractmethod
    def _load(self):
        """Implemented by each subclass."""

    def describe(self) -> dict:
        return {"backend": self.name, "weights": self.weights.name, "confidence": self.confidence,
                "imgsz": self.imgsz}

    def _names(self) -> dict[int, str]:
        names = self.model.names
        return dict(names) if isinstance(names, dict) else dict(enumerate(names))

    def detect(self, rgb, extra=None) -> list[Instance]:
        img = as_rgb_uint8(rgb, f"detector {self.name!r}")
        names = self._names()
        kwargs = {}
        if self._classes is not None:
            wanted = set(self._classes)
            idx = [i for i, n in names.items() if n in wanted]
            if not idx:
                return []
            kwargs["classes"] = idx
        imgsz = self.imgsz or list(default_imgsz(img.shape[:2]))
        bgr = np.ascontiguousarray(img[..., ::-1])   # ultralytics reads numpy images as BGR
        results = self.model.predict(bgr, conf=self.confidence, imgsz=imgsz, verbose=False,
                                     device=self.device, **kwargs)
        out: list[Instance] = []
        for r in results:
            boxes = r.boxes
            if boxes is None or len(boxes) == 0:
                continue
            xywh = boxes.xywh.cpu().numpy().astype(float)
            conf = boxes.conf.cpu().numpy().astype(float)
            cls = boxes.cls.cpu().numpy().astype(int)
            rnames = r.names if getattr(r, "names", None) else names
            for (cx, cy, w, h), s, c in zip(xywh, conf, cls):
                out.append(Instance(label=str(rnames[int(c)]), score=float(s),
                                    cx=float(cx) - 0.5, cy=float(cy) - 0.5, w=float(w), h=float(h)))
        return out


class YoloBackend(UltralyticsBackend):
    """ultralytics YOLO detection model; ``classes`` filters its fixed vocabulary."""

    name = "yolo"

    def _load(self):
        YOLO, _ = import_ultralytics()
        try:
            return YOLO(str(self.weights))
        except Exception as exc:
            raise WeightsMismatchError(f"ultralytics could not load {self.weights} as a YOLO model "
                                       f"({type(exc).__name__}: {exc})") from exc

    def set_classes(self, classes) -> list[str]:
        classes = clean_classes(classes)
        self._classes = classes
        if classes is None:
            return []
        known = set(self._names().values())
        return [c for c in classes if c not in known]


class YoloWorldBackend(UltralyticsBackend):
    """ultralytics YOLO-World; :meth:`set_classes` defines the open vocabulary.

    Names in the vocabulary saved in the weights (in any order, or a part of it) are a filter.
    New names need text embeddings: from ``text_embeddings`` (``minilm`` or a file, see
    :mod:`hazard_sim.perception.text_embeddings`), set on the model without CLIP; without
    it, ultralytics' own CLIP path (which needs the CLIP package and its weights offline).
    """

    name = "yolo_world"

    def __init__(self, weights, classes=None, confidence=0.25, device=None, imgsz=None,
                 text_embeddings: str | None = None):
        self.text_embeddings = text_embeddings or None
        super().__init__(weights, classes, confidence, device, imgsz)

    def describe(self) -> dict:
        return {**super().describe(), "text_embeddings": self.text_embeddings}

    def _load(self):
        _, YOLOWorld = import_ultralytics()
        try:
            model = YOLOWorld(str(self.weights))
        except Exception as exc:
            raise WeightsMismatchError(f"ultralytics could not load {self.weights} as a YOLO-World model "
                                       f"({type(exc).__name__}: {exc})") from exc
        return self.check_world(model, self.weights)

    @staticmethod
    def check_world(model, weights):
        """``model`` when it is a YOLO-World model (its network has text features), else a
        :class:`WeightsMismatchError` saying to use the ``yolo`` backend."""
        inner = getattr(model, "model", None)
        if inner is None or not hasattr(inner, "txt_feats"):
            kind = type(inner).__name__ if inner is not None else "no network"
            raise WeightsMismatchError(
                f"{weights} is not a YOLO-World model (it holds {kind}, without text features): "
                f"use the `yolo` backend for a plain detection model, or YOLO-World weights "
                f"(e.g. a model built from yolov8s-worldv2.yaml)")
        return model

    def set_classes(self, classes) -> list[str]:
        classes = clean_classes(classes)
        if classes is None:
            self._classes = None
            return []
        if not classes:
            raise DetectorInputError("YOLO-World needs at least one class name")
        if not set(classes) <= set(self._names().values()):    # names in the saved vocabulary (in any
            self._encode(classes)                               # order) are a filter; new ones need text
        self._classes = classes
        return []

    def _encode(self, classes: list[str]) -> None:
        if self.text_embeddings is not None:
            from hazard_sim.perception.text_embeddings import text_embeddings
            self.set_embeddings(classes, text_embeddings(classes, self.text_embeddings, self._text_dim()))
            return
        if not clip_usable():
            raise TextEncoderUnavailableError(
                "cannot set YOLO-World classes: no text embeddings were given and OpenAI's CLIP package is not "
                "installed (the PyPI package `clip` is an unrelated clipboard tool). " + TEXT_EMBEDDINGS_HINT)
        try:
            self.model.set_classes(list(classes))
        except Exception as exc:
            raise TextEncoderUnavailableError(
                f"cannot set YOLO-World classes: ultralytics' CLIP text encoder failed "
                f"({type(exc).__name__}: {exc}). " + TEXT_EMBEDDINGS_HINT) from exc

    def _text_dim(self) -> int:
        feats = getattr(self.model.model, "txt_feats", None)
        return int(feats.shape[-1]) if feats is not None and hasattr(feats, "shape") else 512

    def set_embeddings(self, classes: list[str], embeddings: np.ndarray) -> None:
        """Set the model's classes from (n, d) unit text embeddings (what ultralytics'
        ``WorldModel.set_classes`` stores after running CLIP)."""
        import torch

        emb = np.asarray(embeddings, np.float32)
        if emb.shape != (len(classes), self._text_dim()):
            raise TextEncoderUnavailableError(f"text embeddings of shape {emb.shape} for {len(classes)} classes; "
                                              f"the model takes {self._text_dim()} dimensions")
        try:
            inner = self.model.model
            ref = inner.txt_feats
            inner.txt_feats = torch.as_tensor(emb, dtype=ref.dtype, device=ref.device).reshape(1, len(classes), -1)
            inner.model[-1].nc = len(classes)
            inner.names = dict(enumerate(classes))
            self.model.predictor = None          # the next prediction sets up a predictor with these classes
        except Exception as exc:
            raise DetectorError(f"could not set YOLO-World text embeddings on this model "
                                f"({type(exc).__name__}: {exc})") from exc
