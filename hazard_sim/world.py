"""The simulated world: a scene, its movable objects, a physics engine and a hazard.

The world steps frame by frame (``FRAME_DT`` seconds each).  Objects that wind
or water can move are MuJoCo free bodies; in the fire task nothing pushes
objects, so no physics engine is built.  Agents and tasks act on the world only
through :meth:`World.take` (an object leaves the scene: picked up) and
:meth:`World.place` (it comes back, or is settled in a container).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.catalog import Category, category
from hazard_sim.geometry import Box
from hazard_sim.scenes import Scene, build_scene

FRAME_DT = 0.1          # seconds of simulated time per frame
OBJECT_ID_BASE = 1000   # object instance ids start here; scene parts use 1..999
FLAME_ID = 900          # instance id shared by all floor flames


@dataclass
class SimObject:
    id: int
    category: Category
    box: Box
    is_target: bool
    support: str = "floor"
    body: int = -1                 # index in the physics world, -1 if none
    location: str = "scene"        # scene | held | rescued
    damaged: bool = False          # sticky: lost value through the hazard
    state: str = "normal"          # hazard-specific state shown to agents (fire: normal/burning/burnt)
    meta: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.category.name

    @property
    def position(self) -> np.ndarray:
        return self.box.center


class World:
    def __init__(self, episode: dict, rng: np.random.Generator, physics: bool):
        self.episode = episode
        self.task = episode["task"]
        self.scene: Scene = build_scene(episode["scene"])
        self.rng = rng
        self.frame = 0
        targets = set(episode["target_categories"])
        self.objects: list[SimObject] = []
        for o in episode["objects"]:
            cat = category(self.task, o["category"])
            box = Box.from_yaw(o["position"], np.array(cat.size) / 2, o["yaw"])
            self.objects.append(SimObject(o["id"], cat, box, cat.name in targets, o.get("support", "floor")))
        self.by_id = {o.id: o for o in self.objects}
        self.part_ids = {p.name: k + 1 for k, p in enumerate(self.scene.parts)}
        self.physics = None
        if physics:
            from hazard_sim.physics.rigid import BodySpec, RigidWorld
            static = [p.box for p in self.scene.solids()]
            specs = [BodySpec(str(o.id), o.box, o.category.mass) for o in self.objects]
            for k, o in enumerate(self.objects):
                o.body = k
            self.physics = RigidWorld(static, specs)
            self.physics.settle(0.5)
            self.sync_from_physics()
        self.hazard = None   # set by the task

    # ------------------------------------------------------------------ queries
    def get(self, object_id: int) -> SimObject:
        try:
            return self.by_id[int(object_id)]
        except (KeyError, ValueError, TypeError):
            raise KeyError(f"unknown object id {object_id!r}") from None

    def in_scene(self) -> list[SimObject]:
        return [o for o in self.objects if o.location == "scene"]

    def targets(self) -> list[SimObject]:
        return [o for o in self.objects if o.is_target]

    def labels(self) -> dict[int, str]:
        """Instance id -> label, for segmentation images."""
        lab = {pid: self.scene.parts[pid - 1].kind if self.scene.parts[pid - 1].kind != "furniture"
               else self.scene.parts[pid - 1].name for pid in self.part_ids.values()}
        lab.update({o.id: o.name for o in self.objects})
        lab[FLAME_ID] = "fire"
        return lab

    # ------------------------------------------------------------------ changes
    def sync_from_physics(self) -> None:
        if self.physics is None:
            return
        pos, rots = self.physics.positions(), self.physics.rotations()
        for o in self.objects:
            if o.location == "scene":
                o.box = Box(pos[o.body].copy(), o.box.half, rots[o.body].copy())

    def take(self, obj: SimObject, where: str) -> None:
        """An object leaves the scene (``held`` by the agent, or ``rescued``)."""
        obj.location = where
        if self.physics is not None and obj.body >= 0:
            self.physics.disable(obj.body)

    def place(self, obj: SimObject, position, settled: bool) -> None:
        """Put a held object back: on the floor / a surface, or settled in a container."""
        obj.box = Box(np.asarray(position, float), obj.box.half, obj.box.rot)
        if settled:
            obj.location = "rescued"
            return
        obj.location = "scene"
        if self.physics is not None and obj.body >= 0:
            self.physics.enable(obj.body, position)

    def step_frame(self) -> None:
        self.frame += 1
        if self.hazard is not None:
            self.hazard.step_frame(self)
        self.sync_from_physics()
