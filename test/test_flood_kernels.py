"""The fused force kernels give bit-identical forces to the models they replace."""
from __future__ import annotations

import numpy as np
import pytest

from hazard_sim.physics.rigid import quats_to_matrices
from hazard_sim.tasks.hazard.hazards.flood_forces import FloodForceKernel, FloodForceModel
from hazard_sim.tasks.hazard.hazards.flood_level import FloodParams, FloodSurface
from hazard_sim.tasks.hazard.hazards.wind_forces import (
    REST_SPEED,
    REST_SPIN,
    WindForceKernel,
    WindModel,
    static_hold_force,
)


class _World:
    """The duck-typed world a force function reads (as ``RigidWorld`` exposes it)."""

    def __init__(self, rng, n=14):
        self.halfs = rng.uniform(0.02, 0.4, (n, 3))
        self.halfs[0] = [0.3, 0.2, 0.005]                  # a thin board
        self.masses = rng.uniform(0.05, 20.0, n)
        self.frictions = rng.uniform(0.3, 1.0, n)
        self.timestep = 0.005
        self.enabled = np.ones(n, bool)
        self.enabled[[3, 7]] = False                        # picked up: parked far away
        self.quats = rng.normal(size=(n, 4))
        self.quats[1] = [1.0, 0.0, 0.0, 0.0]                # upright

    def rotations(self):
        return quats_to_matrices(self.quats)


def _state(rng, world, n=14):
    pos = np.column_stack([rng.uniform(0, 8, n), rng.uniform(0, 6, n), rng.uniform(-0.05, 1.2, n)])
    pos[[3, 7]] = [[1000.0, 1000.0, -100.0], [1035.0, 1000.0, -100.0]]
    vel = rng.normal(0.0, 0.5, (n, 6))
    vel[2] = 0.0                                            # at rest (zero relative speed in still water)
    vel[5, :3] = [0.3, 0.0, 0.0]                            # moving with the flow
    return pos, vel


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("hold", [1, 4])
def test_flood_kernel_matches_model(seed, hold):
    rng = np.random.default_rng(seed)
    world = _World(rng)
    surface = FloodSurface((0.0, 0.0, 8.0, 6.0), "wns"[seed % 3], FloodParams())
    surface.set_frame(400 + 100 * seed)
    model = FloodForceModel(water_velocity=lambda pts: surface.water_velocity(pts[:, :2]))
    fn = model.force_fn(world, surface.height_at, hold=hold)
    assert isinstance(fn, FloodForceKernel)
    wet_seen = 0
    for _ in range(5):
        pos, vel = _state(rng, world)
        f, t = fn(pos, vel)
        f0, t0 = model(pos, world.halfs, world.rotations(), vel, surface.height_at,
                       masses=world.masses, dt=world.timestep * hold, active=world.enabled)
        assert f.tobytes() == f0.tobytes() and t.tobytes() == t0.tobytes()
        wet_seen += int(np.count_nonzero(f[:, 2]))
    assert wet_seen > 0                                     # the states did reach the water


def test_flood_kernel_constant_level_and_dry():
    rng = np.random.default_rng(9)
    world = _World(rng)
    model = FloodForceModel(water_velocity=np.array([0.2, -0.1, 0.0]))
    pos, vel = _state(rng, world)
    f, t = model.force_fn(world, 0.5)(pos, vel)
    f0, t0 = model(pos, world.halfs, world.rotations(), vel, 0.5, masses=world.masses, dt=world.timestep,
                   active=world.enabled)
    assert f.tobytes() == f0.tobytes() and t.tobytes() == t0.tobytes()
    f, t = model.force_fn(world, 0.0)(pos + [0.0, 0.0, 2.0], vel)      # everything above the water
    assert not f.any() and not t.any()


def _wind_reference(model, world, resistances, hold, keep_resting, in_cart=None):
    """The wind force function as it was written before the fused kernel."""
    hold_limit = static_hold_force(world) if keep_resting else None

    def fn(positions, velocities):
        off = ~np.asarray(world.enabled, bool)
        if in_cart is not None:
            off = off | in_cart
        f, t = model.forces(world.halfs, world.rotations(), velocities, resistances, off,
                            masses=world.masses, dt=world.timestep * hold)
        if hold_limit is not None:
            v = np.asarray(velocities, float)
            rest = (np.einsum("ij,ij->i", v[:, :3], v[:, :3]) < REST_SPEED ** 2) & \
                   (np.einsum("ij,ij->i", v[:, 3:], v[:, 3:]) < REST_SPIN ** 2)
            still = rest & (np.hypot(f[:, 0], f[:, 1]) < hold_limit)
            f[still] = 0.0
            t[still] = 0.0
        return f, t

    return fn


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keep_resting", [False, True])
def test_wind_kernel_matches_model(seed, keep_resting):
    rng = np.random.default_rng(100 + seed)
    world = _World(rng)
    res = rng.choice([0.0, 1.0, 2.0, 3.0, 11.0], size=world.halfs.shape[0])
    in_cart = np.zeros(len(res), bool)
    in_cart[4] = True
    m1 = WindModel(7.5, 0.4 + seed, rng=np.random.default_rng(seed), gain=10.0)
    m2 = WindModel(7.5, 0.4 + seed, rng=np.random.default_rng(seed), gain=10.0)
    fn = m1.force_fn(world, res, in_cart, hold=4, keep_resting=keep_resting)
    assert isinstance(fn, WindForceKernel)
    ref = _wind_reference(m2, world, res, 4, keep_resting, in_cart)
    zeroed = 0
    for frame in range(4):
        if frame:                                          # frame 0: the factors are not drawn yet
            m1.resample_turbulence(len(res))
            m2.resample_turbulence(len(res))
        for _ in range(3):
            pos, vel = _state(rng, world)
            vel[[8, 9]] = 0.0                               # resting bodies (kept at rest if held)
            vel[10] *= 1e-3
            f, t = fn(pos, vel)
            f0, t0 = ref(pos, vel)
            assert f.tobytes() == f0.tobytes() and t.tobytes() == t0.tobytes()
            free = world.enabled & ~in_cart & (res <= 10)
            zeroed += int(np.count_nonzero(free & ~f.any(axis=1)))
    assert (zeroed > 0) == keep_resting                     # the resting rule did hold some bodies
