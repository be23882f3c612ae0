"""The ROS sim node serving ESAR on this machine (a script, not a test).

Measures the frame rate of ``sim_node`` with the UAV's four cameras (default 256 x 256): the
node in lock-step, one frame per ``sim/step`` call from a client node in the same process on
a private DDS domain, with a subscriber on every camera topic of the four cameras (colour,
depth, segmentation, camera infos), odometry, TF, IMU, GPS, altimeter, LiDAR, world markers,
trajectory; the UAV flies forward at 10 m/s and climbs under cmd_vel. A frame counts when its
``sim/step`` response came back (every message of the frame was published before it).
Reports frames per second (median step time and overall), the time inside the node per frame
split into env (render, sensors) and ROS (conversion, publishing), and the serialized size of
one message of each published topic.

    .venv/bin/python benchmarks/bench_ros_esar.py [--map coastal] [--frames 100] [--size 256] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import rclpy
from geometry_msgs.msg import Twist
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from std_srvs.srv import Trigger

from hazard_ros import sim_node as sim_mod
from hazard_ros.sim_node import PUBLISHED_TOPICS, SimNode

sys.path.insert(0, str(Path(__file__).resolve().parent))   # run from a checkout
import bench_hazard  # noqa: E402  (one machine() for the benchmark scripts)


def msg_class(type_str):
    import importlib
    pkg, _, name = type_str.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--map", default="coastal")
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    ctx = Context()
    rclpy.init(context=ctx, domain_id=random.SystemRandom().randint(120, 200))
    t0 = time.perf_counter()
    sim = SimNode(context=ctx, parameter_overrides=[
        Parameter("benchmark", value=f"esar/{a.map}"), Parameter("lockstep", value=True),
        Parameter("camera_width", value=a.size), Parameter("camera_height", value=a.size),
        Parameter("lidar_rate", value=10.0), Parameter("gps_rate", value=10.0), Parameter("idle_republish", value=0.0),
        Parameter("cmd_vel_timeout", value=1e6)])
    build_s = time.perf_counter() - t0
    probe = rclpy.create_node("bench_probe", context=ctx)
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(sim)
    ex.add_node(probe)
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    last: dict[str, object] = {}
    count: dict[str, int] = {}
    for topic in sim.pubs:
        def keep(m, t=topic):
            last[t] = m
            count[t] = count.get(t, 0) + 1
        probe.create_subscription(msg_class(PUBLISHED_TOPICS[topic]), topic, keep,
                                  latched if topic in ("/tf_static", "task", "world/static_markers",
                                                       "camera/segmentation/label_info", "episode/metrics",
                                                       "episode/status", "reports") else 10)
    step = probe.create_client(Trigger, "sim/step")
    cmd_pub = probe.create_publisher(Twist, "cmd_vel", 10)
    while not step.service_is_ready() or cmd_pub.get_subscription_count() == 0:
        ex.spin_once(timeout_sec=0.05)
    cmd = Twist()
    cmd.linear.x, cmd.linear.z = 10.0, 1.0
    cmd_pub.publish(cmd)
    while sim.twist.vx != 10.0:
        ex.spin_once(timeout_sec=0.05)
    # time inside the node: env (drive + render + sensors) and the rest (conversion, publishing)
    env_s = [0.0]
    orig_observe = sim_mod.teleop.observe

    def timed_observe(*args, **kw):
        t = time.perf_counter()
        out = orig_observe(*args, **kw)
        env_s[0] += time.perf_counter() - t
        return out
    sim_mod.teleop.observe = timed_observe
    node_s = [0.0]
    orig_step = sim._on_step

    def timed_step(req, resp):
        t = time.perf_counter()
        out = orig_step(req, resp)
        node_s[0] += time.perf_counter() - t
        return out
    # rebind the service callback to the timed one
    for srv in sim.services:
        if srv.srv_name.endswith("sim/step"):
            srv.callback = timed_step
    times = []
    for k in range(a.frames + 5):
        if k == 5:
            env_s[0] = node_s[0] = 0.0
        t = time.perf_counter()
        fut = step.call_async(Trigger.Request())
        while not fut.done():
            ex.spin_once(timeout_sec=0.5)
        if k >= 5:
            times.append(time.perf_counter() - t)
        if sim.env.done:
            print(f"episode ended at frame {sim.env.world.frame}")
            break
    for _ in range(20):                      # deliver what is still queued
        ex.spin_once(timeout_sec=0.01)
    n = len(times)
    med = statistics.median(times)
    sizes = {t: len(serialize_message(m)) for t, m in sorted(last.items())}
    cams = [t for t in sizes if t.startswith("camera_") and t.endswith("image_raw")]
    res = {
        "machine": dict(bench_hazard.machine(), load_avg_1min=round(os.getloadavg()[0], 2)),
        "map": a.map, "size": a.size, "frames": n, "node_build_s": round(build_s, 2),
        "median_ms_per_frame": round(1e3 * med, 1), "frames_per_s_median": round(1 / med, 1),
        "frames_per_s_overall": round(n / sum(times), 1),
        "images_per_s": round(len(cams) / med, 1),
        "node_ms_per_frame": round(1e3 * node_s[0] / n, 1),
        "env_observe_ms_per_frame": round(1e3 * env_s[0] / n, 1),
        "ros_ms_per_frame": round(1e3 * (node_s[0] - env_s[0]) / n, 1),
        "message_bytes": sizes,
        "camera_bytes_per_frame": sum(v for t, v in sizes.items() if t.startswith("camera")),
        "bytes_per_frame": sum(sizes[t] for t in sizes if t not in ("/tf_static", "task", "world/static_markers",
                                                                     "camera/segmentation/label_info")),
        "final_altitude_m": round(float(sim.env.agent.z), 1),
    }
    print(json.dumps(res, indent=1))
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(res, indent=1))
    ex.shutdown()
    sim.destroy_node()
    probe.destroy_node()
    rclpy.shutdown(context=ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
