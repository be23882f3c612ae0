"""HAZARD's rescue task and its measures (Value rate, Step, Damage)."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from hazard_sim.core.task import Measure, Task
from hazard_sim.tasks.hazard.actions import ACTIONS, parse_action
from hazard_sim.tasks.hazard.catalog import category
from hazard_sim.tasks.hazard.controllers import EnvLocomotion, run_action
from hazard_sim.tasks.hazard.metrics import Rescue, episode_metrics


class RescueTask(Task):
    """Rescue the target objects into a container (the bag held by the agent; a
    shopping cart for wind) before the frame limit; ``stop`` ends the episode."""

    actions = ACTIONS

    def __init__(self, hazard: str, container: str, damage_counts: bool = True):
        self.name = hazard
        self.container = container            # "bag" | "cart"
        self.damage_counts = damage_counts    # wind never damages what it rescues

    def reset(self, env) -> None:
        self.rescued: list[Rescue] = []

    def action_space(self):
        return spaces.Dict({
            "type": spaces.Discrete(len(ACTIONS)),
            "object": spaces.Discrete(1 << 16),
            "amount": spaces.Box(-360.0, 360.0, (1,), np.float32),
        })

    def parse(self, action):
        return parse_action(action)

    def execute(self, env, act):
        return run_action(EnvLocomotion(env), act)

    def costs_a_frame(self, act) -> bool:
        return act.name != "stop"

    def terminated(self, env, act) -> bool:
        if act is not None and act.name == "stop":
            return True
        # over when no target is left to rescue (rescued, or lost: blown out of the wind's patch)
        return all(o.location in ("rescued", "lost") for o in env.world.targets())

    def on_rescue(self, env, obj) -> None:
        if obj.is_target:
            damaged = bool(obj.meta.get("damaged_at_pick", False)) and self.damage_counts
            self.rescued.append(Rescue(obj.id, obj.name, obj.category.value, env.world.frame, damaged))

    def describe(self, env) -> dict:
        cats = [category(self.name, c) for c in env.spec_dict["target_categories"]]
        carts = {pid: name for name, pid in env.world.part_ids.items() if name.startswith("cart")}
        return {
            "hazard": self.name,
            "split": env.split,
            "episode": env.spec_dict["index"],
            "goal": f"rescue the target objects into {'a shopping cart' if self.container == 'cart' else 'the bag'}",
            "container": self.container,
            "frame_limit": env.frame_limit,
            "targets": [{"category": c.name, "value": c.value, "fireproof": c.fireproof,
                         "waterproof": c.waterproof, "wind_resistance": c.wind_resistance} for c in cats],
            "containers": carts,
        }

    def observation(self, env) -> dict:
        return {"held": np.int64(env.agent.held.id if env.agent.held else -1)}

    def observation_space(self, env) -> dict:
        return {"held": spaces.Box(-1, np.iinfo(np.int32).max, (), np.int64)}

    def info(self, env) -> dict:
        info = {"rescued_ids": [r.id for r in self.rescued]}
        if env.privileged:
            # the public code's privileged choices (its random and PPO agents): every target
            # still in the scene and every cart, with their true positions
            info["privileged"] = {
                "targets": {o.id: [float(v) for v in o.position] for o in env.world.targets()
                            if o.location == "scene"},
                "containers": {pid: [float(v) for v in env.world.scene.part(name).box.center]
                               for name, pid in env.world.part_ids.items() if name.startswith("cart")}}
        return info


class RescueMeasure(Measure):
    """HAZARD's metrics of one episode (``hazard_sim.tasks.hazard.metrics``); rewards value-rate gains."""

    name = "rescue"

    def _values(self, env):
        return [o.category.value for o in env.world.targets()]

    def reward(self, env) -> float:
        return episode_metrics(env.task.rescued, self._values(env))["value_rate"]

    def metrics(self, env) -> dict:
        targets = env.world.targets()
        m = episode_metrics(env.task.rescued, self._values(env))
        m.update({"targets": len(targets), "target_value": sum(o.category.value for o in targets),
                  "lost_count": sum(o.location == "lost" for o in targets),
                  "rescued": [r.__dict__ for r in env.task.rescued]})
        return m
