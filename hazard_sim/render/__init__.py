"""CPU rendering of box scenes (RGB, z-depth, instance segmentation, water)."""
from .camera import CameraSpec, optical_rotation
from .raycast import Frame, RaycastRenderer, WaterSurface

__all__ = ["CameraSpec", "Frame", "RaycastRenderer", "WaterSurface", "optical_rotation"]
