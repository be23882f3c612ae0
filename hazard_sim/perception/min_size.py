"""The minimum-size rule's default, read off a detector's measured recall against mask pixels.

The ground-truth track counts an instance as seen from ``min_pixels`` mask pixels: a step. A
trained detector's recall instead rises smoothly with the object's size. The step that stands
for a detector is put at its **50 % point**: the smallest size from which the detector finds at
least half the objects (the "50 % completeness limit" of survey astronomy, the threshold of a
psychometric curve). Objects smaller than it are mostly missed by the detector and are not seen
on the ground-truth track; larger ones mostly found, and seen.

The recall curve is the monotone (isotonic, non-decreasing) least-squares fit of hit (1) or miss
(0) against the object's mask pixels over every held-out object, so no curve shape is assumed and
the plateau below 1 that real detectors have does not bias the point. The 50 % point is the
pixel count of the first object whose fitted recall is at least 0.5 (None when the fit never
reaches it). Its 95 % interval comes from a bootstrap that resamples whole frames (objects of one
frame share light, fog and clutter, so they are not independent).
"""
from __future__ import annotations

import numpy as np

HALF = 0.5


def monotone_recall(pixels, hits) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct pixel counts, the isotonic fit of recall at each): non-decreasing in size."""
    from scipy.optimize import isotonic_regression
    px = np.asarray(pixels, float).reshape(-1)
    hit = np.asarray(hits, float).reshape(-1)
    if px.shape != hit.shape:
        raise ValueError(f"pixels ({px.size}) and hits ({hit.size}) differ in length")
    if px.size == 0:
        return np.zeros(0), np.zeros(0)
    sizes, inv, counts = np.unique(px, return_inverse=True, return_counts=True)
    mean = np.bincount(inv, weights=hit) / counts
    return sizes, isotonic_regression(mean, weights=counts, increasing=True).x


def half_point(pixels, hits, level: float = HALF) -> float | None:
    """The smallest mask-pixel count from which the monotone recall fit reaches ``level``."""
    sizes, fit = monotone_recall(pixels, hits)
    reach = np.nonzero(fit >= level - 1e-12)[0]
    return float(sizes[reach[0]]) if reach.size else None


def half_point_ci(frames: list[tuple[list, list]], reps: int = 1000, seed: int = 0,
                  level: float = HALF) -> dict:
    """{"pixels", "ci95": [lo, hi], "n" objects, "frames", "reps_reached"} for ``frames``, each a
    (pixels, hits) pair of one frame's objects. The interval is the 2.5 / 97.5 % quantiles of the
    point over ``reps`` bootstrap resamples of the frames (resamples whose fit never reaches
    ``level`` are counted in ``reps_reached``'s shortfall and left out of the quantiles)."""
    frames = [(np.asarray(p, float), np.asarray(h, float)) for p, h in frames if len(p)]
    n = int(sum(p.size for p, _ in frames))
    out = {"pixels": None, "ci95": [None, None], "n": n, "frames": len(frames), "reps_reached": 0}
    if not frames:
        return out
    px = np.concatenate([p for p, _ in frames])
    hit = np.concatenate([h for _, h in frames])
    out["pixels"] = half_point(px, hit, level)
    rng = np.random.default_rng(seed)
    points = []
    for _ in range(int(reps)):
        pick = rng.integers(0, len(frames), len(frames))
        v = half_point(np.concatenate([frames[i][0] for i in pick]),
                       np.concatenate([frames[i][1] for i in pick]), level)
        if v is not None:
            points.append(v)
    out["reps_reached"] = len(points)
    if points:
        lo, hi = np.quantile(points, [0.025, 0.975])
        out["ci95"] = [float(lo), float(hi)]
    return out


def frames_of(images: list[dict], hits_of) -> list[tuple[list, list]]:
    """(pixels, hits) per frame of :func:`~.evaluation.run_predictions`' images, with
    ``hits_of(images)`` giving the (object, hit) pairs of those images in order."""
    out = []
    for im in images:
        pairs = hits_of([im])
        out.append(([o["pixels"] for o, _ in pairs], [bool(h) for _, h in pairs]))
    return out
