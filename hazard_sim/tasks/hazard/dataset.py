"""HAZARD episode files: deterministic generation, versioned storage, validation.

An episode is fully determined by its JSON record (scene, objects with poses,
targets, agent start, hazard parameters) plus the run seed.  The committed files
in ``data/hazard/v1`` are produced by ``hazard dataset generate`` (which writes
byte-identical files each time) and are validated on load.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import json
from pathlib import Path

import jsonschema
import numpy as np

from hazard_sim.navigation.grid import GridSpec, inflate, rasterize_boxes
from hazard_sim.paths import data_path
from hazard_sim.tasks.hazard.catalog import category, pool_for
from hazard_sim.tasks.hazard.scenes import TEST_LAYOUTS, TEST_REGIONS, TRAIN_LAYOUTS, TRAIN_REGIONS, build_scene
from hazard_sim.validation import DatasetError  # noqa: F401  (one DatasetError for every benchmark's files)

FORMAT = "hazard-episodes"
VERSION = 1
EPISODES_PER_SCENE = 25
#: fire sources lie 1 to 2 m from the agent's start (the public fire test episodes: about 1.5 m)
FIRE_SOURCE_RING = (1.0, 2.0)
DATA_DIR = data_path("hazard", f"v{VERSION}")
TASKS = ("fire", "flood", "wind")
SPLITS = ("train", "test")


def scenes_for(task: str, split: str) -> tuple[str, ...]:
    """HAZARD's scenes of a task and split: houses for fire and flood, street regions for wind."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: expected train or test")
    if task in ("fire", "flood"):
        return TRAIN_LAYOUTS if split == "train" else TEST_LAYOUTS
    if task == "wind":
        return TRAIN_REGIONS if split == "train" else TEST_REGIONS
    raise ValueError(f"unknown task {task!r}: expected one of fire, flood, wind")



_vec2 = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
_vec3 = {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}
EPISODE_SCHEMA = {
    "type": "object",
    "required": ["task", "scene", "index", "target_categories", "objects", "agent"],
    "properties": {
        "task": {"enum": list(TASKS)},
        "scene": {"type": "string"},
        "index": {"type": "integer", "minimum": 0},
        "target_categories": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
        "objects": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id", "category", "position", "yaw"],
            "properties": {"id": {"type": "integer", "minimum": 1000}, "category": {"type": "string"},
                           "position": _vec3, "yaw": {"type": "number"}, "support": {"type": "string"}}}},
        "agent": {"type": "object", "required": ["position", "yaw"],
                  "properties": {"position": _vec2, "yaw": {"type": "number"}}},
        "fire": {"type": "object", "required": ["sources"],
                 "properties": {"sources": {"type": "array", "items": _vec2, "minItems": 1, "maxItems": 3}}},
        "flood": {"type": "object", "required": ["source_wall"],
                  "properties": {"source_wall": {"enum": ["n", "s", "e", "w"]}}},
        "wind": {"type": "object", "required": ["speed", "direction"],
                 "properties": {"speed": {"type": "number", "minimum": 0}, "direction": {"type": "number"}}},
    },
}
FILE_SCHEMA = {
    "type": "object", "required": ["format", "version", "task", "split", "episodes"],
    "properties": {"format": {"const": FORMAT}, "version": {"const": VERSION},
                   "task": {"enum": list(TASKS)}, "split": {"enum": list(SPLITS)},
                   "episodes": {"type": "array", "items": EPISODE_SCHEMA}},
}


_EPISODE_VALIDATOR = jsonschema.Draft202012Validator(EPISODE_SCHEMA)


def validate_episode(ep: dict, where: str = "episode") -> dict:
    """Check an episode record's shape, meaning and physical plausibility
    (:mod:`hazard_sim.tasks.hazard.episode_checks`); raise DatasetError saying what is wrong and where."""
    from hazard_sim.tasks.hazard import episode_checks
    if not isinstance(ep, dict):
        raise DatasetError(f"{where}: an episode must be a JSON object, got {type(ep).__name__}")
    episode_checks.check_numbers(ep, where)
    try:
        _EPISODE_VALIDATOR.validate(ep)
    except jsonschema.ValidationError as e:
        path = "/".join(str(p) for p in e.absolute_path)
        raise DatasetError(f"{where}: {e.message} (at {path or 'top level'})") from None
    task = ep["task"]
    if task not in ep or not isinstance(ep[task], dict):
        raise DatasetError(f"{where}: a {task} episode needs a '{task}' section")
    try:
        scene = build_scene(ep["scene"])
    except KeyError as e:
        raise DatasetError(f"{where}: {e.args[0]}") from None
    episode_checks.check_scene_kind(ep, scene, where)
    ids = [o["id"] for o in ep["objects"]]
    if len(set(ids)) != len(ids):
        raise DatasetError(f"{where}: duplicate object ids")
    for o in ep["objects"]:
        try:
            category(task, o["category"])
        except KeyError as e:
            raise DatasetError(f"{where}: object {o['id']}: {e.args[0]}") from None
        if not scene.contains(o["position"]):
            raise DatasetError(f"{where}: object {o['id']} at {o['position']} lies outside scene {scene.name}")
    for c in ep["target_categories"]:
        try:
            category(task, c)
        except KeyError as e:
            raise DatasetError(f"{where}: target category: {e.args[0]}") from None
    if not any(o["category"] in ep["target_categories"] for o in ep["objects"]):
        raise DatasetError(f"{where}: no object belongs to a target category")
    if not scene.contains(ep["agent"]["position"]):
        raise DatasetError(f"{where}: agent start {ep['agent']['position']} lies outside scene {scene.name}")
    episode_checks.check_plausible(ep, scene, where)
    return ep


def read_episode_file(path: Path) -> dict:
    """The checked header and raw episodes of an episode file (structure only: JSON object,
    format, version, task, split, an episode list whose records hold the file's task, and
    for a file named like ``fire_test.json`` that task and split)."""
    from hazard_sim.tasks.hazard import episode_checks
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise DatasetError(f"{path}: cannot read ({e})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{path}: not valid JSON ({e})") from None
    except RecursionError:
        raise DatasetError(f"{path}: JSON nested too deeply to be an episode file") from None
    what = episode_checks.describe(doc)
    if what:
        raise DatasetError(f"{path}: {what}")
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise DatasetError(f"{path}: unsupported file (format {doc.get('format')!r}, version {doc.get('version')!r}); "
                           f"this code reads format {FORMAT!r} version {VERSION}")
    try:
        jsonschema.validate({k: v for k, v in doc.items() if k != "episodes"} | {"episodes": []}, FILE_SCHEMA)
    except jsonschema.ValidationError as e:
        raise DatasetError(f"{path}: {e.message}") from None
    if not isinstance(doc["episodes"], list):
        raise DatasetError(f"{path}: episodes must be a list, got {type(doc['episodes']).__name__}")
    task, split = episode_checks.expected_from_name(path, TASKS, SPLITS)
    if task is not None and (doc["task"], doc["split"]) != (task, split):
        raise DatasetError(f"{path}: the header says {doc['task']}/{doc['split']}, the file name {task}/{split}")
    episode_checks.check_episode_tasks(doc["episodes"], doc["task"], path.name)
    return doc


def dataset_path(task: str, split: str, root: Path | None = None) -> Path:
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(TASKS)}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: expected train or test")
    return (root or DATA_DIR) / f"{task}_{split}.json"


def load_dataset(task: str, split: str, root: Path | None = None) -> list[dict]:
    """Load and validate a dataset file (cached per file and modification time)."""
    path = dataset_path(task, split, root)
    if not path.exists():
        raise DatasetError(f"dataset file {path} is missing; create it with `hazard dataset generate`")
    st = path.stat()
    return _load_cached(str(path), task, split, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _load_cached(path_str: str, task: str, split: str, mtime: int, size: int) -> list[dict]:
    path = Path(path_str)
    if not path.exists():
        raise DatasetError(f"dataset file {path} is missing; create it with `hazard dataset generate`")
    doc = read_episode_file(path)
    if doc["task"] != task or doc["split"] != split:
        raise DatasetError(f"{path}: holds {doc['task']}/{doc['split']}, expected {task}/{split}")
    return [validate_episode(ep, f"{path.name} episode {i}") for i, ep in enumerate(doc["episodes"])]


def load_episode(task: str, split: str, index: int, root: Path | None = None) -> dict:
    episodes = load_dataset(task, split, root)
    if not 0 <= index < len(episodes):
        raise IndexError(f"episode {index} out of range: {task}/{split} has episodes 0..{len(episodes) - 1}")
    return copy.deepcopy(episodes[index])


# --------------------------------------------------------------------------- generation
def _rng(*key) -> np.random.Generator:
    digest = hashlib.sha256("/".join(map(str, key)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _free_mask(scene, spec, pad):
    """Cells at least ``pad`` m away from any solid part and, outdoors, from the patch's edge
    (as far as from the 1 m fence the regions had when the episodes were generated, so that
    the committed episodes stay what they are now that the patch is open)."""
    boxes = [p.box for p in scene.solids()]
    if scene.kind == "outdoor" and not any(p.name.startswith("fence") for p in scene.parts):
        from hazard_sim.scenes.base import wall_segments
        x0, y0, x1, y1 = scene.bounds
        for side, a, b in (("s", (x0, y0), (x1, y0)), ("n", (x0, y1), (x1, y1)),
                           ("w", (x0, y0), (x0, y1)), ("e", (x1, y0), (x1, y1))):
            boxes += [p.box for p in wall_segments(f"fence_{side}", a, b, height=1.0, color=(0, 0, 0))]
    return ~inflate(rasterize_boxes(spec, boxes), pad, spec.resolution)


def _sample_free(rng, spec, free, taken, clearance, tries=400):
    cells = np.argwhere(free)
    for _ in range(tries):
        i, j = cells[rng.integers(len(cells))]
        xy = spec.to_world((i, j)) + rng.uniform(-0.04, 0.04, 2)
        if all(np.hypot(*(xy - t[:2])) >= clearance + t[2] for t in taken):
            return xy
    raise RuntimeError("could not place an object: scene too crowded")


def _sample_ring(rng, spec, free, center, lo: float, hi: float):
    """A free point between ``lo`` and ``hi`` m from ``center`` (the nearest free ones beyond
    ``lo`` when the ring has no free cell)."""
    cells = np.argwhere(free)
    d = np.linalg.norm(spec.centres()[cells[:, 0], cells[:, 1]] - np.asarray(center), axis=1)
    ring = cells[(d >= lo) & (d <= hi)]
    if not len(ring):
        beyond = d >= lo
        ring = cells[beyond][np.argsort(d[beyond])[:20]]
    i, j = ring[rng.integers(len(ring))]
    return spec.to_world((i, j)) + rng.uniform(-0.04, 0.04, 2)


def generate_episode(task: str, scene_name: str, index: int, variant: int) -> dict:
    rng = _rng("hazard", VERSION, task, scene_name, variant)
    scene = build_scene(scene_name)
    pool = pool_for(task)
    spec = GridSpec(scene.bounds, 0.1)
    free = _free_mask(scene, spec, 0.35)
    names = [c.name for c in pool]
    if task == "wind":
        n_cat = 5
        targets = sorted(rng.choice(names, n_cat, replace=False).tolist())
        counts = [1] * n_cat
        for _ in range(15 - n_cat):
            counts[rng.integers(n_cat)] += 1
        n_distract = int(rng.integers(4, 8))
    else:
        targets = sorted(rng.choice(names, 4, replace=False).tolist())
        counts = [int(rng.integers(1, 5)) for _ in targets]
        n_distract = int(rng.integers(4, 9))
    others = [n for n in names if n not in targets]
    cats = [c for c, k in zip(targets, counts) for _ in range(k)]
    cats += rng.choice(others, n_distract).tolist()
    agent_xy = _sample_free(rng, spec, free, [], 0.0)
    taken = [np.array([*agent_xy, 0.6])]
    objects, surfaces = [], scene.surfaces()
    for k, name in enumerate(cats):
        cat = category(task, name)
        yaw = float(rng.uniform(-np.pi, np.pi))
        r = 0.5 * float(np.hypot(cat.size[0], cat.size[1]))
        if surfaces and rng.random() < 0.4:
            part = surfaces[rng.integers(len(surfaces))]
            hx, hy = part.box.half[0] - r, part.box.half[1] - r
            if hx > 0 and hy > 0:
                xy = part.box.center[:2] + rng.uniform([-hx, -hy], [hx, hy])
                if all(np.hypot(*(xy - t[:2])) >= r + t[2] for t in taken[1:]):
                    taken.append(np.array([*xy, r]))
                    objects.append({"id": 1000 + k, "category": name,
                                    "position": _r([*xy, part.box.top + cat.size[2] / 2]),
                                    "yaw": round(yaw, 4), "support": part.name})
                    continue
        xy = _sample_free(rng, spec, free, taken, r)
        taken.append(np.array([*xy, r]))
        objects.append({"id": 1000 + k, "category": name, "position": _r([*xy, cat.size[2] / 2]),
                        "yaw": round(yaw, 4), "support": "floor"})
    ep = {"task": task, "scene": scene_name, "index": index, "target_categories": targets,
          "objects": objects, "agent": {"position": _r(agent_xy), "yaw": round(float(rng.uniform(-np.pi, np.pi)), 4)}}
    if task == "fire":
        n_src = int(rng.integers(1, 4))
        ep["fire"] = {"sources": [_r(_sample_ring(rng, spec, free, agent_xy, *FIRE_SOURCE_RING)) for _ in range(n_src)]}
    elif task == "flood":
        ep["flood"] = {"source_wall": str(rng.choice(["n", "s", "e", "w"]))}
    else:
        ep["wind"] = {"speed": round(float(rng.uniform(5, 10)), 3),
                      "direction": round(float(rng.uniform(-np.pi, np.pi)), 4)}
    return ep


def _r(v):
    return [round(float(x), 3) for x in v]


def generate_dataset(task: str, split: str) -> dict:
    episodes = []
    for scene_name in scenes_for(task, split):
        for variant in range(EPISODES_PER_SCENE):
            episodes.append(generate_episode(task, scene_name, len(episodes), variant))
    return {"format": FORMAT, "version": VERSION, "task": task, "split": split, "episodes": episodes}


def write_datasets(root: Path | None = None) -> list[Path]:
    root = root or DATA_DIR
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for task in TASKS:
        for split in SPLITS:
            doc = generate_dataset(task, split)
            for i, ep in enumerate(doc["episodes"]):
                validate_episode(ep, f"generated {task}/{split} episode {i}")
            path = dataset_path(task, split, root)
            path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
            paths.append(path)
    return paths
