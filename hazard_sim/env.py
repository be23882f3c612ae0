"""``HazardEnv``: the HAZARD rescue task as a Gymnasium environment.

One call to :meth:`HazardEnv.step` runs one HAZARD action (``walk_to`` may take
up to 100 frames, ``explore`` 12 turns, ...), advancing the world frame by frame,
and returns the observation after it.  Every frame rendered during the action
is listed in ``info["observations"]`` so an agent's memory can use them all.
"""
from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from hazard_sim.actions import ACTIONS, Action, ActionResult, parse_action
from hazard_sim.dataset import load_episode, validate_episode
from hazard_sim.embodiment.humanoid import Humanoid, HumanoidSpec
from hazard_sim.geometry import wrap_angle
from hazard_sim.metrics import Rescue, episode_metrics
from hazard_sim.navigation.grid import (GridSpec, goal_cells_near, inflate, plan_path, rasterize_boxes, release_start,
                                        simplify_path)
from hazard_sim.navigation.observed_map import ObservedMap
from hazard_sim.render.camera import CameraSpec
from hazard_sim.render.backend import backend_name, make_renderer
from hazard_sim.world import FLAME_ID, FRAME_DT, World

FRAME_LIMITS = {"fire": 1500, "flood": 1500, "wind": 3000}
WALK_TO_MAX_FRAMES = 100
ARRIVE_GAP = 0.5          # walk_to arrives when the body is within 0.5 m of the object
EXPLORE_TURNS, EXPLORE_DEG = 12, 30.0
CART_REACH = 1.0          # gap between body and cart for a drop into the cart
BURNING_TINT = np.array([255, 120, 20])
BURNT_COLOR = np.array([25, 20, 20])


def make_hazard(world: World, rng: np.random.Generator):
    ep = world.episode
    if world.task == "fire":
        from hazard_sim.hazards.fire_hazard import FireHazard
        return FireHazard(world, ep["fire"]["sources"], rng)
    if world.task == "flood":
        from hazard_sim.hazards.flood_hazard import FloodHazard
        return FloodHazard(world, ep["flood"]["source_wall"], frame_dt=FRAME_DT)
    from hazard_sim.hazards.wind_hazard import WindHazard
    return WindHazard(world, ep["wind"]["speed"], ep["wind"]["direction"], rng, frame_dt=FRAME_DT)


class HazardEnv(gym.Env):
    """Rescue valuable objects from fire, flood or wind.

    Parameters: ``task`` (fire | flood | wind), ``split`` (train | test), ``episode``
    index or an ``episode_spec`` dict, ``camera`` (a CameraSpec), ``hazards_affect_agent``
    (HAZARD's harder setting), ``render_every`` (frames between observations while
    walking), ``dataset_root`` (another dataset directory), ``render_backend`` ("auto":
    software-OpenGL rasterizer if it runs here, else the Open3D ray caster; both give the
    same images up to triangle edges, so results are reproducible per backend).
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, task: str = "fire", split: str = "test", episode: int = 0, *,
                 episode_spec: dict | None = None, seed: int = 0, camera: CameraSpec = CameraSpec(),
                 hazards_affect_agent: bool = False, render_every: int = 10, dataset_root=None,
                 humanoid: HumanoidSpec = HumanoidSpec(), frame_limit: int | None = None,
                 render_backend: str = "auto"):
        if task not in FRAME_LIMITS:
            raise ValueError(f"unknown task {task!r}: expected one of fire, flood, wind")
        self.task, self.split, self.episode_index = task, split, episode
        self._spec_override = episode_spec
        self.dataset_root = dataset_root
        self.camera = camera
        self.humanoid_spec = humanoid
        self.hazards_affect_agent = hazards_affect_agent
        self.render_every = max(1, int(render_every))
        self.frame_limit = frame_limit or FRAME_LIMITS[task]
        self._seed = seed
        h, w = camera.height, camera.width
        self.observation_space = spaces.Dict({
            "rgb": spaces.Box(0, 255, (h, w, 3), np.uint8),
            "depth": spaces.Box(0, np.inf, (h, w), np.float32),
            "seg": spaces.Box(0, np.iinfo(np.int32).max, (h, w), np.int32),
            "hazard": spaces.Box(-np.inf, np.inf, (h, w), np.float32),
            "camera_K": spaces.Box(-np.inf, np.inf, (3, 3), np.float64),
            "camera_pose": spaces.Box(-np.inf, np.inf, (4, 4), np.float64),
            "agent_pose": spaces.Box(-np.inf, np.inf, (3,), np.float64),
            "held": spaces.Box(-1, np.iinfo(np.int32).max, (), np.int64),
            "frame": spaces.Box(0, np.inf, (), np.int64),
        })
        self.action_space = spaces.Dict({
            "type": spaces.Discrete(len(ACTIONS)),
            "object": spaces.Discrete(1 << 16),
            "amount": spaces.Box(-360.0, 360.0, (1,), np.float32),
        })
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
        if self._spec_override is not None:
            ep = validate_episode(self._spec_override, "episode_spec")
            if ep["task"] != self.task:
                raise ValueError(f"episode_spec is a {ep['task']} episode, env task is {self.task}")
        else:
            ep = load_episode(self.task, self.split, self.episode_index, self.dataset_root)
        self.spec_dict = ep
        rng = np.random.default_rng([self._seed, ep["index"]])
        self.world = world = World(ep, rng, physics=self.task in ("flood", "wind"))
        world.hazard = make_hazard(world, rng)
        self.rng = rng
        a = ep["agent"]
        self.agent = Humanoid(a["position"], a["yaw"], self.humanoid_spec)
        grid = GridSpec(world.scene.bounds, 0.1)
        self.grid = grid
        solid = rasterize_boxes(grid, [p.box for p in world.scene.solids()])
        self.truth_solid = solid
        self.truth_blocked = inflate(solid, self.humanoid_spec.radius * 0.8, grid.resolution)
        self.walls = [p.box for p in world.scene.parts if p.kind in ("wall", "building")]
        self.memory_map = ObservedMap(grid, self.humanoid_spec.radius)
        self.observed_ids: set[int] = set()
        self.rescued: list[Rescue] = []
        self.history: list[dict] = []
        self.done = False
        self._pending: list[dict] = []
        self._scene_static_set = False
        self._dyn_key = None
        self._labels = world.labels()
        self._setup_renderer()
        obs = self._observe()
        info = self._info(ActionResult("reset", True, 0))
        info["task"] = self.task_description()
        return obs, info

    def task_description(self) -> dict:
        """What the agent is told: hazard, targets with value and attributes, containers."""
        from hazard_sim.catalog import category
        cats = [category(self.task, c) for c in self.spec_dict["target_categories"]]
        carts = {pid: name for name, pid in self.world.part_ids.items() if name.startswith("cart")}
        return {
            "hazard": self.task,
            "goal": "rescue the target objects into the bag" if self.task != "wind"
            else "rescue the target objects into a shopping cart",
            "frame_limit": self.frame_limit,
            "targets": [{"category": c.name, "value": c.value, "fireproof": c.fireproof,
                         "waterproof": c.waterproof, "wind_resistance": c.wind_resistance} for c in cats],
            "containers": carts,
        }

    # ================================================================ rendering
    def _setup_renderer(self) -> None:
        w = self.world
        parts = w.scene.parts
        self.renderer.set_static([p.box for p in parts], np.array([w.part_ids[p.name] for p in parts], np.int32),
                                 np.array([p.color for p in parts], np.uint8))
        self._dyn_key = None

    def _object_colors(self, objs) -> np.ndarray:
        cols = []
        for o in objs:
            c = np.array(o.category.color, float)
            if o.state == "burning":
                c = 0.4 * c + 0.6 * BURNING_TINT
            elif o.state == "burnt":
                c = BURNT_COLOR
            cols.append(c)
        return np.array(cols, np.uint8).reshape(-1, 3)

    def _refresh_dynamic(self) -> None:
        w = self.world
        objs = w.in_scene()
        fc, fh = w.hazard.flames()
        key = (tuple(o.id for o in objs), len(fc), float(fh[:, 2].sum()) if len(fh) else 0.0,
               tuple(np.round(np.concatenate([o.box.center for o in objs]), 4)) if objs and w.physics else ())
        colors = self._object_colors(objs)
        if key != self._dyn_key:
            from hazard_sim.geometry import Box
            boxes = [o.box for o in objs] + [Box(c, h) for c, h in zip(fc, fh)]
            ids = np.array([o.id for o in objs] + [FLAME_ID] * len(fc), np.int32)
            flame_col = np.tile(np.array([[255, 140, 0]], np.uint8), (len(fc), 1))
            self.renderer.set_dynamic(boxes, ids, np.concatenate([colors, flame_col]) if len(fc) else colors)
            self._dyn_key = key
        elif objs:
            self.renderer.set_colors(np.array([o.id for o in objs], np.int32), colors)

    def _observe(self) -> dict:
        self._refresh_dynamic()
        pos, rot = self.agent.camera_pose()
        frame = self.renderer.render(pos, rot, self.world.hazard.water_surface())
        hazard_img = self.world.hazard.hazard_image(frame, self.world)
        obj_ids = [o.id for o in self.world.objects]
        movable = np.isin(frame.seg, obj_ids) | (frame.seg == FLAME_ID)
        self.memory_map.integrate(frame.points, movable)
        visible = set(np.unique(frame.seg[movable]).tolist())
        self.observed_ids |= visible
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rot, pos
        obs = {"rgb": frame.rgb, "depth": frame.depth, "seg": frame.seg, "hazard": hazard_img,
               "camera_K": self.camera.intrinsics(), "camera_pose": pose,
               "agent_pose": np.array([*self.agent.xy, self.agent.yaw]),
               "held": np.int64(self.agent.held.id if self.agent.held else -1),
               "frame": np.int64(self.world.frame)}
        self._pending.append(obs)
        self.last_obs = obs
        return obs

    def render(self):
        return self.last_obs["rgb"]

    def close(self):
        close = getattr(self.renderer, "close", None)
        if close is not None:
            close()

    # ================================================================ time
    def _advance(self, n: int = 1) -> int:
        """Advance up to ``n`` frames (fewer at the frame limit); return frames done."""
        done = 0
        for _ in range(n):
            if self.world.frame >= self.frame_limit:
                break
            self.world.step_frame()
            if self.hazards_affect_agent:
                push = self.world.hazard.agent_push(self.agent.xy)
                if np.any(push):
                    self._try_move(self.agent.xy + push)
            done += 1
        return done

    @property
    def out_of_time(self) -> bool:
        return self.world.frame >= self.frame_limit

    # ================================================================ motion
    def _free(self, xy) -> bool:
        if not self.world.scene.contains(xy):
            return False
        if self.truth_blocked[self.grid.to_cell(xy)]:
            return False
        return not (self.hazards_affect_agent and self.world.hazard.agent_blocked(xy))

    def _try_move(self, xy) -> bool:
        """Move the body to ``xy``; against an obstacle it slides along it (the free axis
        component of the step) as a body would; a bump is reported to the walking map."""
        xy = np.asarray(xy, float)
        step = xy - self.agent.xy
        for cand in (xy, self.agent.xy + [step[0], 0.0], self.agent.xy + [0.0, step[1]]):
            if np.linalg.norm(cand - self.agent.xy) > 0.3 * np.linalg.norm(step) and self._free(cand):
                self.agent.xy = cand
                self.agent.trace.append(cand.copy())
                if cand is not xy:
                    self._bump_sense(xy)
                return True
        self._bump_sense(xy)
        return False

    def _bump_sense(self, xy) -> None:
        # a bump reveals the solid cells the body touched (a bumper / touch sensor)
        near = goal_cells_near(self.grid, ~self.truth_solid, xy, self.humanoid_spec.radius + 0.15)
        self.memory_map.bump(xy, near)

    def _step_speed(self) -> float:
        f = self.world.hazard.agent_speed_factor(self.agent.xy) if self.hazards_affect_agent else 1.0
        return self.humanoid_spec.walk_per_frame * f

    def _turn_frames(self, delta_rad: float) -> int:
        return int(math.ceil(abs(math.degrees(delta_rad)) / self.humanoid_spec.turn_per_frame_deg - 1e-9))

    def _turn(self, delta_rad: float) -> int:
        frames = self._turn_frames(delta_rad)
        start = self.agent.yaw
        done = 0
        for k in range(frames):
            if not self._advance(1):
                break
            done += 1
            self.agent.yaw = wrap_angle(start + delta_rad * (k + 1) / frames)
        return done

    # ================================================================ helpers
    def _gap(self, obj) -> float:
        r = float(np.hypot(obj.box.half[0], obj.box.half[1]))
        return float(np.linalg.norm(obj.position[:2] - self.agent.xy)) - r - self.humanoid_spec.radius

    def _wall_between(self, xy) -> bool:
        a, b = self.agent.xy, np.asarray(xy[:2], float)
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

    def _lookup(self, object_id):
        """The object or cart part for an id, or a failure reason."""
        w = self.world
        if object_id in w.by_id:
            return w.by_id[object_id], None
        for name, pid in w.part_ids.items():
            if pid == object_id and name.startswith("cart"):
                return w.scene.part(name), None
        return None, f"unknown object id {object_id}"

    # ================================================================ actions
    def step(self, action):
        if self.world is None:
            raise RuntimeError("call reset() before step()")
        if self.done:
            raise RuntimeError("episode is over; call reset()")
        act = parse_action(action)
        self._pending = []
        before = self.value_rate()
        start = self.world.frame
        handler = getattr(self, f"_do_{act.name}")
        success, reason = handler(act)
        if self.world.frame == start and act.name != "stop":
            self._advance(1)          # every action, even a failed one, costs a frame
        result = ActionResult(str(act), success, self.world.frame - start, reason)
        self.history.append(result.to_dict())
        obs = self._observe()
        all_rescued = all(o.location == "rescued" for o in self.world.targets())
        terminated = act.name == "stop" or all_rescued
        truncated = self.out_of_time and not terminated
        self.done = terminated or truncated
        info = self._info(result)
        return obs, self.value_rate() - before, terminated, truncated, info

    def _do_stop(self, act):
        return True, ""

    def _do_turn_by(self, act):
        self._turn(math.radians(act.amount))
        self._observe()
        return True, ""

    def _do_turn_to(self, act):
        target, why = self._lookup(act.object_id)
        if target is None:
            return False, why
        if act.object_id not in self.observed_ids and target.__class__.__name__ == "SimObject":
            return False, f"object {act.object_id} has not been observed yet"
        c = target.box.center[:2] - self.agent.xy
        self._turn(wrap_angle(math.atan2(c[1], c[0]) - self.agent.yaw))
        return True, ""

    def _do_move_by(self, act):
        d = float(act.amount)
        n = int(math.ceil(abs(d) / self.humanoid_spec.walk_per_frame - 1e-9))
        u = np.array([math.cos(self.agent.yaw), math.sin(self.agent.yaw)]) * math.copysign(1, d)
        moved = 0.0
        for k in range(n):
            if not self._advance(1):
                return False, "frame limit reached"
            step = min(self._step_speed(), abs(d) - moved)
            if not self._try_move(self.agent.xy + u * step):
                return False, f"blocked after {moved:.2f} m"
            moved += step
            if (k + 1) % self.render_every == 0:
                self._observe()
        return True, ""

    def _do_explore(self, act):
        for _ in range(EXPLORE_TURNS):
            if self.out_of_time:
                return False, "frame limit reached"
            self._turn(math.radians(EXPLORE_DEG))
            self._observe()
        return True, ""

    def _do_walk_to(self, act):
        target, why = self._lookup(act.object_id)
        if target is None:
            return False, why
        is_obj = target.__class__.__name__ == "SimObject"
        if is_obj:
            if target.location != "scene":
                return False, f"object {target.id} ({target.name}) is {target.location}, not in the scene"
            if target.id not in self.observed_ids:
                return False, f"object {target.id} has not been observed yet"
        path, frames, replan_at = None, 0, 0
        while frames < WALK_TO_MAX_FRAMES:
            goal = target.box.center[:2]
            r = float(np.hypot(*target.box.half[:2]))
            gap = float(np.linalg.norm(goal - self.agent.xy)) - r - self.humanoid_spec.radius
            if gap <= ARRIVE_GAP:
                self._face(goal)
                return True, ""
            if self.out_of_time:
                return False, "frame limit reached"
            if path is None or frames >= replan_at:
                start = self.grid.to_cell(self.agent.xy)
                blocked = release_start(self.memory_map.blocked(), self.memory_map.obstacles(), start,
                                        self.humanoid_spec.radius, self.grid.resolution)
                if self.hazards_affect_agent and hasattr(self.world.hazard, "floor"):
                    burning = self.world.hazard.floor.burning_centres()[:, :2]
                    blocked[self.grid.to_cells(burning)] = True
                # arrive within 0.5 m of the object; where furniture keeps the body
                # farther away (objects on tables, beds), stop as close as free space allows
                for extra in (0.0, 0.5, 1.0):
                    near = r + self.humanoid_spec.radius + ARRIVE_GAP + extra
                    goals = goal_cells_near(self.grid, blocked, goal, min(near, self.humanoid_spec.reach))
                    if goals:
                        break
                cells = plan_path(blocked, start, goals)
                if cells is None:
                    return False, f"no path to {act.object_id} on the observed map"
                if len(cells) == 1:      # already at the closest free place
                    self._face(goal)
                    return True, f"stopped {gap + ARRIVE_GAP:.2f} m from the object: furniture in the way"
                path = list(simplify_path(self.grid, cells)[1:]) or [self.grid.to_world(cells[-1])]
                replan_at = frames + 10
            waypoint = path[0]
            d = waypoint - self.agent.xy
            dist = float(np.linalg.norm(d))
            step = self._step_speed()
            if not self._advance(1):
                return False, "frame limit reached"
            frames += 1
            if dist > 1e-6:
                self.agent.yaw = math.atan2(d[1], d[0])
                nxt = self.agent.xy + d / dist * min(step, dist)
                if not self._try_move(nxt):
                    path = None
                    continue
            if np.linalg.norm(waypoint - self.agent.xy) < 1e-3:
                path.pop(0)
                if not path:
                    path = None
            if frames % self.render_every == 0:
                self._observe()
        goal = target.box.center[:2]
        left = float(np.linalg.norm(goal - self.agent.xy))
        return False, f"not there after {WALK_TO_MAX_FRAMES} frames ({left:.1f} m left)"

    def _face(self, xy) -> None:
        c = np.asarray(xy) - self.agent.xy
        self._turn(wrap_angle(math.atan2(c[1], c[0]) - self.agent.yaw))

    def _do_pick_up(self, act):
        w = self.world
        if act.object_id not in w.by_id:
            return False, f"unknown object id {act.object_id}"
        obj = w.by_id[act.object_id]
        if self.agent.held is not None:
            return False, f"hands full: holding {self.agent.held.id} ({self.agent.held.name})"
        if obj.location != "scene":
            return False, f"object {obj.id} ({obj.name}) is {obj.location}, not in the scene"
        if obj.id not in self.observed_ids:
            return False, f"object {obj.id} has not been observed yet"
        d = float(np.linalg.norm(obj.position[:2] - self.agent.xy))
        if d > self.humanoid_spec.reach:
            return False, f"object {obj.id} out of reach: {d:.2f} m > {self.humanoid_spec.reach} m"
        if self._wall_between(obj.position):
            return False, f"object {obj.id} is behind a wall"
        self._face(obj.position[:2])
        self._advance(self.humanoid_spec.pick_frames)
        w.take(obj, "held")
        self.agent.held = obj
        obj.meta["damaged_at_pick"] = w.hazard.is_damaged(obj, w)
        return True, ""

    def _do_drop(self, act):
        w = self.world
        obj = self.agent.held
        if obj is None:
            return False, "hands are empty: nothing to drop"
        if self.task == "wind":
            carts = w.scene.carts()
            gaps = [float(np.linalg.norm(c.box.center[:2] - self.agent.xy)) - float(np.hypot(*c.box.half[:2]))
                    - self.humanoid_spec.radius for c in carts]
            k = int(np.argmin(gaps))
            if gaps[k] > CART_REACH:
                return False, f"no cart within reach (nearest {carts[k].name} is {gaps[k]:.2f} m away)"
            self._face(carts[k].box.center[:2])
            self._advance(self.humanoid_spec.drop_frames)
            w.place(obj, carts[k].box.center + np.array([0, 0, carts[k].box.half[2]]), settled=True)
            obj.meta["container"] = carts[k].name
        else:
            self._advance(self.humanoid_spec.drop_frames)
            w.take(obj, "rescued")
            obj.meta["container"] = "bag"
        self.agent.held = None
        if obj.is_target:
            damaged = bool(obj.meta.get("damaged_at_pick", False)) and self.task != "wind"
            self.rescued.append(Rescue(obj.id, obj.name, obj.category.value, w.frame, damaged))
        return True, ""

    # ================================================================ results
    def value_rate(self) -> float:
        return episode_metrics(self.rescued, [o.category.value for o in self.world.targets()])["value_rate"]

    def metrics(self) -> dict:
        targets = self.world.targets()
        m = episode_metrics(self.rescued, [o.category.value for o in targets])
        m.update({
            "task": self.task, "split": self.split, "episode": self.spec_dict["index"],
            "scene": self.spec_dict["scene"], "seed": self._seed, "frames": self.world.frame,
            "render_backend": self.render_backend,
            "targets": len(targets), "target_value": sum(o.category.value for o in targets),
            "rescued": [r.__dict__ for r in self.rescued],
        })
        return m

    def _info(self, result: ActionResult) -> dict:
        return {"action_result": result.to_dict(), "labels": dict(self._labels),
                "bounds": list(self.world.scene.bounds),
                "observations": list(self._pending), "frame": self.world.frame,
                "rescued_ids": [r.id for r in self.rescued]}
