"""2-D detection -> 3-D position and box in the map frame (ROS-free).

Conventions: depth is z-depth in metres along the optical axis (REP 118, 32FC1; inf or
NaN or <= 0 where nothing was measured); ``K`` is the 3x3 pinhole matrix; a pose
``T_map_cam`` is the 4x4 map-from-optical-frame transform (optical: x right, y down,
z forward). Pixel centres sit at integer coordinates (see :mod:`.detectors`).

Also here: :class:`StampSync`, the exact-stamp synchroniser the nodes need (ROS 2 on
pip has no message_filters); plain Python over integer-nanosecond stamps, unit-tested
without a ROS context. Transforms come from :class:`hazard_ros.tf_math.TfBuffer`.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from hazard_sim.intrinsics import scaled_K  # noqa: F401 (the one copy; re-exported for the nodes)
from perception_node.detectors import Detection


# ====================================================================== basic maths
def transform_points(T: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 4x4 transform to (..., 3) points."""
    T = np.asarray(T, float)
    return np.asarray(points, float) @ T[:3, :3].T + T[:3, 3]


def project_points(points_map: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray):
    """Pixel coordinates (N, 2) ``(u, v)`` and z-depth (N,) of map-frame points."""
    T = np.asarray(T_map_cam, float)
    cam = (np.asarray(points_map, float).reshape(-1, 3) - T[:3, 3]) @ T[:3, :3]   # inverse
    z = cam[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = K[0, 0] * cam[:, 0] / z + K[0, 2]
        v = K[1, 1] * cam[:, 1] / z + K[1, 2]
    return np.stack([u, v], axis=-1), z


def valid_depth(z: np.ndarray) -> np.ndarray:
    return np.isfinite(z) & (z > 0)


# ======================================================================= projection
@dataclass
class Projected:
    """A detection placed in 3-D.

    ``center`` (map, m) is the estimated centre of the object's volume: the visible
    surface pushed back by half the estimated thickness; ``size`` (m) the extents of the
    map-axis-aligned box around the estimated camera-aligned box; ``surface`` the median
    of the visible surface points (map); ``depth`` the robust median z-depth (m);
    ``n_points`` how many depth pixels support it.
    """

    center: np.ndarray
    size: np.ndarray
    surface: np.ndarray
    depth: float
    n_points: int


def detection_depth_samples(det: Detection, depth: np.ndarray, core: float = 0.5,
                            max_samples: int = 4096):
    """Pixel coordinates ``(u, v)`` and depths of the pixels that belong to ``det``: its
    mask when it has one, else the central ``core`` fraction of its box (the rim of a
    detector's box is mostly background). Only valid depths are returned; large regions
    are thinned to about ``max_samples`` pixels on a regular stride (deterministic)."""
    h, w = depth.shape[:2]
    x0, y0, x1, y1 = det.pixel_box((h, w))
    if x1 <= x0 or y1 <= y0:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0, float)
    if det.mask is not None:
        bx0, by0, _, _ = det.pixel_box()
        m = np.asarray(det.mask, bool)[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0]
        vv, uu = np.nonzero(m)
        uu, vv = uu + x0, vv + y0
    else:
        bw, bh = x1 - x0, y1 - y0
        mx, my = int(round(bw * (1 - core) / 2)), int(round(bh * (1 - core) / 2))
        xs = np.arange(x0 + mx, max(x1 - mx, x0 + mx + 1))
        ys = np.arange(y0 + my, max(y1 - my, y0 + my + 1))
        uu, vv = (a.ravel() for a in np.meshgrid(xs, ys))
    if max_samples and uu.size > max_samples:
        k = int(np.ceil(uu.size / max_samples))
        uu, vv = uu[::k], vv[::k]
    z = depth[vv, uu].astype(float)
    ok = valid_depth(z)
    return uu[ok], vv[ok], z[ok]


def backproject_detection(det: Detection, depth: np.ndarray, K: np.ndarray, T_map_cam: np.ndarray,
                          min_points: int = 3, min_band: float = 0.25) -> Projected | None:
    """Place a 2-D detection in the map frame; None without enough valid depth.

    Depth: median over the detection's pixels, keeping inliers within
    ``max(min_band, 3 * 1.4826 * MAD)`` of it (robust to background in the box and to
    holes). Size: lateral extents from the mask's inlier points (box width / height at
    the median depth for mask-less detections); thickness along the view axis is the
    larger of the measured depth spread and the smaller lateral side (a camera sees only
    the front of an object).
    """
    K = np.asarray(K, float)
    uu, vv, z = detection_depth_samples(det, depth)
    if z.size < max(1, min_points):
        return None
    zm = float(np.median(z))
    mad = float(np.median(np.abs(z - zm)))
    keep = np.abs(z - zm) <= max(min_band, 3.0 * 1.4826 * mad)
    uu, vv, z = uu[keep], vv[keep], z[keep]
    fx, fy, cx, cy = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    x = (uu - cx) / fx * z
    y = (vv - cy) / fy * z
    pts = np.stack([x, y, z], axis=-1)
    if det.mask is not None and len(pts) >= 2:
        lo, hi = np.percentile(pts, [2, 98], axis=0)
        pix = zm / fx                              # footprint of one pixel at that depth
        sx, sy = hi[0] - lo[0] + pix, hi[1] - lo[1] + pix
        mid_x, mid_y = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
    else:
        lo, hi = np.percentile(pts, [2, 98], axis=0)
        sx, sy = det.w * zm / fx, det.h * zm / fy
        mid_x, mid_y = (det.cx - cx) / fx * zm, (det.cy - cy) / fy * zm
    thick = max(float(hi[2] - lo[2]), min(sx, sy))
    center_cam = np.array([mid_x, mid_y, lo[2] + thick / 2.0])
    T = np.asarray(T_map_cam, float)
    size_cam = np.array([sx, sy, thick])
    return Projected(center=transform_points(T, center_cam),
                     size=np.abs(T[:3, :3]) @ size_cam,
                     surface=transform_points(T, np.median(pts, axis=0)),
                     depth=zm, n_points=int(len(pts)))


# =============================================================== stamp synchroniser
class StampSync:
    """Groups messages of several streams that carry exactly the same stamp.

    ``add(key, stamp, item)`` returns ``{key: item, ...}`` once every key has an item for
    that stamp, else None. When a group completes, older incomplete groups are dropped
    (frames are processed in order); at most ``max_pending`` incomplete groups are kept.
    ``dropped`` counts the groups thrown away.
    """

    def __init__(self, keys, max_pending: int = 10):
        self.keys = frozenset(keys)
        self.max_pending = int(max_pending)
        self._groups: OrderedDict = OrderedDict()
        self.dropped = 0
        self.last_stamp = None

    def set_keys(self, keys) -> None:
        self.keys = frozenset(keys)
        self._groups.clear()

    def add(self, key, stamp, item) -> dict | None:
        if key not in self.keys:
            return None
        if self.last_stamp is not None and stamp <= self.last_stamp:
            return None                              # that frame was already completed / skipped
        group = self._groups.get(stamp)
        if group is None:
            group = self._groups[stamp] = {}
            self._groups = OrderedDict(sorted(self._groups.items(), key=lambda kv: kv[0]))
            while len(self._groups) > self.max_pending:
                self._groups.popitem(last=False)
                self.dropped += 1
            if stamp not in self._groups:            # older than everything kept
                return None
        group[key] = item
        if not self.keys.issubset(group):
            return None
        for s in list(self._groups):
            if s < stamp:
                del self._groups[s]
                self.dropped += 1
        del self._groups[stamp]
        self.last_stamp = stamp
        return group

    def pending(self) -> int:
        return len(self._groups)


# ================================================================ TF wait queue
class TfWaitQueue:
    """Frames waiting for the transform at their stamp, processed in stamp order.

    ``push(stamp_ns, payload, now)`` queues a frame (``now``: a monotonic wall time in s).
    ``pop_ready(lookup, now)`` returns ``(stamp_ns, payload, T, note)`` for every frame
    that can go: ``lookup(stamp_ns, payload)`` gives the transform (raising ``LookupError``
    while it is not there yet); after ``timeout_s`` a frame takes the latest transform
    (``lookup(None, payload)``, note ``"latest"``) or, when there is none, leaves with ``T=None``
    and the error text as note. Frames behind a waiting one wait too (order is kept).
    ``hold(payload)`` True keeps the head frame waiting without a timeout (e.g. while a
    node has no map bounds yet). Beyond ``max_len`` the oldest frames leave with
    ``T=None`` and note ``"dropped"``.
    """

    def __init__(self, timeout_s: float = 1.0, max_len: int = 10):
        self.timeout_s = float(timeout_s)
        self.max_len = int(max_len)
        self._jobs: list[tuple[int, object, float]] = []

    def __len__(self) -> int:
        return len(self._jobs)

    def push(self, stamp_ns: int, payload, now: float) -> None:
        self._jobs.append((int(stamp_ns), payload, float(now)))
        self._jobs.sort(key=lambda j: j[0])

    def pop_ready(self, lookup, now: float, hold=None) -> list:
        out = []
        while len(self._jobs) > self.max_len:
            s, p, _ = self._jobs.pop(0)
            out.append((s, p, None, "dropped"))
        while self._jobs:
            stamp, payload, t0 = self._jobs[0]
            if hold is not None and hold(payload):
                break
            try:
                T, note = lookup(stamp, payload), "exact"
            except LookupError as exc:
                if now - t0 < self.timeout_s:
                    break
                try:
                    T, note = lookup(None, payload), "latest"
                except LookupError:
                    T, note = None, str(exc)
            self._jobs.pop(0)
            out.append((stamp, payload, T, note))
        return out
