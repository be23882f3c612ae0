"""The humanoid of HAZARD: a body on the floor with a head camera and one hand.

Numbers (documented deviations from ThreeDWorld's Replicant, whose exact gait
timing is not public): walking 0.05 m per frame (0.5 m/s at 10 frames/s, a cautious walk), turning
15 degrees per frame, a pick-up (reach + reset arm) 15 frames, a drop 10 frames.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.render.camera import optical_rotation


@dataclass(frozen=True)
class HumanoidSpec:
    radius: float = 0.25
    eye_height: float = 1.5
    camera_pitch_deg: float = 25.0     # head tilted down, to see objects on the floor
    walk_per_frame: float = 0.05
    turn_per_frame_deg: float = 15.0
    reach: float = 2.5
    pick_frames: int = 15
    drop_frames: int = 10


class Humanoid:
    def __init__(self, xy, yaw: float, spec: HumanoidSpec = HumanoidSpec()):
        self.spec = spec
        self.xy = np.asarray(xy, float).copy()
        self.yaw = float(yaw)
        self.held = None          # the SimObject in hand
        self.trace = [self.xy.copy()]

    @property
    def position(self) -> np.ndarray:
        return np.array([self.xy[0], self.xy[1], 0.0])

    def camera_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """World position and world-from-optical rotation of the head camera."""
        pos = np.array([self.xy[0], self.xy[1], self.spec.eye_height])
        return pos, optical_rotation(self.yaw, np.radians(self.spec.camera_pitch_deg))

    def pose_matrix(self) -> np.ndarray:
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        m = np.eye(4)
        m[:2, :2] = [[c, -s], [s, c]]
        m[:2, 3] = self.xy
        return m
