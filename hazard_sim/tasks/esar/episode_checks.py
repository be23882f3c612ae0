"""What a valid ESAR dataset file and episode record are (:func:`check_dataset`,
:func:`check_episode`, :func:`check_file`).

Errors are :class:`hazard_sim.validation.DatasetError` naming the file, the event / snapshot /
task and the field; a structure error (a list where an object belongs, a missing key, a string
for a number) is reported the same way, never raised as KeyError / TypeError. Valid means:

* the file: a JSON object (plain or gzip) with ``version`` esar-v1, 1..:data:`MAX_EVENTS`
  ``events`` and 1..:data:`MAX_TASKS` ``tasks``, each at its place (``event`` / ``index`` /
  ``snapshot`` equal to its position);
* an event: a known map, a known ``story``, an ``lkp`` (last known position) and 1..100
  snapshots, each with 1..:data:`MAX_VICTIMS` victims and 0..:data:`MAX_CLUES` clues;
* every victim, clue and the LKP inside the map, on the ground: its z within
  :data:`GROUND_TOLERANCE` of the terrain's height there (not 5 km underground, not in the air);
  postures and clue classes known, yaws finite in [-2 pi, 2 pi];
* a task (or an episode): a weather the map's biome has, ``time_of_day`` in [0, 24) h,
  ``wind_speed`` in [0, :data:`MAX_WIND`] m/s, ``wind_direction`` in [-2 pi, 2 pi] rad, and a
  ``start`` (x, y, z, yaw) inside the map, clear of the terrain, water, trees and rocks by the
  UAV's radius, and at most the altitude ceiling (the map's highest ground +
  :data:`CEILING_AGL`); its ``event`` and ``snapshot`` exist and its ``map`` is the event's.
"""
from __future__ import annotations

import math
from pathlib import Path

from hazard_sim.validation import DatasetError, Fields, read_json_file

VERSION = "esar-v1"
STORIES = ("lost_hiker", "fall", "seek_water", "shelter", "group")
TIERS = ("Simple", "Medium", "Hard", "Extreme")
CEILING_AGL = 400.0          # m above the map's highest ground: the UAV's altitude ceiling
GROUND_TOLERANCE = 5.0       # m a victim, clue or LKP may be off the terrain's height (rounding, slopes)
MAX_WIND = 60.0              # m/s: beyond any storm
MAX_EVENTS = 10_000
MAX_TASKS = 100_000
MAX_SNAPSHOTS = 100
MAX_VICTIMS = 100
MAX_CLUES = 1000
MAX_ROUTE = 100_000
UAV_RADIUS = 0.5             # m: MultirotorSpec.radius
TWO_PI = 2 * math.pi


def _terrain(f: Fields, mname: str):
    from hazard_sim.tasks.esar.terrain import MAPS, TerrainError, terrain_for
    if not (mname in MAPS or mname.startswith("dem:")):
        raise f.fail(f"unknown map {mname!r}; known: {', '.join(MAPS)} or dem:<GeoTIFF path>")
    try:
        return terrain_for(mname)
    except (TerrainError, OSError, ValueError) as e:
        raise f.fail(f"map {mname!r} cannot be loaded ({e})") from None


def _on_ground(f: Fields, t, value, field: str) -> list[float]:
    """A point [x, y, z] inside the map and on its ground."""
    p = f.vector(value, field, 3)
    if not t.contains(p):
        raise f.fail(f"{field} {p} lies outside the {t.name} map (0..{t.size[0]:g} x 0..{t.size[1]:g} m)")
    ground = float(t.height_at(p[:2]))
    if abs(p[2] - ground) > GROUND_TOLERANCE:
        raise f.fail(f"{field} {p} is {p[2] - ground:+.1f} m off the ground (at {ground:.1f} m); "
                     f"at most {GROUND_TOLERANCE:g} m")
    return p


def _yaw(f: Fields, rec: dict, field: str) -> None:
    if "yaw" in rec:
        f.number(rec["yaw"], field, -TWO_PI, TWO_PI)


def check_snapshot(s, where: str, t) -> dict:
    """Victims and clues of a snapshot (or an episode) on terrain ``t``."""
    from hazard_sim.tasks.esar.catalog import CLUES, VICTIM_POSTURES
    f = Fields(where)
    f.record(s, "a snapshot")
    for k, v in enumerate(f.items(f.get(s, "victims"), "victims", 1, MAX_VICTIMS)):
        f.record(v, f"victims[{k}]")
        f.string(f.get(v, "posture", f"victims[{k}].posture"), f"victims[{k}].posture", list(VICTIM_POSTURES))
        _on_ground(f, t, f.get(v, "position", f"victims[{k}].position"), f"victims[{k}].position")
        _yaw(f, v, f"victims[{k}].yaw")
    for k, c in enumerate(f.items(f.get(s, "clues"), "clues", 0, MAX_CLUES)):
        f.record(c, f"clues[{k}]")
        f.string(f.get(c, "class", f"clues[{k}].class"), f"clues[{k}].class", list(CLUES))
        _on_ground(f, t, f.get(c, "position", f"clues[{k}].position"), f"clues[{k}].position")
        _yaw(f, c, f"clues[{k}].yaw")
    return s


def check_conditions(tk: dict, where: str, t) -> None:
    """Weather, time, wind and the UAV's start of a task (or an episode) on terrain ``t``."""
    from hazard_sim.tasks.esar.weather import weather
    f = Fields(where)
    try:
        weather(f.string(f.get(tk, "weather"), "weather", max_len=100), t.biome)
    except ValueError as e:
        raise f.fail(f"weather: {e}") from None
    tod = f.number(f.get(tk, "time_of_day"), "time_of_day", 0.0, 24.0)
    if tod >= 24.0:
        raise f.fail(f"time_of_day must be in [0, 24) h, got {tod}")
    f.number(tk.get("wind_speed", 0.0), "wind_speed", 0.0, MAX_WIND)
    f.number(tk.get("wind_direction", 0.0), "wind_direction", -TWO_PI, TWO_PI)
    x, y, z, yaw = f.vector(f.get(tk, "start"), "start (x, y, z, yaw)", 4)
    f.number(yaw, "start yaw", -TWO_PI, TWO_PI)
    if not t.contains((x, y)):
        raise f.fail(f"start ({x:g}, {y:g}) lies outside the {t.name} map (0..{t.size[0]:g} x 0..{t.size[1]:g} m)")
    ceiling = float(t.heights.max()) + CEILING_AGL
    if z > ceiling:
        raise f.fail(f"start altitude {z:g} m is above the {t.name} map's ceiling {ceiling:.0f} m")
    if not t.free_space((x, y, z), UAV_RADIUS):
        raise f.fail(f"start ({x:g}, {y:g}, {z:g}) is not clear of the ground, water, trees and rocks "
                     f"(surface at {t.surface_at((x, y), UAV_RADIUS):.1f} m)")
    if "tier" in tk:
        f.string(tk["tier"], "tier", TIERS)
    for key in ("difficulty", "light", "start_distance"):
        if key in tk:
            f.number(tk[key], key)


def check_episode(ep, where: str = "episode") -> dict:
    """An episode record (a task with its snapshot's victims and clues), checked and with its
    defaults filled in, ready for the env."""
    f = Fields(where)
    ep = dict(f.record(ep, "an episode"))
    t = _terrain(f, f.string(f.get(ep, "map"), "map", max_len=4096))
    check_conditions(ep, where, t)
    check_snapshot(ep, where, t)
    if ep.get("lkp") is not None:
        _on_ground(f, t, ep["lkp"], "lkp")
    if ep.get("story") is not None:
        f.string(ep["story"], "story", STORIES)
    ep.setdefault("index", 0)
    f.integer(ep["index"], "index")
    for key in ("event", "snapshot"):
        ep.setdefault(key, -1)
        f.integer(ep[key], key, -1)
    ep.setdefault("scene", ep["map"])
    ep.setdefault("wind_speed", 0.0)
    ep.setdefault("wind_direction", 0.0)
    ep.setdefault("tier", "Simple")
    return ep


def check_dataset(data, where: str = "dataset") -> dict:
    """The whole dataset (events with their snapshots, tasks); returns it."""
    from hazard_sim.tasks.esar.terrain import MAPS
    f = Fields(where)
    if isinstance(data, list):
        raise f.fail(f"a top-level list of {len(data)} item(s); an ESAR dataset is an object "
                     "{version, events, tasks}")
    f.record(data, "the dataset")
    if data.get("version") != VERSION:
        raise f.fail(f"version {data.get('version')!r}, expected {VERSION!r}")
    events = f.items(f.get(data, "events"), "events", 1, MAX_EVENTS)
    tasks = f.items(f.get(data, "tasks"), "tasks", 1, MAX_TASKS)
    if "maps" in data:
        f.record(data["maps"], "maps")
    terrains = []
    for e, ev in enumerate(events):
        fe = Fields(f"{where} event {e}")
        fe.record(ev, "an event")
        if fe.integer(fe.get(ev, "event"), "event") != e:
            raise fe.fail(f"event is {ev['event']}, expected {e} (its place in the file)")
        t = _terrain(fe, fe.string(fe.get(ev, "map"), "map", list(MAPS)))
        fe.string(fe.get(ev, "story"), "story", STORIES)
        _on_ground(fe, t, fe.get(ev, "lkp"), "lkp")
        for k, p in enumerate(fe.items(ev.get("route", []), "route", 0, MAX_ROUTE)):
            q = fe.vector(p, f"route[{k}]", 2)
            if not t.contains(q):
                raise fe.fail(f"route[{k}] {q} lies outside the {t.name} map")
        for s, snap in enumerate(fe.items(fe.get(ev, "snapshots"), "snapshots", 1, MAX_SNAPSHOTS)):
            fs = Fields(f"{where} event {e} snapshot {s}")
            fs.record(snap, "a snapshot")
            if fs.integer(fs.get(snap, "snapshot"), "snapshot") != s:
                raise fs.fail(f"snapshot is {snap['snapshot']}, expected {s} (its place in the event)")
            if "stage" in snap:
                fs.number(snap["stage"], "stage", 0.0, 1.0)
            check_snapshot(snap, fs.where, t)
        terrains.append(t)
    for k, tk in enumerate(tasks):
        ft = Fields(f"{where} task {k}")
        ft.record(tk, "a task")
        if ft.integer(ft.get(tk, "index"), "index") != k:
            raise ft.fail(f"index is {tk['index']}, expected {k} (its place in the file)")
        e = ft.integer(ft.get(tk, "event"), "event", 0, len(events) - 1)
        ft.integer(ft.get(tk, "snapshot"), "snapshot", 0, len(events[e]["snapshots"]) - 1)
        if "map" in tk and tk["map"] != events[e]["map"]:
            raise ft.fail(f"map {tk['map']!r} is not its event's map {events[e]['map']!r}")
        check_conditions(tk, ft.where, terrains[e])
    return data


def check_file(path) -> dict:
    path = Path(path)
    return check_dataset(read_json_file(path), str(path))


def recognise(doc, path: Path) -> bool:
    return isinstance(doc, dict) and (str(doc.get("version", "")).startswith("esar") or "events" in doc)


def validate_file(path) -> str:
    data = check_file(path)
    return f"{path}: ESAR dataset ok: {len(data['events'])} events, {len(data['tasks'])} tasks"


__all__ = ["DatasetError", "check_dataset", "check_episode", "check_file", "CEILING_AGL", "VERSION", "TIERS"]
