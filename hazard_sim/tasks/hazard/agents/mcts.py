"""HAZARD's MCTS agent: UCT search over rescue plans with the paper's heuristic costs.

Costs from the public HAZARD code (docs/hazard.md, "MCTS"): ``walk_to`` costs
``min(0.05 x grid distance in cells, 10)``, ``explore`` 2.5, ``pick_up`` / ``drop``
0; a rollout that ends with targets left adds ``sum max(2 d - 5, 0)`` over them, d the
same capped walk cost from the final position (so ``max(d_m - 5, 0)``, at most 15).  Its
action set: after a walk that arrived only the pick-up of that object, no explore right
after an explore or an arrival.  2000 simulations, 20 random rollout steps beyond the tree,
discount 0.95, the root action of the best mean return.  Grid distances are geodesic on
an occupancy map the agent builds from its own depth images (the same ``ObservedMap`` the humanoid's walk_to uses).

The value-aware variant (HAZARD's second MCTS) divides an object's costs by its
value and doubles the urgency (terminal cost) of objects whose hazard reading
changed fast between sightings.

The hazard-aware planner (``mcts_hazard``) lives in :mod:`hazard_sim.tasks.hazard.agents.hazard_planner`.

The search decides which object to rescue next; the actions that follow from
that choice (pick up when there, drop when holding) cost nothing and are taken
without a new search, as the search would choose them anyway.

Walking to a target more than 1 m away takes several ``walk_to`` actions (the gait walks
0.01 m per frame and a ``walk_to`` gives up after 100 frames with ``not_arrived``).  A
``not_arrived`` after which the body has come closer to the target is progress, not a
failure (:meth:`MCTSAgent.observe`): the agent keeps its target instead of giving it up
after three such steps and searching again after two (which made both MCTS variants
walk a metre or two towards one object, then towards another).
"""
from __future__ import annotations

import math

import numpy as np

from hazard_sim.core.outcome import Status
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.navigation.grid import distance_field
from hazard_sim.tasks.hazard.agents.base import MAP_CELL as CELL
from hazard_sim.tasks.hazard.agents.base import RescueAgent

_BODY = HumanoidSpec()
MAX_TREE_DEPTH = 200         # a guard: the tree grows one node a simulation


class MCTSAgent(RescueAgent):
    name = "mcts"
    cli_options = {"mcts_simulations": "simulations"}

    # the humanoid's own timing (HumanoidSpec, the one source; explore = 12 turns of 30 degrees)
    WALK_PER_FRAME, PICK_FRAMES, DROP_FRAMES = _BODY.walk_per_frame, _BODY.pick_frames, _BODY.drop_frames
    CART_DROP_FRAMES = _BODY.cart_drop_frames
    EXPLORE_FRAMES = 12 * math.ceil(30.0 / _BODY.turn_per_frame_deg)
    PROGRESS = 0.2      # m closer to the target after a not_arrived walk_to that count as progress

    def __init__(self, seed: int = 0, simulations: int = 2000, depth: int = 20, discount: float = 0.95,
                 exploration: float = 1.4, value_aware: bool = False, fast_rate: float = 20.0):
        super().__init__(seed)
        self.simulations, self.depth, self.discount = simulations, depth, discount
        self.c = exploration
        self.value_aware = value_aware
        self.fast_rate = fast_rate     # reading change per 100 frames counted as "fast"
        self.current = None

    def reset(self, obs, info):
        self.current = None
        super().reset(obs, info)

    def observe(self, obs, info):
        act, m = self.last_action, self.memory
        before = None
        if act and act[0] == "walk_to" and m is not None and act[1] in m.objects:
            rec = m.objects[act[1]]
            before = (float(np.linalg.norm(m.agent_pose[:2] - rec.position[:2])), rec.status)
        super().observe(obs, info)
        status = info.get("action_result", {}).get("status")
        if before is not None and status == Status.NOT_ARRIVED:
            rec = m.objects[act[1]]
            if m.distance(rec) < before[0] - self.PROGRESS:      # came closer: progress, not a failure
                self.failures[act[1]] = max(self.failures.get(act[1], 1) - 1, 0)
                if rec.status == "lost" and before[1] == "scene":
                    rec.status, rec.lost_until = "scene", 0

    # ------------------------------------------------------------ decision
    def decide(self):
        m = self.memory
        if m.held >= 0:
            self.current = None
            return self.to_container()
        return self.pursue(m.open_targets())

    def pursue(self, open_):
        """The next action while holding nothing, ``open_`` the targets still to rescue."""
        if self.current is not None and self.current in {r.id for r in open_} \
                and not (self.last_action == ("walk_to", self.current) and not self.last_ok
                         and self.failures.get(self.current, 0) >= 2):
            return self.rescue_step(self.current)
        if not open_:
            self.current = None
            return self.explore_step()
        choice = self.plan(open_)
        if choice is None:
            return self.explore_step()
        self.current = choice
        return self.rescue_step(choice)

    # ------------------------------------------------------------ model
    def _distances(self, points: np.ndarray) -> np.ndarray:
        """Geodesic distances (m) between points (K,2) on the agent's map (K x K)."""
        spec = self.map.spec
        blocked = self.map.blocked().copy()
        cells = [spec.to_cell(p) for p in points]
        for c in cells:
            blocked[c] = False
        k = len(points)
        d = np.zeros((k, k))
        for a in range(k):
            field = distance_field(blocked, cells[a], spec.resolution)
            for b in range(k):
                d[a, b] = field[cells[b]]
        straight = np.linalg.norm(points[:, None] - points[None], axis=-1)
        return np.where(np.isfinite(d), d, straight * 3.0)   # unreachable on the map: a long detour

    def plan(self, open_) -> int | None:
        m = self.memory
        wind = m.task.get("container") == "cart"
        carts = list(m.containers.values()) if wind else []
        pts = np.array([m.agent_pose[:2]] + [r.position[:2] for r in open_] + [c[:2] for c in carts])
        dist = self._distances(pts)
        n = len(open_)
        values = np.array([max(r.value, 1) for r in open_], float)
        urgency = np.ones(n)
        if self.value_aware:
            rates = np.array([abs(r.reading_rate()) for r in open_])
            urgency[rates > self.fast_rate] = 2.0
        weight = 1.0 / values if self.value_aware else np.ones(n)
        cart_nodes = list(range(n + 1, n + 1 + len(carts)))

        def walk_cost(a, b):
            return min(0.05 * dist[a, b] / CELL, 10.0)

        def actions(state):
            # the public code's action set (policy/mcts.py, get_available_trans): holding, drop (wind:
            # walk to a cart, then drop there); after a walk that arrived, only the pick-up of that
            # object; explore, except right after an explore or an arrival; a walk to any target left
            pos, remaining, holding, last = state
            if holding is not None:
                if not wind:
                    return [("drop",)]
                acts = [("drop",)] if pos in cart_nodes else []
                return acts + [("walk", c) for c in cart_nodes if c != pos]
            if last == "arrived" and pos - 1 in remaining:
                return [("pick", pos - 1)]
            acts = [] if last in ("explore", "arrived") else [("explore",)]
            return acts + [("walk", o + 1) for o in remaining if o + 1 != pos]

        def step(state, act):
            pos, remaining, holding, _ = state
            kind = act[0]
            if kind == "explore":
                return (pos, remaining, holding, "explore"), 2.5
            if kind == "walk":
                node = act[1]
                obj = node - 1 if node <= n else None
                w = weight[obj] if obj is not None else 1.0
                return (node, remaining, holding, "arrived" if obj is not None else None), walk_cost(pos, node) * w
            if kind == "pick":
                o = act[1]
                return (pos, tuple(x for x in remaining if x != o), o, None), 0.0
            return (pos, remaining, None, None), 0.0      # drop

        def terminal(state):
            # the public code's max(2 d - 5, 0) with d its capped walk cost (0.5 per m, at most 10):
            # max(d_m - 5, 0) per target left, at most 15
            pos, remaining = state[0], state[1]
            return sum(urgency[o] * weight[o] * max(2.0 * walk_cost(pos, o + 1) - 5.0, 0.0) for o in remaining)

        def finished(state):
            return not state[1] and state[2] is None

        root = (0, tuple(range(n)), None, None)
        stats: dict = {}     # (state, act) -> [visits, total_return]
        visits: dict = {}
        rng = self.rng
        for _ in range(self.simulations):
            state, path = root, []
            ret_parts = []
            d, rollout = 0, 0
            # down the tree (UCT) to the first untried action, then ``depth`` random rollout steps
            # beyond it (the public code's horizon: the tree's depth + 20)
            while rollout < self.depth and d < MAX_TREE_DEPTH:
                acts = actions(state)
                if not acts or finished(state):
                    break       # nothing left to do (or holding with no cart known yet)
                if not path or path[-1][3]:          # still in the tree
                    untried = [a for a in acts if (state, a) not in stats]
                    if untried:
                        act = untried[rng.integers(len(untried))]
                    else:
                        logn = math.log(visits.get(state, 0) + 1)
                        act = max(acts, key=lambda a: stats[(state, a)][1] / stats[(state, a)][0]
                                  + self.c * math.sqrt(logn / stats[(state, a)][0]))
                    path.append((state, act, d, not untried))
                else:
                    act = acts[rng.integers(len(acts))]
                    rollout += 1
                state, cost = step(state, act)
                ret_parts.append((d, -cost))
                d += 1
            ret_parts.append((d, -terminal(state)))
            # discounted return from each tree node onward
            for (s, a, d0, _) in path:
                ret = sum(r * self.discount ** (k - d0) for k, r in ret_parts if k >= d0)
                st = stats.setdefault((s, a), [0, 0.0])
                st[0] += 1
                st[1] += ret
                visits[s] = visits.get(s, 0) + 1
        root_actions = actions(root)
        if not root_actions:
            return None
        # the public code's final choice: the root action of the best mean return (lowest expected
        # cost), not the most visited
        best = max(root_actions, key=lambda a: stats[(root, a)][1] / stats[(root, a)][0]
                   if (root, a) in stats else -math.inf)
        if best[0] == "explore":
            return None
        node = best[1]
        return open_[node - 1].id if best[0] == "walk" else open_[best[1]].id


class ValueAwareMCTSAgent(MCTSAgent):
    name = "mcts_value"

    def __init__(self, seed: int = 0, **kw):
        super().__init__(seed, value_aware=True, **kw)


