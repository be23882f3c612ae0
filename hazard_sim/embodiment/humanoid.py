"""The humanoid: a body on the floor with a head camera and one hand.

Its numbers live here and nowhere else (the planner and decision nodes import them). They are
ThreeDWorld's Replicant as the public rescue benchmark's code drives it (its docs page,
"Calibration", each number with its source), counted in frames, the unit of every rate there:

* walking 0.04911 m per frame (``meters_per_frame`` of ThreeDWorld's walk motion, which
  ``move_by`` / ``move_to`` play);
* turning 15 degrees per frame: ``turn_by`` / ``turn_to`` set the heading at once, and each
  call then costs its key frame (the public ``next_key_frame`` runs the action's frame and one
  more), about 2 frames per 30-degree turn: an explore (12 such turns) takes 24 frames;
* reach 3.0 m horizontally: a grasp fails only beyond 3.0 m (the public controller's check);
* pick-up 37 frames = turn_to 2 + reach_for 16 + grasp 3 + reset_arm 16 (arm motions of 15
  frames plus their key frame); a drop into the bag held in the other hand 71 frames =
  turn_to 2 + two reach_for 2 x 16 + drop 21 (at most 20 frames) + reset_arm 16; into a cart
  55 frames = turn_to 2 + reach_for 16 + drop 21 + reset_arm 16.

On this simulator's 0.1 s frame clock (ROS ``/clock``) the walk is 0.49 m/s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.embodiment import GroundBody, Limits, SensorMount, mount
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.render.camera import BODY_FROM_OPTICAL, body_rotation, optical_rotation

LIDAR_HEIGHT = 1.8      # m above the floor (top of the head)
IMU_HEIGHT = 1.0        # m (pelvis)
GPS_HEIGHT = 1.7        # m (shoulders)


@dataclass(frozen=True)
class HumanoidSpec:
    radius: float = 0.25
    height: float = 1.8
    eye_height: float = 1.5
    camera_pitch_deg: float = 25.0     # head tilted down, to see objects on the floor
    walk_per_frame: float = 0.04911
    turn_per_frame_deg: float = 15.0
    reach: float = 3.0
    pick_frames: int = 37
    drop_frames: int = 71          # into the bag held in the other hand
    cart_drop_frames: int = 55     # into a shopping cart

    def limits(self, frame_dt: float = FRAME_DT) -> Limits:
        return Limits(self.walk_per_frame / frame_dt, math.radians(self.turn_per_frame_deg) / frame_dt)

    def mounts(self) -> list[SensorMount]:
        """Sensor frames (REP 103 axes; ``camera_optical_frame`` x right, y down, z forward)."""
        return [
            mount("camera_link", "base_link", self.eye_height,
                  body_rotation(0.0, math.radians(self.camera_pitch_deg))),
            mount("camera_optical_frame", "camera_link", 0.0, BODY_FROM_OPTICAL),
            mount("lidar_link", "base_link", LIDAR_HEIGHT),
            mount("imu_link", "base_link", IMU_HEIGHT),
            mount("gps_link", "base_link", GPS_HEIGHT),
        ]


class Humanoid(GroundBody):
    kind = "humanoid"

    def __init__(self, xy, yaw: float, spec: HumanoidSpec = HumanoidSpec()):
        super().__init__(xy, yaw, spec)
        self.held = None          # the entity in hand

    def camera_pose(self):
        """World position and world-from-optical rotation of the head camera."""
        pos = np.array([self.xy[0], self.xy[1], self.spec.eye_height])
        return pos, optical_rotation(self.yaw, np.radians(self.spec.camera_pitch_deg))
