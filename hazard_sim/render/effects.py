"""Per-frame render effects: sky colour, global light level, distance fog, and
image post-effects.

``render(position, rot, water=None, effects=RenderEffects(...))`` on either
backend applies them; ``RenderEffects()`` (the default) reproduces the plain
images exactly. Order per pixel:

1. Pixels that hit nothing get ``sky`` (depth +inf, seg 0 as always).
2. Water tint (if a ``WaterSurface`` is given).
3. Pixels that hit something are scaled by ``light`` (0 = black night, 1 = day).
4. Fog: hit pixels are mixed towards ``fog_color`` by ``f(d)``, ``d`` the
   Euclidean distance from the camera to the hit (m). ``fog="exp"``:
   ``f = 1 - exp(-3 d / visibility)`` (Koschmieder: 5 % contrast left at the
   visibility distance); ``fog="linear"``: ``f = clamp((d - fog_start) /
   (visibility - fog_start), 0, 1)``. ``visibility = inf`` means no fog. The sky
   keeps its colour (give a hazy ``sky`` for a white-out).
5. ``post``: callables ``rgb -> rgb`` ((H, W, 3) uint8 in, same shape and dtype
   out; they may work in place) applied in order on the CPU, e.g. rain streaks
   supplied by a weather process.

Steps 1-4 change only ``Frame.rgb``; depth, seg, points and water depth are
untouched. Colour arithmetic is in 0..255 floats, rounded once per step.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

__all__ = ["FOG_MODES", "RenderEffects", "apply_light_fog", "apply_post", "fog_factor"]

FOG_MODES = ("exp", "linear")
EXP_FOG_K = 3.0          # -ln(0.05): 5 % contrast left at the visibility distance


def _rgb(v, name) -> tuple:
    c = tuple(int(x) for x in np.asarray(v).reshape(-1))
    if len(c) != 3 or not all(0 <= x <= 255 for x in c):
        raise ValueError(f"{name} must be an RGB triple of 0..255, got {v!r}")
    return c


@dataclass(frozen=True)
class RenderEffects:
    """What a world process (weather, daylight) does to the picture; see the module doc."""

    sky: tuple = (0, 0, 0)
    light: float = 1.0
    fog_color: tuple = (200, 200, 200)
    visibility: float = math.inf
    fog: str = "exp"
    fog_start: float = 0.0
    post: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "sky", _rgb(self.sky, "sky"))
        object.__setattr__(self, "fog_color", _rgb(self.fog_color, "fog_color"))
        if not 0.0 <= float(self.light) <= 1.0:
            raise ValueError(f"light must be in [0, 1], got {self.light}")
        if self.fog not in FOG_MODES:
            raise ValueError(f"fog must be one of {FOG_MODES}, got {self.fog!r}")
        if not float(self.visibility) > 0.0:
            raise ValueError(f"visibility must be > 0 m (inf: no fog), got {self.visibility}")
        if self.fog == "linear" and not 0.0 <= self.fog_start < self.visibility:
            raise ValueError(f"linear fog needs 0 <= fog_start < visibility, got "
                             f"{self.fog_start}, {self.visibility}")
        post = tuple(self.post) if isinstance(self.post, Sequence) else (self.post,)
        for fn in post:
            if not callable(fn):
                raise TypeError(f"post effects must be callables rgb -> rgb, got {fn!r}")
        object.__setattr__(self, "post", post)

    @property
    def foggy(self) -> bool:
        return math.isfinite(self.visibility)

    @property
    def shades_hits(self) -> bool:
        """Whether light or fog change the colour of hit pixels."""
        return self.light != 1.0 or self.foggy

    @property
    def fog_params(self) -> tuple:
        """(mode 0 none / 1 exp / 2 linear, a, b): exp f = 1 - exp(-a d); linear f = clamp(a d + b)."""
        if not self.foggy:
            return 0, 0.0, 0.0
        if self.fog == "exp":
            return 1, EXP_FOG_K / self.visibility, 0.0
        span = self.visibility - self.fog_start
        return 2, 1.0 / span, -self.fog_start / span


DEFAULT = RenderEffects()


def fog_factor(effects: RenderEffects, dist: np.ndarray) -> np.ndarray:
    """Fog amount in [0, 1] (float32) at Euclidean distances ``dist`` (m)."""
    mode, a, b = effects.fog_params
    d = np.asarray(dist, np.float32)
    if mode == 0:
        return np.zeros_like(d)
    if mode == 1:
        return (np.float32(1.0) - np.exp(np.float32(-a) * d)).astype(np.float32)
    return np.clip(np.float32(a) * d + np.float32(b), 0.0, 1.0).astype(np.float32)


def apply_light_fog(rgb: np.ndarray, hit: np.ndarray, dist, effects: RenderEffects) -> None:
    """In place: light level and fog on the hit pixels of ``rgb`` (H, W, 3) uint8.
    ``dist`` is a callable returning the (H, W) Euclidean hit distances (only
    called with fog)."""
    if not effects.shades_hits or not hit.any():
        return
    c = rgb[hit].astype(np.float32)
    if effects.light != 1.0:
        c = np.floor(c * np.float32(effects.light) + np.float32(0.5))
    if effects.foggy:
        f = fog_factor(effects, dist()[hit])[:, None]
        fc = np.asarray(effects.fog_color, np.float32)
        c = np.floor(c * (np.float32(1.0) - f) + fc * f + np.float32(0.5))
    rgb[hit] = np.clip(c, 0, 255).astype(np.uint8)


def apply_post(rgb: np.ndarray, post: Sequence[Callable[[np.ndarray], np.ndarray]]) -> np.ndarray:
    """Run the post-effects in order; each must return an (H, W, 3) uint8 image."""
    for fn in post:
        out = fn(rgb)
        if not (isinstance(out, np.ndarray) and out.shape == rgb.shape and out.dtype == np.uint8):
            raise ValueError(f"post effect {fn!r} must return an {rgb.shape} uint8 array, got "
                             f"{getattr(out, 'shape', type(out))} {getattr(out, 'dtype', '')}")
        rgb = out
    return rgb
