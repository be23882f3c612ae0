"""Flood forces on boxes, following HAZARD's indoor flood scenario (pure numpy).

Everything is vectorised over N boxes and returns world-frame forces and
torques to apply at the box centres (e.g. with ``RigidWorld.step_with``);
gravity is left to the physics engine.

* Buoyancy ``F_up = rho * g * V_sub``.  Approximation: the submerged volume is
  ``V_sub = f * V`` with ``f = clip((h - bottom) / (top - bottom), 0, 1)``
  where bottom/top are the world-z extent of the (possibly rotated) box and
  ``h`` the water surface height at the box centre.  This is exact for an
  upright box and conservative in between for a tilted one.  Buoyancy acts at
  the centre of mass, so it makes no righting torque; angular damping keeps
  floating boxes from spinning.
* Quadratic drag ``F = -0.5 * rho * C_d * A * f * |v_rel| * v_rel`` with
  ``v_rel`` = object velocity - water velocity and ``A`` the box's exact
  projected area normal to ``v_rel``.  Approximation: the submerged part's
  area is ``f * A`` (exact for horizontal flow past an upright box).
* Optional linear damping ``F = -c_lin * rho * V_sub * v_rel`` (``c_lin`` in
  1/s): for a floating body ``rho * V_sub = m``, so ``c_lin`` is directly the
  velocity decay rate.  It stands in for the wave-radiation damping that makes
  real floating objects stop bobbing.
* Angular damping: about each box axis k, ``tau_k = -c_ang * rho * V_sub *
  (h_i^2 + h_j^2) / 3 * omega_k``, i.e. ``c_ang`` (1/s) times the inertia of
  the displaced water.
* Stability: forces are evaluated explicitly once per physics step.  When the
  masses and the step ``dt`` are given, damping is capped so that it can at
  most cancel the relative (angular) velocity within one step, never reverse
  it: ``|F_damp| <= m |v_rel| / dt``.
* The water velocity field is a callable ``points (N, 3) -> (N, 3)`` or a
  constant vector; :func:`uniform_flow` makes the flow that runs away from the
  source wall along a direction with a given speed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from hazard_sim.tasks.hazard.hazards.wind_forces import facing_area

RHO_WATER = 1000.0
G = 9.81


def submerged_fraction(bottoms, tops, water_heights) -> np.ndarray:
    """``clip((h - bottom) / (top - bottom), 0, 1)`` for each box, (N,)."""
    bottoms, tops, h = (np.asarray(a, float) for a in (bottoms, tops, water_heights))
    height = np.maximum(tops - bottoms, 1e-9)
    return np.clip((h - bottoms) / height, 0.0, 1.0)


def buoyancy(volumes, fractions, rho: float = RHO_WATER, g: float = G) -> np.ndarray:
    """Upward force ``rho * g * f * V`` for each box, (N, 3)."""
    up = rho * g * np.asarray(volumes, float) * np.asarray(fractions, float)
    out = np.zeros((up.size, 3))
    out[:, 2] = up.reshape(-1)
    return out


def drag(velocities, water_velocity, areas, fractions, cd: float = 1.0,
         rho: float = RHO_WATER) -> np.ndarray:
    """Quadratic drag ``-0.5 * rho * cd * A * f * |v_rel| * v_rel``, (N, 3).

    ``velocities`` (N, 3); ``water_velocity`` (3,) or (N, 3); ``areas`` and
    ``fractions`` (N,).  ``v_rel = velocities - water_velocity``.
    """
    rel = np.asarray(velocities, float) - np.asarray(water_velocity, float)
    rel = rel.reshape(-1, 3)
    k = 0.5 * rho * cd * np.asarray(areas, float) * np.asarray(fractions, float)
    return -(k * np.linalg.norm(rel, axis=1))[:, None] * rel


def uniform_flow(direction_rad: float, speed: float) -> Callable[[np.ndarray], np.ndarray]:
    """Horizontal water velocity field of constant ``speed`` along ``direction_rad``
    (pointing away from the flood's source wall)."""
    v = speed * np.array([np.cos(direction_rad), np.sin(direction_rad), 0.0])

    def field(points: np.ndarray) -> np.ndarray:
        return np.broadcast_to(v, np.shape(points)).copy()

    return field


def box_z_extent(centers, halfs, rots):
    """World-z bottom and top of each box, (N,) each."""
    reach = np.einsum("nk,nk->n", np.abs(np.asarray(rots)[:, 2, :]), halfs)
    return centers[:, 2] - reach, centers[:, 2] + reach


@dataclass
class FloodForceModel:
    """Buoyancy + drag + damping of boxes in flood water.

    ``water_velocity``: callable ``points (N, 3) -> (N, 3)``, a constant (3,)
    vector, or None for still water.
    """

    rho: float = RHO_WATER
    g: float = G
    cd: float = 1.0
    linear_damping: float = 1.0
    angular_damping: float = 1.0
    water_velocity: Callable | np.ndarray | None = None

    def flow(self, points: np.ndarray) -> np.ndarray:
        if self.water_velocity is None:
            return np.zeros_like(points)
        if callable(self.water_velocity):
            return np.asarray(self.water_velocity(points), float).reshape(points.shape)
        return np.broadcast_to(np.asarray(self.water_velocity, float), points.shape).copy()

    def __call__(self, centers, halfs, rots, velocities, water_height_fn,
                 masses=None, dt: float | None = None, active=None):
        """Forces and torques (N, 3) on boxes.

        ``centers``/``halfs`` (N, 3), ``rots`` (N, 3, 3), ``velocities`` (N, 6)
        (linear then angular, world frame), ``water_height_fn``: callable
        ``xy (N, 2) -> (N,)`` water surface z, or a constant.  ``masses`` (N,)
        and ``dt`` enable the damping cap; ``active`` (N,) bool zeroes the rest.
        """
        centers = np.asarray(centers, float).reshape(-1, 3)
        halfs = np.asarray(halfs, float).reshape(-1, 3)
        rots = np.asarray(rots, float).reshape(-1, 3, 3)
        vel = np.asarray(velocities, float).reshape(-1, 6)
        n = len(centers)
        on = np.ones(n, bool) if active is None else np.asarray(active, bool).reshape(-1)
        h = np.full(n, -np.inf)  # inactive bodies (e.g. parked far away) are never looked up
        if callable(water_height_fn):
            h[on] = water_height_fn(centers[on, :2])
        else:
            h[on] = water_height_fn

        bottoms, tops = box_z_extent(centers, halfs, rots)
        frac_all = submerged_fraction(bottoms, tops, h)
        forces, torques = np.zeros((n, 3)), np.zeros((n, 3))
        # every term scales with the submerged fraction: only wet bodies need the rest
        w = np.flatnonzero(on & (frac_all > 0))
        if len(w) == 0:
            return forces, torques
        halfs, rots, vel, frac = halfs[w], rots[w], vel[w], frac_all[w]
        volume = 8.0 * np.prod(halfs, axis=1)
        displaced = self.rho * volume * frac  # mass of displaced water, kg

        water = self.flow(centers[w])
        rel = vel[:, :3] - water
        area = facing_area(halfs, rots, rel)
        damp = drag(vel[:, :3], water, area, frac, self.cd, self.rho)
        damp -= (self.linear_damping * displaced)[:, None] * rel

        # Angular damping about the body axes, in the body frame.
        w_body = np.einsum("nji,nj->ni", rots, vel[:, 3:])
        h2 = halfs ** 2
        unit_inertia = np.stack([h2[:, 1] + h2[:, 2], h2[:, 0] + h2[:, 2], h2[:, 0] + h2[:, 1]], 1) / 3.0
        ang_coef = (self.angular_damping * displaced)[:, None]

        if masses is not None and dt is not None:
            m = np.asarray(masses, float).reshape(-1)[w]
            cap = m * np.linalg.norm(rel, axis=1) / dt
            mag = np.linalg.norm(damp, axis=1)
            damp *= np.minimum(1.0, cap / np.maximum(mag, 1e-12))[:, None]
            ang_coef = np.minimum(ang_coef, (m / dt)[:, None])
        tau_body = -ang_coef * unit_inertia * w_body
        torques[w] = np.einsum("nij,nj->ni", rots, tau_body)
        forces[w] = buoyancy(volume, frac, self.rho, self.g) + damp
        return forces, torques

    def force_fn(self, world, water_height_fn, hold: int = 1):
        """A ``force_fn(positions, velocities)`` for ``RigidWorld.step_with``.

        ``world`` needs ``halfs``, ``masses``, ``timestep``, ``enabled`` and
        ``rotations()`` (duck-typed: this module does not import MuJoCo).  ``hold``:
        physics steps the forces are held for (``step_with``'s ``every``); the damping
        cap then uses that longer interval.

        The returned function is :class:`FloodForceKernel`: the same arithmetic as
        :meth:`__call__` (bit-identical results), with what depends only on the boxes'
        sizes computed once and the per-call numpy overhead cut.
        """
        return FloodForceKernel(self, world, water_height_fn, hold)


class FloodForceKernel:
    """``FloodForceModel(...)(positions, world.halfs, world.rotations(), velocities, ...)``
    for a fixed world, fused: per body, the volume, the face areas and the unit inertia
    are computed once (the same expressions, row by row, as the model computes them on
    the wet subset), the water height is looked up once per call, and the wrappers
    (``asarray``, ``reshape``, ``np.linalg.norm``, ``np.stack``) are replaced by the
    ufuncs they call, in the same order, so the forces and torques are bit-identical
    to the model's (``test/test_flood_kernels.py``)."""

    def __init__(self, model: FloodForceModel, world, water_height_fn, hold: int = 1):
        self.model, self.world, self.height_fn = model, world, water_height_fn
        halfs = np.asarray(world.halfs, float).reshape(-1, 3)
        self.n = len(halfs)
        self.halfs = halfs
        self.volume = 8.0 * np.prod(halfs, axis=1)
        self.face = 4.0 * np.stack([halfs[:, 1] * halfs[:, 2], halfs[:, 0] * halfs[:, 2],
                                    halfs[:, 0] * halfs[:, 1]], axis=1)
        h2 = halfs ** 2
        self.unit_inertia = np.stack([h2[:, 1] + h2[:, 2], h2[:, 0] + h2[:, 2], h2[:, 0] + h2[:, 1]], 1) / 3.0
        self.masses = np.asarray(world.masses, float).reshape(-1)
        self.dt = world.timestep * hold
        # the model's scalar factors, grouped as its expressions group them
        self.k_drag = 0.5 * model.rho * model.cd
        self.k_buoy = model.rho * model.g

    def __call__(self, positions, velocities):
        model, world = self.model, self.world
        centers = np.asarray(positions, float)
        rots = world.rotations()
        on = np.asarray(world.enabled, bool)
        h = np.full(self.n, -np.inf)
        if callable(self.height_fn):
            h[on] = self.height_fn(centers[on, :2])
        else:
            h[on] = self.height_fn
        reach = np.einsum("nk,nk->n", np.abs(rots[:, 2, :]), self.halfs)
        cz = centers[:, 2]
        bottoms = cz - reach
        height = np.maximum((cz + reach) - bottoms, 1e-9)
        frac_all = np.clip((h - bottoms) / height, 0.0, 1.0)
        forces, torques = np.zeros((self.n, 3)), np.zeros((self.n, 3))
        w = np.flatnonzero(on & (frac_all > 0))
        if len(w) == 0:
            return forces, torques
        rots_w, vel, frac = rots[w], np.asarray(velocities, float)[w], frac_all[w]
        volume = self.volume[w]
        displaced = model.rho * volume * frac
        water = model.flow(centers[w])
        lin = vel[:, :3]
        rel = lin - water
        # facing_area(halfs, rots, rel)
        norm = np.sqrt(np.add.reduce(rel * rel, axis=1))
        unit = np.divide(rel, norm[:, None], out=np.zeros_like(rel), where=norm[:, None] > 0)
        cos = np.abs(np.einsum("ni,nik->nk", unit, rots_w))
        area = np.add.reduce(cos * self.face[w], axis=1)
        # drag(lin, water, area, frac) minus the linear damping
        damp = -((self.k_drag * area * frac) * norm)[:, None] * rel
        damp -= (model.linear_damping * displaced)[:, None] * rel
        w_body = np.einsum("nji,nj->ni", rots_w, vel[:, 3:])
        ang_coef = (model.angular_damping * displaced)[:, None]
        m = self.masses[w]
        cap = m * norm / self.dt
        mag = np.sqrt(np.add.reduce(damp * damp, axis=1))
        damp *= np.minimum(1.0, cap / np.maximum(mag, 1e-12))[:, None]
        ang_coef = np.minimum(ang_coef, (m / self.dt)[:, None])
        tau_body = -ang_coef * self.unit_inertia[w] * w_body
        torques[w] = np.einsum("nij,nj->ni", rots_w, tau_body)
        up = np.zeros((len(w), 3))
        up[:, 2] = self.k_buoy * volume * frac
        forces[w] = up + damp
        return forces, torques
