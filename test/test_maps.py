"""MapSpec, tiled layers, 2.5-D heights, dense windows and A* on them; km-scale memory."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from hazard_sim.navigation.grid import GridSpec
from hazard_sim.navigation.maps import HeightLayer, MapSpec, TiledLayer, new_layer, plan_in_window
from hazard_sim.navigation.observed_map import ObservedMap

KM5 = (0.0, 0.0, 5000.0, 5000.0)


def test_cell_indices_by_hand():
    spec = MapSpec((-10.0, -20.0, 4990.0, 4980.0), 5.0, tile=64)
    assert spec.shape == (1000, 1000) and spec.cells == 1_000_000
    i, j, inside = spec.cells_of(np.array([[2.5, -13.0], [-10.0, -20.0], [4989.9, 4979.9], [-10.1, 0.0]]))
    assert i.tolist() == [1, 0, 999, 4] and j.tolist() == [2, 0, 999, -1]
    assert inside.tolist() == [True, True, True, False]
    assert spec.to_cell((2.5, -13.0)) == (1, 2)                       # the dense GridSpec API still holds
    np.testing.assert_allclose(spec.to_world((1, 2)), [2.5, -12.5])
    w = spec.window_around((2.5, -13.0), 10.0)                        # 2 cells each side, clipped at row 0
    assert (w.i0, w.j0, w.h, w.w) == (0, 0, 4, 5)
    assert w.grid.bounds == (-10.0, -20.0, 15.0, 0.0) and w.grid.shape == (4, 5)
    assert MapSpec.from_extent((0, 0), (5000, 5000), 0.5).bounds == (-2500.0, -2500.0, 2500.0, 2500.0)
    with pytest.raises(ValueError, match="resolution"):
        MapSpec(KM5, 0.0)
    with pytest.raises(ValueError, match="empty map bounds"):
        MapSpec((0.0, 0.0, 0.0, 5.0), 0.1)


def test_auto_spec_tiles_only_large_maps():
    assert MapSpec.auto((0, 0, 20, 12), 0.1).tile is None            # HAZARD's rooms stay dense
    assert MapSpec.auto(KM5, 5.0).tile is None                        # 1000 x 1000 cells
    assert MapSpec.auto(KM5, 0.5).tile == 256                         # 10^8 cells: tiled
    assert MapSpec.auto(KM5, 0.5, tile=0).tile is None
    assert isinstance(new_layer(MapSpec.auto(KM5, 0.5), np.int8), TiledLayer)
    assert isinstance(new_layer(GridSpec((0, 0, 2, 2), 0.1), np.int8), np.ndarray)


def test_tiled_layer_behaves_like_a_dense_array():
    spec = MapSpec((0.0, 0.0, 3.7, 2.9), 0.1, tile=8)                # 29 x 37 cells, partial edge tiles
    rng = np.random.default_rng(3)
    dense, tiled = np.zeros(spec.shape, np.int32), TiledLayer(spec, np.int32, 0)
    for _ in range(20):
        i = rng.integers(0, spec.shape[0], 50)
        j = rng.integers(0, spec.shape[1], 50)
        dense[i, j] += 1                                             # duplicates count once, as numpy
        tiled[i, j] += 1
        v = rng.integers(-5, 5, 50)
        dense[i[:10], j[:10]] = v[:10]
        tiled[i[:10], j[:10]] = v[:10]
    dense[3:20, 5:30] = 7
    tiled[3:20, 5:30] = 7
    np.testing.assert_array_equal(tiled[...], dense)
    np.testing.assert_array_equal(tiled[2:21, 0:37], dense[2:21, 0:37])
    np.testing.assert_array_equal(tiled[np.array([0, 28]), np.array([36, 0])], dense[[0, 28], [36, 0]])
    assert tiled[4, 6] == 7
    with pytest.raises(IndexError):
        tiled[np.array([29]), np.array([0])] = 1


def test_unwritten_tiles_read_as_fill_and_cost_nothing():
    layer = TiledLayer(MapSpec(KM5, 0.5, tile=256), np.float32, np.nan)
    assert np.isnan(layer[5000, 5000]) and layer.tiles == {} and layer.nbytes == 0
    layer[0:10000, 0:10000] = np.nan                                  # writing the fill allocates nothing
    assert layer.tiles == {}
    layer[511, 256] = 1.5                                             # rows 256..511, cols 256..511
    assert list(layer.tiles) == [(1, 1)] and layer.nbytes == 256 * 256 * 4
    win = layer[500:520, 250:260]
    assert win.shape == (20, 10) and win[11, 6] == 1.5 and np.isnan(win).sum() == 199


@pytest.mark.parametrize("resolution,tile,tiles_per_line", [(5.0, 64, 16), (0.5, 256, 40), (0.1, 256, 196)])
def test_a_5km_line_allocates_only_the_tiles_it_crosses(resolution, tile, tiles_per_line):
    """5000 m / resolution cells per side; ceil(cells / tile) tiles per row: 16, 40, 196."""
    spec = MapSpec(KM5, resolution, tile=tile)
    n = spec.shape[1]
    assert -(-n // tile) == tiles_per_line
    xs = (np.arange(n) + 0.5) * resolution
    tracemalloc.start()
    try:
        layer = TiledLayer(spec, np.uint8, 0)
        i, j, _ = spec.cells_of(np.stack([xs, np.full(n, 1000.25)], axis=1))     # a west-east line
        layer[i, j] = 1
        i, j, _ = spec.cells_of(np.stack([xs, xs], axis=1))                       # and the diagonal
        layer[i, j] = 2
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    row = int(1000.25 / resolution) // tile
    diagonal = {(t, t) for t in range(tiles_per_line)}
    assert set(layer.tiles) == {(row, t) for t in range(tiles_per_line)} | diagonal
    assert len(layer.tiles) == 2 * tiles_per_line - 1                              # one tile shared
    tiles_bytes = len(layer.tiles) * tile * tile
    assert layer.nbytes == tiles_bytes
    # tiles + the per-call index arrays (a few int64 per cell of the line) + 1 MiB slack
    bound = tiles_bytes + 12 * 8 * n + (1 << 20)
    assert peak < bound, (peak, bound)
    print(f"5 km line at {resolution} m, tile {tile}: {len(layer.tiles)} tiles, {layer.nbytes / 2**20:.2f} MiB "
          f"(dense would be {spec.cells / 2**20:.0f} MiB), tracemalloc peak {peak / 2**20:.2f} MiB")


def test_height_layer_keeps_the_maximum():
    spec = MapSpec((0.0, 0.0, 100.0, 100.0), 1.0, tile=32)
    h = HeightLayer(spec)
    pts = np.array([[10.2, 20.7, 3.0], [10.9, 20.1, 7.0], [10.5, 20.5, 5.0],      # one cell (20, 10)
                    [40.0, 40.0, np.nan], [-1.0, 5.0, 50.0], [99.5, 0.5, -2.0]])
    assert h.add_points(pts) == 4                                                 # NaN and outside dropped
    h.add_points(np.array([[10.5, 20.5, 6.0]]))                                   # lower: no change
    assert h[20, 10] == 7.0 and h[0, 99] == -2.0 and np.isnan(h[40, 40])
    assert set(h.tiles) == {(0, 0), (0, 3)}
    w = spec.window_around((10.5, 20.5), 2.0)
    blocked = h.blocked(w, altitude=8.0, clearance=1.5)                           # flies at 8 m, keeps 1.5 m
    assert blocked.sum() == 1 and blocked[w.local((20, 10))]
    assert not h.blocked(w, altitude=9.0, clearance=1.5).any()


def _wall_points(spec_bounds, x_wall: float, gap: tuple[float, float]) -> np.ndarray:
    """Points of a 1 m high wall at x = x_wall over the map's y range, open in ``gap``."""
    ys = np.arange(spec_bounds[1] + 0.05, spec_bounds[3], 0.1)
    ys = ys[(ys < gap[0]) | (ys > gap[1])]
    return np.stack([np.full_like(ys, x_wall), ys, np.full_like(ys, 1.0)], axis=1)


def test_tiled_observed_map_matches_the_dense_one():
    bounds = (0.0, 0.0, 12.0, 8.0)
    dense = ObservedMap(GridSpec(bounds, 0.1), 0.25)
    tiled = ObservedMap(MapSpec(bounds, 0.1, tile=16), 0.25)
    rng = np.random.default_rng(0)
    pts = np.concatenate([rng.uniform([0, 0, 0], [12, 8, 1.5], (4000, 3)),
                          np.c_[rng.uniform([0, 0], [12, 8], (2000, 2)), np.zeros(2000)]]).reshape(60, 100, 3)
    for m in (dense, tiled):
        m.integrate(pts, stride=1)
        m.bump((6.05, 4.05), [(3, 3)])
    np.testing.assert_array_equal(tiled.occupancy(), dense.occupancy())
    np.testing.assert_array_equal(tiled.blocked(), dense.blocked())
    w = tiled.spec.window(20, 30, 25, 40)
    np.testing.assert_array_equal(tiled.blocked(w), dense.blocked()[w.slices])   # padding sees outside
    np.testing.assert_array_equal(tiled.occupancy(w), dense.occupancy()[w.slices])


def test_astar_on_a_window_of_a_large_map():
    spec = MapSpec(KM5, 0.1, tile=128)                       # 50 000 x 50 000 cells, 2.5e9: tiled only
    m = ObservedMap(spec, 0.25)
    wall = _wall_points((0.0, 1990.0, 0.0, 2010.0), 3005.0, (2004.0, 2005.0))     # door at y 2004..2005
    m.integrate(wall.reshape(1, -1, 3), stride=1)
    start, goal = (3002.0, 2001.0), (3008.0, 2001.0)
    w = spec.window_covering([start, goal], 6.0)
    blocked = m.blocked(w)
    assert w.shape == (121, 181) and blocked.any()
    path = plan_in_window(w, blocked, start, goal)
    assert path is not None
    np.testing.assert_allclose(path[0], [3002.05, 2001.05], atol=1e-6)
    np.testing.assert_allclose(path[-1], [3008.05, 2001.05], atol=1e-6)
    assert path[:, 1].max() > 2004.0                          # through the door, not through the wall
    length = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert 8.7 < length < 9.5        # via the free part of the door (y >= 2004.2): 2 x |(3, 3.2)| = 8.8 m
    assert plan_in_window(w, np.ones(w.shape, bool), start, goal) is None
    assert plan_in_window(w, blocked, start, (4000.0, 2001.0)) is None          # goal outside the window
    with pytest.raises(ValueError, match="do not match"):
        plan_in_window(w, blocked[1:], start, goal)
    assert set(m.hits.tiles) == {(155, 234), (156, 234), (157, 234)}              # rows 19900..20099


@pytest.mark.parametrize("resolution", [5.0, 0.5])
def test_5km_observed_map_memory(resolution):
    """A 5 km x 5 km ObservedMap (auto spec: dense at 5 m, tiled at 0.5 m) takes a 100 m wide
    scan of points and a dense window for planning within a computed memory bound."""
    tracemalloc.start()
    try:
        spec = MapSpec.auto(KM5, resolution)
        m = ObservedMap(spec, 0.25)
        rng = np.random.default_rng(1)
        pts = np.c_[rng.uniform(2450, 2550, (20000, 2)), rng.uniform(0.0, 1.5, 20000)].reshape(100, 200, 3)
        m.integrate(pts, stride=1)
        w = spec.window_around((2500.0, 2500.0), 50.0)
        blocked = m.blocked(w)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert blocked.any()
    h, wd = spec.shape
    if spec.tiled:
        # 100 m = 200 cells: at most 2 x 2 tiles per layer touched (3 layers, <= 4 B a cell)
        layer_bytes = 3 * 4 * 256 * 256 * 4
        assert len(m.hits.tiles) <= 4 and len(m.seen_free.tiles) <= 4
    else:
        layer_bytes = h * wd * (4 + 1 + 1)                   # int32 hits, bool seen / bumped
    window_bytes = 40 * (w.h + 20) * (w.w + 20)               # inflation's temporaries
    points_bytes = 20000 * 3 * 8 * 4                          # the cloud and its index arrays
    bound = layer_bytes + window_bytes + points_bytes + (1 << 20)
    assert peak < bound, (peak, bound)
    print(f"5 km ObservedMap at {resolution} m ({'tiled' if spec.tiled else 'dense'}, {h} x {wd} cells): "
          f"tracemalloc peak {peak / 2**20:.2f} MiB (bound {bound / 2**20:.2f} MiB)")
