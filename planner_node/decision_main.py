"""``decision_node`` (the console script): the decision node of the benchmark being run.

Each benchmark declares its decision node class next to its spec
(``RosPieces.decision_class``, ``"module:Class"``; hazard_sim/tasks/<name>/ros.py); this module
only chooses it, from the node's parameters:

1. ``benchmark`` (an id or alias), else ``task`` (the older spelling some launch files use);
2. without either, the one benchmark group that has the ``agent`` (``greedy`` is only one
   benchmark's); a name several groups share (``random``) needs ``benchmark``.

Nothing here knows a benchmark; a benchmark without a ``decision_class`` gets a clear error.
"""
from __future__ import annotations

import importlib

from rclpy.node import Node

from hazard_ros.ros_node_main import run_node


def benchmark_for(agent: str, benchmark: str = "", task: str = "") -> str:
    """The benchmark id whose decision node runs (see the module docstring); ValueError when
    the parameters do not name one."""
    from hazard_sim.agents import agents_for
    from hazard_sim.core.spec import benchmark_ids, get_spec
    given = benchmark or task
    if given:
        return get_spec(given).id                 # KeyError for an unknown id: the spec says which exist
    groups: dict[str, str] = {}
    for bid in benchmark_ids():
        spec = get_spec(bid)
        if agent in agents_for(bid):
            groups.setdefault(spec.agents or spec.id, bid)
    if len(groups) == 1:
        return next(iter(groups.values()))
    if not groups:
        raise ValueError(f"no benchmark has an agent {agent!r}: give agent:=<name> and benchmark:=<id>")
    raise ValueError(f"agent {agent!r} is in several benchmarks' agent groups ({', '.join(sorted(groups.values()))}):"
                     f" give benchmark:=<id>")


def decision_class(benchmark: str) -> type:
    """The node class the benchmark's ``RosPieces.decision_class`` names."""
    from hazard_sim.core.ros_pieces import ros_pieces
    from hazard_sim.core.spec import get_spec
    spec = get_spec(benchmark)
    ref = ros_pieces(spec).decision_class
    if not ref:
        raise ValueError(f"benchmark {spec.id} declares no decision node (RosPieces.decision_class)")
    module, _, name = ref.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, Node)):
        raise TypeError(f"{ref} (the decision node of {spec.id}) is not an rclpy Node class")
    return cls


def make_decision_node() -> Node:
    probe = Node("decision_node", automatically_declare_parameters_from_overrides=True)
    got = {k: str(probe.get_parameter(k).value) for k in ("agent", "benchmark", "task") if probe.has_parameter(k)}
    probe.destroy_node()
    bench = benchmark_for(got.get("agent", ""), got.get("benchmark", ""), got.get("task", ""))
    return decision_class(bench)()


def main(args=None) -> int:
    return run_node(make_decision_node, "decision_node", args, threads=4, work=lambda node: node.run(),
                    start_errors=(ValueError, KeyError), start_error_line=_start_error_line,
                    work_errors=(ValueError, TimeoutError, KeyError))


def _start_error_line(name: str, exc: Exception) -> str:
    """One line (a KeyError's text without its quotes)."""
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    return f"[{name}] error: {text}"


if __name__ == "__main__":
    raise SystemExit(main())
