"""Scenes: indoor houses (fire, flood) and outdoor street regions (wind)."""
from hazard_sim.scenes.base import Part, Scene
from hazard_sim.scenes.indoor import LAYOUTS, TEST_LAYOUTS, TRAIN_LAYOUTS
from hazard_sim.scenes.outdoor import REGIONS, TEST_REGIONS, TRAIN_REGIONS


def build_scene(name: str) -> Scene:
    """Build a scene by layout / region name, with a clear error for unknown names."""
    if name in LAYOUTS:
        return LAYOUTS[name]()
    if name in REGIONS:
        return REGIONS[name]()
    raise KeyError(f"unknown scene {name!r}; known: {', '.join(sorted(LAYOUTS) + sorted(REGIONS))}")


def scenes_for(task: str, split: str) -> tuple[str, ...]:
    if split not in ("train", "test"):
        raise ValueError(f"unknown split {split!r}: expected train or test")
    if task in ("fire", "flood"):
        return TRAIN_LAYOUTS if split == "train" else TEST_LAYOUTS
    if task == "wind":
        return TRAIN_REGIONS if split == "train" else TEST_REGIONS
    raise ValueError(f"unknown task {task!r}: expected one of fire, flood, wind")


__all__ = ["Part", "Scene", "build_scene", "scenes_for"]
