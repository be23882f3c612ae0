"""Camera intrinsics: subsampled images and depth back-projection, the one copy for the core and the
nodes."""
from __future__ import annotations

import numpy as np


def scaled_K(K: np.ndarray, step: int) -> np.ndarray:
    """Intrinsics of an image subsampled as ``img[::step, ::step]`` (pixel centres at integers:
    pixel u of the subsampled image is pixel u * step of the full one)."""
    K2 = np.array(K, float, copy=True)
    K2[:2] /= float(step)
    return K2


def backproject(depth: np.ndarray, K: np.ndarray, pose: np.ndarray) -> np.ndarray:
    """World points (H,W,3) from a z-depth image, intrinsics and world-from-optical pose."""
    h, w = depth.shape
    u, v = np.meshgrid(np.arange(w), np.arange(h))
    z = np.where(np.isfinite(depth), depth, np.nan)
    x = (u - K[0, 2]) / K[0, 0] * z
    y = (v - K[1, 2]) / K[1, 1] * z
    cam = np.stack([x, y, z], axis=-1)
    return cam @ pose[:3, :3].T + pose[:3, 3]
