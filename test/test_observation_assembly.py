"""ROS-free assembly of agent observations from decoded sensor data (planner_node.observation).

The reference is HazardEnv itself: its observation, taken apart into the pieces the
sim publishes (images, K, TF chain map -> odom -> base_link -> camera), must come back
out of the assembler equal, and an agent must decide the same on both.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hazard_ros.tf_math import TfBuffer
from hazard_sim import teleop
from hazard_sim.agents import make_agent
from hazard_sim.tasks.hazard.env import HazardEnv
from planner_node.locomotion import straight_free
from planner_node.observation import (
    ObservationAssembler,
    action_result,
    agent_pose_from_matrix,
    build_info,
    build_observation,
    frame_of,
    merge_observations,
    parse_status,
    parse_task,
)

NS = 1_000_000_000


def planar(x, y, yaw):
    c, s = math.cos(yaw), math.sin(yaw)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    T[:2, 3] = (x, y)
    return T


def tf_for(env, stamps_poses) -> TfBuffer:
    """The TF tree sim_node publishes: static map -> odom and sensor mounts, dynamic odom -> base_link."""
    tf = TfBuffer()
    tf.set_transform(np.eye(4), "map", "odom", 0, static=True)
    for child, (parent, T) in teleop.sensor_mounts(env.humanoid_spec).items():
        tf.set_transform(T, parent, child, 0, static=True)
    for stamp, (x, y, yaw) in stamps_poses:
        tf.set_transform(planar(x, y, yaw), "odom", "base_link", stamp)
    return tf


@pytest.fixture(scope="module")
def fire_env():
    env = HazardEnv("fire", "test", 0)
    obs, info = env.reset()
    return env, obs, info


def sim_task(env) -> dict:
    """The task JSON as it travels on the `task` topic (and back)."""
    task = dict(env.task_description(), episode=0, bounds=list(env.world.scene.bounds), frame_dt=0.1)
    return json.loads(json.dumps(task))


def test_assembled_observation_equals_the_env_observation(fire_env):
    env, obs, info = fire_env
    frame = int(obs["frame"])
    stamp = frame * NS // 10
    tf = tf_for(env, [(stamp, obs["agent_pose"])])
    asm = ObservationAssembler("temperature")
    asm.set_camera_info(obs["camera_K"])
    for kind in ("rgb", "depth", "seg", "field"):
        asm.add(kind, stamp, obs[kind].copy(), "camera_optical_frame" if kind != "field" else "")
    out = asm.pop_complete(tf, held=-1)
    assert len(out) == 1
    got = out[0]
    assert set(got) == set(obs)
    for k, v in obs.items():
        v, g = np.asarray(v), np.asarray(got[k])
        assert g.dtype == v.dtype and g.shape == v.shape, k
        if k in ("camera_pose", "agent_pose", "camera_K"):
            assert np.allclose(g, v, atol=1e-9), k
        else:
            assert np.array_equal(g, v), k
    assert asm.pending == {}


def test_agent_decides_the_same_on_assembled_observations(fire_env):
    env, obs, info = fire_env
    stamp = int(obs["frame"]) * NS // 10
    tf = tf_for(env, [(stamp, obs["agent_pose"])])
    asm = ObservationAssembler("temperature")
    asm.set_camera_info(obs["camera_K"])
    for kind in ("rgb", "depth", "seg", "field"):
        asm.add(kind, stamp, obs[kind], "camera_optical_frame")
    ros_obs = asm.pop_complete(tf, held=-1)[0]
    labels = json.loads(json.dumps({str(k): v for k, v in info["labels"].items()}))   # LabelInfo round trip
    task = parse_task(sim_task(env))
    ros_info = build_info({int(k): v for k, v in labels.items()}, [ros_obs], action_result("reset", True, 0),
                          [], task["bounds"], task=task, frame=int(ros_obs["frame"]))
    assert set(ros_info) == set(info)
    assert ros_info["action_result"] == info["action_result"]
    a_env, a_ros = (make_agent("greedy", benchmark="hazard/fire", seed=3) for _ in range(2))
    a_env.reset(obs, info)
    a_ros.reset(ros_obs, ros_info)
    assert a_ros.act(ros_obs, ros_info) == a_env.act(obs, info)
    assert set(a_ros.memory.objects) == set(a_env.memory.objects)
    for oid, rec in a_env.memory.objects.items():
        assert np.allclose(a_ros.memory.objects[oid].position, rec.position, atol=1e-6)


def test_incomplete_frames_wait_and_older_ones_are_dropped():
    tf = TfBuffer()
    tf.set_transform(np.eye(4), "map", "odom", 0, static=True)
    tf.set_transform(np.eye(4), "base_link", "camera_optical_frame", 0, static=True)
    asm = ObservationAssembler("water_level")
    img = np.zeros((4, 6), np.float32)
    rgb = np.zeros((4, 6, 3), np.uint8)
    seg = np.zeros((4, 6), np.int32)
    s1, s2 = 1 * NS // 10, 2 * NS // 10
    asm.add("rgb", s1, rgb, "camera_optical_frame")
    asm.add("depth", s1, img)
    asm.add("seg", s1, seg)
    assert asm.complete_stamps() == []                 # flood needs the water-level image
    asm.add("field", s1, img + 0.3)
    assert asm.complete_stamps() == [s1]
    assert asm.pop_complete(tf, -1) == []              # no K yet
    asm.set_camera_info(np.array([[5.0, 0, 3], [0, 5, 2], [0, 0, 1]]))
    assert asm.pop_complete(tf, -1) == []              # no odom -> base_link yet
    for kind, a in (("rgb", rgb), ("depth", img), ("seg", seg), ("field", img)):
        asm.add(kind, s2, a)
    tf.set_transform(planar(1.0, 2.0, 0.5), "odom", "base_link", s2)
    tf.set_transform(planar(1.5, 2.0, 0.5), "odom", "base_link", 3 * NS // 10)
    out = asm.pop_complete(tf, held=7)
    # frame 1 is older than the TF history: it uses the latest pose; both come out in order
    assert [int(o["frame"]) for o in out] == [1, 2]
    assert np.allclose(out[1]["agent_pose"], (1.0, 2.0, 0.5))
    assert out[1]["held"] == 7 and out[0]["hazard"][0, 0] == pytest.approx(0.3)
    assert asm.pending == {}
    # frames newer than the TF history wait for their pose
    for kind, a in (("rgb", rgb), ("depth", img), ("seg", seg), ("field", img)):
        asm.add(kind, 4 * NS // 10, a)
    assert asm.pop_complete(tf, -1) == []
    tf.set_transform(planar(2.0, 2.0, 0.5), "odom", "base_link", 4 * NS // 10)
    assert np.allclose(asm.pop_complete(tf, -1)[0]["agent_pose"], (2.0, 2.0, 0.5))
    for k in range(30):                               # a bounded backlog
        asm.add("rgb", (10 + k) * NS // 10, rgb)
    assert len(asm.pending) == asm.max_pending
    with pytest.raises(ValueError, match="unknown image kind"):
        asm.add("thermal", s1, img)


def test_build_observation_checks_inputs():
    K = np.array([[5.0, 0, 3], [0, 5, 2], [0, 0, 1]])
    o = build_observation(np.zeros((2, 3, 3), np.uint8), np.ones((2, 3)), np.zeros((2, 3)), None, K, np.eye(4),
                          [0, 0, 0], None, 5)
    assert o["hazard"].dtype == np.float32 and not o["hazard"].any()
    assert o["held"] == -1 and o["frame"] == 5 and o["seg"].dtype == np.int32
    with pytest.raises(ValueError, match="rgb must be"):
        build_observation(np.zeros((2, 2, 3), np.uint8), np.ones((2, 3)), np.zeros((2, 3)), None, K, np.eye(4),
                          [0, 0, 0], None, 5)
    with pytest.raises(ValueError, match="camera_K"):
        build_observation(np.zeros((2, 3, 3), np.uint8), np.ones((2, 3)), np.zeros((2, 3)), None, np.zeros((3, 3)),
                          np.eye(4), [0, 0, 0], None, 5)


def test_status_task_and_helpers():
    s = parse_status({"frame": 12, "held": None, "rescued_ids": [3], "done": False, "last_result": {}})
    assert s == {"frame": 12, "held": -1, "rescued_ids": [3], "done": False, "last_result": {}}
    assert parse_status({"frame": 1, "held": 1003})["held"] == 1003
    t = parse_task({"hazard": "wind", "targets": [], "bounds": [0, 0, 5, 5], "containers": {"41": "cart_0"}})
    assert t["containers"] == {41: "cart_0"}
    with pytest.raises(ValueError, match="lacks"):
        parse_task({"hazard": "fire"})
    with pytest.raises(ValueError, match="unknown field channel 'lava'"):
        parse_task({"hazard": "fire", "targets": [], "bounds": [0, 0, 1, 1], "channel": "lava"})
    assert frame_of(1_500_000_000) == 15
    assert np.allclose(agent_pose_from_matrix(planar(1, 2, 0.3)), (1, 2, 0.3))
    o = {f: {"frame": np.int64(f)} for f in (10, 13, 20, 25, 30)}
    merged = merge_observations([o[10], o[20], o[30]], [o[13], o[20]], o[25])
    assert [int(m["frame"]) for m in merged] == [10, 13, 20, 25]


def test_straight_free_stops_at_obstacles():
    from hazard_sim.navigation.grid import GridSpec
    spec = GridSpec((0.0, 0.0, 5.0, 3.0), 0.1)
    blocked = np.zeros(spec.shape, bool)
    blocked[:, 30:] = True                             # blocked from x = 3.0 m
    assert straight_free(blocked, spec, (1.0, 1.5, 0.0), 1.0) == pytest.approx(1.0)
    assert straight_free(blocked, spec, (2.5, 1.5, 0.0), 1.0) == pytest.approx(0.45)
    assert straight_free(blocked, spec, (2.5, 1.5, 0.0), -1.0) == pytest.approx(1.0)   # backwards
    assert straight_free(blocked, spec, (1.0, 1.5, math.pi / 2), 2.0) == pytest.approx(1.45)  # map edge
    # standing in the margin: may walk out of it; towards the obstacle only the first 0.3 m
    assert straight_free(blocked, spec, (3.05, 1.5, math.pi), 1.0) == pytest.approx(1.0)
    assert straight_free(blocked, spec, (3.05, 1.5, 0.0), 1.0) == pytest.approx(0.3)


def test_strict_assembly_keeps_frame_order():
    """Lock-step: an older frame that still misses a piece holds newer frames back, so the
    agent sees every frame in order whatever order the topics arrive in."""
    tf = TfBuffer()
    tf.set_transform(np.eye(4), "map", "odom", 0, static=True)
    tf.set_transform(np.eye(4), "base_link", "camera_optical_frame", 0, static=True)
    for f in (1, 2):
        tf.set_transform(planar(0.1 * f, 0, 0), "odom", "base_link", f * NS // 10)
    asm = ObservationAssembler(None, strict=True)
    asm.set_camera_info(np.array([[5.0, 0, 3], [0, 5, 2], [0, 0, 1]]))
    img, rgb, seg = np.zeros((4, 6), np.float32), np.zeros((4, 6, 3), np.uint8), np.zeros((4, 6), np.int32)
    asm.add("rgb", NS // 10, rgb, "camera_optical_frame")
    asm.add("depth", NS // 10, img)
    for kind, a in (("rgb", rgb), ("depth", img), ("seg", seg)):
        asm.add(kind, 2 * NS // 10, a)
    assert asm.pop_complete(tf, -1) == []            # frame 2 waits for frame 1
    asm.add("seg", NS // 10, seg)
    assert [int(o["frame"]) for o in asm.pop_complete(tf, -1)] == [1, 2]
