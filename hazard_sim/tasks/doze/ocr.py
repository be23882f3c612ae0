"""Reading whiteboards: RapidOCR (an OCR engine installed from a package) over an upscaled crop."""
from __future__ import annotations

import numpy as np

_OCR = []


def upscale(rgb: np.ndarray, f: int) -> np.ndarray:
    """An image ``f`` times larger (Lanczos), for OCR of small text."""
    from PIL import Image
    img = Image.fromarray(np.ascontiguousarray(rgb))
    return np.asarray(img.resize((img.width * f, img.height * f), Image.LANCZOS))


def board_crop(rgb: np.ndarray, mask: np.ndarray, size: int = 384) -> np.ndarray:
    """The part of ``rgb`` a board's pixels ``mask`` cover (their bounding box), upscaled (by a whole
    factor) to about ``size`` px on its longer side: what h_l3mvn read until 2026-11-28, kept for
    `bench_doze.py ocr`'s comparison (:func:`board_only` reads better)."""
    rows, cols = np.nonzero(mask)
    crop = rgb[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    if max(crop.shape[:2]) < size:
        crop = upscale(crop, int(np.ceil(size / max(crop.shape[:2]))))
    return crop


def board_only(rgb: np.ndarray, mask: np.ndarray, margin: int = 4) -> np.ndarray:
    """The frame with everything but a board's box (its pixels ``mask``, grown by ``margin`` px)
    painted a flat grey: the board's text at the frame's own scale, and no other text."""
    rows, cols = np.nonzero(mask)
    out = np.full_like(rgb, 128)
    r0, r1 = max(rows.min() - margin, 0), rows.max() + 1 + margin
    c0, c1 = max(cols.min() - margin, 0), cols.max() + 1 + margin
    out[r0:r1, c0:c1] = rgb[r0:r1, c0:c1]
    return out


def ocr_text(rgb: np.ndarray) -> str:
    """Text RapidOCR reads in an image (lines top to bottom)."""
    if not _OCR:
        from rapidocr_onnxruntime import RapidOCR
        _OCR.append(RapidOCR())
    res, _ = _OCR[0](np.ascontiguousarray(rgb), use_cls=False)     # boards are upright: no angle classifier
    if not res:
        return ""
    res = sorted(res, key=lambda r: (round(np.mean([p[1] for p in r[0]]) / 12), np.mean([p[0] for p in r[0]])))
    return " ".join(r[1] for r in res)
