"""DOZE's humanoid obstacles: a world process of walking (or standing) people.

Each person is a mesh with a head, torso, arms and legs whose limbs swing with a
walking cycle, labelled ``person`` in segmentation.  Levels (DOZE):

* level 1: static people standing near the goal object (occluding it) and elsewhere; two
  bystanders stand 0.5-1.1 m from the goal (where the goal's nook holds only one, the second
  takes the nearest free spot beyond it);
* level 2: people walking fixed paths (a loop through 2 to 4 points of the scene,
  fixed per scene and person) with pauses and lingering at the points;
* level 3: people walking to randomly drawn points, one after another.

There are 4 to 6 people per 100 m^2 of navigable area (the episode may set the
number); no two are placed closer than ``SEPARATION`` (their bodies apart).  People
walk on the static scene's free space (walls and furniture inflated by their radius)
along geodesic paths.  They do not plan around the robot,
but never walk through it: a person whose next step would overlap the robot's body
waits where it is (as people do when a robot is in their way) and walks on once the
way is clear.  The robot cannot drive into a person either (``body_blocked``), so
bodies never interpenetrate; the robot's collisions are counted as the paper defines
them (by the task).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from hazard_sim.core.frames import EFFECT_ID_BASE, FRAME_DT
from hazard_sim.core.markers import WorldMarker
from hazard_sim.core.process import WorldProcess
from hazard_sim.embodiment.locobot import LoCoBotSpec
from hazard_sim.navigation.grid import GridSpec, inflate, plan_path, rasterize_boxes
from hazard_sim.render.mesh import Mesh
from hazard_sim.tasks.doze.shapes import box, ellipsoid, merge, rod, sphere

PERSON_LABEL = "person"
PERSON_RADIUS = 0.23         # m, half an adult's shoulder breadth (0.40-0.46 m) with the arms
ROBOT_RADIUS = LoCoBotSpec().radius
WALK_SPEED = 1.2             # m/s, adults' comfortable walking speed indoors (1.2-1.4 m/s outdoors)
DOORWAY_GOALS = 0.5          # level 3: share of walking goals in doorways
PERSON_ID_BASE = EFFECT_ID_BASE   # person k has instance id 900 + k
DENSITY = (4.0, 6.0)         # people per 100 m^2 of navigable area (levels 2, 3)
SEPARATION = 2 * PERSON_RADIUS + 0.05   # m, least distance between two people's centres when placed
SKIN = ((240, 200, 170), (200, 150, 110), (140, 95, 65), (90, 60, 40))
SHIRTS = ((200, 40, 40), (40, 90, 180), (60, 150, 70), (230, 200, 60), (120, 60, 150), (240, 240, 240),
          (30, 30, 30), (240, 130, 40))
PANTS = ((40, 50, 90), (60, 60, 60), (120, 100, 70), (20, 20, 20))


@dataclass
class Person:
    id: int
    xy: np.ndarray
    yaw: float
    height: float
    colors: tuple
    mode: str                          # static | fixed | random
    route: list = field(default_factory=list)     # waypoints (2,) to walk through, in order
    waypoints: list = field(default_factory=list)  # fixed loop's points (level 2)
    target: int = 0
    pause: int = 0                     # frames left standing still
    phase: float = 0.0                 # walking cycle (rad)
    moving: bool = False
    track: list = field(default_factory=list)

    model: PersonModel | None = None

    def mesh(self) -> Mesh:
        if self.model is None:
            self.model = PersonModel(self.height, self.colors)
        return self.model.mesh(self.id, self.xy, self.yaw, self.phase if self.moving else 0.0)


class PersonModel:
    """A person's mesh in rest pose, cut into rigid segments (torso + head, two legs, two arms);
    :meth:`mesh` poses it (limbs swung about the hips / shoulders by the walking phase, legs and
    arms in opposition) with a few vectorised operations, so walking people are cheap to draw."""

    def __init__(self, height: float = 1.7, colors=None):
        skin, shirt, pants, hair = colors or (SKIN[0], SHIRTS[0], PANTS[0], (50, 35, 20))
        s = height / 1.7
        hip, shoulder = 0.88 * s, 1.42 * s
        segs = []           # (parts, joint, swing gain)
        for side, sgn in ((0.09, 1.0), (-0.09, -1.0)):
            j = (0.0, side * s, hip)
            segs.append(([rod(j, (0, side * s, hip - 0.86 * s), 0.065 * s, pants, seg=6),
                          box((0.05 * s, side * s, 0.03 * s), (0.22 * s, 0.09 * s, 0.06 * s), (40, 30, 25))],
                         j, sgn))
            j = (0.0, side * 2.5 * s, shoulder)
            segs.append(([rod(j, (0, side * 2.5 * s, shoulder - 0.6 * s), 0.045 * s, shirt, seg=6),
                          sphere((0, side * 2.5 * s, shoulder - 0.6 * s), 0.05 * s, skin, rings=3, seg=6)],
                         j, -0.8 * sgn))
        segs.append(([box((0, 0, 1.16 * s), (0.2 * s, 0.38 * s, 0.6 * s), shirt),
                      box((0, 0, 0.93 * s), (0.2 * s, 0.34 * s, 0.12 * s), pants),
                      rod((0, 0, 1.45 * s), (0, 0, 1.53 * s), 0.05 * s, skin, seg=6),
                      sphere((0.01 * s, 0, 1.62 * s), 0.11 * s, skin, rings=6, seg=10),
                      ellipsoid((-0.015 * s, 0, 1.67 * s), (0.105 * s, 0.115 * s, 0.08 * s), hair, rings=4, seg=10)],
                     (0.0, 0.0, 0.0), 0.0))
        vs, ts, cs, rel, gain, n = [], [], [], [], [], 0
        for parts, joint, g in segs:
            p = merge(parts)
            vs.append(p.v)
            ts.append(p.t + n)
            cs.append(p.c)
            rel.append(np.broadcast_to(np.asarray(joint, float), p.v.shape))
            gain.append(np.full(len(p.v), g))
            n += len(p.v)
        self.v = np.concatenate(vs)
        self.t = np.concatenate(ts).astype(np.int32)
        self.c = np.concatenate(cs)
        self.joint = np.concatenate(rel)
        self.gain = np.concatenate(gain)
        self.local = self.v - self.joint
        rest = Mesh(self.v.astype(np.float32), self.t, 1, colors=self.c)
        self.normals = rest.normals.astype(np.float64)

    def mesh(self, id: int, xy, yaw: float, phase: float) -> Mesh:
        a = 0.45 * math.sin(phase) * self.gain
        ca, sa = np.cos(a), np.sin(a)
        lx, lz = self.local[:, 0], self.local[:, 2]
        v = np.empty_like(self.v)
        v[:, 0] = ca * lx + sa * lz + self.joint[:, 0]
        v[:, 1] = self.v[:, 1]
        v[:, 2] = -sa * lx + ca * lz + self.joint[:, 2]
        nx, nz = self.normals[:, 0], self.normals[:, 2]
        nrm = np.stack([ca * nx + sa * nz, self.normals[:, 1], -sa * nx + ca * nz], 1)
        c, s = math.cos(yaw), math.sin(yaw)
        R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        v = v @ R.T + np.array([xy[0], xy[1], 0.0])
        return Mesh(v.astype(np.float32), self.t, id, colors=self.c, normals=(nrm @ R.T).astype(np.float32))


def walk_along(xy, route: list, step: float, yaw: float):
    """Where a person at ``xy`` walking ``step`` metres along ``route`` (waypoints) ends up:
    ``(xy, route left, heading)``; the arguments are not changed."""
    xy, route = np.asarray(xy, float), list(route)
    left = step
    while left > 1e-9 and route:
        d = route[0] - xy
        n = float(np.linalg.norm(d))
        if n <= left:
            xy = np.asarray(route.pop(0), float).copy()
            left -= n
        else:
            xy = xy + d / n * left
            left = 0.0
        if n > 1e-9:
            yaw = math.atan2(d[1], d[0])
    return xy, route, yaw


def _overlaps(xy, discs) -> bool:
    """Whether a person at ``xy`` overlaps any body disc ``(centre, radius)``."""
    return any(float(np.linalg.norm(np.asarray(xy, float) - c)) < r + PERSON_RADIUS for c, r in discs)


def _crowded(xy, placed) -> bool:
    """Whether a person placed at ``xy`` would stand closer than ``SEPARATION`` to one already placed."""
    return any(float(np.linalg.norm(np.asarray(xy, float) - q)) < SEPARATION for q in placed)


def person_mesh(id: int, xy, yaw: float, phase: float, height: float = 1.7, colors=None) -> Mesh:
    """A person at ``xy`` facing ``yaw`` with its limbs at walking ``phase``."""
    return PersonModel(height, colors).mesh(id, xy, yaw, phase)


def people_count(navigable_m2: float, rng, density=DENSITY) -> int:
    """How many people an episode has: 4 to 6 per 100 m^2 of navigable area (at least one)."""
    d = float(rng.uniform(*density))
    return max(1, int(round(navigable_m2 * d / 100.0)))


class PeopleProcess(WorldProcess):
    """``level`` 1 (static), 2 (fixed paths) or 3 (random points); ``people`` the number of
    people (None: from the density); ``goal_xy`` where level 1's people stand around."""

    name = "people"
    solid = True            # a body cannot pass through a person: MoveAhead / cmd_vel into one is blocked

    def __init__(self, scene, level: int, rng, people: int | None = None, goal_xy=None, navigable_m2=None,
                 route_seed=0, avoid_xy=None):
        if level not in (1, 2, 3):
            raise ValueError(f"DOZE level must be 1, 2 or 3, got {level!r}")
        self.level = level
        self.rng = rng
        self.grid = GridSpec(scene.bounds, 0.1)
        solid = rasterize_boxes(self.grid, [p.box for p in scene.solids()])
        self.blocked = inflate(solid, PERSON_RADIUS + 0.1, 0.1)      # the body clear of solids on a 0.1 m grid
        free_cells = np.argwhere(~self.blocked)
        self.free_xy = np.array([self.grid.to_world(c) for c in free_cells])
        self.doorway_xy = self._doorways(scene, free_cells)
        if navigable_m2 is None:
            navigable_m2 = float((~self.blocked).sum() * 0.01)
        n = people_count(navigable_m2, rng) if people is None else int(people)
        if n < 0:
            raise ValueError(f"number of people must be >= 0, got {n}")
        self.people: list[Person] = []
        self._frame = 0
        route_rng = np.random.default_rng([route_seed, 77])      # level 2's fixed loops: per scene
        avoid = None if avoid_xy is None else np.asarray(avoid_xy, float)[:2]
        placed: list[np.ndarray] = []      # where the people so far stand: no two are placed on one spot
        for k in range(n):
            colors = (SKIN[int(rng.integers(len(SKIN)))], SHIRTS[int(rng.integers(len(SHIRTS)))],
                      PANTS[int(rng.integers(len(PANTS)))], (int(rng.integers(20, 90)),) * 2 + (20,))
            height = float(rng.uniform(1.55, 1.9))
            if level == 1 and goal_xy is not None and k < 2:
                xy = self._near(goal_xy, 0.5, 1.1, rng, avoid, placed)
            else:
                xy = self._free_point(rng, avoid, placed)
            p = Person(PERSON_ID_BASE + k, xy, float(rng.uniform(-np.pi, np.pi)), height, colors,
                       {1: "static", 2: "fixed", 3: "random"}[level])
            if level == 2:
                m = int(route_rng.integers(2, 5))
                loop = [self._free_point(route_rng) for _ in range(m)]
                p.waypoints = loop
                start = int(rng.integers(m))       # where on its loop this episode finds the person
                for shift in range(m):             # not on a spot another person already stands on
                    if not _crowded(loop[(start + shift) % m], placed):
                        start = (start + shift) % m
                        break
                p.xy = loop[start].copy()
                p.target = (start + 1) % m
                p.pause = int(rng.integers(0, 20))
            if level == 1 and goal_xy is not None and k < 2:
                d = np.asarray(goal_xy[:2]) - p.xy
                p.yaw = math.atan2(d[1], d[0])
            p.track.append(p.xy.copy())
            self.people.append(p)
            placed.append(p.xy.copy())

    # ------------------------------------------------------------ placement
    # A draw that lands on a spot already taken is drawn again, so that an episode whose people
    # never crowded keeps exactly the people it always had.
    def _free_point(self, rng, avoid=None, placed=()) -> np.ndarray:
        for _ in range(200):
            xy = self.free_xy[int(rng.integers(len(self.free_xy)))].copy()
            if (avoid is None or np.linalg.norm(xy - avoid) > 1.5) and not _crowded(xy, placed):
                return xy
        return xy

    def _near(self, goal_xy, rmin, rmax, rng, avoid=None, placed=()) -> np.ndarray:
        g = np.asarray(goal_xy, float)[:2]
        d = np.linalg.norm(self.free_xy - g, axis=1)
        ok = np.nonzero((d >= rmin) & (d <= rmax))[0]
        if avoid is not None and len(ok):
            ok = ok[np.linalg.norm(self.free_xy[ok] - avoid, axis=1) > 1.0]
        if not len(ok):
            ok = np.argsort(d)[:20]
        for _ in range(200):
            xy = self.free_xy[int(ok[int(rng.integers(len(ok)))])].copy()
            if not _crowded(xy, placed):
                return xy
        # a nook with room for one: the free spot nearest the goal beyond ``rmin`` that is not taken
        far = avoid is None or (np.linalg.norm(self.free_xy - avoid, axis=1) > 1.0)
        for i in np.argsort(d):
            if d[i] >= rmin and (far is True or far[i]) and not _crowded(self.free_xy[i], placed):
                return self.free_xy[i].copy()
        return self._free_point(rng, avoid, placed)

    def _doorways(self, scene, free_cells) -> np.ndarray:
        """(K, 2) free points in doorways: free cells with cells of two rooms within 0.3 m."""
        rooms = getattr(scene, "rooms", None) or []
        if len(rooms) < 2 or not len(free_cells):
            return np.zeros((0, 2))
        xy = np.array([self.grid.to_world(c) for c in free_cells])
        room = np.full(len(xy), -1)
        for k, (_, (x0, y0, x1, y1)) in enumerate(rooms):
            room[(xy[:, 0] >= x0) & (xy[:, 0] < x1) & (xy[:, 1] >= y0) & (xy[:, 1] < y1)] = k
        grid_room = np.full(self.grid.shape, -1)
        grid_room[free_cells[:, 0], free_cells[:, 1]] = room
        r = 3
        pad = np.pad(grid_room, r, constant_values=-1)
        lo = np.full(self.grid.shape, 10 ** 6)
        hi = np.full(self.grid.shape, -1)
        for di in range(-r, r + 1):
            for dj in range(-r, r + 1):
                win = pad[r + di:r + di + self.grid.shape[0], r + dj:r + dj + self.grid.shape[1]]
                lo = np.where(win >= 0, np.minimum(lo, win), lo)
                hi = np.maximum(hi, win)
        door = (lo < hi) & (grid_room >= 0)
        return np.array([self.grid.to_world(c) for c in np.argwhere(door)]).reshape(-1, 2)

    def _walk_goal(self) -> np.ndarray:
        """Level 3's next goal: half the time a doorway (people go from room to room and stop
        in doors), else any free point."""
        if len(self.doorway_xy) and self.rng.random() < DOORWAY_GOALS:
            return self.doorway_xy[int(self.rng.integers(len(self.doorway_xy)))].copy()
        return self._free_point(self.rng)

    def _route(self, a, b) -> list:
        path = plan_path(self.blocked, self.grid.to_cell(a), [self.grid.to_cell(b)])
        if not path:
            return []
        return [self.grid.to_world(c) for c in path[1:]]

    # ------------------------------------------------------------ motion
    def step_frame(self, world) -> None:
        self._frame += 1
        step = WALK_SPEED * FRAME_DT
        discs = getattr(world, "body_discs", ())
        for p in self.people:
            if p.mode == "static":
                continue
            if p.pause > 0:
                p.pause -= 1
                p.moving = False
                if p.mode == "fixed" and p.pause % 10 == 5:     # lingering: a small turn on the spot
                    p.yaw += float(self.rng.uniform(-0.6, 0.6))
                continue
            if not p.route:
                if p.mode == "fixed":
                    goal = p.waypoints[p.target]
                else:
                    goal = self._walk_goal()
                p.route = self._route(p.xy, goal)
                if not p.route:
                    p.pause = 5
                    continue
            xy, route, yaw = walk_along(p.xy, p.route, step, p.yaw)
            if _overlaps(xy, discs) and not _overlaps(p.xy, discs):
                p.moving = False          # the robot is in the way: wait for it to pass
                p.track.append(p.xy.copy())
                continue
            p.xy, p.route, p.yaw = xy, route, yaw
            p.moving = True
            p.phase += 2 * math.pi * FRAME_DT * 1.8     # 1.8 strides a second
            if not p.route:            # arrived: pause (fixed paths pause and linger longer)
                if p.mode == "fixed":
                    p.target = (p.target + 1) % len(p.waypoints)
                    p.pause = int(self.rng.integers(10, 40))
                else:
                    p.pause = int(self.rng.integers(0, 10))
            p.track.append(p.xy.copy())

    # ------------------------------------------------------------ queries
    def positions(self) -> np.ndarray:
        return np.array([p.xy for p in self.people]).reshape(-1, 2)

    def clearance(self, xy, radius: float) -> float:
        """The smallest gap (m) between a round body at ``xy`` and any person (inf if none)."""
        if not self.people:
            return math.inf
        d = np.linalg.norm(self.positions() - np.asarray(xy, float)[:2], axis=1)
        return float(d.min() - radius - PERSON_RADIUS)

    def body_blocked(self, xy) -> bool:
        return self.clearance(xy, ROBOT_RADIUS) < 0.0

    def no_go_points(self) -> np.ndarray:
        return self.positions()

    # ------------------------------------------------------------ rendering
    def render_meshes(self) -> list:
        return [p.mesh() for p in self.people]

    def geometry_key(self):
        if self.level == 1:
            return len(self.people)
        return self._frame

    def labels(self) -> dict[int, str]:
        return {p.id: PERSON_LABEL for p in self.people}

    def markers(self) -> list:
        """Each person as an upright cylinder (their collision radius, their height, their
        shirt's colour), facing their heading: for displays and ground-truth consumers."""
        out = []
        for p in self.people:
            c, s = math.cos(p.yaw), math.sin(p.yaw)
            rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            out.append(WorldMarker(p.id, PERSON_LABEL, np.array([p.xy[0], p.xy[1], p.height / 2]),
                                   (2 * PERSON_RADIUS, 2 * PERSON_RADIUS, p.height), tuple(p.colors[1]),
                                   "cylinder", rot))
        return out
