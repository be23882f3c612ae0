"""Continuous control of a :class:`~hazard_sim.env.HazardEnv`, frame by frame (ROS-free).

HAZARD's actions (``walk_to``, ``pick_up``, ...) run many frames at once; a
robot driven by velocity commands (ROS ``cmd_vel``) instead needs "advance one
frame while moving at (v, w)". This module adds that on top of the env's own
rules (``_advance`` for time and hazards, ``_try_move`` for collisions and
bump sensing, the humanoid's walking and turning limits), plus what a
simulator front-end needs around it:

* :func:`drive` one frame with a velocity command;
* :func:`observe` render the head camera (optionally without the hazard image);
* :func:`nearest_reachable_target` the target a "pick up" button should take;
* :func:`lidar_scan` a 360 degree multi-ring scan cast on the env's renderer scene;
* :func:`sensor_mounts` fixed sensor poses on the body (for TF);
* :class:`MotionTracker` velocities / accelerations from successive poses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.geometry import wrap_angle
from hazard_sim.render.camera import BODY_FROM_OPTICAL, body_rotation
from hazard_sim.world import FLAME_ID, FRAME_DT

LIDAR_HEIGHT = 1.8      # m above the floor (top of the head)
IMU_HEIGHT = 1.0        # m (pelvis)
GPS_HEIGHT = 1.7        # m (shoulders)


# ============================================================================ state
def update_done(env) -> bool:
    """Mark the episode over when time is up or every target is rescued (what
    ``HazardEnv.step`` decides after an action); returns ``env.done``."""
    if not env.done:
        all_rescued = all(o.location == "rescued" for o in env.world.targets())
        env.done = bool(env.out_of_time or all_rescued)
    return env.done


def limits(env) -> tuple[float, float]:
    """Largest linear (m/s) and angular (rad/s) speed of the body."""
    s = env.humanoid_spec
    return s.walk_per_frame / FRAME_DT, math.radians(s.turn_per_frame_deg) / FRAME_DT


@dataclass
class DriveResult:
    advanced: bool          # a frame was simulated (False at the frame limit / episode over)
    moved: bool             # the body changed place this frame through the command
    bumped: bool            # the commanded step was blocked (a wall, furniture, a fire)


def drive(env, v: float, w: float) -> DriveResult:
    """Advance ``env`` one frame while walking at ``v`` m/s (negative: backwards)
    and turning at ``w`` rad/s (counter-clockwise), clipped to the body's limits
    and slowed by the hazard where ``hazards_affect_agent`` is set.

    Like ``move_by`` / ``walk_to``: time (and the hazard's push) advances first,
    then the body turns and tries the step with the env's collision rules.
    """
    if env.done or not env._advance(1):
        update_done(env)
        return DriveResult(False, False, False)
    vmax, wmax = limits(env)
    v, w = float(np.clip(v, -vmax, vmax)), float(np.clip(w, -wmax, wmax))
    agent = env.agent
    if w:
        agent.yaw = wrap_angle(agent.yaw + w * FRAME_DT)
    moved = bumped = False
    if abs(v) > 1e-9:
        factor = env._step_speed() / env.humanoid_spec.walk_per_frame
        step = v * FRAME_DT * factor
        target = agent.xy + step * np.array([math.cos(agent.yaw), math.sin(agent.yaw)])
        moved = env._try_move(target)
        bumped = not moved
    update_done(env)
    return DriveResult(True, moved, bumped)


# ============================================================================ camera
def observe(env, hazard: bool = True, observation_map: bool = True) -> dict:
    """Render the head camera as ``HazardEnv._observe`` does (updating the
    observed objects and the env's observation map). With ``hazard=False`` the
    hazard image (thermal / water level, the costliest post-processing) is left
    out (``obs["hazard"] is None``); with ``observation_map=False`` the env's
    observation map (used only by its ``walk_to`` action) is not updated, which
    saves unprojecting every pixel. The env's per-action observation list is
    cleared: a caller that drives frame by frame would otherwise grow it forever.
    """
    if hazard and observation_map:
        obs = env._observe()
    else:
        env._refresh_dynamic()
        pos, rot = env.agent.camera_pose()
        frame = env.renderer.render(pos, rot, env.world.hazard.water_surface())
        movable = np.isin(frame.seg, [o.id for o in env.world.objects]) | (frame.seg == FLAME_ID)
        if observation_map:
            env.memory_map.integrate(frame.points, movable)
        env.observed_ids |= set(np.unique(frame.seg[movable]).tolist())
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rot, pos
        obs = {"rgb": frame.rgb, "depth": frame.depth, "seg": frame.seg,
               "hazard": env.world.hazard.hazard_image(frame, env.world) if hazard else None,
               "camera_K": env.camera.intrinsics(), "camera_pose": pose,
               "agent_pose": np.array([*env.agent.xy, env.agent.yaw]),
               "held": np.int64(env.agent.held.id if env.agent.held else -1),
               "frame": np.int64(env.world.frame)}
        env.last_obs = obs
    env._pending.clear()
    return obs


# ============================================================================ manipulation
def nearest_reachable_target(env) -> tuple[int | None, str]:
    """Id of the nearest target object that is in the scene, has been observed,
    is within reach and not behind a wall; or ``(None, reason)``."""
    agent = env.agent
    if agent.held is not None:
        return None, f"hands full: holding {agent.held.id} ({agent.held.name})"
    seen = [o for o in env.world.targets() if o.location == "scene" and o.id in env.observed_ids]
    if not seen:
        return None, "no target object observed yet"
    seen.sort(key=lambda o: float(np.linalg.norm(o.position[:2] - agent.xy)))
    reach = env.humanoid_spec.reach
    for o in seen:
        d = float(np.linalg.norm(o.position[:2] - agent.xy))
        if d > reach:
            break
        if not env._wall_between(o.position):
            return o.id, ""
    o = seen[0]
    d = float(np.linalg.norm(o.position[:2] - agent.xy))
    return None, (f"no observed target within reach ({reach} m, not behind a wall); nearest is "
                  f"{o.id} ({o.name}) at {d:.2f} m")


# ============================================================================ sensors
def sensor_mounts(spec) -> dict[str, tuple[str, np.ndarray]]:
    """Fixed transforms of the sensor frames: child -> (parent, 4x4 parent_T_child).

    The head camera sits at ``eye_height`` pitched down by ``camera_pitch_deg``
    (``camera_link``, REP 103 axes); ``camera_optical_frame`` is x right, y down,
    z forward. Composing them with the body pose gives ``Humanoid.camera_pose``.
    """
    def mount(z, rot=np.eye(3)):
        T = np.eye(4)
        T[:3, :3], T[2, 3] = rot, z
        return T
    return {
        "camera_link": ("base_link", mount(spec.eye_height, body_rotation(0.0, math.radians(spec.camera_pitch_deg)))),
        "camera_optical_frame": ("camera_link", mount(0.0, BODY_FROM_OPTICAL)),
        "lidar_link": ("base_link", mount(LIDAR_HEIGHT)),
        "imu_link": ("base_link", mount(IMU_HEIGHT)),
        "gps_link": ("base_link", mount(GPS_HEIGHT)),
    }


_LIDAR_DIRS: dict[tuple, np.ndarray] = {}


def lidar_directions(beams: int, rings: int, vfov_deg: tuple[float, float]) -> np.ndarray:
    """(rings * beams, 3) unit ray directions in the lidar frame, ring-major."""
    key = (beams, rings, tuple(vfov_deg))
    if key not in _LIDAR_DIRS:
        az = np.linspace(-np.pi, np.pi, beams, endpoint=False)
        el = np.radians(np.linspace(vfov_deg[0], vfov_deg[1], rings)) if rings > 1 else np.zeros(1)
        ce, se = np.cos(el)[:, None], np.sin(el)[:, None]
        d = np.stack([ce * np.cos(az)[None], ce * np.sin(az)[None], np.broadcast_to(se, (rings, beams))], -1)
        _LIDAR_DIRS[key] = d.reshape(-1, 3).astype(np.float32)
    return _LIDAR_DIRS[key]


def lidar_scan(env, beams: int = 360, rings: int = 16, vfov_deg=(-15.0, 15.0),
               max_range: float = 20.0, height: float = LIDAR_HEIGHT) -> np.ndarray:
    """Points (N, 3) float32 in the lidar frame (x forward, z up, at ``height``
    above the body origin) of one 360 degree scan: all rays in one cast on the
    env renderer's scene (walls, furniture, objects, flames; water is not seen)."""
    env._refresh_dynamic()
    local = lidar_directions(beams, rings, vfov_deg)
    c, s = math.cos(env.agent.yaw), math.sin(env.agent.yaw)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], np.float32)
    rays = np.empty((len(local), 6), np.float32)
    rays[:, :3] = (env.agent.xy[0], env.agent.xy[1], height)
    rays[:, 3:] = local @ rot.T
    t = env.renderer.cast_rays(rays)
    hit = t <= max_range
    return local[hit] * t[hit, None]


class MotionTracker:
    """Body-frame velocity (vx, vy, wz) and acceleration from the pose of each frame."""

    def __init__(self, xy, yaw: float):
        self.xy, self.yaw = np.asarray(xy, float).copy(), float(yaw)
        self.v_world = np.zeros(2)
        self.wz = 0.0
        self.accel_body = np.zeros(2)

    def update(self, xy, yaw: float, frames: int = 1) -> None:
        """Record the pose after ``frames`` more frames (0: nothing happened)."""
        if frames <= 0:
            return
        dt = frames * FRAME_DT
        xy = np.asarray(xy, float)
        v = (xy - self.xy) / dt
        self.wz = wrap_angle(yaw - self.yaw) / dt
        a = (v - self.v_world) / dt
        c, s = math.cos(yaw), math.sin(yaw)
        self.accel_body = np.array([c * a[0] + s * a[1], -s * a[0] + c * a[1]])
        self.v_world, self.xy, self.yaw = v, xy.copy(), float(yaw)

    @property
    def v_body(self) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return np.array([c * self.v_world[0] + s * self.v_world[1], -s * self.v_world[0] + c * self.v_world[1]])
