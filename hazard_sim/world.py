"""The simulated world: a scene, its entities, an optional physics engine and the
world processes (what burns, rises, blows, walks, the weather ...) that change it.

The world steps frame by frame (``FRAME_DT`` seconds each).  Entities that a process
can push are MuJoCo free bodies when the benchmark asks for physics.  Tasks act on
entities only through :meth:`World.take` (an entity leaves the scene: picked up) and
:meth:`World.place` (it comes back, or is settled in a container).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hazard_sim.core.frames import FRAME_DT, OBJECT_ID_BASE
from hazard_sim.geometry import Box
from hazard_sim.scenes import Scene

__all__ = ["Entity", "Kind", "World", "FRAME_DT", "OBJECT_ID_BASE"]


@dataclass(frozen=True)
class Kind:
    """What an entity is, as far as the core reads it: a name, a size (m, x y z), a mass (kg) and a
    colour (RGB). A benchmark whose catalogue needs no more uses it as it is; one that does may
    subclass it or bring a class of its own with these fields."""
    name: str
    size: tuple
    mass: float
    color: tuple


@dataclass
class Entity:
    """A movable thing in the world. ``category`` carries its name, size, mass and colour
    (a :class:`Kind`, or whatever its benchmark's catalogue adds to one); ``state`` is what processes show
    agents (e.g. normal / burning / burnt); ``meta`` holds process and task data (e.g. what the
    object rests on)."""
    id: int
    category: object
    box: Box
    is_target: bool = False
    body: int = -1                 # index in the physics world, -1 if none
    location: str = "scene"        # scene | held | rescued
    damaged: bool = False          # sticky: lost value through a process
    state: str = "normal"
    meta: dict = field(default_factory=dict)
    mesh: object = None            # a render Mesh in the entity's own frame; None: drawn as its box

    @property
    def name(self) -> str:
        return self.category.name

    @property
    def position(self) -> np.ndarray:
        return self.box.center


class World:
    def __init__(self, scene: Scene, entities: list[Entity], rng: np.random.Generator, physics: bool,
                 episode: dict | None = None):
        self.episode = episode or {}
        self.scene = scene
        self.rng = rng
        self.frame = 0
        self.objects: list[Entity] = list(entities)
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
        self.processes: list = []   # set by the env from the benchmark spec
        #: (xy, radius) of the bodies the env moves (the robot), set by the env before every frame,
        #: for processes whose entities must not walk through them (walking people)
        self.body_discs: list[tuple[np.ndarray, float]] = []

    # ------------------------------------------------------------------ queries
    def get(self, object_id: int) -> Entity:
        try:
            return self.by_id[int(object_id)]
        except (KeyError, ValueError, TypeError):
            raise KeyError(f"unknown object id {object_id!r}") from None

    def process(self, name: str):
        for p in self.processes:
            if p.name == name:
                return p
        raise KeyError(f"no world process {name!r}; running: {', '.join(p.name for p in self.processes) or 'none'}")

    def in_scene(self) -> list[Entity]:
        return [o for o in self.objects if o.location == "scene"]

    def targets(self) -> list[Entity]:
        return [o for o in self.objects if o.is_target]

    def labels(self) -> dict[int, str]:
        """Instance id -> label, for segmentation images."""
        lab = {pid: self.scene.parts[pid - 1].kind if self.scene.parts[pid - 1].kind != "furniture"
               else self.scene.parts[pid - 1].name for pid in self.part_ids.values()}
        lab.update({o.id: o.name for o in self.objects})
        for p in self.processes:
            lab.update(p.labels())
        return lab

    def markers(self) -> list:
        """Every entity in the scene as a box marker, then what each process shows
        (``WorldProcess.markers``): labelled shapes as plain data (``hazard_sim.core.markers``)."""
        from hazard_sim.core.markers import entity_marker
        out = [entity_marker(o) for o in self.in_scene()]
        for p in self.processes:
            out += list(p.markers())
        return out

    # ------------------------------------------------------------------ changes
    def sync_from_physics(self) -> None:
        if self.physics is None:
            return
        pos, rots = self.physics.positions(), self.physics.rotations()
        for o in self.objects:
            if o.location == "scene":
                o.box = Box(pos[o.body].copy(), o.box.half, rots[o.body].copy())

    def take(self, obj: Entity, where: str) -> None:
        """An entity leaves the scene (``held`` by the agent, or ``rescued``)."""
        obj.location = where
        if self.physics is not None and obj.body >= 0:
            self.physics.disable(obj.body)

    def place(self, obj: Entity, position, settled: bool) -> None:
        """Put a held entity back: on the floor / a surface, or settled in a container."""
        obj.box = Box(np.asarray(position, float), obj.box.half, obj.box.rot)
        if settled:
            obj.location = "rescued"
            return
        obj.location = "scene"
        if self.physics is not None and obj.body >= 0:
            self.physics.enable(obj.body, position)

    def step_frame(self) -> None:
        self.frame += 1
        for p in self.processes:
            p.step_frame(self)
        self.sync_from_physics()
