"""DOZE's episodes: generation, files, validation.

An episode follows the public DOZE-Dataset schema (``id``, ``scene``,
``initial_position``, ``initial_orientation``, ``initial_horizon``, ``goal_object``,
``shortest_path``, ``shortest_path_length``) plus ``level``, ``goal_type``
(appearance | spatial | open_vocab | hint), ``goal_ids`` (every instance that
satisfies the text), ``hint_ids`` (the whiteboards that tell where it is) and
``index``.  Axes differ from AI2-THOR's files: ``initial_position`` is [x, y, z] in
REP 103 (z up; z = 0.9, the robot's height, where AI2-THOR stores y = 0.9),
``initial_orientation`` the yaw in degrees counter-clockwise from +x,
``initial_horizon`` the camera pitch in degrees (positive looks down).

Shortest paths are geodesic on the static scene (walls and furniture grown by the
robot's radius), computed by scikit-image's minimum-cost-path engine
(``MCP_Geometric``) from the goal region (free cells within 1.0 m of a goal
instance) to the start, and stored as waypoints.

Split by scene: ``train`` = doze_00..doze_07, ``test`` = doze_08, doze_09.  Each goal
is paired with 12 start poses, as in DOZE.  ``python -m hazard_sim.tasks.doze.dataset
generate`` writes ``data/doze/v1/level{1,2,3}_{train,test}.json.gz``; the same command
gives the same files.
"""
from __future__ import annotations

import argparse
import functools
import gzip
import json
import sys
from pathlib import Path

import numpy as np
from skimage.graph import MCP_Geometric

from hazard_sim.paths import data_path
from hazard_sim.tasks.doze.episode_checks import GOAL_TYPES, HORIZON, LEVELS, SPLITS, check_episode, check_file
from hazard_sim.tasks.doze.scenes import SCENES, TEST_SCENES, TRAIN_SCENES, build_house
from hazard_sim.tasks.doze.task import SUCCESS_DISTANCE
from hazard_sim.validation import DatasetError, file_fingerprint

DATA_ROOT = data_path("doze", "v1")
#: goals drawn per scene, level and goal type (hint: every hint the scene has)
STARTS_PER_GOAL = 12
GOALS_PER_SCENE = {"appearance": 10, "spatial": 10, "open_vocab": 4, "hint": 2}
__all__ = ["DatasetError", "GOAL_TYPES", "HORIZON", "LEVELS", "SPLITS", "load", "load_split", "count", "validate",
           "fingerprint", "generate", "shortest_path"]


# ------------------------------------------------------------------ goals
def appearance_phrase(kind: str, attr: str) -> str:
    if attr.startswith("brand:"):
        return f"a {attr.split(':', 1)[1]} {kind}"
    return f"a {attr} {kind}"


def scene_goals(scene: str) -> dict[str, list[dict]]:
    """Every goal a scene offers, by type: {"text", "ids", "hint_ids"}."""
    house = build_house(scene)
    items = house.items
    out = {t: [] for t in GOAL_TYPES}
    for it in items:
        if it.group == "appearance":
            same = [o.id for o in items if o.kind == it.kind and o.appearance == it.appearance]
            out["appearance"].append({"text": appearance_phrase(it.kind, it.appearance), "ids": same,
                                      "hint_ids": []})
    seen = set()
    for it in items:
        if it.group == "spatial" and it.relation:
            key = (it.kind, it.relation[0], it.relation[1])
            if key in seen:
                continue
            seen.add(key)
            same = [o.id for o in items if o.kind == it.kind and o.relation and
                    (o.relation[0], o.relation[1]) == key[1:]]
            out["spatial"].append({"text": f"a {it.kind} {key[1]} the {key[2]}", "ids": same, "hint_ids": []})
    for it in items:
        if it.group == "open_vocab":
            out["open_vocab"].append({"text": f"a {it.kind}", "ids": [o.id for o in items if o.kind == it.kind],
                                      "hint_ids": []})
    for b in house.boards:
        if b.hint:
            out["hint"].append({"text": f"{b.hint['owner']}'s {b.hint['kind']}", "ids": [b.hint["item"]],
                                "hint_ids": [b.id]})
    return out


# ------------------------------------------------------------------ geodesics
@functools.lru_cache(maxsize=512)
def _goal_field(scene: str, ids: tuple[int, ...]):
    house = build_house(scene)
    grid, free = house.nav_grid()
    centres = grid.centres()
    near = np.zeros(free.shape, bool)
    for i in ids:
        xy = house.item(i).position[:2]
        near |= np.linalg.norm(centres - xy, axis=-1) <= SUCCESS_DISTANCE - grid.resolution / 2
    near &= free
    if not near.any():
        raise DatasetError(f"{scene}: no free cell within {SUCCESS_DISTANCE} m of goal objects {list(ids)}")
    cost = np.where(free, 1.0, np.inf)
    mcp = MCP_Geometric(cost, fully_connected=True)
    dist, _ = mcp.find_costs([tuple(c) for c in np.argwhere(near)])
    return grid, free, mcp, dist * grid.resolution


def shortest_path(scene: str, goal_ids, start_xy) -> tuple[list, float]:
    """Geodesic shortest path (waypoints [x, y], length m) from ``start_xy`` to the goal region."""
    grid, free, mcp, dist = _goal_field(scene, tuple(sorted(goal_ids)))
    cell = grid.to_cell(start_xy)
    if not free[cell] or not np.isfinite(dist[cell]):
        raise DatasetError(f"{scene}: start {list(np.round(start_xy, 2))} cannot reach goal objects {list(goal_ids)}")
    cells = mcp.traceback(cell)[::-1]
    pts = [grid.to_world(c) for c in cells]
    # keep the corners (where the direction changes) and the ends
    keep = [pts[0]]
    for a, b, c in zip(pts[:-2], pts[1:-1], pts[2:]):
        if not np.allclose(b - a, c - b):
            keep.append(b)
    if len(pts) > 1:
        keep.append(pts[-1])
    return [[round(float(p[0]), 3), round(float(p[1]), 3)] for p in keep], float(dist[cell])


def navigation_complexity(scene: str, rng, sources: int = 20, ends: int | None = 20) -> float:
    """Max of geodesic / Euclidean distance between navigable points at least 1 m apart (the paper's
    "navigation complexity"), over ``sources`` random navigable cells times ``ends`` random navigable
    cells each (every navigable cell with ``ends=None``).  A lower bound of the true maximum: the
    default 400 pairs are the estimate the docs compare with the paper's 4.75; the maximum over all
    pairs is dominated by a few pockets behind furniture and is higher."""
    house = build_house(scene)
    grid, free = house.nav_grid()
    cells = np.argwhere(free)
    best = 1.0
    cost = np.where(free, 1.0, np.inf)
    for s in cells[rng.choice(len(cells), min(sources, len(cells)), replace=False)]:
        mcp = MCP_Geometric(cost, fully_connected=True)
        dist, _ = mcp.find_costs([tuple(s)])
        to = cells if ends is None else cells[rng.choice(len(cells), min(ends, len(cells)), replace=False)]
        eu = np.linalg.norm((to - s) * grid.resolution, axis=1)
        geo = dist[to[:, 0], to[:, 1]] * grid.resolution
        ok = (eu >= 1.0) & np.isfinite(geo)
        if ok.any():
            best = max(best, float((geo[ok] / eu[ok]).max()))
    return best


def start_goal_ratio(ep: dict) -> float:
    """An episode's geodesic / Euclidean distance from its start to its goal region (the free cells
    within 1.0 m of a goal instance, as its ``shortest_path_length`` is measured)."""
    grid, free, _, dist = _goal_field(ep["scene"], tuple(sorted(ep["goal_ids"])))
    region = np.argwhere(free & (dist == 0))
    start = np.asarray(ep["initial_position"][:2])
    eu = np.linalg.norm(grid.centres()[region[:, 0], region[:, 1]] - start, axis=1).min()
    return float(ep["shortest_path_length"] / max(eu, grid.resolution))


# ------------------------------------------------------------------ generation
def generate_level(level: int, split: str) -> list[dict]:
    scenes = TRAIN_SCENES if split == "train" else TEST_SCENES
    episodes = []
    for scene in scenes:
        # the same goals and start poses at every level (the levels differ by their people only, as DOZE's
        # three variants of each scene), so levels compare episode by episode
        rng = np.random.default_rng([SCENES.index(scene), 11])
        house = build_house(scene)
        grid, free = house.nav_grid()
        cells = np.argwhere(free)
        goals = scene_goals(scene)
        for gtype in GOAL_TYPES:
            pool = [g for g in goals[gtype] if _reachable(scene, g["ids"])]
            n = min(GOALS_PER_SCENE[gtype], len(pool))
            for gi in rng.choice(len(pool), n, replace=False) if n else []:
                g = pool[int(gi)]
                _, _, _, dist = _goal_field(scene, tuple(sorted(g["ids"])))
                cand = cells[np.isfinite(dist[cells[:, 0], cells[:, 1]]) & (dist[cells[:, 0], cells[:, 1]] >= 1.5)]
                if len(cand) < STARTS_PER_GOAL:
                    continue
                for s in range(STARTS_PER_GOAL):
                    c = cand[int(rng.integers(len(cand)))]
                    xy = grid.to_world(c)
                    path, length = shortest_path(scene, g["ids"], xy)
                    k = len(episodes)
                    episodes.append({
                        "id": f"{scene}_l{level}_{gtype}_{int(gi):03d}_{s:02d}", "index": k, "scene": scene,
                        "level": level, "goal_type": gtype, "goal_object": g["text"],
                        "goal_ids": sorted(int(i) for i in g["ids"]), "hint_ids": list(g["hint_ids"]),
                        "initial_position": [round(float(xy[0]), 3), round(float(xy[1]), 3), 0.9],
                        "initial_orientation": float(30 * int(rng.integers(12))),
                        "initial_horizon": HORIZON, "shortest_path": path,
                        "shortest_path_length": round(length, 4)})
    return episodes


def _reachable(scene: str, ids) -> bool:
    try:
        _goal_field(scene, tuple(sorted(ids)))
        return True
    except DatasetError:
        return False


def file_for(level: int, split: str, root=None) -> Path:
    return Path(root or DATA_ROOT) / f"level{level}_{split}.json.gz"


def generate(out=None) -> list[Path]:
    written = []
    for level in LEVELS:
        for split in SPLITS:
            eps = generate_level(level, split)
            p = file_for(level, split, out)
            p.parent.mkdir(parents=True, exist_ok=True)
            doc = {"benchmark": f"doze/level{level}", "split": split, "version": 1, "episodes": eps}
            with gzip.GzipFile(p, "wb", mtime=0) as fh:
                fh.write(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
            written.append(p)
    return written


# ------------------------------------------------------------------ loading and validation
def validate(ep, where: str = "episode", spec=None) -> dict:
    """Check one episode (:mod:`.episode_checks`); returns it (a copy) or raises
    :class:`DatasetError` naming what is wrong. With ``spec``, its level must be the spec's."""
    level = None if spec is None else spec.options.get("level")
    return check_episode(ep, where, level, None if spec is None else spec.id)


@functools.lru_cache(maxsize=16)
def _load_file(path: str, level: int, split: str, mtime_ns: int, size: int) -> tuple:
    return tuple(check_file(Path(path), level, split)[1])


def load_split(level: int, split: str, root=None) -> tuple:
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}: expected one of {', '.join(SPLITS)}")
    p = file_for(level, split, root)
    try:
        st = p.stat()
    except OSError:
        raise DatasetError(f"no DOZE episode file {p}; generate it with python -m hazard_sim.tasks.doze.dataset "
                           "generate") from None
    return _load_file(str(p), level, split, st.st_mtime_ns, st.st_size)


def load(level: int, split: str, index: int, root=None) -> dict:
    eps = load_split(level, split, root)
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(eps):
        raise IndexError(f"doze/level{level} {split} has episodes 0..{len(eps) - 1}, not {index!r}")
    return dict(eps[index])


def count(level: int, split: str, root=None) -> int:
    return len(load_split(level, split, root))


def fingerprint(level: int, split: str, root=None) -> str:
    """sha256 of the split's episode file and of every house its episodes use
    (:func:`~hazard_sim.tasks.doze.scenes.house_fingerprint`), as ``<file>+<houses>``; sweeps
    store it, so results of another file or of houses generated otherwise are not reused."""
    scenes = tuple(sorted({e["scene"] for e in load_split(level, split, root)}))
    return f"{file_fingerprint(file_for(level, split, root))}+{_houses_fingerprint(scenes)}"


@functools.lru_cache(maxsize=32)
def _houses_fingerprint(scenes: tuple) -> str:
    import hashlib

    from hazard_sim.tasks.doze.scenes import house_fingerprint
    return hashlib.sha256("".join(f"{s}:{house_fingerprint(s)};" for s in scenes).encode()).hexdigest()[:16]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hazard_sim.tasks.doze.dataset")
    ap.add_argument("action", choices=["generate", "validate", "stats"])
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.action == "generate":
        for p in generate(a.out):
            print(p)
    elif a.action == "validate":
        bad = 0
        for level in LEVELS:
            for split in SPLITS:
                try:
                    print(f"level{level} {split}: {count(level, split, a.out)} episodes ok")
                except DatasetError as e:
                    print(f"error: {e}", file=sys.stderr)
                    bad += 1
        return 1 if bad else 0
    else:
        stats(a.out)
    return 0


def stats(root=None) -> None:
    """Per scene: its statistics and navigation complexity (400 pairs, and every navigable cell from 64
    sources); the start-goal geodesic / Euclidean ratios of the episodes; where objects stand."""
    from hazard_sim.tasks.doze.placement_priors import co_occurrence, prior
    from hazard_sim.tasks.doze.scenes import scene_stats
    for s in SCENES:
        st = scene_stats(s)
        st["navigation_complexity"] = round(navigation_complexity(s, np.random.default_rng(0)), 2)
        st["navigation_complexity_dense"] = round(navigation_complexity(s, np.random.default_rng(0), 64, None), 2)
        print(json.dumps(st))
    for split in SPLITS:
        r = np.array([start_goal_ratio(e) for e in load_split(1, split, root)])
        print(json.dumps({"split": split, "episodes": len(r), "start_goal_ratio": {
            "mean": round(float(r.mean()), 2), "median": round(float(np.median(r)), 2),
            "p90": round(float(np.percentile(r, 90)), 2), "max": round(float(r.max()), 2),
            "share_above_1.5": round(float((r > 1.5).mean()), 3)}}))
    houses = [build_house(s) for s in SCENES]
    items = [it for h in houses for it in h.items]
    top = [it.room == max(prior(it.kind)[0], key=prior(it.kind)[0].get) for it in items]
    co = co_occurrence(houses)
    print(json.dumps({"objects": len(items), "in_prior_top_room": round(float(np.mean(top)), 3),
                      **{k: co.get(k, {}) for k in ("mug", "kettle", "apple", "pillow", "teddy bear", "laptop",
                                                     "towel", "umbrella")}}))


if __name__ == "__main__":
    raise SystemExit(main())
