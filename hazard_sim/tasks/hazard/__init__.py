"""HAZARD: rescue valuable objects from fire, flood or wind (the paper: "HAZARD Challenge: Embodied
Decision Making in Dynamically Changing Environments").

Registers ``hazard/fire``, ``hazard/flood`` and ``hazard/wind`` (aliases ``fire``,
``flood``, ``wind``): indoor houses or outdoor street regions, HAZARD's catalogue
of objects, one hazard process, the humanoid, RGB-D + segmentation + the hazard
image, the rescue task with its compressed actions, and Value / Step / Damage.
"""
from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path

import numpy as np

from hazard_sim.core.registry import lazy_ref
from hazard_sim.core.spec import BenchmarkSpec, Dataset, register_benchmark
from hazard_sim.embodiment.humanoid import Humanoid, HumanoidSpec
from hazard_sim.geometry import Box
from hazard_sim.tasks.hazard.catalog import category
from hazard_sim.tasks.hazard.dataset import (
    dataset_path,
    load_dataset,
    load_episode,
    read_episode_file,
    validate_episode,
)
from hazard_sim.tasks.hazard.metrics import aggregate
from hazard_sim.tasks.hazard.paper import table_rows
from hazard_sim.tasks.hazard.ros import ROS
from hazard_sim.tasks.hazard.scenes import build_scene
from hazard_sim.tasks.hazard.task import RescueMeasure, RescueTask
from hazard_sim.validation import register_file_kind
from hazard_sim.world import Entity, World

FRAME_LIMITS = {"fire": 1500, "flood": 1500, "wind": 3000}
MAX_ACTIONS = 2000          # actions per episode (a safety net; the frame limit binds first)
PHYSICS = {"fire": False, "flood": True, "wind": True}
CONTAINER = {"fire": "bag", "flood": "bag", "wind": "cart"}
#: the leaderboard's test episodes (public HAZARD code): a default test sweep runs these
LEADERBOARD_TEST_EPISODES = {"fire": 25, "flood": 25, "wind": 20}


def build_world(hazard: str, ep: dict, rng) -> World:
    """The scene of the episode with its objects (targets are the episode's target categories)."""
    scene = build_scene(ep["scene"])
    targets = set(ep["target_categories"])
    ents = []
    for o in ep["objects"]:
        cat = category(hazard, o["category"])
        box = Box.from_yaw(o["position"], np.array(cat.size) / 2, o["yaw"])
        ents.append(Entity(o["id"], cat, box, cat.name in targets, meta={"support": o.get("support", "floor")}))
    return World(scene, ents, rng, physics=PHYSICS[hazard], episode=ep)


def fire_process(world, ep, rng):
    from hazard_sim.tasks.hazard.hazards.fire_hazard import FireHazard
    return FireHazard(world, ep["fire"]["sources"], rng)


def flood_process(world, ep, rng):
    from hazard_sim.core.frames import FRAME_DT
    from hazard_sim.tasks.hazard.hazards.flood_hazard import FloodHazard
    return FloodHazard(world, ep["flood"]["source_wall"], frame_dt=FRAME_DT)


def wind_process(world, ep, rng):
    from hazard_sim.core.frames import FRAME_DT
    from hazard_sim.tasks.hazard.hazards.wind_hazard import WindHazard
    return WindHazard(world, ep["wind"]["speed"], ep["wind"]["direction"], rng, frame_dt=FRAME_DT)


PROCESSES = {"fire": fire_process, "flood": flood_process, "wind": wind_process}


def humanoid(ep: dict, spec: HumanoidSpec) -> Humanoid:
    return Humanoid(ep["agent"]["position"], ep["agent"]["yaw"], spec)


def _validate(hazard: str, ep: dict, where: str, spec=None) -> dict:
    ep = validate_episode(ep, where)
    if ep["task"] != hazard:
        raise ValueError(f"{where} is a {ep['task']} episode, the benchmark is hazard/{hazard}")
    return ep


def _fingerprint(hazard: str, split: str, root=None) -> str:
    """sha256 of the split's episode file (any change of an episode changes it)."""
    path = dataset_path(hazard, split, None if root is None else Path(root))
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.1f}" if isinstance(v, float) else str(v)


def _progress(r: dict) -> str:
    """One episode's HAZARD metrics in a line."""
    return (f"value rate {r['value_rate']:.3f}  step {_fmt(r['step'])}  damage {_fmt(r['damage'])}  "
            f"rescued {r['rescued_count']}/{r['targets']}")


#: the ground-truth track's minimum instance size per task: the shipped six-class detector's
#: half-ceiling point on the task's held-out frames (data/perception/eval_min_size.md;
#: docs/perception.md, "Minimum size"): fire 46 [40, 80], flood 41 [33, 70], wind 22 [20, 26] mask pixels
MIN_PIXELS = {"fire": 46, "flood": 41, "wind": 22}


def hazard_spec(hazard: str) -> BenchmarkSpec:
    return BenchmarkSpec(
        id=f"hazard/{hazard}",
        description=f"HAZARD {hazard}: rescue valuable objects from the {hazard}",
        dataset=Dataset(load=partial(load_episode, hazard), validate=partial(_validate, hazard),
                        count=lambda split, root=None: len(load_dataset(hazard, split, root)),
                        fingerprint=partial(_fingerprint, hazard),
                        sweep={"test": LEADERBOARD_TEST_EPISODES[hazard]}),
        build_world=partial(build_world, hazard),
        processes=(PROCESSES[hazard],),
        embodiment=humanoid,
        body_spec=HumanoidSpec(),
        task=partial(RescueTask, hazard, CONTAINER[hazard], damage_counts=hazard != "wind"),
        measures=(RescueMeasure,),
        max_frames=FRAME_LIMITS[hazard],
        max_steps=MAX_ACTIONS,
        sensors=("rgbd", "field"),
        map_resolution=0.1,
        physics=PHYSICS[hazard],
        agents="hazard",
        aggregate=aggregate,
        table=table_rows,
        progress=_progress,
        min_pixels=MIN_PIXELS[hazard],
        recorder=lazy_ref("hazard_sim.tasks.hazard.viz:EpisodeRecorder"),
        ros=ROS,
        options={"hazard": hazard},
    )


for _h in FRAME_LIMITS:
    register_benchmark(hazard_spec(_h), aliases=(_h,))



def validate_file(path) -> str:
    """``hazard dataset validate`` of a HAZARD episode file: its header, then every episode."""
    doc = read_episode_file(Path(path))
    for i, ep in enumerate(doc["episodes"]):
        validate_episode(ep, f"{path} episode {i}")
    return f"{path}: {len(doc['episodes'])} {doc['task']}/{doc['split']} episodes ok"


# HAZARD's files are the default kind: a file no other benchmark recognises gets HAZARD's messages
register_file_kind("HAZARD", lambda doc, path: False, validate_file, default=True)

from hazard_sim.tasks.hazard import agents as _agents  # noqa: E402,F401  (registers the "hazard" agent group)
