"""Scenes: static geometry (floors, walls, boxes, meshes, terrain) every benchmark builds its
worlds from (:mod:`hazard_sim.scenes.base`); the benchmarks' own scene builders live in their
task folders (HAZARD's houses and street regions in :mod:`hazard_sim.tasks.hazard.scenes`)."""
from hazard_sim.scenes.base import Part, Scene

__all__ = ["Part", "Scene"]
