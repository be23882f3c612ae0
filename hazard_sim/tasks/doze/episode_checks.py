"""What a valid DOZE episode and episode file are (:func:`check_episode`, :func:`check_file`).

Raised errors are :class:`hazard_sim.validation.DatasetError` naming the file, the episode and
the field. An episode is valid when:

* every field the env reads is there with its type (structure errors are reported, never raised);
* ``initial_position`` is three finite numbers, its x, y on the scene's navigable floor (the
  robot's radius clear of walls and furniture), z (the robot's height, as DOZE stores it) in
  [0, 3] m; ``initial_orientation`` a finite yaw in [-360, 360] degrees and ``initial_horizon``
  a finite camera pitch in [-90, 90] degrees;
* ``index`` an integer in [0, 2^31) (the episode's place in its file); ``level`` 1, 2 or 3 and
  the level of the benchmark (or file) it is given to; ``goal_type`` known;
* ``goal_ids`` 1..:data:`MAX_IDS` distinct objects of the scene, ``hint_ids`` its whiteboards;
* ``shortest_path_length`` finite, in (0, :data:`MAX_PATH_M`] m; ``shortest_path`` at most
  :data:`MAX_WAYPOINTS` [x, y] points inside the scene;
* ``people`` (optional) an integer count in [0, :data:`MAX_PEOPLE`].

A file is a JSON object (plain or gzip) ``{"benchmark": "doze/levelN", "split", "version": 1,
"episodes": [...]}`` whose header agrees with its name (``levelN_split.json.gz``) and whose
episodes are all of level N, each at its ``index``.
"""
from __future__ import annotations

import re
from pathlib import Path

from hazard_sim.validation import DatasetError, Fields, read_json_file

LEVELS = (1, 2, 3)
SPLITS = ("train", "test")
GOAL_TYPES = ("appearance", "spatial", "open_vocab", "hint")
HORIZON = 10.0
MAX_PEOPLE = 50              # people in one house (the density gives 4..6 per 100 m^2)
MAX_PATH_M = 1000.0          # a geodesic inside one house
MAX_WAYPOINTS = 10_000
MAX_IDS = 1000
MAX_EPISODES = 100_000
MAX_Z = 3.0
_NAME = re.compile(r"level([123])_(train|test)\.json(\.gz)?$")


def check_episode(ep, where: str = "episode", level: int | None = None, spec_id: str | None = None) -> dict:
    """A checked copy of episode ``ep`` (defaults filled in); ``level`` is the level it must have
    (the benchmark's, ``spec_id`` naming it in the message)."""
    from hazard_sim.tasks.doze.scenes import SCENES, build_house
    f = Fields(where)
    ep = dict(f.record(ep, "an episode"))
    ep.setdefault("index", 0)
    ep.setdefault("hint_ids", [])
    ep.setdefault("initial_horizon", HORIZON)
    get = lambda key: f.get(ep, key)          # noqa: E731
    f.string(get("id"), "id", max_len=200)
    scene = f.string(get("scene"), "scene", max_len=100)
    if scene not in SCENES:
        raise f.fail(f"unknown scene {scene[:60]!r}; known: {', '.join(SCENES)}")
    lv = f.integer(get("level"), "level", 1, 3)
    if level is not None and lv != level:
        raise f.fail(f"level is {lv}: a level {lv} episode given to {spec_id or f'doze/level{level}'}")
    f.string(get("goal_type"), "goal_type", GOAL_TYPES)
    f.string(get("goal_object"), "goal_object", max_len=500)
    ep["index"] = f.integer(get("index"), "index")
    ep["initial_orientation"] = f.number(get("initial_orientation"), "initial_orientation", -360.0, 360.0)
    ep["initial_horizon"] = f.number(get("initial_horizon"), "initial_horizon", -90.0, 90.0)
    pos = f.vector(get("initial_position"), "initial_position", 3)
    f.number(pos[2], "initial_position[2] (height)", 0.0, MAX_Z)
    ep["shortest_path_length"] = f.number(get("shortest_path_length"), "shortest_path_length", 0.0, MAX_PATH_M)
    if ep["shortest_path_length"] <= 0.0:
        raise f.fail("shortest_path_length must be > 0 m (a start on the goal has no SPL)")
    house = build_house(scene)
    x0, y0, x1, y1 = house.scene.bounds
    for k, p in enumerate(f.items(get("shortest_path"), "shortest_path", 0, MAX_WAYPOINTS)):
        q = f.vector(p, f"shortest_path[{k}]", 2)
        if not (x0 <= q[0] <= x1 and y0 <= q[1] <= y1):
            raise f.fail(f"shortest_path[{k}] {q} lies outside scene {scene}")
    ids = {it.id for it in house.items}
    goal_ids = [f.integer(i, f"goal_ids[{k}]") for k, i in enumerate(f.items(get("goal_ids"), "goal_ids", 1, MAX_IDS))]
    bad = [i for i in goal_ids if i not in ids]
    if bad:
        raise f.fail(f"goal_ids: unknown goal object id(s) {bad[:10]} in scene {scene}")
    if len(set(goal_ids)) != len(goal_ids):
        raise f.fail("goal_ids has duplicates")
    boards = {b.id for b in house.boards}
    hints = [f.integer(i, f"hint_ids[{k}]") for k, i in enumerate(f.items(get("hint_ids"), "hint_ids", 0, MAX_IDS))]
    bad = [i for i in hints if i not in boards]
    if bad:
        raise f.fail(f"hint_ids: unknown whiteboard id(s) {bad[:10]} in scene {scene}")
    grid, free = house.nav_grid()
    if not house.scene.contains(pos[:2]) or not free[grid.to_cell(pos[:2])]:
        raise f.fail(f"initial_position {pos[:2]} is not on the navigable floor of {scene}")
    if ep.get("people") is not None:
        ep["people"] = f.integer(ep["people"], "people", 0, MAX_PEOPLE)
    return ep


def check_file(path, level: int | None = None, split: str | None = None) -> tuple[dict, list[dict]]:
    """The header and checked episodes of a DOZE episode file. ``level`` / ``split``: what the
    caller loads it as (else what its name says)."""
    path = Path(path)
    doc = read_json_file(path)
    f = Fields(str(path))
    if isinstance(doc, list):
        raise f.fail(f"a top-level list of {len(doc)} item(s); a DOZE episode file is an object "
                     "{benchmark, split, version, episodes}")
    f.record(doc, "the file")
    m = _NAME.search(path.name)
    name_level, name_split = (int(m.group(1)), m.group(2)) if m else (None, None)
    level = level if level is not None else name_level
    split = split if split is not None else name_split
    bench = f.string(f.get(doc, "benchmark"), "benchmark", [f"doze/level{k}" for k in LEVELS])
    head_level = int(bench[-1])
    head_split = f.string(f.get(doc, "split"), "split", SPLITS)
    if doc.get("version") != 1:
        raise f.fail(f"unsupported version {doc.get('version')!r}; this code reads version 1")
    if level is not None and head_level != level:
        raise f.fail(f"the header says {bench}, but it is loaded as doze/level{level}")
    if split is not None and head_split != split:
        raise f.fail(f"the header says split {head_split!r}, but it is loaded as {split!r}")
    if name_level is not None and (name_level, name_split) != (head_level, head_split):
        raise f.fail(f"the header says {bench} {head_split}, the file name level{name_level} {name_split}")
    eps = f.items(f.get(doc, "episodes"), "episodes", 1, MAX_EPISODES)
    out = []
    for k, ep in enumerate(eps):
        where = f"{path} episode {k}"
        e = check_episode(ep, where, head_level)
        if e["index"] != k:
            raise DatasetError(f"{where}: index is {e['index']}, expected {k} (its place in the file)")
        out.append(e)
    return doc, out


def recognise(doc, path: Path) -> bool:
    doze_header = isinstance(doc, dict) and str(doc.get("benchmark", "")).startswith("doze/")
    return doze_header or bool(_NAME.search(path.name))


def validate_file(path) -> str:
    doc, eps = check_file(path)
    return f"{path}: {len(eps)} {doc['benchmark']}/{doc['split']} episodes ok"
