"""An AirSim-style Python API for the ESAR UAV, and the discrete-action wrapper.

``MultirotorClient`` offers the multirotor calls AirSim users know, on an embedded ESAR
episode (no simulator process, no RPC)::

    from hazard_sim.tasks.esar.api import MultirotorClient, ImageRequest, ImageType
    c = MultirotorClient(episode=3)
    c.confirmConnection(); c.enableApiControl(True); c.armDisarm(True)
    c.takeoffAsync().join()
    c.moveByVelocityAsync(5, 0, 0, duration=4).join()          # NED: 5 m/s north for 4 s
    c.moveToPositionAsync(100, 50, -60, velocity=6).join()     # NED metres from home
    c.rotateToYawAsync(90).join()                              # NED yaw: 90 deg = east
    s = c.getMultirotorState()                                 # kinematics (NED), GPS, landed
    png, depth = c.simGetImages([ImageRequest("front_center", ImageType.Scene),
                                 ImageRequest("bottom_center", ImageType.DepthPlanar, True)])
    c.reportClue("tent", [x, y, z]); c.reportVictim([x, y, z])  # ENU, as the task scores
    c.metrics()

Frames: AirSim's NED (x north, y east, z down; yaw clockwise from north, degrees) with its
origin at the UAV's home (its start position), as AirSim puts it at the vehicle's start.
The simulator and ROS are ENU (REP 103): ``enu = home + (y_ned, x_ned, -z_ned)``,
``yaw_enu = pi / 2 - yaw_ned``. Async calls run at once (the episode is embedded) and return
an object whose ``join()`` returns the call's typed outcome.

``DiscreteActions`` wraps an ESAR env for decision-level agents: ``Discrete(7)`` over
forward 10 m, turn left / right 90, turn back, ascend / descend 5 m, stop; reports go in
``step(a, clues=..., victims=...)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import IntEnum

import gymnasium as gym
import numpy as np

from hazard_sim.core.embodiment import Twist
from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.outcome import Outcome, Status, fail
from hazard_sim.embodiment.multirotor import CAMERAS
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.esar.task import DISCRETE, EsarAction, fly_to, fly_velocity


class ImageType(IntEnum):
    Scene = 0
    DepthPlanar = 1
    DepthPerspective = 2
    Segmentation = 5


class DrivetrainType(IntEnum):
    MaxDegreeOfFreedom = 0
    ForwardOnly = 1


@dataclass
class YawMode:
    is_rate: bool = True
    yaw_or_rate: float = 0.0      # deg/s (rate) or deg (NED yaw)


@dataclass
class ImageRequest:
    camera_name: str
    image_type: ImageType = ImageType.Scene
    pixels_as_float: bool = False
    compress: bool = False


@dataclass
class ImageResponse:
    camera_name: str
    image_type: ImageType
    width: int
    height: int
    image_data_uint8: bytes = b""
    image_data_float: list = field(default_factory=list)
    camera_position: tuple = (0.0, 0.0, 0.0)       # NED from home
    camera_orientation: tuple = (1.0, 0.0, 0.0, 0.0)


@dataclass
class KinematicsState:
    position: tuple
    linear_velocity: tuple
    orientation: tuple            # quaternion (w, x, y, z), NED body (FRD)
    angular_velocity: tuple


@dataclass
class MultirotorState:
    kinematics_estimated: KinematicsState
    gps_location: tuple           # (latitude, longitude, altitude)
    landed_state: int             # 0 landed, 1 flying (AirSim's LandedState)
    collision: bool
    timestamp: int                # ns of simulated time


class ApiError(RuntimeError):
    """A call the API cannot carry out (API control off, unknown camera, crashed UAV)."""


def _finite(value, what: str) -> float:
    """``value`` as a float; ApiError unless it is a finite number."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ApiError(f"{what} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(v):
        raise ApiError(f"{what} must be a finite number, got {value!r}")
    return v


def _duration(value, what: str = "duration") -> float:
    """A duration: finite and > 0 s."""
    v = _finite(value, what)
    if not v > 0:
        raise ApiError(f"{what} must be > 0 s, got {value!r}")
    return v


def _timeout(value, cap: float, what: str = "timeout_sec") -> float:
    """A time limit: > 0 s, NaN refused; infinity (or AirSim's 3e38 "for ever") means the call's cap."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ApiError(f"{what} must be a number of s, got {value!r}") from None
    if isinstance(value, bool) or math.isnan(v) or not v > 0:
        raise ApiError(f"{what} must be > 0 s, got {value!r}")
    return min(v, cap)


class _Done:
    def __init__(self, outcome: Outcome):
        self.outcome = outcome

    def join(self) -> Outcome:
        return self.outcome


def enu_to_ned(v) -> np.ndarray:
    v = np.asarray(v, float)
    return np.array([v[1], v[0], -v[2]])


def ned_to_enu(v) -> np.ndarray:
    v = np.asarray(v, float)
    return np.array([v[1], v[0], -v[2]])


def yaw_enu_to_ned_deg(yaw: float) -> float:
    return (math.degrees(math.pi / 2 - yaw) + 180.0) % 360.0 - 180.0


def yaw_ned_deg_to_enu(deg: float) -> float:
    return math.atan2(math.sin(math.pi / 2 - math.radians(deg)), math.cos(math.pi / 2 - math.radians(deg)))


class MultirotorClient:
    """See the module doc. ``env``: an ESAR ``EmbodiedEnv`` (made from ``benchmark`` /
    ``episode`` / ``camera`` / ``seed`` if not given)."""

    def __init__(self, benchmark: str = "esar", episode: int = 0, *, env=None, seed: int = 0,
                 camera: CameraSpec = CameraSpec(256, 256, 90.0), **env_kw):
        if env is None:
            from hazard_sim.core.env import EmbodiedEnv
            env = EmbodiedEnv(benchmark, "test", episode, seed=seed, camera=camera, **env_kw)
        self.env = env
        self.env.reset()
        self.home = self.env.agent.position.copy()
        self.api_control = False
        self.armed = False
        self._obs = None

    # ------------------------------------------------------------ connection
    def confirmConnection(self) -> bool:
        return True

    def enableApiControl(self, enabled: bool = True, vehicle_name: str = "") -> None:
        self.api_control = bool(enabled)

    def isApiControlEnabled(self, vehicle_name: str = "") -> bool:
        return self.api_control

    def armDisarm(self, arm: bool = True, vehicle_name: str = "") -> bool:
        self.armed = bool(arm)
        return True

    def reset(self) -> None:
        self.env.reset()
        self.home = self.env.agent.position.copy()
        self._obs = None

    def _ready(self):
        if not self.api_control:
            raise ApiError("API control is off: call enableApiControl(True) first")
        if not self.armed:
            raise ApiError("the UAV is disarmed: call armDisarm(True) first")
        if self.env.agent.crashed:
            raise ApiError(f"the UAV has crashed at {np.round(self.env.agent.crash_point, 1).tolist()}")
        self._obs = None

    # ------------------------------------------------------------ flight
    def takeoffAsync(self, timeout_sec: float = 20.0, vehicle_name: str = "") -> _Done:
        """Climb to 5 m above the ground if landed (hover if already flying)."""
        self._ready()
        max_s = _timeout(timeout_sec, 600.0)
        b = self.env.agent
        if not b.landed:
            return _Done(fly_velocity(self.env, 0, 0, 0, 0, 0.5))
        target = b.position + [0, 0, 5.0]
        return _Done(fly_to(self.env, target, 2.0, b.yaw, max_s=max_s))

    def landAsync(self, timeout_sec: float = 60.0, vehicle_name: str = "") -> _Done:
        """Descend at 1 m/s until the skids touch the ground (not a crash), then stay landed."""
        self._ready()
        timeout_sec = _timeout(timeout_sec, 600.0)
        env, b = self.env, self.env.agent
        terrain = env.world.scene.terrain
        for _ in range(max(1, int(timeout_sec / FRAME_DT))):
            agl = b.z - terrain.surface_at(b.position, b.radius)
            if agl <= b.radius + 0.3:
                b.set_landed(True)
                return _Done(Outcome(Status.SUCCEEDED, "landed"))
            env.drive(Twist(0, 0, -min(1.0, max(0.3, agl - b.radius)), 0))
            if b.crashed:
                return _Done(fail(Status.BLOCKED, "crashed while landing"))
        return _Done(fail(Status.NOT_ARRIVED, f"not landed after {timeout_sec} s"))

    def hoverAsync(self, vehicle_name: str = "") -> _Done:
        self._ready()
        return _Done(fly_velocity(self.env, 0, 0, 0, 0, 0.5))

    def _yaw_rate(self, yaw_mode: YawMode | None) -> float:
        if yaw_mode is None or not yaw_mode.is_rate:
            return 0.0
        return -math.radians(yaw_mode.yaw_or_rate)          # NED clockwise -> ENU counter-clockwise

    def moveByVelocityAsync(self, vx, vy, vz, duration, drivetrain=DrivetrainType.MaxDegreeOfFreedom,
                            yaw_mode: YawMode | None = None, vehicle_name: str = "") -> _Done:
        """World-frame NED velocity (m/s) for ``duration`` s."""
        self._ready()
        duration = _duration(duration)
        v = ned_to_enu([_finite(vx, "vx"), _finite(vy, "vy"), _finite(vz, "vz")])
        b = self.env.agent
        wz = self._yaw_rate(yaw_mode)
        out = None
        for _ in range(max(1, int(round(duration / FRAME_DT)))):
            c, s = math.cos(b.yaw), math.sin(b.yaw)
            r = self.env.drive(Twist(c * v[0] + s * v[1], -s * v[0] + c * v[1], v[2], wz))
            if b.crashed:
                out = fail(Status.BLOCKED, f"crashed at {np.round(b.crash_point, 1).tolist()}")
                break
            if not r.advanced:
                out = fail(Status.TIME_UP, "the mission's time is up")
                break
        return _Done(out or Outcome(Status.SUCCEEDED))

    def moveByVelocityBodyFrameAsync(self, vx, vy, vz, duration, drivetrain=DrivetrainType.MaxDegreeOfFreedom,
                                     yaw_mode: YawMode | None = None, vehicle_name: str = "") -> _Done:
        """Body-frame FRD velocity (forward, right, down; m/s) for ``duration`` s."""
        self._ready()
        duration = _duration(duration)
        vx, vy, vz = _finite(vx, "vx"), _finite(vy, "vy"), _finite(vz, "vz")
        return _Done(fly_velocity(self.env, vx, -vy, -vz, self._yaw_rate(yaw_mode), duration))

    def moveToPositionAsync(self, x, y, z, velocity, timeout_sec: float = 3e38, drivetrain=None,
                            yaw_mode: YawMode | None = None, vehicle_name: str = "") -> _Done:
        """Fly to NED position (m from home) at ``velocity`` m/s (> 0: a speed, not a direction)."""
        self._ready()
        target = self.home + ned_to_enu([_finite(x, "x"), _finite(y, "y"), _finite(z, "z")])
        velocity = _finite(velocity, "velocity")
        if not velocity > 0:
            raise ApiError(f"velocity must be > 0 m/s (a speed; the direction is the target's), got {velocity}")
        max_s = _timeout(timeout_sec, 600.0)
        if not self.env.world.scene.contains(target):
            raise ApiError(f"position {x, y, z} (NED from home) is outside the map")
        yaw = None if yaw_mode is None or yaw_mode.is_rate else yaw_ned_deg_to_enu(yaw_mode.yaw_or_rate)
        return _Done(fly_to(self.env, target, velocity, yaw, max_s=max_s))

    def rotateToYawAsync(self, yaw, timeout_sec: float = 3e38, margin: float = 5, vehicle_name: str = "") -> _Done:
        """Turn in place to NED yaw ``yaw`` (degrees, clockwise from north)."""
        self._ready()
        yaw, max_s = _finite(yaw, "yaw"), _timeout(timeout_sec, 60.0)
        return _Done(fly_to(self.env, self.env.agent.position, 1.0, yaw_ned_deg_to_enu(yaw), max_s=max_s))

    def rotateByYawRateAsync(self, yaw_rate, duration, vehicle_name: str = "") -> _Done:
        self._ready()
        yaw_rate, duration = _finite(yaw_rate, "yaw_rate"), _duration(duration)
        return _Done(fly_velocity(self.env, 0, 0, 0, -math.radians(yaw_rate), duration))

    # ------------------------------------------------------------ state
    def getMultirotorState(self, vehicle_name: str = "") -> MultirotorState:
        b = self.env.agent
        yaw_ned = math.radians(yaw_enu_to_ned_deg(b.yaw))
        q = (math.cos(yaw_ned / 2), 0.0, 0.0, math.sin(yaw_ned / 2))
        k = KinematicsState(tuple(enu_to_ned(b.position - self.home)), tuple(enu_to_ned(b.vel)), q,
                            (0.0, 0.0, -float(b.yaw_rate)))
        gps = self.env.world.scene.terrain.gps(b.position)
        return MultirotorState(k, gps, 0 if b.landed else 1, bool(b.crashed),
                               int(round(self.env.world.frame * FRAME_DT * 1e9)))

    def simGetCollisionInfo(self, vehicle_name: str = ""):
        b = self.env.agent
        return {"has_collided": bool(b.crashed),
                "position": None if b.crash_point is None else tuple(enu_to_ned(b.crash_point - self.home))}

    def simGetImages(self, requests: list[ImageRequest], vehicle_name: str = "") -> list[ImageResponse]:
        if self._obs is None:
            self._obs = self.env.observe()
        out = []
        for r in requests:
            if r.camera_name not in CAMERAS:
                raise ApiError(f"unknown camera {r.camera_name!r}; cameras: {', '.join(CAMERAS)}")
            cam = self._obs["cameras"][r.camera_name]
            h, w = cam["depth"].shape
            T = cam["pose"]
            resp = ImageResponse(r.camera_name, r.image_type, w, h,
                                 camera_position=tuple(enu_to_ned(T[:3, 3] - self.home)))
            if r.image_type == ImageType.Scene:
                resp.image_data_uint8 = cam["rgb"].tobytes()
            elif r.image_type in (ImageType.DepthPlanar, ImageType.DepthPerspective):
                d = cam["depth"]
                if r.image_type == ImageType.DepthPerspective:
                    K = cam["K"]
                    u = (np.arange(w) - K[0, 2]) / K[0, 0]
                    v = (np.arange(h) - K[1, 2]) / K[1, 1]
                    d = d * np.sqrt(1 + u[None] ** 2 + v[:, None] ** 2)
                if r.pixels_as_float:
                    resp.image_data_float = d.astype(np.float32).reshape(-1).tolist()
                else:
                    resp.image_data_uint8 = np.clip(d / 100.0 * 255, 0, 255).astype(np.uint8).tobytes()
            elif r.image_type == ImageType.Segmentation:
                resp.image_data_uint8 = cam["seg"].astype(np.int32).tobytes()
            else:
                raise ApiError(f"image type {r.image_type!r} is not simulated; use Scene, DepthPlanar, "
                               f"DepthPerspective or Segmentation")
            out.append(resp)
        return out

    # ------------------------------------------------------------ ESAR reports and results
    def _on_map(self, position, what: str) -> list:
        """A report's position (world metres, as the task's reports): 2 or 3 finite numbers on the map."""
        try:
            pos = [_finite(v, what) for v in position]
        except TypeError:
            raise ApiError(f"{what} must be [x, y] or [x, y, z] in metres, got {position!r}") from None
        if len(pos) not in (2, 3):
            raise ApiError(f"{what} must be [x, y] or [x, y, z] in metres, got {position!r}")
        if not self.env.world.scene.contains(pos[:2]):
            raise ApiError(f"{what} {pos} is outside the map")
        return pos

    def reportClue(self, cls: str, position) -> None:
        pos = self._on_map(position, "clue position")
        self.env.task._record(self.env, self.env.task.parse({"clues": [{"class": cls, "position": pos}]}))

    def reportVictim(self, position) -> None:
        pos = self._on_map(position, "victim position")
        self.env.task._record(self.env, self.env.task.parse({"victims": [pos]}))

    def metrics(self) -> dict:
        return self.env.metrics()


class DiscreteActions(gym.ActionWrapper):
    """``Discrete(7)``: 0 forward 10 m, 1 turn left 90, 2 turn right 90, 3 turn back, 4 ascend
    5 m, 5 descend 5 m, 6 stop; ``step(a, clues=[...], victims=[...])`` adds reports."""

    def __init__(self, env):
        super().__init__(env)
        self.action_space = gym.spaces.Discrete(len(DISCRETE))

    def action(self, a):
        if isinstance(a, EsarAction):
            return a
        if not isinstance(a, (int, np.integer)) or not 0 <= int(a) < len(DISCRETE):
            raise ValueError(f"discrete ESAR action must be an int in 0..{len(DISCRETE) - 1} "
                             f"({', '.join(DISCRETE)}), got {a!r}")
        return DISCRETE[int(a)]

    def step(self, a, clues=None, victims=None):
        name = self.action(a)
        if clues or victims:
            return self.env.step({"action": name, "clues": clues or [], "victims": victims or []})
        return self.env.step(name)
