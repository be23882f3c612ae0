"""World processes: things that change the world every frame (what burns, rises, blows,
walks, the weather and the daylight) and what they show sensors and the renderer.

The env and the renderer know processes only through these hooks:

* :meth:`step_frame` advances one frame (after ``world.frame`` was incremented);
* fields: :attr:`channel` names the field a process offers (``"temperature"`` in C,
  ``"water_level"`` in m, ...), :meth:`sample_field` samples it at world points and
  :meth:`field_image` makes the camera-aligned image a sensor publishes;
* rendering: :meth:`view_from` (the viewpoint, for level of detail),
  :meth:`render_geometry` (extra boxes with instance ids and colours, e.g.
  flames), :meth:`tint` (an entity's colour as the process changes it, e.g. burning),
  :meth:`render_surface` (a translucent surface such as water), :meth:`render_effects`
  (fog, light) and :meth:`post_effects` (image filters such as rain), :meth:`labels`
  (segmentation labels of the ids it draws);
* displays: :meth:`markers` (what it puts in the world as labelled shapes, plain data:
  ``hazard_sim.core.markers.WorldMarker``);
* effects on the body (used where the benchmark lets the world act on the body):
  :meth:`body_speed_factor`, :meth:`body_push`, :meth:`body_blocked`, :meth:`no_go_points`.
"""
from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter


class WorldProcess:
    """A process that does nothing; subclasses override what they change."""

    name = "none"
    channel: str | None = None
    #: its entities are solid bodies (people): ``body_blocked`` stops the agent's body
    #: always, not only where processes act on the body (``processes_act_on_body``)
    solid: bool = False

    def step_frame(self, world) -> None:
        """Advance one frame."""

    # ------------------------------------------------------------ fields
    def sample_field(self, points: np.ndarray, instance_ids: np.ndarray | None = None) -> np.ndarray | None:
        """The field at world points (..., 3); ``instance_ids`` (same leading shape) lets
        a field give per-entity values. None if this process offers no field."""
        return None

    def field_image(self, frame, world) -> np.ndarray | None:
        """The camera-aligned image of this process's field (blurred as a thermal / level sensor's are)."""
        vals = self.sample_field(frame.points, frame.seg)
        return None if vals is None else gaussian_filter(vals.astype(np.float32), 1.5)

    # ------------------------------------------------------------ rendering
    def render_geometry(self) -> tuple[list, np.ndarray, np.ndarray]:
        """Extra boxes to draw: (boxes, instance ids (K,), colours (K,3) uint8)."""
        return [], np.zeros(0, np.int32), np.zeros((0, 3), np.uint8)

    def render_meshes(self) -> list:
        """Extra meshes to draw, in world coordinates (``hazard_sim.render.mesh.Mesh``, each
        with its instance id), e.g. walking people or rain-soaked ground."""
        return []

    def geometry_key(self):
        """Changes whenever :meth:`render_geometry` or :meth:`render_meshes` would return
        something else (None: never changes)."""
        return None

    def view_from(self, position: np.ndarray) -> None:
        """The camera is about to render from world ``position`` (3,): a process drawing
        geometry at a level of detail that depends on the viewpoint updates it here (and
        its :meth:`geometry_key`)."""

    def tint(self, entity, color: np.ndarray) -> np.ndarray:
        return color

    def render_surface(self):
        """A translucent surface for the renderer (e.g. a WaterSurface), or None."""
        return None

    def render_effects(self):
        """Render parameters (fog, light level) this process imposes, or None."""
        return None

    def post_effects(self) -> list:
        """Callables ``rgb -> rgb`` applied to camera images after rendering."""
        return []

    def labels(self) -> dict[int, str]:
        return {}

    def markers(self) -> list:
        """What this process puts in the world as :class:`~hazard_sim.core.markers.WorldMarker`
        (walking people, a terrain surface); entities are the world's own markers."""
        return []

    # ------------------------------------------------------------ effects on the body
    def body_speed_factor(self, xy) -> float:
        return 1.0

    def body_push(self, xy) -> np.ndarray:
        """Displacement (m per frame) the process forces on the body."""
        return np.zeros(2)

    def body_blocked(self, xy) -> bool:
        return False

    def no_go_points(self) -> np.ndarray:
        """(K, 2) points a body must not plan through (e.g. burning floor cells)."""
        return np.zeros((0, 2))
