"""Agents, grouped by the benchmarks they play (a spec's ``agents`` names its group).

HAZARD's baselines (random, rule, greedy, MCTS, value-aware MCTS, MCTS with a hazard model and
the LLM agent) form the
``hazard`` group, also reachable as :data:`AGENTS`. Other benchmarks register their
own group with :func:`register_agent`, so names such as ``random`` can repeat.
"""
from hazard_sim.tasks.hazard.agents.base import Agent
from hazard_sim.tasks.hazard.agents.hazard_planner import HazardMCTSAgent
from hazard_sim.tasks.hazard.agents.llm import LLMAgent
from hazard_sim.tasks.hazard.agents.mcts import MCTSAgent, ValueAwareMCTSAgent
from hazard_sim.tasks.hazard.agents.ppo import PPOAgent
from hazard_sim.tasks.hazard.agents.simple import GreedyAgent, RandomAgent, RuleAgent

AGENTS = {cls.name: cls for cls in (RandomAgent, RuleAgent, GreedyAgent, MCTSAgent, ValueAwareMCTSAgent,
                                    HazardMCTSAgent, LLMAgent, PPOAgent)}
AGENT_GROUPS: dict[str, dict[str, type]] = {"hazard": AGENTS}


def register_agent(group: str, cls: type, name: str | None = None) -> type:
    """Add an agent class to a group (``name`` defaults to ``cls.name``)."""
    AGENT_GROUPS.setdefault(group, {})[name or cls.name] = cls
    return cls


def agents_for(benchmark: str | None = None) -> dict[str, type]:
    """The agents of a benchmark's group (HAZARD's without a benchmark)."""
    if benchmark is None:
        return AGENTS
    from hazard_sim.core.spec import get_spec
    return AGENT_GROUPS.get(get_spec(benchmark).agents or "hazard", {})


def make_agent(name: str, seed: int = 0, benchmark: str | None = None, **kw) -> Agent:
    """An agent by name, from the group of ``benchmark`` (HAZARD's if None)."""
    known = agents_for(benchmark)
    try:
        cls = known[name]
    except KeyError:
        raise KeyError(f"unknown agent {name!r}; known: {', '.join(sorted(known))}") from None
    return cls(seed=seed, **kw)


__all__ = ["AGENTS", "AGENT_GROUPS", "Agent", "agents_for", "make_agent", "register_agent"]
