"""The ROS sim node serving a DOZE episode: LoCoBot images with people, cmd_vel at its limits."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

try:
    import rclpy  # noqa: F401
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from geometry_msgs.msg import Twist
from sensor_msgs.msg import Image
from test_sim_node import Harness, ctx  # noqa: F401  (the fixture and harness of the sim node tests)

TEST_TIME_LIMIT_S = 180


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


# ------------------------------------------------------------------ decision and perception
def _spin_in_thread(node, context, threads=1):
    import threading

    from hazard_ros.executors import make_executor
    ex = make_executor(threads, context)
    ex.add_node(node)
    t = threading.Thread(target=ex.spin, daemon=True)
    t.start()
    return ex, t


def _embedded(benchmark, agent_name, actions, width, episode=0):
    from hazard_sim.agents import make_agent
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.perception.embedded import EmbeddedPerception, PerceptionSettings
    from hazard_sim.render.camera import CameraSpec
    env = EmbodiedEnv(benchmark, "test", episode, seed=0, camera=CameraSpec(width, width, 90.0), frame_limit=2500)
    seen = EmbeddedPerception(PerceptionSettings(), benchmark)    # the ground truth's minimum size, as the node's
    obs, info = seen(*env.reset())
    agent = make_agent(agent_name, seed=0, benchmark=benchmark)
    agent.reset(obs, info)
    for _ in range(actions):
        a = agent.act(obs, info)
        if a == "Done":
            break
        obs, _, term, trunc, info = env.step(a)
        obs, info = seen(obs, info)
        if term or trunc:
            return env.metrics()
    env.step("Done")
    return env.metrics()


@pytest.mark.parametrize("episode,agent,actions", [(56, "frontier", 40), (345, "random", 60)])
def test_decision_node_runs_a_doze_agent_over_dds_with_the_embedded_results(ros_env, episode, agent, actions):
    """sim_node (lock-step) + perception_node and the DOZE decision node in two DDS participants run a level-3
    episode (episode 56: 40 actions with collisions, then Done; episode 345:
    the agent says Done itself, a success); the metrics on episode/metrics equal the embedded
    run's (same episode, seed, camera)."""
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter

    from hazard_ros.sim_node import SimNode
    from perception_node.perception_node import PerceptionNode
    from planner_node.plugins.doze import DozeDecisionNode
    width, bench = 96, "doze/level3"
    ctxs = [Context(), Context()]
    for c in ctxs:
        rclpy.init(context=c, domain_id=ros_env)
    spun = []
    try:
        sim = SimNode(context=ctxs[0], parameter_overrides=[Parameter(k, value=v) for k, v in dict(
            benchmark=bench, episode=episode, lockstep=True, camera_width=width, camera_height=width, camera_rate=2.0,
            lidar_rate=0.0, gps_rate=0.0, imu_rate=0.0, frame_limit=2500).items()])
        # the decision node sees objects only through perception (groundtruth backend, lock-step)
        perc = PerceptionNode(context=ctxs[0], parameter_overrides=[Parameter("lockstep", value=True)])
        dec = DozeDecisionNode(context=ctxs[1], parameter_overrides=[
            Parameter("agent", value=agent), Parameter("benchmark", value=bench),
            Parameter("max_actions", value=actions),
            Parameter("wait_timeout", value=20.0)])
        spun = [_spin_in_thread(sim, ctxs[0]), _spin_in_thread(perc, ctxs[0]), _spin_in_thread(dec, ctxs[1], threads=4)]
        got = dec.run()
        assert got is not None, "no episode/metrics"
        want = _embedded(bench, agent, actions, width, episode)
        keys = ("success", "spl", "collisions", "steps", "cr", "distance_to_goal", "path_length", "frames",
                "blocked_moves", "goal", "level", "goal_type", "episode")
        assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
        if episode == 56:              # forced Done after the actions; people came close to the robot (collisions
            # as the paper counts them) but waited for it instead of walking through it, so no move was blocked
            assert got["steps"] == actions + 1 and got["frames"] == 5 * actions + 1
            assert got["collisions"] > 0 and got["blocked_moves"] == 0 and got["path_length"] > 0
        else:                          # the agent's own Done, near the goal
            assert got["success"] and got["steps"] < actions
    finally:
        for ex, _ in spun:
            ex.shutdown()
        for c in ctxs:
            if c.ok():
                rclpy.shutdown(context=c)


def test_decision_node_rejects_unknown_doze_agents_and_picks_doze_random(ctx):  # noqa: F811
    from rclpy.parameter import Parameter

    from planner_node.plugins.doze import DozeDecisionNode, action_twist, parse_doze_action
    with pytest.raises(ValueError, match="unknown DOZE agent 'greedy'"):
        DozeDecisionNode(context=ctx, parameter_overrides=[Parameter("agent", value="greedy")])
    assert parse_doze_action("move_ahead") == "MoveAhead"
    with pytest.raises(ValueError, match="unknown DOZE action"):
        parse_doze_action("jump")
    assert action_twist("RotateRight") == pytest.approx((0.0, -np.radians(60.0)))
    with pytest.raises(ValueError, match="not a motion action"):
        action_twist("Done")


def test_perception_classes_come_from_the_goal_text(ctx):  # noqa: F811
    """The perception node (ground-truth detector) takes its class list from the DOZE task's
    goal text, and detects only the goal's category."""
    import json

    from rclpy.parameter import Parameter
    from std_msgs.msg import String

    from hazard_ros.ros_qos import LATCHED
    from hazard_sim.tasks.doze.goal_language import goal_class
    from hazard_sim.tasks.doze.task import ObjectNavTask
    from perception_node.detectors import GroundTruthDetector
    from perception_node.perception_node import PerceptionNode, classes_from_task
    # the DOZE task names its goal's class in the task it publishes; the perception node reads it
    task = ObjectNavTask.describe(SimpleNamespace(name=ObjectNavTask.name, goal_text="a yellow watering can"),
                                  SimpleNamespace(benchmark="doze/level1", spec_b=SimpleNamespace(max_steps=500)))
    assert task["detect_classes"] == ["watering can"] == [goal_class("a yellow watering can")]
    assert classes_from_task(task) == ["watering can"]
    with pytest.raises(ValueError, match="goal"):
        classes_from_task({"goal": ""})
    with pytest.raises(ValueError, match="detect_classes"):
        classes_from_task({"goal": "a red mug"})
    det = GroundTruthDetector({5: "watering can", 6: "mug"}, classes=classes_from_task({"detect_classes": ["mug"]}),
                              min_pixels=1)
    seg = np.zeros((8, 8), np.int32)
    seg[:4, :4], seg[4:, 4:] = 5, 6
    assert [d.label for d in det.detect(None, {"seg": seg})] == ["mug"]

    h = Harness(ctx, benchmark="doze/level1", lockstep=True)
    perc = PerceptionNode(context=ctx, parameter_overrides=[Parameter("detector", value="groundtruth"),
                                                            Parameter("lockstep", value=True)])
    h.ex.add_node(perc)
    try:
        got = []
        h.probe.create_subscription(String, "perception/classes", lambda m: got.append(json.loads(m.data)), LATCHED)
        want = goal_class(h.sim.env.task.goal_text)
        assert h.spin_until(lambda: got and got[-1]["source"] == "task")
        assert got[-1]["classes"] == [want] and want in h.sim.env.task.goal_text
    finally:
        h.close()
        perc.destroy_node()
