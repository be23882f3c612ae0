"""ESAR's world processes: daylight (time of day), weather (13 types), wind, and the terrain
drawn at a level of detail that follows the camera.

They reach the renderer only through the process hooks of the composed core:
``render_effects`` (sky colour, light level, distance fog), ``post_effects`` (rain streaks,
snow flakes, dust in the image) and ``render_meshes`` / ``view_from`` (terrain LOD). The
ground's look under the weather (snow cover, wet ground and puddles, dust) is the
:class:`~hazard_sim.tasks.esar.look.GroundLook` of the weather type, applied to the
terrain colours this process draws.

Daylight: the sun's elevation from the hour (local solar time) and the map's latitude,
``sin e = sin(lat) sin(decl) + cos(lat) cos(decl) cos(15 deg (h - 12))`` at midsummer
(day 172, the season of most mountain rescues);
light = 0.06 + 0.94 * smoothstep((elev + 6) / 21) (civil dusk at -6 degrees, full light
from 15 degrees), times the weather's light factor. The sky goes from day blue
through an orange dusk to a dark night blue. Time advances with the simulation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from hazard_sim.core.frames import FRAME_DT
from hazard_sim.core.markers import WorldMarker
from hazard_sim.core.process import WorldProcess
from hazard_sim.render.effects import RenderEffects
from hazard_sim.render.mesh import heightfield_mesh
from hazard_sim.tasks.esar.look import (
    LOD_LEVELS,
    SCENE_LABELS,
    TERRAIN_ID,
    WATER_ID,
    GroundLook,
    base_colors,
    ground_colors,
    lod_terrain,
    obstacle_meshes,
    water_mesh,
)


class WeatherError(ValueError):
    """An unknown weather type, or one not allowed on a map's biome."""


@dataclass(frozen=True)
class Weather:
    name: str
    visibility: float          # m, distance fog (inf: none)
    light: float               # factor on daylight
    severity: float            # 0 (benign) .. 1 (worst), for the difficulty tiers
    precip: str = ""           # "" | drizzle | rain | snow | dust
    intensity: float = 0.0     # precipitation density 0..1
    look: GroundLook = GroundLook()
    fog_color: tuple = (200, 204, 210)
    biomes: tuple = ("alpine", "desert", "snowy_peak", "coastal")
    wind: tuple = (0.0, 4.0)   # m/s range of the mean wind


MARKER_SAMPLES = 96         # most terrain samples a side of the display marker has
_ALL = ("alpine", "desert", "snowy_peak", "coastal")
WEATHERS: dict[str, Weather] = {w.name: w for w in (
    Weather("clear", math.inf, 1.00, 0.00, wind=(0, 3)),
    Weather("partly_cloudy", 12000.0, 0.92, 0.05, wind=(1, 5)),
    Weather("overcast", 6000.0, 0.72, 0.15, wind=(2, 6)),
    Weather("haze", 2500.0, 0.85, 0.25, fog_color=(205, 200, 185)),
    Weather("mist", 1000.0, 0.80, 0.40, biomes=("alpine", "snowy_peak", "coastal")),
    Weather("fog", 250.0, 0.70, 0.70, biomes=("alpine", "snowy_peak", "coastal"), wind=(0, 2)),
    Weather("drizzle", 3000.0, 0.68, 0.30, "drizzle", 0.3, GroundLook(wet=0.4), (170, 175, 182),
            ("alpine", "coastal"), (2, 6)),
    Weather("rain", 1500.0, 0.58, 0.50, "rain", 0.6, GroundLook(wet=0.8), (150, 156, 165),
            ("alpine", "coastal", "desert"), (3, 9)),
    Weather("thunderstorm", 800.0, 0.40, 0.85, "rain", 1.0, GroundLook(wet=1.0), (110, 115, 125),
            ("alpine", "coastal", "desert"), (8, 15)),
    Weather("light_snow", 2000.0, 0.75, 0.45, "snow", 0.4, GroundLook(snow=0.5), (215, 218, 225),
            ("alpine", "snowy_peak"), (1, 6)),
    Weather("snowstorm", 300.0, 0.55, 0.95, "snow", 1.0, GroundLook(snow=1.0), (225, 228, 235),
            ("alpine", "snowy_peak"), (10, 18)),
    Weather("blowing_dust", 1500.0, 0.80, 0.45, "dust", 0.4, GroundLook(dust=0.4), (196, 170, 130),
            ("desert",), (6, 12)),
    Weather("sandstorm", 200.0, 0.50, 1.00, "dust", 1.0, GroundLook(dust=0.9), (186, 150, 100),
            ("desert",), (12, 20)),
)}


def weather(name: str, biome: str | None = None) -> Weather:
    if name not in WEATHERS:
        raise WeatherError(f"unknown weather {name!r}; known: {', '.join(WEATHERS)}")
    w = WEATHERS[name]
    if biome is not None and biome not in w.biomes:
        raise WeatherError(f"weather {name!r} does not occur on the {biome} map; allowed there: "
                           f"{', '.join(n for n, x in WEATHERS.items() if biome in x.biomes)}")
    return w


def allowed_weathers(biome: str) -> list[str]:
    return [n for n, w in WEATHERS.items() if biome in w.biomes]


# ============================================================== daylight
def sun_elevation(hour: float, lat: float, doy: int = 172) -> float:
    """Solar elevation (deg) at local solar time ``hour`` on day of year ``doy``:
    ``sin e = sin(lat) sin(decl) + cos(lat) cos(decl) cos(15 deg (hour - 12))`` with the
    declination ``decl = 23.44 cos(2 pi (doy - 172) / 365)`` deg."""
    decl = math.radians(23.44 * math.cos(2 * math.pi * (doy - 172) / 365.0))
    phi = math.radians(lat)
    ha = math.radians(15.0 * (hour - 12.0))
    s = math.sin(phi) * math.sin(decl) + math.cos(phi) * math.cos(decl) * math.cos(ha)
    return math.degrees(math.asin(max(-1.0, min(1.0, s))))


def daylight(hour: float, lat: float) -> float:
    e = sun_elevation(hour, lat)
    x = min(max((e + 6.0) / 21.0, 0.0), 1.0)
    return 0.06 + 0.94 * x * x * (3 - 2 * x)


def sky_color(hour: float, lat: float) -> np.ndarray:
    e = sun_elevation(hour, lat)
    day, dusk, night = np.array([128, 178, 232.]), np.array([236, 146, 88.]), np.array([10, 14, 30.])
    if e >= 10:
        return day
    if e >= -2:
        t = (e + 2) / 12.0
        return dusk * (1 - t) + day * t
    t = min(max((e + 12) / 10.0, 0.0), 1.0)
    return night * (1 - t) + dusk * t


class Daylight(WorldProcess):
    """The time of day (hours, advancing with the simulation) and the light it gives."""
    name = "daylight"

    def __init__(self, hour: float, lat: float):
        if not 0.0 <= hour < 24.0:
            raise ValueError(f"time_of_day must be in [0, 24) hours, got {hour}")
        self.hour0 = float(hour)
        self.hour = float(hour)
        self.lat = float(lat)

    def step_frame(self, world) -> None:
        self.hour = (self.hour0 + world.frame * FRAME_DT / 3600.0) % 24.0

    @property
    def light(self) -> float:
        return daylight(self.hour, self.lat)

    @property
    def sky(self) -> np.ndarray:
        return sky_color(self.hour, self.lat)

    @property
    def night(self) -> bool:
        return sun_elevation(self.hour, self.lat) < -6.0


# ============================================================== weather
class _Precip:
    """A post effect drawing precipitation into a camera image; deterministic (its own
    generator, seeded per episode, advanced once per image)."""

    def __init__(self, kind: str, intensity: float, seed: int, color):
        self.kind, self.intensity = kind, float(intensity)
        self.rng = np.random.default_rng(seed)
        self.color = np.asarray(color, np.float32)

    def __call__(self, rgb: np.ndarray) -> np.ndarray:
        h, w = rgb.shape[:2]
        out = rgb.astype(np.float32)
        n = int(self.intensity * h * w / (60 if self.kind in ("rain", "drizzle") else 90))
        if self.kind == "dust":
            noise = self.rng.normal(0, 10 * self.intensity, (h, w, 1)).astype(np.float32)
            out = out * (1 - 0.35 * self.intensity) + self.color * 0.35 * self.intensity + noise
            return np.clip(out, 0, 255).astype(np.uint8)
        ys = self.rng.integers(0, h, n)
        xs = self.rng.integers(0, w, n)
        if self.kind == "snow":
            for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
                yy, xx = np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)
                out[yy, xx] = out[yy, xx] * 0.2 + 235 * 0.8
        else:                                   # streaks slanting with the wind
            length = 6 if self.kind == "rain" else 3
            for k in range(length):
                yy, xx = np.clip(ys + k, 0, h - 1), np.clip(xs + k // 3, 0, w - 1)
                out[yy, xx] = out[yy, xx] * 0.55 + 200 * 0.45
            out = out * (1 - 0.08 * self.intensity)
        return np.clip(out, 0, 255).astype(np.uint8)


class WeatherProcess(WorldProcess):
    """One weather type for the episode, combined with the daylight into the render effects."""
    name = "weather"

    def __init__(self, w: Weather, day: Daylight, seed: int):
        self.weather = w
        self.day = day
        self._precip = _Precip(w.precip, w.intensity, seed, w.fog_color) if w.precip else None
        self._flash = 0.0
        self._rng = np.random.default_rng(seed + 1)

    def step_frame(self, world) -> None:
        if self.weather.name == "thunderstorm":      # lightning: a rare brief flash
            self._flash = 0.5 if self._rng.random() < 0.004 else max(0.0, self._flash - 0.25)

    @property
    def light(self) -> float:
        return float(min(1.0, self.day.light * self.weather.light + self._flash))

    def render_effects(self):
        w = self.weather
        light = self.light
        fog = np.asarray(w.fog_color, float) * min(1.0, light * 1.05)
        sky = self.day.sky * w.light
        if math.isfinite(w.visibility):
            sky = sky * 0.4 + fog * 0.6 if w.visibility < 5000 else sky * 0.75 + fog * 0.25
        return RenderEffects(sky=tuple(np.clip(sky, 0, 255).astype(int)), light=light,
                             fog_color=tuple(np.clip(fog, 0, 255).astype(int)), visibility=w.visibility)

    def post_effects(self) -> list:
        return [self._precip] if self._precip is not None else []


class WindProcess(WorldProcess):
    """A mean wind (m/s, blowing towards ``direction`` rad, ENU) with gusts (a seeded
    Ornstein-Uhlenbeck process, 20 % of the mean, 5 s correlation); it drifts the UAV by the
    wind times ``drift`` (a multirotor holding its attitude is carried by a fraction of the
    wind) when the benchmark lets processes act on the body (``processes_act_on_body``)."""
    name = "wind_field"

    def __init__(self, speed: float, direction: float, seed: int, drift: float = 0.15):
        if not (math.isfinite(speed) and speed >= 0):
            raise ValueError(f"wind speed must be >= 0 m/s, got {speed}")
        self.mean = speed * np.array([math.cos(direction), math.sin(direction)])
        self.gust = np.zeros(2)
        self.rng = np.random.default_rng(seed + 7)
        self.drift = drift
        self.speed = float(speed)

    def step_frame(self, world) -> None:
        tau, sigma = 5.0, 0.2 * self.speed
        self.gust += -self.gust * FRAME_DT / tau + sigma * math.sqrt(2 * FRAME_DT / tau) * self.rng.standard_normal(2)

    @property
    def velocity(self) -> np.ndarray:
        return self.mean + self.gust

    def body_push(self, xy) -> np.ndarray:
        return self.velocity * self.drift * FRAME_DT


# ============================================================== terrain LOD
class TerrainView(WorldProcess):
    """Draws the terrain under the episode's weather look at a level of detail around the
    viewpoint (``look.lod_terrain``), with the trees and rocks of the two inner rings (up to
    ``LOD_LEVELS[1]`` m away; farther ones are a few pixels and are left out of the
    picture, not out of the collision checks); rebuilt when the viewpoint moves to another
    anchor (every 192 m on a 12 m grid)."""
    name = "terrain_view"

    def __init__(self, terrain, look: GroundLook):
        self.terrain = terrain
        self.look = look
        self.colors = ground_colors(terrain, look, _base(terrain))
        self.anchor = None
        self._meshes = []
        self.step = 16 * terrain.spacing
        self._marker = None

    def view_from(self, position) -> None:
        a = (int(round(position[0] / self.step)), int(round(position[1] / self.step)))
        if a != self.anchor:
            self.anchor = a
            c = np.asarray(a, float) * self.step
            r = LOD_LEVELS[1][1] if len(LOD_LEVELS) > 1 and LOD_LEVELS[1][1] else math.inf
            self._meshes = lod_terrain(self.terrain, self.colors, c) + \
                obstacle_meshes(self.terrain, self.look, (c[0] - r, c[1] - r, c[0] + r, c[1] + r))

    def render_meshes(self) -> list:
        return list(self._meshes)

    def geometry_key(self):
        return self.anchor

    def labels(self) -> dict[int, str]:
        return dict(SCENE_LABELS)

    def markers(self) -> list:
        """The terrain as one static triangle-mesh marker in the weather's ground colours (and
        the sea as a flat one where the map has a sea),
        every ``k``-th sample so that a side has at most ``MARKER_SAMPLES`` samples (a
        display's terrain: 2 km maps every 2nd sample, 24 m; the 5 km map every 5th, 60 m)."""
        if self._marker is None:
            t = self.terrain
            k = max(1, int(math.ceil(max(t.heights.shape) / MARKER_SAMPLES)))
            m = heightfield_mesh(t.heights[::k, ::k], (0.0, 0.0), t.spacing * k, colors=self.colors[::k, ::k],
                                 id=TERRAIN_ID)
            self._marker = WorldMarker(TERRAIN_ID, SCENE_LABELS[TERRAIN_ID], np.zeros(3), (1.0, 1.0, 1.0),
                                       (128, 128, 128), "mesh", static=True, vertices=m.vertices,
                                       faces=m.triangles, vertex_colors=m.colors)
            sea = water_mesh(t)
            self._sea = None if sea is None else WorldMarker(
                WATER_ID, SCENE_LABELS[WATER_ID], np.zeros(3), (1.0, 1.0, 1.0), tuple(int(c) for c in sea.colors[0]),
                "mesh", static=True, vertices=sea.vertices, faces=sea.triangles)
        return [self._marker] + ([self._sea] if self._sea is not None else [])


_BASE: dict[int, np.ndarray] = {}


def _base(t) -> np.ndarray:
    k = id(t)
    if k not in _BASE:
        _BASE[k] = base_colors(t)
    return _BASE[k]
