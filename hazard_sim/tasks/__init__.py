"""The benchmarks shipped with the package.

Each benchmark is a package here that builds :class:`~hazard_sim.core.spec.BenchmarkSpec`
objects from its own pieces and calls :func:`~hazard_sim.core.spec.register_benchmark`
when imported (docs/adding_a_benchmark.md). :func:`load_builtin` imports them (the
registry calls it on first use); importing one module of a benchmark does not import
the others; :func:`load_for` imports only the one that registers a given id.
"""
from __future__ import annotations

import importlib

#: the benchmark packages shipped with hazard_stack
BUILTIN = ("hazard", "doze", "esar")


def load_builtin() -> None:
    for name in BUILTIN:
        importlib.import_module(f"hazard_sim.tasks.{name}")


def load_for(name: str) -> None:
    """Import shipped packages until ``name`` (an id or an alias) is registered: first the package
    the id's ``<package>/`` prefix names, then the others in order (an alias comes with its package);
    an unknown name ends with all of them loaded."""
    from hazard_sim.core.spec import ALIASES, BENCHMARKS
    first = name.split("/")[0]
    for package in sorted(BUILTIN, key=lambda b: b != first):
        importlib.import_module(f"hazard_sim.tasks.{package}")
        if name in BENCHMARKS or name in ALIASES:
            return
