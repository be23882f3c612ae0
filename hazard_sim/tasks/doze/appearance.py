"""Appearance attributes decided from an object's pixels: named colours and materials by a
shading-invariant fit (:func:`color_name`), printed patterns from two-tone pixels
(:func:`two_tone`), and whether a goal's attribute holds (:func:`attribute_ok`).
"""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.doze.vocabulary import COLORS, MATERIALS, PATTERNS

_REF = {**COLORS, **MATERIALS}


def color_name(rgb: np.ndarray, names=None) -> list[tuple[float, str]]:
    """Named colours / materials ranked by a shading-invariant fit to the mean of the brightest
    pixels: residual of the best scale s in [0.4, 1.1] of each reference colour."""
    px = np.asarray(rgb, float).reshape(-1, 3)
    if not len(px):
        return []
    v = px.max(1)
    bright = px[v >= np.percentile(v, 50)]
    m = bright.mean(0)
    out = []
    for name in names or _REF:
        ref = np.asarray(_REF[name], float)
        s = float(np.clip(m @ ref / max(ref @ ref, 1e-9), 0.4, 1.1))
        out.append((float(np.linalg.norm(s * ref - m)), name))
    return sorted(out)


def two_tone(rgb: np.ndarray) -> bool:
    """Whether an object's pixels fall into two distinct colour groups (a printed pattern)."""
    px = np.asarray(rgb, float).reshape(-1, 3)
    if len(px) < 12:
        return False
    norm = px / np.maximum(px.max(1, keepdims=True), 1.0)
    light = px.max(1) > 150
    sat = norm.max(1) - norm.min(1)
    groups = [light & (sat < 0.2), (sat >= 0.35) | (px.max(1) < 70)]
    return all(g.mean() > 0.12 for g in groups)


def attribute_ok(attr: str | None, rgb: np.ndarray) -> bool | None:
    """True / False where the pixels decide the attribute, None where they cannot (brands)."""
    if attr is None:
        return True
    words = attr.split()
    word = words[-1]
    if word in PATTERNS:
        return two_tone(rgb)
    if word in _REF:
        ranked = color_name(rgb)
        if not ranked:
            return None
        best = ranked[0][0]
        return any(n == word and d <= best * 1.15 + 6.0 for d, n in ranked[:2])
    return None
