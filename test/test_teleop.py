"""hazard_sim.teleop (ROS-free): frame-by-frame velocity control of HazardEnv, the
pick-up target choice, the LiDAR scan, sensor mounts and the motion tracker."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim import teleop
from hazard_sim.core.outcome import Status
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.hazard.env import HazardEnv


@pytest.fixture
def env():
    e = HazardEnv("fire", camera=CameraSpec(48, 36, 90.0))
    e.reset()
    return e


def test_drive_moves_turns_and_clips(env):
    spec = env.humanoid_spec
    vmax, wmax = teleop.limits(env)
    assert vmax == pytest.approx(spec.walk_per_frame * 10)
    assert wmax == pytest.approx(math.radians(spec.turn_per_frame_deg) * 10)
    x0, yaw0 = env.agent.xy.copy(), env.agent.yaw
    r = teleop.drive(env, vmax / 2, 0.0)
    assert r.advanced and r.moved and env.world.frame == 1
    assert np.linalg.norm(env.agent.xy - x0) == pytest.approx(spec.walk_per_frame / 2)
    teleop.drive(env, 0.0, 100.0)                                  # clipped to the turn rate
    assert math.degrees(env.agent.yaw - yaw0) == pytest.approx(spec.turn_per_frame_deg)
    before = env.agent.xy.copy()
    teleop.drive(env, 50.0, 0.0)                                   # clipped to the walking speed
    assert np.linalg.norm(env.agent.xy - before) == pytest.approx(spec.walk_per_frame)


def test_drive_into_a_wall_bumps(env):
    bumped = False
    for _ in range(2000):                                          # walk straight until something stops us
        r = teleop.drive(env, 1.0, 0.0)
        if r.bumped:
            bumped = True
            break
    assert bumped and not r.moved
    assert env.memory_map.bumped.any()                             # the env's bump sensing ran


def test_episode_ends_at_the_frame_limit(env):
    env.frame_limit = 3
    for _ in range(3):
        assert teleop.drive(env, 0.0, 0.0).advanced
    assert env.done
    assert not teleop.drive(env, 1.0, 0.0).advanced and env.world.frame == 3


def test_observe_without_hazard_and_pending_cleared(env):
    obs = teleop.observe(env, fields=False, observation_map=False)
    assert obs["field"] is None and obs["rgb"].shape == (36, 48, 3) and env.frames_seen == []
    hits_before = env.memory_map.hits.sum()
    teleop.observe(env, fields=True, observation_map=False)
    assert env.memory_map.hits.sum() == hits_before
    obs = teleop.observe(env)                                     # the env's own observe
    assert obs["field"].shape == (36, 48) and env.frames_seen == []


def test_nearest_reachable_target(env):
    env.observed_ids.clear()
    target, why, status = teleop.nearest_reachable_target(env)
    assert target is None and why == "no target object observed yet" and status is Status.NOT_VISIBLE
    obj = env.world.targets()[0]
    env.observed_ids.add(obj.id)
    env.agent.xy = obj.position[:2] + np.array([env.agent.spec.reach + 0.5, 0.0])
    target, why, status = teleop.nearest_reachable_target(env)
    assert target is None and status is Status.OUT_OF_REACH and f"nearest is {obj.id}" in why
    env.agent.xy = obj.position[:2] + np.array([0.6, 0.0])
    if not env.is_free(env.agent.xy):
        env.agent.xy = obj.position[:2] + np.array([-0.6, 0.0])
    target, why, status = teleop.nearest_reachable_target(env)
    assert target == obj.id and status is Status.SUCCEEDED, why
    env.agent.held = obj
    assert teleop.nearest_reachable_target(env)[2] is Status.HANDS_FULL


def test_lidar_scan_in_lidar_frame(env):
    pts = teleop.lidar_scan(env, beams=180, rings=8, max_range=20.0)
    assert pts.dtype == np.float32 and pts.shape[1] == 3 and 0 < len(pts) <= 180 * 8
    rng = np.linalg.norm(pts, axis=1)
    assert rng.max() <= 20.0 + 1e-4 and rng.min() > 0.05
    # rays are relative to the body: turning the body turns the scan
    env.agent.yaw += math.pi / 2
    turned = teleop.lidar_scan(env, beams=180, rings=8)
    assert turned.shape == pts.shape or abs(len(turned) - len(pts)) < 0.05 * len(pts)
    # every point lies in the scene bounds once put in the world frame
    x0, y0, x1, y1 = env.world.scene.bounds
    c, s = math.cos(env.agent.yaw), math.sin(env.agent.yaw)
    wx = env.agent.xy[0] + c * turned[:, 0] - s * turned[:, 1]
    wy = env.agent.xy[1] + s * turned[:, 0] + c * turned[:, 1]
    assert np.all((wx > x0 - 0.5) & (wx < x1 + 0.5) & (wy > y0 - 0.5) & (wy < y1 + 0.5))


def test_sensor_mounts_give_the_camera_pose(env):
    m = teleop.sensor_mounts(env.humanoid_spec)
    T = env.agent.pose_matrix() @ m["camera_link"][1] @ m["camera_optical_frame"][1]
    pos, rot = env.agent.camera_pose()
    assert np.allclose(T[:3, 3], pos) and np.allclose(T[:3, :3], rot)
    assert {parent for parent, _ in m.values()} == {"base_link", "camera_link"}


def test_motion_tracker():
    tr = teleop.MotionTracker((0.0, 0.0), math.pi / 2)
    yaw = math.pi / 2 + 0.1                                         # turn left, then 0.1 m forward
    xy = (0.1 * math.cos(yaw), 0.1 * math.sin(yaw))
    tr.update(xy, yaw)
    assert tr.v_body == pytest.approx([1.0, 0.0], abs=1e-9) and tr.wz == pytest.approx(1.0)
    tr.update(xy, yaw, frames=0)                                    # nothing happened
    assert tr.wz == pytest.approx(1.0)
    tr.update(xy, yaw, frames=2)                                    # stopped over 0.2 s
    assert tr.v_body == pytest.approx([0.0, 0.0]) and tr.accel_body[0] == pytest.approx(-5.0)


def test_sensor_heights_come_from_the_body_spec(env):
    # the humanoid's mounts: LiDAR on top of the head (1.8 m), GPS at the shoulders (1.7 m)
    assert teleop.mount_height(env, "lidar_link") == 1.8 and teleop.mount_height(env, "gps_link") == 1.7
    assert teleop.mount_height(env, "camera_link") == env.humanoid_spec.eye_height
    assert teleop.mount_height(env, "no_such_link") == env.humanoid_spec.height     # no mount: top of the body
    default = teleop.lidar_scan(env, beams=36, rings=2)
    assert np.array_equal(default, teleop.lidar_scan(env, beams=36, rings=2, height=1.8))
    low = teleop.lidar_scan(env, beams=36, rings=2, height=0.3)
    assert not np.array_equal(low, default)
    # another body: its own mounts (DOZE's LoCoBot: LiDAR at 0.3 m, GPS at 0.9 m)
    from hazard_sim.core.env import EmbodiedEnv
    bot = EmbodiedEnv("doze/level1", camera=CameraSpec(16, 12))
    bot.reset()
    assert teleop.mount_height(bot, "lidar_link") == 0.3 and teleop.mount_height(bot, "gps_link") == 0.9
