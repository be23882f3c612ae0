"""ESAR terrain: elevation grids, their geo-reference, ground appearance and vegetation.

Four built-in maps in the spirit of ESARBench's (see docs/esar.md for the exact
procedure and numbers), generated deterministically from a fixed seed per map:

========== ========= ========= ====================================================
map        size      spacing   relief
========== ========= ========= ====================================================
alpine     2 x 2 km  12 m      a winding glacial valley between ridges, a stream
                               in the valley floor, a trail up the valley, forest
                               below the tree line, snow on the crests
desert     2 x 2 km  12 m      a field of transverse dunes, a mesa with steep
                               edges, a dry wash, shrubs and boulders
snowy_peak 3 x 3 km  12 m      one peak with ridged arms, a glacier on its north
                               face, a meltwater stream, rocks, a climbing trail
coastal    5 x 5 km  12 m      a rolling plateau ending in cliffs above the sea
                               (sea level 0 m), coves with beaches, a cliff trail
========== ========= ========= ====================================================

Coordinates: the local frame is ENU (x east, y north, z up, metres), origin at the
map's south-west corner at sea level; ``heights[i, j]`` is the ground at
``x = j * spacing``, ``y = i * spacing`` (row 0 is the southern edge). A
:class:`GeoRef` maps local metres to WGS84 latitude / longitude / altitude: a local
tangent plane at a geographic origin for the generated maps, the GeoTIFF's own
CRS (through rasterio) for a loaded DEM.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.ndimage import gaussian_filter
from scipy.spatial import cKDTree

__all__ = ["MAPS", "MapDef", "GeoRef", "Terrain", "TerrainError", "generate_terrain", "load_dem", "terrain_for",
           "hillshade"]

WGS84_A = 6378137.0
WGS84_E2 = 6.69437999014e-3

SPACING = 12.0


class TerrainError(ValueError):
    """A DEM that cannot be used, or an unknown map name."""


@dataclass(frozen=True)
class MapDef:
    name: str
    biome: str
    size_m: float           # side of the square map (m)
    lat0: float             # geographic origin (south-west corner)
    lon0: float
    seed: int
    sea_level: float | None = None
    time_limit_s: float = 900.0   # endurance: the task's T_max on this map


MAPS: dict[str, MapDef] = {m.name: m for m in (
    MapDef("alpine", "alpine", 2000.0, 46.5300, 7.9600, 1101, time_limit_s=900.0),
    MapDef("desert", "desert", 2000.0, 36.4600, -116.8700, 2202, time_limit_s=900.0),
    MapDef("snowy_peak", "snowy_peak", 3000.0, 45.8200, 6.8400, 3303, time_limit_s=1200.0),
    MapDef("coastal", "coastal", 5000.0, 50.3300, -4.1500, 4404, sea_level=0.0, time_limit_s=1800.0),
)}


# ============================================================== geo-reference
@dataclass(frozen=True)
class GeoRef:
    """Local ENU metres <-> WGS84. ``kind="tangent"``: a local tangent plane at (lat0, lon0)
    with the ellipsoid's meridian radius M and prime-vertical radius N at lat0:
    ``lat = lat0 + y / M`` (rad), ``lon = lon0 + x / (N cos lat0)``. ``kind="crs"``: the
    local frame is the DEM's projected CRS shifted by (x_off, y_off) (metres of the CRS)."""
    kind: str = "tangent"
    lat0: float = 0.0
    lon0: float = 0.0
    alt0: float = 0.0
    crs_wkt: str = ""
    x_off: float = 0.0
    y_off: float = 0.0

    def radii(self) -> tuple[float, float]:
        s = math.sin(math.radians(self.lat0))
        w = 1.0 - WGS84_E2 * s * s
        return WGS84_A * (1 - WGS84_E2) / w ** 1.5, WGS84_A / math.sqrt(w)

    def to_latlon(self, x, y, z=0.0):
        """(lat deg, lon deg, alt m) of local point(s)."""
        x, y, z = np.asarray(x, float), np.asarray(y, float), np.asarray(z, float)
        if self.kind == "tangent":
            m, n = self.radii()
            lat = self.lat0 + np.degrees(y / m)
            lon = self.lon0 + np.degrees(x / (n * math.cos(math.radians(self.lat0))))
            return lat, lon, z + self.alt0
        from rasterio.crs import CRS
        from rasterio.warp import transform
        xs, ys = np.atleast_1d(x + self.x_off), np.atleast_1d(y + self.y_off)
        lon, lat = transform(CRS.from_wkt(self.crs_wkt), CRS.from_epsg(4326), xs.tolist(), ys.tolist())
        lat, lon = np.asarray(lat).reshape(x.shape), np.asarray(lon).reshape(x.shape)
        return lat, lon, z + self.alt0

    def from_latlon(self, lat, lon, alt=0.0):
        """Local (x, y, z) of WGS84 point(s)."""
        lat, lon, alt = np.asarray(lat, float), np.asarray(lon, float), np.asarray(alt, float)
        if self.kind == "tangent":
            m, n = self.radii()
            return (np.radians(lon - self.lon0) * n * math.cos(math.radians(self.lat0)),
                    np.radians(lat - self.lat0) * m, alt - self.alt0)
        from rasterio.crs import CRS
        from rasterio.warp import transform
        xs, ys = transform(CRS.from_epsg(4326), CRS.from_wkt(self.crs_wkt),
                           np.atleast_1d(lon).tolist(), np.atleast_1d(lat).tolist())
        return (np.asarray(xs).reshape(lat.shape) - self.x_off, np.asarray(ys).reshape(lat.shape) - self.y_off,
                alt - self.alt0)


# ============================================================== the terrain
@dataclass
class Terrain:
    """An elevation grid with what stands on it. ``heights`` (rows, cols) float32 m; ``water``
    a bool mask of water cells (sea, lake, stream); ``trail`` the trail as (K, 2) local xy;
    ``trees`` / ``rocks`` (K, 4): x, y, radius, height of obstacles on the ground."""
    name: str
    biome: str
    heights: np.ndarray
    spacing: float
    georef: GeoRef
    sea_level: float | None = None
    water: np.ndarray | None = None
    trail: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    trees: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    rocks: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    glacier: np.ndarray | None = None
    time_limit_s: float = 900.0

    def __post_init__(self):
        self.heights = np.ascontiguousarray(self.heights, np.float32)
        if self.water is None:
            self.water = np.zeros(self.heights.shape, bool)
        if self.glacier is None:
            self.glacier = np.zeros(self.heights.shape, bool)
        obs = np.concatenate([self.trees, self.rocks]) if len(self.trees) + len(self.rocks) else np.zeros((0, 4))
        self._obstacles = obs
        self._tree = cKDTree(obs[:, :2]) if len(obs) else None
        self._max_r = float(obs[:, 2].max()) if len(obs) else 0.0

    # ------------------------------------------------------------ extent
    @property
    def shape(self) -> tuple[int, int]:
        return self.heights.shape

    @property
    def size(self) -> tuple[float, float]:
        """(width east, depth north) in m."""
        return ((self.heights.shape[1] - 1) * self.spacing, (self.heights.shape[0] - 1) * self.spacing)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        w, d = self.size
        return (0.0, 0.0, w, d)

    def contains(self, xy) -> bool:
        w, d = self.size
        return 0.0 <= xy[0] <= w and 0.0 <= xy[1] <= d

    # ------------------------------------------------------------ height queries
    def height_at(self, xy) -> np.ndarray | float:
        """Ground height (m) at local xy (..., 2), interpolated on the same two triangles per
        cell the terrain mesh draws (split along the (i, j)-(i+1, j+1) diagonal); points
        outside the grid take the nearest edge."""
        p = np.asarray(xy, float)
        scalar = p.ndim == 1
        p = p[..., :2].reshape(-1, 2)
        rows, cols = self.heights.shape
        fx = np.clip(p[:, 0] / self.spacing, 0, cols - 1 - 1e-9)
        fy = np.clip(p[:, 1] / self.spacing, 0, rows - 1 - 1e-9)
        j, i = np.floor(fx).astype(int), np.floor(fy).astype(int)
        u, v = fx - j, fy - i
        h = self.heights
        h00, h01, h10, h11 = h[i, j], h[i, j + 1], h[i + 1, j], h[i + 1, j + 1]
        upper = u >= v                          # triangle (00, 01, 11)
        z = np.where(upper, h00 + u * (h01 - h00) + v * (h11 - h01), h00 + v * (h10 - h00) + u * (h11 - h10))
        return float(z[0]) if scalar else z.reshape(np.shape(xy)[:-1])

    def surface_at(self, xy, radius: float = 0.0) -> float:
        """Highest solid surface within ``radius`` of xy: ground, water surface, tree or rock tops."""
        xy = np.asarray(xy, float)[:2]
        z = self.height_at(xy)
        if self.sea_level is not None:
            z = max(z, self.sea_level)
        if self._tree is not None:
            for k in self._tree.query_ball_point(np.asarray(xy[:2], float), radius + self._max_r):
                x, y, r, ht = self._obstacles[k]
                if math.hypot(xy[0] - x, xy[1] - y) <= r + radius:
                    z = max(z, self.height_at((x, y)) + ht)
        return float(z)

    def free_space(self, p, radius: float) -> bool:
        """Whether a sphere of ``radius`` at 3-D point ``p`` is inside the map and clear of the
        ground, the water surface and obstacles."""
        if not self.contains(p):
            return False
        return float(p[2]) - radius > self.surface_at(p, radius)

    def slope_deg(self) -> np.ndarray:
        gy, gx = np.gradient(self.heights.astype(np.float64), self.spacing)
        return np.degrees(np.arctan(np.hypot(gx, gy)))

    def gps(self, p) -> tuple[float, float, float]:
        lat, lon, alt = self.georef.to_latlon(p[0], p[1], p[2] if len(p) > 2 else 0.0)
        return float(lat), float(lon), float(alt)

    def cell_xy(self, i, j) -> np.ndarray:
        return np.stack([np.asarray(j) * self.spacing, np.asarray(i) * self.spacing], -1)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.heights, self.water, self.glacier, self.trees, self.rocks, self.trail))


# ============================================================== generation
def _fbm(n: int, rng: np.random.Generator, octaves: int, base_sigma: float, persistence: float = 0.5) -> np.ndarray:
    """Fractal noise on an n x n grid: octaves of Gaussian-smoothed white noise, each with
    half the smoothing length and ``persistence`` times the amplitude of the previous; unit std."""
    out = np.zeros((n, n))
    amp, sigma = 1.0, base_sigma
    for _ in range(octaves):
        f = gaussian_filter(rng.standard_normal((n, n)), max(sigma, 0.5), mode="wrap")
        out += amp * f / (f.std() + 1e-12)
        amp *= persistence
        sigma /= 2.0
    return out / out.std()


def _smoothstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3 - 2 * x)


def _route(cost: np.ndarray, start, end) -> np.ndarray:
    from skimage.graph import route_through_array
    path, _ = route_through_array(cost, tuple(start), tuple(end), fully_connected=True, geometric=True)
    return np.asarray(path, int)


def _mark_path(mask: np.ndarray, cells: np.ndarray, width: int = 0) -> None:
    for di in range(-width, width + 1):
        for dj in range(-width, width + 1):
            i = np.clip(cells[:, 0] + di, 0, mask.shape[0] - 1)
            j = np.clip(cells[:, 1] + dj, 0, mask.shape[1] - 1)
            mask[i, j] = True


def _place(rng, n_max, ok: np.ndarray, spacing, r_range, h_range) -> np.ndarray:
    """Up to n_max obstacles uniformly over the cells where ``ok`` holds (x, y, radius, height)."""
    cells = np.argwhere(ok)
    if len(cells) == 0 or n_max <= 0:
        return np.zeros((0, 4))
    pick = cells[rng.choice(len(cells), size=min(n_max, len(cells)), replace=False)]
    xy = (pick[:, ::-1] + rng.uniform(-0.4, 0.4, (len(pick), 2))) * spacing
    r = rng.uniform(*r_range, len(pick))
    h = rng.uniform(*h_range, len(pick))
    return np.column_stack([xy, r, h])


def generate_terrain(name: str) -> Terrain:
    """One of the built-in maps (``MAPS``), deterministically (a fixed seed per map)."""
    if name not in MAPS:
        raise TerrainError(f"unknown ESAR map {name!r}; known: {', '.join(MAPS)}")
    md = MAPS[name]
    n = int(round(md.size_m / SPACING)) + 1
    rng = np.random.default_rng(md.seed)
    L = (n - 1) * SPACING
    xs = np.arange(n) * SPACING
    X, Y = np.meshgrid(xs, xs)
    water = np.zeros((n, n), bool)
    glacier = np.zeros((n, n), bool)
    trail_cells = np.zeros((0, 2), int)
    sea = md.sea_level
    if md.biome == "alpine":
        warp = _fbm(n, rng, 3, n / 6)
        yc = 0.5 * L + 0.18 * L * np.sin(2 * np.pi * X / L * 1.2 + 0.7) + 60 * warp
        d = np.abs(Y - yc) / (0.5 * L)
        ridged = 1.0 - np.abs(_fbm(n, rng, 4, n / 5))
        h = 1450 + 520 * d ** 1.6 + 110 * ridged * _smoothstep(d * 2) + 12 * _fbm(n, rng, 4, n / 20)
        h -= 0.08 * X            # the valley falls to the east
        stream = _route(h - h.min() + 1.0, (int(np.argmin(h[:, 0])), 0), (int(np.argmin(h[:, -1])), n - 1))
        _mark_path(water, stream)
        h[water] -= 2.0
        s = _slope(h)
        trail_cost = 1 + (s / 12.0) ** 2 + 40 * water
        trail_cells = _route(trail_cost, (int(np.argmin(h[:, 0])) + 6, 0), (int(n * 0.85), int(n * 0.8)))
        rock = _place(rng, 500, (s > 20) & ~water, SPACING, (0.8, 2.5), (0.8, 2.5))
        forest = (_fbm(n, rng, 3, n / 14) > -0.2) & (h < 1850) & (s < 32) & ~water
        trees = _place(rng, 1800, forest, SPACING, (1.5, 3.0), (8.0, 20.0))
    elif md.biome == "desert":
        warp = _fbm(n, rng, 3, n / 5)
        phase = 2 * np.pi * (X * 0.9 + Y * 0.35) / 140.0 + 2.5 * warp
        saw = (phase / (2 * np.pi)) % 1.0
        dune = np.where(saw < 0.75, saw / 0.75, (1 - saw) / 0.25)       # gentle windward, steep lee
        field_amp = _smoothstep((_fbm(n, rng, 2, n / 6) + 0.8) / 1.6)
        mesa_n = _fbm(n, rng, 3, n / 7)
        mesa = _smoothstep((mesa_n - 0.9) / 0.25)
        h = 620 + 35 * _fbm(n, rng, 3, n / 4) + 18 * dune * field_amp + 90 * mesa
        s = _slope(h)
        wash = _route(h - h.min() + 1.0 + 30 * mesa, (0, int(n * 0.3)), (n - 1, int(n * 0.7)))
        wash_mask = np.zeros((n, n), bool)
        _mark_path(wash_mask, wash, 1)
        h[wash_mask] -= 1.5
        trail_cells = _route(1 + (s / 10.0) ** 2 + 50 * mesa, (int(n * 0.1), 0), (int(n * 0.9), n - 1))
        rock = _place(rng, 600, (mesa > 0.2) | (s > 18), SPACING, (0.8, 3.0), (0.8, 3.0))
        trees = _place(rng, 400, wash_mask | ((s < 8) & (field_amp < 0.4)), SPACING, (0.8, 1.5), (1.0, 2.5))
        water = np.zeros((n, n), bool)                 # a dry wash: no water
    elif md.biome == "snowy_peak":
        cx, cy = 0.55 * L, 0.55 * L
        r = np.hypot(X - cx, Y - cy)
        ridged = 1.0 - np.abs(_fbm(n, rng, 4, n / 5))
        h = 2100 + 1250 * np.exp(-(r / 1100.0) ** 1.6) + 200 * ridged * np.exp(-r / 1400) + 12 * _fbm(n, rng, 4, n / 25)
        s = _slope(h)
        north = (Y > cy) & (r < 1100)
        glacier = north & (h > 2700) & (s < 33)
        glacier = gaussian_filter(glacier.astype(float), 1.5) > 0.5
        stream = _route(h - h.min() + 1.0, (int(n * 0.95), int(np.argmin(h[-1]))), (0, int(np.argmin(h[0]))))
        _mark_path(water, stream)
        h[water] -= 2.0
        trail_cells = _route(1 + (s / 14.0) ** 2 + 40 * water + 20 * glacier, (0, int(n * 0.2)),
                             (int(n * 0.5), int(n * 0.42)))
        rock = _place(rng, 700, (s > 25) & ~glacier, SPACING, (1.0, 3.0), (1.0, 3.5))
        trees = _place(rng, 900, (h < 2350) & (s < 30) & ~water & (_fbm(n, rng, 3, n / 14) > 0), SPACING,
                       (1.5, 3.0), (8.0, 18.0))
    elif md.biome == "coastal":
        warp = _fbm(n, rng, 4, n / 8)
        xc = 0.32 * L + 0.06 * L * np.sin(2 * np.pi * Y / L * 2.0) + 220 * warp     # the coastline
        d = X - xc                                                                   # > 0 inland
        cove = _smoothstep((_fbm(n, rng, 2, n / 10) - 0.6) / 0.5)                    # 1 in coves
        plateau = 55 + 90 * _smoothstep(d / 2500.0) + 25 * _fbm(n, rng, 4, n / 12)
        cliff = _smoothstep(d / 36.0)                     # 0 -> 1 over three cells: a cliff face
        beach = _smoothstep(d / 400.0)
        land_t = cliff * (1 - cove) + beach * cove
        seabed = -6 - 0.03 * np.clip(-d, 0, None)
        h = np.where(d > 0, seabed * (1 - land_t) + plateau * land_t, seabed)
        h += 1.5 * _fbm(n, rng, 3, n / 40)
        water = h < 0.0
        s = _slope(h)
        coast_band = (d > 60) & (d < 260)
        trail_cost = 1 + (s / 10.0) ** 2 + 200 * water + 5 * ~coast_band
        trail_cells = _route(trail_cost, (0, int(np.argmax(coast_band[0]))), (n - 1, int(np.argmax(coast_band[-1]))))
        rock = _place(rng, 500, (s > 30) & ~water, SPACING, (1.0, 3.0), (1.0, 3.0))
        trees = _place(rng, 1500, (d > 400) & (s < 20) & (_fbm(n, rng, 3, n / 16) > 0.3), SPACING,
                       (1.5, 3.0), (6.0, 14.0))
    else:                                          # pragma: no cover - MAPS holds only the four
        raise TerrainError(f"no generator for biome {md.biome!r}")
    trail = trail_cells[:, ::-1].astype(float) * SPACING if len(trail_cells) else np.zeros((0, 2))
    t = Terrain(md.name, md.biome, h.astype(np.float32), SPACING, GeoRef("tangent", md.lat0, md.lon0, 0.0),
                sea_level=sea, water=water, trail=trail, trees=_off(trees, trail_cells, water),
                rocks=_off(rock, trail_cells, water), glacier=glacier, time_limit_s=md.time_limit_s)
    return t


def _slope(h: np.ndarray) -> np.ndarray:
    gy, gx = np.gradient(h, SPACING)
    return np.degrees(np.arctan(np.hypot(gx, gy)))


def _thin(path: np.ndarray, step: float = 24.0) -> np.ndarray:
    """Keep trail points about ``step`` m apart."""
    if len(path) < 2:
        return path
    keep, last = [0], path[0]
    for k in range(1, len(path)):
        if np.linalg.norm(path[k] - last) >= step:
            keep.append(k)
            last = path[k]
    if keep[-1] != len(path) - 1:
        keep.append(len(path) - 1)
    return path[keep]


def _off(obs: np.ndarray, trail_cells: np.ndarray, water: np.ndarray) -> np.ndarray:
    """Obstacles off the trail and out of the water."""
    if len(obs) == 0:
        return obs
    i = np.clip(np.round(obs[:, 1] / SPACING).astype(int), 0, water.shape[0] - 1)
    j = np.clip(np.round(obs[:, 0] / SPACING).astype(int), 0, water.shape[1] - 1)
    keep = ~water[i, j]
    if len(trail_cells):
        tr = cKDTree(trail_cells[:, ::-1] * SPACING)
        keep &= tr.query(obs[:, :2])[0] > 2 * SPACING
    return obs[keep]


_CACHE: dict[str, Terrain] = {}


def terrain_for(name: str) -> Terrain:
    """A built-in map (generated once per process) or a DEM given as ``dem:<path>``."""
    if name not in _CACHE:
        _CACHE[name] = load_dem(name[4:]) if name.startswith("dem:") else generate_terrain(name)
    return _CACHE[name]


# ============================================================== DEM loading
def load_dem(path, band: int = 1, name: str | None = None, biome: str = "alpine",
             time_limit_s: float = 1200.0) -> Terrain:
    """A GeoTIFF (or any raster GDAL reads) as a terrain, through rasterio. North-up rasters
    only; nodata cells are filled with the lowest valid height. Projected CRSs keep their
    metres (GPS through the CRS); geographic (degree) rasters become a local tangent plane."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"DEM file {str(p)!r} does not exist")
    try:
        import rasterio
    except ImportError as e:        # pragma: no cover - rasterio is a pinned dependency
        raise TerrainError(f"loading a DEM needs rasterio (pip install rasterio): {e}") from e
    try:
        ds = rasterio.open(p)
    except rasterio.errors.RasterioIOError as e:
        raise TerrainError(f"cannot read DEM {str(p)!r}: {e}") from e
    with ds:
        if band < 1 or band > ds.count:
            raise TerrainError(f"DEM {str(p)!r} has {ds.count} band(s); band {band} asked for")
        a = ds.read(band, masked=True).astype(np.float64)
        tr, crs = ds.transform, ds.crs
    if tr.b != 0 or tr.d != 0:
        raise TerrainError(f"DEM {str(p)!r} is rotated or sheared; only north-up rasters are supported")
    if a.shape[0] < 2 or a.shape[1] < 2:
        raise TerrainError(f"DEM {str(p)!r} is {a.shape}: at least 2 x 2 samples are needed")
    if np.ma.count(a) == 0:
        raise TerrainError(f"DEM {str(p)!r} has no valid height")
    h = np.ma.filled(a, float(a.min()))[::-1] if tr.e < 0 else np.ma.filled(a, float(a.min()))
    dx, dy = abs(tr.a), abs(tr.e)
    x0 = tr.c + 0.5 * tr.a                  # centre of the first column
    y_south = tr.f + (a.shape[0] - 0.5) * tr.e if tr.e < 0 else tr.f + 0.5 * tr.e
    if crs is None:
        raise TerrainError(f"DEM {str(p)!r} has no coordinate reference system: cannot give GPS fixes")
    if crs.is_geographic:
        lat0, lon0 = y_south, x0
        g = GeoRef("tangent", lat0, lon0, 0.0)
        m, nn = g.radii()
        dx_m = math.radians(dx) * nn * math.cos(math.radians(lat0))
        dy_m = math.radians(dy) * m
    else:
        g = GeoRef("crs", crs_wkt=crs.to_wkt(), x_off=x0, y_off=y_south)
        dx_m, dy_m = dx, dy
    if abs(dx_m - dy_m) > 0.02 * max(dx_m, dy_m):
        h = _resample_square(h, dx_m, dy_m)
        dx_m = dy_m = min(dx_m, dy_m)
    return Terrain(name or p.stem, biome, h.astype(np.float32), float(dx_m), g, time_limit_s=time_limit_s)


def _resample_square(h, dx, dy):
    from scipy.ndimage import zoom
    s = min(dx, dy)
    return zoom(h, (dy / s, dx / s), order=1)


# ============================================================== pictures
def hillshade(h: np.ndarray, spacing: float, azimuth_deg: float = 315.0, altitude_deg: float = 45.0) -> np.ndarray:
    """Shaded relief in [0, 1] (the usual GIS formula; row 0 is south)."""
    gy, gx = np.gradient(h.astype(np.float64), spacing)
    slope = np.arctan(np.hypot(gx, gy))
    aspect = np.arctan2(-gx, gy)
    az, alt = np.radians(azimuth_deg), np.radians(altitude_deg)
    sun = np.array([math.sin(az) * math.cos(alt), math.cos(az) * math.cos(alt), math.sin(alt)])
    n = np.stack([-gx, -gy, np.ones_like(gx)], -1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    del slope, aspect
    return np.clip(n @ sun, 0, 1)


def stable_seed(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())
