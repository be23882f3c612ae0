"""What ESAR places in the terrain: victims in three postures and 12 kinds of clues.

Sizes are full extents (m); colours are what a person would see from the air (bright
outdoor gear, as in real rescue cases); ``emissive`` things (a campfire, a signal flare, a
flashlight) give their own light, so they stay visible at night.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thing:
    name: str
    size: tuple            # (x, y, z) full extents, m
    color: tuple           # RGB
    mass: float = 1.0
    emissive: bool = False
    kind: str = "clue"     # clue | victim

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.name}" if self.kind == "clue" else "victim"


CLUES: dict[str, Thing] = {t.name: t for t in (
    Thing("tent", (2.4, 2.0, 1.3), (236, 112, 28)),
    Thing("backpack", (0.6, 0.4, 0.7), (200, 40, 40)),
    Thing("jacket", (0.9, 0.7, 0.12), (40, 90, 210)),             # discarded clothing
    Thing("campfire", (1.2, 1.2, 0.5), (255, 150, 40), emissive=True),
    Thing("signal_flare", (0.5, 0.5, 0.5), (255, 40, 60), emissive=True),
    Thing("water_bottle", (0.3, 0.3, 0.35), (120, 200, 230)),
    Thing("trekking_pole", (1.3, 0.15, 0.1), (230, 230, 60)),
    Thing("sleeping_bag", (2.0, 0.8, 0.25), (60, 170, 70)),
    Thing("helmet", (0.35, 0.3, 0.25), (250, 250, 250)),
    Thing("rope", (1.2, 1.2, 0.08), (250, 200, 0)),
    Thing("flashlight", (0.4, 0.4, 0.15), (255, 255, 200), emissive=True),
    Thing("sos_sign", (6.0, 2.5, 0.15), (245, 245, 245)),          # stones or branches laid out as SOS
)}

VICTIM_POSTURES: dict[str, Thing] = {t.name: t for t in (
    Thing("lying", (1.8, 0.55, 0.35), (255, 90, 0), 75.0, kind="victim"),
    Thing("sitting", (0.7, 0.6, 1.0), (255, 90, 0), 75.0, kind="victim"),
    Thing("sheltering", (1.0, 0.7, 0.8), (255, 90, 0), 75.0, kind="victim"),
)}

CLUE_CLASSES = tuple(CLUES)
