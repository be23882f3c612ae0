"""``HazardEnv`` (the HAZARD benchmarks as an env under their original name); see
:mod:`hazard_sim.tasks.hazard.env`. New code can use
:class:`hazard_sim.core.env.EmbodiedEnv` with a benchmark id."""
from hazard_sim.tasks.hazard.env import *  # noqa: F401,F403
