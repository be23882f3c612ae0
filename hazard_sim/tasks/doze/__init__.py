"""DOZE: zero-shot object navigation among static and walking people (the paper: Ma et al., "DOZE:
A Dataset for Open-Vocabulary Zero-Shot Object Navigation in Dynamic Environments").

Registers ``doze/level1`` (static people near the goal), ``doze/level2`` (people on
fixed paths) and ``doze/level3`` (people walking to random points): ten furnished
houses (:mod:`.scenes`, objects from :mod:`.library`), the people process
(:mod:`.people`), the LoCoBot, RGB-D + segmentation, the object-navigation task and
its measures (:mod:`.task`), the dataset (:mod:`.dataset`), agents (:mod:`.agents`,
group ``doze``) and the paper's tables (:mod:`.paper`).
"""
from __future__ import annotations

from functools import partial

from hazard_sim.core.registry import lazy_ref
from hazard_sim.core.spec import BenchmarkSpec, Dataset, register_benchmark
from hazard_sim.embodiment.locobot import FRAMES_PER_ACTION, LoCoBotSpec, locobot_from_episode
from hazard_sim.tasks.doze import dataset as ds
from hazard_sim.tasks.doze import episode_checks
from hazard_sim.tasks.doze.ros import ROS
from hazard_sim.tasks.doze.task import ObjectNavMeasure, ObjectNavTask
from hazard_sim.validation import register_file_kind
from hazard_sim.world import World

MAX_STEPS = 500


class DozeWorld(World):
    """A world over a DOZE house: furniture, objects and whiteboards are static scene
    geometry; labels give category names (``sofa``, ``mug``, ``whiteboard``, ``person``)."""

    def __init__(self, house, rng, episode):
        super().__init__(house.scene, [], rng, physics=False, episode=episode)
        self.house = house

    def labels(self) -> dict[int, str]:
        lab = dict(self.house.labels)
        for p in self.processes:
            lab.update(p.labels())
        return lab


def build_world(ep: dict, rng) -> DozeWorld:
    from hazard_sim.tasks.doze.scenes import build_house
    return DozeWorld(build_house(ep["scene"]), rng, ep)


def people_process(world, ep: dict, rng):
    from hazard_sim.tasks.doze.people import PeopleProcess
    from hazard_sim.tasks.doze.scenes import SCENES, navigable_area
    house = world.house
    goal = house.item(ep["goal_ids"][0]).position[:2]
    return PeopleProcess(house.scene, ep["level"], rng, people=ep.get("people"), goal_xy=goal,
                         navigable_m2=navigable_area(ep["scene"]), route_seed=SCENES.index(ep["scene"]),
                         avoid_xy=ep["initial_position"][:2])


def _progress(r: dict) -> str:
    return f"{'success' if r['success'] else 'fail'} spl {r['spl']:.3f} collisions {r['collisions']}/{r['steps']}"


#: the ground-truth track's minimum instance size: the DOZE detector's half-ceiling point on DOZE's
#: held-out frames, 72 [55, 80] mask pixels, one for the three levels (the same houses and objects;
#: their own points, 83 / 62 / 79, lie within one another's intervals): data/perception/doze/eval_min_size.md
MIN_PIXELS = 72


def doze_spec(level: int) -> BenchmarkSpec:
    from hazard_sim.tasks.doze.paper import aggregate, table
    return BenchmarkSpec(
        id=f"doze/level{level}",
        description={1: "DOZE level 1: find the goal object among static people",
                     2: "DOZE level 2: find the goal object among people walking fixed paths",
                     3: "DOZE level 3: find the goal object among people walking to random points"}[level],
        dataset=Dataset(load=partial(ds.load, level), validate=ds.validate, count=partial(ds.count, level),
                        splits=ds.SPLITS, fingerprint=partial(ds.fingerprint, level)),
        build_world=build_world,
        processes=(people_process,),
        embodiment=locobot_from_episode,
        body_spec=LoCoBotSpec(),
        task=ObjectNavTask,
        measures=(ObjectNavMeasure,),
        max_frames=MAX_STEPS * FRAMES_PER_ACTION + 1,
        max_steps=MAX_STEPS,
        sensors=("rgbd",),
        map_resolution=0.1,
        physics=False,
        agents="doze",
        aggregate=aggregate,
        table=table,
        progress=_progress,
        min_pixels=MIN_PIXELS,
        recorder=lazy_ref("hazard_sim.tasks.doze.viz:DozeRecorder"),
        namer_crops=partial(lazy_ref("hazard_sim.tasks.doze.namer_crops:crops"), f"doze/level{level}"),
        ros=ROS,
        options={"level": level},
    )


for _level in ds.LEVELS:
    register_benchmark(doze_spec(_level))
register_file_kind("DOZE", episode_checks.recognise, episode_checks.validate_file)

from hazard_sim.tasks.doze import agents as _agents  # noqa: E402,F401  (registers the "doze" agent group)
from hazard_sim.tasks.doze import detector_classes as _detector_classes  # noqa: E402,F401  (the "doze" class set)
