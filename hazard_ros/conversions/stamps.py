"""Simulator frames <-> ROS time: frame ``n`` is the sim time ``n * FRAME_DT`` (0.1 s), in integer
nanoseconds so a stamp maps back to its frame exactly; clock and header messages.
"""
from __future__ import annotations

from builtin_interfaces.msg import Time
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Header

FRAME_DT_NS = 100_000_000          # 0.1 s per simulator frame (hazard_sim.world.FRAME_DT)


def stamp_from_frame(frame: int, frame_dt_ns: int = FRAME_DT_NS) -> Time:
    """builtin_interfaces/Time of simulator frame ``frame`` (exact, integer ns)."""
    if frame < 0:
        raise ValueError(f"frame must be >= 0, got {frame}")
    ns = int(frame) * int(frame_dt_ns)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def time_to_ns(stamp: Time) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def time_to_sec(stamp: Time) -> float:
    return time_to_ns(stamp) * 1e-9


def frame_from_stamp(stamp: Time, frame_dt_ns: int = FRAME_DT_NS) -> int:
    """Inverse of :func:`stamp_from_frame` (rounds to the nearest frame)."""
    return int(round(time_to_ns(stamp) / frame_dt_ns))


def to_ros_clock(frame: int) -> Clock:
    return Clock(clock=stamp_from_frame(frame))


def to_ros_header(stamp: Time, frame_id: str) -> Header:
    return Header(stamp=stamp, frame_id=frame_id)
