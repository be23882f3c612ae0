"""The flood hazard: rising sloped water, buoyancy and drag through MuJoCo, damage.

Object states follow the public HAZARD code: as soon as any part of an object is in
water (any corner of its box below the water surface), a non-waterproof object turns
``flooded`` (``flooded_floating`` while it floats), a waterproof one that floats
``floating``.  Leaving the water turns ``flooded_floating`` into ``flooded`` and
``floating`` back into ``normal``; ``flooded`` never goes back: the object is damaged
(its value is halved when rescued).  An object floats when it is lighter than the water
it can displace (density below 1000 kg/m^3).
"""
from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter

from hazard_sim.tasks.hazard.hazards.base import Hazard
from hazard_sim.tasks.hazard.hazards.flood_forces import RHO_WATER, FloodForceModel
from hazard_sim.tasks.hazard.hazards.flood_level import FloodParams, FloodSurface


def flood_state(state: str, in_water: bool, waterproof: bool, buoyant: bool) -> str:
    """The next flood state of an object (normal, flooded, floating, flooded_floating)."""
    flooded = state in ("flooded", "flooded_floating") or (in_water and not waterproof)
    if in_water and buoyant:
        return "flooded_floating" if flooded else "floating"
    return "flooded" if flooded else "normal"


#: box corner signs in the order of ``Box.corners``
_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)

#: the MuJoCo step while the flood runs (the engine's default is 5 ms): 10 ms halves the
#: engine's cost; the fastest floating body (about 1.8 m/s in the test episodes) moves
#: under 2 cm per step, less than half of the thinnest wall (10 cm), so nothing tunnels
#: (docs/hazard.md, "Third pass")
PHYSICS_DT = 0.01
#: physics steps between evaluations of buoyancy and drag (held in between): 2 x 10 ms =
#: 20 ms, a tenth of the bobbing period of the thinnest floating object (about 0.2 s); the
#: drag cap (``FloodForceModel``) keeps the held drag from overshooting
FORCE_EVERY = 2


class FloodHazard(Hazard):
    name = "flood"
    channel = "water_level"

    def __init__(self, world, source_wall: str, params: FloodParams = FloodParams(), frame_dt: float = 0.1,
                 force_every: int = FORCE_EVERY, physics_dt: float | None = PHYSICS_DT):
        self.p = params
        self.force_every = force_every
        if physics_dt is not None and world.physics is not None:
            world.physics.set_timestep(physics_dt)
        self.surface = FloodSurface(world.scene.bounds, source_wall, params)
        self.forces = FloodForceModel(water_velocity=lambda pts: self.surface.water_velocity(pts[:, :2]))
        self.frame_dt = frame_dt
        if world.physics is not None:
            world.physics.enable_sleep()      # dry objects at rest cost nothing until the water comes
        self._fn = (self.forces.force_fn(world.physics, self.surface.height_at, hold=force_every)
                    if world.physics else None)

    def step_frame(self, world) -> None:
        self.surface.set_frame(world.frame)
        if world.physics is not None and self.surface.level > 0:
            world.physics.step_with(self.frame_dt, self._fn, every=self.force_every)
        objs = [o for o in world.objects if o.location == "scene"]
        if not objs or self.surface.level <= 0:
            return
        boxes = [o.box for o in objs]
        centers = np.array([b.center for b in boxes])                         # (N, 3)
        # the corners of every box at once: the same arithmetic as Box.corners(), per box
        corners = centers[:, None, :] + (_SIGNS[None] * np.array([b.half for b in boxes])[:, None, :]) \
            @ np.array([b.rot for b in boxes]).transpose(0, 2, 1)             # (N, 8, 3)
        surface = self.surface.height_at(corners[..., :2])                   # (N, 8)
        wet = (surface > corners[..., 2]).any(axis=1).tolist()
        centre = self.surface.height_at(np.array([o.position[:2] for o in objs])).tolist()
        for o, w, h in zip(objs, wet, centre):
            o.meta["water_level"] = h
            o.state = flood_state(o.state, w, o.category.waterproof, o.category.density < RHO_WATER)
            o.damaged = o.damaged or o.state in ("flooded", "flooded_floating")

    def is_damaged(self, obj, world) -> bool:
        return obj.damaged

    def render_surface(self):
        from hazard_sim.render.raycast import WaterSurface
        s = self.surface
        if s.level <= 0:
            return None
        return WaterSurface(level=s.level + s.slope_offset, origin=s.origin, direction=s.direction,
                            slope_rad=float(np.radians(self.p.slope_deg)))

    def sample_field(self, points, instance_ids=None) -> np.ndarray:
        """Water above world points (m): surface height there minus the point's height."""
        pts = np.asarray(points, float)
        flat = pts.reshape(-1, 3)
        return np.maximum(self.surface.height_at(flat[:, :2]) - flat[:, 2], 0.0).reshape(pts.shape[:-1])

    def field_image(self, frame, world) -> np.ndarray:
        """The renderer's water-depth layer (depth of water over each seen surface), blurred."""
        if frame.water_depth is None:
            return np.zeros(frame.depth.shape, np.float32)
        return gaussian_filter(np.nan_to_num(frame.water_depth), 1.5).astype(np.float32)

    def body_speed_factor(self, xy) -> float:
        depth = float(self.surface.height_at(np.asarray(xy[:2])))
        return float(max(0.3, 1.0 - 0.7 * depth / self.p.max_level))
