"""Rigid-body physics (MuJoCo) for the objects moved by world processes."""
from hazard_sim.physics.rigid import BodySpec, RigidWorld, quats_to_matrices

__all__ = ["BodySpec", "RigidWorld", "quats_to_matrices"]
