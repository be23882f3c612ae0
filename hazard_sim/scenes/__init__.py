"""Scenes: static geometry (floors, walls, boxes, meshes, terrain) every benchmark builds its
worlds from (:mod:`hazard_sim.scenes.base`); each benchmark's own scene builders live in its
task folder (``hazard_sim/tasks/<name>/``)."""
from hazard_sim.scenes.base import Part, Scene

__all__ = ["Part", "Scene"]
