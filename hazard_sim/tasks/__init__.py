"""The benchmarks shipped with the package.

Each benchmark is a package here that builds :class:`~hazard_sim.core.spec.BenchmarkSpec`
objects from its own pieces and calls :func:`~hazard_sim.core.spec.register_benchmark`
when imported (docs/adding_a_benchmark.md). :func:`load_builtin` imports them (the
registry calls it on first use); importing one module of a benchmark does not import
the others.
"""
from __future__ import annotations

import importlib

#: the benchmark packages shipped with hazard_stack
BUILTIN = ("hazard", "doze", "esar")


def load_builtin() -> None:
    for name in BUILTIN:
        importlib.import_module(f"hazard_sim.tasks.{name}")
