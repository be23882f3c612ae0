"""A Nav2 commander script against the simulator (the README's example): plan, smooth, follow,
spin, back up, with nav2_simple_commander's method names (planner_node.ros_commander.Navigator;
with the upstream package, ``BasicNavigator()`` takes the same calls).

    .venv/bin/hazard_launch decision:=false frame_limit:=-1 &    # the stack without the agent, no time limit
    .venv/bin/python scripts/commander_example.py --x 4.0 --y 6.0

Without ``frame_limit:=-1`` the episode still ends at its frame limit (HAZARD fire: 1500 frames,
150 s of sim time; in lock-step the clock only moves while the robot does): the simulator then
exits and the launch with it, and a later call finds no server. The Navigator's waits end with a
message then (``server_timeout``, 60 s; ``getTaskError()``), and ``waitUntilNav2Active`` raises
TimeoutError.
"""
from __future__ import annotations

import argparse
import math

import rclpy

from planner_node.ros_commander import Navigator, TaskResult, pose_stamped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--x", type=float, default=4.0)
    ap.add_argument("--y", type=float, default=6.0)
    args = ap.parse_args(argv)
    rclpy.init()
    nav = Navigator.create()
    nav.waitUntilNav2Active()
    goal = pose_stamped(args.x, args.y, yaw=math.pi / 2)
    path = nav.getPath(pose_stamped(0.0, 0.0), goal)              # from the robot (use_start=False)
    if path is None:
        print("no path:", nav.getTaskError())
        return 1
    smoothed = nav.smoothPath(path) or path
    print(f"path of {len(path.poses)} poses, smoothed to {len(smoothed.poses)}")
    for name, start_task in (("followPath", lambda: nav.followPath(smoothed)),
                             ("spin", lambda: nav.spin(math.pi / 2)),
                             ("backup", lambda: nav.backup(0.3, 0.1))):
        start_task()
        while not nav.isTaskComplete():
            fb = nav.getFeedback()
            if fb is not None and hasattr(fb, "distance_to_goal"):
                print(f"  {fb.distance_to_goal:.2f} m to go", end="\r")
        result = nav.getResult()
        print(f"{name}: {result.name}" + ("" if result == TaskResult.SUCCEEDED else f" {nav.getTaskError()}"))
    nav.destroyNode()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
