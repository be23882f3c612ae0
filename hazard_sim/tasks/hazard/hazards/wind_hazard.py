"""The wind hazard: a turbulent wind pushing objects through MuJoCo.

The outdoor patch (16 m x 16 m) has no fence, as in the public HAZARD code: an object
whose centre leaves the patch is lost (state ``lost``, taken out of the scene; it can no
longer be rescued).  The drag-law force is applied as the public code applies it: as an
impulse (N s) every frame (ThreeDWorld's ``apply_force_to_object`` "is applied instantly as
an impulse"), i.e. here as the force ``F / frame_dt`` held over the frame (:data:`FORCE_GAIN`).
"""
from __future__ import annotations

import numpy as np

from hazard_sim.tasks.hazard.hazards.base import Hazard
from hazard_sim.tasks.hazard.hazards.wind_forces import WindModel

#: the public code sends the drag-law value ``F`` (N) to ThreeDWorld every frame as an
#: impulse of ``F`` N s; over one of our 0.1 s frames that impulse is a force of ``F / 0.1 s``,
#: so the gain is ``1 s / frame_dt`` = 10 (before this release: 5, a hand-tuned value).
FORCE_GAIN = 1.0 / 0.1
#: the MuJoCo step while the wind blows (the engine's default is 5 ms): 10 ms halves the
#: engine's cost; the fastest object (about 8 m/s in the test episodes) moves 8 cm per
#: step, less than half of the thinnest obstacle (40 cm) (docs/hazard.md, "Third pass")
PHYSICS_DT = 0.01
#: physics steps between evaluations of the wind force (held in between: 2 x 10 ms = 20 ms;
#: the model's cap keeps the held force from overshooting the felt wind's speed)
FORCE_EVERY = 2


class WindHazard(Hazard):
    name = "wind"
    channel = None

    def __init__(self, world, speed: float, direction: float, rng: np.random.Generator,
                 frame_dt: float = 0.1, force_gain: float | None = None, force_every: int = FORCE_EVERY,
                 physics_dt: float | None = PHYSICS_DT):
        if physics_dt is not None:
            world.physics.set_timestep(physics_dt)
        # default gain: the public code's per-frame impulse spread over this frame (FORCE_GAIN at 0.1 s)
        force_gain = 1.0 / frame_dt if force_gain is None else force_gain
        # the gain enters before the model's stability cap (a gain applied after
        # the cap would let very light objects gain speed every physics step)
        self.model = WindModel(speed, direction, rng=rng, gain=force_gain)
        self.frame_dt = frame_dt
        res = np.array([o.category.wind_resistance for o in world.objects])
        self.model.resample_turbulence(len(world.objects))
        self.force_every = force_every
        self._fn = self.model.force_fn(world.physics, res, hold=force_every, keep_resting=True)
        # objects the wind cannot move (resistance > 10, or held by friction: keep_resting)
        # sleep and cost next to nothing
        world.physics.enable_sleep()

    def step_frame(self, world) -> None:
        self.model.resample_turbulence(len(world.objects))
        world.physics.step_with(self.frame_dt, self._fn, every=self.force_every)
        # no fence (public HAZARD code): what the wind carries out of the patch is lost for good
        x0, y0, x1, y1 = world.scene.bounds
        pos = world.physics.positions()
        for o in world.objects:
            if o.location == "scene" and o.body >= 0:
                x, y, z = pos[o.body]
                if not (x0 <= x <= x1 and y0 <= y <= y1) or z < -1.0:
                    o.state = "lost"
                    o.meta["lost_at"] = world.frame
                    world.take(o, "lost")

    def body_push(self, xy) -> np.ndarray:
        # a person leaning into a strong wind drifts a little: 1 % of the wind speed
        return 0.01 * self.model.velocity[:2] * self.frame_dt
