"""ESAR's scenario dataset: Event -> Snapshot -> Task, placed by written rules.

* **Event**: one search-and-rescue incident on one map (12: three per map), a story type
  and a last known position (LKP) on or next to the trail.
* **Snapshot** (5 per event): a moment of the incident's one timeline. The missing person
  moves on along their route as time passes (snapshot k: ``(k + 1) / 5`` of the route) and
  drops items on the way; an item dropped stays where it fell, same class and place, in every
  later snapshot, and new ones are added. Routes progress: no point is revisited (within half
  a 24 m step), so a walker never oscillates between the same places.
* **Task** (10 per snapshot, 600 in all; numbered round-robin over events and snapshots, so
  the first N tasks are a spread sample: task i is of event ``i % 12``): samples the time
  of day, the weather (among those the biome allows), the wind and the UAV's start (a point
  150 m to 60 % of the map's side from the LKP, 40 m above the ground, facing a random
  direction).

Placement rules (``_route`` and ``_snapshots``), after real wilderness SAR cases (lost
persons go downhill and follow drainages; falls happen on steep trail sections; people
seek water and shelter, lay out signs, light fires and flares when they hear aircraft):

=============== ============================================================================
story           route of the victim from the LKP
=============== ============================================================================
lost_hiker      leaves the trail and walks downhill (steepest descent with noise, 24 m
                steps), as lost hikers do
fall            from the steepest trail section within 600 m of the LKP, down the fall line
                30-200 m below the trail
seek_water      towards the nearest water (stream, sea shore), ends within 40 m of it
                (desert: towards the lowest point of the dry wash)
shelter         towards the nearest rock or tree cluster, ends beside it (not under it)
group           two hikers: one stays near the LKP hurt (sitting), one walks on downhill
=============== ============================================================================

Clues along the route: at the LKP end of the route the first dropped items (trekking pole,
water bottle, helmet after a fall), then a jacket, a backpack, a rope and a sleeping bag at
15, 35, 55 and 75 % of the route, each there from the first snapshot whose victim has passed
it (a trail of dropped items leading towards the victim), a camp (tent + campfire) at 30 % of
the route from snapshot 2 on, a signal flare or flashlight where the victim was at snapshot 3
(from then on) and an SOS sign laid out near the victim at snapshot 4.
Victims and clues stand on land (not water), on slopes below 38 degrees, 100 m inside the
map, and not under a tree (an air crew could see them); the victim's posture is lying
(fall, or lost at night), sitting, or sheltering (shelter story).

Difficulty (``difficulty``):
``D = 0.35 S_weather + 0.25 (1 - L) + 0.25 min(1, d / (0.6 W)) + 0.15 (1 - C)``
with ``S_weather`` the weather's severity (0..1), ``L`` the light at the start (0..1, daylight
times the weather's light factor), ``d`` the mean start-to-victim distance, ``W`` the map's
side, ``C = min(1, n / 3)`` with ``n`` the clues within 300 m of a victim. Tiers: Simple
``D < 0.22``, Medium ``< 0.34``, Hard ``< 0.46``, Extreme otherwise.

Files: ``data/esar/v1/esar_v1.json`` with ``version``, ``events`` (each with its snapshots)
and ``tasks``; ``python -m hazard_sim.tasks.esar.make_dataset generate [--out DIR]`` writes it
(deterministic: the same bytes every time), ``... validate FILE`` checks it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from hazard_sim.paths import data_path
from hazard_sim.tasks.esar.episode_checks import TIERS, VERSION, check_dataset, check_episode, check_file
from hazard_sim.tasks.esar.episode_checks import validate_file as validate_file
from hazard_sim.tasks.esar.terrain import MAPS, Terrain, terrain_for
from hazard_sim.tasks.esar.weather import WEATHERS, allowed_weathers, daylight
from hazard_sim.validation import DatasetError, file_fingerprint

DATA_DIR = data_path("esar", "v1")
FILE_NAME = "esar_v1.json"
SNAPSHOTS, TASKS_PER_SNAPSHOT = 5, 10
START_AGL = 40.0
TIER_EDGES = (0.22, 0.34, 0.46)
MARGIN = 100.0
MAX_SLOPE = 38.0

EVENTS = (   # (map, story, seed)
    ("alpine", "lost_hiker", 11), ("alpine", "fall", 12), ("alpine", "group", 13),
    ("desert", "lost_hiker", 21), ("desert", "seek_water", 22), ("desert", "shelter", 23),
    ("snowy_peak", "fall", 31), ("snowy_peak", "shelter", 32), ("snowy_peak", "lost_hiker", 33),
    ("coastal", "fall", 41), ("coastal", "seek_water", 42), ("coastal", "group", 43),
)


# ============================================================== placement rules
def _ok(t: Terrain, xy, slope: np.ndarray) -> bool:
    w, d = t.size
    if not (MARGIN <= xy[0] <= w - MARGIN and MARGIN <= xy[1] <= d - MARGIN):
        return False
    i, j = int(round(xy[1] / t.spacing)), int(round(xy[0] / t.spacing))
    if t.water[i, j] or slope[i, j] > MAX_SLOPE:
        return False
    if t.sea_level is not None and t.height_at(xy) < t.sea_level + 1.0:
        return False
    if len(t.trees):
        dd, k = cKDTree(t.trees[:, :2]).query(xy)
        if dd < t.trees[k, 2] + 1.5:
            return False
    return True


_OK_CELLS: dict[str, cKDTree] = {}


def _ok_cells(t: Terrain, slope) -> tuple[cKDTree, np.ndarray]:
    if t.name not in _OK_CELLS:
        ij = np.argwhere(np.ones(t.shape, bool))
        xy = ij[:, ::-1] * t.spacing
        ok = np.array([_ok(t, q, slope) for q in xy])
        _OK_CELLS[t.name] = (cKDTree(xy[ok]), xy[ok])
    return _OK_CELLS[t.name]


def _nudge(t, xy, slope, rng, tries=12):
    """The nearest acceptable place to ``xy``: a few random tries close by, else the centre of
    the nearest acceptable grid sample."""
    if _ok(t, xy, slope):
        return np.asarray(xy, float)
    for k in range(tries):
        r = 3.0 + 3.0 * k
        a = rng.uniform(0, 2 * math.pi)
        q = np.asarray(xy) + r * np.array([math.cos(a), math.sin(a)])
        if _ok(t, q, slope):
            return q
    tree, pts = _ok_cells(t, slope)
    if len(pts) == 0:
        raise DatasetError(f"no acceptable place for victims or clues on {t.name}")
    return pts[tree.query(np.asarray(xy, float))[1]].astype(float)


def _lkp(t: Terrain, rng, slope) -> np.ndarray:
    pts = t.trail[(t.trail[:, 0] > 300) & (t.trail[:, 1] > 300) & (t.trail[:, 0] < t.size[0] - 300)
                  & (t.trail[:, 1] < t.size[1] - 300)] if len(t.trail) else np.zeros((0, 2))
    if len(pts) == 0:
        pts = np.array([[t.size[0] / 2, t.size[1] / 2]])
    return _nudge(t, pts[rng.integers(len(pts))] + rng.normal(0, 10, 2), slope, rng)


def _revisits(route: np.ndarray, radius: float) -> bool:
    """Whether the last point of ``route`` lies within ``radius`` of an earlier point other
    than its predecessor (the walk came back to where it had been)."""
    if len(route) < 3:
        return False
    return bool(np.min(np.linalg.norm(route[:-2] - route[-1], axis=1)) < radius)


def _downhill(t, start, rng, length, slope, step=24.0):
    """A lost person's walk: steepest descent with noise, ``step`` m at a time, never back to
    where they have been (within ``step / 2``): at a local minimum (a hollow) they walk on
    along the least uphill way out, as people follow a drainage, instead of oscillating."""
    p = np.asarray(start, float)
    route = [p.copy()]
    heading = rng.uniform(0, 2 * math.pi)
    for _ in range(int(length / step)):
        best, bh = None, math.inf
        past = np.array(route)
        for da in np.linspace(-math.pi, math.pi, 12, endpoint=False):
            a = heading + da
            q = p + step * np.array([math.cos(a), math.sin(a)])
            if not _ok(t, q, slope) or np.min(np.linalg.norm(past - q, axis=1)) < step / 2:
                continue
            hq = t.height_at(q) + 6.0 * abs(da) + rng.normal(0, 2.0)     # prefer going on, downhill
            if hq < bh:
                best, bh = (q, a), hq
        if best is None:
            break
        p, heading = best
        route.append(p.copy())
    return np.array(route)


def _towards(t, start, goal, rng, slope, step=24.0, stop=0.0):
    """A walk towards ``goal`` with some noise, ``step`` m at a time, never back to where the
    walker has been (within ``step / 2``)."""
    p = np.asarray(start, float)
    route = [p.copy()]
    for _ in range(400):
        d = np.asarray(goal) - p
        n = np.linalg.norm(d)
        if n <= max(stop, step):
            break
        q = p + step * d / n + rng.normal(0, 4.0, 2)
        if not _ok(t, q, slope):          # a route may cross steep ground; items are placed by _nudge
            try:
                q = _nudge(t, q, slope, rng, 10)
            except DatasetError:
                pass
        if np.min(np.linalg.norm(np.array(route) - q, axis=1)) < step / 2:
            q = p + step * d / n          # the nudge led back: go straight on instead
        p = q
        route.append(p.copy())
    return np.array(route)


def _route(t: Terrain, story: str, rng, slope) -> tuple[np.ndarray, np.ndarray]:
    """(LKP, route of the (main) victim from the LKP)."""
    lkp = _lkp(t, rng, slope)
    if story in ("lost_hiker", "group"):
        return lkp, _downhill(t, lkp, rng, rng.uniform(500, 1100), slope)
    if story == "fall":
        near = t.trail[np.linalg.norm(t.trail - lkp, axis=1) < 600] if len(t.trail) else lkp[None]
        ij = np.clip(np.round(near[:, ::-1] / t.spacing).astype(int), 0, np.array(t.shape) - 1)
        edge = near[int(np.argmax(slope[ij[:, 0], ij[:, 1]]))]
        gy, gx = np.gradient(t.heights.astype(float), t.spacing)
        i, j = int(round(edge[1] / t.spacing)), int(round(edge[0] / t.spacing))
        down = -np.array([gx[i, j], gy[i, j]])
        down = down / (np.linalg.norm(down) + 1e-9)
        walk = _towards(t, lkp, edge, rng, slope)
        for _ in range(10):       # where the fall ends: off the path walked (a place not yet visited)
            land = _nudge(t, edge + down * rng.uniform(30, 200), slope, rng)
            if np.min(np.linalg.norm(walk - land, axis=1)) >= 12.0:
                return lkp, np.vstack([walk, [land]])
        return lkp, walk
    if story == "seek_water":
        if t.water.any():
            w = np.argwhere(t.water)[:, ::-1] * t.spacing
            goal = w[int(np.argmin(np.linalg.norm(w - lkp, axis=1)))]
        else:
            h = t.heights
            goal = np.array(np.unravel_index(np.argmin(h), h.shape))[::-1] * t.spacing
            goal = goal + (np.array(t.size) / 2 - goal) * 0.2
        return lkp, _towards(t, lkp, goal, rng, slope, stop=40.0)
    if story == "shelter":
        obs = np.concatenate([t.rocks, t.trees]) if len(t.rocks) + len(t.trees) else np.zeros((0, 4))
        far = obs[np.linalg.norm(obs[:, :2] - lkp, axis=1) > 300] if len(obs) else obs
        goal = far[int(np.argmin(np.linalg.norm(far[:, :2] - lkp, axis=1)))][:2] if len(far) else lkp + 400
        return lkp, _towards(t, lkp, goal, rng, slope, stop=4.0)
    raise DatasetError(f"unknown story {story!r}")


def _along(route: np.ndarray, frac: float) -> np.ndarray:
    seg = np.linalg.norm(np.diff(route, axis=0), axis=1)
    if len(seg) == 0 or seg.sum() == 0:
        return route[0].copy()
    s = frac * seg.sum()
    c = np.concatenate([[0], np.cumsum(seg)])
    k = min(int(np.searchsorted(c, s, side="right")) - 1, len(seg) - 1)
    u = (s - c[k]) / max(seg[k], 1e-9)
    return route[k] + u * (route[k + 1] - route[k])


def _snapshots(t: Terrain, story: str, lkp, route, rng, slope) -> list[dict]:
    """The event's timeline: snapshot k at ``(k + 1) / 5`` of the route. One timeline: an item
    dropped is still there, same class and place, in every later snapshot, and new ones are
    added as the person walks on; the victim moves on along the route; a second victim (group
    story) stays where they are."""
    fracs = [(k + 1) / SNAPSHOTS for k in range(SNAPSHOTS)]
    victim_xy = [_nudge(t, _along(route, f), slope, rng) for f in fracs]
    postures = ["lying" if story == "fall" else "sheltering" if story == "shelter" else
                ("sitting" if rng.random() < 0.5 else "lying") for _ in fracs]
    second = _nudge(t, lkp + rng.normal(0, 30, 2), slope, rng) if story == "group" else None
    items = []          # (first snapshot it is seen in, clue)

    def put(name, xy, first, spread=3.0):
        items.append((first, {"class": name,
                              "position": _xyz(t, _nudge(t, np.asarray(xy) + rng.normal(0, spread, 2), slope, rng)),
                              "yaw": round(float(rng.uniform(-math.pi, math.pi)), 4)}))

    def seen_from(f):   # the first snapshot whose stage has passed route fraction f
        return next(k for k, fk in enumerate(fracs) if fk >= f - 1e-9)

    put("helmet" if story == "fall" else "trekking_pole", route[min(1, len(route) - 1)], 0)
    put("water_bottle", _along(route, 0.05), 0, 6.0)
    for f, name in ((0.15, "jacket"), (0.35, "backpack"), (0.55, "rope"), (0.75, "sleeping_bag")):
        put(name, _along(route, f), seen_from(f), 5.0)
    camp = _along(route, 0.3)       # the night's camp, seen from snapshot 2 on
    put("tent", camp + 8, 2, 2.0)
    put("campfire", camp + 14, 2, 2.0)
    put("signal_flare" if rng.random() < 0.5 else "flashlight", victim_xy[3] + rng.normal(0, 12, 2), 3, 1.0)
    put("sos_sign", victim_xy[4] + rng.normal(0, 15, 2), 4, 1.0)
    items.sort(key=lambda it: it[0])          # (stable) a later snapshot's list extends the earlier one's
    out = []
    for k, f in enumerate(fracs):
        victims = [{"posture": postures[k], "position": _xyz(t, victim_xy[k])}]
        if second is not None:
            victims.append({"posture": "sitting", "position": _xyz(t, second)})
        out.append({"snapshot": k, "stage": round(f, 2), "victims": victims,
                    "clues": [dict(c) for first, c in items if first <= k]})
    return out


def _xyz(t, xy) -> list:
    return [round(float(xy[0]), 2), round(float(xy[1]), 2), round(float(t.height_at(xy)), 2)]


# ============================================================== tasks and tiers
def difficulty(severity: float, light: float, dist: float, side: float, n_clues_near: int) -> float:
    return 0.35 * severity + 0.25 * (1 - light) + 0.25 * min(1.0, dist / (0.6 * side)) \
        + 0.15 * (1 - min(1.0, n_clues_near / 3.0))


def tier_of(d: float) -> str:
    for name, edge in zip(TIERS, TIER_EDGES):
        if d < edge:
            return name
    return TIERS[-1]


def _task(t: Terrain, md, snap: dict, lkp, rng, slope) -> dict:
    night = rng.random() < 0.2
    hour = float(rng.uniform(20.5, 28.5) % 24) if night else float(rng.uniform(6.0, 19.5))
    wname = str(rng.choice(allowed_weathers(t.biome)))
    w = WEATHERS[wname]
    light = daylight(hour, md.lat0) * w.light
    side = md.size_m
    for _ in range(200):
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(150, 0.6 * side)
        q = lkp + r * np.array([math.cos(a), math.sin(a)])
        if _ok(t, q, slope):
            break
    else:
        q = np.asarray(lkp, float)
    z = t.surface_at(q, 2.0) + START_AGL
    vp = np.array([v["position"][:2] for v in snap["victims"]])
    dist = float(np.mean(np.linalg.norm(vp - q, axis=1)))
    cp = np.array([c["position"][:2] for c in snap["clues"]])
    near = int(sum(np.min(np.linalg.norm(vp[:, None] - cp[None], axis=2), axis=0) < 300))
    d = difficulty(w.severity, light, dist, side, near)
    lo, hi = w.wind
    return {"time_of_day": round(hour, 2), "weather": wname,
            "wind_speed": round(float(rng.uniform(lo, hi)), 2),
            "wind_direction": round(float(rng.uniform(-math.pi, math.pi)), 3),
            "start": [round(float(q[0]), 2), round(float(q[1]), 2), round(float(z), 2),
                      round(float(rng.uniform(-math.pi, math.pi)), 3)],
            "start_distance": round(dist, 1), "clues_near_victims": near, "light": round(light, 3),
            "difficulty": round(d, 4), "tier": tier_of(d)}


def generate() -> dict:
    """The whole dataset (deterministic)."""
    events, tasks = [], []
    for e_idx, (mname, story, seed) in enumerate(EVENTS):
        t = terrain_for(mname)
        md = MAPS[mname]
        slope = t.slope_deg()
        rng = np.random.default_rng([seed, 2024])
        lkp, route = _route(t, story, rng, slope)
        snaps = _snapshots(t, story, lkp, route, rng, slope)
        events.append({"event": e_idx, "map": mname, "story": story, "lkp": _xyz(t, lkp),
                       "route": [[round(float(x), 1), round(float(y), 1)] for x, y in route], "snapshots": snaps})
        for s in snaps:
            for k in range(TASKS_PER_SNAPSHOT):
                tk = _task(t, md, s, lkp, rng, slope)
                tk.update({"event": e_idx, "snapshot": s["snapshot"], "map": mname, "_k": k})
                tasks.append(tk)
    # round-robin over events and snapshots: the first N tasks are a spread sample of all of them
    tasks.sort(key=lambda tk: (tk["_k"], tk["snapshot"], tk["event"]))
    for i, tk in enumerate(tasks):
        del tk["_k"]
        tk["index"] = i
    return {"version": VERSION, "maps": {m: {"size_m": d.size_m, "lat0": d.lat0, "lon0": d.lon0,
                                             "time_limit_s": d.time_limit_s} for m, d in MAPS.items()},
            "events": events, "tasks": tasks}


def write(out_dir=DATA_DIR) -> Path:
    data = generate()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, sort_keys=True)
    p = out / FILE_NAME
    p.write_text(text + "\n")
    (out / "SHA256SUMS").write_text(f"{hashlib.sha256((text + chr(10)).encode()).hexdigest()}  {FILE_NAME}\n")
    return p


# ============================================================== loading and validation
def validate_dataset(data, where="dataset") -> dict:
    """The dataset checked (:mod:`.episode_checks`); DatasetError naming the event / task and field."""
    return check_dataset(data, where)


def validate_episode(ep, where="episode") -> dict:
    """An episode record (a task with its snapshot's victims and clues) ready for the env."""
    return check_episode(ep, where)


def terrain_biome(mname: str) -> str:
    if mname.startswith("dem:"):
        return "alpine"
    if mname not in MAPS:
        raise DatasetError(f"unknown ESAR map {mname!r}; known: {', '.join(MAPS)} or dem:<GeoTIFF path>")
    return MAPS[mname].biome


_LOADED: dict[str, tuple] = {}


def dataset_path(root=None) -> Path:
    return Path(root) / FILE_NAME if root else DATA_DIR / FILE_NAME


def load_dataset(root=None) -> dict:
    p = dataset_path(root)
    try:
        st = p.stat()
    except OSError:
        raise FileNotFoundError(f"ESAR dataset {str(p)!r} not found; make it with "
                                f"python -m hazard_sim.tasks.esar.make_dataset generate") from None
    key, stamp = str(p), (st.st_mtime_ns, st.st_size)
    if key not in _LOADED or _LOADED[key][0] != stamp:
        _LOADED[key] = (stamp, check_file(p))
    return _LOADED[key][1]


def fingerprint(root=None) -> str:
    """sha256 of the dataset file (sweeps store it: results of another file are not reused)."""
    return file_fingerprint(dataset_path(root))


def episode_from(data: dict, index: int) -> dict:
    tasks = data["tasks"]
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(tasks):
        raise IndexError(f"ESAR task {index!r} out of range 0..{len(tasks) - 1}")
    tk = tasks[index]
    ev = data["events"][tk["event"]]
    snap = ev["snapshots"][tk["snapshot"]]
    ep = dict(tk)
    ep.update({"scene": ev["map"], "map": ev["map"], "story": ev["story"], "lkp": ev["lkp"],
               "victims": snap["victims"], "clues": snap["clues"]})
    return ep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hazard_sim.tasks.esar.make_dataset")
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write the dataset (deterministic)")
    g.add_argument("--out", default=str(DATA_DIR))
    v = sub.add_parser("validate", help="check dataset files")
    v.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "generate":
        p = write(a.out)
        data = json.loads(p.read_text())
        counts = {k: sum(t["tier"] == k for t in data["tasks"]) for k in TIERS}
        print(f"wrote {p}: {len(data['events'])} events, {sum(len(e['snapshots']) for e in data['events'])} "
              f"snapshots, {len(data['tasks'])} tasks; tiers {counts}")
        return 0
    bad = 0
    for f in a.files:
        try:
            print(validate_file(f))
        except DatasetError as e:
            print(f"error: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())


def event_tasks(held: bool) -> list[int]:
    """The task indices (the one shipped split) of the held-out events (``event % 5 == 4``) or of
    the others, in order: the detector's frames and the namer's crops trained on never show a
    held-out event."""
    from hazard_sim.core.spec import get_spec
    ds = get_spec("esar").dataset
    return [i for i in range(ds.count("test")) if (ds.load("test", i)["event"] % 5 == 4) == held]
