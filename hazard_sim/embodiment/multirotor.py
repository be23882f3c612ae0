"""A multirotor UAV body: velocity commands with limited acceleration, speed, climb rate
and yaw rate, an altitude ceiling, crash detection, four named cameras and LiDAR / IMU /
GPS mounts.

Frames (REP 103 / 105): ``base_link`` x forward, y left, z up, yaw only (the cameras sit
on a stabilised gimbal, so the body's roll and pitch while accelerating are not modelled
in the camera poses). Cameras, named like AirSim's (``front_center``, ``front_left``,
``front_right``, ``bottom_center``), each with an ``camera_<name>_optical_frame`` mount
(x right, y down, z forward): front_center looks ahead pitched down by ``camera_pitch``,
front_left / front_right are turned 60 degrees to each side with the same pitch (together
a 210 degree forward fan with 90 degree lenses), bottom_center looks straight down.
``camera_optical_frame`` (the env's main camera) is front_center.

Dynamics per frame of ``dt`` seconds: the command (body frame: vx forward, vy left, vz up
m/s, wz rad/s) is clipped to the limits; the world-frame velocity moves towards it by at
most ``max_accel * dt`` horizontally and ``max_vaccel * dt`` vertically; yaw turns at the
commanded rate; the climb stops at ``ceiling`` (m above sea level, set per map). The new
position is checked along the way (every <= ``radius`` m) with ``free(point3)``: touching
the ground, the water surface, a tree or a rock, or leaving the map is a crash; the body
stops there and stays crashed. A landed body (see :meth:`set_landed`) is not crashed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.embodiment import (
    CommandError,
    Embodiment,
    Limits,
    Motion,
    SensorMount,
    Twist,
    check_command,
    mount,
)
from hazard_sim.geometry import wrap_angle
from hazard_sim.render.camera import BODY_FROM_OPTICAL, body_rotation

__all__ = ["CAMERAS", "CommandError", "Multirotor", "MultirotorSpec"]

CAMERAS = ("front_center", "front_left", "front_right", "bottom_center")


@dataclass(frozen=True)
class MultirotorSpec:
    radius: float = 0.5            # m, collision sphere
    height: float = 0.3
    max_speed: float = 10.0        # m/s horizontal
    max_climb: float = 4.0         # m/s vertical
    max_yaw_rate: float = math.radians(90.0)
    max_accel: float = 5.0         # m/s^2 horizontal
    max_vaccel: float = 3.0        # m/s^2 vertical
    camera_pitch: float = math.radians(20.0)   # down from horizontal
    side_yaw: float = math.radians(60.0)

    def limits(self) -> Limits:
        return Limits(self.max_speed, self.max_yaw_rate, self.max_climb)

    def camera_rotation(self, name: str) -> np.ndarray:
        """base_link-from-optical rotation of camera ``name``."""
        yaw, pitch = {"front_center": (0.0, self.camera_pitch), "front_left": (self.side_yaw, self.camera_pitch),
                      "front_right": (-self.side_yaw, self.camera_pitch),
                      "bottom_center": (0.0, math.pi / 2)}[name]
        return body_rotation(yaw, pitch) @ BODY_FROM_OPTICAL

    def mounts(self) -> list[SensorMount]:
        out = [mount(f"camera_{c}_optical_frame", "base_link", -0.1, self.camera_rotation(c), (0.15, 0.0))
               for c in CAMERAS]
        out.append(mount("camera_optical_frame", "base_link", -0.1, self.camera_rotation("front_center"), (0.15, 0.0)))
        out += [mount("lidar_link", "base_link", 0.1), mount("imu_link", "base_link", 0.0),
                mount("gps_link", "base_link", 0.12)]
        return out


class Multirotor(Embodiment):
    kind = "multirotor"

    def __init__(self, position, yaw: float, spec: MultirotorSpec = MultirotorSpec(), ceiling: float = math.inf):
        self.spec = spec
        p = np.asarray(position, float)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise ValueError(f"UAV start position must be (x, y, z) finite, got {position!r}")
        self.xy = p[:2].copy()
        self.z = float(p[2])
        self.yaw = float(yaw)
        self.vel = np.zeros(3)
        self.yaw_rate = 0.0
        self.accel = np.zeros(3)
        self.ceiling = float(ceiling)
        self.crashed = False
        self.crash_point: np.ndarray | None = None
        self.landed = False
        self.trace = [self.position.copy()]
        self.distance = 0.0

    @property
    def velocity(self) -> np.ndarray:
        return self.vel.copy()

    def set_landed(self, landed: bool) -> None:
        self.landed = bool(landed)
        if landed:
            self.vel[:] = 0.0
            self.yaw_rate = 0.0

    def _move(self, new: np.ndarray, free) -> Motion:
        old = self.position
        step = new - old
        n = max(1, int(math.ceil(np.linalg.norm(step) / max(self.radius, 1e-3))))
        for k in range(1, n + 1):
            q = old + step * (k / n)
            if not free(q):
                self.crashed = True
                self.crash_point = q
                self.vel[:] = 0.0
                self.yaw_rate = 0.0
                if k > 1:
                    self._set(old + step * ((k - 1) / n))
                return Motion(k > 1, True, q[:2].copy())
        self._set(new)
        return Motion(bool(np.any(step)), False, None)

    def _set(self, p: np.ndarray) -> None:
        self.distance += float(np.linalg.norm(p - self.position))
        self.xy = p[:2].copy()
        self.z = float(p[2])
        self.trace.append(self.position.copy())

    def apply(self, twist: Twist, dt: float, free, speed_factor: float = 1.0) -> Motion:
        twist = check_command(twist)
        if self.crashed:
            return Motion()
        t = self.limits.clip(twist)
        if self.landed:
            if t.vz <= 0.0:                       # on the ground: only a climb command lifts off
                return Motion()
            self.landed = False
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        want = np.array([c * t.vx - s * t.vy, s * t.vx + c * t.vy, t.vz]) * speed_factor
        dv = want - self.vel
        h = np.linalg.norm(dv[:2])
        amax = self.spec.max_accel * dt
        if h > amax:
            dv[:2] *= amax / h
        dv[2] = float(np.clip(dv[2], -self.spec.max_vaccel * dt, self.spec.max_vaccel * dt))
        self.accel = dv / dt
        self.vel = self.vel + dv
        self.yaw_rate = t.wz
        self.yaw = wrap_angle(self.yaw + t.wz * dt)
        new = self.position + self.vel * dt
        if new[2] > self.ceiling:
            new[2] = self.ceiling
            self.vel[2] = 0.0
        return self._move(new, free)

    def step_to(self, xy, free) -> Motion:
        """A displacement forced on the body (wind): to ``xy`` (2-D, same altitude) or a 3-D point."""
        if self.crashed or self.landed:
            return Motion()
        p = np.asarray(xy, float)
        new = np.array([p[0], p[1], p[2] if p.size > 2 else self.z])
        return self._move(new, free)
