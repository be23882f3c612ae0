"""ROS-free navigation: grid planning on an occupancy grid (following: planner_node/following.py).

Planning reuses :mod:`hazard_sim.navigation.grid` (scikit-image's compiled minimum-cost
path search with diagonal moves; obstacle inflation with scipy), so nothing here loops over
cells in Python.  The conventions are those of ``nav_msgs/OccupancyGrid``: row i is y,
column j is x, values 0..100 with -1 unknown.  Cells >= 50 are obstacles; unknown cells
are free (the robot explores a partly seen map).

The follower turns in place when the path bends away by more than a threshold, otherwise
tracks the path with pure pursuit, and at the end turns in place to the goal yaw.  Its
limits default to the HAZARD humanoid's (``HumanoidSpec``: per 0.1 s frame 0.01 m and
3 degrees).  It works in
any time base (the node feeds it sim time), reports its distance and time remaining, and
flags a robot that makes no progress ("stuck").

``GridPlanner(core_law=True)`` plans the way the core's walk does (the embedded
``walk_to``, ``hazard_sim.navigation.observed_map`` and ``grid``): obstacles grown by the
radius less half a cell, the start released with ``grid.release_start``, the corners of
the cell path as waypoints (``grid.simplify_path``), no string pulling; the lock-step
navigation node uses it with the gait follower so that both walk the same paths.

Failures raise :class:`NavigationError` with a Nav2 error code (the codes of
``nav2_msgs/ComputePathToPose`` and ``FollowPath``, which Nav2's bt_navigator forwards
in ``NavigateToPose.Result.error_code``) and a sentence for a person.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np
from scipy import ndimage

from hazard_sim.navigation.grid import (
    GridSpec,
    distance_field,
    goal_cells_near,
    inflate,
    plan_path,
    release_start,
    simplify_path,
)
from hazard_sim.navigation.stand_off import stand_off_cells

OCCUPIED_THRESHOLD = 50


class ErrorCode(IntEnum):
    """Error codes of a navigation result (Nav2's numbers)."""
    NONE = 0
    FOLLOW_UNKNOWN = 100             # nav2_msgs/FollowPath
    FAILED_TO_MAKE_PROGRESS = 105
    PLANNER_UNKNOWN = 200            # nav2_msgs/ComputePathToPose
    START_OUTSIDE_MAP = 203
    GOAL_OUTSIDE_MAP = 204
    START_OCCUPIED = 205
    GOAL_OCCUPIED = 206
    PLANNER_TIMEOUT = 207
    NO_VALID_PATH = 208
    COLLISION_AHEAD = 703            # nav2_msgs/Spin (the behaviors map it to their own number)
    INVALID_INPUT = 724              # nav2_msgs/DriveOnHeading (idem)
    INVALID_PLANNER = 201            # nav2_msgs/ComputePathToPose
    INVALID_CONTROLLER = 101         # nav2_msgs/FollowPath
    INVALID_PATH = 103
    UNKNOWN = 9000                   # nav2_msgs/NavigateToPose
    TF_ERROR = 9002
    TIMEOUT = 9003


class NavigationError(Exception):
    """A navigation failure with a Nav2 error code and a readable message."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message


def _fmt(xy) -> str:
    return f"({float(xy[0]):.2f}, {float(xy[1]):.2f})"


# ============================================================================ maps

@dataclass(frozen=True)
class OccupancyMap:
    """An occupancy grid (int values, -1..100), its cell size and the world xy of its
    lower-left corner (``OccupancyGrid.info.origin``; rotated origins are not supported)."""

    data: np.ndarray
    resolution: float
    origin: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self):
        data = np.asarray(self.data)
        if data.ndim != 2 or data.size == 0:
            raise ValueError(f"occupancy data must be a non-empty 2-D array, got shape {data.shape}")
        if not self.resolution > 0:
            raise ValueError(f"map resolution must be > 0, got {self.resolution}")
        object.__setattr__(self, "data", data)

    @classmethod
    def from_flat(cls, data, width: int, height: int, resolution: float, origin_xy=(0.0, 0.0)):
        """From the fields of a ``nav_msgs/OccupancyGrid`` (row-major data, row 0 at origin y)."""
        arr = np.asarray(data, dtype=np.int16)
        if arr.size != width * height:
            raise ValueError(f"occupancy data has {arr.size} cells, expected {width} x {height}")
        return cls(arr.reshape(height, width), float(resolution), (float(origin_xy[0]), float(origin_xy[1])))

    @property
    def shape(self) -> tuple[int, int]:
        return self.data.shape

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        h, w = self.data.shape
        x0, y0 = self.origin
        return (x0, y0, x0 + w * self.resolution, y0 + h * self.resolution)

    @property
    def spec(self) -> GridSpec:
        return GridSpec(self.bounds, self.resolution)

    def contains(self, xy) -> bool:
        x0, y0, x1, y1 = self.bounds
        return bool(x0 <= xy[0] < x1 and y0 <= xy[1] < y1)

    def cell(self, xy) -> tuple[int, int]:
        """Cell (row, column) of a point inside the map."""
        h, w = self.data.shape
        i = int(math.floor((xy[1] - self.origin[1]) / self.resolution))
        j = int(math.floor((xy[0] - self.origin[0]) / self.resolution))
        return min(max(i, 0), h - 1), min(max(j, 0), w - 1)

    def occupied(self, threshold: int = OCCUPIED_THRESHOLD) -> np.ndarray:
        """Obstacle cells (unknown cells count as free)."""
        return self.data >= threshold


# ============================================================================ planning

@dataclass
class Plan:
    """A path from the start to the goal.

    ``waypoints`` (N, 2) world xy, the first one the start; ``goal_xy`` where the path ends
    (the requested goal, or the nearest free point when the goal lay in an obstacle);
    ``snapped`` says which; ``length`` in metres; ``planning_time`` in seconds (wall)."""

    waypoints: np.ndarray
    goal_xy: np.ndarray
    snapped: bool
    length: float
    cells: list = field(default_factory=list)
    planning_time: float = 0.0


def path_length(waypoints: np.ndarray) -> float:
    w = np.asarray(waypoints, float)
    return float(np.linalg.norm(np.diff(w, axis=0), axis=1).sum()) if len(w) > 1 else 0.0


class GridPlanner:
    """Shortest paths on an occupancy grid for a round robot of ``robot_radius``.

    ``goal_snap_radius``: a goal inside an (inflated) obstacle is moved to the nearest
    reachable free cell within this distance, otherwise the goal is unreachable.
    """

    def __init__(self, robot_radius: float = 0.25, goal_snap_radius: float = 0.5,
                 occupied_threshold: int = OCCUPIED_THRESHOLD, core_law: bool = False):
        if robot_radius < 0:
            raise ValueError(f"robot_radius must be >= 0, got {robot_radius}")
        self.robot_radius = float(robot_radius)
        self.core_law = bool(core_law)
        self.goal_snap_radius = float(goal_snap_radius)
        self.occupied_threshold = int(occupied_threshold)
        self.map: OccupancyMap | None = None
        self._occupied = self._blocked = self._near_obstacle = None
        self.bumps: list[np.ndarray] = []          # world xy where the body was blocked
        self.touched = np.zeros((0, 2))            # world xy of cells a touch sensor reported (kept)

    def set_map(self, omap: OccupancyMap) -> None:
        """Use a new map (inflation is computed once here, and skipped when the obstacles
        did not change)."""
        old = self.map
        self.map = omap
        occupied = self._with_bumps(omap.occupied(self.occupied_threshold))
        if old is not None and old.resolution == omap.resolution and old.origin == omap.origin \
                and old.shape == omap.shape and np.array_equal(self._occupied, occupied):
            return
        self._set_occupied(occupied)

    def add_bump(self, xy) -> None:
        """An obstacle the map does not show (the body could not move there): it stays an
        obstacle until :meth:`clear_bumps`."""
        self.bumps.append(np.asarray(xy, float)[:2])
        if self.map is not None:
            self._set_occupied(self._with_bumps(self._occupied))

    def set_touched(self, xy) -> None:
        """Cells a touch sensor reported (world xy of their centres): obstacles for good, as
        the embedded body's walking map keeps its bumps."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        if np.array_equal(xy, self.touched):
            return
        self.touched = xy
        if self.map is not None:
            self._set_occupied(self._with_bumps(self.map.occupied(self.occupied_threshold)))

    def clear_bumps(self) -> None:
        if self.bumps:
            self.bumps = []
            if self.map is not None:
                self._set_occupied(self._with_bumps(self.map.occupied(self.occupied_threshold)))

    def _with_bumps(self, occupied: np.ndarray) -> np.ndarray:
        if not self.bumps and not len(self.touched):
            return occupied
        occupied = occupied.copy()
        for xy in [*self.bumps, *self.touched]:
            if self.map.contains(xy):
                occupied[self.map.cell(xy)] = True
        return occupied

    def _set_occupied(self, occupied: np.ndarray) -> None:
        omap = self.map
        self._occupied = occupied
        # the core's walking map grows obstacles by the radius less half a cell (an obstacle
        # cell already reaches half a cell past its centre: ObservedMap.blocked)
        grow = self.robot_radius - omap.resolution / 2 if self.core_law else self.robot_radius
        self._blocked = inflate(self._occupied, grow, omap.resolution)
        # cells touching a real obstacle: never released around the start
        self._near_obstacle = ndimage.binary_dilation(self._occupied, np.ones((3, 3), bool))

    @property
    def blocked(self) -> np.ndarray:
        """Cells the robot's centre may not enter (obstacles grown by the radius)."""
        self._need_map()
        return self._blocked

    def _need_map(self) -> None:
        if self.map is None:
            raise NavigationError(ErrorCode.PLANNER_UNKNOWN, "no map received yet")

    def _blocked_for_start(self, start: tuple[int, int]) -> np.ndarray:
        """The inflated grid with the margin around the start released: the robot stands
        there already (possibly inside the inflation), so a path may leave through it."""
        if self.core_law:
            return release_start(self._blocked, self._occupied, start, self.robot_radius, self.map.resolution)
        blocked = self._blocked.copy()
        i, j = start
        r = int(math.ceil(self.robot_radius / self.map.resolution)) + 1
        h, w = blocked.shape
        win = (slice(max(i - r, 0), min(i + r + 1, h)), slice(max(j - r, 0), min(j + r + 1, w)))
        blocked[win] &= self._near_obstacle[win]
        blocked[start] = False
        return blocked

    def plan(self, start_xy, goal_xy) -> Plan:
        """Plan from ``start_xy`` to ``goal_xy``; raises :class:`NavigationError`."""
        t0 = time.perf_counter()
        self._need_map()
        m, spec = self.map, self.map.spec
        start_xy = np.asarray(start_xy, float)[:2]
        goal_xy = np.asarray(goal_xy, float)[:2]
        x0, y0, x1, y1 = m.bounds
        extent = f"[{x0:.2f}, {x1:.2f}] x [{y0:.2f}, {y1:.2f}]"
        if not np.all(np.isfinite(goal_xy)):
            raise NavigationError(ErrorCode.GOAL_OUTSIDE_MAP, f"goal {goal_xy.tolist()} is not a finite point")
        if not m.contains(start_xy):
            raise NavigationError(ErrorCode.START_OUTSIDE_MAP,
                                  f"robot at {_fmt(start_xy)} is outside the map {extent}")
        if not m.contains(goal_xy):
            raise NavigationError(ErrorCode.GOAL_OUTSIDE_MAP, f"goal {_fmt(goal_xy)} is outside the map {extent}")
        start, goal = m.cell(start_xy), m.cell(goal_xy)
        blocked = self._blocked_for_start(start)
        snapped = False
        if blocked[goal]:
            candidates = goal_cells_near(spec, blocked, goal_xy, self.goal_snap_radius)
            if not candidates:
                raise NavigationError(
                    ErrorCode.GOAL_OCCUPIED,
                    f"unreachable: goal {_fmt(goal_xy)} lies in an obstacle (robot radius "
                    f"{self.robot_radius:.2f} m) and no free cell is within {self.goal_snap_radius:.2f} m")
            dist = distance_field(blocked, start, m.resolution)
            reach = [c for c in candidates if np.isfinite(dist[c])]
            if not reach:
                raise NavigationError(
                    ErrorCode.NO_VALID_PATH,
                    f"no path from {_fmt(start_xy)} to the free cells near goal {_fmt(goal_xy)} on the map")
            goal = min(reach, key=lambda c: (float(np.linalg.norm(spec.to_world(c) - goal_xy)), dist[c]))
            snapped = True
        cells = plan_path(blocked, start, [goal])
        if cells is None:
            raise NavigationError(ErrorCode.NO_VALID_PATH,
                                  f"no path from {_fmt(start_xy)} to {_fmt(goal_xy)} on the map")
        end_xy = spec.to_world(goal) if snapped else goal_xy
        if len(cells) <= 1:
            way = np.array([start_xy, end_xy])
        else:
            way = simplify_path(spec, cells)
            if not self.core_law:
                way = shortcut(way, blocked, m)
            way[0], way[-1] = start_xy, end_xy
        return Plan(way, np.asarray(end_xy, float), snapped, path_length(way), cells,
                    time.perf_counter() - t0)

    def plan_stand_off(self, start_xy, target_xy, target_radius: float, arrive_gap: float, reach: float) -> Plan:
        """Plan as the core's ``walk_to`` does (:func:`hazard_sim.navigation.stand_off.stand_off_cells`):
        to the nearest free cell from which the body (``robot_radius``) is within
        ``arrive_gap`` of the object's circle (or, where furniture keeps it back, a wider
        ring up to ``reach``).  A plan of one point: the body already stands on such a cell."""
        t0 = time.perf_counter()
        self._need_map()
        m, spec = self.map, self.map.spec
        start_xy = np.asarray(start_xy, float)[:2]
        if not m.contains(start_xy):
            raise NavigationError(ErrorCode.START_OUTSIDE_MAP, f"robot at {_fmt(start_xy)} is outside the map")
        start = m.cell(start_xy)
        blocked = self._blocked_for_start(start)
        goals, _ = stand_off_cells(spec, blocked, target_xy, target_radius, self.robot_radius, arrive_gap, reach)
        cells = plan_path(blocked, start, goals)
        if cells is None:
            raise NavigationError(ErrorCode.NO_VALID_PATH, f"no path to the object at {_fmt(target_xy)} on the map")
        if len(cells) == 1:
            way = np.array([start_xy, start_xy])
        else:
            way = simplify_path(spec, cells)
            way[0] = start_xy
        return Plan(way, way[-1].copy(), False, path_length(way), cells, time.perf_counter() - t0)

    def path_clear(self, waypoints: np.ndarray, robot_xy=None) -> bool:
        """True when no segment of ``waypoints`` crosses a blocked cell (the margin around
        ``robot_xy``, where the robot stands, does not count)."""
        self._need_map()
        w = np.asarray(waypoints, float)
        if len(w) < 2:
            return True
        blocked = self._blocked if robot_xy is None or not self.map.contains(robot_xy) \
            else self._blocked_for_start(self.map.cell(robot_xy))
        return all(_segment_free(a, b, blocked, self.map) for a, b in zip(w[:-1], w[1:]))


def _segment_free(a, b, blocked: np.ndarray, m: OccupancyMap) -> bool:
    d = float(np.linalg.norm(np.asarray(b) - np.asarray(a)))
    n = max(2, int(math.ceil(d / (0.5 * m.resolution))) + 1)
    pts = np.linspace(a, b, n)
    i = np.floor((pts[:, 1] - m.origin[1]) / m.resolution).astype(int)
    j = np.floor((pts[:, 0] - m.origin[0]) / m.resolution).astype(int)
    h, w = blocked.shape
    inside = (i >= 0) & (i < h) & (j >= 0) & (j < w)
    if not inside.all():
        return False
    return not blocked[i, j].any()


def shortcut(waypoints: np.ndarray, blocked: np.ndarray, m: OccupancyMap) -> np.ndarray:
    """Drop corners that a straight, obstacle-free segment can skip (string pulling)."""
    w = np.asarray(waypoints, float)
    if len(w) <= 2:
        return w.copy()
    out, k = [w[0]], 0
    while k < len(w) - 1:
        nxt = k + 1
        for j in range(len(w) - 1, k + 1, -1):
            if _segment_free(w[k], w[j], blocked, m):
                nxt = j
                break
        out.append(w[nxt])
        k = nxt
    return np.array(out)


__all__ = ["ErrorCode", "NavigationError", "OccupancyMap", "Plan", "GridPlanner", "path_length", "shortcut"]
