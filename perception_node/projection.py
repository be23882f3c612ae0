"""2-D detection -> 3-D position and box in the map frame (ROS-free).

Conventions: depth is z-depth in metres along the optical axis (REP 118, 32FC1; inf or
NaN or <= 0 where nothing was measured); ``K`` is the 3x3 pinhole matrix; a pose
``T_map_cam`` is the 4x4 map-from-optical-frame transform (optical: x right, y down,
z forward). Pixel centres sit at integer coordinates (see :mod:`.detectors`).

Also here: the two frame-bookkeeping helpers the nodes need and ROS 2 on pip lacks
(no tf2_ros, no message_filters): :class:`TfBuffer`, a small transform tree with time
interpolation, and :class:`StampSync`, an exact-stamp synchroniser. Both are plain
Python (stamps are float seconds or integer nanoseconds), so they are unit-tested
without a ROS context.
"""
from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from perception_node.detectors import Detection


# ====================================================================== basic maths
def scaled_K(K: np.ndarray, step: int) -> np.ndarray:
    """Intrinsics of an image subsampled as ``img[::step, ::step]`` (pixel centres at integers)."""
    K2 = np.array(K, float, copy=True)
    K2[:2] /= float(step)
    return K2


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


def detection_depth_samples(det: Detection, depth: np.ndarray, core: float = 0.5):
    """Pixel coordinates ``(u, v)`` and depths of the pixels that belong to ``det``: its
    mask when it has one, else the central ``core`` fraction of its box (the rim of a
    detector's box is mostly background). Only valid depths are returned."""
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


def backproject_detections(dets: list[Detection], depth, K, T_map_cam, **kw) -> list[Projected | None]:
    return [backproject_detection(d, depth, K, T_map_cam, **kw) for d in dets]


# ====================================================================== TF buffer
def quat_to_matrix(q) -> np.ndarray:
    """3x3 rotation from a quaternion (x, y, z, w); normalises it."""
    x, y, z, w = (float(a) for a in q)
    n = x * x + y * y + z * z + w * w
    if n < 1e-12:
        raise ValueError("zero-length quaternion")
    s = 2.0 / n
    return np.array([
        [1 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1 - s * (x * x + y * y)]])


def matrix_from_tq(t, q) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = quat_to_matrix(q)
    T[:3, 3] = np.asarray(t, float)
    return T


def _slerp(q0: np.ndarray, q1: np.ndarray, a: float) -> np.ndarray:
    q0, q1 = q0 / np.linalg.norm(q0), q1 / np.linalg.norm(q1)
    d = float(np.dot(q0, q1))
    if d < 0:
        q1, d = -q1, -d
    if d > 0.9995:
        q = q0 + a * (q1 - q0)
        return q / np.linalg.norm(q)
    th = np.arccos(d)
    return (np.sin((1 - a) * th) * q0 + np.sin(a * th) * q1) / np.sin(th)


class TfBuffer:
    """A transform tree (child -> parent edges) with a short history per dynamic edge.

    ``set(parent, child, stamp, t, q)`` adds a transform (stamp in seconds; ``t`` the
    child origin in the parent frame, ``q`` = (x, y, z, w)); ``lookup(target, source,
    stamp)`` returns the 4x4 ``T_target_source`` (maps source-frame points into target),
    interpolating dynamic edges in time (linear / slerp). ``stamp=None`` means latest.
    No extrapolation: a stamp newer than an edge's newest sample (beyond
    ``tolerance``) raises :class:`TfLookupError`, so callers can wait for TF.
    """

    def __init__(self, cache_s: float = 10.0, tolerance: float = 1e-6):
        self.cache_s = float(cache_s)
        self.tolerance = float(tolerance)
        self._parent: dict[str, str] = {}
        self._static: dict[str, np.ndarray] = {}
        self._times: dict[str, list[float]] = {}
        self._tq: dict[str, list[np.ndarray]] = {}

    def frames(self) -> set[str]:
        return set(self._parent) | set(self._parent.values())

    def set(self, parent: str, child: str, stamp: float, t, q, static: bool = False) -> None:
        parent, child = parent.lstrip("/"), child.lstrip("/")
        if not parent or not child or parent == child:
            raise ValueError(f"bad transform {parent!r} -> {child!r}")
        self._parent[child] = parent
        if static:
            self._static[child] = matrix_from_tq(t, q)
            self._times.pop(child, None)
            self._tq.pop(child, None)
            return
        self._static.pop(child, None)
        times = self._times.setdefault(child, [])
        tqs = self._tq.setdefault(child, [])
        row = np.concatenate([np.asarray(t, float), np.asarray(q, float)])
        k = bisect.bisect_left(times, stamp)
        if k < len(times) and abs(times[k] - stamp) <= 1e-12:
            tqs[k] = row
        else:
            times.insert(k, float(stamp))
            tqs.insert(k, row)
        cut = bisect.bisect_left(times, times[-1] - self.cache_s)
        if cut > 0:
            del times[:cut], tqs[:cut]

    def set_matrix(self, parent: str, child: str, stamp: float, T: np.ndarray, static: bool = False):
        from scipy.spatial.transform import Rotation
        T = np.asarray(T, float)
        self.set(parent, child, stamp, T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat(), static)

    # ------------------------------------------------------------------ lookup
    def _edge(self, child: str, stamp: float | None) -> np.ndarray:
        if child in self._static:
            return self._static[child]
        times, tqs = self._times[child], self._tq[child]
        if stamp is None:
            row = tqs[-1]
        else:
            if stamp > times[-1] + self.tolerance:
                raise TfLookupError(f"no transform {self._parent[child]} -> {child} at t={stamp:.3f} "
                                    f"yet (newest {times[-1]:.3f})", waiting=True)
            if stamp < times[0] - self.tolerance:
                raise TfLookupError(f"transform {self._parent[child]} -> {child} at t={stamp:.3f} "
                                    f"is older than the buffer (oldest {times[0]:.3f})")
            k = min(bisect.bisect_left(times, stamp - self.tolerance), len(times) - 1)
            if times[k] <= stamp + self.tolerance or k == 0:
                row = tqs[k]
            else:                                   # times[k-1] < stamp < times[k]
                t0, t1 = times[k - 1], times[k]
                a = (stamp - t0) / (t1 - t0)
                r0, r1 = tqs[k - 1], tqs[k]
                row = np.concatenate([(1 - a) * r0[:3] + a * r1[:3], _slerp(r0[3:], r1[3:], a)])
        return matrix_from_tq(row[:3], row[3:])

    def _chain(self, frame: str) -> list[str]:
        chain = [frame]
        while chain[-1] in self._parent:
            chain.append(self._parent[chain[-1]])
            if len(chain) > 64:
                raise TfLookupError(f"TF loop above frame {frame!r}")
        return chain

    def _to_ancestor(self, chain: list[str], upto: str, stamp) -> np.ndarray:
        T = np.eye(4)
        for child in chain:
            if child == upto:
                break
            T = self._edge(child, stamp) @ T
        return T

    def lookup(self, target: str, source: str, stamp: float | None = None) -> np.ndarray:
        target, source = target.lstrip("/"), source.lstrip("/")
        if target == source:
            return np.eye(4)
        known = self.frames()
        for f in (target, source):
            if f not in known:
                raise TfLookupError(f"frame {f!r} is not in the TF tree "
                                    f"(known: {', '.join(sorted(known)) or 'none'})", waiting=True)
        ct, cs = self._chain(target), self._chain(source)
        common = next((f for f in cs if f in set(ct)), None)
        if common is None:
            raise TfLookupError(f"frames {target!r} and {source!r} are not connected", waiting=True)
        T_common_source = self._to_ancestor(cs, common, stamp)
        T_common_target = self._to_ancestor(ct, common, stamp)
        return np.linalg.inv(T_common_target) @ T_common_source

    def can_transform(self, target: str, source: str, stamp: float | None = None) -> bool:
        try:
            self.lookup(target, source, stamp)
            return True
        except TfLookupError:
            return False


class TfLookupError(LookupError):
    """A transform is not (yet) available; ``waiting`` is True when later data may bring it."""

    def __init__(self, message: str, waiting: bool = False):
        super().__init__(message)
        self.waiting = waiting


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
