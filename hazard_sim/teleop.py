"""Continuous control of an :class:`~hazard_sim.core.env.EmbodiedEnv`, frame by frame (ROS-free).

Compressed actions (``walk_to``, ``pick_up``, ...) run many frames at once; a robot
driven by velocity commands (ROS ``cmd_vel``) instead needs "advance one frame while
moving at (v, w)".  The env's public frame API does that (``env.drive``,
``env.observe``, ``env.cast_rays``); this module adds what a simulator front-end
needs around it:

* :func:`drive` one frame with a planar velocity command;
* :func:`observe` render the body's camera (optionally without field images);
* :func:`nearest_reachable_target` the target a "pick up" button should take;
* :func:`lidar_scan` a 360 degree multi-ring scan cast on the env's scene;
* :func:`sensor_mounts` fixed sensor poses on the body (for TF);
* :func:`mount_height` how high a sensor frame sits on the body (from the body spec);
* :class:`MotionTracker` velocities / accelerations from successive poses.
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.core.embodiment import Twist
from hazard_sim.core.env import DriveResult
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.outcome import Status
from hazard_sim.geometry import wrap_angle

__all__ = ["DriveResult", "MotionTracker", "drive", "limits", "lidar_directions", "lidar_scan", "mount_height",
           "nearest_reachable_target", "observe", "sensor_mounts", "update_done"]


# ============================================================================ state
def update_done(env) -> bool:
    """Mark the episode over when time is up or the task is accomplished (what
    ``env.step`` decides after an action); returns ``env.done``."""
    return env.update_done()


def limits(env) -> tuple[float, float]:
    """Largest linear (m/s) and angular (rad/s) speed of the body."""
    lim = env.agent.limits
    return lim.linear, lim.angular


def drive(env, v: float, w: float) -> DriveResult:
    """Advance ``env`` one frame while moving at ``v`` m/s (negative: backwards) and
    turning at ``w`` rad/s (counter-clockwise): ``env.drive(Twist(vx=v, wz=w))``."""
    return env.drive(Twist(vx=float(v), wz=float(w)))


# ============================================================================ camera
def observe(env, fields: bool = True, observation_map: bool = True) -> dict:
    """Render the body's camera (``env.observe``); with ``fields=False`` field images
    (thermal / water level, the costliest post-processing) are left out (None); with
    ``observation_map=False`` the walking map (used only by compressed actions) is not
    updated. The per-action observation list is cleared: a caller that drives frame by
    frame would otherwise grow it forever."""
    obs = env.observe(fields=fields, update_map=observation_map)
    env.frames_seen.clear()
    return obs


# ============================================================================ manipulation
def nearest_reachable_target(env) -> tuple[int | None, str, Status]:
    """``(id, "", SUCCEEDED)`` of the nearest target object that is in the scene, has been
    observed, is within reach and not behind a wall; or ``(None, reason, status)``."""
    agent = env.agent
    if agent.held is not None:
        return None, f"hands full: holding {agent.held.id} ({agent.held.name})", Status.HANDS_FULL
    seen = [o for o in env.world.targets() if o.location == "scene" and o.id in env.observed_ids]
    if not seen:
        return None, "no target object observed yet", Status.NOT_VISIBLE
    seen.sort(key=lambda o: float(np.linalg.norm(o.position[:2] - agent.xy)))
    reach = agent.spec.reach
    for o in seen:
        d = float(np.linalg.norm(o.position[:2] - agent.xy))
        if d > reach:
            break
        if not env.line_blocked(agent.xy, o.position):
            return o.id, "", Status.SUCCEEDED
    o = seen[0]
    d = float(np.linalg.norm(o.position[:2] - agent.xy))
    return None, (f"no observed target within reach ({reach} m, not behind a wall); nearest is "
                  f"{o.id} ({o.name}) at {d:.2f} m"), Status.OUT_OF_REACH


# ============================================================================ sensors
def sensor_mounts(spec) -> dict[str, tuple[str, np.ndarray]]:
    """Fixed transforms of the sensor frames: child -> (parent, 4x4 parent_T_child),
    from the body spec's mounts (``HumanoidSpec.mounts``)."""
    return {m.name: (m.parent, m.transform) for m in spec.mounts()}


def mount_height(env, name: str) -> float:
    """Height (m) of the sensor frame ``name`` above the body origin, from the body spec's
    mounts (composed down to ``base_link``); the body's height where it has no such mount."""
    ms = env.agent.mounts()
    if name not in ms:
        return float(env.agent.spec.height)
    T = np.eye(4)
    while name != "base_link":
        T = ms[name].transform @ T
        name = ms[name].parent
    return float(T[2, 3])


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
               max_range: float = 20.0, height: float | None = None) -> np.ndarray:
    """Points (N, 3) float32 in the lidar frame (x forward, z up) of one 360 degree scan cast
    from world height ``height`` (default: the body's ``lidar_link`` mount, :func:`mount_height`):
    all rays in one cast on the env renderer's scene (walls, furniture, objects, flames; water
    is not seen)."""
    if height is None:
        height = env.agent.z + mount_height(env, "lidar_link")
    local = lidar_directions(beams, rings, vfov_deg)
    c, s = math.cos(env.agent.yaw), math.sin(env.agent.yaw)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], np.float32)
    rays = np.empty((len(local), 6), np.float32)
    rays[:, :3] = (env.agent.xy[0], env.agent.xy[1], height)
    rays[:, 3:] = local @ rot.T
    t = env.cast_rays(rays)
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
