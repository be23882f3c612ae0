"""The perception node's achieved rate against the camera rate (a script, not a test).

    .venv/bin/python benchmarks/bench_perception_node_rate.py [--detector groundtruth --detector onnx]
        [--weights data/perception/detector.onnx] [--seconds 30] [--width 320 --height 240] [--json out.json]

For each detector, in one run: the HAZARD pipeline in free-run (``hazard_launch lockstep:=false
decision:=false``, the launch file's camera rate, 10 Hz of sim time at real time) and, here, a
subscriber on ``camera/color/image_raw`` and on the perception node's per-frame output
``perception/instances/image_raw``. After a warm-up (the first perception output), over
``--seconds`` of wall time it counts camera frames and perception outputs by stamp: their rates
per wall second, the share of camera frames that got an output (a perception node that cannot
keep up skips to the newest frame), and the median / 90th percentile latency from a frame's
arrival here to its perception output's arrival. Report medians with the machine's load: on
shared cores the numbers are upper bounds of the work per frame.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import rclpy  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data  # noqa: E402
from ros_rates_bench import _env, _stop  # noqa: E402
from sensor_msgs.msg import Image  # noqa: E402

from hazard_ros.conversions import frame_from_stamp  # noqa: E402

OUTPUT = "perception/instances/image_raw"


def measure(detector: str, weights: str, args, domain: int) -> dict:
    extra = [f"weights:={weights}"] if detector != "groundtruth" else []
    launch = subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", "--no-exit-on-metrics",
                               "benchmark:=hazard/fire", "lockstep:=false", "decision:=false",
                               f"detector:={detector}", *extra, f"camera_width:={args.width}",
                               f"camera_height:={args.height}", "--grace", "3"],
                              env=_env(domain), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    node = rclpy.create_node(f"bench_perception_rate_{detector}")
    cam: dict[int, float] = {}
    out: dict[int, float] = {}
    node.create_subscription(Image, "camera/color/image_raw",
                             lambda m: cam.setdefault(frame_from_stamp(m.header.stamp), time.perf_counter()),
                             qos_profile_sensor_data)
    node.create_subscription(Image, OUTPUT,
                             lambda m: out.setdefault(frame_from_stamp(m.header.stamp), time.perf_counter()),
                             QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE,
                                        durability=DurabilityPolicy.VOLATILE))
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    try:
        deadline = time.perf_counter() + args.warmup
        while time.perf_counter() < deadline and not out and launch.poll() is None:
            ex.spin_once(timeout_sec=0.05)
        if not out:
            return {"skipped": f"no {OUTPUT} within {args.warmup:g} s of starting the pipeline"}
        cam.clear()
        out.clear()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds and launch.poll() is None:
            ex.spin_once(timeout_sec=0.01)
        wall = time.perf_counter() - t0
    finally:
        ex.remove_node(node)
        node.destroy_node()
        _stop(launch)
    lat = [out[f] - cam[f] for f in out if f in cam and out[f] >= cam[f]]
    return {"detector": detector, "seconds": round(wall, 1), "camera_frames": len(cam),
            "camera_hz": round(len(cam) / wall, 2), "perception_outputs": len(out),
            "perception_hz": round(len(out) / wall, 2),
            "share_of_camera_frames": round(len(set(out) & set(cam)) / max(len(cam), 1), 3),
            "latency_median_ms": round(float(np.median(lat)) * 1e3, 1) if lat else None,
            "latency_p90_ms": round(float(np.percentile(lat, 90)) * 1e3, 1) if lat else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detector", action="append", help="groundtruth | onnx (repeatable; default both)")
    ap.add_argument("--weights", default=str(REPO / "data" / "perception" / "detector.onnx"))
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=120.0, help="s to wait for the first perception output")
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=240)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    domain = random.SystemRandom().randint(1, 101)
    os.environ.update(ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    from hazard_ros.launcher import dds_profile_env
    os.environ.update(dds_profile_env())
    rclpy.init()
    result = {"machine": f"{platform.machine()} {os.cpu_count()} cpu, load {os.getloadavg()[0]:.1f}",
              "camera": f"{args.width}x{args.height}", "runs": []}
    try:
        for det in args.detector or ["groundtruth", "onnx"]:
            r = measure(det, args.weights, args, domain)
            print(json.dumps(r))
            result["runs"].append(r)
    finally:
        rclpy.shutdown()
    result["load_after"] = round(os.getloadavg()[0], 1)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
