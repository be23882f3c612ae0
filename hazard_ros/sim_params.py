"""sim_node's parameters: their defaults, types and documentation, and their checks."""
from __future__ import annotations

import json
import math
from pathlib import Path

from rcl_interfaces.msg import ParameterDescriptor

from hazard_ros import ros_qos as qos_profiles
from hazard_ros.params import as_bool
from hazard_sim.core.spec import ALIASES, benchmark_ids, get_spec, resolve

# name -> (default, type, description)
PARAMETERS = {
    "benchmark": ("", str, "benchmark id (`hazard benchmarks` lists them; required, or the task parameter)"),
    "task": ("", str, "older spelling of benchmark: a short name a benchmark registers as its alias"),
    "split": ("test", str, "dataset split: train | test"),
    "episode": (0, int, "episode index in the split"),
    "seed": (0, int, "random seed of the episode"),
    "dataset_root": ("", str, "another dataset directory ('' = the packaged one)"),
    "episode_overrides": ("", str, "fields of the episode to replace, 'key=value,key=value' (values as JSON "
                                   "where they parse, else text; an empty value keeps the episode's), e.g. "
                                   "'weather=fog,time_of_day=21.5'; checked by the benchmark's episode rules"),
    "camera_width": (320, int, "image width (px)"),
    "camera_height": (240, int, "image height (px)"),
    "camera_hfov": (90.0, float, "horizontal field of view (deg)"),
    "camera_rate": (10.0, float, "RGB-D / segmentation / field images (sim Hz, <= 10)"),
    "odom_rate": (10.0, float, "odometry and odom->base_link TF (sim Hz)"),
    "lidar_rate": (5.0, float, "LiDAR point cloud (sim Hz)"),
    "imu_rate": (10.0, float, "IMU (sim Hz)"),
    "gps_rate": (1.0, float, "GPS fix (sim Hz)"),
    "lidar_beams": (360, int, "LiDAR beams per ring"),
    "lidar_rings": (16, int, "LiDAR rings (-15..+15 deg)"),
    "lidar_range": (20.0, float, "LiDAR maximum range (m)"),
    "frame_limit": (0, int, "episode length in frames (0: the benchmark's max_frames; -1: no limit, for "
                            "driving by hand)"),
    "lockstep": (False, bool, "advance only through sim/step (and the task's action services)"),
    "processes_act_on_body": (False, bool, "world processes slow / block / push the body (the harder setting)"),
    "hazards_affect_agent": (False, bool, "deprecated spelling of processes_act_on_body (either one turns it on)"),
    "cmd_vel_timeout": (0.5, float, "stop when no cmd_vel arrived for this long (sim s)"),
    "realtime_factor": (1.0, float, "free-run speed: sim seconds per wall second"),
    "camera_qos": ("reliable", str, "free-run image / camera_info QoS: reliable | best_effort"),
    "segmentation": ("instance", str, "named cameras' segmentation images: instance (every thing hit) | visible "
                                      "(the benchmark's detection track where it has one, an observation's "
                                      "seg_visible: only what stands out under the light and the fog)"),
    "ground_truth_topics": (True, bool, "publish the simulator's ground truth (segmentation, its label_info, "
                                        "world/objects, world/markers, world/static_markers); false: only what a "
                                        "real robot's sensors give"),
    "idle_republish": (1.0, float, "lock-step: republish clock, odom, TF, camera infos every this many wall s "
                                   "while nobody steps (0: never)"),
    "exit_after_episode": (-1.0, float, "end the node this many wall s after the episode's metrics went out, "
                                        "exit code 0 (the launch files: 1.0, so an episode's end ends the launch "
                                        "through on_exit: shutdown); < 0: keep running"),
    "metrics_out": ("", str, "also write the episode's metrics as JSON to this file when it ends ('' = no file)"),
    "datum_latitude": (40.4433, float, "GPS datum: latitude (deg) of the map origin"),
    "datum_longitude": (-79.9436, float, "GPS datum: longitude (deg) of the map origin"),
    "datum_altitude": (300.0, float, "GPS datum: altitude (m) of the map origin"),
}


#: the largest image side the renderers draw (software OpenGL's framebuffer limit is 16384; a
#: 100000-px camera ended in "the framebuffer is not complete")
MAX_CAMERA_SIDE = 8192


def coerce(name: str, value, kind):
    """A parameter value as ``kind`` (numbers may come as int or float, bools as text)."""
    try:
        if kind is bool:
            return as_bool(value, f"parameter {name!r}")
        if kind is str:
            return "" if value is None else str(value)
        if isinstance(value, bool) or value is None or isinstance(value, (list, tuple)):
            raise TypeError
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {name!r} must be {kind.__name__}, got {value!r}") from None


def read_parameters(node) -> dict:
    """Declare every parameter on ``node`` and return the checked values (``ValueError``: which one
    is wrong and why)."""
    values = {}
    for name, (default, kind, doc) in PARAMETERS.items():
        node.declare_parameter(name, default, ParameterDescriptor(description=doc, dynamic_typing=True))
        values[name] = node.get_parameter(name).value
    return parameters_from(values)


def parameters_from(values: dict) -> dict:
    """The checked parameters from raw ``values`` (missing ones: their defaults); also what
    ``hazard_launch`` checks before it starts anything (hazard_ros.launch_checks)."""
    out = {}
    for name, (default, kind, _) in PARAMETERS.items():
        out[name] = coerce(name, values.get(name, default), kind)
    if not (out["benchmark"] or out["task"]):
        raise ValueError(f"parameter 'benchmark' is required: one of {', '.join(benchmark_ids())}")
    try:
        out["benchmark"] = resolve(out["benchmark"] or out["task"])
    except KeyError:
        raise ValueError(f"unknown benchmark {out['benchmark'] or out['task']!r}: expected one of "
                         f"{', '.join(benchmark_ids())} (or {', '.join(sorted(ALIASES))})") from None
    check(out)
    # the deprecated spelling turns the setting on as well (kept for one release)
    out["processes_act_on_body"] = out["processes_act_on_body"] or out["hazards_affect_agent"]
    return out


def check(out: dict) -> None:
    for name in ("camera_width", "camera_height"):
        if not 0 < out[name] <= MAX_CAMERA_SIDE:
            raise ValueError(f"parameter {name!r} must be in 1..{MAX_CAMERA_SIDE} px (the renderer's largest "
                             f"image side), got {out[name]}")
    if not 1.0 <= out["camera_hfov"] < 179.0:
        raise ValueError(f"parameter 'camera_hfov' must be in [1, 179) degrees, got {out['camera_hfov']}")
    for name in ("camera_rate", "odom_rate", "lidar_rate", "imu_rate", "gps_rate"):
        if not 0.0 <= out[name] < math.inf:
            raise ValueError(f"parameter {name!r} must be >= 0 Hz (0 = off), got {out[name]}")
    for name in ("cmd_vel_timeout", "realtime_factor", "lidar_range"):
        if not 0.0 < out[name] < math.inf:
            raise ValueError(f"parameter {name!r} must be > 0, got {out[name]}")
    if out["camera_qos"] not in qos_profiles.CAMERA_QOS_CHOICES:
        raise ValueError(f"parameter 'camera_qos' must be one of {', '.join(qos_profiles.CAMERA_QOS_CHOICES)}, "
                         f"got {out['camera_qos']!r}")
    if out["segmentation"] not in ("instance", "visible"):
        raise ValueError(f"parameter 'segmentation' must be instance or visible, got {out['segmentation']!r}")
    if out["idle_republish"] < 0:
        raise ValueError(f"parameter 'idle_republish' must be >= 0 s (0: never), got {out['idle_republish']}")
    if not out["exit_after_episode"] < math.inf:         # (NaN fails too)
        raise ValueError(f"parameter 'exit_after_episode' must be a finite number of s (< 0: never), "
                         f"got {out['exit_after_episode']}")
    if out["frame_limit"] < -1:
        raise ValueError(f"parameter 'frame_limit' must be >= 0 (0: the task's) or -1 (no limit), "
                         f"got {out['frame_limit']}")
    if out["lidar_beams"] <= 0 or out["lidar_rings"] <= 0:
        raise ValueError("parameters 'lidar_beams' and 'lidar_rings' must be > 0")


#: ``frame_limit: -1``: an episode that never runs out of time (2**31 - 1 frames: 6.8 years at 0.1 s)
NO_FRAME_LIMIT = 2 ** 31 - 1


def env_frame_limit(p: dict) -> int | None:
    """The env's frame limit of the parameters: None (the benchmark's), a number, or no limit."""
    return NO_FRAME_LIMIT if p["frame_limit"] == -1 else (p["frame_limit"] or None)


def episode_spec(p: dict) -> dict | None:
    """The episode with ``episode_overrides`` applied (None: no overrides, the dataset's)."""
    pairs = [kv for kv in (x.strip() for x in p["episode_overrides"].split(",")) if kv]
    over = {}
    for kv in pairs:
        key, eq, value = (t.strip() for t in kv.partition("="))
        if not eq or not key:
            raise ValueError(f"parameter 'episode_overrides' must be 'key=value,...', got {kv!r}")
        if value:
            try:
                over[key] = json.loads(value)
            except json.JSONDecodeError:
                over[key] = value
    if not over:
        return None
    spec = get_spec(p["benchmark"])
    root = Path(p["dataset_root"]) if p["dataset_root"] else None
    ep = dict(spec.dataset.load(p["split"], p["episode"], root))
    unknown = sorted(set(over) - set(ep))
    if unknown:
        raise ValueError(f"episode_overrides: {', '.join(unknown)} not a field of the episode; fields: "
                         f"{', '.join(sorted(ep))}")
    ep.update(over)
    return ep
