"""Agents: the thin protocol every benchmark's agents follow, and the registry of agent groups.

An agent is any object with ``reset(obs, info)`` (after ``env.reset()``) and ``act(obs, info)``
(the next action, from what ``env.step`` returned); ``episode_info()``, if it has one, adds keys
to the episode's results. Each benchmark registers its agents in its own group with
:func:`register_agent` (a spec's ``agents`` names its group), so names such as ``random`` can
repeat across benchmarks. An agent class may declare ``cli_options``: which command-line options
(``argparse`` destinations) it takes as which keyword arguments (:func:`cli_kwargs`).
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    """What the runners need of an agent (``name``, ``reset``, ``act``); the registry makes one
    as ``cls(seed=seed, **options)``. An agent class whose ``privileged`` is true (default false)
    decides on ground truth as some public baselines do: the embedded runner then runs its env
    with ``privileged=True``; over ROS it is refused."""

    name: str

    def reset(self, obs: dict, info: dict) -> None:
        """Start an episode from the first observation and info."""

    def act(self, obs: dict, info: dict) -> Any:
        """The next action of the benchmark's task."""


#: group name -> {agent name -> class}
AGENT_GROUPS: dict[str, dict[str, type]] = {}


def register_agent(group: str, cls: type, name: str | None = None) -> type:
    """Add an agent class to a group (``name`` defaults to ``cls.name``)."""
    AGENT_GROUPS.setdefault(group, {})[name or cls.name] = cls
    return cls


def unregister_agent(group: str, name: str) -> type:
    """Undo :func:`register_agent` (the group goes with its last agent)."""
    agents = AGENT_GROUPS.get(group, {})
    if name not in agents:
        raise KeyError(f"agent {name!r} is not registered in group {group!r}")
    cls = agents.pop(name)
    if not agents:
        del AGENT_GROUPS[group]
    return cls


def agents_for(benchmark: str) -> dict[str, type]:
    """The agents of a benchmark's group (a benchmark id or alias)."""
    from hazard_sim.core.spec import get_spec
    spec = get_spec(benchmark)
    return AGENT_GROUPS.get(spec.agents or spec.id, {})


def all_agent_names() -> list[str]:
    """Every registered agent name, over all groups of the shipped and registered benchmarks."""
    from hazard_sim.core.spec import benchmark_ids
    benchmark_ids()                 # registers the shipped benchmarks and their agents
    return sorted({n for g in AGENT_GROUPS.values() for n in g})


def make_agent(name: str, seed: int = 0, benchmark: str | None = None, *, group: str | None = None,
               **kw) -> Agent:
    """An agent by name, from the group of ``benchmark`` (or the group named ``group``)."""
    if (benchmark is None) == (group is None):
        raise ValueError("make_agent: give the benchmark (an id: hazard benchmarks lists them) or the agent group "
                         "(exactly one of them)")
    if benchmark is not None:
        known = agents_for(benchmark)
    else:
        from hazard_sim.core.spec import benchmark_ids
        benchmark_ids()
        known = AGENT_GROUPS.get(group, {})
    try:
        cls = known[name]
    except KeyError:
        raise KeyError(f"unknown agent {name!r}; known: {', '.join(sorted(known))}") from None
    return cls(seed=seed, **kw)


def privileged_refusal(agent: str) -> str:
    """Why a privileged agent (``privileged = True``: it decides on the simulator's ground truth)
    cannot be a ROS decision node."""
    return (f"agent {agent!r} decides on ground truth (every object's true position, as a public baseline "
            "did): it runs embedded only (hazard run / bench), not as a ROS decision node")


def cli_kwargs(cls: type, options: Any) -> dict:
    """The keyword arguments an agent class takes from parsed command-line ``options``: its
    ``cli_options`` (option destination -> keyword), for the options that were given."""
    out = {}
    for dest, kw in getattr(cls, "cli_options", {}).items():
        v = getattr(options, dest, None)
        if v is not None:
            out[kw] = v
    return out


__all__ = ["AGENT_GROUPS", "Agent", "agents_for", "all_agent_names", "cli_kwargs", "make_agent", "privileged_refusal",
           "register_agent", "unregister_agent"]
