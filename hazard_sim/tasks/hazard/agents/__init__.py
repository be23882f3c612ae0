"""HAZARD's agents, registered as the ``hazard`` agent group: the random / rule / greedy
baselines (and greedy as the public code runs it), MCTS with the paper's costs, the value-aware
MCTS and the MCTS with a hazard model, the LLM agent and the PPO agent, all built on the rescue
routine of :mod:`.base` and the object memory of :mod:`.memory`."""
from hazard_sim.agents import register_agent
from hazard_sim.tasks.hazard.agents.base import RescueAgent
from hazard_sim.tasks.hazard.agents.hazard_planner import HazardMCTSAgent
from hazard_sim.tasks.hazard.agents.llm import LLMAgent
from hazard_sim.tasks.hazard.agents.mcts import MCTSAgent, ValueAwareMCTSAgent
from hazard_sim.tasks.hazard.agents.ppo import PPOAgent
from hazard_sim.tasks.hazard.agents.simple import (
    GreedyAgent,
    PublicGreedyAgent,
    PublicRandomAgent,
    RandomAgent,
    RuleAgent,
)

#: the agent group of the HAZARD benchmarks (``BenchmarkSpec.agents``)
GROUP = "hazard"
AGENTS = {cls.name: cls for cls in (RandomAgent, PublicRandomAgent, RuleAgent, GreedyAgent, PublicGreedyAgent,
                                    MCTSAgent, ValueAwareMCTSAgent, HazardMCTSAgent, LLMAgent, PPOAgent)}
for _name, _cls in AGENTS.items():
    register_agent(GROUP, _cls, _name)

__all__ = ["AGENTS", "GROUP", "RescueAgent"]
