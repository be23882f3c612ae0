"""An instance namer: a second stage that names what a coarse detector found (ROS-free).

The shipped detector knows six coarse classes; every household object of an object-navigation
benchmark is ``object`` to it, so an agent asked for "a green towel" can never recognise its
goal. The namer is the usual two-stage answer (a detector proposes, a classifier names the
crop, as region classifiers on top of class-agnostic proposals do): a small image classifier,
trained by :mod:`hazard_sim.perception.namer_training` on crops the simulator renders of a
benchmark's kinds in its **train** scenes (:mod:`hazard_sim.perception.namer_dataset`, the
spec's ``namer_crops``), exported to ONNX and run here with onnxruntime (no torch in the
simulator's process).

Its vocabulary is the kinds it was trained on, so it is closed over the simulator's library
(an honest stand-in for an open-vocabulary model, which needs CLIP weights this project cannot
fetch): a kind it never saw is never named. Kinds are named only for the detector classes the
namer was trained to rename (``renames``, default ``object``), and only when the top
probability is at least ``min_score`` (else the coarse class stays). The kinds a task looks for
(``NamedBackend.prompt``: the embedded runner and the perception node give the task's classes) are
named from the lower ``goal_min_score`` on when no kind is sure, as an open-vocabulary detector
prompted with the goal's class names it.

Files: ``namer.onnx`` (input ``images`` ``(N, 3, S, S)`` float 0..1 RGB; output ``logits``
``(N, C)``) and ``namer.json`` beside it (``classes``, ``crop_size``, ``margin``,
``renames``, ``min_score`` and the held-out accuracy).

:func:`crop_square` is the one crop of training and inference: a square centred on the box,
of side ``max(w, h) * (1 + 2 * margin)``, grey (114) outside the image, resized to ``S``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.errors import DetectorUnavailableError, WeightsMismatchError, WeightsNotFoundError
from hazard_sim.perception.instances import as_rgb_uint8

PAD_VALUE = 114
DEFAULT_MARGIN = 0.15
DEFAULT_MIN_SCORE = 0.5
#: a goal kind the task names (``prompt``) is given from this probability on, as a detector
#: prompted with the goal's class would: on the 2,510 held-out crops (152 kinds) it names 69.0 %
#: of a goal's crops right against 53.5 % at ``DEFAULT_MIN_SCORE``, and names 2.5 of every 1,000
#: other crops the goal against 0.6 (docs/perception.md)
DEFAULT_GOAL_MIN_SCORE = 0.2


def crop_square(rgb: np.ndarray, box, size: int, margin: float = DEFAULT_MARGIN, scale: float = 1.0,
                shift=(0.0, 0.0)) -> np.ndarray:
    """The ``(size, size, 3)`` uint8 crop of ``box`` = ``(x0, y0, x1, y1)`` (half-open pixels):
    a square of side ``max(w, h) * (1 + 2 * margin) * scale`` centred on the box centre moved
    by ``shift`` (fractions of the side), grey outside the image."""
    import cv2
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 1.0) * (1.0 + 2.0 * margin) * scale
    cx = (x0 + x1) / 2.0 + shift[0] * side
    cy = (y0 + y1) / 2.0 + shift[1] * side
    s = size / side                               # output pixels per input pixel
    # affine map: output (u, v) <- input (cx + (u + 0.5) / s - side / 2 - 0.5, ...)
    m = np.array([[s, 0.0, s * (side / 2.0 - cx) - 0.5 + 0.5 * s],
                  [0.0, s, s * (side / 2.0 - cy) - 0.5 + 0.5 * s]], np.float64)
    interp = cv2.INTER_AREA if s < 1.0 else cv2.INTER_LINEAR
    return cv2.warpAffine(np.ascontiguousarray(rgb[..., :3]), m, (size, size), flags=interp,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(PAD_VALUE,) * 3)


def read_namer_json(onnx_path: Path) -> dict:
    meta = onnx_path.with_suffix(".json")
    if not meta.is_file():
        raise WeightsMismatchError(f"namer {onnx_path}: its description {meta.name} is missing beside it "
                                   f"(hazard perception namer-train writes both)")
    try:
        d = json.loads(meta.read_text())
    except json.JSONDecodeError as e:
        raise WeightsMismatchError(f"namer description {meta}: not JSON ({e})") from None
    need = ("classes", "crop_size")
    miss = [k for k in need if k not in d]
    if miss or not isinstance(d.get("classes"), list) or not d["classes"]:
        raise WeightsMismatchError(f"namer description {meta}: needs a non-empty 'classes' list and 'crop_size' "
                                   f"(missing: {', '.join(miss) or 'classes'})")
    return d


def namer_path(path) -> Path:
    """The model file a ``--namer`` argument names (a folder means its ``namer.onnx``)."""
    p = Path(str(path)).expanduser()
    return p / "namer.onnx" if p.is_dir() else p


def namer_problem(classes, labels, path, benchmark: str) -> str | None:
    """Why a namer with ``classes`` cannot serve an episode whose objects carry ``labels`` (None:
    it can): it knows none of their kinds, so it would name nothing (another benchmark's namer)."""
    kinds = {str(x) for x in labels if x}
    known = set(map(str, classes))
    if not kinds or kinds & known:
        return None
    sample = ", ".join(sorted(known)[:3])
    return (f"namer {path}: it names none of the {len(kinds)} kinds of objects in this {benchmark} episode (its "
            f"{len(known)} classes, such as {sample}, are another benchmark's): give a namer trained for {benchmark}")


def scene_namer_problem(detector, labels, benchmark) -> str | None:
    """:func:`namer_problem` of a detector's namer (None without one) against a scene's ``labels``
    (id -> kind: the simulator's; none known yet, None)."""
    namer = getattr(detector, "namer", None)
    if namer is None or not labels or not benchmark:
        return None
    return namer_problem(namer.classes, labels.values(), namer.path, benchmark)


class Namer:
    """Names crops: ``name(rgb, boxes) -> [(label, probability)]``."""

    def __init__(self, path, threads: int | None = None, min_score: float | None = None,
                 goal_min_score: float | None = None):
        if path is None or str(path).strip() == "":
            raise WeightsNotFoundError("a namer needs its model file: give the path of namer.onnx "
                                       "(hazard perception namer-train makes it; nothing is downloaded)")
        p = namer_path(path)
        if not p.is_file():
            raise WeightsNotFoundError(f"namer model not found: {p} (hazard perception namer-train makes it; "
                                       f"nothing is downloaded)")
        self.path = p
        meta = read_namer_json(p)
        self.classes = [str(c) for c in meta["classes"]]
        self.crop_size = int(meta["crop_size"])
        self.margin = float(meta.get("margin", DEFAULT_MARGIN))
        self.renames = tuple(str(c) for c in meta.get("renames", ["object"]))
        self.min_score = float(meta.get("min_score", DEFAULT_MIN_SCORE) if min_score is None else min_score)
        self.goal_min_score = float(meta.get("goal_min_score", DEFAULT_GOAL_MIN_SCORE)
                                    if goal_min_score is None else goal_min_score)
        try:
            import onnxruntime as ort
        except ImportError as e:
            raise DetectorUnavailableError(f"the namer needs onnxruntime ({e}); it is in requirements.txt") from None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads or os.environ.get("HAZARD_ONNX_THREADS", "0") or
                                        min(2, os.cpu_count() or 1))
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"])
        except Exception as e:          # onnxruntime raises its own exception types
            raise WeightsMismatchError(f"namer {p}: onnxruntime cannot load it ({type(e).__name__}: {e})") from None
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        out = self.session.get_outputs()[0]
        n_out = out.shape[-1] if out.shape else None
        if isinstance(n_out, int) and n_out != len(self.classes):
            raise WeightsMismatchError(f"namer {p}: the model gives {n_out} scores but {p.with_suffix('.json').name} "
                                       f"lists {len(self.classes)} classes")
        shape = inp.shape
        if len(shape) != 4 or (isinstance(shape[2], int) and shape[2] != self.crop_size):
            raise WeightsMismatchError(f"namer {p}: input shape {shape} does not take {self.crop_size} px crops")

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """``(N, C)`` class probabilities of ``(N, S, S, 3)`` uint8 crops."""
        if len(crops) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
        logits = self.session.run(None, {self.input_name: x})[0].astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)

    def name(self, rgb: np.ndarray, boxes, goals=()) -> list[tuple[str, float]]:
        """The top kind and its probability for each ``(x0, y0, x1, y1)`` box of ``rgb``; with
        ``goals`` (kinds a task looks for), a box whose top kind is not sure (below
        ``min_score``) gets the likeliest goal kind instead when that reaches ``goal_min_score``."""
        rgb = as_rgb_uint8(rgb)
        crops = np.stack([crop_square(rgb, b, self.crop_size, self.margin) for b in boxes]) if len(boxes) else \
            np.zeros((0, self.crop_size, self.crop_size, 3), np.uint8)
        p = self.probabilities(crops)
        k = p.argmax(axis=1) if len(p) else np.zeros(0, int)
        out = [(self.classes[int(i)], float(p[j, i])) for j, i in enumerate(k)]
        g = [self.classes.index(c) for c in dict.fromkeys(goals) if c in self.classes]
        if g:
            for j, (kind, q) in enumerate(out):
                best = g[int(np.argmax(p[j, g]))]
                if q < self.min_score and p[j, best] >= self.goal_min_score:
                    out[j] = (self.classes[best], max(float(p[j, best]), self.min_score))
        return out

    def describe(self) -> dict:
        return {"namer": self.path.name, "namer_bytes": self.path.stat().st_size, "namer_min_score": self.min_score,
                "namer_goal_min_score": self.goal_min_score}


class NamedBackend(Backend):
    """A detector backend followed by a :class:`Namer`: instances of the classes the namer
    renames get the namer's kind when its probability reaches ``min_score``; the score stays
    the detector's. ``name`` is the detector's (a closed vocabulary: its classes plus the
    namer's kinds)."""

    def __init__(self, inner: Backend, namer: Namer):
        self.inner, self.namer = inner, namer
        self.name = inner.name
        self.needs_rgb = True
        self.needs_segmentation = inner.needs_segmentation
        self.confidence = inner.confidence
        self._classes = None
        from hazard_sim.perception.vocabulary import class_names
        known = class_names(inner)
        kinds = [c for c in namer.classes if c not in known]
        self.names = {i: c for i, c in enumerate([*known, *kinds])}
        self.stats = {"named": 0, "kept": 0, "named_goal": 0}
        self.goals: tuple[str, ...] = ()        # the task's kinds (prompt): named from goal_min_score on

    @property
    def classes(self):
        return None if self._classes is None else list(self._classes)

    def set_classes(self, classes):
        """Restrict to ``classes`` (the detector's classes and the namer's kinds); returns the
        names neither knows. A kind asks the detector for the classes the namer renames."""
        if classes is None:
            self._classes = None
            return self.inner.set_classes(None)
        from hazard_sim.perception.instances import clean_classes
        wanted = clean_classes(classes) or []
        known = set(self.names.values())
        kinds = set(self.namer.classes)
        inner = [c for c in wanted if c in known and c not in kinds]
        if any(c in kinds for c in wanted):
            inner += [c for c in self.namer.renames if c not in inner]
        self.inner.set_classes(inner or None)
        self._classes = [c for c in wanted if c in known]
        return [c for c in wanted if c not in known]

    def prompt(self, kinds) -> list[str]:
        """The kinds the task looks for (its goal's; ``[]`` or None: none); returns those the
        namer knows. They are named from ``goal_min_score`` on (:meth:`Namer.name`), as an
        open-vocabulary detector prompted with the goal would; other kinds need ``min_score``."""
        self.goals = tuple(c for c in dict.fromkeys(str(k) for k in (kinds or ())) if c in self.namer.classes)
        return list(self.goals)

    def detect(self, rgb, extra=None):
        insts = self._named(rgb, self.inner.detect(rgb, extra))
        if self._classes is not None:
            keep = set(self._classes)
            insts = [i for i in insts if i.label in keep]
        return insts

    def _named(self, rgb, insts):
        todo = [i for i in insts if i.label in self.namer.renames]
        if not todo:
            return insts
        shape = np.asarray(rgb).shape[:2]
        names = self.namer.name(rgb, [i.pixel_box(shape) for i in todo], self.goals)
        for inst, (kind, p) in zip(todo, names):
            if p >= self.namer.min_score:
                inst.label = kind
                self.stats["named"] += 1
                self.stats["named_goal"] += kind in self.goals
            else:
                self.stats["kept"] += 1
        return insts

    def describe(self) -> dict:
        return {**self.inner.describe(), **self.namer.describe()}


__all__ = ["Namer", "NamedBackend", "crop_square", "read_namer_json"]
