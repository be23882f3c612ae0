"""DOZE's crops for the instance namer (:mod:`hazard_sim.perception.namer`): every item of a
split's houses seen from several places (the spec's ``namer_crops``).

Each house of the split is rendered once (its first episode; the level's people do not matter
for crops: level 1's stand aside), and every item is looked at from free cells 0.5-3.5 m away,
facing it (yaw jittered), keeping a view when the item covers at least ``min_pixels`` of the
segmentation. Rare kinds get more views (about ``per_kind`` crops per kind, ``min_views`` to
``max_views`` views per item). The label of a crop is the item's kind (its category).
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from hazard_sim.perception.namer_dataset import CropSet


def house_episodes(benchmark: str, split: str) -> list[int]:
    """The first episode of each house of a split (one render per house)."""
    from hazard_sim.core.spec import get_spec
    ds = get_spec(benchmark).dataset
    seen, out = set(), []
    for i in range(ds.count(split)):
        scene = ds.load(split, i)["scene"]
        if scene not in seen:
            seen.add(scene)
            out.append(i)
    return out


def _views(count: int, per_kind: int, lo: int, hi: int) -> int:
    return int(min(hi, max(lo, math.ceil(per_kind / max(count, 1)))))


def crops(benchmark: str, split: str, *, imgsz: int = 256, per_kind: int = 60, min_views: int = 4,
          max_views: int = 24, min_pixels: int = 24, seed: int = 0, houses: int | None = None,
          log=print) -> CropSet:
    """The crops of every item of ``split``'s houses (module docstring)."""
    from hazard_sim.perception.dataset_render import _look
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import make_env

    def env_of(i):
        env = make_env(benchmark, split, i, seed=seed, camera=CameraSpec(width=imgsz, height=imgsz)).unwrapped
        env.reset()
        return env

    eps = house_episodes(benchmark, split)[:houses]
    kinds = Counter()
    for i in eps:                                        # kinds over the split first: views per item
        env = env_of(i)
        kinds.update(it.category for it in env.world.house.items)
        env.close()
    out = CropSet()
    for k, i in enumerate(eps):
        env = env_of(i)
        try:
            rng = np.random.default_rng([seed, k, 7])
            scene = str(env.spec_dict.get("scene", i))
            for it in env.world.house.items:
                target = np.asarray(it.position, float)
                want, got = _views(kinds[it.category], per_kind, min_views, max_views), 0
                for _ in range(want * 6):
                    if got >= want:
                        break
                    d, a = rng.uniform(0.5, 3.5), rng.uniform(-math.pi, math.pi)
                    xy = target[:2] + d * np.array([math.cos(a), math.sin(a)])
                    if not env.is_free(xy):
                        continue
                    _look(env, xy, target, rng)
                    obs = env.observe(update_map=False)
                    m = obs["seg"] == it.id
                    if int(m.sum()) < min_pixels:
                        continue
                    ys, xs = np.nonzero(m)
                    out.add(obs["rgb"], (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), it.category, scene,
                            int(m.sum()))
                    got += 1
        finally:
            env.close()
        log(f"[namer-dataset] {benchmark} {split} house {k + 1}/{len(eps)}: {len(out)} crops")
    return out
