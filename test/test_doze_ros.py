"""The ROS sim node serving a DOZE episode: LoCoBot images with people, cmd_vel at its limits."""
from __future__ import annotations

import numpy as np
import pytest

try:
    import rclpy  # noqa: F401
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from geometry_msgs.msg import Twist
from sensor_msgs.msg import Image
from test_sim_node import Harness, ctx  # noqa: F401  (the fixture and harness of the sim node tests)

TEST_TIME_LIMIT_S = 120


def test_sim_node_serves_doze_and_drives_the_locobot(ctx):  # noqa: F811
    h = Harness(ctx, benchmark="doze/level2", lockstep=True)
    try:
        env = h.sim.env
        assert env.benchmark == "doze/level2" and env.agent.kind == "locobot"
        assert "person" in env._labels.values()
        h.listen("camera/color/image_raw", Image)
        yaw0 = env.agent.yaw
        pub = h.probe.create_publisher(Twist, "cmd_vel", 10)
        cmd = Twist()
        cmd.angular.z = 3.0                       # clipped to the LoCoBot's 60 deg/s
        assert h.spin_until(lambda: pub.get_subscription_count() > 0)
        pub.publish(cmd)
        assert h.spin_until(lambda: h.sim.cmd[1] == 3.0)
        for _ in range(3):
            assert h.call("sim/step").success
        turned = (env.agent.yaw - yaw0 + np.pi) % (2 * np.pi) - np.pi
        assert turned == pytest.approx(3 * np.radians(6.0), abs=1e-6)
        assert h.spin_until(lambda: len(h.got["camera/color/image_raw"]) > 0)
        assert h.got["camera/color/image_raw"][-1].width == 64
    finally:
        h.close()
