"""HAZARD's six RL actions, mapped onto the existing action programs.

=====  ============================  ==================================================
index  name                          HAZARD action it runs
=====  ============================  ==================================================
0      ``walk_to_nearest_target``    ``walk_to`` the nearest known target still in the scene
1      ``walk_to_nearest_container`` ``walk_to`` the nearest known shopping cart
2      ``pick_up_nearest``           ``pick_up`` the nearest known target
3      ``drop``                      ``drop`` (into the bag, or a cart in reach)
4      ``explore``                   look around where not yet looked around, else one
                                     ``move_by`` / ``turn_by`` towards the nearest frontier
                                     of the agent's own map (the baselines' explorer)
5      ``walk_to_random_visible``    ``walk_to`` an object in view now, chosen at random
=====  ============================  ==================================================

A choice that names no object (no target known, no cart known, nothing in view) becomes
:data:`WAIT` (``turn_by 0``: one frame, no motion) and counts as invalid. The
:class:`RLActor` is an :class:`~hazard_sim.tasks.hazard.agents.base.RescueAgent` (memory and map from the
agent's own observations) that keeps the 5-channel map too; the Gymnasium wrapper and the
``ppo`` agent share it, so training and test see the same observations and actions.
"""
from __future__ import annotations

from hazard_sim.tasks.hazard.agents.base import RescueAgent
from hazard_sim.tasks.hazard.rl.observation import MAP_SIZE, MapObserver

ACTION_NAMES = ("walk_to_nearest_target", "walk_to_nearest_container", "pick_up_nearest", "drop", "explore",
                "walk_to_random_visible")
WAIT = ("turn_by", 0.0)


def informative_action(agent: RescueAgent, k: int):
    """The HAZARD action of discrete action ``k`` (0..5, :data:`ACTION_NAMES`) for ``agent``
    (its memory, map and random generator), or None when the choice names no object."""
    m = agent.memory
    if k == 0:
        open_ = m.open_targets()
        return ("walk_to", min(open_, key=m.distance).id) if open_ else None
    if k == 1:
        cart = m.nearest_container()
        return None if cart is None else ("walk_to", cart)
    if k == 2:
        open_ = m.open_targets()
        return ("pick_up", min(open_, key=m.distance).id) if open_ else None
    if k == 3:
        return ("drop",)
    if k == 4:
        return agent.explore_step()
    if k == 5:
        seen = sorted(r.id for r in m.objects.values() if r.status == "scene" and r.last_seen == m.frame)
        return ("walk_to", int(agent.rng.choice(seen))) if seen else None
    raise ValueError(f"RL action {k!r} out of range 0..{len(ACTION_NAMES) - 1}")


class RLActor(RescueAgent):
    """The RL agent's body of knowledge: memory, walking map and the top-down map; turns a
    discrete action index into a HAZARD action with :meth:`command`."""

    name = "rl"

    def __init__(self, seed: int = 0, map_size: int = MAP_SIZE):
        super().__init__(seed)
        self.map_size = map_size
        self.mapper: MapObserver | None = None
        self.invalid = 0
        self.policy = None

    def reset(self, obs: dict, info: dict) -> None:
        self.mapper = MapObserver(info["bounds"], info["task"]["hazard"], self.map_size)
        self.invalid = 0
        super().reset(obs, info)

    def observe(self, obs: dict, info: dict) -> None:
        super().observe(obs, info)
        for o in info.get("observations") or [obs]:
            self.mapper.integrate(o)

    def features(self):
        """The (5, S, S) float32 map observation (``hazard_sim.tasks.hazard.rl.observation``)."""
        return self.mapper.render(self.memory)

    def _command(self, k: int):
        return informative_action(self, k)

    def command(self, k) -> tuple:
        """The HAZARD action for discrete action ``k`` (0..5); remembers it as the last action."""
        a = self._command(int(k))
        if a is None:
            self.invalid += 1
            a = WAIT
        self.last_action = a
        return a

    def act(self, obs: dict, info: dict):
        """As an agent: observe, then :meth:`decide` (no stuck-recovery moves: the policy's
        choice is carried out as in training)."""
        self.observe(obs, info)
        return self.decide()

    def decide(self):
        """The policy's action on the current map (``self.policy``: map -> action index)."""
        if self.policy is None:
            raise RuntimeError("RLActor has no policy: set .policy or drive it with command(k)")
        return self.command(self.policy(self.features()))
