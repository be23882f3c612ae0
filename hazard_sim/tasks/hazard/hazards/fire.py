"""HAZARD's fire model: object temperatures, ignition, floor fire spread.

Numbers from the paper and its public code (docs/hazard.md, "Models and numbers"):

* Temperatures (Celsius) update every 5 frames.  A non-burning object moves
  toward its environment temperature, ``T <- 0.97 T + 0.03 T_env`` with
  ``T_env = (20 * 1 + sum_j T_j w_j) / (1 + sum_j w_j)``, ``w_j = (0.5 / max(d_ij, 0.1))^2``
  over every other object and every burning floor cell (at 600 C).
* An object whose temperature exceeds its category's ignition point starts
  BURNING, stays at 600 C and heats others; after 300 updates (1500 frames) it is
  BURNT.  A burnt object no longer burns and cools like any other object.
  Fireproof objects never ignite.
* The floor is a grid of 0.2 m cells.  Every 10 frames (a tick) a burning cell's
  flame grows (scale 0.1 -> 0.8 in steps of 0.05).  As in the public code, a cell
  spreads only once its flame is at full scale; it then tries each of its 4
  directions once per tick, each try succeeding with probability ``p(t)``, where t
  counts the frames since the cell's last spread (or ignition) in units of 5
  frames: 0.02 for t <= 30, rising linearly to 1.0 at t = 50.  A spread (one or more
  directions caught) restarts the cell's clock.  Cells under walls or furniture
  never catch.
* Ours, documented: a burning object standing on the floor ignites the cell
  under it; the bag-held / rescued objects leave the simulation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hazard_sim.navigation.grid import GridSpec

NORMAL, BURNING, BURNT = 0, 1, 2
STATE_NAMES = ("normal", "burning", "burnt")


@dataclass(frozen=True)
class FireParams:
    room_temperature: float = 20.0
    burning_temperature: float = 600.0
    decay: float = 0.97
    env_weight: float = 1.0
    distance_threshold: float = 0.5
    min_distance: float = 0.1
    update_every: int = 5          # frames between temperature updates
    burn_updates: int = 300        # updates a burning object lasts before BURNT
    cell_size: float = 0.2
    tick_frames: int = 10          # frames per fire-spread tick
    clock_frames: int = 5          # the spread probability's clock counts frames in these units
    scale_start: float = 0.1
    scale_max: float = 0.8
    scale_step: float = 0.05
    p_low: float = 0.02
    t_low: int = 30
    t_high: int = 50


def spread_probability(t, params: FireParams = FireParams()):
    """p(t): 0.02 up to t_low clock units, linear to 1.0 at t_high, 1.0 after."""
    t = np.asarray(t, dtype=float)
    ramp = params.p_low + (1.0 - params.p_low) * (t - params.t_low) / (params.t_high - params.t_low)
    return np.where(t <= params.t_low, params.p_low, np.minimum(ramp, 1.0))


def environment_temperature(positions: np.ndarray, temps: np.ndarray, sources: np.ndarray,
                            source_temp: float, params: FireParams = FireParams()) -> np.ndarray:
    """T_env for each object: weighted mean of room temperature, other objects and sources.

    positions (N,3) object centres, temps (N,), sources (M,3) burning cell centres.
    """
    n = len(positions)
    d = np.linalg.norm(positions[:, None, :] - positions[None, :, :], axis=-1)
    w = (params.distance_threshold / np.maximum(d, params.min_distance)) ** 2
    np.fill_diagonal(w, 0.0)
    num = params.room_temperature * params.env_weight + w @ temps
    den = params.env_weight + w.sum(axis=1)
    if len(sources):
        ds = np.linalg.norm(positions[:, None, :] - sources[None, :, :], axis=-1)
        ws = (params.distance_threshold / np.maximum(ds, params.min_distance)) ** 2
        num = num + ws.sum(axis=1) * source_temp
        den = den + ws.sum(axis=1)
    return num / den if n else np.zeros(0)


class ObjectTemperatures:
    """Temperatures and NORMAL / BURNING / BURNT states of N objects."""

    def __init__(self, ignition: np.ndarray, fireproof: np.ndarray, params: FireParams = FireParams()):
        self.p = params
        n = len(ignition)
        self.ignition = np.asarray(ignition, float)
        self.fireproof = np.asarray(fireproof, bool)
        self.temps = np.full(n, params.room_temperature)
        self.states = np.full(n, NORMAL, np.int8)
        self.burn_updates = np.zeros(n, int)
        self.active = np.ones(n, bool)     # False once an object leaves the scene (rescued)

    def update(self, positions: np.ndarray, sources: np.ndarray) -> np.ndarray:
        """One temperature update; returns the indices of objects that ignited now."""
        p, act = self.p, self.active
        burning = self.states == BURNING
        self.burn_updates[burning & act] += 1
        done = burning & (self.burn_updates >= p.burn_updates)
        self.states[done] = BURNT
        idx = np.nonzero(act)[0]
        t_env = environment_temperature(positions[idx], self.temps[idx], sources, p.burning_temperature, p)
        cooling = idx[self.states[idx] != BURNING]
        sel = self.states[idx] != BURNING
        self.temps[cooling] = p.decay * self.temps[cooling] + (1 - p.decay) * t_env[sel]
        ignite = idx[(self.states[idx] == NORMAL) & ~self.fireproof[idx]
                     & (self.temps[idx] > self.ignition[idx])]
        self.states[ignite] = BURNING
        self.temps[self.states == BURNING] = p.burning_temperature
        return ignite


class FloorFire:
    """Burning floor cells on a 0.2 m grid, with HAZARD's spread schedule."""

    def __init__(self, bounds, blocked: np.ndarray | None, params: FireParams = FireParams()):
        self.p = params
        self.spec = GridSpec(tuple(bounds), params.cell_size)
        shape = self.spec.shape
        self.blocked = np.zeros(shape, bool) if blocked is None else blocked
        self.burning = np.zeros(shape, bool)
        self.since_spread = np.zeros(shape, int)      # frames since the cell's last spread
        self.scale = np.zeros(shape)

    def ignite(self, xy) -> bool:
        c = self.spec.to_cell(xy)
        if self.blocked[c] or self.burning[c]:
            return False
        self.burning[c] = True
        self.scale[c] = self.p.scale_start
        self.since_spread[c] = 0
        return True

    def tick(self, rng: np.random.Generator) -> int:
        """One 10-frame tick: grow flames; cells at full scale try their 4 directions;
        returns cells newly on fire."""
        p = self.p
        b = self.burning
        self.scale[b] = np.minimum(self.scale[b] + p.scale_step, p.scale_max)
        self.since_spread[b] += p.tick_frames
        ii, jj = np.nonzero(b & (self.scale >= p.scale_max - 1e-9))
        if len(ii) == 0:
            return 0
        prob = spread_probability(self.since_spread[ii, jj] / p.clock_frames, p)
        go = rng.random((len(ii), 4)) < prob[:, None]          # each direction tried once
        spread = go.any(axis=1)
        self.since_spread[ii[spread], jj[spread]] = 0
        di = np.array([1, -1, 0, 0])
        dj = np.array([0, 0, 1, -1])
        k, d = np.nonzero(go)
        ni, nj = ii[k] + di[d], jj[k] + dj[d]
        h, w = b.shape
        ok = (ni >= 0) & (ni < h) & (nj >= 0) & (nj < w)
        ni, nj = ni[ok], nj[ok]
        fresh = ~self.blocked[ni, nj] & ~b[ni, nj]
        ni, nj = ni[fresh], nj[fresh]
        self.burning[ni, nj] = True
        self.scale[ni, nj] = p.scale_start
        self.since_spread[ni, nj] = 0
        return int(len(np.unique(ni * w + nj)))

    def burning_centres(self, z: float = 0.0) -> np.ndarray:
        ii, jj = np.nonzero(self.burning)
        xy = np.stack([self.spec.bounds[0] + (jj + 0.5) * self.p.cell_size,
                       self.spec.bounds[1] + (ii + 0.5) * self.p.cell_size], axis=-1)
        return np.concatenate([xy, np.full((len(xy), 1), z)], axis=1)

    def temperature_grid(self, sigma_cells: float = 2.0) -> np.ndarray:
        """A blurred floor temperature map (Celsius) for thermal images and agent effects."""
        from scipy.ndimage import gaussian_filter
        heat = gaussian_filter(self.burning.astype(float), sigma_cells, mode="constant")
        heat = np.maximum(heat / max(heat.max(), 1e-9), self.burning) if self.burning.any() else heat
        return self.p.room_temperature + (self.p.burning_temperature - self.p.room_temperature) * heat
