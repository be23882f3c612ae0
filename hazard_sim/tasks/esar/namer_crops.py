"""ESAR's crops for the instance namer (:mod:`hazard_sim.perception.namer`): victims and clues
seen from the air, and patches of bare ground (the spec's ``namer_crops``).

The shipped detector's ``person`` class takes clues for people (a tent, a campfire: test task
47 ends after two such reports) and its ``clue`` class is almost never right, so on the
detector a searcher reports false victims and no clue. A namer trained on these crops names
each ``person`` and ``clue`` box again, in the benchmark's own labels: ``victim`` (any
posture), ``clue:<class>`` (``clue:tent``, ``clue:water_bottle``, ...) or ``nothing`` (bare
terrain, rock, tree or water: a box on no thing, which no searcher reports). Labels that are
not a detector class or a task prompt pass the embedded runner's and the perception node's
prompt mapping unchanged, so a searcher gets them as they are.

Splits, as the detector's frames: ESAR ships one split of 600 tasks over 12 events; the
namer's **train** crops come from the tasks of the events with ``event % 5 != 4``, its
held-out (**test**) crops from events 4 and 9. ``houses`` takes the first N tasks of a split
in a fixed shuffled order (spread over events, snapshots, weathers and times of day).

Views, as the detector's frames (:func:`hazard_sim.perception.dataset_render.esar_frames`):
the UAV 4-45 m above and 0-40 m beside a victim or clue, facing it; every victim or clue that
covers at least ``min_pixels`` of a camera's ``seg_visible`` (what light and fog leave seen)
gives a crop. Rare kinds get more views (about ``per_kind`` crops per kind). ``nothing``
crops are square patches of 4-16 px on terrain, rock, tree or water pixels of the same views,
about ``per_kind`` of them.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from hazard_sim.perception.namer_dataset import CropSet

NOTHING = "nothing"
#: the detector classes a namer of these crops names again
RENAMES = ("person", "clue")
MIN_VIEWS, MAX_VIEWS = 2, 24


def kind_of(label: str) -> str | None:
    """The namer's kind of a simulator label: the label itself for a victim or a clue; None for
    anything else (scene parts)."""
    return label if label == "victim" or label.startswith("clue:") else None


def split_tasks(split: str) -> list[int]:
    """The task indices of a namer split (module docstring), in a fixed shuffled order."""
    from hazard_sim.tasks.esar.scenario import event_tasks
    if split not in ("train", "test"):
        raise ValueError(f"unknown split {split!r}: train or test")
    tasks = event_tasks(held=split == "test")
    order = np.random.default_rng(11).permutation(len(tasks))
    return [tasks[k] for k in order]


def _ground_patch(seg, labels, rng):
    """A square box of 4-16 px whose pixels are all scene (terrain, rock, tree, water), or None."""
    scene_ids = [i for i, lab in labels.items() if kind_of(str(lab)) is None and int(i) > 0]
    h, w = seg.shape
    for _ in range(10):
        s = int(rng.integers(4, 17))
        x0, y0 = int(rng.integers(0, w - s)), int(rng.integers(0, h - s))
        patch = seg[y0:y0 + s, x0:x0 + s]
        if np.isin(patch, scene_ids).all():
            return (x0, y0, x0 + s, y0 + s)
    return None


def crops(split: str, *, imgsz: int = 256, per_kind: int = 300, min_pixels: int = 16, seed: int = 0,
          houses: int | None = 60, log=print) -> CropSet:
    """Crops of the victims and clues of ``split``'s tasks and of bare ground (module docstring)."""
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import make_env

    def env_of(i):
        env = make_env("esar", "test", i, seed=seed, camera=CameraSpec(width=imgsz, height=imgsz)).unwrapped
        env.reset()
        return env

    from hazard_sim.core.spec import get_spec
    from hazard_sim.perception.dataset_render import place_above
    ds = get_spec("esar").dataset
    tasks = split_tasks(split)[:houses]
    counts = Counter()
    for i in tasks:                           # kinds over the split first (from its task files): views per item
        ep = ds.load("test", i)
        counts.update(["victim"] * len(ep["victims"]) + [f"clue:{c['class']}" for c in ep["clues"]])
    views_of = {kind: int(min(MAX_VIEWS, max(MIN_VIEWS, math.ceil(per_kind / max(n, 1)))))
                for kind, n in counts.items()}
    all_views = sum(n * views_of[kind] for kind, n in counts.items())
    nothing_every = max(1, round(all_views * 4 / max(per_kind, 1)))    # 4 cameras a view: about per_kind patches
    out = CropSet(renames=RENAMES)
    n_views = 0
    for k, i in enumerate(tasks):
        env = env_of(i)
        try:
            rng = np.random.default_rng([seed, i, 17])
            scene = f"task{i}"
            labels = env.world.labels()
            things = [(o.id, kind_of(o.name), np.asarray(o.position, float)) for o in env.world.in_scene()
                      if kind_of(o.name)]
            for oid, kind, pos in things:
                for _ in range(views_of[kind]):
                    if not place_above(env, pos, rng):
                        continue
                    obs = env.observe(update_map=False)
                    n_views += 1
                    for cam in obs["cameras"].values():
                        seg = cam["seg_visible"]
                        m = seg == oid                         # the aimed-at thing (others: their own views)
                        px = int(m.sum())
                        if px >= min_pixels:
                            ys, xs = np.nonzero(m)
                            out.add(cam["rgb"], (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), kind, scene, px)
                        if n_views % nothing_every == 0:
                            box = _ground_patch(seg, labels, rng)
                            if box is not None:
                                out.add(cam["rgb"], box, NOTHING, scene, (box[2] - box[0]) * (box[3] - box[1]))
        finally:
            env.close()
        log(f"[namer-dataset] esar {split} task {k + 1}/{len(tasks)} ({i}): {len(out)} crops")
    return out


__all__ = ["NOTHING", "RENAMES", "crops", "kind_of", "split_tasks"]
