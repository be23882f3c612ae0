"""ESAR baselines (agent group ``esar``): random, lawnmower, frontier, probability map.

Every agent sees only its observations and ``info`` (the briefing: map bounds, last known
position, number of missing persons, time limit, trails of the map as a rescue team's topo
map shows them). Detection for reporting is the ground-truth segmentation track: instance
ids in each camera's ``seg_visible`` (what the light and fog let a detector see) with their
labels, placed in the world by back-projecting the depth (median of the pixels). An agent
reports a clue or a victim the first time it sees it, and says ``stop`` when it has
located as many victims as are missing or when its time is nearly up.

* ``random``: uniformly one of the six flight actions (as the paper's Random).
* ``lawnmower``: boustrophedon (parallel tracks) over an 800 m square around the last known
  position at 60 m above the ground, tracks 140 m apart (about the width the four cameras
  see well at that height), the classical SAR pattern; then a wider, sparser pattern.
* ``frontier``: frontier-based exploration on a 2.5-D map (``HeightLayer``): cells seen
  closer than ``SEARCH_RANGE`` count as searched; it flies to the nearest frontier
  (searched cells next to unsearched ones), nearest to the last known position first.
* ``probmap``: search theory: a probability map of where the person is (prior: a Gaussian
  around the last known position plus a band along the trails), lowered where the cameras
  searched (``p <- p (1 - POD)``), raised around every clue found; it flies to the cell
  with the most probability per distance.

All fly with ``goto`` legs of at most 60 m whose altitude is the highest ground the 2.5-D
map knows along the leg (the altimeter's ground where it knows nothing) plus the search
height, so they follow the terrain without crashing into slopes they have seen.

**Coming down to look** (all but ``random``): from 60 m a person covers about 2-5 pixels of
a 256 px camera, too few to recognise (the benchmark's 16). A small spot whose colour stands
out from the ground (:func:`~hazard_sim.tasks.esar.confirm.salient_spots`, on the RGB only) is
a *candidate*; the searcher flies over the nearest one (within ``LOOK_DETOUR`` m, while time
allows), descends straight down until a person there would cover ``CONFIRM_PIXELS`` pixels of
the bottom camera (:func:`~hazard_sim.tasks.esar.confirm.confirm_height`: 17 m for 256 px,
above every tree top near the column), looks (the ordinary detection reports what it now
recognises), and climbs back to its pattern. Each spot is looked at once (spots within
``LOOK_MERGE`` m are one).
"""
from __future__ import annotations

import abc

import numpy as np
from scipy.ndimage import binary_dilation, gaussian_filter

from hazard_sim.agents import register_agent
from hazard_sim.navigation.maps import HeightLayer, MapSpec
from hazard_sim.tasks.esar.confirm import MIN_CONFIRM_AGL, confirm_height, salient_spots
from hazard_sim.tasks.esar.task import DISCRETE

SEARCH_RANGE = 180.0       # m: what the cameras search well (victims ~1-2 m across)
AGL = 60.0
LEG = 60.0
MAP_CELL = 20.0
MIN_PIXELS = 2
LOOK_DETOUR = 250.0        # m: the farthest candidate worth a detour
LOOK_MERGE = 15.0          # m: candidates this close are one spot
LOOK_ARRIVE = 6.0          # m: horizontally over the spot, start the descent
COLUMN = 8.0               # m: obstacles this close to the descent column set its floor
COLUMN_CLEARANCE = 6.0     # m: above the highest of them


def backproject(depth, K, pose, mask):
    v, u = np.nonzero(mask)
    z = depth[v, u]
    ok = np.isfinite(z)
    v, u, z = v[ok], u[ok], z[ok]
    p = np.stack([(u - K[0, 2]) / K[0, 0] * z, (v - K[1, 2]) / K[1, 1] * z, z], -1)
    return p @ pose[:3, :3].T + pose[:3, 3]


class EsarAgent(abc.ABC):
    """Detection, reporting, the 2.5-D map and terrain-following flight shared by the baselines."""

    name = "esar_base"
    looks_closer = True        # come down over candidates (see the module doc)

    def __init__(self, seed: int = 0, looks_closer: bool | None = None, **kw):
        self.rng = np.random.default_rng(seed)
        if looks_closer is not None:                # agent_kwargs={"looks_closer": False}: the pattern only
            self.looks_closer = bool(looks_closer)

    # ------------------------------------------------------------ memory
    def reset(self, obs, info):
        task = info["task"]
        self.task = task
        self.bounds = tuple(task["bounds"])
        self.n_victims = int(task["victims"])
        self.t_max = float(task["time_limit_s"])
        self.lkp = np.asarray(task.get("lkp") or [(self.bounds[0] + self.bounds[2]) / 2,
                                                   (self.bounds[1] + self.bounds[3]) / 2], float)[:2]
        self.ceiling = float(task["ceiling"])
        self.spec = MapSpec(self.bounds, MAP_CELL)
        self.heights = HeightLayer(self.spec)
        self.searched = np.zeros(self.spec.shape, bool)
        self.reported: set[int] = set()
        self.victims_found: dict[int, list] = {}
        self.clues_found: dict[int, tuple] = {}
        self.plan: list[np.ndarray] = []
        self.pending_clues: list[dict] = []        # found but not yet reported (e.g. seen at reset)
        self.pending_victims: list[list] = []
        self.steps = 0
        self.last_status = "succeeded"
        self.candidates: list[np.ndarray] = []     # spots worth a closer look (world xyz)
        self.looked: list[np.ndarray] = []         # spots looked at (or given up)
        self.look: dict | None = None              # the spot being looked at now
        self.looks = 0
        self.update(obs, info)

    def _cells(self, xy):
        i, j, inside = self.spec.cells_of(np.asarray(xy, float).reshape(-1, 2))
        return i[inside], j[inside]

    def update(self, obs, info):
        labels = info["labels"]
        self.pos = np.asarray(obs["uav_state"][:3], float)
        self.yaw = float(obs["uav_state"][3])
        self.time = float(obs["time_s"])
        self.agl = float(obs["altitude"][1])
        self.ground_here = self.pos[2] - self.agl
        self.seen_now = np.zeros(self.spec.shape, bool)
        self._cams = obs["cameras"]
        self.focal = float(next(iter(self._cams.values()))["K"][0, 0])
        for cam in obs["cameras"].values():
            d, K, T = cam["depth"], cam["K"], cam["pose"]
            s = 4 if d.shape[0] >= 128 else 2
            m = np.zeros(d.shape, bool)
            m[::s, ::s] = True
            pts = backproject(d, K, T, m & np.isfinite(d))
            self.heights.add_points(pts)
            near = np.linalg.norm(pts[:, :2] - self.pos[:2], axis=1) < SEARCH_RANGE
            i, j = self._cells(pts[near, :2])
            self.searched[i, j] = True
            self.seen_now[i, j] = True
            seg = cam["seg_visible"]
            if self.looks_closer:
                self._note_candidates(cam, labels)
            for oid in np.unique(seg[seg >= 1000]).tolist():
                if oid in self.reported:
                    continue
                mask = seg == oid
                if mask.sum() < MIN_PIXELS:
                    continue
                p = backproject(d, K, T, mask)
                if len(p) == 0:
                    continue
                est = np.median(p, axis=0)
                lab = labels.get(oid, labels.get(str(oid), ""))
                if lab == "victim":
                    self.victims_found[oid] = est.tolist()
                    self.pending_victims.append([round(float(x), 2) for x in est])
                elif lab.startswith("clue:"):
                    self.clues_found[oid] = (lab[5:], est)
                    self.pending_clues.append({"class": lab[5:], "position": [round(float(x), 2) for x in est]})
                else:
                    continue
                self.reported.add(oid)

    # ------------------------------------------------------------ coming down to look
    def _known(self) -> list:
        return ([np.asarray(v[:2], float) for v in self.victims_found.values()]
                + [np.asarray(c[1][:2], float) for c in self.clues_found.values()])

    def _note_candidates(self, cam, labels) -> None:
        """Salient spots of this view within ``LOOK_DETOUR`` m that are no known thing, no spot
        looked at and no candidate yet."""
        spots = salient_spots(cam["rgb"], cam["depth"], cam["K"], cam["pose"], cam.get("seg"), labels)
        x0, y0, x1, y1 = self.bounds
        for sp in spots:
            p = np.asarray(sp.position, float)
            if not (x0 + 10 <= p[0] <= x1 - 10 and y0 + 10 <= p[1] <= y1 - 10):
                continue
            if np.linalg.norm(p[:2] - self.pos[:2]) > LOOK_DETOUR:
                continue
            if any(np.linalg.norm(p[:2] - q[:2]) < LOOK_MERGE for q in self.candidates + self.looked + self._known()):
                continue
            self.candidates.append(p)

    def look_time(self, p) -> float:
        """Seconds to fly over ``p``, come down to look and climb back (at 10 m/s across, 4 m/s
        up and down, 10 s to settle)."""
        drop = max(0.0, self.pos[2] - (p[2] + confirm_height(self.focal)))
        return float(np.linalg.norm(p[:2] - self.pos[:2])) / 10.0 + 2 * drop / 4.0 + 10.0

    def look_closer(self):
        """The next action of a look (fly over the spot, descend, done), or None when there is
        nothing to look at (the searcher's own ``decide`` goes on)."""
        known = self._known()
        if self.look is not None:
            p = self.look["spot"]
            seen = any(np.linalg.norm(p[:2] - q) < LOOK_MERGE for q in known)
            if seen or self.look["down"] or self.last_status != "succeeded":
                self.looked.append(p)
                self.look = None
        if self.look is None:
            left = self.t_max - 40.0 - self.time
            keep = [c for c in self.candidates if np.linalg.norm(c[:2] - self.pos[:2]) <= LOOK_DETOUR]
            self.candidates = keep
            if not keep:
                return None
            k = int(np.argmin([np.linalg.norm(c[:2] - self.pos[:2]) for c in keep]))
            p = self.candidates.pop(k)
            if self.look_time(p) > left:
                self.looked.append(p)
                return None
            self.look = {"spot": p, "down": False}
            self.looks += 1
        p = self.look["spot"]
        if np.linalg.norm(p[:2] - self.pos[:2]) > LOOK_ARRIVE:
            return self.leg_to(p[:2])
        z = max(p[2] + confirm_height(self.focal), self.column_top() + COLUMN_CLEARANCE,
                self.ground_here + MIN_CONFIRM_AGL)
        self.look["down"] = True
        return {"type": "goto", "position": [float(self.pos[0]), float(self.pos[1]), float(min(z, self.pos[2]))],
                "speed": 4.0}

    def column_top(self) -> float:
        """The highest surface the cameras see within ``COLUMN`` m of the vertical through the UAV
        (tree tops, rocks, the ground), from this step's depth images."""
        top = self.ground_here
        for cam in self._cams.values():
            d = cam["depth"]
            pts = backproject(d, cam["K"], cam["pose"], np.isfinite(d))
            near = np.linalg.norm(pts[:, :2] - self.pos[:2], axis=1) < COLUMN
            if near.any():
                top = max(top, float(pts[near, 2].max()))
        return top

    # ------------------------------------------------------------ flight
    def ground_along(self, a, b) -> float:
        """Highest known ground along a -> b (within 30 m), or the ground below the UAV."""
        n = max(2, int(np.linalg.norm(b - a) / (MAP_CELL / 2)) + 1)
        line = a[None] + np.linspace(0, 1, n)[:, None] * (b - a)[None]
        pts = np.concatenate([line + off for off in ([0, 0], [30, 0], [-30, 0], [0, 30], [0, -30])])
        i, j = self._cells(pts)
        h = self.heights[i, j] if len(i) else np.array([np.nan])
        h = np.asarray(h, float)
        known = h[np.isfinite(h)]
        return float(max(known.max() if known.size else -np.inf, self.ground_here))

    def leg_to(self, target_xy, agl=AGL):
        """One terrain-following ``goto`` leg towards ``target_xy``."""
        a = self.pos[:2]
        d = np.asarray(target_xy, float) - a
        n = np.linalg.norm(d)
        b = a + d * min(1.0, LEG / n) if n > 1e-6 else a
        x0, y0, x1, y1 = self.bounds
        b = np.clip(b, [x0 + 5, y0 + 5], [x1 - 5, y1 - 5])
        z = min(self.ground_along(a, b) + agl, self.ceiling - 5.0)
        if z > self.pos[2] + 1.0:                 # climb first, then fly level
            return {"type": "goto", "position": [float(a[0]), float(a[1]), float(z)], "speed": 5.0}
        return {"type": "goto", "position": [float(b[0]), float(b[1]), float(z)], "speed": 10.0}

    def act(self, obs, info):
        self.update(obs, info)
        self.last_status = info.get("action_result", {}).get("status", "succeeded")
        self.steps += 1
        done = len(self.victims_found) >= self.n_victims or self.time > self.t_max - 40.0
        a = "stop" if done else (self.looks_closer and self.look_closer()) or self.decide()
        out = {"action": a}
        if self.pending_clues:
            out["clues"], self.pending_clues = self.pending_clues, []
        if self.pending_victims:
            out["victims"], self.pending_victims = self.pending_victims, []
        return out

    def episode_info(self) -> dict:
        """Added to the episode's results: how many spots the searcher came down to look at."""
        return {"looks": self.looks} if self.looks_closer else {}

    @abc.abstractmethod
    def decide(self):
        """The next action: a name from the discrete action set (``DISCRETE``)."""


class RandomAgent(EsarAgent):
    name = "random"
    looks_closer = False        # the paper's Random: uniform actions, no mapping, no reasoning

    def decide(self):
        return str(self.rng.choice([a for a in DISCRETE if a != "stop"]))


class LawnmowerAgent(EsarAgent):
    """Boustrophedon tracks over a square around the last known position."""
    name = "lawnmower"
    spacing = 140.0
    half = 400.0

    def reset(self, obs, info):
        super().reset(obs, info)
        x0, y0, x1, y1 = self.bounds
        lo = np.maximum(self.lkp - self.half, [x0 + 20, y0 + 20])
        hi = np.minimum(self.lkp + self.half, [x1 - 20, y1 - 20])
        ys = np.arange(lo[1], hi[1] + 1e-6, self.spacing)
        pts = []
        for k, y in enumerate(ys):
            xs = (lo[0], hi[0]) if k % 2 == 0 else (hi[0], lo[0])
            pts += [np.array([xs[0], y]), np.array([xs[1], y])]
        # start from the end of the pattern nearest to the UAV
        if np.linalg.norm(pts[-1] - self.pos[:2]) < np.linalg.norm(pts[0] - self.pos[:2]):
            pts = pts[::-1]
        self.waypoints = pts
        self.wp = 0

    def decide(self):
        while self.wp < len(self.waypoints) and np.linalg.norm(self.waypoints[self.wp] - self.pos[:2]) < 8.0:
            self.wp += 1
        if self.wp >= len(self.waypoints):
            self.wp = 0
            self.half *= 1.5
            self.reset_pattern()
        return self.leg_to(self.waypoints[self.wp])

    def reset_pattern(self):
        x0, y0, x1, y1 = self.bounds
        lo = np.maximum(self.lkp - self.half, [x0 + 20, y0 + 20])
        hi = np.minimum(self.lkp + self.half, [x1 - 20, y1 - 20])
        ys = np.arange(lo[1], hi[1] + 1e-6, self.spacing * 1.5)
        self.waypoints = [np.array([x, y]) for k, y in enumerate(ys) for x in ((lo[0], hi[0]) if k % 2 == 0
                                                                                  else (hi[0], lo[0]))]


class FrontierAgent(EsarAgent):
    """Frontier-based exploration on the 2.5-D map's searched cells."""
    name = "frontier"

    def reset(self, obs, info):
        super().reset(obs, info)
        self.target = None
        self.blacklist = np.zeros(self.spec.shape, bool)

    def frontier_cells(self):
        s = self.searched
        return s & binary_dilation(~s) & ~self.blacklist

    def decide(self):
        if self.target is not None:
            if np.linalg.norm(self.target - self.pos[:2]) < 15.0 or self.last_status not in ("succeeded",):
                i, j = self._cells(self.target[None])
                self.blacklist[max(0, i[0] - 2):i[0] + 3, max(0, j[0] - 2):j[0] + 3] = True
                self.target = None
        if self.target is None:
            f = np.argwhere(self.frontier_cells())
            if len(f) == 0:
                return "turn_left"
            xy = np.stack([self.spec.bounds[0] + (f[:, 1] + 0.5) * MAP_CELL,
                           self.spec.bounds[1] + (f[:, 0] + 0.5) * MAP_CELL], -1)
            cost = np.linalg.norm(xy - self.pos[:2], axis=1) + 0.5 * np.linalg.norm(xy - self.lkp, axis=1)
            self.target = xy[int(np.argmin(cost))]
        return self.leg_to(self.target)


class ProbabilityMapAgent(EsarAgent):
    """Search theory on a probability-of-area map (see the module doc)."""
    name = "probmap"
    pod = 0.7

    def reset(self, obs, info):
        super().reset(obs, info)
        h, w = self.spec.shape
        ys = self.spec.bounds[1] + (np.arange(h) + 0.5) * MAP_CELL
        xs = self.spec.bounds[0] + (np.arange(w) + 0.5) * MAP_CELL
        X, Y = np.meshgrid(xs, ys)
        self.xy = np.stack([X, Y], -1)
        d = np.hypot(X - self.lkp[0], Y - self.lkp[1])
        p = np.exp(-0.5 * (d / 500.0) ** 2) + 0.02
        trails = np.asarray(self.task.get("trails") or np.zeros((0, 2)), float).reshape(-1, 2)
        if len(trails):
            tr = np.zeros(self.spec.shape)
            i, j = self._cells(trails)
            tr[i, j] = 1.0
            p += 0.5 * gaussian_filter(tr, 2.0) / max(gaussian_filter(tr, 2.0).max(), 1e-9) * np.exp(-d / 1500.0)
        self.p = p / p.sum()
        self.target = None

    def _boost_clues(self) -> None:
        """Once for each clue found: add a Gaussian (sigma 250 m) around it, scaled to 30 % of the
        current mass, on the cells not searched yet or farther than 60 m from the clue."""
        for _, (cls, pos) in list(self.clues_found.items()):
            key = ("clue", round(float(pos[0])), round(float(pos[1])))
            if key in getattr(self, "_boosted", set()):
                continue
            self._boosted = getattr(self, "_boosted", set()) | {key}
            d = np.hypot(self.xy[..., 0] - pos[0], self.xy[..., 1] - pos[1])
            g = np.exp(-0.5 * (d / 250.0) ** 2)
            self.p += self.p.sum() * 0.3 * g / g.sum() * (~self.searched | (d > 60))

    def decide(self):
        self.p[self.seen_now] *= 1 - self.pod         # every look lowers the chance the person is there
        self._boost_clues()
        self.p /= self.p.sum()
        if self.target is None or np.linalg.norm(self.target - self.pos[:2]) < 20.0 or \
                self.last_status != "succeeded" or self.steps % 8 == 0:
            smooth = gaussian_filter(self.p, 2.0)
            d = np.hypot(self.xy[..., 0] - self.pos[0], self.xy[..., 1] - self.pos[1])
            score = np.where(d > 60.0, smooth / (d + 150.0), 0.0)
            i, j = np.unravel_index(int(np.argmax(score)), score.shape)
            self.target = self.xy[i, j].copy()
        return self.leg_to(self.target)


for _cls in (RandomAgent, LawnmowerAgent, FrontierAgent, ProbabilityMapAgent):
    register_agent("esar", _cls)
from hazard_sim.tasks.esar import agents_llm as _agents_llm  # noqa: E402,F401  (registers "llm" in the esar group)
