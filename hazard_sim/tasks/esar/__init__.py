"""ESARBench: a UAV searches kilometre-scale terrain for victims and clues (the paper: "ESARBench:
A Benchmark for Agentic UAV Embodied Search and Rescue"),
under weather and time of day.

Registers ``esar`` (all 600 tasks of the dataset, every map) and one id per map
(``esar/alpine``, ``esar/desert``, ``esar/snowy_peak``, ``esar/coastal``: that map's tasks,
re-indexed from 0). Pieces: terrain scene (``terrain``, ``look``), victims and clues
(``catalog``, placed by ``scenario``), processes daylight / weather / wind / terrain view
(``weather``), the multirotor (``hazard_sim.embodiment.multirotor``), sensors (``sensors``),
the task and SR / TSR / CDS / RS (``task``), baselines (``agents``), the paper's table
(``paper``), pictures (``viz``) and an AirSim-style Python API (``api``). See docs/esar.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from hazard_sim.core.registry import lazy_ref
from hazard_sim.core.spec import BenchmarkSpec, Dataset, register_benchmark
from hazard_sim.embodiment.multirotor import Multirotor, MultirotorSpec
from hazard_sim.geometry import Box
from hazard_sim.scenes.base import Scene
from hazard_sim.tasks.esar import episode_checks
from hazard_sim.tasks.esar import sensors as _sensors  # noqa: F401  (registers the ESAR sensors)
from hazard_sim.tasks.esar.catalog import CLUES, VICTIM_POSTURES
from hazard_sim.tasks.esar.episode_checks import (  # the altitude ceiling above the highest ground
    CEILING_AGL,
    DatasetError,
)
from hazard_sim.tasks.esar.look import water_mesh
from hazard_sim.tasks.esar.ros import ROS
from hazard_sim.tasks.esar.scenario import episode_from, fingerprint, load_dataset, validate_episode
from hazard_sim.tasks.esar.task import EsarMeasure, EsarScoring, EsarTask
from hazard_sim.tasks.esar.terrain import MAPS, Terrain, terrain_for
from hazard_sim.tasks.esar.weather import Daylight, TerrainView, WeatherProcess, WindProcess, weather
from hazard_sim.validation import register_file_kind
from hazard_sim.world import Entity, Kind, World

VICTIM_ID_BASE, CLUE_ID_BASE = 1000, 2000
SENSOR_SET = ("rgbd", "esar_cameras", "esar_lidar", "esar_imu", "esar_gps", "esar_altimeter")
MAX_ACTIONS = 3000


class TerrainScene(Scene):
    """A scene whose ground is a terrain: no box parts; ``free_space`` answers the env's 3-D
    collision queries."""

    def __init__(self, terrain: Terrain, meshes):
        super().__init__(terrain.name, "outdoor", terrain.bounds, [], meshes=meshes)
        self.terrain = terrain

    def free_space(self, p, radius: float) -> bool:
        return self.terrain.free_space(p, radius)


@dataclass(frozen=True)
class Category(Kind):
    label: str
    emissive: bool = False


def _entity(eid: int, thing, pos, yaw: float, label: str) -> Entity:
    half = np.array(thing.size, float) / 2
    center = np.array([pos[0], pos[1], pos[2] + half[2] - 0.05])
    cat = Category(label, thing.size, thing.mass, thing.color, label, thing.emissive)
    return Entity(eid, cat, Box.from_yaw(center, half, yaw), is_target=thing.kind == "victim")


def build_world(ep: dict, rng) -> World:
    t = terrain_for(ep["map"])
    weather(ep["weather"], t.biome)              # an unknown weather, or one the biome has not, fails here
    sea = water_mesh(t)
    scene = TerrainScene(t, [sea] if sea is not None else [])   # terrain, trees, rocks: drawn by TerrainView
    ents = []
    for k, v in enumerate(ep["victims"]):
        ents.append(_entity(VICTIM_ID_BASE + k, VICTIM_POSTURES[v["posture"]], v["position"],
                            float(v.get("yaw", 0.0)), "victim"))
    for k, c in enumerate(ep["clues"]):
        ents.append(_entity(CLUE_ID_BASE + k, CLUES[c["class"]], c["position"], float(c.get("yaw", 0.0)),
                            f"clue:{c['class']}"))
    world = World(scene, ents, rng, physics=False, episode=ep)
    world.emissive_ids = tuple(e.id for e in ents if e.category.emissive)
    return world


def _seed(ep) -> int:
    return int(ep.get("index", 0)) * 7919 + 17


def daylight_process(world, ep, rng):
    return Daylight(float(ep["time_of_day"]), float(world.scene.terrain.georef.lat0))


def wind_process(world, ep, rng):
    return WindProcess(float(ep.get("wind_speed", 0.0)), float(ep.get("wind_direction", 0.0)), _seed(ep))


def terrain_process(world, ep, rng):
    return TerrainView(world.scene.terrain, weather(ep["weather"], world.scene.terrain.biome).look)


class _Processes:
    """The processes in order; the weather process shares the daylight process."""

    @staticmethod
    def make():
        shared: dict = {}

        def day(world, ep, rng):
            shared["day"] = daylight_process(world, ep, rng)
            return shared["day"]

        def wx(world, ep, rng):
            return WeatherProcess(weather(ep["weather"], world.scene.terrain.biome), shared["day"], _seed(ep))
        return (day, wx, wind_process, terrain_process)


def multirotor(ep: dict, spec: MultirotorSpec) -> Multirotor:
    t = terrain_for(ep["map"])
    x, y, z, yaw = ep["start"]
    return Multirotor((x, y, z), yaw, spec, ceiling=float(t.heights.max()) + CEILING_AGL)


# ------------------------------------------------------------------ datasets
def _map_indices(data, map_name):
    return [k for k, tk in enumerate(data["tasks"])
            if map_name is None or data["events"][tk["event"]]["map"] == map_name]


def _load(map_name, split, index, root=None):
    data = load_dataset(root)
    idx = _map_indices(data, map_name)
    if not isinstance(index, (int, np.integer)) or not 0 <= index < len(idx):
        raise IndexError(f"ESAR{'/' + map_name if map_name else ''} task {index!r} out of range 0..{len(idx) - 1}")
    ep = episode_from(data, idx[index])
    ep["index"] = int(idx[index])
    return validate_episode(ep, f"ESAR task {index}")


def _count(map_name, split, root=None):
    return len(_map_indices(load_dataset(root), map_name))


def _fingerprint(split, root=None):
    return fingerprint(root)


def _validate(map_name, ep, where, spec=None):
    ep = validate_episode(ep, where)
    if map_name is not None and ep["map"] != map_name:
        raise DatasetError(f"{where}: map is {ep['map']!r}, the benchmark is esar/{map_name}")
    return ep


def esar_spec(map_name: str | None = None, scoring: EsarScoring | None = None) -> BenchmarkSpec:
    from hazard_sim.tasks.esar.paper import aggregate, progress, table_rows
    from hazard_sim.tasks.esar.viz import EsarRecorder
    t_max = max(m.time_limit_s for m in MAPS.values()) if map_name is None else MAPS[map_name].time_limit_s
    return BenchmarkSpec(
        id="esar" if map_name is None else f"esar/{map_name}",
        description="ESARBench: a UAV searches km-scale terrain for victims and clues under weather and time of day",
        dataset=Dataset(load=partial(_load, map_name), validate=partial(_validate, map_name),
                        count=partial(_count, map_name), splits=("test",), fingerprint=_fingerprint),
        build_world=build_world,
        processes=_Processes.make(),
        embodiment=multirotor,
        body_spec=MultirotorSpec(),
        task=EsarTask,
        measures=(partial(EsarMeasure, scoring),),
        max_frames=int(round(t_max / 0.1)) + 1,
        max_steps=MAX_ACTIONS,
        sensors=SENSOR_SET,
        map_resolution=12.0,
        physics=False,
        agents="esar",
        aggregate=aggregate,
        table=table_rows,
        progress=progress,
        camera_clip=(0.5, 8000.0),
        # the ground truth: the six-class detector's half-ceiling point on 3,072 held-out ESAR frames,
        # 13 [10, 16] mask pixels (data/perception/eval_min_size_esar.md); a detector's instances: 16,
        # reporting a person needs recognition (Johnson's criteria; docs/perception.md, "Minimum size")
        min_pixels=13,
        detector_min_pixels=16,
        namer_crops=lazy_ref("hazard_sim.tasks.esar.namer_crops:crops"),
        json_omit=("wall_time_s",),
        recorder=EsarRecorder,
        ros=ROS,
        options={"map": map_name},
    )


register_benchmark(esar_spec())
register_file_kind("ESAR", episode_checks.recognise, episode_checks.validate_file)
for _m in MAPS:
    register_benchmark(esar_spec(_m))

from hazard_sim.tasks.esar import agents as _agents  # noqa: E402,F401  (registers the "esar" agent group)
