"""A MuJoCo rigid-body world of boxes.

Objects that world processes push or carry move through a real physics
engine so that they collide with the floor, the walls, the furniture and each
other.  The world is built from the same oriented boxes (:class:`Box`) that the
scene description and the ray caster use:

* a floor plane at z = 0 (optional),
* static box geoms attached to the world body (walls, furniture),
* one free-floating box body per :class:`BodySpec` (the objects).

Engine settings (chosen for speed and robustness with ~100 boxes resting on
each other and on furniture, see ``DEFAULT_OPTIONS``):

* ``timestep`` 5 ms: boxes of a few centimetres and speeds of a few m/s move
  far less than a wall thickness per step, so nothing tunnels through walls.
* ``implicitfast`` integrator: implicit in the velocity-dependent forces, more
  stable than Euler at 5 ms, and cheaper than ``implicit``.
* pyramidal friction cones (cheaper than elliptic), ``Newton`` solver with a
  small iteration cap (it converges in a few iterations for resting contacts),
  ``noslip`` off.
* Object geoms have ``priority=1``, so an object's own friction coefficient is
  used against the floor and static furniture; between two objects MuJoCo
  takes the larger of the two coefficients.

External forces (pushes, buoyancy, drag) are applied through ``xfrc_applied``
at each body's centre of mass, which is the box centre.  The simulation is
single-threaded and fully deterministic: the same inputs give bit-identical
outputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mujoco
import numpy as np

from hazard_sim.geometry import Box

DEFAULT_OPTIONS = dict(
    integrator="implicitfast",
    cone="pyramidal",
    solver="Newton",
    iterations=20,
    ls_iterations=10,
    noslip_iterations=0,
)

# Disabled bodies are parked below the floor, far apart, and held there.
_PARK_ORIGIN = np.array([1000.0, 1000.0, -100.0])
_PARK_SPACING = 5.0

ForceFn = Callable[[np.ndarray, np.ndarray], tuple]


@dataclass
class BodySpec:
    """A dynamic box object: initial pose and size from ``box``, ``mass`` in kg."""

    name: str
    box: Box
    mass: float
    friction: float = 0.8


def _quat(rot: np.ndarray) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(rot, dtype=float).ravel())
    return q


def _fmt(v) -> str:
    return " ".join(repr(float(x)) for x in v)


# quats_to_matrices, entry by entry (row-major): the products (of the doubled quaternion
# (w, x, y, z), flattened 4 x 4) A and B, and the sign of B; diagonal entries are 1 - A - B
_Q_IDX = {"w": 0, "x": 1, "y": 2, "z": 3}
_Q_TERMS = (("yy", "zz", -1), ("xy", "wz", -1), ("xz", "wy", 1),
            ("xy", "wz", 1), ("xx", "zz", -1), ("yz", "wx", -1),
            ("xz", "wy", -1), ("yz", "wx", 1), ("xx", "yy", -1))
_Q_A = np.array([4 * _Q_IDX[a[0]] + _Q_IDX[a[1]] for a, _, _ in _Q_TERMS])
_Q_B = np.array([4 * _Q_IDX[b[0]] + _Q_IDX[b[1]] for _, b, _ in _Q_TERMS])
_Q_SIGN = np.array([float(sg) for _, _, sg in _Q_TERMS])
_Q_DIAG = np.array([k in (0, 4, 8) for k in range(9)])


def quats_to_matrices(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (N, 3, 3) from quaternions (N, 4) in (w, x, y, z) order.

    With ``q`` scaled to length sqrt(2) (the products come out doubled), entry by entry:
    ``1 - yy - zz, xy - wz, xz + wy; xy + wz, 1 - xx - zz, yz - wx; xz - wy, yz + wx,
    1 - xx - yy``, computed from all 16 products at once (the same roundings as
    evaluating each entry on its own)."""
    q = np.asarray(q, float)
    q = q * (np.sqrt(2.0) / np.sqrt(np.add.reduce(q * q, axis=1))[:, None])
    prod = (q[:, :, None] * q[:, None, :]).reshape(len(q), 16)
    # take(), not prod[:, idx]: fancy indexing returns a transposed layout, and a matmul with
    # non-contiguous rotations (RigidWorld.velocities) takes another code path, with other
    # roundings; the matrices must come out C-contiguous, as np.empty gave them before
    a, b = prod.take(_Q_A, axis=1), prod.take(_Q_B, axis=1)
    r = np.where(_Q_DIAG, (1.0 - a) - b, a + _Q_SIGN * b)
    return r.reshape(len(q), 3, 3)


def build_mjcf(static_boxes: list[Box], bodies: list[BodySpec], timestep: float,
               floor: bool, options: dict | None = None) -> str:
    """The MJCF text of the world (body ``i`` is named ``b{i}``, its geom ``g{i}``)."""
    opts = dict(DEFAULT_OPTIONS, **(options or {}))
    opt_attr = " ".join(f'{k}="{v}"' for k, v in opts.items())
    lines = [
        '<mujoco model="rigid_world">',
        f'  <option timestep="{timestep!r}" {opt_attr}/>',
        '  <worldbody>',
    ]
    if floor:
        lines.append('    <geom name="floor" type="plane" size="0 0 1" friction="0.8 0.005 0.0001"/>')
    for k, b in enumerate(static_boxes):
        lines.append(f'    <geom name="s{k}" type="box" pos="{_fmt(b.center)}" '
                     f'quat="{_fmt(_quat(b.rot))}" size="{_fmt(b.half)}" friction="0.8 0.005 0.0001"/>')
    for i, spec in enumerate(bodies):
        b = spec.box
        lines += [
            f'    <body name="b{i}" pos="{_fmt(b.center)}" quat="{_fmt(_quat(b.rot))}">',
            '      <freejoint/>',
            f'      <geom name="g{i}" type="box" size="{_fmt(b.half)}" mass="{float(spec.mass)!r}" '
            f'friction="{float(spec.friction)!r} 0.005 0.0001" priority="1"/>',
            '    </body>',
        ]
    lines += ['  </worldbody>', '</mujoco>']
    return "\n".join(lines)


class RigidWorld:
    """Free box bodies among static boxes, stepped by MuJoCo.

    Body ``i`` corresponds to ``bodies[i]``.  All state accessors use the world
    frame; quaternions are (w, x, y, z).
    """

    def __init__(self, static_boxes: list[Box], bodies: list[BodySpec],
                 timestep: float = 0.005, floor: bool = True, options: dict | None = None):
        self.specs = list(bodies)
        self.n = len(self.specs)
        self.names = [s.name for s in self.specs]
        self.halfs = np.array([s.box.half for s in self.specs], float).reshape(self.n, 3)
        self.masses = np.array([s.mass for s in self.specs], float)
        self.frictions = np.array([s.friction for s in self.specs], float)
        self.xml = build_mjcf(static_boxes, self.specs, timestep, floor, options)
        self.model = mujoco.MjModel.from_xml_string(self.xml)
        self.data = mujoco.MjData(self.model)
        self.timestep = float(self.model.opt.timestep)
        # Views into MuJoCo's state: only free joints exist, in body order.
        self._qpos = self.data.qpos.reshape(self.n, 7)
        self._qvel = self.data.qvel.reshape(self.n, 6)
        self._xfrc = self.data.xfrc_applied[1:self.n + 1]
        self._geom = np.array([self.model.geom(f"g{i}").id for i in range(self.n)], int)
        self._contype = self.model.geom_contype[self._geom].copy()
        self._conaffinity = self.model.geom_conaffinity[self._geom].copy()
        self.enabled = np.ones(self.n, bool)
        # where each body is parked while disabled (see _park_pose)
        self._park = _PARK_ORIGIN + np.outer(np.arange(self.n) * _PARK_SPACING, [1, 0, 0])
        self._rot_key, self._rot = None, None
        mujoco.mj_forward(self.model, self.data)

    # ------------------------------------------------------------------ state
    def positions(self) -> np.ndarray:
        """Centre of each body, (N, 3)."""
        return self._qpos[:, :3].copy()

    def quats(self) -> np.ndarray:
        """Orientation of each body, (N, 4) as (w, x, y, z)."""
        return self._qpos[:, 3:].copy()

    def rotations(self) -> np.ndarray:
        """Orientation of each body as rotation matrices, (N, 3, 3).

        Cached for the current orientations: force functions called every
        substep ask for them once for the velocities and once for the forces.
        """
        return self._rotations().copy()

    def _rotations(self) -> np.ndarray:
        """The cached rotation matrices themselves (not to be modified)."""
        key = self._qpos[:, 3:].tobytes()
        if key != self._rot_key:
            self._rot_key, self._rot = key, quats_to_matrices(self._qpos[:, 3:])
        return self._rot

    def velocities(self) -> np.ndarray:
        """(N, 6): linear velocity of the centre, then angular velocity, both in the world frame."""
        v = self._qvel.copy()
        # A free joint's angular velocity is expressed in the body frame.
        v[:, 3:] = (self._rotations() @ v[:, 3:, None])[:, :, 0]
        return v

    def box(self, i: int) -> Box:
        """Current pose of body ``i`` as a :class:`Box`."""
        return Box(self._qpos[i, :3].copy(), self.halfs[i].copy(),
                   quats_to_matrices(self._qpos[i:i + 1, 3:])[0])

    def set_pose(self, i: int, pos, quat=None, zero_velocity: bool = True) -> None:
        self._qpos[i, :3] = pos
        if quat is not None:
            self._qpos[i, 3:] = np.asarray(quat, float) / np.linalg.norm(quat)
        if zero_velocity:
            self._qvel[i] = 0.0
        mujoco.mj_kinematics(self.model, self.data)

    # -------------------------------------------------------- enable/disable
    def _park_pose(self, i: int) -> np.ndarray:
        return _PARK_ORIGIN + np.array([_PARK_SPACING * i, 0.0, 0.0])

    def disable(self, i: int) -> None:
        """Take body ``i`` out of the simulation (picked up, or put in a cart).

        Its geom stops colliding (contype = conaffinity = 0) and the body is
        parked far below the floor, held still there, so it affects nothing.
        """
        self.enabled[i] = False
        self.model.geom_contype[self._geom[i]] = 0
        self.model.geom_conaffinity[self._geom[i]] = 0
        self._qpos[i] = np.r_[self._park_pose(i), 1.0, 0.0, 0.0, 0.0]
        self._qvel[i] = 0.0
        self._xfrc[i] = 0.0
        mujoco.mj_kinematics(self.model, self.data)

    def enable(self, i: int, pos, quat=None) -> None:
        """Put a disabled body back (e.g. dropped on the floor) at ``pos``, at rest."""
        self.enabled[i] = True
        self.model.geom_contype[self._geom[i]] = self._contype[i]
        self.model.geom_conaffinity[self._geom[i]] = self._conaffinity[i]
        self.set_pose(i, pos, quat if quat is not None else [1.0, 0.0, 0.0, 0.0])

    def _hold_disabled(self, off: np.ndarray | None = None) -> None:
        """Put the disabled bodies (``off``: their mask, default ``~enabled``) back at their
        parking places, still."""
        off = ~self.enabled if off is None else off
        if off.any():
            self._qpos[off, :3] = self._park[off]
            self._qpos[off, 3:] = [1.0, 0.0, 0.0, 0.0]
            self._qvel[off] = 0.0

    # ------------------------------------------------------------- stepping
    def n_substeps(self, duration: float) -> int:
        """Number of MuJoCo steps used for ``duration`` seconds (rounded, at least 1)."""
        return max(1, int(round(duration / self.timestep)))

    def _apply(self, forces, torques, off: np.ndarray | None = None) -> None:
        """Set the applied forces and torques, zero on the disabled bodies (``off``: their
        mask, default ``~enabled``)."""
        xf = self._xfrc
        if forces is None or torques is None:
            xf[:] = 0.0
        if forces is not None:
            xf[:, :3] = forces
        if torques is not None:
            xf[:, 3:] = torques
        off = ~self.enabled if off is None else off
        if off.any():
            xf[off] = 0.0

    def step(self, duration: float, forces: np.ndarray | None = None,
             torques: np.ndarray | None = None) -> None:
        """Advance ``duration`` s with constant world-frame forces/torques (N, 3) at the centres."""
        self._apply(forces, torques)
        mujoco.mj_step(self.model, self.data, nstep=self.n_substeps(duration))
        self._xfrc[:] = 0.0
        self._hold_disabled()

    def step_with(self, duration: float, force_fn: ForceFn, every: int = 1) -> None:
        """Advance ``duration`` s, re-evaluating ``force_fn(positions, velocities)``
        -> ``(forces, torques)`` (each (N, 3) or None) before every ``every`` MuJoCo
        steps (forces held in between), so that drag and buoyancy follow the motion."""
        n, every = self.n_substeps(duration), max(1, int(every))
        off = ~self.enabled          # a force function does not enable or disable bodies
        k = 0
        while k < n:
            self._apply(*force_fn(self.positions(), self.velocities()), off=off)
            m = min(every, n - k)
            # parked (disabled) bodies collide with nothing: holding them after the m steps
            # rather than after each leaves every enabled body's motion the same
            mujoco.mj_step(self.model, self.data, nstep=m)
            self._hold_disabled(off)
            k += m
        self._xfrc[:] = 0.0

    def settle(self, seconds: float = 1.0) -> None:
        """Let the objects come to rest at the start, then zero their velocities."""
        self.step(seconds)
        self._qvel[:] = 0.0

    def set_timestep(self, timestep: float) -> None:
        """Change the MuJoCo step (s) from now on (e.g. a process that evaluates its forces
        every 20 ms steps twice at 10 ms instead of four times at 5 ms)."""
        timestep = float(timestep)
        if not 0.0 < timestep <= 0.05:
            raise ValueError(f"physics timestep must be in (0, 0.05] s, got {timestep!r}")
        self.model.opt.timestep = timestep
        self.timestep = float(self.model.opt.timestep)

    def enable_sleep(self, tolerance: float | None = None) -> None:
        """Let MuJoCo put bodies at rest to sleep (they cost next to nothing until a
        contact, a changed velocity or an applied force wakes them).  Off by default:
        it changes the last digits of resting bodies' poses."""
        self.model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
        if tolerance is not None:
            self.model.opt.sleep_tolerance = float(tolerance)

    @property
    def sleeping(self) -> np.ndarray:
        """(N,) bool: which bodies MuJoCo has put to sleep."""
        return np.asarray(self.data.body_awake[1:self.n + 1]) == 0

    @property
    def time(self) -> float:
        return float(self.data.time)
