"""``EmbodiedEnv``: one Gymnasium env for every benchmark, composed from its spec.

``EmbodiedEnv(benchmark_id, split="test", episode=0)`` (or
``gymnasium.make(spec.gym_id)``) builds the world, processes,
body, sensors, task and measures the spec names.  ``step`` runs one task action
(a compressed action may take many frames) and returns the observation after it;
every frame observed during the action is listed in ``info["observations"]``.

The frame-by-frame API (used by controllers, the ROS sim node and teleop):
:meth:`advance` (time), :meth:`drive` (a velocity command for one frame),
:meth:`move_body` (one collision-checked step), :meth:`observe` (render the
sensors), :meth:`cast_rays` (LiDAR), :meth:`is_free` / :meth:`line_blocked`
(collision queries) and :meth:`update_done`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hazard_sim.core.embodiment import Motion, Twist, check_command
from hazard_sim.core.frames import EFFECT_ID_BASE, FRAME_DT
from hazard_sim.core.outcome import ActionResult, Status
from hazard_sim.core.sensors import SENSORS
from hazard_sim.core.spec import get_spec
from hazard_sim.navigation.grid import GridSpec, goal_cells_near, inflate, rasterize_boxes
from hazard_sim.navigation.observed_map import ObservedMap
from hazard_sim.render.backend import backend_name, make_renderer
from hazard_sim.render.camera import CameraSpec
from hazard_sim.render.effects import RenderEffects


def processes_act_on_body_flag(processes_act_on_body: bool, hazards_affect_agent: bool | None) -> bool:
    """The ``processes_act_on_body`` setting, taking the deprecated ``hazards_affect_agent``
    keyword too (with a DeprecationWarning; either one set turns it on)."""
    if hazards_affect_agent is None:
        return bool(processes_act_on_body)
    import warnings
    warnings.warn("hazards_affect_agent is deprecated: use processes_act_on_body", DeprecationWarning, stacklevel=3)
    return bool(processes_act_on_body or hazards_affect_agent)


class NotResetError(RuntimeError):
    """An env method called before the first ``reset()`` (there is no world yet)."""


def after_reset(method):
    """Every public method that needs the world raises :class:`NotResetError` before the
    first ``reset()`` (the same error ``step`` gives), never an AttributeError."""
    @functools.wraps(method)
    def guarded(self, *args, **kw):
        if self.world is None:
            raise NotResetError(f"call reset() before {method.__name__}()")
        return method(self, *args, **kw)
    return guarded


@dataclass
class DriveResult:
    advanced: bool          # a frame was simulated (False at the frame limit / episode over)
    moved: bool             # the body changed place this frame through the command
    bumped: bool            # the commanded step was blocked (a wall, furniture, a process's obstacle)


class EmbodiedEnv(gym.Env):
    """Parameters: ``benchmark`` (a registered id, an alias, or a spec; required),
    ``split``, ``episode`` index or an ``episode_spec`` dict, ``seed``, ``camera`` (a
    CameraSpec), ``processes_act_on_body`` (world processes slow, block and push the body;
    ``hazards_affect_agent``, its older name, is deprecated),
    ``render_every`` (frames between observations while a controller moves),
    ``dataset_root``, ``body_spec`` (the embodiment's spec), ``frame_limit``,
    ``render_backend`` ("auto" | "raster" | "raycast")."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, benchmark=None, split: str = "test", episode: int = 0, *,
                 episode_spec: dict | None = None, seed: int = 0, camera: CameraSpec = CameraSpec(),
                 processes_act_on_body: bool = False, render_every: int = 10, dataset_root=None,
                 body_spec=None, frame_limit: int | None = None, render_backend: str = "auto",
                 hazards_affect_agent: bool | None = None, privileged: bool = False):
        if benchmark is None:
            from hazard_sim.core.spec import benchmark_ids
            raise ValueError(f"EmbodiedEnv needs a benchmark: one of {', '.join(benchmark_ids())}")
        self.spec_b = get_spec(benchmark)
        self.benchmark = self.spec_b.id
        if split not in self.spec_b.dataset.splits:
            raise ValueError(f"unknown split {split!r}: expected one of {', '.join(self.spec_b.dataset.splits)}")
        self.split, self.episode_index = split, episode
        self._spec_override = episode_spec
        self.dataset_root = None if dataset_root is None else Path(dataset_root)
        self.camera = camera
        self.body_spec = body_spec if body_spec is not None else self.spec_b.body_spec
        self.processes_act_on_body = processes_act_on_body_flag(processes_act_on_body, hazards_affect_agent)
        self.render_every = max(1, int(render_every))
        self.frame_limit = frame_limit or self.spec_b.max_frames
        #: an agent with ground-truth access (``Agent.privileged``: a benchmark's public baseline that
        #: chooses among every object, seen or not): the task's info carries the truth it may use and
        #: the actions accept objects not yet observed
        self.privileged = bool(privileged)
        self._seed = seed
        if self.spec_b.camera_clip is not None:
            camera = replace(camera, near=float(self.spec_b.camera_clip[0]), far=float(self.spec_b.camera_clip[1]))
            self.camera = camera
        self.task = self.spec_b.task()
        self.sensors = [SENSORS.get(n)() for n in self.spec_b.sensors]
        h, w = camera.height, camera.width
        obs_space = {}
        for s in self.sensors:
            obs_space.update(s.space(h, w))
        obs_space.update({
            "camera_K": spaces.Box(-np.inf, np.inf, (3, 3), np.float64),
            "camera_pose": spaces.Box(-np.inf, np.inf, (4, 4), np.float64),
            "agent_pose": spaces.Box(-np.inf, np.inf, (3,), np.float64),
        })
        obs_space.update(self.task.observation_space(self))
        obs_space["frame"] = spaces.Box(0, np.inf, (), np.int64)
        self.observation_space = spaces.Dict(obs_space)
        self.action_space = self.task.action_space()
        self.renderer = make_renderer(camera, render_backend)
        self.render_backend = backend_name(self.renderer)
        self.world = None

    # ================================================================ set-up
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        if seed is not None:
            self._seed = seed
        if "episode" in options:
            self.episode_index, self._spec_override = int(options["episode"]), None
        if "episode_spec" in options:
            self._spec_override = options["episode_spec"]
        ds = self.spec_b.dataset
        if self._spec_override is not None:
            ep = ds.validate(self._spec_override, "episode_spec", self.spec_b)
        else:
            ep = ds.load(self.split, self.episode_index, self.dataset_root)
        self.spec_dict = ep
        rng = np.random.default_rng([self._seed, ep["index"]])
        self.rng = rng
        self.world = world = self.spec_b.build_world(ep, rng)
        world.processes = [make(world, ep, rng) for make in self.spec_b.processes]
        self.agent = self.spec_b.embodiment(ep, self.body_spec)
        scene = world.scene
        self.grid = grid = GridSpec(scene.bounds, self.spec_b.map_resolution)
        self.truth_solid = rasterize_boxes(grid, [p.box for p in scene.solids()])
        self.truth_blocked = inflate(self.truth_solid, self.agent.radius * 0.8, grid.resolution)
        self.walls = [p.box for p in scene.parts if p.kind in ("wall", "building")]
        self.memory_map = ObservedMap(grid, self.agent.radius)
        self.observed_ids: set[int] = set()
        self.history: list[dict] = []
        self.done = False
        self.frames_seen: list[dict] = []
        self._dyn_key = None
        self.task.reset(self)
        self.measures = [m() for m in self.spec_b.measures]
        for m in self.measures:
            m.reset(self)
        self._labels = world.labels()
        self._setup_renderer()
        obs = self.observe()
        info = self._info(ActionResult("reset", Status.SUCCEEDED, 0))
        info["task"] = self.task.describe(self)
        return obs, info

    @property
    def body(self):
        if self.world is None:
            raise NotResetError("call reset() before body")
        return self.agent

    @after_reset
    def task_description(self) -> dict:
        return self.task.describe(self)

    # ================================================================ rendering
    def _setup_renderer(self) -> None:
        w = self.world
        parts = w.scene.parts
        self.renderer.set_static([p.box for p in parts], np.array([w.part_ids[p.name] for p in parts], np.int32),
                                 np.array([p.color for p in parts], np.uint8))
        self.renderer.set_static_meshes(list(w.scene.meshes))
        self._dyn_key = None
        self._dyn_meshes = bool(w.scene.meshes)

    def _entity_colors(self, ents) -> np.ndarray:
        cols = []
        for e in ents:
            c = np.array(e.category.color, float)
            for p in self.world.processes:
                c = p.tint(e, c)
            cols.append(c)
        return np.array(cols, np.uint8).reshape(-1, 3)

    @after_reset
    def sync_render_scene(self) -> None:
        """Bring the renderer's dynamic geometry (entities, process geometry, colours) up to
        date with the world (``observe`` and ``cast_rays`` do it themselves)."""
        w = self.world
        ents = w.in_scene()
        key = (tuple(e.id for e in ents), tuple(p.geometry_key() for p in w.processes),
               tuple(np.round(np.concatenate([e.box.center for e in ents]), 4)) if ents and w.physics else ())
        colors = self._entity_colors(ents)
        if key != self._dyn_key:
            boxed = [k for k, e in enumerate(ents) if e.mesh is None]
            boxes = [ents[k].box for k in boxed]
            ids, cols = [np.array([ents[k].id for k in boxed], np.int32)], [colors[boxed]]
            meshes = [e.mesh.transformed(e.box.rot, e.box.center, e.id) for e in ents if e.mesh is not None]
            for p in w.processes:
                b, i, c = p.render_geometry()
                boxes += list(b)
                ids.append(np.asarray(i, np.int32))
                cols.append(np.asarray(c, np.uint8).reshape(-1, 3))
                meshes += list(p.render_meshes())
            self.renderer.set_dynamic(boxes, np.concatenate(ids), np.concatenate(cols))
            if meshes or self._dyn_meshes:
                self.renderer.set_dynamic_meshes(meshes)
                self._dyn_meshes = bool(meshes)
            self._dyn_key = key
        elif ents:
            boxed = [e for e in ents if e.mesh is None]
            if boxed:
                self.renderer.set_colors(np.array([e.id for e in boxed], np.int32),
                                         colors[[k for k, e in enumerate(ents) if e.mesh is None]])

    def _surface(self):
        for p in self.world.processes:
            s = p.render_surface()
            if s is not None:
                return s
        return None

    def _effects(self) -> RenderEffects | None:
        """The render effects the processes impose (the first that sets any), with every
        process's post-effects appended; None (plain rendering) when there are none."""
        fx, post = None, []
        for p in self.world.processes:
            fx = fx or p.render_effects()
            post += list(p.post_effects())
        if post:
            fx = replace(fx or RenderEffects(), post=tuple((fx.post if fx else ())) + tuple(post))
        return fx

    @after_reset
    def observe(self, fields: bool = True, update_map: bool = True) -> dict:
        """Render the body's camera and read every sensor; updates what the body has seen
        (observed objects, the walking map unless ``update_map=False``). ``fields=False``
        leaves out field images (the costliest post-processing): their entries are None."""
        pos, rot = self.agent.camera_pose()
        frame = self.render_view(pos, rot)
        obs = {}
        for s in self.sensors:
            obs.update(s.read_env(self, frame, fields))
        movable = frame.seg >= EFFECT_ID_BASE        # entities and process geometry, not the scene
        if update_map:
            self.memory_map.integrate(frame.points, movable)
        self.observed_ids |= set(np.unique(frame.seg[movable]).tolist())
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rot, pos
        obs.update({"camera_K": self.camera.intrinsics(), "camera_pose": pose,
                    "agent_pose": np.array([*self.agent.xy, self.agent.yaw])})
        obs.update(self.task.observation(self))
        obs["frame"] = np.int64(self.world.frame)
        self.frames_seen.append(obs)
        self.last_obs = obs
        return obs

    @after_reset
    def render_view(self, position, rot):
        """Render the current world from camera ``position`` (3,) with world-from-optical
        ``rot`` (3x3), with the processes' surface and render effects (a ``Frame``)."""
        pos = np.asarray(position, float)
        for p in self.world.processes:
            p.view_from(pos)
        self.sync_render_scene()
        return self.renderer.render(pos, rot, self._surface(), effects=self._effects())

    @after_reset
    def cast_rays(self, rays: np.ndarray) -> np.ndarray:
        """Distances along rays (N, 6: origin, unit direction) to the first surface of the
        current scene (inf where nothing is hit)."""
        self.sync_render_scene()
        return self.renderer.cast_rays(rays)

    @after_reset
    def render(self):
        return self.last_obs["rgb"]

    def close(self):
        close = getattr(self.renderer, "close", None)
        if close is not None:
            close()

    # ================================================================ time
    @after_reset
    def advance(self, n: int = 1) -> int:
        """Advance up to ``n`` frames (fewer at the frame limit); return the frames done.
        World processes push the body where ``processes_act_on_body`` is set."""
        done = 0
        for _ in range(n):
            if self.world.frame >= self.frame_limit:
                break
            self.world.body_discs = [(np.asarray(self.agent.xy, float)[:2], float(self.agent.radius))]
            self.world.step_frame()
            if self.processes_act_on_body:
                push = sum((p.body_push(self.agent.xy) for p in self.world.processes), np.zeros(2))
                if np.any(push):
                    self.move_body(self.agent.xy + push)
            done += 1
        return done

    @property
    def out_of_time(self) -> bool:
        if self.world is None:
            raise NotResetError("call reset() before out_of_time")
        return self.world.frame >= self.frame_limit

    @after_reset
    def update_done(self) -> bool:
        """Mark the episode over when time is up or the task is accomplished; returns ``done``."""
        if not self.done:
            self.done = bool(self.out_of_time or self.task.terminated(self, None))
        return self.done

    @property
    def hazards_affect_agent(self) -> bool:
        """Deprecated name of :attr:`processes_act_on_body`."""
        import warnings
        warnings.warn("hazards_affect_agent is deprecated: use processes_act_on_body", DeprecationWarning, stacklevel=2)
        return self.processes_act_on_body

    # ================================================================ motion
    @after_reset
    def is_free(self, xy) -> bool:
        """Whether the body may be at ``xy`` (inside the scene, off obstacles and, where
        processes act on the body, not where they block it). A 3-D point (x, y, z) of a body
        that flies is checked by the scene's ``free_space(point, radius)`` where the scene
        has one (terrain, trees), else on the 2-D walking map."""
        if not self.world.scene.contains(xy):
            return False
        free_space = getattr(self.world.scene, "free_space", None) if len(xy) > 2 else None
        if free_space is not None:
            if not free_space(np.asarray(xy, float), self.agent.radius):
                return False
        elif self.truth_blocked[self.grid.to_cell(xy[:2])]:
            return False
        return not any(p.body_blocked(xy) for p in self.world.processes
                       if self.processes_act_on_body or p.solid)

    @after_reset
    def move_body(self, xy) -> bool:
        """One collision-checked step of the body towards ``xy`` (sliding along obstacles);
        a bump is reported to the walking map (a bumper / touch sensor)."""
        m = self.agent.step_to(xy, self.is_free)
        if m.bumped:
            self._bump_sense(m.bump_xy)
        return m.moved

    def _bump_sense(self, xy) -> None:
        near = goal_cells_near(self.grid, ~self.truth_solid, xy, self.agent.radius + 0.15)
        self.memory_map.bump(xy, near)

    @after_reset
    def speed_factor(self) -> float:
        """How much the world slows the body here (1 unless processes act on the body)."""
        if not self.processes_act_on_body:
            return 1.0
        f = 1.0
        for p in self.world.processes:
            f *= p.body_speed_factor(self.agent.xy)
        return f

    @after_reset
    def drive(self, twist: Twist) -> DriveResult:
        """One frame under a velocity command (clipped to the body's limits, slowed by the
        world where it acts on the body): time advances first, then the body moves. A command
        that is not finite or absurd raises ``CommandError`` before anything changes."""
        twist = check_command(twist)
        if self.done or not self.advance(1):
            self.update_done()
            return DriveResult(False, False, False)
        m: Motion = self.agent.apply(twist, FRAME_DT, self.is_free, self.speed_factor())
        if m.bumped and m.bump_xy is not None:
            self._bump_sense(m.bump_xy)
        result = DriveResult(True, m.moved, m.bumped and not m.moved)
        self.task.after_drive(self, result)
        self.update_done()
        return result

    @after_reset
    def line_blocked(self, a, b) -> bool:
        """Whether a wall or building stands between 2-D points ``a`` and ``b``."""
        a, b = np.asarray(a[:2], float), np.asarray(b[:2], float)
        for box in self.walls:
            fp_lo, fp_hi = box.footprint().min(0), box.footprint().max(0)
            d = b - a
            t0, t1 = 0.0, 1.0
            for k in range(2):
                if abs(d[k]) < 1e-12:
                    if a[k] < fp_lo[k] or a[k] > fp_hi[k]:
                        break
                    continue
                ta, tb = (fp_lo[k] - a[k]) / d[k], (fp_hi[k] - a[k]) / d[k]
                t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
            else:
                if t0 <= t1 and t1 > 0.02 and t0 < 0.98:
                    return True
        return False

    # ================================================================ actions
    @after_reset
    def step(self, action):
        if self.done:
            raise RuntimeError("episode is over; call reset()")
        act = self.task.parse(action)
        self.frames_seen = []
        before = self._reward_value()
        start = self.world.frame
        outcome = self.task.execute(self, act)
        if self.world.frame == start and self.task.costs_a_frame(act):
            self.advance(1)          # every action, even a failed one, costs a frame
        result = ActionResult(str(act), outcome.status, self.world.frame - start, outcome.message)
        self.history.append(result.to_dict())
        for m in self.measures:
            m.update(self, result)
        obs = self.observe()
        terminated = self.task.terminated(self, act)
        truncated = self.out_of_time and not terminated
        self.done = terminated or truncated
        info = self._info(result)
        return obs, self._reward_value() - before, terminated, truncated, info

    def _reward_value(self) -> float:
        for m in self.measures:
            r = m.reward(self)
            if r is not None:
                return r
        return 0.0

    # ================================================================ results
    @after_reset
    def metrics(self) -> dict:
        m = {}
        for meas in self.measures:
            m.update(meas.metrics(self))
        m.update(self.task.metrics(self))
        m.update({"split": self.split, "episode": self.spec_dict["index"], "scene": self.spec_dict["scene"],
                  "seed": self._seed, "frames": self.world.frame, "render_backend": self.render_backend})
        return m

    def _info(self, result: ActionResult) -> dict:
        info = {"action_result": result.to_dict(), "labels": dict(self._labels),
                "bounds": list(self.world.scene.bounds),
                "observations": list(self.frames_seen), "frame": self.world.frame}
        info.update(self.task.info(self))
        return info
