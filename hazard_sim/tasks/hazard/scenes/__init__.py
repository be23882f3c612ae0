"""HAZARD's scenes: indoor houses and outdoor street regions."""
from hazard_sim.scenes.base import Part, Scene
from hazard_sim.tasks.hazard.scenes.indoor import LAYOUTS, TEST_LAYOUTS, TRAIN_LAYOUTS
from hazard_sim.tasks.hazard.scenes.outdoor import REGIONS, TEST_REGIONS, TRAIN_REGIONS


def build_scene(name: str) -> Scene:
    """Build a scene by layout / region name, with a clear error for unknown names."""
    if name in LAYOUTS:
        return LAYOUTS[name]()
    if name in REGIONS:
        return REGIONS[name]()
    raise KeyError(f"unknown scene {name!r}; known: {', '.join(sorted(LAYOUTS) + sorted(REGIONS))}")


__all__ = ["Part", "Scene", "build_scene", "LAYOUTS", "REGIONS", "TRAIN_LAYOUTS", "TEST_LAYOUTS",
           "TRAIN_REGIONS", "TEST_REGIONS"]
