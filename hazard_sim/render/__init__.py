"""CPU rendering of box scenes (RGB, z-depth, instance segmentation, water)."""
from .backend import backend_name, make_renderer
from .camera import CameraSpec, optical_rotation
from .raycast import Frame, RaycastRenderer, WaterSurface

__all__ = ["CameraSpec", "Frame", "RaycastRenderer", "WaterSurface", "backend_name", "make_renderer",
           "optical_rotation"]
