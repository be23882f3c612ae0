"""Coming down to look: how many pixels a person covers, and candidates worth a closer look.

A searcher flying 60 m above the ground with 256 px, 90 degree cameras cannot recognise a
person (the benchmark's perception needs ``min_pixels`` = 16, see docs/perception.md), but it
can see that *something* small and bright stands out from the ground. A real UAV searcher
then comes down over the spot until a person there would be big enough to recognise, looks,
and climbs back to its pattern. This module holds the two halves of that:

**Pixel arithmetic** (pinhole camera, looking at a patch of ground of area ``A`` face on
from range ``r``): the focal length in pixels is ``f = (W / 2) / tan(HFOV / 2)`` (``W`` the
image width in pixels; equivalently the focal length in mm over the pixel pitch in mm), one
pixel covers ``GSD = r / f`` metres of ground (the ground sample distance), so the patch
covers ``A / GSD^2 = A f^2 / r^2`` pixels; the range at which it covers ``n`` pixels is
``r = f sqrt(A / n)``. Straight down (the bottom camera) the range is the height above the
ground.

**Candidates** (:func:`salient_spots`): a local colour-anomaly detector on the RGB image,
the classic cue of UAV search for people in bright clothing (Reed-Xiaoli style: each pixel's
colour against the mean and spread of its neighbourhood): pixels whose colour lies far
outside their surroundings *and* is a saturated colour that the ground does not have (HSV
saturation ``(max - min) / max`` at least ``MIN_SATURATION`` and ``SATURATION_MARGIN`` above
the neighbourhood's: outdoor gear and clothing, not grass, rock, sand, snow or water, whose
saturations stay under 0.62 whatever the light, since shading and light scale all three
channels alike), grouped into blobs too small to be recognised (fewer than ``max_pixels``).
Grey rain streaks and white snow flakes drawn into the image are not saturated, so the
weather's precipitation gives no candidates; fog pulls colours to the grey fog and hides
spots as it hides things from the detection track. What a blob is the searcher
does not know; it only knows where it is (its pixels' depth back-projected). Nothing here
reads the simulator's ground truth: only the RGB, the depth, the camera model and the
perceived segmentation's scene classes (blobs on a tree, a rock or water are ignored).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from hazard_sim.tasks.esar.catalog import VICTIM_POSTURES

#: the smallest area a person shows from above (m^2): sitting, 0.7 x 0.6 m
PERSON_TOP_AREA = min(t.size[0] * t.size[1] for t in VICTIM_POSTURES.values())
#: pixels aimed for when coming down to look: 1.5 times the 16 of the recognition rule, a
#: margin for an off-centre view and the estimate's error
CONFIRM_PIXELS = 24
#: never come lower than this above the highest surface below (tree tops included)
MIN_CONFIRM_AGL = 12.0
WINDOW = 15                  # px: the neighbourhood a pixel is compared with
THRESHOLD = 40.0             # anomaly score (sum of squared z-scores over R, G, B)
NOISE = 10.0                 # colour units: the floor of the neighbourhood's spread
MIN_SATURATION = 0.75        # HSV saturation of a candidate pixel
SATURATION_MARGIN = 0.2      # ... above its neighbourhood's mean
SCENE_CLASSES = ("tree", "rock", "water")


def focal_px(width: int, hfov_deg: float) -> float:
    """Focal length in pixels of a pinhole camera ``width`` px wide with a horizontal field of
    view of ``hfov_deg`` degrees."""
    if width <= 0 or not 0.0 < hfov_deg < 180.0:
        raise ValueError(f"a camera needs a width > 0 and 0 < hfov < 180 deg, got {width}, {hfov_deg}")
    return (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)


def ground_sample_distance(range_m: float, focal: float) -> float:
    """Metres of ground one pixel covers, face on, from ``range_m``."""
    return range_m / focal


def pixels_covered(area_m2: float, range_m: float, focal: float) -> float:
    """Pixels a patch of ``area_m2`` covers face on from ``range_m`` (``A f^2 / r^2``)."""
    if range_m <= 0:
        raise ValueError(f"range must be > 0 m, got {range_m}")
    return area_m2 / ground_sample_distance(range_m, focal) ** 2


def range_for_pixels(area_m2: float, n_pixels: float, focal: float) -> float:
    """The range from which a patch of ``area_m2`` covers ``n_pixels`` (``f sqrt(A / n)``)."""
    if n_pixels <= 0 or area_m2 <= 0:
        raise ValueError(f"area and pixels must be > 0, got {area_m2}, {n_pixels}")
    return focal * math.sqrt(area_m2 / n_pixels)


def confirm_height(focal: float, n_pixels: float = CONFIRM_PIXELS, area_m2: float = PERSON_TOP_AREA) -> float:
    """Height above a spot from which a person there covers ``n_pixels`` in the bottom camera
    (at least ``MIN_CONFIRM_AGL``)."""
    return max(MIN_CONFIRM_AGL, range_for_pixels(area_m2, n_pixels, focal))


@dataclass(frozen=True)
class Spot:
    """A blob that stands out: its pixel count and where it is (world xyz)."""

    pixels: int
    position: tuple


def anomaly_score(rgb: np.ndarray, valid: np.ndarray, window: int = WINDOW, noise: float = NOISE) -> np.ndarray:
    """Per pixel, the sum over R, G, B of the squared distance to the neighbourhood's mean in
    units of its spread (floored at ``noise``), counting only ``valid`` neighbours; 0 where
    not valid or where the pixel is not a saturated colour standing out from its
    neighbourhood's (see the module doc: shadows, grey streaks and white flakes are not)."""
    x = rgb.astype(np.float32)
    w = valid.astype(np.float32)
    n = ndimage.uniform_filter(w, window, mode="nearest")
    n = np.maximum(n, 1e-6)
    mu = np.stack([ndimage.uniform_filter(x[..., c] * w, window, mode="nearest") for c in range(3)], -1) / n[..., None]
    m2 = np.stack([ndimage.uniform_filter(x[..., c] ** 2 * w, window, mode="nearest") for c in range(3)], -1)
    var = np.maximum(m2 / n[..., None] - mu ** 2, 0.0) + noise ** 2
    score = (((x - mu) ** 2) / var).sum(-1)
    sat = saturation(x)
    sat_mu = ndimage.uniform_filter(sat * w, window, mode="nearest") / n
    colourful = (sat >= MIN_SATURATION) & (sat >= sat_mu + SATURATION_MARGIN)
    return np.where(valid & colourful, score, 0.0)


def hot_pixels(rgb: np.ndarray, valid: np.ndarray, threshold: float = THRESHOLD, window: int = WINDOW) -> np.ndarray:
    """``anomaly_score(rgb, valid) > threshold``, computed only in boxes around the saturated
    pixels (most views have none; a box padded by the window's half size gives its pixels the
    same neighbourhood as the whole image does)."""
    seeds = valid & (saturation(rgb) >= MIN_SATURATION)
    hot = np.zeros(valid.shape, bool)
    if not seeds.any():
        return hot
    pad = window // 2 + 1
    h, w = valid.shape
    lab, _ = ndimage.label(seeds)
    for sl in ndimage.find_objects(lab):
        r0, r1 = max(0, sl[0].start - pad), min(h, sl[0].stop + pad)
        c0, c1 = max(0, sl[1].start - pad), min(w, sl[1].stop + pad)
        score = anomaly_score(rgb[r0:r1, c0:c1], valid[r0:r1, c0:c1], window)
        inner = (slice(sl[0].start - r0, sl[0].stop - r0), slice(sl[1].start - c0, sl[1].stop - c0))
        hot[sl] |= score[inner] > threshold
    return hot


def saturation(rgb: np.ndarray) -> np.ndarray:
    """HSV saturation ``(max - min) / max`` per pixel (0 for black)."""
    x = np.asarray(rgb)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    hi = np.maximum(np.maximum(r, g), b).astype(np.float32)
    lo = np.minimum(np.minimum(r, g), b).astype(np.float32)
    return np.where(hi > 0, (hi - lo) / np.maximum(hi, 1e-6), 0.0).astype(np.float32)


def salient_spots(rgb, depth, K, pose, seg=None, labels=None, max_pixels: int = 16,
                  threshold: float = THRESHOLD, max_range: float = 400.0) -> list[Spot]:
    """Blobs of anomalous colour with fewer than ``max_pixels`` pixels (smaller than what can be
    recognised), at most ``max_range`` m away, not on a perceived tree, rock or water; each
    with its world position (the median of its pixels back-projected through the depth)."""
    depth = np.asarray(depth)
    valid = np.isfinite(depth) & (depth < max_range)
    if seg is not None and labels:
        scene = [int(k) for k, v in labels.items() if v in SCENE_CLASSES]
        if scene:
            valid &= ~np.isin(seg, scene)
    if not valid.any():
        return []
    hot = hot_pixels(np.asarray(rgb), valid, threshold)
    blobs, n = ndimage.label(hot)
    if n == 0:
        return []
    sizes = np.bincount(blobs.ravel(), minlength=n + 1)
    out = []
    for b in np.nonzero((sizes > 0) & (sizes < max_pixels))[0].tolist():
        if b == 0:
            continue
        v, u = np.nonzero(blobs == b)
        z = depth[v, u]
        cam = np.stack([(u - K[0, 2]) / K[0, 0] * z, (v - K[1, 2]) / K[1, 1] * z, z], -1)
        world = cam @ np.asarray(pose)[:3, :3].T + np.asarray(pose)[:3, 3]
        out.append(Spot(int(sizes[b]), tuple(float(c) for c in np.median(world, axis=0))))
    return out
