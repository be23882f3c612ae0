"""The search machinery every DOZE baseline shares (:class:`SearchAgent`): an occupancy map
from depth, a memory of the instances seen, goal recognition, A* to a global goal and a
local controller over MoveAhead / RotateLeft / RotateRight / Done.  Subclasses choose the
global goal.
"""
from __future__ import annotations

import abc
import math

import numpy as np
from scipy import ndimage
from skimage.graph import MCP_Geometric

from hazard_sim.navigation.grid import GridSpec, inflate
from hazard_sim.tasks.doze.appearance import attribute_ok
from hazard_sim.tasks.doze.goal_language import Goal

CELL = 0.1
STRIDE = 2                   # pixels between back-projected samples
ROBOT_H = 0.9
DONE_DISTANCE = 0.75         # say Done this close to the goal (success counts 1.0 m)
#: m: the rings of free cells a recognised goal is approached from, nearest first; the wider one
#: where furniture keeps the robot further off (an object at the back of a 0.6 m deep counter)
APPROACH_RADII = (DONE_DISTANCE - 0.1, 0.85)
FAR_DONE = 1.0               # say Done this close when the robot can get no nearer (success counts 1.0 m)
TARGET_BUMPS = 8             # blocked moves while approaching a goal before it is given up
REPLAN_EVERY = 25
FREE_AROUND = 0.2            # m around the robot kept free in its planning map
MIN_FRONTIER = 0.5           # m: a frontier closer than this is not a global goal
# people-aware agents (``people_aware``): a person who stays put is an obstacle to plan around, one
# who moves is a forbidden zone to wait for, for a bounded time
STILL_TOLERANCE = 0.3        # m a person's observed centre may shift (view, noise) and still count as not moving
STILL_STEPS = 3              # steps a person stays within STILL_TOLERANCE before it counts as standing still
PERSON_CLEARANCE = 0.65      # m around a standing person's centre the robot's centre keeps out of (a collision
                             # is a gap <= 0.2 m: 0.18 robot + 0.23 person + 0.2 = 0.61 m between centres)
PERSON_MARGIN = 0.9          # m: ... and is dear (cost 6) out to this distance
SQUEEZE_CLEARANCE = 0.45     # m: a recognised goal no approach outside PERSON_CLEARANCE reaches (bystanders
                             # beside it) is approached keeping only the bodies apart (0.18 + 0.23 m + 4 cm)
WAIT_LIMIT = 6               # steps of waiting for a moving person ahead before planning around them
AVOID_STEPS = 12             # steps a person waited for that long stays an obstacle to plan around


class Instance:
    """What the agent remembers of one instance: its label, its 3-D extent, pixel count,
    colours. ``votes``: pixels seen under each label; a detector may name one object
    differently from view to view (far and small, near and large), and the label is the one
    with the most pixels behind it (with ground truth a label never changes)."""
    __slots__ = ("id", "label", "lo", "hi", "n", "rgb", "last", "votes")

    def __init__(self, iid, label):
        self.id, self.label = iid, label
        self.lo, self.hi = np.full(3, np.inf), np.full(3, -np.inf)
        self.n = 0
        self.rgb = np.zeros((0, 3), np.uint8)
        self.last = 0
        self.votes: dict[str, int] = {}

    def vote(self, label: str, pixels: int) -> None:
        self.votes[label] = self.votes.get(label, 0) + int(pixels)
        if label != self.label:
            self.label = max(self.votes, key=self.votes.get)

    @property
    def center(self):
        return (self.lo + self.hi) / 2


class SearchAgent(abc.ABC):
    """The shared map, memory, goal recognition, planner and controller (see the module doc)."""

    name = "search"
    #: steps a person's depth points stay obstacles in the map; None: for ever, as in L3MVN's
    #: obstacle map (fused by max over time, never cleared), so a walking person leaves a trail
    #: of obstacles (the paper's explanation of C-L3MVN's level-3 failures)
    person_memory: int | None = None
    people_aware = False
    reads_hints = False
    scores_frontiers = False

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    # -------------------------------------------------------- set-up
    def reset(self, obs, info):
        self.goal = Goal(info["task"]["goal"])
        self.grid = GridSpec(tuple(info["bounds"]), CELL)
        h, w = self.grid.shape
        self.free = np.zeros((h, w), bool)
        self.obst = np.zeros((h, w), bool)
        self.person_recent: list[tuple[int, np.ndarray]] = []
        self.person_area = np.zeros((h, w), bool)
        self.person_seen_at = np.full((h, w), -10 ** 6)     # step a person was last seen in a cell
        #: people-aware agents: person id -> [centre seen last, where it stands (anchor), step since it
        #: stands there, step seen last]
        self.person_tracks: dict[int, list] = {}
        self.person_avoid: dict[int, int] = {}   # person id -> step it was waited for too long (moving)
        self.waited = 0                  # consecutive steps spent waiting for a moving person
        self.inst: dict[int, Instance] = {}
        self.t = 0
        self.global_goal = None
        self.goal_set_at = -REPLAN_EVERY
        self.target = None               # xy of the recognised goal object
        self.target_id = None
        self.rejected: set[int] = set()
        self.hint = None                 # (relation, furniture) read on a board
        self.boards_ok: set[int] = set()                        # whiteboards read
        self.board_tries: dict[int, list] = {}                   # board -> [(step, width px)] of reads
        self.look_around = 0
        self.last_action = None
        self.bumped = False              # the last MoveAhead was blocked
        self.target_bumps = 0            # ... counted while approaching the current target
        self.labels = info.get("labels", {})
        self._integrate(obs, info)

    # -------------------------------------------------------- perception
    def _integrate(self, obs, info):
        self.labels = info.get("labels", self.labels)
        depth = obs["depth"][::STRIDE, ::STRIDE]
        seg = obs["seg"][::STRIDE, ::STRIDE]
        rgb = obs["rgb"][::STRIDE, ::STRIDE]
        K = obs["camera_K"].copy()
        K[:2] /= STRIDE
        hh, ww = depth.shape
        u, v = np.meshgrid(np.arange(ww), np.arange(hh))
        ok = np.isfinite(depth) & (depth > 0) & (depth < 8.0)
        z = depth[ok]
        x = (u[ok] + 0.5 - 0.5 - K[0, 2] + (STRIDE - 1) / (2 * STRIDE)) * z / K[0, 0]
        y = (v[ok] - K[1, 2] + (STRIDE - 1) / (2 * STRIDE)) * z / K[1, 1]
        T = obs["camera_pose"]
        pts = np.stack([x, y, z], 1) @ T[:3, :3].T + T[:3, 3]
        ids = seg[ok]
        cols = rgb[ok]
        labels = self.labels
        is_person = np.isin(ids, [k for k, v in labels.items() if v == "person"])
        i_idx, j_idx = self.grid.to_cells(pts[:, :2])
        floor = pts[:, 2] < 0.05
        self.free[i_idx[floor], j_idx[floor]] = True
        ob = (pts[:, 2] >= 0.05) & (pts[:, 2] < ROBOT_H + 0.05)
        if self.person_memory is not None:
            ob &= ~is_person
        self.obst[i_idx[ob], j_idx[ob]] = True
        pp = is_person & (pts[:, 2] < ROBOT_H + 0.05)
        self.person_seen_at[i_idx[pp], j_idx[pp]] = self.t
        # people: where they are now (their points' centre per instance)
        self.person_recent = [(t, p) for t, p in self.person_recent if self.t - t <= 6]
        for pid in np.unique(ids[is_person]):
            sel = ids == pid
            c = pts[sel, :2].mean(0)
            self.person_recent.append((self.t, c))
            self.person_area[self.grid.to_cell(c)] = True
            if self.people_aware:
                self._track_person(int(pid), c)
        # instances seen
        for iid in np.unique(ids):
            iid = int(iid)
            lab = labels.get(iid)
            if lab is None or lab in ("floor", "wall", "person"):
                continue
            sel = ids == iid
            inst = self.inst.get(iid)
            if inst is None:
                inst = self.inst[iid] = Instance(iid, lab)
            inst.vote(lab, int(sel.sum()))
            lab = inst.label
            p = pts[sel]
            inst.lo = np.minimum(inst.lo, p.min(0))
            inst.hi = np.maximum(inst.hi, p.max(0))
            inst.n += int(sel.sum())
            if sel.sum() >= len(inst.rgb) // 2:
                inst.rgb = cols[sel]
            inst.last = self.t
            if lab != "whiteboard":
                self.goal.match_label(lab)
        self.last_obs = obs

    def _track_person(self, pid: int, c: np.ndarray):
        tr = self.person_tracks.get(pid)
        if tr is None or np.linalg.norm(c - tr[1]) > STILL_TOLERANCE:
            self.person_tracks[pid] = [c, c, self.t, self.t]     # first seen, or moved: a new anchor
        else:
            tr[0], tr[3] = c, self.t

    def _standing(self) -> list[np.ndarray]:
        """Where the people stand who have stayed put for :data:`STILL_STEPS` steps (as last seen: a
        person out of view is taken to stand there still), and where the moving people waited for too
        long (:meth:`_guarded`) were seen last."""
        out = [tr[1] for tr in self.person_tracks.values() if tr[3] - tr[2] >= STILL_STEPS]
        return out + [self.person_tracks[pid][0] for pid, t in self.person_avoid.items()
                      if self.t - t <= AVOID_STEPS and pid in self.person_tracks]

    def _is_standing(self, p: np.ndarray, standing=None) -> bool:
        standing = self._standing() if standing is None else standing
        return any(np.linalg.norm(p - q) <= STILL_TOLERANCE for q in standing)

    # -------------------------------------------------------- goal recognition
    def _relation_ok(self, inst: Instance) -> bool | None:
        rel = self.goal.relation or self.hint
        if rel is None:
            return True
        kind, furn = rel[0], rel[1].lower()
        parts = [f for f in self.inst.values() if f.label.lower() == furn]
        if not parts:
            return None
        c, lo, hi = inst.center, inst.lo, inst.hi
        for f in parts:
            inside = (f.lo[0] - 0.08 <= c[0] <= f.hi[0] + 0.08) and (f.lo[1] - 0.08 <= c[1] <= f.hi[1] + 0.08)
            if kind == "on" and inside and lo[2] > 0.1 and abs(lo[2] - f.hi[2]) < 0.15:
                return True
            if kind == "under" and inside and lo[2] < 0.1 and f.lo[2] > hi[2] - 0.05:
                return True
            if kind == "in" and inside and lo[2] > 0.0 and hi[2] <= f.hi[2] + 0.05:
                return True
            if kind == "next to" and lo[2] < 0.1 and not inside:
                dx = max(f.lo[0] - c[0], 0.0, c[0] - f.hi[0])
                dy = max(f.lo[1] - c[1], 0.0, c[1] - f.hi[1])
                if math.hypot(dx, dy) < 0.6:
                    return True
        return False

    def _find_goal(self):
        if self.goal.category is None:
            return
        best = None
        for inst in self.inst.values():
            if inst.id in self.rejected or inst.label.lower() != self.goal.category:
                continue
            a = attribute_ok(self.goal.attribute, inst.rgb)
            if a is False:
                continue
            r = self._relation_ok(inst)
            if r is False:
                continue
            if r is None and (self.goal.relation or self.hint):
                continue          # the furniture is not seen yet: keep searching
            d = float(np.linalg.norm(inst.center[:2] - self.pose[:2]))
            if best is None or d < best[0]:
                best = (d, inst)
        if best is not None:
            if best[1].id != self.target_id:
                self.target_bumps = 0
            self.target, self.target_id = best[1].center[:2].copy(), best[1].id

    # -------------------------------------------------------- planning
    def _blocked(self, clearance: float = PERSON_CLEARANCE) -> np.ndarray:
        """Obstacles grown by the robot's radius (people's points: see ``person_memory``); people
        standing still keep the robot's centre ``clearance`` away (people-aware agents)."""
        obst = self.obst
        if self.person_memory is not None:
            obst = obst | (self.t - self.person_seen_at <= self.person_memory)
        b = inflate(obst, 0.2, CELL)
        if self.people_aware:                # people standing still: obstacles with their safety margin
            for p in self._standing():
                b |= self._disc(p, clearance)
        # the robot's own footprint is free (as SemExp / L3MVN clear the agent's cells), so an
        # agent next to a person it mapped can plan its way out
        b[inflate(self._here(), FREE_AROUND, CELL)] = False
        return b

    def _here(self) -> np.ndarray:
        m = np.zeros(self.grid.shape, bool)
        m[self.grid.to_cell(self.pose[:2])] = True
        return m

    def _cost(self, clearance: float = PERSON_CLEARANCE) -> np.ndarray:
        cost = np.where(self._blocked(clearance), np.inf, 1.0)
        if self.people_aware:
            cost[inflate(self.person_area, 0.4, CELL) & np.isfinite(cost)] = 6.0
            standing = self._standing()
            for p in standing:
                cost[self._disc(p, PERSON_MARGIN) & np.isfinite(cost)] = 6.0
            for _, p in self.person_recent:
                if self._is_standing(p, standing):
                    continue                 # planned around (:meth:`_blocked`), not a zone to wait out
                i, j = self.grid.to_cell(p)
                r = 7
                cost[max(i - r, 0):i + r + 1, max(j - r, 0):j + r + 1] = 60.0
        cost[self.grid.to_cell(self.pose[:2])] = 1.0
        return cost

    def _disc(self, xy, r) -> np.ndarray:
        return np.linalg.norm(self.grid.centres() - np.asarray(xy, float), axis=-1) <= r

    def _dist_field(self, cost):
        mcp = MCP_Geometric(cost, fully_connected=True)
        dist, _ = mcp.find_costs([self.grid.to_cell(self.pose[:2])])
        return mcp, dist

    def _path_to(self, cells, field=None):
        """The path to the nearest reachable of ``cells`` (None: none reachable); ``field``: the
        robot's distance field (:meth:`_dist_field`) when the caller has it already."""
        mcp, dist = field if field is not None else self._dist_field(self._cost())
        cells = [c for c in cells if np.isfinite(dist[c])]
        if not cells:
            return None
        best = min(cells, key=lambda c: dist[c])
        return [self.grid.to_world(c) for c in mcp.traceback(best)]

    def _frontiers(self):
        known = self.free | self.obst
        fr = self.free & ndimage.binary_dilation(~known, np.ones((3, 3), bool)) & ~inflate(self.obst, 0.2, CELL)
        lab, n = ndimage.label(fr, np.ones((3, 3), bool))
        if n == 0:
            return []
        sizes = ndimage.sum(fr, lab, range(1, n + 1))
        comps = []
        for k in np.argsort(-sizes):
            if sizes[k] < 3:
                break
            cells = np.argwhere(lab == k + 1)
            comps.append(cells)
        return comps

    def _frontier_goals(self, dist, top: int | None = None) -> list[tuple[float, tuple, np.ndarray]]:
        """Frontier components (largest first; the first ``top`` that qualify) as (distance in m,
        the component's nearest reachable cell, its cells), skipping components whose nearest cell is
        unreachable or closer than :data:`MIN_FRONTIER` (a frontier at the robot's feet that its camera
        cannot see past, e.g. under furniture, would be chosen again and again)."""
        out = []
        for cells in self._frontiers():
            d = dist[cells[:, 0], cells[:, 1]]
            k = int(np.argmin(d))
            if np.isfinite(d[k]) and d[k] * CELL >= MIN_FRONTIER:
                out.append((float(d[k] * CELL), tuple(cells[k]), cells))
                if top is not None and len(out) == top:
                    break
        return out

    @abc.abstractmethod
    def choose_global_goal(self, cost, dist):
        """The exploration goal (xy) or None; subclasses choose."""

    # -------------------------------------------------------- control
    def _steer(self, path) -> str:
        x, y, yaw = self.pose
        look = None
        for p in path[1:]:
            if np.linalg.norm(p - self.pose[:2]) >= 0.3:
                look = p
                break
        if look is None:
            look = path[-1]
        d = look - self.pose[:2]
        err = (math.atan2(d[1], d[0]) - yaw + math.pi) % (2 * math.pi) - math.pi
        if abs(err) > math.radians(20):
            return "RotateLeft" if err > 0 else "RotateRight"
        return "MoveAhead"

    def _person_ahead(self, moving_only: bool = False) -> bool:
        """A person seen in the last step within 1.1 m ahead and 0.6 m aside; ``moving_only``: one that
        is not standing still (:meth:`_standing`)."""
        x, y, yaw = self.pose
        f = np.array([math.cos(yaw), math.sin(yaw)])
        standing = self._standing() if moving_only else ()
        for t, p in self.person_recent:
            if self.t - t > 1 or (moving_only and self._is_standing(p, standing)):
                continue
            d = p - self.pose[:2]
            ahead = float(d @ f)
            if 0.0 < ahead < 1.1 and abs(float(d @ [-f[1], f[0]])) < 0.6:
                return True
        return False

    def act(self, obs, info):
        self.t += 1
        self.pose = obs["agent_pose"].astype(float)
        if self.t > 1:
            self._integrate(obs, info)
        res = info.get("action_result", {})
        self.bumped = self.last_action == "MoveAhead" and res.get("status") == "blocked"
        if self.bumped:
            x, y, yaw = self.pose
            ahead = self.grid.to_cell(self.pose[:2] + 0.3 * np.array([math.cos(yaw), math.sin(yaw)]))
            if self._person_ahead() and self.person_memory is not None:
                self.person_seen_at[ahead] = self.t
            else:                   # a collision map: the cell in front is an obstacle (L3MVN, SemExp)
                self.obst[ahead] = True
        if self.reads_hints:
            self._read_boards(obs)
        if self.target is None:
            self._find_goal()
        a = self._decide()
        self.last_action = a
        return a

    def _decide(self) -> str:
        if self.target is not None:
            d = float(np.linalg.norm(self.target - self.pose[:2]))
            if d <= DONE_DISTANCE:
                return "Done"
            path = self._approach_path(self._approach_radii())
            if path is None and self.people_aware and self._standing():
                # bystanders' clearance covers every approach: squeeze past them, bodies kept apart,
                # at worst to just inside success distance
                path = self._approach_path((*APPROACH_RADII, FAR_DONE - 0.05), SQUEEZE_CLEARANCE)
            if d <= FAR_DONE and (self.bumped or (path is not None and len(path) < 2)):
                return "Done"          # on the nearest free cell to the goal, or furniture in the way
            self.target_bumps += self.bumped
            if self.target_bumps >= TARGET_BUMPS:
                path = None            # it cannot be reached from here: look for another instance
            if path is not None and len(path) >= 2:
                a = self._steer(path)
                if a == "MoveAhead" and d <= FAR_DONE and self.people_aware and self._person_ahead():
                    return "Done"      # a bystander between the robot and the goal, within success distance
                return self._guarded(a)
            self.rejected.add(self.target_id)
            self.target, self.target_bumps = None, 0
        if self.look_around > 0:
            self.look_around -= 1
            return "RotateLeft"
        if self.t <= 12:                      # look around first (12 x 30 degrees)
            return "RotateLeft"
        cost = self._cost()
        mcp, dist = self._dist_field(cost)
        stale = self.t - self.goal_set_at >= REPLAN_EVERY
        reached = self.global_goal is not None and np.linalg.norm(self.global_goal - self.pose[:2]) < 0.5
        unreachable = self.global_goal is not None and not np.isfinite(dist[self.grid.to_cell(self.global_goal)])
        if self.global_goal is None or stale or reached or unreachable:
            self.global_goal = self.choose_global_goal(cost, dist)
            if self.global_goal is None:
                self.global_goal = self._wander_goal(dist)
            self.goal_set_at = self.t
        if self.global_goal is None:
            return "RotateLeft"
        path = [self.grid.to_world(c) for c in mcp.traceback(self.grid.to_cell(self.global_goal))] \
            if np.isfinite(dist[self.grid.to_cell(self.global_goal)]) else None
        if not path or len(path) < 2:
            self.global_goal = None
            return "RotateLeft"
        return self._guarded(self._steer(path))

    def _wander_goal(self, dist):
        """No frontier can be reached (the map is walled in, e.g. by people's trails): a random
        reachable explored point at least 1 m away, so the robot keeps looking (and may see the
        way open again) instead of turning on the spot."""
        far = self.free & np.isfinite(dist) & (dist * CELL >= 1.0)
        cells = np.argwhere(far)
        if not len(cells):
            return None
        return self.grid.to_world(cells[int(self.rng.integers(len(cells)))])

    def _guarded(self, a: str) -> str:
        """People-aware agents wait (turn away and back) while a moving person is close ahead, at most
        :data:`WAIT_LIMIT` steps at a time: then that person (where seen last) is an obstacle to plan
        around for :data:`AVOID_STEPS` steps (a new plan next step).  People standing still are planned around
        already (:meth:`_blocked`) and are not waited for."""
        if not self.people_aware:
            return a
        if a != "MoveAhead" or not self._person_ahead(moving_only=True):
            self.waited = 0
            return a
        if self.waited >= WAIT_LIMIT:
            f = np.array([math.cos(self.pose[2]), math.sin(self.pose[2])])
            for pid, tr in self.person_tracks.items():
                d = tr[0] - self.pose[:2]
                if self.t - tr[3] <= 1 and 0.0 < float(d @ f) < 1.1 and abs(float(d @ [-f[1], f[0]])) < 0.6:
                    self.person_avoid[pid] = self.t
            self.waited = 0
            self.global_goal = None          # plan again, around them
        else:
            self.waited += 1
        return "RotateLeft" if self.waited % 2 else "RotateRight"

    def _approach_radii(self) -> tuple:
        """The rings the target is approached on: :data:`APPROACH_RADII`, and for a thing under a
        piece (the goal's relation or a hint's) one more just inside success distance: it is reached
        only from beside the piece, past whatever stands next to it."""
        rel = self.goal.relation or self.hint
        if rel is not None and rel[0] == "under":
            return (*APPROACH_RADII, FAR_DONE - 0.05)
        return APPROACH_RADII

    def _approach_path(self, radii, clearance: float = PERSON_CLEARANCE):
        """The path to the target's nearest reachable cell within the first of ``radii`` that has
        one (one distance field for every ring), or None."""
        field = self._dist_field(self._cost(clearance))
        for r in radii:
            path = self._path_to(self._cells_near(self.target, r, clearance), field=field)
            if path is not None:
                return path
        return None

    def _cells_near(self, xy, r, clearance: float = PERSON_CLEARANCE):
        c = self.grid.centres()
        blocked = self._blocked(clearance)
        m = (np.linalg.norm(c - xy, axis=-1) <= r) & ~blocked
        return [tuple(x) for x in np.argwhere(m)]

    # -------------------------------------------------------- hints
    def _read_boards(self, obs):
        pass
