"""Choosing a renderer backend.

Two backends draw the same pictures (``Frame``) through the same API:

* ``"raster"``: :class:`~hazard_sim.render.raster.RasterRenderer`, OpenGL
  rasterization in software (Mesa llvmpipe) through headless EGL; the fast
  one, but it needs moderngl and Mesa's EGL/GL libraries (scripts/setup_gl.sh).
* ``"raycast"``: :class:`~hazard_sim.render.raycast.RaycastRenderer`, Open3D
  ray casting; needs only Open3D.

``make_renderer(camera)`` ("auto") takes the raster backend if an OpenGL
context can be created in this process and falls back to ray casting (with a
warning, once) if not. The environment variable ``HAZARD_RENDER_BACKEND``
(``raster`` / ``raycast`` / ``auto``) overrides what "auto" picks, e.g. to
compare backends without touching code.
"""
from __future__ import annotations

import logging
import os

from .camera import CameraSpec

__all__ = ["BACKENDS", "ENV_VAR", "BackendUnavailable", "backend_name", "make_renderer"]

BACKENDS = ("raster", "raycast")
ENV_VAR = "HAZARD_RENDER_BACKEND"
_log = logging.getLogger(__name__)
_warned = False


class BackendUnavailable(RuntimeError):
    """A backend asked for by name cannot run here (the message says why)."""


def _raster(camera: CameraSpec):
    try:
        from .raster import RasterRenderer
    except ImportError as e:
        raise BackendUnavailable(f"the raster backend cannot be imported: {e}") from e
    return RasterRenderer(camera)        # raises RasterUnavailable(BackendUnavailable)


def _raycast(camera: CameraSpec):
    try:
        from .raycast import RaycastRenderer
    except ImportError as e:
        raise BackendUnavailable(f"the raycast backend needs Open3D "
                                 f"(pip install open3d-cpu): {e}") from e
    return RaycastRenderer(camera)


def make_renderer(camera: CameraSpec = CameraSpec(), backend: str = "auto"):
    """A renderer for ``camera``: ``backend`` is "auto", "raster" or "raycast".

    "auto" (or ``None``) uses ``$HAZARD_RENDER_BACKEND`` if set, else the
    raster backend if it is available here, else the ray caster. A backend
    named explicitly raises :class:`BackendUnavailable` with the reason (and
    what to install) if it cannot run.
    """
    name = (backend or "auto").lower()
    if name == "auto":
        name = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if name == "raster":
        return _raster(camera)
    if name == "raycast":
        return _raycast(camera)
    if name != "auto":
        raise ValueError(f"unknown render backend {backend!r} "
                         f"(or ${ENV_VAR}={os.environ.get(ENV_VAR)!r}); "
                         f"expected 'auto' or one of {BACKENDS}")
    try:
        return _raster(camera)
    except BackendUnavailable as e:
        global _warned
        if not _warned:
            _warned = True
            _log.warning("raster render backend unavailable, using raycast (slower): %s", e)
        return _raycast(camera)


def backend_name(renderer) -> str:
    """"raster" or "raycast" for a renderer made by ``make_renderer``."""
    from .raycast import RaycastRenderer
    if isinstance(renderer, RaycastRenderer):
        return "raycast"
    from .raster import RasterRenderer
    if isinstance(renderer, RasterRenderer):
        return "raster"
    raise TypeError(f"not a renderer: {type(renderer).__name__}")
