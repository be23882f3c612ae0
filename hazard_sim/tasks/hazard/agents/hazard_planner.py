"""``mcts_hazard``: a deadline-aware rescue planner that reasons about the hazard's dynamics.

HAZARD's value rate counts each rescued target's value (5 for valuable categories, else 1),
halved when fire or water damaged it before it was picked up; a target the wind carries
out of the patch is lost.  With the calibrated humanoid (0.01 m per frame) an episode of
1500 frames (wind: 3000) is 15 m of walking: an agent rescues a handful of targets, so
*which* handful, and in which order, is the whole game.  This planner treats it as an
orienteering problem with deadlines and solves it by UCT search (Monte Carlo tree search)
over rescue orders:

* **an action** is one whole rescue, "rescue target o": walk until o is in reach, pick it
  up, drop it into the bag (wind: carry it to the nearest known cart and drop it there);
* **its duration** is the humanoid's own gait (``HumanoidSpec``, :meth:`rescue_frames`):
  the geodesic distance on the agent's own map, less the distance from which the agent
  picks up (``REACH``: the body's 2.5 m reach less a margin, when the object is in the
  open; otherwise the walk's stand-off), at 0.01 m per frame; ``FACE_FRAMES`` to turn to
  the object; 75 frames to pick up, 50 to drop;
* **its reward** is the target's value if the pick-up ends before the frame at which the
  hazard will reach it, the damaged share otherwise (half for fire and flood, nothing for
  a target the wind will have blown away), and nothing when the rescue would end after
  the frame limit (such a rescue is not an action);
* **the deadlines** come from :class:`~hazard_sim.tasks.hazard.agents.hazard_model.HazardForwardModel`,
  estimated from the agent's own observations: the fire or water front's speed from the
  growth of the hazardous area it has seen, the wind's drift from each target's last two
  sightings; fireproof (fire) and waterproof (flood) categories, which the task names,
  have none.

A rollout continues a plan with rescues chosen mostly by value per frame (``greedy``: the
share of rollout steps that take the best ratio; the rest are uniform); the return is the
value rescued, over the value of the known open targets, each rescue's share discounted by
``patience`` per 100 frames until it ends (what comes later is less certain, and of two
orders that rescue the same value the quicker leaves more time for targets not yet seen).  The agent keeps its target
until it is rescued or given up, and searches again when it sees a target it did not
know (a new, nearer or more valuable target may change the best order).

Execution: a target in view within ``REACH`` is picked up without walking (a pick-up that
finds a wall in the way falls back to walking to it; the failure does not count against
the target); a ``walk_to`` that ends ``not_arrived`` closer to the target is progress
(:class:`~hazard_sim.tasks.hazard.agents.mcts.MCTSAgent`).
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.navigation.gait import ARRIVE_GAP
from hazard_sim.navigation.grid import distance_field
from hazard_sim.tasks.hazard.agents.hazard_model import HazardForwardModel
from hazard_sim.tasks.hazard.agents.mcts import _BODY, MCTSAgent


class HazardMCTSAgent(MCTSAgent):
    """UCT over rescue orders with the humanoid's frame costs and the hazard's predicted deadlines."""

    name = "mcts_hazard"
    cli_options = {"mcts_simulations": "simulations"}

    REACH = _BODY.reach - 0.3                       # m: pick up from here when the object is in view
    STAND_OFF = ARRIVE_GAP + _BODY.radius + 0.2     # m: where a walk_to stops (gap, body, a small object)
    FACE_FRAMES = math.ceil(90.0 / _BODY.turn_per_frame_deg)     # a mean quarter turn to face the object
    LOS_DETOUR = 1.2        # geodesic / straight-line distance above which a wall is assumed in between
    NEAR = 1.0              # m: a target is reached from the free cells this close to it
    UNMAPPED_DETOUR = 1.5   # no path on the map yet: this times the straight line

    def __init__(self, seed: int = 0, simulations: int = 2000, exploration: float = 0.3, greedy: float = 0.8,
                 patience: float = 0.9, hazard_model: bool = True):
        super().__init__(seed, simulations=simulations, exploration=exploration)
        if not 0.0 <= greedy <= 1.0:
            raise ValueError(f"greedy must be a share between 0 and 1, got {greedy}")
        if not 0.0 < patience <= 1.0:
            raise ValueError(f"patience must be in (0, 1], got {patience}")
        self.greedy, self.patience = greedy, patience
        self.use_model = hazard_model        # False: no deadlines (an ablation of the forward model)
        self.model: HazardForwardModel | None = None
        self.known: frozenset = frozenset()
        self.walk_only: set[int] = set()     # targets whose pick-up from afar failed (a wall in between)
        self.direct_try: int | None = None
        self.last_plan: dict = {}

    def reset(self, obs, info):
        from hazard_sim.tasks.hazard.prompts import forward_model
        kind, threshold = forward_model(info["task"].get("hazard", "")) if self.use_model else (None, None)
        self.model = HazardForwardModel(kind, info["bounds"], threshold)
        self.known, self.walk_only, self.direct_try, self.last_plan = frozenset(), set(), None, {}
        super().reset(obs, info)

    def observe(self, obs, info):
        m, tried = self.memory, self.direct_try
        before = m.objects[tried].status if m is not None and tried in m.objects else None
        super().observe(obs, info)
        self.direct_try = None
        if tried is not None and not self.last_ok and before is not None:
            # a pick-up from afar failed (a wall, or farther than it looked): walk to it instead
            self.walk_only.add(tried)
            self.failures[tried] = max(self.failures.get(tried, 1) - 1, 0)
            rec = m.objects[tried]
            if rec.status == "lost" and before == "scene":
                rec.status, rec.lost_until = "scene", 0
        for o in info.get("observations") or [obs]:
            self.model.observe(o)
        for r in self.memory.objects.values():
            if r.is_target and r.last_seen == self.memory.frame:
                self.model.track(r.id, r.last_seen, r.position)

    # ------------------------------------------------------------ decision
    def pursue(self, open_):
        ids = frozenset(r.id for r in open_)
        if not open_:
            self.current = None
            return self.explore_step()
        if self.current not in ids or not ids <= self.known:
            self.current = self.plan(open_)
            self.known = ids
        if self.current is None:
            return self.explore_step()
        return self.approach(self.current)

    def approach(self, target_id: int):
        """Pick up from where the agent stands when the target is in view and in reach, else walk."""
        m = self.memory
        if self.last_action == ("walk_to", target_id) and self.last_ok:
            return ("pick_up", target_id)
        rec = m.objects[target_id]
        if target_id not in self.walk_only and rec.last_seen == m.frame and m.distance(rec) <= self.REACH:
            self.direct_try = target_id
            return ("pick_up", target_id)
        return ("walk_to", target_id)

    # ------------------------------------------------------------ the model of a rescue
    def _distances(self, points: np.ndarray) -> np.ndarray:
        """Walking distances (m) between points (K,2), the first the agent's position, the
        others objects: from the agent's cell, or from the free cell nearest an object, to
        the free cells within ``NEAR`` of the other object plus the straight line from there
        (an object on or against furniture has blocked cells all around it on the map).
        No path on the map: ``UNMAPPED_DETOUR`` times the straight line."""
        spec = self.map.spec
        blocked = self.map.blocked()
        h, w = blocked.shape
        r = int(round(self.NEAR / spec.resolution))
        off = np.hypot(*np.mgrid[-r:r + 1, -r:r + 1]) * spec.resolution      # m from the window's centre
        cells = [spec.to_cell(p) for p in points]

        def window(c):
            i, j = c
            i0, i1, j0, j1 = max(i - r, 0), min(i + r + 1, h), max(j - r, 0), min(j + r + 1, w)
            return (slice(i0, i1), slice(j0, j1)), off[i0 - i + r:i1 - i + r, j0 - j + r:j1 - j + r]

        k = len(points)
        d = np.zeros((k, k))
        for a in range(k):
            start, extra = cells[a], 0.0
            if a > 0:                                    # an object: start from the free cell nearest it
                win, o = window(cells[a])
                free = np.where(blocked[win], np.inf, o)
                if np.isfinite(free).any():
                    di, dj = np.unravel_index(np.argmin(free), free.shape)
                    start, extra = (win[0].start + di, win[1].start + dj), float(free[di, dj])
            field = distance_field(blocked, start, spec.resolution)
            for b in range(k):
                if b != a:
                    win, o = window(cells[b])
                    d[a, b] = extra + float(np.min(field[win] + o))
        straight = np.linalg.norm(points[:, None] - points[None], axis=-1)
        return np.where(np.isfinite(d), np.maximum(d, straight), straight * self.UNMAPPED_DETOUR)

    def rescue_frames(self, geodesic: float, straight: float, walk_only: bool = False) -> float:
        """Frames from standing ``geodesic`` m (on the map; ``straight`` m in a line) from an
        object to holding it: walking to where it is picked up, facing it, picking it up."""
        in_view = not walk_only and geodesic <= self.LOS_DETOUR * straight + 0.3
        stand = self.REACH if in_view else self.STAND_OFF
        return max(geodesic - stand, 0.0) / self.WALK_PER_FRAME + self.FACE_FRAMES + self.PICK_FRAMES

    def carry_frames(self, geodesic: float) -> float:
        """Frames from holding an object ``geodesic`` m from a cart to having dropped it in
        (the cart's own size is not known: its centre counts)."""
        return max(geodesic - self.STAND_OFF, 0.0) / self.WALK_PER_FRAME + self.FACE_FRAMES + self.CART_DROP_FRAMES

    def plan(self, open_) -> int | None:
        m = self.memory
        wind = m.task.get("container") == "cart"
        carts = list(m.containers.values()) if wind else []
        if wind and not carts:
            return None                  # nowhere to put a target yet: explore for a cart
        now = m.frame
        budget = float(m.task.get("frame_limit", math.inf)) - now
        pts = np.array([m.agent_pose[:2]] + [r.position[:2] for r in open_] + [c[:2] for c in carts])
        geo = self._distances(pts)
        straight = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
        n = len(open_)
        values = np.array([max(r.value, 1) for r in open_], float)
        proof = {"fire": "fireproof", "flood": "waterproof"}.get(m.task.get("hazard", ""))
        due = np.array([math.inf if proof and m.targets.get(r.category, {}).get(proof)
                        else self.model.damage_frame(r.id, r.position, r.reading, now) - now for r in open_])
        kept = 0.0 if wind else 0.5      # share of the value a late rescue keeps
        walk_only = [r.id in self.walk_only for r in open_]
        # get[a, o]: frames from node a (0: the agent; o + 1: where target o was picked up; n + 1 + c:
        # cart c) to holding target o
        get = np.array([[self.rescue_frames(geo[a, o + 1], straight[a, o + 1], walk_only[o]) for o in range(n)]
                        for a in range(len(pts))])
        if wind:
            cart = n + 1 + np.argmin(geo[1:n + 1, n + 1:], axis=1)           # the nearest cart of each target
            put = np.array([self.carry_frames(geo[o + 1, cart[o]]) for o in range(n)])
            end_node = cart
        else:
            put = np.full(n, float(self.DROP_FRAMES))
            end_node = np.arange(1, n + 1)
        gain_norm = float(values.sum())

        def options(pos, done, t):
            """(o, gain, frames, next node) of every rescue that ends within the frame limit."""
            out = []
            for o in range(n):
                if o in done:
                    continue
                hold = t + get[pos, o]
                end = hold + put[o]
                if end > budget:
                    continue
                late = (hold - self.PICK_FRAMES if wind else hold) >= due[o]
                out.append((o, values[o] * (kept if late else 1.0), end - t, int(end_node[o])))
            return out

        stats: dict[tuple, list] = {}       # plan prefix (rescue order) -> [visits, total return from it]
        rng = self.rng
        for _ in range(self.simulations):
            prefix, pos, t, done = (), 0, 0.0, frozenset()
            trail, rewards = [()], []
            expanding = True
            while True:
                opts = options(pos, done, t)
                if not opts:
                    break
                if expanding:
                    untried = [op for op in opts if prefix + (op[0],) not in stats]
                    if untried:
                        op = untried[rng.integers(len(untried))]
                        expanding = False
                    else:
                        logn = math.log(stats[prefix][0] + 1)
                        op = max(opts, key=lambda op: stats[prefix + (op[0],)][1] / stats[prefix + (op[0],)][0]
                                 + self.c * math.sqrt(logn / stats[prefix + (op[0],)][0]))
                    prefix = prefix + (op[0],)
                    trail.append(prefix)
                elif rng.random() < self.greedy:
                    op = max(opts, key=lambda op: op[1] / op[2])
                else:
                    op = opts[rng.integers(len(opts))]
                rewards.append(op[1] / gain_norm * self.patience ** ((t + op[2]) / 100.0))
                pos, t, done = op[3], t + op[2], done | {op[0]}
            total = sum(rewards)
            for k, key in enumerate(trail):
                st = stats.setdefault(key, [0, 0.0])
                st[0] += 1
                st[1] += total - sum(rewards[:max(k - 1, 0)])   # the return of the prefix's last choice on
        first = [(stats[(o,)][0], o) for o in range(n) if (o,) in stats]
        # no rescue ends within the frame limit by the model: the quickest may still (the
        # model's walking distances are estimates), and looking around would not help more
        best = max(first)[1] if first else int(np.argmin(get[0] + put))
        self.last_plan = {"frame": now, "choice": open_[best].id, "frames": float(get[0, best] + put[best]),
                          "due": {r.id: float(due[o] + now) for o, r in enumerate(open_)},
                          "value": stats[(best,)][1] / stats[(best,)][0] * gain_norm if first else 0.0}
        return open_[best].id
