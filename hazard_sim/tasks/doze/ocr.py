"""Reading whiteboards: RapidOCR (an OCR engine installed from a package) over an upscaled crop."""
from __future__ import annotations

import numpy as np

_OCR = []


def upscale(rgb: np.ndarray, f: int) -> np.ndarray:
    """An image ``f`` times larger (Lanczos), for OCR of small text."""
    from PIL import Image
    img = Image.fromarray(np.ascontiguousarray(rgb))
    return np.asarray(img.resize((img.width * f, img.height * f), Image.LANCZOS))


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
