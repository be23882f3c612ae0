"""How ESAR terrain looks: ground colours by biome, slope and altitude, the ground's
look under the weather (snow cover, wet ground and puddles, dust), and the meshes the
renderer draws (terrain, water, trees, rocks).

Ground colour rules (per grid sample, later rules win):

* base colour of the biome: alpine / snowy peak meadow green, desert sand, coastal grass;
  darker under forest (alpine, snowy peak: samples within 20 m of a tree);
* bare rock where the slope exceeds 35 degrees (28 in the desert, where rock shows sooner);
* beach sand within 3 m above sea level (coastal), scree / dust around desert mesas;
* snow above the biome's snow line (alpine 2250 m, snowy peak 2650 m), blended over 100 m;
  glacier ice on the glacier mask; water blue on water cells; the trail a brown track.

A small per-sample noise (seeded by the map) breaks up flat colours. Weather looks
(``GroundLook``) are applied on top: ``snow`` in [0, 1] whitens gentle slopes (snow does not
stay above 45 degrees), ``wet`` in [0, 1] darkens the ground and fills the flattest low
samples with puddles, ``dust`` in [0, 1] pulls the colours towards a pale ochre.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from hazard_sim.render.mesh import Mesh, heightfield_mesh
from hazard_sim.tasks.esar.terrain import Terrain

TERRAIN_ID, WATER_ID, TREE_ID, ROCK_ID = 1, 2, 3, 4
SCENE_LABELS = {TERRAIN_ID: "terrain", WATER_ID: "water", TREE_ID: "tree", ROCK_ID: "rock"}

BASE = {"alpine": (96, 128, 64), "snowy_peak": (110, 124, 80), "desert": (214, 186, 136), "coastal": (104, 140, 72)}
FOREST = (52, 84, 44)
ROCK = {"alpine": (124, 118, 110), "snowy_peak": (112, 108, 104), "desert": (168, 116, 82), "coastal": (134, 126, 114)}
SNOW, ICE, WATER, SAND, TRAIL = (236, 238, 244), (176, 206, 228), (46, 82, 118), (222, 204, 160), (138, 106, 72)
SNOW_LINE = {"alpine": 2100.0, "snowy_peak": 2750.0}
STEEP = {"desert": 28.0, "alpine": 42.0, "snowy_peak": 42.0}


@dataclass(frozen=True)
class GroundLook:
    snow: float = 0.0
    wet: float = 0.0
    dust: float = 0.0


def base_colors(t: Terrain) -> np.ndarray:
    """(rows, cols, 3) float colours of the bare ground (see the module doc)."""
    h = t.heights.astype(np.float64)
    s = t.slope_deg()
    biome = t.biome if t.biome in BASE else "alpine"
    c = np.empty(h.shape + (3,))
    c[:] = BASE[biome]
    if len(t.trees) and biome in ("alpine", "snowy_peak", "coastal"):
        ij = np.argwhere(np.ones(h.shape, bool))
        d, _ = cKDTree(t.trees[:, :2]).query(ij[:, ::-1] * t.spacing)
        forest = (d < 20.0).reshape(h.shape)
        c[forest] = FOREST
    steep = STEEP.get(biome, 35.0)
    rock_w = np.clip((s - steep) / 8.0, 0, 1)[..., None]
    c = c * (1 - rock_w) + np.asarray(ROCK[biome]) * rock_w
    if t.sea_level is not None:
        beach = (h >= t.sea_level - 1) & (h < t.sea_level + 3) & (s < 25)
        c[beach] = SAND
    if biome in SNOW_LINE:
        sw = np.clip((h - SNOW_LINE[biome]) / 100.0, 0, 1) * np.clip((55 - s) / 10.0, 0, 1)
        c = c * (1 - sw[..., None]) + np.asarray(SNOW) * sw[..., None]
    c[t.glacier] = ICE
    if len(t.trail):
        ij = np.argwhere(np.ones(h.shape, bool))
        d, _ = cKDTree(t.trail).query(ij[:, ::-1] * t.spacing)
        c[(d < 0.6 * t.spacing).reshape(h.shape)] = TRAIL
    c[t.water] = WATER
    rng = np.random.default_rng(len(t.name) * 7919 + h.shape[0])
    c *= (1 + 0.06 * rng.standard_normal(h.shape))[..., None]
    return np.clip(c, 0, 255)


def ground_colors(t: Terrain, look: GroundLook = GroundLook(), base: np.ndarray | None = None) -> np.ndarray:
    """(rows, cols, 3) uint8 ground colours under a weather look."""
    c = (base_colors(t) if base is None else base).copy()
    land = ~t.water
    if look.snow > 0:
        s = t.slope_deg()
        w = look.snow * np.clip((45.0 - s) / 15.0, 0, 1) * land
        c = c * (1 - w[..., None]) + np.asarray(SNOW) * w[..., None]
    if look.wet > 0:
        c[land] *= 1 - 0.35 * look.wet
        s = t.slope_deg()
        h = t.heights
        low = h <= np.quantile(h[land], 0.25) if land.any() else np.zeros(h.shape, bool)
        puddle = land & (s < 3.0 * look.wet) & low
        c[puddle] = np.asarray(WATER) * 0.8 + 40
    if look.dust > 0:
        c = c * (1 - 0.5 * look.dust) + np.asarray((206, 178, 132)) * 0.5 * look.dust
    return np.clip(c + 0.5, 0, 255).astype(np.uint8)


def terrain_mesh(t: Terrain, colors: np.ndarray) -> Mesh:
    return heightfield_mesh(t.heights, (0.0, 0.0), t.spacing, colors=colors, id=TERRAIN_ID)


def water_mesh(t: Terrain) -> Mesh | None:
    """The sea as one flat quad pair at sea level (streams are coloured ground)."""
    if t.sea_level is None or not t.water.any():
        return None
    w, d = t.size
    z = float(t.sea_level)
    v = np.array([[0, 0, z], [w, 0, z], [w, d, z], [0, d, z]], np.float32)
    return Mesh(v, np.array([[0, 1, 2], [0, 2, 3]]), WATER_ID, colors=np.asarray(WATER, np.uint8),
                normals=np.tile([0.0, 0.0, 1.0], (4, 1)))


def _cones(t: Terrain, obs: np.ndarray, sides: int, color, id_: int, snow: float) -> Mesh | None:
    """Obstacles as pyramids (trees: ``sides`` = 4, pointed) or squat octahedra (rocks)."""
    if len(obs) == 0:
        return None
    z0 = t.height_at(obs[:, :2])
    k = len(obs)
    ang = np.arange(sides) * 2 * np.pi / sides
    ring = np.stack([np.cos(ang), np.sin(ang)], -1)                     # (sides, 2)
    base = np.empty((k, sides, 3))
    base[..., :2] = obs[:, None, :2] + obs[:, None, 2:3] * ring[None]
    rock = id_ == ROCK_ID
    base[..., 2] = (z0 + (0.35 * obs[:, 3] if rock else 0.0) - (0.0 if rock else 0.5))[:, None]
    apex = np.column_stack([obs[:, :2], z0 + obs[:, 3]])
    verts = np.concatenate([base.reshape(-1, 3), apex], 0)
    tris = []
    for s_ in range(sides):
        a = np.arange(k) * sides + s_
        b = np.arange(k) * sides + (s_ + 1) % sides
        tris.append(np.stack([a, b, k * sides + np.arange(k)], -1))
    tris = np.concatenate(tris)
    col = np.asarray(color, float)
    cols = np.tile(col, (len(verts), 1))
    if snow > 0:
        cols[k * sides:] = col * (1 - snow) + np.asarray(SNOW) * snow     # snow on the tops
    return Mesh(verts.astype(np.float32), tris.astype(np.int32), id_, colors=np.clip(cols, 0, 255).astype(np.uint8))


def obstacle_meshes(t: Terrain, look: GroundLook = GroundLook(), window=None) -> list[Mesh]:
    """Trees and rocks (all, or those inside ``window`` = (x0, y0, x1, y1))."""
    trees, rocks = t.trees, t.rocks
    if window is not None:
        x0, y0, x1, y1 = window

        def inside(o):
            return o[(o[:, 0] >= x0) & (o[:, 0] <= x1) & (o[:, 1] >= y0) & (o[:, 1] <= y1)]
        trees, rocks = inside(trees), inside(rocks)
    out = [_cones(t, trees, 4, (40, 74, 38) if t.biome != "desert" else (112, 120, 64), TREE_ID, look.snow),
           _cones(t, rocks, 5, (120, 112, 104), ROCK_ID, look.snow)]
    return [m for m in out if m is not None]


def scene_meshes(t: Terrain, look: GroundLook = GroundLook(), base: np.ndarray | None = None) -> list[Mesh]:
    """The whole map at full resolution: terrain, sea, trees and rocks."""
    meshes = [terrain_mesh(t, ground_colors(t, look, base))]
    w = water_mesh(t)
    if w is not None:
        meshes.append(w)
    return meshes + obstacle_meshes(t, look)


# ============================================================== level of detail
LOD_LEVELS = ((1, 384.0), (4, 1536.0), (16, None))   # (sample step, half size of the ring's window in m)


def _seam(h: np.ndarray, ii: np.ndarray, jj: np.ndarray, outer: int) -> None:
    """In place: the border samples of a ring follow the straight edges of the next coarser
    ring (every ``outer``-th sample), so the two meet without cracks."""
    for r in (0, -1):
        anchors = np.unique(np.concatenate([[0, len(jj) - 1], np.nonzero(jj % outer == 0)[0]]))
        h[r, :] = np.interp(jj, jj[anchors], h[r, anchors])
    for c in (0, -1):
        anchors = np.unique(np.concatenate([[0, len(ii) - 1], np.nonzero(ii % outer == 0)[0]]))
        h[:, c] = np.interp(ii, ii[anchors], h[anchors, c])


def _ring(t: Terrain, colors: np.ndarray, step: int, lo_hi, hole, outer: int | None = None) -> Mesh | None:
    """The terrain sampled every ``step`` samples inside the window ``lo_hi`` (sample index
    ranges ((i0, i1), (j0, j1)), inclusive), without the cells inside ``hole`` (same form)."""
    (i0, i1), (j0, j1) = lo_hi
    ii = np.arange(i0, i1 + 1, step)
    jj = np.arange(j0, j1 + 1, step)
    if ii[-1] != i1:
        ii = np.append(ii, i1)
    if jj[-1] != j1:
        jj = np.append(jj, j1)
    if len(ii) < 2 or len(jj) < 2:
        return None
    h = t.heights[np.ix_(ii, jj)].copy()
    if outer is not None:
        _seam(h, ii, jj, outer)
    c = colors[np.ix_(ii, jj)]
    m = heightfield_mesh(h, (jj[0] * t.spacing, ii[0] * t.spacing), t.spacing * step, colors=c, id=TERRAIN_ID)
    verts_x = jj * t.spacing
    verts_y = ii * t.spacing
    v = m.vertices.astype(np.float64)
    m.vertices[:, 0] = np.repeat(verts_x[None], len(ii), 0).reshape(-1)     # uneven last step
    m.vertices[:, 1] = np.repeat(verts_y[:, None], len(jj), 1).reshape(-1)
    del v
    if hole is not None:
        (hi0, hi1), (hj0, hj1) = hole
        tri_v = m.triangles
        ci = np.asarray(ii)[(tri_v // len(jj))]
        cj = np.asarray(jj)[(tri_v % len(jj))]
        inside = ((ci >= hi0) & (ci <= hi1) & (cj >= hj0) & (cj <= hj1)).all(1)
        if inside.all():
            return None
        m = Mesh(m.vertices, tri_v[~inside], TERRAIN_ID, colors=m.colors, normals=m.normals)
    return m


def lod_terrain(t: Terrain, colors: np.ndarray, anchor_xy) -> list[Mesh]:
    """Terrain meshes for a viewpoint near ``anchor_xy``: full resolution close by, every 4th
    sample farther, every 16th for the rest (``LOD_LEVELS``); windows snap to the coarsest
    step so the rings' edges meet on shared samples."""
    rows, cols = t.heights.shape
    snap = LOD_LEVELS[-1][0]
    ai = int(round(anchor_xy[1] / t.spacing / snap)) * snap
    aj = int(round(anchor_xy[0] / t.spacing / snap)) * snap
    out, hole = [], None
    for k, (step, half) in enumerate(LOD_LEVELS):
        outer = LOD_LEVELS[k + 1][0] if k + 1 < len(LOD_LEVELS) else None
        if half is None:
            win = ((0, rows - 1), (0, cols - 1))
        else:
            k = int(round(half / t.spacing / snap)) * snap
            win = ((max(0, ai - k), min(rows - 1, ai + k)), (max(0, aj - k), min(cols - 1, aj + k)))
        m = _ring(t, colors, step, win, hole, outer)
        if m is not None:
            out.append(m)
        hole = win
        if win == ((0, rows - 1), (0, cols - 1)):
            break
    return out
