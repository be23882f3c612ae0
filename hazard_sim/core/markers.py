"""World markers: what is in the world as plain data, for displays and ground-truth consumers.

A :class:`WorldMarker` is a labelled, coloured shape with a pose: an entity (its box), or
something a world process offers through :meth:`WorldProcess.markers` (a walking person as a
cylinder, a terrain as a triangle mesh).  :meth:`World.markers` collects them; front-ends
turn them into their own messages (the ROS sim node: ``visualization_msgs/MarkerArray`` and
``vision_msgs/Detection3DArray``).  Nothing here knows a benchmark: labels are whatever the
entities and processes call themselves.

Shapes: ``box`` / ``cylinder`` / ``sphere`` (``size`` = full extents x, y, z in the marker's
own frame, ``rotation`` world-from-marker), ``mesh`` (``vertices`` (N, 3) world metres,
``faces`` (M, 3) indices, optional per-vertex ``vertex_colors`` (N, 3) uint8).  ``static``
markers do not change during an episode (a terrain); the rest may move every frame.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SHAPES = ("box", "cylinder", "sphere", "mesh")


@dataclass(frozen=True)
class WorldMarker:
    id: int
    label: str
    position: np.ndarray = field(compare=False)               # (3,) centre, world metres
    size: tuple = (1.0, 1.0, 1.0)                             # full extents (m)
    color: tuple = (200, 200, 200)                            # RGB 0..255
    shape: str = "box"
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3), compare=False)
    static: bool = False
    vertices: np.ndarray | None = field(default=None, compare=False)
    faces: np.ndarray | None = field(default=None, compare=False)
    vertex_colors: np.ndarray | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.shape not in SHAPES:
            raise ValueError(f"marker shape must be one of {', '.join(SHAPES)}, got {self.shape!r}")
        if self.shape == "mesh" and (self.vertices is None or self.faces is None):
            raise ValueError(f"mesh marker {self.id} ({self.label}) needs vertices and faces")

    def pose(self) -> np.ndarray:
        """World-from-marker, 4x4."""
        T = np.eye(4)
        T[:3, :3] = self.rotation
        T[:3, 3] = self.position
        return T


def entity_marker(entity) -> WorldMarker:
    """An entity as a box marker: its box, its category's colour, its name as the label."""
    box = entity.box
    return WorldMarker(int(entity.id), str(entity.name), np.asarray(box.center, float).copy(),
                       tuple(float(v) for v in 2.0 * np.asarray(box.half, float)),
                       tuple(int(c) for c in entity.category.color), "box", np.asarray(box.rot, float).copy())
