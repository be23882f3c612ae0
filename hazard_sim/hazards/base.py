"""What every hazard offers the world, the renderer, the agent and the metrics."""
from __future__ import annotations

import numpy as np


class Hazard:
    """Base class: a hazard that does nothing.  Subclasses override what they change."""

    name = "none"
    #: the observation channel this hazard adds: "temperature" (C), "water_level" (m) or None
    channel: str | None = None

    def step_frame(self, world) -> None:
        """Advance one frame (called after ``world.frame`` was incremented)."""

    def is_damaged(self, obj, world) -> bool:
        """Whether ``obj`` currently counts as damaged (value halved if rescued now)."""
        return False

    def flames(self) -> tuple[np.ndarray, np.ndarray]:
        """Visible flames: (centres (K,3), half extents (K,3)); empty by default."""
        return np.zeros((0, 3)), np.zeros((0, 3))

    def water_surface(self):
        """A renderer WaterSurface, or None."""
        return None

    def hazard_image(self, frame, world) -> np.ndarray:
        """A blurred hazard image aligned with the camera frame (zeros if none)."""
        return np.zeros(frame.depth.shape, np.float32)

    def reading_at(self, xyz: np.ndarray, world) -> np.ndarray:
        """The hazard reading (temperature C or water level m) at points (N,3)."""
        return np.zeros(len(xyz))

    # hazard effects on the agent (only used when the task enables them)
    def agent_speed_factor(self, xy) -> float:
        return 1.0

    def agent_push(self, xy) -> np.ndarray:
        """Displacement (m per frame) the hazard forces on the agent."""
        return np.zeros(2)

    def agent_blocked(self, xy) -> bool:
        return False
