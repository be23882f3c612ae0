"""Physical plausibility of HAZARD episode records and structure of episode files.

:func:`check_plausible` is called by :func:`hazard_sim.tasks.hazard.dataset.validate_episode` after the
schema check; :func:`check_file` by the loader and by ``hazard dataset validate``. Both
raise :class:`hazard_sim.tasks.hazard.dataset.DatasetError` with a message naming the file, the episode
and the field. What a plausible episode is:

* every number finite, object ids integral (not ``1000.0``) and in ``[1000, 2^31)``;
* at most :data:`MAX_OBJECTS` objects and :data:`MAX_SOURCES` fire sources;
* the scene's kind matches the task (fire and flood in houses, wind outdoors);
* each object starts at most :data:`MAX_DROP` above the floor or a surface of the scene under
  it (so not below the floor, not 50 m up), does not reach into a wall or a piece of furniture,
  and does not overlap another object by more than :data:`OVERLAP_TOLERANCE`;
* the agent starts inside the scene, clear of walls and furniture (its body radius);
* fire sources lie inside the scene, wind speeds in ``[0, MAX_WIND_SPEED]``.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

MAX_OBJECTS = 300
MAX_SOURCES = 3
MAX_ID = 2 ** 31 - 1
MAX_WIND_SPEED = 60.0        # m/s: beyond any hurricane
REST_TOLERANCE = 0.05        # m an object's bottom may reach into what it stands on (rounding)
MAX_DROP = 1.0               # m an object may start above what is under it (it falls)
OVERLAP_TOLERANCE = 0.05     # m of interpenetration allowed (rounding of the stored poses)
AGENT_RADIUS = 0.2           # m: the humanoid's body
MAX_NESTING = 20             # levels of JSON in an episode record
SCENE_KIND = {"fire": "indoor", "flood": "indoor", "wind": "outdoor"}


def _error(where: str, text: str):
    from hazard_sim.tasks.hazard.dataset import DatasetError
    return DatasetError(f"{where}: {text}")


# ============================================================================ numbers
def check_numbers(value, where: str, path: str = "", depth: int = 0) -> None:
    """Every number of a JSON value finite; nesting at most :data:`MAX_NESTING` levels."""
    if depth > MAX_NESTING:
        raise _error(where, f"{path or 'record'} is nested more than {MAX_NESTING} levels deep")
    if isinstance(value, float) and not math.isfinite(value):
        raise _error(where, f"{path or 'value'} is {value}, not a finite number")
    if isinstance(value, dict):
        for k, v in value.items():
            check_numbers(v, where, f"{path}.{k}" if path else str(k), depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_numbers(v, where, f"{path}[{i}]", depth + 1)


# ============================================================================ geometry
def _inside_box(box, p, grow_xy: float = 0.0, grow_z: float = 0.0) -> bool:
    """Is point ``p`` inside ``box`` grown by ``grow_xy`` (its local x, y) and ``grow_z``?"""
    local = box.rot.T @ (np.asarray(p, float) - box.center)
    half = box.half + np.array([grow_xy, grow_xy, grow_z])
    return bool(np.all(np.abs(local) <= half))


def _footprint_contains(box, xy, margin: float = 0.0) -> bool:
    local = box.rot.T @ (np.array([xy[0], xy[1], box.center[2]]) - box.center)
    return bool(abs(local[0]) <= box.half[0] + margin and abs(local[1]) <= box.half[1] + margin)


def _object_extent(o, task):
    from hazard_sim.tasks.hazard.catalog import category
    size = np.asarray(category(task, o["category"]).size, float)
    return size, 0.5 * float(min(size[0], size[1]))       # size, inscribed radius of the footprint


def check_scene_kind(ep: dict, scene, where: str) -> None:
    need = SCENE_KIND.get(ep["task"])
    if need and scene.kind != need:
        raise _error(where, f"scene {scene.name!r} is {scene.kind}; a {ep['task']} episode needs an {need} scene")


def check_plausible(ep: dict, scene, where: str) -> None:
    """Physical plausibility of a schema-valid episode ``ep`` in its built ``scene``."""
    check_scene_kind(ep, scene, where)
    task = ep["task"]
    objects = ep["objects"]
    if len(objects) > MAX_OBJECTS:
        raise _error(where, f"objects: {len(objects)} objects, at most {MAX_OBJECTS}")
    for i, o in enumerate(objects):
        if not isinstance(o["id"], int) or isinstance(o["id"], bool):
            raise _error(where, f"objects[{i}].id {o['id']!r} is not an integer")
        if not 1000 <= o["id"] <= MAX_ID:
            raise _error(where, f"objects[{i}].id {o['id']} is out of range 1000..{MAX_ID}")
    if not isinstance(ep["index"], int):
        raise _error(where, f"index {ep['index']!r} is not an integer")

    solids = [p for p in scene.solids() if p.kind != "cart"]
    surfaces = scene.surfaces()
    extents = []
    for i, o in enumerate(objects):
        name = f"objects[{i}] (id {o['id']}, {o['category']})"
        size, r_in = _object_extent(o, task)
        pos = np.asarray(o["position"], float)
        bottom = pos[2] - size[2] / 2
        if bottom < -REST_TOLERANCE:
            raise _error(where, f"{name}.position {o['position']} is below the floor (bottom at z = {bottom:.2f} m)")
        under = [("floor", 0.0)] + [(p.name, p.box.top) for p in surfaces if _footprint_contains(p.box, pos[:2])]
        support = max((top for _, top in under if top <= bottom + REST_TOLERANCE), default=0.0)
        if bottom - support > MAX_DROP:
            heights = ", ".join(f"{n} at {t:.2f} m" for n, t in under)
            raise _error(where, f"{name}.position {o['position']}: its bottom (z = {bottom:.2f} m) is "
                                f"{bottom - support:.2f} m above what is under it (at most {MAX_DROP:g} m; "
                                f"under it: {heights})")
        core = r_in / 2
        for p in solids:
            mid = [pos[0], pos[1], pos[2]]
            if _inside_box(p.box, mid, grow_xy=core, grow_z=size[2] / 2 - REST_TOLERANCE):
                raise _error(where, f"{name}.position {o['position']} lies inside {p.kind} {p.name!r}")
        extents.append((name, pos, size, r_in))
    for a in range(len(extents)):
        na, pa, sa, ra = extents[a]
        for b in range(a + 1, len(extents)):
            nb, pb, sb, rb = extents[b]
            z_overlap = min(pa[2] + sa[2] / 2, pb[2] + sb[2] / 2) - max(pa[2] - sa[2] / 2, pb[2] - sb[2] / 2)
            dxy = math.dist(pa[:2], pb[:2])
            if z_overlap > OVERLAP_TOLERANCE and dxy < ra + rb - OVERLAP_TOLERANCE:
                raise _error(where, f"{na} and {nb} overlap ({dxy:.2f} m apart, footprints of radius "
                                    f"{ra:.2f} and {rb:.2f} m)")

    agent = ep["agent"]["position"]
    for p in solids:
        z = min(max(float(p.box.center[2]), 0.05), 1.6)          # the body spans 0 .. 1.7 m
        if p.box.top > 0.1 and _inside_box(p.box, [agent[0], agent[1], z], grow_xy=AGENT_RADIUS - 0.05):
            raise _error(where, f"agent.position {agent} lies inside {p.kind} {p.name!r}")
    for name, pos, size, r_in in extents:
        if pos[2] - size[2] / 2 < 1.5 and math.dist(pos[:2], agent) < r_in + AGENT_RADIUS - OVERLAP_TOLERANCE:
            raise _error(where, f"agent.position {agent} overlaps {name}")

    if task == "fire":
        sources = ep["fire"]["sources"]
        if len(sources) > MAX_SOURCES:
            raise _error(where, f"fire.sources: {len(sources)} sources, at most {MAX_SOURCES}")
        for i, s in enumerate(sources):
            if not scene.contains(s):
                raise _error(where, f"fire.sources[{i}] {s} lies outside scene {scene.name} {list(scene.bounds)}")
    if task == "wind":
        speed = ep["wind"]["speed"]
        if not 0 <= speed <= MAX_WIND_SPEED:
            raise _error(where, f"wind.speed {speed} m/s is not in [0, {MAX_WIND_SPEED:g}]")


# ============================================================================ files
def describe(doc) -> str:
    """What a JSON document that is not an episode file looks like, for the message."""
    if isinstance(doc, list):
        return f"a top-level list of {len(doc)} item(s); an episode file is an object with a header"
    if not isinstance(doc, dict):
        return f"a JSON {type(doc).__name__} ({str(doc)[:40]}); an episode file is an object with a header"
    if "episodes" not in doc and {"task", "objects", "agent"} <= set(doc):
        return "a bare episode record; an episode file wraps episodes in {format, version, task, split, episodes}"
    return ""


def expected_from_name(path: Path, tasks, splits) -> tuple[str | None, str | None]:
    """(task, split) that a file named like ``fire_test.json`` must hold (None: any)."""
    stem = Path(path).stem
    task, _, split = stem.partition("_")
    if task in tasks and split in splits:
        return task, split
    return None, None


def check_episode_tasks(episodes: list, task: str, where: str) -> None:
    for i, ep in enumerate(episodes):
        if isinstance(ep, dict) and ep.get("task") != task:
            raise _error(f"{where} episode {i}", f"task is {ep.get('task')!r} but the file holds {task} episodes")
        if isinstance(ep, dict) and ep.get("index") != i:
            raise _error(f"{where} episode {i}", f"index is {ep.get('index')!r}, expected {i} (its place in the file)")
