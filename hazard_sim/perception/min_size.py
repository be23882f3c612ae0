"""The minimum-size rule's default, read off a detector's measured recall against mask pixels.

The ground-truth track counts an instance as seen from ``min_pixels`` mask pixels: a step. A
trained detector's recall instead rises smoothly with the object's size, to a ceiling below 1
(it also misses large objects: wrong class, occlusion, glare), and the ground-truth track keeps
the oracle's labels: the step stands for the detector's *size limit* only, not for its misses at
every size. So the step is put at the detector's **half-ceiling point**: the smallest size from
which its recall reaches one half of its recall on large objects (the threshold of a
psychometric curve with a lapse rate; with a ceiling of 1 it is the 50 % completeness limit of
survey astronomy). Smaller objects are mostly missed for their size and are not seen on the
ground-truth track; larger ones are.

* The recall curve is the monotone (isotonic, non-decreasing) least-squares fit of hit (1) or
  miss (0) against the object's mask pixels over every held-out object: no curve shape is
  assumed.
* The ceiling is the recall over the largest tenth of the objects (:data:`TOP`), a plain share
  that a handful of huge objects cannot set alone.
* The point is the pixel count of the first object whose fitted recall is at least ``HALF`` x
  the ceiling (None when the fit never reaches it). Its 95 % interval comes from a bootstrap
  that resamples whole frames (objects of one frame share light, fog and clutter, so they are
  not independent); each resample has its own ceiling.
"""
from __future__ import annotations

import numpy as np

HALF = 0.5
TOP = 0.1           # the ceiling: recall over the largest tenth of the objects


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


def ceiling(pixels, hits, top: float = TOP) -> float | None:
    """The recall over the largest ``top`` share of the objects (at least one object)."""
    px = np.asarray(pixels, float).reshape(-1)
    hit = np.asarray(hits, float).reshape(-1)
    if px.size == 0:
        return None
    k = max(1, int(round(top * px.size)))
    return float(hit[np.argsort(px, kind="stable")[-k:]].mean())


def half_point(pixels, hits, level: float = HALF, relative: bool = True) -> float | None:
    """The smallest mask-pixel count from which the monotone recall fit reaches ``level`` x the
    :func:`ceiling` (``relative``) or ``level`` itself; None when it never does (or the ceiling is 0)."""
    sizes, fit = monotone_recall(pixels, hits)
    if relative:
        top = ceiling(pixels, hits)
        if not top:
            return None
        level = level * top
    reach = np.nonzero(fit >= level - 1e-12)[0]
    return float(sizes[reach[0]]) if reach.size else None


def half_point_ci(frames: list[tuple[list, list]], reps: int = 1000, seed: int = 0,
                  level: float = HALF, relative: bool = True) -> dict:
    """{"pixels", "ci95": [lo, hi], "ceiling", "n" objects, "frames", "reps_reached"} for
    ``frames``, each a (pixels, hits) pair of one frame's objects. The interval is the 2.5 / 97.5 %
    quantiles of the point over ``reps`` bootstrap resamples of the frames (resamples whose fit
    never reaches the level are counted in ``reps_reached``'s shortfall and left out)."""
    frames = [(np.asarray(p, float), np.asarray(h, float)) for p, h in frames if len(p)]
    n = int(sum(p.size for p, _ in frames))
    out = {"pixels": None, "ci95": [None, None], "ceiling": None, "n": n, "frames": len(frames),
           "reps_reached": 0}
    if not frames:
        return out
    px = np.concatenate([p for p, _ in frames])
    hit = np.concatenate([h for _, h in frames])
    out["pixels"] = half_point(px, hit, level, relative)
    out["ceiling"] = ceiling(px, hit) if relative else 1.0
    rng = np.random.default_rng(seed)
    points = []
    for _ in range(int(reps)):
        pick = rng.integers(0, len(frames), len(frames))
        v = half_point(np.concatenate([frames[i][0] for i in pick]),
                       np.concatenate([frames[i][1] for i in pick]), level, relative)
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
