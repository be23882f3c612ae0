"""The ``onnx`` backend: a YOLO-family model exported by ultralytics to ONNX, run with
onnxruntime (no torch in the simulator's process). Letterbox, decoding and NMS in numpy.

What it reads from the file (ultralytics writes it on ``export(format="onnx")``): the class
names (metadata ``names``, a dict literal ``{0: 'person', ...}``), ``stride``, ``imgsz``,
``task`` (``detect`` or ``segment``) and ``end2end`` (NMS done inside the graph). Outputs it
decodes:

* ``detect``: ``(1, 4 + nc, N)``: per anchor the box (centre x, centre y, w, h in input
  pixels) and ``nc`` class scores (already sigmoid);
* ``segment``: ``(1, 4 + nc + nm, N)`` plus prototypes ``(1, nm, mh, mw)``: the mask of a
  detection is ``sigmoid(coefficients @ prototypes) > 0.5`` inside its box;
* ``end2end``: ``(1, K, 6 [+ nm])``: ``x1, y1, x2, y2, score, class`` after NMS.

The image is letterboxed as ultralytics' predictor does (scale to fit, grey 114 border split
evenly), boxes are mapped back and shifted to pixel centres at integers.
"""
from __future__ import annotations

import ast
import math
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.errors import DetectorUnavailableError, WeightsMismatchError, WeightsNotFoundError
from hazard_sim.perception.instances import Instance, as_rgb_uint8, clean_classes

STRIDE = 32
PAD_VALUE = 114
MAX_WH = 7680                      # class offset of the class-aware NMS (ultralytics' value)


def round_to_stride(n: int, stride: int = STRIDE) -> int:
    """The smallest multiple of ``stride`` that is at least ``n`` (and at least ``stride``)."""
    return max(stride, int(math.ceil(int(n) / stride)) * stride)


def default_imgsz(shape: tuple[int, int], stride: int = STRIDE) -> tuple[int, int]:
    """Inference size for a camera of ``shape`` (H, W): its size rounded up to the stride."""
    return round_to_stride(shape[0], stride), round_to_stride(shape[1], stride)


def check_model_file(path, backend: str, what: str) -> Path:
    if path is None or str(path).strip() == "":
        raise WeightsNotFoundError(f"perception backend {backend!r} needs a model file: give the path of "
                                   f"{what} (--detector-weights FILE, or the node's `weights` parameter); "
                                   f"nothing is downloaded")
    p = Path(str(path)).expanduser()
    if not p.is_file():
        raise WeightsNotFoundError(f"model file for perception backend {backend!r} not found: {p} "
                                   f"({'is a directory' if p.is_dir() else 'no such file'}); give the path of "
                                   f"{what} (nothing is downloaded)")
    return p


# ============================================================ geometry (numpy, no model)
def letterbox(img: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, float, tuple[int, int]]:
    """``img`` (H, W, 3) scaled to fit ``size`` (h, w) and padded with grey: returns the
    padded image, the scale and the (left, top) padding, as ultralytics' ``LetterBox``."""
    import cv2

    h, w = img.shape[:2]
    th, tw = size
    r = min(th / h, tw / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    if (nw, nh) != (w, h):
        img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    dw, dh = (tw - nw) / 2, (th - nh) / 2
    top, bottom = int(round(dh - 0.1)), int(round(dh + 0.1))
    left, right = int(round(dw - 0.1)), int(round(dw + 0.1))
    out = cv2.copyMakeBorder(np.ascontiguousarray(img), top, bottom, left, right, cv2.BORDER_CONSTANT,
                             value=(PAD_VALUE,) * 3)
    return out, r, (left, top)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Greedy non-maximum suppression of xyxy ``boxes``: indices kept, best score first."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes.T
    area = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iw = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        ih = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = iw * ih
        union = area[i] + area[rest] - inter
        ov = np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)
        order = rest[ov <= iou]
    return np.asarray(keep, np.int64)


def decode(pred: np.ndarray, nc: int, conf: float, iou: float, max_det: int = 300,
           end2end: bool = False, class_ids: Sequence[int] | None = None):
    """One image's raw output -> ``(boxes xyxy, scores, classes, mask coefficients)`` in
    input pixels, best first. ``pred``: ``(4 + nc + nm, N)`` (or ``(K, 6 + nm)`` end2end)."""
    pred = np.asarray(pred, np.float32)
    if end2end:
        boxes, scores, cls, coef = pred[:, :4], pred[:, 4], pred[:, 5].astype(np.int64), pred[:, 6:]
        ok = scores > conf
        if class_ids is not None:
            ok &= np.isin(cls, list(class_ids))
        idx = np.nonzero(ok)[0]
        idx = idx[np.argsort(-scores[idx], kind="stable")][:max_det]
        return boxes[idx], scores[idx], cls[idx], coef[idx]
    p = pred.T                                      # (N, 4 + nc + nm)
    cls_scores = p[:, 4:4 + nc]
    if class_ids is not None:
        allowed = np.zeros(nc, bool)
        allowed[[c for c in class_ids if 0 <= c < nc]] = True
        cls_scores = np.where(allowed[None, :], cls_scores, -np.inf)
    cls = np.argmax(cls_scores, axis=1)
    scores = cls_scores[np.arange(len(p)), cls]
    ok = scores > conf
    p, cls, scores = p[ok], cls[ok], scores[ok]
    xy, wh = p[:, :2], p[:, 2:4]
    boxes = np.concatenate([xy - wh / 2, xy + wh / 2], axis=1)
    keep = nms(boxes + (cls[:, None] * MAX_WH), scores, iou)[:max_det]
    return boxes[keep], scores[keep], cls[keep], p[keep, 4 + nc:]


def unletterbox_boxes(boxes: np.ndarray, r: float, pad: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """xyxy boxes (pixel edges) of the letterboxed input -> of the original image, clipped."""
    b = (np.asarray(boxes, np.float64) - [pad[0], pad[1], pad[0], pad[1]]) / r
    h, w = shape
    b[:, [0, 2]] = b[:, [0, 2]].clip(0, w)
    b[:, [1, 3]] = b[:, [1, 3]].clip(0, h)
    return b


def proto_masks(coef: np.ndarray, protos: np.ndarray, in_size: tuple[int, int], r: float,
                pad: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """Full-image (n, H, W) float masks from mask coefficients and prototypes ``(nm, mh, mw)``:
    sigmoid of the linear combination, upsampled to the input, padding cut, resized to the image."""
    import cv2

    nm, mh, mw = protos.shape
    m = 1.0 / (1.0 + np.exp(-(coef @ protos.reshape(nm, -1))))
    m = m.reshape(-1, mh, mw).astype(np.float32)
    h, w = shape
    ih, iw = in_size
    x0, y0 = pad
    x1, y1 = x0 + int(round(w * r)), y0 + int(round(h * r))
    out = np.empty((len(m), h, w), np.float32)
    for k in range(len(m)):
        up = cv2.resize(m[k], (iw, ih), interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1]
        out[k] = cv2.resize(up, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def to_instances(boxes: np.ndarray, scores: np.ndarray, cls: np.ndarray, names: dict[int, str],
                 masks: np.ndarray | None = None) -> list[Instance]:
    """Instances from xyxy boxes in image pixel *edges* (shifted to pixel centres); ``masks``
    (n, H, W) float, kept > 0.5 inside each box."""
    out = []
    for k, ((x1, y1, x2, y2), s, c) in enumerate(zip(boxes, scores, cls)):
        inst = Instance(label=str(names.get(int(c), int(c))), score=float(s), cx=(x1 + x2) / 2 - 0.5,
                        cy=(y1 + y2) / 2 - 0.5, w=float(x2 - x1), h=float(y2 - y1))
        if masks is not None:
            bx0, by0, bx1, by1 = inst.pixel_box()
            H, W = masks.shape[1:]
            sub = np.zeros((max(0, by1 - by0), max(0, bx1 - bx0)), bool)
            cx0, cy0, cx1, cy1 = inst.pixel_box((H, W))
            sub[cy0 - by0:cy1 - by0, cx0 - bx0:cx1 - bx0] = masks[k, cy0:cy1, cx0:cx1] > 0.5
            inst.mask, inst.mask_from = sub, "model"
        out.append(inst)
    return out


def parse_names(text: str) -> dict[int, str]:
    """ultralytics' ``names`` metadata (a dict or list literal) -> {index: name}."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"unreadable class names {text[:60]!r}: {exc}") from None
    if isinstance(v, (list, tuple)):
        v = dict(enumerate(v))
    if not isinstance(v, dict) or not all(isinstance(k, int) for k in v):
        raise ValueError(f"class names must be a dict index -> name, got {text[:60]!r}")
    return {int(k): str(n) for k, n in v.items()}


# ======================================================================== backend
class OnnxBackend(Backend):
    """An ultralytics ONNX export run with onnxruntime on the CPU (or ``providers``)."""

    name = "onnx"

    def __init__(self, weights, classes=None, confidence: float = 0.25, iou: float = 0.7, imgsz=None,
                 threads: int | None = None, providers: Sequence[str] | None = None, max_det: int = 300):
        self.weights = check_model_file(weights, self.name, "an ONNX file exported by ultralytics "
                                        "(`hazard perception export`, or `yolo export format=onnx`)")
        try:
            import onnxruntime as ort
        except Exception as exc:
            raise DetectorUnavailableError(f"the onnx backend needs onnxruntime ({type(exc).__name__}: {exc}); "
                                           f"it is in requirements.txt") from exc
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        n = threads if threads is not None else int(os.environ.get("HAZARD_ONNX_THREADS", "0") or 0)
        if n:
            opts.intra_op_num_threads = int(n)
        try:
            self.session = ort.InferenceSession(str(self.weights), opts,
                                                providers=list(providers or ["CPUExecutionProvider"]))
        except Exception as exc:
            raise WeightsMismatchError(f"onnxruntime cannot load {self.weights} ({type(exc).__name__}: "
                                       f"{str(exc)[:200]}); give an ONNX file exported by ultralytics") from exc
        meta = self.session.get_modelmeta().custom_metadata_map
        if "names" not in meta:
            raise WeightsMismatchError(f"{self.weights} has no class names in its metadata (key 'names'): not an "
                                       f"ultralytics export; export it with ultralytics (format='onnx')")
        try:
            self.names = parse_names(meta["names"])
        except ValueError as exc:
            raise WeightsMismatchError(f"{self.weights}: {exc}") from None
        self.task = meta.get("task", "detect")
        if self.task not in ("detect", "segment"):
            raise WeightsMismatchError(f"{self.weights} is an ultralytics {self.task!r} model; the onnx backend "
                                       f"runs 'detect' and 'segment' models")
        self.stride = int(float(meta.get("stride", STRIDE)))
        self.end2end = str(meta.get("end2end", "False")).lower() == "true"
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        shape = list(inp.shape)
        self.fixed_size = (tuple(int(s) for s in shape[2:4])
                           if len(shape) == 4 and all(isinstance(s, int) for s in shape[2:4]) else None)
        if imgsz is not None and self.fixed_size is not None and _pair(imgsz) != self.fixed_size:
            raise WeightsMismatchError(f"{self.weights} takes {self.fixed_size[1]}x{self.fixed_size[0]} inputs "
                                       f"(exported with a fixed size); imgsz {imgsz} cannot be used: leave it "
                                       f"unset or export with dynamic=True")
        self.imgsz = None if imgsz is None else _pair(imgsz)
        self.iou, self.max_det = float(iou), int(max_det)
        super().__init__(classes, confidence)

    def describe(self) -> dict:
        return {"backend": self.name, "weights": self.weights.name, "confidence": self.confidence,
                "imgsz": list(self.fixed_size or self.imgsz or ())}

    def set_classes(self, classes) -> list[str]:
        self._classes = clean_classes(classes)
        known = set(self.names.values())
        return [] if self._classes is None else [c for c in self._classes if c not in known]

    def input_size(self, shape: tuple[int, int]) -> tuple[int, int]:
        return self.fixed_size or self.imgsz or default_imgsz(shape, self.stride)

    def detect(self, rgb, extra=None) -> list[Instance]:
        img = as_rgb_uint8(rgb, "the onnx backend")
        class_ids = None
        if self._classes is not None:
            class_ids = [i for i, n in self.names.items() if n in set(self._classes)]
            if not class_ids:
                return []
        size = self.input_size(img.shape[:2])
        padded, r, pad = letterbox(img, size)
        x = np.ascontiguousarray(padded.transpose(2, 0, 1)[None], np.float32) / 255.0
        outs = self.session.run(None, {self.input_name: x})
        boxes, scores, cls, coef = decode(outs[0][0], len(self.names), self.confidence, self.iou, self.max_det,
                                          self.end2end, class_ids)
        boxes = unletterbox_boxes(boxes, r, pad, img.shape[:2])
        masks = None
        if self.task == "segment" and len(outs) > 1 and len(boxes):
            masks = proto_masks(coef, np.asarray(outs[1][0], np.float32), size, r, pad, img.shape[:2])
        return to_instances(boxes, scores, cls, self.names, masks)


def _pair(v) -> tuple[int, int]:
    if isinstance(v, (list, tuple)):
        return (int(v[0]), int(v[-1]))
    return (int(v), int(v))
