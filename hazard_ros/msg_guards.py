"""One place that checks what a node receives, before any of it reaches its state.

Every subscription and service callback of the nodes starts by asking a :class:`Guard`
whether the message is usable; a message that is not is dropped with a warning naming the
topic and the reason (at most one warning per topic every few seconds, with the count of
the messages dropped since), and the node goes on. Nothing here raises past the guard:
the checks raise :class:`Rejected` (a ValueError), which :meth:`Guard.accept` turns into
``False`` plus the throttled warning.

What is checked:

* headers: ``nanosec`` below 1e9, stamps not beyond the node's clock by more than
  :data:`FUTURE_TOLERANCE_S` (when the clock runs), frame ids that are printable;
* numbers: finite, and within :data:`MAX_COORD` metres for positions;
* quaternions: finite and of a usable norm;
* images / camera info / occupancy grids / label info: sizes that agree with the data and
  stay below :data:`MAX_PIXELS` / :data:`MAX_CELLS`, a known encoding, a calibrated K;
* detections: each detection's centre, size and score finite (bad ones are left out of
  the array, the rest kept), at most :data:`MAX_DETECTIONS`;
* odometry and dynamic TF (:class:`PoseStreamGuard`): finite, not future-stamped, not
  stale, no jump beyond ``max_speed * dt + margin`` from the last accepted pose; a new
  track (an episode reset, a teleport) is adopted once :data:`ADOPT_AFTER` rejected poses
  agree with each other, so one bad message never poisons the pose and a
  real change is not locked out for ever;
* JSON topics (``task``, ``episode/status``, ``episode/metrics``): a JSON object, each
  known field of the type and range its consumers need (:data:`TASK_FIELDS`,
  :data:`STATUS_FIELDS`); the rejection names every bad field.
"""
from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable

from hazard_sim.core.embodiment import MAX_ANGULAR_COMMAND, MAX_LINEAR_COMMAND

FUTURE_TOLERANCE_S = 1.0        # a stamp may run ahead of the node's clock by this (topics are not ordered)
STALE_TOLERANCE_S = 2.0         # ... and lag the newest accepted pose of its stream by this
MAX_GAP_S = 120.0               # ... and lead it by this (the check while the clock is not running yet)
MAX_SPEED = 20.0                # m/s: faster than any body of the three benchmarks
JUMP_MARGIN = 1.0               # m added to max_speed * dt
ADOPT_AFTER = 3                 # self-consistent rejected poses that make a new track
MAX_TRACKS = 8                  # candidate tracks kept
MAX_COORD = 1.0e5               # m: positions beyond are not a robot's
MAX_PIXELS = 4096 * 4096
MAX_CELLS = 20_000 * 20_000
MAX_DETECTIONS = 1000
MAX_TRANSFORMS = 1000
MAX_JSON_BYTES = 4_000_000
MAX_FRAME_ID = 256
WARN_PERIOD_S = 5.0

# encoding -> bytes per pixel: the encodings hazard_ros.conversions decodes (that module needs
# the ROS message packages; this one only the standard library, so the launcher can use it)
IMAGE_BYTES_PER_PIXEL = {"rgb8": 3, "bgr8": 3, "rgba8": 4, "bgra8": 4, "mono8": 1, "8UC1": 1,
                         "mono16": 2, "16UC1": 2, "32FC1": 4, "32SC1": 4, "64FC1": 8}


class Rejected(ValueError):
    """A message that a node must not use; the text says why."""


# ============================================================================ scalars
def finite(name: str, value, limit: float | None = None) -> float:
    """``value`` as a finite float (within +-``limit`` when given), else :class:`Rejected`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Rejected(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise Rejected(f"{name} is not finite ({v})")
    if limit is not None and abs(v) > limit:
        raise Rejected(f"{name} = {v:g} is beyond +-{limit:g}")
    return v


def stamp_ns(stamp) -> int:
    """Nanoseconds of a builtin_interfaces/Time, checked (nanosec < 1e9, sec >= 0)."""
    sec, nsec = int(stamp.sec), int(stamp.nanosec)
    if not 0 <= nsec < 1_000_000_000:
        raise Rejected(f"stamp nanosec {nsec} is not in [0, 1e9)")
    if sec < 0:
        raise Rejected(f"stamp sec {sec} is negative")
    return sec * 1_000_000_000 + nsec


def frame_id(name: str, text: str) -> str:
    if len(text) > MAX_FRAME_ID or not text.isprintable():
        raise Rejected(f"{name} {text[:40]!r} is not a frame id (printable, at most {MAX_FRAME_ID} characters)")
    return text


def future_limit(now_ns: int | None) -> float:
    """The latest acceptable stamp (ns) at clock ``now_ns``: the clock plus
    :data:`FUTURE_TOLERANCE_S`; while a sim-time clock still reads 0 (no /clock yet) the
    wider :data:`MAX_GAP_S` (a late joiner's first latched messages); None: no clock."""
    if now_ns is None:
        return math.inf
    return now_ns + (FUTURE_TOLERANCE_S if now_ns > 0 else MAX_GAP_S) * 1e9


def check_future(ns: int, now_ns: int | None, what: str) -> None:
    if ns > future_limit(now_ns):
        raise Rejected(f"{what} stamp {ns * 1e-9:.3f} s is in the future (clock at {now_ns * 1e-9:.3f} s)")


def check_header(header, now_ns: int | None = None, what: str = "header") -> int:
    """Stamp (ns) of a checked std_msgs/Header; future stamps beyond the tolerance rejected."""
    frame_id(f"{what}.frame_id", header.frame_id)
    ns = stamp_ns(header.stamp)
    check_future(ns, now_ns, what)
    return ns


def check_position(name: str, p) -> tuple[float, float, float]:
    return tuple(finite(f"{name}.{k}", getattr(p, k), MAX_COORD) for k in "xyz")


def check_quaternion(name: str, q) -> tuple[float, float, float, float]:
    v = tuple(finite(f"{name}.{k}", getattr(q, k)) for k in "xyzw")
    n = math.sqrt(sum(c * c for c in v))
    if not 0.5 < n < 2.0:
        raise Rejected(f"{name} has norm {n:g}; a rotation quaternion has norm 1")
    return v


def check_pose(name: str, pose) -> tuple[float, float, float]:
    """Position of a checked geometry_msgs/Pose."""
    check_quaternion(f"{name}.orientation", pose.orientation)
    return check_position(f"{name}.position", pose.position)


def check_transform(name: str, t) -> tuple[float, float, float]:
    """Translation of a checked geometry_msgs/Transform."""
    check_quaternion(f"{name}.rotation", t.rotation)
    return check_position(f"{name}.translation", t.translation)


# ============================================================================ sensor messages
def check_image(msg, now_ns: int | None = None) -> int:
    """Stamp of a sensor_msgs/Image whose sizes, encoding and data agree."""
    ns = check_header(msg.header, now_ns, "image header")
    bpp = IMAGE_BYTES_PER_PIXEL.get(msg.encoding)
    if bpp is None:
        raise Rejected(f"image encoding {msg.encoding[:40]!r} is not one of {sorted(IMAGE_BYTES_PER_PIXEL)}")
    w, h, step = int(msg.width), int(msg.height), int(msg.step)
    if w <= 0 or h <= 0 or w * h > MAX_PIXELS:
        raise Rejected(f"image size {w} x {h} is not in 1 .. {MAX_PIXELS} pixels")
    if step < w * bpp or len(msg.data) != step * h:
        raise Rejected(f"image data ({len(msg.data)} bytes, step {step}) does not fit {w} x {h} {msg.encoding}")
    return ns


def check_camera_info(msg, now_ns: int | None = None) -> int:
    ns = check_header(msg.header, now_ns, "camera_info header")
    k = [finite(f"K[{i}]", float(v)) for i, v in enumerate(msg.k)]
    if len(k) != 9 or k[0] <= 0 or k[4] <= 0 or k[8] == 0:
        raise Rejected(f"camera_info K {k} is not a calibrated pinhole (fx, fy > 0)")
    w, h = int(msg.width), int(msg.height)
    if w <= 0 or h <= 0 or w * h > MAX_PIXELS:
        raise Rejected(f"camera_info size {w} x {h} is not in 1 .. {MAX_PIXELS} pixels")
    return ns


def check_occupancy_grid(msg, now_ns: int | None = None) -> int:
    ns = check_header(msg.header, now_ns, "map header")
    info = msg.info
    w, h = int(info.width), int(info.height)
    if w <= 0 or h <= 0 or w * h > MAX_CELLS:
        raise Rejected(f"map size {w} x {h} is not in 1 .. {MAX_CELLS} cells")
    if len(msg.data) != w * h:
        raise Rejected(f"map has {len(msg.data)} cells for {w} x {h}")
    res = finite("map resolution", float(info.resolution))
    if not 1e-4 <= res <= 100.0:
        raise Rejected(f"map resolution {res:g} m is not in [1e-4, 100]")
    check_pose("map origin", info.origin)
    return ns


def check_label_info(msg) -> None:
    if len(msg.class_map) > 65536:
        raise Rejected(f"label_info has {len(msg.class_map)} classes (at most 65536)")
    for c in msg.class_map:
        if not c.class_name.isprintable() or len(c.class_name) > 256:
            raise Rejected(f"label_info class {c.class_id} has a bad name {c.class_name[:40]!r}")


def good_detections(msg, now_ns: int | None = None) -> tuple[list, list[str]]:
    """The usable detections of a vision_msgs/Detection3DArray and the reasons for the others
    (NaN / inf / huge centres or sizes, bad scores, no hypothesis); the header is checked
    first (a bad header rejects the whole array)."""
    check_header(msg.header, now_ns, "detections header")
    if len(msg.detections) > MAX_DETECTIONS:
        raise Rejected(f"{len(msg.detections)} detections in one message (at most {MAX_DETECTIONS})")
    good, bad = [], []
    for i, d in enumerate(msg.detections):
        try:
            if not d.results:
                raise Rejected("no hypothesis")
            check_pose("bbox.center", d.bbox.center)
            size = [finite(f"bbox.size.{k}", getattr(d.bbox.size, k), MAX_COORD) for k in "xyz"]
            if min(size) < 0:
                raise Rejected(f"bbox.size {size} is negative")
            score = finite("score", d.results[0].hypothesis.score)
            if not 0.0 <= score <= 1.0:
                raise Rejected(f"score {score:g} is not in [0, 1]")
            if len(d.id) > 64 or len(d.results[0].hypothesis.class_id) > 256:
                raise Rejected("id or class_id too long")
        except Rejected as exc:
            bad.append(f"detection {i}: {exc}")
            continue
        good.append(d)
    return good, bad


def check_twist(msg, max_linear: float = MAX_LINEAR_COMMAND,
                max_angular: float = MAX_ANGULAR_COMMAND) -> tuple[float, float]:
    """(linear.x, angular.z) of a finite geometry_msgs/Twist within the limits (linear.y / .z,
    which a flying body takes, within the linear limit too: the body refuses anything beyond)."""
    v = finite("linear.x", msg.linear.x)
    w = finite("angular.z", msg.angular.z)
    side = [finite(f"linear.{k}", getattr(msg.linear, k)) for k in "yz"]
    for k in "xy":
        finite(f"angular.{k}", getattr(msg.angular, k))
    if max(abs(v), *map(abs, side)) > max_linear or abs(w) > max_angular:
        raise Rejected(f"cmd_vel (linear {v:g}, {side[0]:g}, {side[1]:g}, angular.z {w:g}) beyond "
                       f"+-{max_linear:g} m/s, +-{max_angular:g} rad/s")
    return v, w


# ============================================================================ pose streams
class PoseStreamGuard:
    """Plausibility of successive poses of one body (odometry, or one dynamic TF edge).

    ``check(stamp_ns, xyz, now_ns)`` raises :class:`Rejected` for a pose stamped beyond the
    clock, one older than the newest accepted by more than ``stale_s`` or newer by more than
    :data:`MAX_GAP_S` (what stops a far-future pose before the clock runs), or one farther from
    the last accepted than ``max_speed * dt + margin``. Rejected poses that agree with each
    other ``adopt_after`` times (in one of up to :data:`MAX_TRACKS` candidate tracks) become the
    new track (an episode reset)."""

    def __init__(self, max_speed: float = MAX_SPEED, margin: float = JUMP_MARGIN,
                 stale_s: float = STALE_TOLERANCE_S, adopt_after: int = ADOPT_AFTER):
        self.max_speed, self.margin, self.stale_ns = max_speed, margin, int(stale_s * 1e9)
        self.max_gap_ns = int(MAX_GAP_S * 1e9)
        self.adopt_after = adopt_after
        self.last: tuple[int, tuple] | None = None
        self._tracks: list[list[tuple[int, tuple]]] = []      # rejected poses that agree, per track

    def _plausible(self, prev: tuple[int, tuple], stamp: int, xyz: tuple) -> str | None:
        s0, p0 = prev
        if stamp < s0 - self.stale_ns:
            return f"stale: stamp {stamp * 1e-9:.3f} s is {(s0 - stamp) * 1e-9:.3f} s older than the newest pose"
        if stamp > s0 + self.max_gap_ns:
            return f"stamp {stamp * 1e-9:.3f} s is {(stamp - s0) * 1e-9:.3f} s after the newest pose"
        dist = math.dist(p0, xyz)
        allowed = self.max_speed * abs(stamp - s0) * 1e-9 + self.margin
        if dist > allowed:
            return (f"implausible jump of {dist:.2f} m in {abs(stamp - s0) * 1e-9:.3f} s "
                    f"(at most {allowed:.2f} m at {self.max_speed:g} m/s)")
        return None

    def check(self, stamp: int, xyz: tuple, now_ns: int | None = None) -> None:
        check_future(stamp, now_ns, "pose")
        if self.last is None:
            self.last = (stamp, xyz)
            return
        why = self._plausible(self.last, stamp, xyz)
        if why is None:
            if stamp >= self.last[0]:
                self.last = (stamp, xyz)
            self._tracks = []
            return
        # rejected: does it continue one of the tracks of earlier rejected poses? (several
        # tracks: forged poses interleaved with a real new track must not break it up)
        track = next((t for t in self._tracks if stamp >= t[-1][0] and self._plausible(t[-1], stamp, xyz) is None),
                     None)
        if track is None:
            if len(self._tracks) >= MAX_TRACKS:       # forget the shortest (oldest among equals)
                self._tracks.remove(min(self._tracks, key=len))
            track = []
            self._tracks.append(track)
        track.append((stamp, xyz))
        if len(track) >= self.adopt_after:
            self.last, self._tracks = (stamp, xyz), []
            return
        raise Rejected(why)


# ============================================================================ JSON
def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2 ** 63


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _optional(check: Callable) -> Callable:
    return lambda v: v is None or check(v)


def _bounds(v) -> bool:
    return (isinstance(v, list) and len(v) == 4 and all(_is_num(b) and abs(b) <= MAX_COORD for b in v)
            and v[0] < v[2] and v[1] < v[3])


def _targets(v) -> bool:
    return isinstance(v, list) and all(
        isinstance(t, dict) and isinstance(t.get("category", ""), str) and (_is_int(t["id"]) if "id" in t else True)
        for t in v)


def _int_list(v) -> bool:
    return isinstance(v, list) and all(_is_int(i) for i in v)


def _periods(v) -> bool:
    return isinstance(v, dict) and all(p is None or (_is_int(p) and 1 <= p <= 1_000_000) for p in v.values())


# field -> (check, what it must be); only fields present are checked
TASK_FIELDS: dict[str, tuple[Callable, str]] = {
    "hazard": (lambda v: isinstance(v, str), "a string"),
    "targets": (_targets, "a list of objects with a string category and an integer id"),
    "containers": (lambda v: v is None or isinstance(v, (dict, list)), "an object, a list or null"),
    "bounds": (_bounds, "[xmin, ymin, xmax, ymax], finite, min < max"),
    "map_resolution": (_optional(lambda v: _is_num(v) and 1e-3 <= v <= 100), "a number in [0.001, 100] m or null"),
    "frame_dt": (lambda v: _is_num(v) and 0 < v <= 100, "a number in (0, 100] s"),
    "sensor_periods": (_periods, "an object of integer frame periods >= 1 or null"),
    "channel": (_optional(lambda v: isinstance(v, str)), "a string or null"),
    "episode": (_is_int, "an integer"),
    "benchmark": (lambda v: isinstance(v, str), "a string"),
}
TASK_REQUIRED = ("bounds",)     # the simulator's task always has them: a message without is not a task
STATUS_FIELDS: dict[str, tuple[Callable, str]] = {
    "frame": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "held": (_optional(_is_int), "an integer id or null"),
    "rescued_ids": (_int_list, "a list of integer ids"),
    "done": (lambda v: isinstance(v, bool), "true or false"),
    "last_result": (_optional(lambda v: isinstance(v, dict)), "an object or null"),
}
METRICS_FIELDS: dict[str, tuple[Callable, str]] = {
    "frames": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "episode": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "split": (lambda v: isinstance(v, str), "a string"),
    "seed": (_is_int, "an integer"),
}
METRICS_REQUIRED = ("frames", "episode", "split")      # what every benchmark's env.metrics() has


def parse_json(text: str, fields: dict[str, tuple[Callable, str]], what: str, required: tuple = ()) -> dict:
    """The JSON object in ``text`` with every known field checked; :class:`Rejected` naming
    each field of the wrong type (the whole message is dropped: a half-applied task or
    status would be worse than the previous one)."""
    if len(text) > MAX_JSON_BYTES:
        raise Rejected(f"{what}: {len(text)} bytes of JSON (at most {MAX_JSON_BYTES})")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise Rejected(f"{what} is not JSON ({type(exc).__name__}: {str(exc)[:80]}); data={text[:60]!r}") from None
    if not isinstance(data, dict):
        raise Rejected(f"{what} must be a JSON object, got {type(data).__name__}")
    missing = [k for k in required if k not in data]
    if missing:
        raise Rejected(f"{what} lacks {', '.join(missing)}")
    bad = [f"{k} must be {need}, got {json.dumps(data[k])[:40]}" for k, (ok, need) in fields.items()
           if k in data and not ok(data[k])]
    if bad:
        raise Rejected(f"{what}: " + "; ".join(bad))
    return data


# ============================================================================ the node side
class Guard:
    """Per-node bookkeeping: counts of dropped messages per topic, throttled warnings, and the
    pose-stream guards of its odometry / TF edges."""

    def __init__(self, node, warn_period_s: float = WARN_PERIOD_S, max_speed: float = MAX_SPEED):
        self.node = node
        self.warn_period_s = warn_period_s
        self.max_speed = max_speed
        self.dropped: Counter = Counter()
        self._warned: dict[str, tuple[float, int]] = {}
        self._streams: dict[tuple, PoseStreamGuard] = {}

    def now_ns(self) -> int | None:
        """The node's clock (sim time under use_sim_time: 0 before the first /clock)."""
        try:
            return int(self.node.get_clock().now().nanoseconds)
        except Exception:          # noqa: BLE001 - a node being destroyed has no clock
            return None

    def drop(self, topic: str, reason: str) -> None:
        """Count a dropped message and warn (at most once per ``warn_period_s`` per topic)."""
        self.dropped[topic] += 1
        t = time.monotonic()
        last, count = self._warned.get(topic, (-math.inf, 0))
        if t - last >= self.warn_period_s:
            since = self.dropped[topic] - count
            more = f" ({since} dropped since the last warning)" if count and since > 1 else ""
            self.node.get_logger().warning(f"{topic}: dropped a message: {reason}{more}")
            self._warned[topic] = (t, self.dropped[topic])

    def accept(self, topic: str, check: Callable, *args):
        """``check(*args)``; its result, or None (and a throttled warning) when it rejects
        (test the result with ``is None``: a check may return 0 or an empty list; :meth:`ok`
        for a yes / no).
        Errors of a malformed message other than :class:`Rejected` (TypeError, OverflowError,
        ...) count as rejections too: a guard must not crash its node."""
        try:
            out = check(*args)
        except (ValueError, TypeError, OverflowError, AttributeError, IndexError, KeyError, RecursionError) as exc:
            self.drop(topic, str(exc) if isinstance(exc, Rejected) else f"{type(exc).__name__}: {exc}")
            return None
        return True if out is None else out

    def ok(self, topic: str, check: Callable, *args) -> bool:
        """Whether ``check(*args)`` accepts the message (its result may be 0, a stamp)."""
        try:
            check(*args)
        except (ValueError, TypeError, OverflowError, AttributeError, IndexError, KeyError, RecursionError) as exc:
            self.drop(topic, str(exc) if isinstance(exc, Rejected) else f"{type(exc).__name__}: {exc}")
            return False
        return True

    def json(self, topic: str, msg, fields: dict, required: tuple = ()) -> dict | None:
        return self.accept(topic, parse_json, msg.data, fields, topic, required)

    def _stream(self, key: tuple) -> PoseStreamGuard:
        if key not in self._streams:
            self._streams[key] = PoseStreamGuard(self.max_speed)
        return self._streams[key]

    def odometry(self, topic: str, msg) -> bool:
        """A nav_msgs/Odometry that is finite, not future-stamped, not stale and no jump."""
        def check():
            now = self.now_ns()
            stamp = check_header(msg.header, now, "odometry header")
            frame_id("child_frame_id", msg.child_frame_id)
            xyz = check_pose("pose.pose", msg.pose.pose)
            for k in "xyz":
                finite(f"twist.linear.{k}", getattr(msg.twist.twist.linear, k))
                finite(f"twist.angular.{k}", getattr(msg.twist.twist.angular, k))
            self._stream(("odom", msg.header.frame_id, msg.child_frame_id)).check(stamp, xyz, now)
            return True
        return bool(self.accept(topic, check))

    def transforms(self, topic: str, msg, static: bool = False) -> list:
        """The usable TransformStamped of a TFMessage (each checked; dynamic edges through
        their pose-stream guard); the others are dropped with a warning."""
        if len(msg.transforms) > MAX_TRANSFORMS:
            self.drop(topic, f"{len(msg.transforms)} transforms in one message (at most {MAX_TRANSFORMS})")
            return []
        good = []
        now = None if static else self.now_ns()
        for t in msg.transforms:
            def check(t=t):
                stamp = check_header(t.header, now, "transform header")
                frame_id("child_frame_id", t.child_frame_id)
                xyz = check_transform(f"{t.header.frame_id} -> {t.child_frame_id}", t.transform)
                if not static:
                    self._stream(("tf", t.header.frame_id.lstrip("/"), t.child_frame_id.lstrip("/"))).check(
                        stamp, xyz, now)
                return t
            if self.accept(topic, check) is not None:
                good.append(t)
        return good

    def detections(self, topic: str, msg) -> list | None:
        """The usable detections of a Detection3DArray (None: the whole message is bad)."""
        got = self.accept(topic, good_detections, msg, self.now_ns())
        if got is None:
            return None
        good, bad = got
        if bad:
            self.drop(topic, f"{len(bad)} of {len(msg.detections)} detections left out: {bad[0]}")
        return good


__all__ = ["Guard", "guard", "PoseStreamGuard", "Rejected", "TASK_FIELDS", "STATUS_FIELDS", "METRICS_FIELDS",
           "METRICS_REQUIRED", "TASK_REQUIRED",
           "check_camera_info", "check_header", "check_image", "check_label_info", "check_occupancy_grid",
           "check_pose", "check_transform", "check_twist", "finite", "good_detections", "parse_json"]


def guard(node) -> Guard:
    """The node's :class:`Guard` (made on first use, so callbacks need no set-up in ``__init__``)."""
    g = getattr(node, "_msg_guard", None)
    if g is None:
        g = node._msg_guard = Guard(node)
    return g
