"""What every perception backend returns, and the geometry shared by all of them (ROS-free).

An :class:`Instance` is one thing a backend saw in one camera frame: a class name, a score, a
box (pixel centres at integer coordinates, as :mod:`hazard_sim.render.camera`), optionally a
mask over the box, and, once :func:`locate` has run with depth and the camera model, a 3-D
position and extent in the camera pose's frame (the world, embedded; the map, in ROS).

* :func:`as_rgb_uint8`: the one image check of the RGB backends: ``(H, W, 3)`` or ``(H, W, 4)``
  (rgba8; alpha dropped), ``uint8`` or float in 0..1 (scaled to 0..255); anything else is
  refused with a message saying what was given.
* :func:`mask_from_depth`: a mask for box-only detections (YOLO / ONNX boxes): the pixels of
  the box whose depth lies within a band around the object's depth.
* :func:`keep_seen`: the minimum-size rule (an instance counts as seen only with at least
  ``min_pixels`` mask pixels, or box pixels for a mask-less one).
* :func:`locate`: 3-D position (median of the mask's back-projected points) and extent (2nd
  to 98th percentile span) from depth.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from hazard_sim.perception.errors import DetectorInputError

#: depth band of :func:`mask_from_depth`: at least this many metres either side of the
#: object's depth, or half its smaller lateral size at that depth when that is more
MIN_DEPTH_BAND_M = 0.15


@dataclass
class Instance:
    """One detected instance.

    ``label`` is the class name (vision_msgs ``class_id``); ``cx, cy, w, h`` the box in pixels
    (centre and size, pixel centres at integers: a box over columns ``j0 .. j1-1`` has
    ``cx = (j0 + j1 - 1) / 2`` and ``w = j1 - j0``); ``instance_id`` the simulator's instance
    id for ground truth, else None; ``mask`` (optional) a bool array of shape
    ``(y1 - y0, x1 - x0)`` over :meth:`pixel_box`; ``mask_from`` says where the mask came from
    (``segmentation``, ``model`` or ``depth``); ``position`` / ``extent`` (3,) after
    :func:`locate`.
    """

    label: str
    score: float
    cx: float
    cy: float
    w: float
    h: float
    instance_id: int | None = None
    mask: np.ndarray | None = None
    mask_from: str = ""
    position: np.ndarray | None = None
    extent: np.ndarray | None = None

    def pixel_box(self, shape: tuple[int, int] | None = None) -> tuple[int, int, int, int]:
        """Half-open integer pixel box ``(x0, y0, x1, y1)`` of the pixels whose centres lie
        in the box, clipped to an image of ``shape`` (H, W) when given."""
        x0 = math.ceil(self.cx - self.w / 2.0 - 1e-9)
        x1 = math.floor(self.cx + self.w / 2.0 + 1e-9) + 1
        y0 = math.ceil(self.cy - self.h / 2.0 - 1e-9)
        y1 = math.floor(self.cy + self.h / 2.0 + 1e-9) + 1
        if shape is not None:
            hh, ww = shape[:2]
            x0, x1 = max(0, min(x0, ww)), max(0, min(x1, ww))
            y0, y1 = max(0, min(y0, hh)), max(0, min(y1, hh))
        return x0, y0, x1, y1

    def full_mask(self, shape: tuple[int, int]) -> np.ndarray:
        """The mask as an (H, W) bool image (the whole box when there is no mask)."""
        out = np.zeros(shape[:2], bool)
        x0, y0, x1, y1 = self.pixel_box(shape)
        if x1 <= x0 or y1 <= y0:
            return out
        if self.mask is None:
            out[y0:y1, x0:x1] = True
        else:
            bx0, by0, _, _ = self.pixel_box()
            out[y0:y1, x0:x1] = np.asarray(self.mask, bool)[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0]
        return out

    def n_pixels(self, shape: tuple[int, int] | None = None) -> int:
        """Pixels of the mask (of the box when there is no mask), inside ``shape`` if given."""
        if shape is not None:
            return int(self.full_mask(shape).sum())
        if self.mask is not None:
            return int(np.count_nonzero(self.mask))
        x0, y0, x1, y1 = self.pixel_box()
        return max(0, x1 - x0) * max(0, y1 - y0)


#: the most distinct class names a detector takes (a longer list is refused at once, so that no
#: message can keep a node busy: issue 18)
MAX_CLASSES = 10_000


def clean_classes(classes: Iterable[str] | None) -> list[str] | None:
    """A class list without blanks and repeats, order kept (linear time, stopping as soon as
    more than :data:`MAX_CLASSES` distinct names are seen); None stays None."""
    if classes is None:
        return None
    if isinstance(classes, str):
        raise DetectorInputError(f"classes must be a list of names, got the string {classes!r}")
    out: dict[str, None] = {}
    for c in classes:
        if not isinstance(c, str):
            raise DetectorInputError(f"class names must be strings, got {c!r}")
        c = c.strip()
        if c:
            out.setdefault(c, None)
            if len(out) > MAX_CLASSES:
                raise DetectorInputError(f"more than {MAX_CLASSES} class names (distinct): refused")
    return list(out)


def as_rgb_uint8(rgb, who: str = "detector") -> np.ndarray:
    """``(H, W, 3)`` uint8 RGB from rgb8 / rgba8 (alpha dropped) / a float image in 0..1."""
    if rgb is None:
        raise DetectorInputError(f"{who} needs an RGB image")
    img = np.asarray(rgb)
    if img.ndim != 3 or img.shape[2] not in (3, 4) or img.shape[0] == 0 or img.shape[1] == 0:
        raise DetectorInputError(f"{who}: expected an (H, W, 3) RGB or (H, W, 4) RGBA image, got shape {img.shape}")
    if img.shape[2] == 4:
        img = img[..., :3]
    if img.dtype == np.uint8:
        return img
    if np.issubdtype(img.dtype, np.floating):
        finite = bool(np.isfinite(img).all())
        lo, hi = (float(img.min()), float(img.max())) if finite else (float("nan"), float("nan"))
        if not finite or lo < 0.0 or hi > 1.0:
            raise DetectorInputError(
                f"{who}: a float image must hold values in 0..1 (read as 0..255 after scaling), got "
                + (f"{img.dtype} with NaN/inf" if not finite else f"{img.dtype} in [{lo:g}, {hi:g}]")
                + "; give a uint8 image for 0..255 values")
        return np.rint(img * 255.0).astype(np.uint8)
    raise DetectorInputError(f"{who}: image dtype {img.dtype} not supported: give uint8 (rgb8 / rgba8) "
                             f"or float in 0..1")


def mask_from_depth(inst: Instance, depth: np.ndarray, fx: float, core: float = 0.5,
                    min_band: float = MIN_DEPTH_BAND_M) -> np.ndarray | None:
    """Mask (over ``inst.pixel_box()``) of a box-only instance: the box's pixels whose depth
    is within ``band`` of the object's depth ``z0``, the median depth of the box's central
    ``core`` fraction (a box's rim is mostly background); ``band = max(min_band, 0.5 *
    min(w, h) * z0 / fx)`` (objects are about as deep as they are wide). None when the box
    has no valid depth."""
    depth = np.asarray(depth)
    x0, y0, x1, y1 = inst.pixel_box(depth.shape)
    if x1 <= x0 or y1 <= y0:
        return None
    win = depth[y0:y1, x0:x1].astype(np.float64)
    ok = np.isfinite(win) & (win > 0)
    bh, bw = win.shape
    mx, my = int(round(bw * (1 - core) / 2)), int(round(bh * (1 - core) / 2))
    centre = win[my:max(bh - my, my + 1), mx:max(bw - mx, mx + 1)]
    cz = centre[np.isfinite(centre) & (centre > 0)]
    if cz.size == 0:
        cz = win[ok]
    if cz.size == 0:
        return None
    z0 = float(np.median(cz))
    band = max(float(min_band), 0.5 * min(inst.w, inst.h) * z0 / float(fx))
    clipped = ok & (np.abs(np.where(ok, win, z0) - z0) <= band)
    bx0, by0, bx1, by1 = inst.pixel_box()
    full = np.zeros((by1 - by0, bx1 - bx0), bool)          # over the unclipped box, as Instance.mask
    full[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0] = clipped
    return full


def keep_seen(instances: list[Instance], min_pixels: int, shape: tuple[int, int] | None = None) -> list[Instance]:
    """The minimum-size rule: instances with at least ``min_pixels`` pixels (mask, or box)."""
    if min_pixels <= 1:
        return [i for i in instances if i.n_pixels(shape) >= max(0, min_pixels)]
    return [i for i in instances if i.n_pixels(shape) >= min_pixels]


def locate(inst: Instance, depth: np.ndarray, K: np.ndarray, pose: np.ndarray | None = None) -> bool:
    """Set ``inst.position`` (median of the mask's back-projected points; the box's central
    half without a mask) and ``inst.extent`` (2nd..98th percentile span per axis) in the
    frame of ``pose`` (4x4, frame-from-optical; identity: the camera's optical frame).
    Returns False (leaving them None) when no pixel has a valid depth."""
    depth = np.asarray(depth)
    m = inst.full_mask(depth.shape)
    if inst.mask is None:
        x0, y0, x1, y1 = inst.pixel_box(depth.shape)
        core = np.zeros_like(m)
        qx, qy = (x1 - x0) // 4, (y1 - y0) // 4
        core[y0 + qy:max(y1 - qy, y0 + qy + 1), x0 + qx:max(x1 - qx, x0 + qx + 1)] = True
        m &= core
    v, u = np.nonzero(m)
    z = depth[v, u].astype(np.float64)
    ok = np.isfinite(z) & (z > 0)
    if not ok.any():
        return False
    u, v, z = u[ok], v[ok], z[ok]
    K = np.asarray(K, float)
    pts = np.stack([(u - K[0, 2]) / K[0, 0] * z, (v - K[1, 2]) / K[1, 1] * z, z], axis=-1)
    if pose is not None:
        T = np.asarray(pose, float)
        pts = pts @ T[:3, :3].T + T[:3, 3]
    inst.position = np.median(pts, axis=0)
    lo, hi = np.percentile(pts, [2, 98], axis=0)
    inst.extent = hi - lo
    return True


def rasterize(instances: list[Instance], shape: tuple[int, int], ids: list[int]) -> np.ndarray:
    """An instance-id image (int32, 0 = nothing) painting each instance's mask with its id
    from ``ids``; where masks overlap, the higher score wins (ties: the earlier instance)."""
    out = np.zeros(shape[:2], np.int32)
    order = sorted(range(len(instances)), key=lambda k: (instances[k].score, -k))
    for k in order:                                   # lowest first: the best is painted last
        out[instances[k].full_mask(shape)] = ids[k]
    return out
