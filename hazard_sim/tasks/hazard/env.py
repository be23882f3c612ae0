"""``HazardEnv``: the HAZARD benchmarks (``hazard/fire``, ``hazard/flood``,
``hazard/wind``) as :class:`~hazard_sim.core.env.EmbodiedEnv` under their old name.

``HazardEnv("fire", "test", 0)`` is ``EmbodiedEnv("hazard/fire", "test", 0)``; a
benchmark id works too. One call to ``step`` runs one HAZARD action (``walk_to``
may take up to 100 frames, ``explore`` 12 turns, ...).
"""
from __future__ import annotations

from hazard_sim.core.env import DriveResult, EmbodiedEnv, NotResetError, after_reset
from hazard_sim.core.spec import get_spec
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.hazard import FRAME_LIMITS
from hazard_sim.tasks.hazard.controllers import ARRIVE_GAP, CART_REACH, EXPLORE_DEG, EXPLORE_TURNS, WALK_TO_MAX_FRAMES

__all__ = ["HazardEnv", "DriveResult", "FRAME_LIMITS", "WALK_TO_MAX_FRAMES", "ARRIVE_GAP", "EXPLORE_TURNS",
           "EXPLORE_DEG", "CART_REACH"]


class HazardEnv(EmbodiedEnv):
    """Rescue valuable objects from fire, flood or wind (``task``: fire | flood | wind
    or a ``hazard/...`` id); the other parameters are :class:`EmbodiedEnv`'s, with
    ``humanoid`` the body's :class:`HumanoidSpec`."""

    def __init__(self, task: str = "fire", split: str = "test", episode: int = 0, *,
                 humanoid: HumanoidSpec | None = None, camera: CameraSpec = CameraSpec(), **kw):
        try:
            spec = get_spec(task)
        except KeyError:
            raise ValueError(f"unknown task {task!r}: expected one of fire, flood, wind") from None
        if not spec.id.startswith("hazard/"):
            raise ValueError(f"{spec.id} is not a HAZARD benchmark")
        super().__init__(spec, split, episode, camera=camera, body_spec=humanoid, **kw)

    @property
    def humanoid_spec(self) -> HumanoidSpec:
        return self.body_spec

    @property
    def rescued(self):
        """The rescues so far (``hazard_sim.tasks.hazard.metrics.Rescue``), in order."""
        if self.world is None:
            raise NotResetError("call reset() before rescued")
        return self.task.rescued

    @after_reset
    def value_rate(self) -> float:
        return self.metrics()["value_rate"]
