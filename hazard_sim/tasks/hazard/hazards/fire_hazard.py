"""The fire hazard: couples the temperature system and floor fire to a world."""
from __future__ import annotations

import numpy as np

from hazard_sim.core.frames import EFFECT_ID_BASE
from hazard_sim.navigation.grid import rasterize_boxes
from hazard_sim.tasks.hazard.hazards.base import Hazard
from hazard_sim.tasks.hazard.hazards.fire import STATE_NAMES, FireParams, FloorFire, ObjectTemperatures

FLAME_ID = EFFECT_ID_BASE   # instance id shared by all floor flames (drawn by the fire process)
BURNING_TINT = np.array([255, 120, 20])
BURNT_COLOR = np.array([25, 20, 20])
FLAME_COLOR = np.array([[255, 140, 0]], np.uint8)


class FireHazard(Hazard):
    name = "fire"
    channel = "temperature"

    def __init__(self, world, sources, rng: np.random.Generator, params: FireParams = FireParams()):
        self.p = params
        self.rng = rng
        objs = world.objects
        ign = np.array([o.category.ignition for o in objs])
        self.temps = ObjectTemperatures(ign, np.array([o.category.fireproof for o in objs]), params)
        fire = FloorFire(world.scene.bounds, None, params)
        fire.blocked = rasterize_boxes(fire.spec, [p.box for p in world.scene.solids()])
        self.floor = fire
        for xy in sources:
            fire.ignite(xy)
        self._index = {o.id: k for k, o in enumerate(objs)}
        self._ids = np.array([o.id for o in objs])
        self._grid = None
        self._lut = None

    # ---------------------------------------------------------------- dynamics
    def step_frame(self, world) -> None:
        f, p = world.frame, self.p
        if f % p.tick_frames == 0:
            if self.floor.tick(self.rng):
                self._grid = None
        if f % p.update_every == 0:
            for k, o in enumerate(world.objects):
                self.temps.active[k] = o.location == "scene"
            pos = np.array([o.position for o in world.objects])
            sources = self.floor.burning_centres(0.0)
            ignited = self.temps.update(pos, sources)
            for k in ignited:
                o = world.objects[k]
                if o.meta.get("support", "floor") == "floor" and self.floor.ignite(o.position[:2]):
                    self._grid = None
            for k, o in enumerate(world.objects):
                o.state = STATE_NAMES[self.temps.states[k]]
                o.meta["temperature"] = float(self.temps.temps[k])

    def is_damaged(self, obj, world) -> bool:
        return obj.state != "normal"

    # ---------------------------------------------------------------- sensing
    def temperature_grid(self) -> np.ndarray:
        if self._grid is None:
            self._grid = self.floor.temperature_grid()
        return self._grid

    def _flames(self):
        ii, jj = np.nonzero(self.floor.burning)
        c = self.p.cell_size
        scale = self.floor.scale[ii, jj]
        height = 0.2 + 1.2 * scale
        centres = np.stack([self.floor.spec.bounds[0] + (jj + 0.5) * c,
                            self.floor.spec.bounds[1] + (ii + 0.5) * c, height / 2], axis=-1)
        halfs = np.stack([np.full(len(ii), c * 0.35), np.full(len(ii), c * 0.35), height / 2], axis=-1)
        return centres, halfs

    def render_geometry(self):
        """Visible flames: one box per burning floor cell, growing with the fire's scale."""
        from hazard_sim.geometry import Box
        fc, fh = self._flames()
        return ([Box(c, h) for c, h in zip(fc, fh)], np.full(len(fc), FLAME_ID, np.int32),
                np.tile(FLAME_COLOR, (len(fc), 1)))

    def geometry_key(self):
        fc, fh = self._flames()
        return len(fc), float(fh[:, 2].sum()) if len(fh) else 0.0

    def tint(self, entity, color):
        if entity.state == "burning":
            return 0.4 * color + 0.6 * BURNING_TINT
        if entity.state == "burnt":
            return BURNT_COLOR
        return color

    def labels(self):
        return {FLAME_ID: "fire"}

    def no_go_points(self):
        return self.floor.burning_centres()[:, :2]

    def sample_field(self, points, instance_ids=None) -> np.ndarray:
        """Temperature (Celsius) at world points (H, W, 3): an entity's own temperature
        where ``instance_ids`` names one (flames burn at 600 C), the floor fire's
        temperature field elsewhere (room temperature where a point is not finite)."""
        pts = points
        seg = instance_ids if instance_ids is not None else np.zeros(pts.shape[:-1], np.int32)
        spec, grid = self.floor.spec, self.temperature_grid().astype(np.float32)
        h, w = grid.shape
        with np.errstate(invalid="ignore"):
            j = ((pts[..., 0] - np.float32(spec.bounds[0])) * np.float32(1.0 / spec.resolution))
            i = ((pts[..., 1] - np.float32(spec.bounds[1])) * np.float32(1.0 / spec.resolution))
            np.clip(j, 0, w - 1, out=j)
            np.clip(i, 0, h - 1, out=i)
        valid = np.isfinite(i)
        img = np.full(seg.shape, self.p.room_temperature, np.float32)
        img[valid] = grid[i[valid].astype(np.intp), j[valid].astype(np.intp)]
        # per-instance temperature lookup table: objects by id, flames at burning temperature
        lut = self._temperature_lut()
        inst = lut[np.minimum(seg, len(lut) - 1)]
        known = ~np.isnan(inst)
        img[known] = inst[known]
        return img

    def _temperature_lut(self) -> np.ndarray:
        if self._lut is None:
            self._lut = np.full(max(int(self._ids.max()), FLAME_ID) + 2, np.nan, np.float32)
        self._lut[self._ids] = self.temps.temps
        self._lut[FLAME_ID] = self.p.burning_temperature
        return self._lut

    # ---------------------------------------------------------------- effects on the body
    def body_blocked(self, xy) -> bool:
        return bool(self.floor.burning[self.floor.spec.to_cell(xy)])

    def body_speed_factor(self, xy) -> float:
        t = float(self.temperature_grid()[self.floor.spec.to_cell(xy)])
        return 1.0 if t < 100 else 0.5
