"""2-D object detectors behind one interface (ROS-free).

Every backend answers ``detect(rgb, extra) -> list[Detection]``:

* :class:`GroundTruthDetector` -- boxes and masks from an instance segmentation
  image and an ``instance id -> label`` map (HAZARD's "non-perceptional" track).
  Vectorised with ``scipy.ndimage.find_objects``; no per-pixel Python.
* :class:`YoloDetector` -- an ultralytics YOLO detection model from any weights file.
* :class:`YoloWorldDetector` -- ultralytics YOLO-World, open vocabulary through
  :meth:`~YoloWorldDetector.set_classes`.

Create one with :func:`make_detector`. ultralytics (and torch / torchvision, several GB)
is optional: it is imported only when a YOLO backend is created, and a missing package,
a missing weights file or a missing CLIP text encoder each raise one
:class:`DetectorError` subclass whose message says what to install or which path was
missing.

Pixel convention (same as :mod:`hazard_sim.render.camera`, OpenCV): pixel centres sit
at integer coordinates, so a box covering columns ``j0 .. j1-1`` has
``cx = (j0 + j1 - 1) / 2`` and ``w = j1 - j0``. ultralytics puts pixel *edges* at
integers; its boxes are shifted by -0.5 px on the way in.
"""
from __future__ import annotations

import abc
import importlib.util
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from scipy import ndimage

DETECTOR_NAMES = ("groundtruth", "yolo", "yolo_world")
_ALIASES = {
    "groundtruth": "groundtruth", "ground_truth": "groundtruth", "gt": "groundtruth",
    "yolo": "yolo",
    "yolo_world": "yolo_world", "yoloworld": "yolo_world", "yolo-world": "yolo_world",
}

ULTRALYTICS_INSTALL_HINT = (
    "install it with `pip install ultralytics` into the environment that runs the node; "
    "it pulls torch and torchvision (several GB; on x86_64 here the matching pair is "
    "torch==2.14.1 torchvision==0.29.1). The groundtruth detector needs none of this")
CLIP_INSTALL_HINT = (
    "YOLO-World turns class names into text embeddings with OpenAI CLIP ViT-B/32: "
    "`pip install git+https://github.com/ultralytics/CLIP.git` and make the CLIP weights "
    "available offline ({clip_path}), or use weights whose saved vocabulary already equals "
    "the classes you ask for (then no text encoder is needed)")


# ============================================================================ errors
class DetectorError(RuntimeError):
    """Base class of every error a detector reports; the message says what to do."""


class UnknownDetectorError(DetectorError, ValueError):
    """``make_detector`` got a name it does not know."""


class WeightsNotFoundError(DetectorError, FileNotFoundError):
    """The weights file given to a YOLO backend does not exist (or none was given)."""


class DetectorUnavailableError(DetectorError, ImportError):
    """ultralytics (or torch / torchvision under it) cannot be imported."""


class TextEncoderUnavailableError(DetectorError):
    """YOLO-World cannot encode new class names: the CLIP text encoder is missing."""


class DetectorInputError(DetectorError, ValueError):
    """``detect`` got inputs it cannot use (e.g. no segmentation for ground truth)."""


# ========================================================================= detection
@dataclass
class Detection:
    """One 2-D detection.

    ``label`` is the class name (vision_msgs ``class_id``); ``cx, cy, w, h`` the box in
    pixels (centre and size, pixel centres at integers); ``instance_id`` is the
    simulator's instance id for ground truth, else None; ``mask`` (optional) is a bool
    array of shape ``(y1 - y0, x1 - x0)`` over :meth:`pixel_box`.
    """

    label: str
    score: float
    cx: float
    cy: float
    w: float
    h: float
    instance_id: int | None = None
    mask: np.ndarray | None = None

    def pixel_box(self, shape: tuple[int, int] | None = None) -> tuple[int, int, int, int]:
        """Half-open integer pixel box ``(x0, y0, x1, y1)`` of the pixels whose centres lie
        in the box, clipped to an image of ``shape`` (H, W) when given."""
        x0 = math.ceil(self.cx - self.w / 2.0 - 1e-9)
        x1 = math.floor(self.cx + self.w / 2.0 + 1e-9) + 1
        y0 = math.ceil(self.cy - self.h / 2.0 - 1e-9)
        y1 = math.floor(self.cy + self.h / 2.0 + 1e-9) + 1
        if shape is not None:
            hh, ww = shape[:2]
            x0, x1 = max(0, min(x0, ww)), max(0, min(x1, ww))
            y0, y1 = max(0, min(y0, hh)), max(0, min(y1, hh))
        return x0, y0, x1, y1


# ========================================================================= interface
class Detector(abc.ABC):
    """Common interface. ``classes`` None means "every class the backend knows"."""

    name = "base"
    needs_rgb = True
    needs_segmentation = False

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
        self._classes = _clean_classes(classes)
        return []

    @abc.abstractmethod
    def detect(self, rgb: np.ndarray | None, extra: dict | None = None) -> list[Detection]:
        """Implemented by each subclass."""


def _clean_classes(classes: Iterable[str] | None) -> list[str] | None:
    if classes is None:
        return None
    if isinstance(classes, str):
        raise DetectorInputError(f"classes must be a list of names, got the string {classes!r}")
    out: list[str] = []
    for c in classes:
        if not isinstance(c, str):
            raise DetectorInputError(f"class names must be strings, got {c!r}")
        c = c.strip()
        if c and c not in out:
            out.append(c)
    return out


# ====================================================================== ground truth
class GroundTruthDetector(Detector):
    """Boxes and masks of the instances in a segmentation image.

    ``extra`` holds ``seg`` (H, W) integer instance ids (0 = nothing) and optionally
    ``labels`` (id -> label; else the map given to the constructor). Instances without
    a label, smaller than ``min_pixels``, or (when a class list is set) of another class
    are left out. Score is 1.0. Sorted by instance id.
    """

    name = "groundtruth"
    needs_rgb = False
    needs_segmentation = True
    _DIRECT_MAX_ID = 1 << 20          # above this, ids are compacted before find_objects

    MAX_CLASSES = 10_000              # distinct class names: far more than any label set

    def __init__(self, labels: dict[int, str] | None = None, classes: Sequence[str] | None = None,
                 confidence: float = 0.0, min_pixels: int = 3):
        super().__init__(classes, confidence)
        self.labels = dict(labels or {})
        self.min_pixels = int(min_pixels)

    def set_classes(self, classes: Sequence[str] | None) -> list[str]:
        """Restrict detections to these labels (None: every labelled id). Linear in the number of
        names, and at most :attr:`MAX_CLASSES` distinct ones: a ``perception/set_classes`` of
        100,000 names is refused at once (DetectorInputError), never worked through while the
        node cannot stop. Names are stripped; empty ones and repeats are dropped."""
        if classes is None:
            self._classes = None
            return []
        if isinstance(classes, str):
            raise DetectorInputError(f"classes must be a list of names, got the string {classes[:60]!r}")
        unique: dict[str, None] = {}          # insertion-ordered set: first occurrence kept
        for c in classes:
            if not isinstance(c, str):
                raise DetectorInputError(f"class names must be strings, got {str(c)[:60]!r}")
            c = c.strip()
            if c:
                unique[c] = None
                if len(unique) > self.MAX_CLASSES:
                    raise DetectorInputError(f"more than {self.MAX_CLASSES} class names")
        self._classes = list(unique)
        return []

    def detect(self, rgb, extra=None) -> list[Detection]:
        extra = extra or {}
        seg = extra.get("seg")
        if seg is None:
            raise DetectorInputError("the groundtruth detector needs extra['seg'], an instance "
                                     "segmentation image (camera/segmentation/image_raw)")
        seg = np.asarray(seg)
        if seg.ndim != 2 or not np.issubdtype(seg.dtype, np.integer):
            raise DetectorInputError(f"segmentation must be a 2-D integer image, got "
                                     f"{seg.dtype} {seg.shape}")
        labels = extra.get("labels")
        labels = self.labels if labels is None else labels
        classes = None if self._classes is None else set(self._classes)
        wanted = np.array(sorted(int(i) for i, lab in labels.items()
                                 if int(i) > 0 and lab and (classes is None or lab in classes)),
                          np.int64)
        if wanted.size == 0 or seg.size == 0:
            return []
        top = int(seg.max())
        if top <= 0:
            return []
        if top <= self._DIRECT_MAX_ID and int(seg.min()) >= 0:
            keep = np.zeros(top + 1, bool)
            keep[wanted[wanted <= top]] = True
            work = np.where(keep[seg], seg, 0)
            ids_of = None
        else:                                   # huge or negative ids: compact them first
            uniq, inv = np.unique(seg, return_inverse=True)
            sel = np.isin(uniq, wanted)
            compact = np.where(sel, np.cumsum(sel), 0)
            work = compact[inv.reshape(seg.shape)]
            ids_of = uniq[sel]
        counts = np.bincount(work.ravel())
        slices = ndimage.find_objects(work)
        out: list[Detection] = []
        for k, slc in enumerate(slices, start=1):
            if slc is None or counts[k] < self.min_pixels:
                continue
            iid = int(k if ids_of is None else ids_of[k - 1])
            ys, xs = slc
            w, h = xs.stop - xs.start, ys.stop - ys.start
            out.append(Detection(
                label=str(labels[iid]), score=1.0,
                cx=(xs.start + xs.stop - 1) / 2.0, cy=(ys.start + ys.stop - 1) / 2.0,
                w=float(w), h=float(h), instance_id=iid, mask=work[slc] == k))
        return out


# ======================================================================= ultralytics
def ultralytics_status() -> tuple[bool, str]:
    """(True, version) when ultralytics imports, else (False, why)."""
    try:
        _import_ultralytics()
    except DetectorUnavailableError as exc:
        return False, str(exc)
    import ultralytics
    return True, getattr(ultralytics, "__version__", "?")


def _import_ultralytics():
    # A ROS node must not pip-install things behind the user's back.
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_VERBOSE", "false")
    try:
        import ultralytics  # noqa: F401
        from ultralytics import YOLO, YOLOWorld
    except Exception as exc:   # ImportError, or OSError from a broken torch install
        raise DetectorUnavailableError(
            f"the YOLO detectors need the Python package ultralytics, which cannot be imported "
            f"({type(exc).__name__}: {exc}); {ULTRALYTICS_INSTALL_HINT}") from exc
    return YOLO, YOLOWorld


def _check_weights(weights, detector: str) -> Path:
    if weights is None or str(weights).strip() == "":
        raise WeightsNotFoundError(
            f"detector {detector!r} needs a weights file: set the parameter `weights` to the path "
            f"of an ultralytics .pt file (no weights are downloaded)")
    path = Path(str(weights)).expanduser()
    if not path.is_file():
        raise WeightsNotFoundError(
            f"weights file for detector {detector!r} not found: {path} "
            f"({'is a directory' if path.is_dir() else 'no such file'}); "
            f"give the path of an existing ultralytics .pt file (no weights are downloaded)")
    return path


class _UltralyticsDetector(Detector):
    def __init__(self, weights, classes=None, confidence=0.25, device=None, imgsz=640):
        self.weights = _check_weights(weights, self.name)
        self.device = device or None
        self.imgsz = int(imgsz)
        self.model = self._load()
        super().__init__(classes, confidence)

    @abc.abstractmethod
    def _load(self):
        """Implemented by each subclass."""

    def _names(self) -> dict[int, str]:
        names = self.model.names
        return dict(names) if isinstance(names, dict) else dict(enumerate(names))

    def detect(self, rgb, extra=None) -> list[Detection]:
        if rgb is None:
            raise DetectorInputError(f"detector {self.name!r} needs an RGB image")
        rgb = np.asarray(rgb)
        if rgb.ndim != 3 or rgb.shape[2] != 3:
            raise DetectorInputError(f"expected an (H, W, 3) RGB image, got {rgb.shape}")
        names = self._names()
        kwargs = {}
        if self._classes is not None:
            idx = [i for i, n in names.items() if n in self._classes]
            if not idx:
                return []
            kwargs["classes"] = idx
        bgr = np.ascontiguousarray(rgb[..., ::-1])   # ultralytics reads numpy images as BGR
        results = self.model.predict(bgr, conf=self.confidence, imgsz=self.imgsz, verbose=False,
                                     device=self.device, **kwargs)
        out: list[Detection] = []
        for r in results:
            boxes = r.boxes
            if boxes is None or len(boxes) == 0:
                continue
            xywh = boxes.xywh.cpu().numpy().astype(float)
            conf = boxes.conf.cpu().numpy().astype(float)
            cls = boxes.cls.cpu().numpy().astype(int)
            rnames = r.names if getattr(r, "names", None) else names
            for (cx, cy, w, h), s, c in zip(xywh, conf, cls):
                out.append(Detection(label=str(rnames[int(c)]), score=float(s),
                                     cx=float(cx) - 0.5, cy=float(cy) - 0.5, w=float(w), h=float(h)))
        return out


class YoloDetector(_UltralyticsDetector):
    """ultralytics YOLO detection model; ``classes`` filters its fixed vocabulary."""

    name = "yolo"

    def _load(self):
        YOLO, _ = _import_ultralytics()
        try:
            return YOLO(str(self.weights))
        except Exception as exc:
            raise DetectorError(f"ultralytics could not load {self.weights} as a YOLO model "
                                f"({type(exc).__name__}: {exc})") from exc

    def set_classes(self, classes) -> list[str]:
        classes = _clean_classes(classes)
        self._classes = classes
        if classes is None:
            return []
        known = set(self._names().values())
        return [c for c in classes if c not in known]


class YoloWorldDetector(_UltralyticsDetector):
    """ultralytics YOLO-World; :meth:`set_classes` defines the open vocabulary.

    New names need the CLIP text encoder; when every name is in the vocabulary saved in the
    weights (in any order, or a part of it), no encoder is needed: the names filter it.
    """

    name = "yolo_world"

    def _load(self):
        _, YOLOWorld = _import_ultralytics()
        try:
            return YOLOWorld(str(self.weights))
        except Exception as exc:
            raise DetectorError(f"ultralytics could not load {self.weights} as a YOLO-World model "
                                f"({type(exc).__name__}: {exc})") from exc

    def set_classes(self, classes) -> list[str]:
        classes = _clean_classes(classes)
        if classes is None:
            self._classes = None
            return []
        if not classes:
            raise DetectorInputError("YOLO-World needs at least one class name")
        if not set(classes) <= set(self._names().values()):    # names in the saved vocabulary (in any
            self._encode(classes)                               # order) are a filter; new ones need CLIP
        self._classes = classes
        return []

    def _encode(self, classes: list[str]) -> None:
        clip_path = _clip_weights_hint()
        if importlib.util.find_spec("clip") is None:
            raise TextEncoderUnavailableError(
                "cannot set YOLO-World classes: the CLIP text encoder package `clip` is not "
                "installed. " + CLIP_INSTALL_HINT.format(clip_path=clip_path))
        try:
            self.model.set_classes(list(classes))
        except Exception as exc:
            raise TextEncoderUnavailableError(
                f"cannot set YOLO-World classes: the CLIP text encoder failed "
                f"({type(exc).__name__}: {exc}). " + CLIP_INSTALL_HINT.format(clip_path=clip_path)
            ) from exc


def _clip_weights_hint() -> str:
    try:
        from ultralytics.utils import WEIGHTS_DIR
        return str(Path(WEIGHTS_DIR) / "clip" / "ViT-B-32.pt")
    except Exception:
        return "<ultralytics weights_dir>/clip/ViT-B-32.pt"


# ========================================================================== factory
def make_detector(name: str, weights: str | None = None, classes: Sequence[str] | None = None,
                  confidence: float = 0.25, **kwargs) -> Detector:
    """A detector by name: ``groundtruth``, ``yolo`` or ``yolo_world``.

    ``kwargs`` go to the backend (``labels``/``min_pixels`` for ground truth,
    ``device``/``imgsz`` for YOLO). Raises a :class:`DetectorError` subclass with a
    message saying what to fix.
    """
    key = _ALIASES.get(str(name).strip().lower())
    if key is None:
        raise UnknownDetectorError(f"unknown detector {name!r}: expected one of "
                                   f"{', '.join(DETECTOR_NAMES)}")
    if key == "groundtruth":
        return GroundTruthDetector(classes=classes, confidence=0.0, **kwargs)
    if key == "yolo":
        return YoloDetector(weights, classes=classes, confidence=confidence, **kwargs)
    return YoloWorldDetector(weights, classes=classes, confidence=confidence, **kwargs)
