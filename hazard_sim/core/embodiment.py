"""Bodies: what every embodiment (walking, wheeled or flying) offers the env.

A body has an SE(3) pose, a collision shape (a vertical cylinder: radius and
height), speed limits, named sensor mounts, and applies a velocity command
(:class:`Twist`, body frame, REP 103) for one frame.  A benchmark's compressed
actions (walk to an object, ...) are controllers on top (in its ``hazard_sim/tasks/<name>/``),
not part of the body.  Collision is the world's business: ``apply`` takes a predicate
``free(xy) -> bool`` and reports whether the body moved or bumped.
"""
from __future__ import annotations

import abc
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from hazard_sim.geometry import wrap_angle


@dataclass(frozen=True)
class Twist:
    """A velocity command in the body frame: m/s forward (x), left (y), up (z); rad/s about z."""
    vx: float = 0.0
    vy: float = 0.0
    vz: float = 0.0
    wz: float = 0.0

    def finite(self) -> bool:
        return all(math.isfinite(v) for v in (self.vx, self.vy, self.vz, self.wz))


MAX_LINEAR_COMMAND = 100.0      # m/s: a command beyond this is no body's (ROS cmd_vel uses the same bound)
MAX_ANGULAR_COMMAND = 100.0     # rad/s


class CommandError(ValueError):
    """A velocity command no body can take: not a Twist, not numbers, not finite, or absurd
    (beyond :data:`MAX_LINEAR_COMMAND` / :data:`MAX_ANGULAR_COMMAND`). Raised before anything moves."""


def check_command(twist) -> Twist:
    """``twist`` as a Twist of plain floats, or :class:`CommandError` naming the component at fault.
    Speeds within the bounds but beyond the body's limits are fine: the body clips them."""
    if not isinstance(twist, Twist):
        raise CommandError(f"a velocity command is a Twist(vx, vy, vz, wz), got {type(twist).__name__}")
    out = []
    for name, limit in (("vx", MAX_LINEAR_COMMAND), ("vy", MAX_LINEAR_COMMAND), ("vz", MAX_LINEAR_COMMAND),
                        ("wz", MAX_ANGULAR_COMMAND)):
        v = getattr(twist, name)
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise CommandError(f"velocity command {name} must be a number, got {v!r}")
        v = float(v)
        if not math.isfinite(v):
            raise CommandError(f"velocity command must be finite: {name} is {v}")
        if abs(v) > limit:
            unit = "rad/s" if name == "wz" else "m/s"
            raise CommandError(f"velocity command {name} = {v:g} {unit} is beyond +-{limit:g} {unit}")
        out.append(v)
    return Twist(*out)


@dataclass(frozen=True)
class Limits:
    """Largest speeds: linear (m/s, horizontal), vertical (m/s), angular (rad/s)."""
    linear: float
    angular: float
    vertical: float = 0.0

    def clip(self, t: Twist) -> Twist:
        vx, vy = t.vx, t.vy
        n = math.hypot(vx, vy)
        if n > self.linear:
            if vy == 0.0:
                vx = math.copysign(self.linear, vx)
            else:
                vx, vy = vx * self.linear / n, vy * self.linear / n
        return Twist(vx, vy, float(np.clip(t.vz, -self.vertical, self.vertical)),
                     float(np.clip(t.wz, -self.angular, self.angular)))


@dataclass(frozen=True)
class SensorMount:
    """A sensor frame fixed on the body: ``parent_T_child`` (4x4) from ``parent`` to ``name``."""
    name: str
    parent: str
    transform: np.ndarray = field(compare=False)


@dataclass
class Motion:
    """What one frame of a velocity command did."""
    moved: bool = False        # the body changed place
    bumped: bool = False       # (part of) the commanded step was blocked
    bump_xy: np.ndarray | None = None   # where the blocked step would have gone


def mount(name: str, parent: str, z: float, rot: np.ndarray | None = None, xy=(0.0, 0.0)) -> SensorMount:
    T = np.eye(4)
    if rot is not None:
        T[:3, :3] = rot
    T[:3, 3] = (xy[0], xy[1], z)
    return SensorMount(name, parent, T)


class Embodiment(abc.ABC):
    """A body in the world. Subclasses set ``spec`` (with ``radius``, ``height`` and
    ``limits()``), keep ``xy``, ``z`` and ``yaw``, and define :meth:`apply`."""

    spec: object
    kind: str = "body"

    xy: np.ndarray
    yaw: float
    z: float = 0.0

    @property
    def radius(self) -> float:
        return float(self.spec.radius)

    @property
    def limits(self) -> Limits:
        return self.spec.limits()

    @property
    def position(self) -> np.ndarray:
        return np.array([self.xy[0], self.xy[1], self.z])

    def pose_matrix(self) -> np.ndarray:
        """World-from-base_link, 4x4 (REP 105 ``base_link``: yaw only for ground bodies)."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        m = np.eye(4)
        m[:2, :2] = [[c, -s], [s, c]]
        m[:3, 3] = self.position
        return m

    def mounts(self) -> dict[str, SensorMount]:
        return {m.name: m for m in self.spec.mounts()}

    def frame_pose(self, name: str) -> np.ndarray:
        """World-from-``name`` (a mount, composed down to ``base_link``)."""
        ms = self.mounts()
        T = np.eye(4)
        while name != "base_link":
            m = ms[name]
            T = m.transform @ T
            name = m.parent
        return self.pose_matrix() @ T

    def camera_pose(self, name: str = "camera_optical_frame") -> tuple[np.ndarray, np.ndarray]:
        """World position and world-from-optical rotation of a camera mount."""
        T = self.frame_pose(name)
        return T[:3, 3].copy(), T[:3, :3].copy()

    @abc.abstractmethod
    def apply(self, twist: Twist, dt: float, free, speed_factor: float = 1.0) -> Motion:
        """Move for one frame of ``dt`` seconds under ``twist`` (clipped to the limits)."""


class GroundBody(Embodiment):
    """A body on the floor (humanoid, wheeled base): yaw plus a planar position.

    Against an obstacle a step slides along it (the free axis component), as a body
    would; ``trace`` keeps every place the body stood on.
    """

    kind = "ground"

    def __init__(self, xy, yaw: float, spec):
        self.spec = spec
        self.xy = np.asarray(xy, float).copy()
        self.yaw = float(yaw)
        self.z = 0.0
        self.trace = [self.xy.copy()]

    def step_to(self, xy, free) -> Motion:
        """Try to move straight to ``xy`` (one frame's step); slide along an obstacle."""
        xy = np.asarray(xy, float)
        step = xy - self.xy
        for cand in (xy, self.xy + [step[0], 0.0], self.xy + [0.0, step[1]]):
            if np.linalg.norm(cand - self.xy) > 0.3 * np.linalg.norm(step) and free(cand):
                self.xy = cand
                self.trace.append(cand.copy())
                return Motion(True, cand is not xy, None if cand is xy else xy)
        return Motion(False, True, xy)

    def apply(self, twist: Twist, dt: float, free, speed_factor: float = 1.0) -> Motion:
        t = self.limits.clip(check_command(twist))
        if t.wz:
            self.yaw = wrap_angle(self.yaw + t.wz * dt)
        if abs(t.vx) <= 1e-9 and abs(t.vy) <= 1e-9:
            return Motion()
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        dx, dy = t.vx * dt * speed_factor, t.vy * dt * speed_factor
        return self.step_to(self.xy + np.array([c * dx - s * dy, s * dx + c * dy]), free)
