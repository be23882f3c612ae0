"""LoCoBot, the wheeled robot of DOZE: 0.9 m tall, 0.18 m radius, an RGB-D camera at
its top with a 90 degree field of view, pitched down by the episode's horizon.

Discrete actions (DOZE / AI2-THOR): MoveAhead 0.25 m, RotateLeft / RotateRight 30
degrees; each takes five frames of 0.1 s (0.5 m/s, 60 deg/s, the body's limits),
so a velocity command (``cmd_vel``) drives the same body at the same speeds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.embodiment import GroundBody, Limits, Motion, SensorMount, mount
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.render.camera import BODY_FROM_OPTICAL, body_rotation

MOVE_STEP = 0.25                 # m per MoveAhead
TURN_STEP_DEG = 30.0             # degrees per RotateLeft / RotateRight
FRAMES_PER_ACTION = 5            # 0.5 s of simulated time per action


@dataclass(frozen=True)
class LoCoBotSpec:
    radius: float = 0.18
    height: float = 0.9
    camera_height: float = 0.88
    horizon_deg: float = 10.0     # camera pitch, positive looks down (AI2-THOR's horizon)
    move_step: float = MOVE_STEP
    turn_step_deg: float = TURN_STEP_DEG
    frames_per_action: int = FRAMES_PER_ACTION

    def limits(self, frame_dt: float = FRAME_DT) -> Limits:
        t = self.frames_per_action * frame_dt
        return Limits(self.move_step / t, math.radians(self.turn_step_deg) / t)

    def mounts(self) -> list[SensorMount]:
        return [
            mount("camera_link", "base_link", self.camera_height, body_rotation(0.0, math.radians(self.horizon_deg))),
            mount("camera_optical_frame", "camera_link", 0.0, BODY_FROM_OPTICAL),
            mount("lidar_link", "base_link", 0.3),
            mount("imu_link", "base_link", 0.2),
            mount("gps_link", "base_link", 0.9),
        ]


class LoCoBot(GroundBody):
    """The wheeled base. Unlike a walking body it does not slide along obstacles: a step
    into one stops where it is (AI2-THOR's MoveAhead fails)."""

    kind = "locobot"

    def __init__(self, xy, yaw: float, spec: LoCoBotSpec = LoCoBotSpec()):
        super().__init__(xy, yaw, spec)
        self.path_length = 0.0

    def step_to(self, xy, free) -> Motion:
        xy = np.asarray(xy, float)
        if not free(xy):
            return Motion(False, True, xy)
        self.path_length += float(np.linalg.norm(xy - self.xy))
        self.xy = xy
        self.trace.append(xy.copy())
        return Motion(True, False, None)


def locobot_from_episode(ep: dict, spec: LoCoBotSpec = LoCoBotSpec()) -> LoCoBot:
    """The body at an episode's start: ``initial_position`` (x, y; z is the height as in
    DOZE's files), ``initial_orientation`` (yaw, degrees), ``initial_horizon`` (pitch)."""
    from dataclasses import replace
    x, y = ep["initial_position"][:2]
    spec = replace(spec, horizon_deg=float(ep.get("initial_horizon", spec.horizon_deg)))
    return LoCoBot((x, y), math.radians(float(ep["initial_orientation"])), spec)
