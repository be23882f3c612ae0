"""Headless OpenGL contexts for the raster backend: creation through EGL, a
subprocess probe, and fork safety (see raster.py's module doc)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import weakref

from .backend import BackendUnavailable

__all__ = ["INSTALL_HINT", "RasterUnavailable", "create_context", "raster_available",
           "register_renderer"]


class RasterUnavailable(BackendUnavailable):
    """No headless OpenGL 3.3 context can be created here (a RuntimeError)."""


INSTALL_HINT = ("the raster backend needs the Python package moderngl (pip install "
                "moderngl==5.13.0 glcontext==3.1.0) and Mesa's EGL and software OpenGL "
                "(Debian: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libgl1, "
                "or run scripts/setup_gl.sh)")


class _GLState:
    """Process-wide facts about OpenGL use, for fork safety."""
    initialised = False       # a context was created in this process
    threads0 = False          # ... with LP_NUM_THREADS=0 (no rasterizer threads)
    forked = False            # this process was forked after `initialised`


_live_renderers: "weakref.WeakSet" = weakref.WeakSet()   # RasterRenderers, abandoned on fork


def register_renderer(renderer) -> None:
    """Track ``renderer`` so that a forked child abandons its context (``_abandon()``)."""
    _live_renderers.add(renderer)


def _after_fork_in_child() -> None:
    # llvmpipe's rasterizer threads belong to the EGL display, which a forked
    # child inherits already initialised but without its threads: the first
    # draw would wait for them forever. Refuse instead of hanging.
    if _GLState.initialised and not _GLState.threads0:
        _GLState.forked = True
    for r in list(_live_renderers):
        r._abandon()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_FORKED = ("this process was forked from one that had already created an OpenGL context; "
           "llvmpipe's threads do not survive fork(), so OpenGL would hang here. Create "
           "renderers only in the worker processes (not in the parent before forking), use "
           "the 'spawn' or 'forkserver' multiprocessing start method, or set "
           "LP_NUM_THREADS=0 before the parent's first renderer")


def create_context():
    """A standalone (headless, EGL) moderngl context of OpenGL >= 3.3.

    Raises :class:`RasterUnavailable`, with the reason and what to install,
    if moderngl is missing or no EGL/OpenGL driver can be loaded, or if this
    process was forked from one that had already used OpenGL.
    """
    if _GLState.forked:
        raise RasterUnavailable(_FORKED)
    try:
        import moderngl
    except ImportError as e:
        raise RasterUnavailable(f"moderngl is not importable ({e}); {INSTALL_HINT}") from e
    try:
        ctx = moderngl.create_standalone_context(backend="egl", require=330)
    except Exception as e:                         # glcontext raises plain Exceptions
        raise RasterUnavailable(f"cannot create a headless EGL OpenGL 3.3 context "
                                f"({type(e).__name__}: {e}); {INSTALL_HINT}") from e
    if not _GLState.initialised:
        _GLState.initialised = True
        _GLState.threads0 = os.environ.get("LP_NUM_THREADS", "").strip() == "0"
    return ctx


_PROBE = """
import moderngl
ctx = moderngl.create_standalone_context(backend="egl", require=330)
print(ctx.info["GL_RENDERER"] + ", " + ctx.info["GL_VERSION"])
"""
_probe_lock = threading.Lock()
_probe: tuple[bool, str] | None = None


def raster_available() -> tuple[bool, str]:
    """``(True, "renderer, version")`` if an OpenGL context can be created,
    else ``(False, reason)``; cached per process.

    Probed in a short-lived subprocess (~0.3 s) unless this process already
    uses OpenGL, so that asking does not initialise OpenGL here (which would
    make ``fork``-ed workers unable to render, see ``create_context``).
    """
    global _probe
    with _probe_lock:
        if _probe is None:
            if _GLState.forked:
                return False, _FORKED
            try:
                out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True,
                                     text=True, timeout=120)
            except (OSError, subprocess.SubprocessError) as e:
                _probe = (False, f"cannot run the OpenGL probe ({e}); {INSTALL_HINT}")
            else:
                if out.returncode == 0:
                    _probe = (True, out.stdout.strip())
                else:
                    err = (out.stderr.strip().splitlines() or ["no output"])[-1]
                    _probe = (False, f"cannot create a headless EGL OpenGL 3.3 context "
                                     f"({err}); {INSTALL_HINT}")
        return _probe
