"""Baseline agents of HAZARD: random, rule, greedy, MCTS and value-aware MCTS."""
from hazard_sim.agents.base import Agent
from hazard_sim.agents.mcts import MCTSAgent, ValueAwareMCTSAgent
from hazard_sim.agents.simple import GreedyAgent, RandomAgent, RuleAgent

AGENTS = {cls.name: cls for cls in (RandomAgent, RuleAgent, GreedyAgent, MCTSAgent, ValueAwareMCTSAgent)}


def make_agent(name: str, seed: int = 0, **kw) -> Agent:
    try:
        cls = AGENTS[name]
    except KeyError:
        raise KeyError(f"unknown agent {name!r}; known: {', '.join(sorted(AGENTS))}") from None
    return cls(seed=seed, **kw)


__all__ = ["AGENTS", "Agent", "make_agent"]
