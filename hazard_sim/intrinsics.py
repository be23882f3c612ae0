"""Camera intrinsics of subsampled images: the one copy for the core and the nodes."""
from __future__ import annotations

import numpy as np


def scaled_K(K: np.ndarray, step: int) -> np.ndarray:
    """Intrinsics of an image subsampled as ``img[::step, ::step]`` (pixel centres at integers:
    pixel u of the subsampled image is pixel u * step of the full one)."""
    K2 = np.array(K, float, copy=True)
    K2[:2] /= float(step)
    return K2
