"""The humanoid of HAZARD: a body on the floor with a head camera and one hand.

Its numbers live here and nowhere else (the planner and decision nodes import them).
ThreeDWorld's Replicant gait timing per frame is not in the public HAZARD code, while its
hazards are specified per frame; so the body's per-frame rates are a calibration
(docs/hazard.md, "Calibration"; ``benchmarks/calibrate_gait.py``): walking 0.01 m per
frame, turning 3 degrees per frame, a pick-up (turn, reach, grasp, reset arm) 75 frames and
a drop into the bag or a cart 50 frames, chosen on the train split so that the
nearest-first agent spends as many frames per rescued object as in the paper (its Step).
These are a 0.5 m/s walk, 150 deg/s turns, 1.5 s and 1 s arm motions if a frame is 0.02 s
(the physics step of Unity, ThreeDWorld's engine); on this simulator's 0.1 s frame clock
(ROS ``/clock``) the body is five times slower.
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
    walk_per_frame: float = 0.01
    turn_per_frame_deg: float = 3.0
    reach: float = 2.5
    pick_frames: int = 75
    drop_frames: int = 50

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
