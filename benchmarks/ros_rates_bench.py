"""Benchmark sim_node over ROS 2 (a script, not a test).

    .venv/bin/python benchmarks/ros_rates_bench.py [--benchmark hazard/fire] [--rate 30] [--seconds 10]
        [--width 640 --height 480] [--latency-seconds 20] [--json out.json]

Part 1: runs ``sim_node`` as its own process in free-run at ``--rate`` frames per
wall second (``realtime_factor = rate / 10``, the camera on every frame) and a
subscriber here on ``camera/color/image_raw`` + ``camera/depth/image_raw`` (best
effort, as a perception node would). Reports the achieved RGB-D rate (frames
where both images arrived, per wall second), dropped frames (frames whose stamps
were skipped or lost, from the stamps' gaps), the sim's own frame rate (``/clock``),
and medians of the inter-arrival time and of the color-to-depth arrival spread.

Part 2 (when the perception, mapping, navigation and decision nodes exist): runs the
whole pipeline in free-run through ``hazard_launch`` (lockstep:=false) and measures
the latency from a depth frame's arrival to the first ``cmd_vel`` published after
the ``map`` built from that frame arrived (mapping stamps ``map`` with the depth
stamp): camera frame -> perception/mapping -> navigation command.

Both parts use the Fast DDS profile that ``hazard_launch`` gives its nodes (a large
shared-memory segment; ``--no-dds-profile`` for Fast DDS defaults, which lose most
best-effort 640x480 frames).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run from a checkout

import rclpy  # noqa: E402
from geometry_msgs.msg import Twist  # noqa: E402
from nav_msgs.msg import OccupancyGrid  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Image  # noqa: E402

from hazard_ros.conversions import frame_from_stamp  # noqa: E402


def _env(domain: int) -> dict:
    return dict(os.environ, ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST",
                PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_rates(args, domain: int) -> dict:
    sim = subprocess.Popen([sys.executable, "-m", "hazard_ros.sim_node", "--ros-args",
                            "-p", f"benchmark:={args.benchmark}",
                            "-p", f"camera_width:={args.width}", "-p", f"camera_height:={args.height}",
                            "-p", "camera_rate:=10.0", "-p", f"realtime_factor:={args.rate / 10.0}",
                            "-p", "frame_limit:=100000"], env=_env(domain))
    node = rclpy.create_node("bench_rates")
    arrivals: dict[str, dict[int, float]] = {"color": {}, "depth": {}}
    clock_frames: list[tuple[float, int]] = []

    def on_image(kind, msg):
        arrivals[kind][frame_from_stamp(msg.header.stamp)] = time.perf_counter()
    node.create_subscription(Image, "camera/color/image_raw", lambda m: on_image("color", m), qos_profile_sensor_data)
    node.create_subscription(Image, "camera/depth/image_raw", lambda m: on_image("depth", m), qos_profile_sensor_data)
    node.create_subscription(Clock, "/clock", lambda m: clock_frames.append((time.perf_counter(),
                                                                             frame_from_stamp(m.clock))), 10)
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    try:
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and len(arrivals["depth"]) < 10:      # start-up + warm-up
            ex.spin_once(timeout_sec=0.05)
        if not arrivals["depth"]:
            raise RuntimeError("no depth image from sim_node within 30 s")
        for d in arrivals.values():
            d.clear()
        clock_frames.clear()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            ex.spin_once(timeout_sec=0.05)
        t1 = time.perf_counter()
    finally:
        ex.remove_node(node)
        node.destroy_node()
        _stop(sim)
    both = sorted(set(arrivals["color"]) & set(arrivals["depth"]))
    got = sorted(set(arrivals["color"]) | set(arrivals["depth"]))
    expected = (got[-1] - got[0] + 1) if got else 0
    t_pair = np.array([max(arrivals["color"][f], arrivals["depth"][f]) for f in both])
    spread = np.array([abs(arrivals["color"][f] - arrivals["depth"][f]) for f in both])
    sim_fps = ((clock_frames[-1][1] - clock_frames[0][1]) / (clock_frames[-1][0] - clock_frames[0][0])
               if len(clock_frames) > 1 else float("nan"))
    return {
        "benchmark": args.benchmark, "image": f"{args.width}x{args.height}", "target_hz": args.rate,
        "seconds": round(t1 - t0, 2), "rgbd_frames": len(both),
        "rgbd_hz": round(len(both) / (t1 - t0), 2),
        "sim_frames_per_s": round(sim_fps, 2),
        "dropped_frames": int(expected - len(both)), "expected_frames": int(expected),
        "median_interarrival_ms": round(float(np.median(np.diff(t_pair))) * 1e3, 2) if len(t_pair) > 1 else None,
        "p90_interarrival_ms": round(float(np.percentile(np.diff(t_pair), 90)) * 1e3, 2) if len(t_pair) > 1 else None,
        "median_color_depth_spread_ms": round(float(np.median(spread)) * 1e3, 2) if len(spread) else None,
    }


def pipeline_available() -> str | None:
    for mod in ("perception_node.perception_node", "perception_node.mapping_node",
                "planner_node.navigation_node", "planner_node.plugins.hazard"):
        try:
            importlib.import_module(mod)
        except Exception as exc:
            return f"{mod} cannot be imported ({type(exc).__name__}: {exc})"
    return None


def bench_latency(args, domain: int) -> dict:
    launch = subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", "--no-exit-on-metrics",
                               *(["--no-dds-profile"] if args.no_dds_profile else []),
                               f"benchmark:={args.benchmark}", "lockstep:=false", f"camera_width:={args.width}",
                               f"camera_height:={args.height}", *args.launch_arg, "--grace", "3"],
                              env=_env(domain), stdout=subprocess.DEVNULL if not args.verbose else None,
                              stderr=subprocess.STDOUT if not args.verbose else None)
    node = rclpy.create_node("bench_latency")
    depth_at: dict[int, float] = {}
    map_at: dict[int, float] = {}
    cmds: list[float] = []
    node.create_subscription(Image, "camera/depth/image_raw",
                             lambda m: depth_at.setdefault(frame_from_stamp(m.header.stamp), time.perf_counter()),
                             qos_profile_sensor_data)
    node.create_subscription(OccupancyGrid, "map",
                             lambda m: map_at.setdefault(frame_from_stamp(m.header.stamp), time.perf_counter()),
                             QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                                        durability=DurabilityPolicy.TRANSIENT_LOCAL))
    node.create_subscription(Twist, "cmd_vel", lambda m: cmds.append(time.perf_counter()), 10)
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    try:
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and not cmds:
            ex.spin_once(timeout_sec=0.05)
        if not cmds:
            return {"skipped": "no cmd_vel within 60 s of starting the pipeline"}
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.latency_seconds and launch.poll() is None:
            ex.spin_once(timeout_sec=0.02)
    finally:
        ex.remove_node(node)
        node.destroy_node()
        _stop(launch)
    cmd_t = np.array(sorted(cmds))
    lat_map, lat_cmd = [], []
    for f, td in depth_at.items():
        tm = map_at.get(f)
        if tm is None or tm < td:
            continue
        lat_map.append(tm - td)
        k = np.searchsorted(cmd_t, tm)
        if k < len(cmd_t) and cmd_t[k] - tm < 0.5:
            lat_cmd.append(cmd_t[k] - td)
    def med(v):
        return round(float(np.median(v)) * 1e3, 1) if v else None

    return {"frames_with_map": len(lat_map), "median_depth_to_map_ms": med(lat_map),
            "frames_with_cmd": len(lat_cmd), "median_frame_to_cmd_vel_ms": med(lat_cmd),
            "p90_frame_to_cmd_vel_ms": round(float(np.percentile(lat_cmd, 90)) * 1e3, 1) if lat_cmd else None,
            "p95_frame_to_cmd_vel_ms": round(float(np.percentile(lat_cmd, 95)) * 1e3, 1) if lat_cmd else None,
            "cmd_vel_msgs": len(cmds)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benchmark", default="hazard/fire", help="benchmark id (hazard benchmarks lists them)")
    ap.add_argument("--rate", type=float, default=30.0, help="sim frames (= RGB-D frames) per wall second")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--latency-seconds", type=float, default=20.0)
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--launch-arg", action="append", default=[], metavar="NAME:=VALUE",
                    help="extra hazard_launch argument for the latency part (repeatable), e.g. camera_qos:=best_effort")
    ap.add_argument("--verbose", action="store_true", help="show the pipeline's output")
    ap.add_argument("--no-dds-profile", action="store_true",
                    help="Fast DDS defaults instead of hazard_launch's large-data profile")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    domain = random.SystemRandom().randint(1, 101)
    os.environ.update(ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    if not args.no_dds_profile:
        from hazard_ros.launcher import dds_profile_env
        os.environ.update(dds_profile_env())       # the same DDS set-up as hazard_launch gives its nodes
    rclpy.init()
    try:
        result = {"machine": f"{platform.machine()} {os.cpu_count()} cpu, load {os.getloadavg()[0]:.1f}",
                  "dds_profile": os.environ.get("FASTDDS_DEFAULT_PROFILES_FILE", "default"),
                  "rates": bench_rates(args, domain)}
        print(result["machine"], "| DDS profile:", result["dds_profile"])
        print(json.dumps(result["rates"], indent=2))
        why = "skipped (--skip-latency)" if args.skip_latency else pipeline_available()
        if why:
            print(f"latency camera frame -> cmd_vel: {why}")
            result["latency"] = {"skipped": why}
        else:
            result["latency"] = bench_latency(args, domain)
            print(json.dumps(result["latency"], indent=2))
    finally:
        rclpy.shutdown()
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
