"""HAZARD's hazards are world processes that can also damage entities."""
from __future__ import annotations

from hazard_sim.core.process import WorldProcess


class Hazard(WorldProcess):
    """A world process of the HAZARD task: fire, flood or wind."""

    def is_damaged(self, obj, world) -> bool:
        """Whether ``obj`` currently counts as damaged (value halved if rescued now)."""
        return False
