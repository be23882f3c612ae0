"""HAZARD's action primitives over ROS: the locomotion the decision node runs the core's
action programs on (``hazard_sim.tasks.hazard.controllers``).  ROS-free: it talks to
the node through a few callables, so it is tested without a ROS context.

* ``walk_near``: a NavigateToPose goal at the stand-off cell the core's
  :func:`~hazard_sim.navigation.stand_off.stand_off_pose` picks on the navigation map
  (or the agent's own), facing the object, cancelled after ``walk_to_frames`` frames (the
  object: its true box where the simulator's ground truth is offered, as embedded, else
  its remembered centre); with ``exact_arrival`` (lock-step) an ``approach`` goal to the
  object itself instead (the navigator walks the core's walk_to: planner_node/approach.py);
* ``walk_straight``: NavigateToPose straight ahead, clipped where the map is blocked
  along the heading (a walk, never a detour: what the embedded body does); with
  ``exact_arrival`` a ``drive`` (drive_on_heading) of the whole distance, the first bump
  ending it, as the embedded body walks;
* ``turn``: NavigateToPose in place (turns within one action add up from the commanded
  heading, so small stops do not accumulate);
* ``pick_up`` / ``drop``: the simulator's (or the robot's) Trigger services.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation.stand_off import stand_off_pose
from hazard_sim.tasks.hazard.controllers import ARRIVE_GAP, Locomotion

BODY = HumanoidSpec()
OBJECT_RADIUS = 0.05        # m: objects are small; the memory keeps only their centre
XY_TOLERANCE = 0.25         # m: how far short of a goal the navigation may stop


@dataclass
class _Remembered:
    id: int
    xy: np.ndarray
    radius: float = OBJECT_RADIUS       # m: the object's footprint, as walk_to's arrival counts it
    true_box: bool = False              # located by its true box (perception/objects, groundtruth backend)


@dataclass
class RosPorts:
    """What the locomotion needs from the node."""
    navigate: Callable[..., tuple]          # (x, y, yaw, max_frames=None) -> (Status, reason)
    trigger: Callable[[str], tuple]         # "pick_up" | "drop" -> (Status, reason)
    wait_frame: Callable[[str], dict]       # what -> the observation of the current frame
    nav_map: Callable[[], tuple | None]     # () -> (blocked, GridSpec) of the navigation map, or None
    episode_over: Callable[[], bool]
    cancel: Callable[[], None]
    #: (object: id, xy, true_box; heading, max_frames) -> (Status, reason): the approach_object goal
    #: (exact arrival only; the heading: facing the object from the stand-off pose)
    approach: Callable[..., tuple] | None = None
    #: metres -> (Status, reason): the drive_on_heading goal (exact arrival only)
    drive: Callable[[float], tuple] | None = None
    #: object id -> (Status, reason): pick up the named object (hazard_msgs/srv/PickUp); without
    #: it ``pick_up`` falls back to the Trigger, which takes the nearest reachable target
    pick_object: Callable[[int], tuple] | None = None
    walk_to_frames: int = 100
    #: the navigator reaches goals exactly (lock-step with the gait follower): plan the
    #: stand-off without the pure-pursuit follower's position tolerance
    exact_arrival: bool = False
    #: object id -> ``(centre xy, footprint radius)`` of its true box (``perception/objects`` of
    #: the groundtruth backend), or None: what the embedded body uses for an object it has seen;
    #: without it an object is its remembered centre with radius ``OBJECT_RADIUS``
    object_box: Callable[[int], tuple | None] | None = None


def straight_free(blocked: np.ndarray, spec, agent_pose, metres: float, step: float = 0.05) -> float:
    """How far (m, up to ``|metres|``) the body can walk straight along its heading
    (backwards for negative ``metres``) before entering a ``blocked`` cell of ``spec``.
    The cells around the start do not count: the body already stands there."""
    x, y, yaw = (float(v) for v in agent_pose)
    sign = 1.0 if metres >= 0 else -1.0
    n = int(math.floor(abs(metres) / step + 1e-9))
    d = np.arange(1, n + 1) * step
    if abs(metres) - (d[-1] if n else 0.0) > 1e-9:
        d = np.append(d, abs(metres))
    if len(d) == 0:
        return 0.0
    pts = np.stack([x + sign * d * math.cos(yaw), y + sign * d * math.sin(yaw)], axis=1)
    x0, y0, x1, y1 = spec.bounds
    inside = (pts[:, 0] >= x0) & (pts[:, 0] < x1) & (pts[:, 1] >= y0) & (pts[:, 1] < y1)
    i, j = spec.to_cells(pts)
    start = spec.to_cell((x, y))
    hit = blocked[i, j] & ~((i == start[0]) & (j == start[1]))
    if blocked[start]:           # standing in the obstacle margin: the first 0.3 m may cross it
        hit &= d > 0.3 + 1e-9
    bad = ~inside | hit
    k = int(np.argmax(bad)) if bad.any() else len(d)
    return float(d[k - 1]) if k > 0 else 0.0


class RosLocomotion(Locomotion):
    """One action's primitives over ROS for an agent (its memory and map)."""

    def __init__(self, ports: RosPorts, agent, obs: dict):
        self.ports, self.agent = ports, agent
        self.obs = obs
        self.kept: list[dict] = []          # observations taken during the action (``look``)
        self._yaw_ref: tuple[np.ndarray, float] | None = None

    # ------------------------------------------------------------ state
    def pose(self):
        x, y, yaw = (float(v) for v in self.obs["agent_pose"])
        return x, y, yaw

    def _refresh(self, what: str) -> dict:
        self.obs = self.ports.wait_frame(what)
        return self.obs

    def time_up(self) -> bool:
        return self.ports.episode_over()

    def locate(self, object_id, in_scene):
        m = self.agent.memory
        rec = m.objects.get(object_id)
        xy = rec.position if rec is not None else m.containers.get(object_id)
        if xy is None:
            return None, fail(Status.NOT_VISIBLE, f"object {object_id} has not been observed yet")
        box = self.ports.object_box(int(object_id)) if self.ports.object_box is not None else None
        if box is not None:              # seen: its true box, as embedded
            return _Remembered(int(object_id), np.asarray(box[0], float)[:2], float(box[1]), True), None
        return _Remembered(int(object_id), np.asarray(xy, float)[:2]), None

    def _blocked(self):
        nav = self.ports.nav_map()
        blocked, spec = nav if nav is not None else (self.agent.map.blocked(), self.agent.map.spec)
        blocked = blocked.copy()
        x, y, _ = self.pose()
        blocked[spec.to_cell((x, y))] = False
        return blocked, spec

    # ------------------------------------------------------------ primitives
    def turn(self, delta_rad):
        x, y, yaw = self.pose()
        if self._yaw_ref is not None and np.hypot(*(self._yaw_ref[0] - (x, y))) < 0.01:
            yaw = self._yaw_ref[1]          # turning on from the commanded heading
        goal = wrap_angle(yaw + delta_rad)
        status, reason = self.ports.navigate(x, y, goal)
        self._refresh("the end of a turn")
        self._yaw_ref = (np.array([x, y]), goal)
        return Outcome(status, reason)

    def look(self):
        self.kept.append(self._refresh("an observation"))

    def walk_straight(self, metres):
        if self.ports.exact_arrival and metres >= 0:     # (the gait walks forwards only)
            return self._walk_straight_exact(metres)
        pose = self.pose()
        blocked, spec = self._blocked()
        free = straight_free(blocked, spec, pose, metres)
        if free < 0.01:
            return fail(Status.BLOCKED, "blocked after 0.00 m")
        x, y, yaw = pose
        d = math.copysign(free, metres)
        status, reason = self.ports.navigate(x + d * math.cos(yaw), y + d * math.sin(yaw), yaw)
        end = self._refresh("the end of move_by")["agent_pose"]
        self._yaw_ref = None
        moved = float(np.hypot(end[0] - x, end[1] - y))
        if status is Status.SUCCEEDED and moved < abs(metres) - 0.05:
            return fail(Status.BLOCKED, f"blocked after {moved:.2f} m")
        return Outcome(status, reason)

    def _walk_straight_exact(self, metres):
        """move_by as the embedded body walks it: straight along the heading, no map, until
        done or a bump (a drive_on_heading goal)."""
        x, y, yaw = self.pose()
        status, reason = self.ports.drive(float(metres))
        end = self._refresh("the end of move_by")["agent_pose"]
        self._yaw_ref = None
        if status in (Status.SUCCEEDED, Status.TIME_UP, Status.NOT_ARRIVED):
            return Outcome(status, reason)
        return fail(Status.BLOCKED, f"blocked after {float(np.hypot(end[0] - x, end[1] - y)):.2f} m")

    def walk_near(self, target):
        blocked, spec = self._blocked()
        x, y, _ = self.pose()
        slack = 0.0 if self.ports.exact_arrival else XY_TOLERANCE
        gx, gy, gyaw, extra = stand_off_pose(spec, blocked, (x, y), target.xy, target.radius, BODY.radius,
                                             ARRIVE_GAP, BODY.reach, slack=slack)
        if self.ports.exact_arrival:
            # the navigator ends the walk as the embedded walk_to does: within ARRIVE_GAP of the
            # object's circle, then facing it
            status, reason = self.ports.approach(target, gyaw, self.ports.walk_to_frames)
        else:
            status, reason = self.ports.navigate(gx, gy, gyaw, self.ports.walk_to_frames)
        self._refresh("the end of walk_to")
        self._yaw_ref = None
        if status is Status.NO_PATH:
            return fail(Status.NO_PATH, f"no path to {target.id}: {reason}")
        if status is Status.SUCCEEDED and extra > 0:
            return Outcome(Status.SUCCEEDED, f"stopped {extra + ARRIVE_GAP:.2f} m from the object: "
                                             f"furniture in the way")
        return Outcome(status, reason)

    def pick_up(self, object_id):
        if self.ports.pick_object is not None:
            status, reason = self.ports.pick_object(int(object_id))
            return OK if status is Status.SUCCEEDED else Outcome(status, reason)
        return self._hands("pick_up")

    def drop(self):
        return self._hands("drop")

    def _hands(self, name: str) -> Outcome:
        status, reason = self.ports.trigger(name)
        return OK if status is Status.SUCCEEDED else Outcome(status, reason)

    def stop(self):
        self.ports.cancel()
