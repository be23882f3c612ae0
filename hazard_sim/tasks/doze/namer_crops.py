"""DOZE's crops for the instance namer (:mod:`hazard_sim.perception.namer`): every item of a
split's houses seen from several places (the spec's ``namer_crops``).

Each house of the split is rendered once (its first episode; the level's people do not matter
for crops: level 1's stand aside), and every item is looked at from free cells 0.5-3.5 m away,
facing it (yaw jittered), keeping a view when the item covers at least ``min_pixels`` of the
segmentation. Rare kinds get more views (about ``per_kind`` crops per kind, ``min_views`` to
``max_views`` views per item). The label of a crop is the item's kind (its category).

``appearances`` > 0 adds, per house, that many items of random kinds in random appearances (any
colour, material, pattern or brand the scenes give that kind, or its plain look), each put on
a free place of the house (a furniture top or the floor beside a piece, as the scenes place
items) for the views and taken away after: the train houses hold each kind in a few looks only,
and a namer that saw only those does not name a green cereal box.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from hazard_sim.core.process import WorldProcess
from hazard_sim.perception.namer_dataset import CropSet

STUDIO_ID = 899            # the instance id of the item an ``appearances`` view adds


class _Studio(WorldProcess):
    """Draws one extra item (its meshes) while its views are rendered."""

    name = "studio"

    def __init__(self):
        self.meshes, self.version = [], 0

    def show(self, meshes) -> None:
        self.meshes, self.version = list(meshes), self.version + 1

    def render_meshes(self) -> list:
        return self.meshes

    def geometry_key(self):
        return self.version


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


def _views_of(env, target, item_id: int, want: int, rng, min_pixels: int):
    """Up to ``want`` views of the thing at ``target`` with instance id ``item_id``: ``(rgb, box,
    pixels)`` from free places 0.5-3.5 m away facing it, where it covers ``min_pixels`` or more."""
    from hazard_sim.perception.dataset_render import _look
    got = 0
    for _ in range(want * 6):
        if got >= want:
            return
        d, a = rng.uniform(0.5, 3.5), rng.uniform(-math.pi, math.pi)
        xy = target[:2] + d * np.array([math.cos(a), math.sin(a)])
        if not env.is_free(xy):
            continue
        _look(env, xy, target, rng)
        obs = env.observe(update_map=False)
        m = obs["seg"] == item_id
        if int(m.sum()) < min_pixels:
            continue
        ys, xs = np.nonzero(m)
        got += 1
        yield obs["rgb"], (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), int(m.sum())


def appearance_items(env, count: int, views: int, rng, min_pixels: int):
    """``count`` items of random kinds in random appearances put on free places of ``env``'s
    house one at a time (module docstring): yields ``(rgb, box, kind's category, pixels)``."""
    from hazard_sim.tasks.doze.library import KINDS
    from hazard_sim.tasks.doze.scenes import _appearance_attrs, _fit, _shape_for, _slots
    house = env.world.house
    taken = np.array([it.position[:2] for it in house.items]).reshape(-1, 2)
    slots = [s for s in _slots(house.furniture, env.is_free, rng) if s.relation[0] in ("on", "next to")]
    slots = [s for s in slots if not len(taken) or np.linalg.norm(taken - s.xy, axis=1).min() > 0.25]
    studio = _Studio()
    env.world.processes.append(studio)
    names = sorted(KINDS)
    try:
        for k in range(count if slots else 0):
            slot, kind = slots[k % len(slots)], names[int(rng.integers(len(names)))]
            attrs = [None, *_appearance_attrs(kind)]
            attr = attrs[int(rng.integers(len(attrs)))]
            shape = _fit(_shape_for(kind, attr), slot.max_h)
            pos = np.array([slot.xy[0], slot.xy[1], slot.z])
            studio.show(shape.meshes(STUDIO_ID, float(rng.uniform(-math.pi, math.pi)), pos))
            lo, hi = shape.extent()
            target = pos + [0.0, 0.0, (hi[2] - lo[2]) / 2]
            for rgb, box, px in _views_of(env, target, STUDIO_ID, views, rng, min_pixels):
                yield rgb, box, KINDS[kind].category, px
    finally:
        env.world.processes.remove(studio)
        studio.show([])


def crops(benchmark: str, split: str, *, imgsz: int = 256, per_kind: int = 60, min_views: int = 4,
          max_views: int = 24, min_pixels: int = 24, seed: int = 0, houses: int | None = None,
          appearances: int = 0, log=print) -> CropSet:
    """The crops of every item of ``split``'s houses (module docstring)."""
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
                want = _views(kinds[it.category], per_kind, min_views, max_views)
                for rgb, box, px in _views_of(env, np.asarray(it.position, float), it.id, want, rng, min_pixels):
                    out.add(rgb, box, it.category, scene, px)
            if appearances:
                arng = np.random.default_rng([seed, k, 13])
                for rgb, box, label, px in appearance_items(env, appearances, 3, arng, min_pixels):
                    out.add(rgb, box, label, scene, px)
        finally:
            env.close()
        log(f"[namer-dataset] {benchmark} {split} house {k + 1}/{len(eps)}: {len(out)} crops")
    return out
