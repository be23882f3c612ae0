"""The benchmarks shipped with the package; importing this registers them.

Each benchmark is a package here that builds :class:`~hazard_sim.core.spec.BenchmarkSpec`
objects from its own pieces and calls :func:`~hazard_sim.core.spec.register_benchmark`
(docs/adding_a_benchmark.md).
"""
from hazard_sim.tasks import (
    doze,  # noqa: F401
    hazard,  # noqa: F401
)
