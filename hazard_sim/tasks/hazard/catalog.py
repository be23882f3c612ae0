"""Object categories of the HAZARD target pools, with their physical attributes.

HAZARD (seed 000) draws 4 target categories per fire/flood episode from a pool of
22 categories and uses a pool of 11 categories for wind.  Each category carries a
value (5 for valuable things, 1 otherwise), fireproof / waterproof flags, an
ignition point (Celsius), a size (metres, x y z of an axis-aligned box), a mass
(kg) and a wind resistance (0 = blown by the full wind; the felt wind is divided
by ``resistance + 1``; above 10 the wind cannot move it).

The numbers are ours (ThreeDWorld's model library is not available): sizes and
masses are those of common household items, ignition points follow the paper's
spread (60 to 3000 C, mostly 200 / 300 / 500), and wind resistances follow the
public HAZARD code's classes (bags 1, backpacks 2, purses / baskets / bottles /
cans 0, iron box 3, electronics 2 to 3).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    name: str
    value: int
    fireproof: bool
    waterproof: bool
    ignition: float          # Celsius
    size: tuple[float, float, float]  # metres (x, y, z)
    mass: float              # kg
    wind_resistance: float = 0.0
    color: tuple[int, int, int] = (180, 180, 180)

    @property
    def density(self) -> float:
        return self.mass / (self.size[0] * self.size[1] * self.size[2])

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "fireproof": self.fireproof,
                "waterproof": self.waterproof, "ignition": self.ignition,
                "size": list(self.size), "mass": self.mass,
                "wind_resistance": self.wind_resistance}


C = Category
#: Target pool shared by the fire and flood tasks (22 categories).
INDOOR_POOL: tuple[Category, ...] = (
    C("purse", 5, False, False, 300, (0.30, 0.12, 0.22), 0.6, 0, (150, 40, 90)),
    C("ipod", 5, False, False, 500, (0.07, 0.02, 0.11), 0.15, 2, (230, 230, 240)),
    C("printer", 5, False, False, 500, (0.45, 0.40, 0.25), 6.0, 3, (60, 60, 70)),
    C("camera", 5, False, False, 500, (0.14, 0.08, 0.10), 0.7, 3, (30, 30, 30)),
    C("luggage", 5, False, True, 300, (0.45, 0.25, 0.60), 4.0, 1, (120, 70, 40)),
    C("laptop", 5, False, False, 500, (0.34, 0.24, 0.03), 2.0, 2, (170, 170, 180)),
    C("jewelry_box", 5, False, False, 300, (0.20, 0.14, 0.10), 0.8, 1, (200, 160, 50)),
    C("cellphone", 5, False, False, 500, (0.08, 0.16, 0.01), 0.2, 2, (20, 20, 60)),
    C("book", 1, False, False, 200, (0.16, 0.24, 0.04), 0.5, 1, (180, 40, 40)),
    C("backpack", 1, False, True, 300, (0.32, 0.20, 0.45), 1.0, 2, (40, 90, 160)),
    C("pillow", 1, False, False, 200, (0.50, 0.35, 0.15), 0.5, 0, (240, 230, 200)),
    C("basket", 1, False, True, 200, (0.40, 0.30, 0.25), 0.6, 0, (190, 150, 90)),
    C("bottle", 1, True, True, 3000, (0.08, 0.08, 0.30), 0.6, 0, (60, 160, 90)),
    C("vase", 1, True, True, 3000, (0.18, 0.18, 0.35), 1.5, 3, (70, 120, 200)),
    C("iron_box", 1, True, True, 3000, (0.30, 0.30, 0.30), 12.0, 3, (110, 110, 120)),
    C("plate", 1, True, True, 3000, (0.26, 0.26, 0.03), 0.5, 3, (245, 245, 245)),
    C("teddy_bear", 1, False, False, 200, (0.30, 0.25, 0.40), 0.4, 0, (170, 110, 60)),
    C("shoe", 1, False, True, 300, (0.30, 0.12, 0.12), 0.5, 1, (90, 60, 40)),
    C("toy_car", 1, False, True, 300, (0.25, 0.12, 0.10), 0.4, 1, (220, 50, 30)),
    C("candle", 1, False, True, 60, (0.08, 0.08, 0.20), 0.3, 3, (250, 240, 200)),
    C("lamp", 1, False, False, 500, (0.25, 0.25, 0.50), 1.0, 2, (240, 210, 120)),
    C("umbrella", 1, False, True, 300, (0.80, 0.08, 0.08), 0.5, 1, (30, 120, 120)),
)

_INDOOR = {c.name: c for c in INDOOR_POOL}

#: Target pool of the wind task (11 categories); those it shares with the indoor pool are the same objects.
WIND_POOL: tuple[Category, ...] = (
    C("bag", 1, False, False, 300, (0.40, 0.15, 0.40), 0.3, 1, (200, 60, 60)),
    _INDOOR["backpack"],
    _INDOOR["purse"],
    _INDOOR["basket"],
    _INDOOR["bottle"],
    C("soda_can", 1, True, True, 3000, (0.07, 0.07, 0.12), 0.05, 0, (200, 20, 20)),
    _INDOOR["iron_box"],
    _INDOOR["laptop"],
    _INDOOR["camera"],
    C("radio", 5, False, False, 500, (0.30, 0.10, 0.18), 1.2, 2, (90, 50, 30)),
    _INDOOR["ipod"],
)
del C

_BY_POOL = {"indoor": _INDOOR, "wind": {c.name: c for c in WIND_POOL}}


def pool_for(task: str) -> tuple[Category, ...]:
    """The target pool of a task (``fire``, ``flood`` or ``wind``)."""
    if task in ("fire", "flood"):
        return INDOOR_POOL
    if task == "wind":
        return WIND_POOL
    raise ValueError(f"unknown task {task!r}: expected one of fire, flood, wind")


def category(task: str, name: str) -> Category:
    """Look up a category by name in the task's pool, with a clear error."""
    pool = _BY_POOL["wind" if task == "wind" else "indoor"] if task in ("fire", "flood", "wind") else None
    if pool is None:
        pool_for(task)  # raises the unknown-task error
    try:
        return pool[name]
    except KeyError:
        raise KeyError(f"unknown object category {name!r} for task {task!r}; "
                       f"known: {', '.join(sorted(pool))}") from None
