"""CPU rendering of box and mesh scenes (RGB, z-depth, instance segmentation, water),
with render effects (sky, light level, fog, post-effects). See docs/rendering.md."""
from .backend import backend_name, make_renderer
from .camera import CameraSpec, optical_rotation
from .effects import RenderEffects
from .mesh import Mesh, box_mesh, heightfield_mesh, quad_mesh, text_texture
from .raycast import Frame, RaycastRenderer, WaterSurface

__all__ = ["CameraSpec", "Frame", "Mesh", "RaycastRenderer", "RenderEffects", "WaterSurface",
           "backend_name", "box_mesh", "heightfield_mesh", "make_renderer", "optical_rotation",
           "quad_mesh", "text_texture"]
