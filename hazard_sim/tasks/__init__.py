"""The benchmarks shipped with the package; importing this registers them.

Each benchmark is a package here that builds :class:`~hazard_sim.core.spec.BenchmarkSpec`
objects from its own pieces and calls :func:`~hazard_sim.core.spec.register_benchmark`
(docs/adding_a_benchmark.md).
"""
import hazard_sim.tasks.esar  # noqa: F401
from hazard_sim.tasks import hazard  # noqa: F401
