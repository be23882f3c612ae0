"""Gymnasium ids of every shipped benchmark, registered on import.

Gymnasium 1.x has no plug-in entry points; its ``make("module:env_id")`` form imports the
module first. So, from a fresh interpreter::

    env = gymnasium.make("hazard_sim.gym_envs:hazard_stack/<benchmark>-<variant>-v1")

(or ``import hazard_sim.gym_envs`` once, then ``gymnasium.make("hazard_stack/<benchmark>-<variant>-v1")``).
``hazard_sim.core.spec.benchmark_ids()`` lists the benchmarks; each spec's ``gym_id`` is its id.
"""
from __future__ import annotations

from hazard_sim.tasks import load_builtin

load_builtin()
