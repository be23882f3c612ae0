"""Wind forces on boxes, following HAZARD's outdoor wind scenario (pure numpy).

Model (vectorised over N objects):

* The wind is a uniform velocity ``speed * (cos d, sin d, 0)`` (HAZARD draws
  5-10 m/s and a random direction ``d``) plus a small horizontal turbulence
  vector of fixed length ``turbulence`` and random direction, redrawn once per
  frame by :meth:`WindModel.resample_turbulence`.
* An object of wind resistance ``r`` (per category) feels ``v_wind / (r + 1)``;
  with ``r > 10`` the wind cannot move it at all (zero force and torque).
* Force ``F = rho_air * |v_rel| * v_rel * A`` with ``rho_air = 1.225 kg/m^3``,
  ``v_rel`` = felt wind - object velocity (both horizontal) and ``A`` the
  box's area facing ``v_rel`` (:func:`facing_area`).  As in HAZARD there is no
  factor 1/2 and no drag coefficient: they are folded into ``A``.
* A cross force of ``cross_fraction * |F|`` times a factor in [-1, 1],
  horizontal and perpendicular to the wind, and a torque about z of
  ``torque_scale * |F| * r_xy`` times a factor in [-1, 1] (``r_xy`` the box's
  horizontal half diagonal).  The factors are drawn per object and per frame
  together with the turbulence, so :meth:`WindModel.forces` itself is a pure
  function of the state and can be evaluated at every physics substep.
* Objects resting in a cart (mask) feel nothing.
* ``gain`` (default 1) scales the drag-law force for tuning; it is applied
  before the stability cap of :meth:`WindModel.forces`, so prefer it to
  scaling the returned forces.

All randomness comes from the ``numpy.random.Generator`` given to the model.
"""
from __future__ import annotations

import numpy as np

RHO_AIR = 1.225
MAX_RESISTANCE = 10.0


def facing_area(halfs: np.ndarray, rots: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Projected area (m^2) of each box on the plane normal to ``direction``.

    Exact for a box: ``sum_k |n . a_k| * F_k`` where ``a_k`` is the box's k-th
    axis (column k of its rotation) and ``F_k = 4 h_i h_j`` the area of the
    face normal to it.  ``halfs`` (N, 3), ``rots`` (N, 3, 3), ``direction``
    (3,) or (N, 3), need not be unit length (zero gives zero area).
    """
    halfs = np.asarray(halfs, float).reshape(-1, 3)
    rots = np.asarray(rots, float).reshape(-1, 3, 3)
    d = np.broadcast_to(np.asarray(direction, float), halfs.shape)
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    n = np.divide(d, norm, out=np.zeros_like(d), where=norm > 0)
    face = 4.0 * np.stack([halfs[:, 1] * halfs[:, 2], halfs[:, 0] * halfs[:, 2],
                           halfs[:, 0] * halfs[:, 1]], axis=1)
    cos = np.abs(np.einsum("ni,nik->nk", n, rots))  # |n . a_k|
    return np.sum(cos * face, axis=1)


class WindModel:
    """HAZARD wind: felt wind per object, force and torque on boxes."""

    def __init__(self, speed: float, direction_rad: float, turbulence: float = 0.5,
                 cross_fraction: float = 0.05, torque_scale: float = 0.05,
                 rng: np.random.Generator | None = None, rho_air: float = RHO_AIR,
                 gain: float = 1.0):
        self.speed = float(speed)
        self.direction_rad = float(direction_rad)
        self.turbulence = float(turbulence)
        self.cross_fraction = float(cross_fraction)
        self.torque_scale = float(torque_scale)
        self.rho_air = float(rho_air)
        self.gain = float(gain)  # tuning factor on the drag-law force, applied before the cap
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.turbulence_vector = np.zeros(3)
        self._cross = np.zeros(0)
        self._spin = np.zeros(0)

    @property
    def direction(self) -> np.ndarray:
        """Unit horizontal direction the wind blows towards."""
        return np.array([np.cos(self.direction_rad), np.sin(self.direction_rad), 0.0])

    @property
    def velocity(self) -> np.ndarray:
        """Current wind velocity (3,), turbulence included."""
        return self.speed * self.direction + self.turbulence_vector

    def resample_turbulence(self, n: int | None = None) -> None:
        """Draw a new turbulence vector and, for ``n`` objects, new cross/torque factors.

        Call once per frame (agent step), not per physics substep.
        """
        a = self.rng.uniform(0.0, 2.0 * np.pi)
        self.turbulence_vector = self.turbulence * np.array([np.cos(a), np.sin(a), 0.0])
        n = len(self._cross) if n is None else n
        self._cross = self.rng.uniform(-1.0, 1.0, n)
        self._spin = self.rng.uniform(-1.0, 1.0, n)

    def felt_wind(self, resistances) -> np.ndarray:
        """Wind felt by each object, (N, 3): ``v_wind / (r + 1)``, zero when ``r > 10``."""
        r = np.asarray(resistances, float).reshape(-1)
        scale = np.where(r > MAX_RESISTANCE, 0.0, 1.0 / (r + 1.0))
        return scale[:, None] * self.velocity[None, :]

    def forces(self, halfs, rots, velocities, resistances, in_cart_mask=None,
               masses=None, dt: float | None = None):
        """World-frame forces and torques (N, 3) on the boxes.

        ``velocities`` (N, 3) or (N, 6) (only the horizontal linear part is
        used); ``in_cart_mask`` (N,) bool: objects in a cart feel nothing.
        With ``masses`` (N,) and the physics step ``dt``, the drag-like force is
        capped at ``m |v_rel| / dt`` so that, evaluated explicitly, it can at most
        bring a very light object to the wind's speed within one step.
        """
        halfs = np.asarray(halfs, float).reshape(-1, 3)
        n = len(halfs)
        if len(self._cross) != n:  # factors not drawn for this many objects yet
            self._cross, self._spin = np.zeros(n), np.zeros(n)
        v = np.asarray(velocities, float).reshape(n, -1)[:, :3].copy()
        v[:, 2] = 0.0
        felt = self.felt_wind(resistances)
        rel = felt - v
        rel[:, 2] = 0.0
        speed = np.linalg.norm(rel, axis=1)
        area = facing_area(halfs, rots, np.where(speed[:, None] > 0, rel, self.direction))
        f = self.gain * self.rho_air * (speed * area)[:, None] * rel
        if masses is not None and dt is not None:
            cap = np.asarray(masses, float).reshape(-1) * speed / dt
            mag = self.gain * self.rho_air * speed ** 2 * area
            f *= np.minimum(1.0, cap / np.maximum(mag, 1e-12))[:, None]

        off = np.linalg.norm(felt, axis=1) == 0.0  # resistance > 10: immovable
        if in_cart_mask is not None:
            off |= np.asarray(in_cart_mask, bool).reshape(-1)
        f[off] = 0.0
        mag = np.linalg.norm(f, axis=1)
        d = self.direction
        perp = np.array([-d[1], d[0], 0.0])
        f = f + (self.cross_fraction * self._cross * mag)[:, None] * perp
        torques = np.zeros((n, 3))
        torques[:, 2] = self.torque_scale * self._spin * mag * np.hypot(halfs[:, 0], halfs[:, 1])
        return f, torques

    def force_fn(self, world, resistances, in_cart_mask=None, hold: int = 1, keep_resting: bool = False):
        """A ``force_fn(positions, velocities)`` for ``RigidWorld.step_with``.

        ``world`` needs ``halfs``, ``masses``, ``timestep``, ``enabled`` and
        ``rotations()``; disabled bodies (picked up, in a cart) feel nothing.
        ``hold``: physics steps the forces are held for (the cap then uses that interval).

        ``keep_resting``: a body at rest (:data:`REST_SPEED`, :data:`REST_SPIN`) whose wind
        force could neither slide nor tip it (:func:`static_hold_force`) gets no force, so
        that the engine keeps it asleep; with the force applied it would stay awake and
        only creep (a few cm over an episode) through the engine's soft contacts, which a
        rigid body held by Coulomb friction does not do.  A gust above the threshold
        applies the force again, which wakes the body.
        """
        return WindForceKernel(self, world, resistances, in_cart_mask, hold, keep_resting)


class WindForceKernel:
    """The force function of :meth:`WindModel.force_fn`: :meth:`WindModel.forces` on the
    world's bodies (disabled ones and those in ``in_cart_mask`` feel nothing) and the
    ``keep_resting`` rule, fused for a fixed world.  The box sizes' terms are computed
    once, the felt wind once per turbulence draw (once a frame), and the numpy wrappers
    are replaced by the ufuncs they call in the same order: the forces and torques are
    bit-identical to :meth:`WindModel.forces` (``test/test_flood_kernels.py``)."""

    def __init__(self, model: WindModel, world, resistances, in_cart_mask=None, hold: int = 1,
                 keep_resting: bool = False):
        self.model, self.world, self.in_cart_mask = model, world, in_cart_mask
        halfs = np.asarray(world.halfs, float).reshape(-1, 3)
        self.n = len(halfs)
        self.face = 4.0 * np.stack([halfs[:, 1] * halfs[:, 2], halfs[:, 0] * halfs[:, 2],
                                    halfs[:, 0] * halfs[:, 1]], axis=1)
        self.reach = np.hypot(halfs[:, 0], halfs[:, 1])
        self.resistances = np.asarray(resistances, float).reshape(-1)
        self.masses = np.asarray(world.masses, float).reshape(-1)
        self.dt = world.timestep * hold
        self.hold_limit = static_hold_force(world) if keep_resting else None
        self._key = None

    def _per_draw(self):
        """Felt wind, immovable mask, direction and cross direction for the current draw."""
        m = self.model
        key = (m.speed, m.direction_rad, m.turbulence_vector.tobytes())
        if key != self._key:
            felt = m.felt_wind(self.resistances)
            d = m.direction
            self._draw = (felt, np.linalg.norm(felt, axis=1) == 0.0, d, np.array([-d[1], d[0], 0.0]))
            self._key = key
        return self._draw

    def __call__(self, positions, velocities):
        m, world, n = self.model, self.world, self.n
        if len(m._cross) != n:  # factors not drawn for this many objects yet (as WindModel.forces)
            m._cross, m._spin = np.zeros(n), np.zeros(n)
        felt, immovable, d, perp = self._per_draw()
        rots = world.rotations()
        off = ~np.asarray(world.enabled, bool)
        if self.in_cart_mask is not None:
            off = off | np.asarray(self.in_cart_mask, bool)
        vel = np.asarray(velocities, float)
        rel = felt - vel[:, :3]
        rel[:, 2] = 0.0
        speed = np.sqrt(np.add.reduce(rel * rel, axis=1))
        toward = np.where(speed[:, None] > 0, rel, d)
        norm = np.sqrt(np.add.reduce(toward * toward, axis=1))[:, None]
        unit = np.divide(toward, norm, out=np.zeros_like(toward), where=norm > 0)
        area = np.add.reduce(np.abs(np.einsum("ni,nik->nk", unit, rots)) * self.face, axis=1)
        k = m.gain * m.rho_air
        f = k * (speed * area)[:, None] * rel
        cap = self.masses * speed / self.dt
        mag = k * speed ** 2 * area
        f *= np.minimum(1.0, cap / np.maximum(mag, 1e-12))[:, None]
        f[immovable | off] = 0.0
        mag = np.sqrt(np.add.reduce(f * f, axis=1))
        f = f + (m.cross_fraction * m._cross * mag)[:, None] * perp
        t = np.zeros((n, 3))
        t[:, 2] = m.torque_scale * m._spin * mag * self.reach
        if self.hold_limit is not None:
            rest = (np.einsum("ij,ij->i", vel[:, :3], vel[:, :3]) < REST_SPEED ** 2) & \
                   (np.einsum("ij,ij->i", vel[:, 3:], vel[:, 3:]) < REST_SPIN ** 2)
            still = rest & (np.hypot(f[:, 0], f[:, 1]) < self.hold_limit)
            f[still] = 0.0
            t[still] = 0.0
        return f, t


#: a body slower than this (m/s) and spinning slower than :data:`REST_SPIN` (rad/s) is at rest
REST_SPEED, REST_SPIN = 0.01, 0.1
#: share of the friction / tipping limit below which a resting body is left at rest
HOLD_SAFETY = 0.5


def static_hold_force(world, g: float = 9.81) -> np.ndarray:
    """(N,) horizontal force (N) that surely moves none of the world's resting boxes:
    ``HOLD_SAFETY * m g * min(mu, min(hx, hy) / hz)``, i.e. half of what Coulomb friction
    (coefficient ``mu``, the body's own: ``world.frictions``) holds, and half of what tips
    an upright box over its nearest edge (force at the centre, height ``hz`` above the
    support, restoring lever ``min(hx, hy)``).  The safety margin covers bodies resting
    tilted or on each other, where the limits are lower."""
    h = np.asarray(world.halfs, float).reshape(-1, 3)
    mu = np.asarray(getattr(world, "frictions", np.full(len(h), 0.8)), float)
    lever = np.minimum(h[:, 0], h[:, 1]) / np.maximum(h[:, 2], 1e-9)
    return HOLD_SAFETY * np.asarray(world.masses, float) * g * np.minimum(mu, lever)
