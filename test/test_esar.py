"""ESARBench: terrain, GPS, DEM, UAV dynamics, metrics, scenario rules, sensors, weather,
the task through the env, baselines on every tier, the AirSim-style API and bad input."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import cli_runs

from hazard_sim.core.embodiment import Twist
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.outcome import Status
from hazard_sim.embodiment.multirotor import CAMERAS, CommandError, Multirotor, MultirotorSpec
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.esar.scenario import (
    TIERS,
    DatasetError,
    difficulty,
    load_dataset,
    tier_of,
    validate_dataset,
    validate_episode,
)
from hazard_sim.tasks.esar.task import ActionError, EsarScoring, hungarian_matches, parse_action, score
from hazard_sim.tasks.esar.terrain import GeoRef, Terrain, load_dem, terrain_for
from hazard_sim.tasks.esar.weather import WEATHERS, WeatherError, daylight, weather

CAM = CameraSpec(32, 32, 90.0)


def small_terrain(sea=None) -> Terrain:
    return Terrain("t", "alpine", np.array([[0.0, 10.0], [20.0, 30.0]]), 10.0, GeoRef("tangent", 45.0, 7.0),
                   sea_level=sea)


# ------------------------------------------------------------------ terrain and GPS
def test_height_queries_match_hand_values_and_the_drawn_mesh():
    t = small_terrain()
    # cell split along (0,0)-(10,10): upper triangle (00, 01, 11) where x >= y
    assert t.height_at((5.0, 0.0)) == pytest.approx(5.0)
    assert t.height_at((0.0, 5.0)) == pytest.approx(10.0)
    assert t.height_at((5.0, 5.0)) == pytest.approx(15.0)
    assert t.height_at((7.5, 2.5)) == pytest.approx(12.5)          # 0 + 0.75 * 10 + 0.25 * 20
    assert t.height_at((2.5, 7.5)) == pytest.approx(17.5)          # 0 + 0.75 * 20 + 0.25 * 10
    assert t.height_at(np.array([[10.0, 10.0], [0.0, 0.0]])).tolist() == pytest.approx([30.0, 0.0])
    from hazard_sim.render.backend import make_renderer
    from hazard_sim.render.mesh import heightfield_mesh
    r = make_renderer(CAM, "raycast")
    r.set_static([], np.zeros(0, np.int32), np.zeros((0, 3), np.uint8))
    r.set_static_meshes([heightfield_mesh(t.heights, (0, 0), 10.0, colors=(100, 100, 100))])
    pts = np.array([[7.5, 2.5], [2.5, 7.5], [3.0, 3.0], [9.0, 1.0]])
    rays = np.hstack([np.column_stack([pts, np.full(4, 100.0)]), np.tile([0, 0, -1.0], (4, 1))]).astype(np.float32)
    hit_z = 100.0 - r.cast_rays(rays)
    assert hit_z == pytest.approx(t.height_at(pts), abs=1e-3)


def test_free_space_and_crash_surface():
    t = small_terrain(sea=12.0)
    assert t.free_space(np.array([5.0, 5.0, 16.0]), 0.5)            # 1 m above the ground (15 m)
    assert not t.free_space(np.array([5.0, 5.0, 15.2]), 0.5)
    assert not t.free_space(np.array([5.0, 0.0, 12.3]), 0.5)        # ground 5 m, sea surface 12 m
    assert not t.free_space(np.array([-1.0, 5.0, 100.0]), 0.5)      # off the map


def test_gps_tangent_plane_against_hand_computed_values():
    g = GeoRef("tangent", 45.0, 7.0)
    # WGS84 at 45 deg: M = a (1 - e2) / (1 - e2 sin^2)^1.5 = 6367381.82 m, N = a / sqrt(...) = 6388838.29 m
    m, n = g.radii()
    assert m == pytest.approx(6367381.82, abs=0.01) and n == pytest.approx(6388838.29, abs=0.01)
    lat, lon, alt = g.to_latlon(1000.0, 1000.0, 50.0)
    assert float(lat) == pytest.approx(45.0089983263, abs=1e-9)     # 45 + deg(1000 / M)
    assert float(lon) == pytest.approx(7.0126828172, abs=1e-9)      # 7 + deg(1000 / (N cos 45))
    assert float(alt) == 50.0
    x, y, _ = g.from_latlon(lat, lon)
    assert (float(x), float(y)) == pytest.approx((1000.0, 1000.0), abs=1e-6)


def test_dem_geotiff_is_loaded_with_its_georeference(tmp_path):
    rasterio = pytest.importorskip("rasterio")
    from rasterio.transform import from_origin
    h = np.arange(12, dtype=np.float32).reshape(3, 4) * 10.0       # row 0 is the north edge
    p = tmp_path / "dem.tif"
    tr = from_origin(500000.0 - 15.0, 5000000.0 + 15.0, 30.0, 30.0)   # UTM 32N, pixel centres on the grid
    with rasterio.open(p, "w", driver="GTiff", height=3, width=4, count=1, dtype="float32",
                       crs="EPSG:32632", transform=tr) as ds:
        ds.write(h, 1)
    t = load_dem(p)
    assert t.spacing == 30.0 and t.shape == (3, 4)
    assert t.heights[0].tolist() == [80.0, 90.0, 100.0, 110.0]     # south row first
    assert t.height_at((30.0, 60.0)) == pytest.approx(10.0)
    # the north-west sample is easting 500000 (the zone's central meridian: lon 9 exactly),
    # northing 5000000: lat 45.1539 deg
    lat, lon, _ = t.gps((0.0, 60.0, 0.0))
    assert lon == pytest.approx(9.0, abs=1e-9) and lat == pytest.approx(45.1539, abs=1e-3)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_dem(tmp_path / "missing.tif")


def test_generated_maps_are_deterministic_and_sized():
    a = terrain_for("alpine")
    from hazard_sim.tasks.esar.terrain import generate_terrain
    b = generate_terrain("alpine")
    assert np.array_equal(a.heights, b.heights) and np.array_equal(a.trees, b.trees)
    assert a.size[0] == pytest.approx(2000, abs=12) and a.spacing == 12.0
    assert a.heights.max() - a.heights.min() > 500                  # real relief: ridges over a valley
    assert len(a.trail) > 20 and a.water.any() and len(a.trees) > 500


# ------------------------------------------------------------------ the UAV
def test_uav_velocity_command_respects_acceleration_speed_yaw_and_ceiling():
    spec = MultirotorSpec()
    b = Multirotor((0.0, 0.0, 100.0), 0.0, spec, ceiling=103.0)
    free = lambda p: True  # noqa: E731
    for _ in range(10):                                             # 1 s at 30 m/s asked: 5 m/s^2 limit
        b.apply(Twist(30.0, 0.0, 0.0, 0.0), 0.1, free)
    assert b.vel[0] == pytest.approx(5.0) and b.vel[1] == pytest.approx(0.0, abs=1e-9)
    b.apply(Twist(0.0, 0.0, 0.0, 5.0), 0.1, free)                   # yaw rate clipped to 90 deg/s
    assert b.yaw_rate == pytest.approx(spec.max_yaw_rate) and b.yaw == pytest.approx(spec.max_yaw_rate * 0.1)
    for _ in range(40):
        b.apply(Twist(30.0, 0.0, 10.0, 0.0), 0.1, free)
    assert np.linalg.norm(b.vel[:2]) == pytest.approx(spec.max_speed)
    assert b.z == pytest.approx(103.0) and not b.crashed            # climb stops at the ceiling
    with pytest.raises(CommandError, match="finite"):
        b.apply(Twist(float("nan")), 0.1, free)


def test_uav_crashes_into_the_ground_and_stays_down():
    t = small_terrain()
    b = Multirotor((5.0, 1.0, 8.0), 0.0, MultirotorSpec())
    free = lambda p: t.free_space(p, b.radius)  # noqa: E731
    for _ in range(40):
        b.apply(Twist(0.0, 0.0, -4.0, 0.0), 0.1, free)
    assert b.crashed and b.crash_point[2] - b.radius <= t.height_at(b.crash_point[:2]) + 1e-6
    z = b.z
    m = b.apply(Twist(0.0, 0.0, 4.0, 0.0), 0.1, free)
    assert not m.moved and b.z == z


# ------------------------------------------------------------------ metrics
def test_hungarian_sr_matches_one_to_one_where_greedy_would_not():
    victims = np.array([[0.0, 0, 0], [30.0, 0, 0]])
    preds = np.array([[12.0, 0, 0], [-18.0, 0, 0]])   # greedy: victim 0 takes the 12 m one, victim 1 none
    pairs = hungarian_matches(victims, preds, 20.0)
    assert sorted(pairs) == [(0, 1), (1, 0)]
    cfg = EsarScoring()
    m = score(victims, [((12.0, 0.0, 0.0), 100.0), ((-18.0, 0.0, 0.0), 300.0)], [], [], 400.0, 900.0, True, cfg)
    assert m["sr"] == 100.0 and m["victims_found"] == 2
    assert m["tsr"] == pytest.approx(100 * ((1 - 300 / 900) + (1 - 100 / 900)) / 2)
    # two estimates next to one victim count once
    m = score(victims, [((1.0, 0.0, 0.0), 10.0), ((2.0, 0.0, 0.0), 10.0)], [], [], 400.0, 900.0, True, cfg)
    assert m["sr"] == 50.0


def test_false_victims_name_what_the_unpaired_estimates_lay_on():
    from hazard_sim.tasks.esar.task import false_victims
    victims = [(0.0, 0, 0), (100.0, 0, 0)]
    clues = [("tent", (50.0, 0, 0)), ("campfire", (0.0, 60, 0))]
    reports = [((3.0, 0.0, 0.0), 10.0),      # victim 0 (paired)
               ((4.0, 0.0, 0.0), 11.0),      # a second estimate of victim 0: unpaired, 4 m from it
               ((57.0, 0.0, 0.0), 12.0),     # 7 m from the tent, 43 m from victim 1
               ((0.0, 74.0, 0.0), 13.0),     # 14 m from the campfire (within 15 m)
               ((0.0, -40.0, 0.0), 14.0)]    # 40 m from everything
    got = false_victims(victims, reports, clues, EsarScoring())
    assert got == {"clue:campfire": 1, "clue:tent": 1, "nothing": 1, "victim": 1}
    assert false_victims(victims, [((99.0, 1.0, 0.0), 5.0)], clues, EsarScoring()) == {}
    assert false_victims([], [((0.0, 76.0, 0.0), 5.0)], clues, EsarScoring()) == {"nothing": 1}   # 16 m: too far


def test_false_victim_summary_sums_what_the_reports_lay_on():
    from hazard_sim.tasks.esar.paper import aggregate, false_victim_summary, table_rows
    base = {"sr": 0.0, "tsr": 0.0, "cds": 0.0, "rs": 10.0, "safe": True, "tier": "Simple", "time_of_day": 12.0,
            "weather": "clear"}
    rows = [dict(base, false_victims={"clue:tent": 1, "nothing": 2}), dict(base, false_victims={}),
            dict(base, false_victims={"clue:tent": 2}), dict(base)]          # the last: an older result
    assert false_victim_summary(rows) == {"tasks": 3, "tasks_with": 2, "reports": 5,
                                          "on": {"clue:tent": 3, "nothing": 2}}
    assert false_victim_summary([base]) is None
    text = table_rows("esar", [dict(aggregate(rows), agent="probmap")])
    assert "probmap: false victim reports 5 in 2 of 3 tasks" in text and "clue:tent 3, nothing 2" in text


def test_cds_and_rs_formula_worked_example():
    clues = [("tent", (0, 0, 0)), ("backpack", (100, 0, 0)), ("jacket", (200, 0, 0)), ("rope", (300, 0, 0))]
    reports = [("tent", (5, 0, 0), 10.0), ("helmet", (103, 0, 0), 20.0), ("tent", (900, 0, 0), 30.0)]
    m = score([(0, 500, 0)], [((3.0, 505.0, 0.0), 200.0)], clues, reports, 300.0, 900.0, True, EsarScoring())
    assert m["cds"] == pytest.approx(100 * (0.5 * 2 / 4 + 0.5 * 1 / 4))           # 37.5
    assert m["rs"] == pytest.approx(100 * (0.6 * 1 + 0.1 * 1 + 0.2 * 0.375 + 0.1 * (1 - 300 / 900)))
    m = score([(0, 500, 0)], [], clues, [], 300.0, 900.0, False, EsarScoring(w_sr=0.25, w_safe=0.25,
                                                                             w_cds=0.25, w_time=0.25))
    assert m["rs"] == 0.0 and m["cds"] == 0.0
    with pytest.raises(ValueError, match="sum to 1"):
        EsarScoring(w_sr=0.9)


# ------------------------------------------------------------------ scenario rules
def test_dataset_shape_rules_and_tiers():
    data = load_dataset()
    assert data["version"] == "esar-v1" and len(data["events"]) == 12 and len(data["tasks"]) == 600
    assert sum(len(e["snapshots"]) for e in data["events"]) == 60
    assert {t["tier"] for t in data["tasks"]} == set(TIERS)
    for e in data["events"]:
        t = terrain_for(e["map"])
        ceiling = float(t.heights.max()) + 400.0
        slope = t.slope_deg()
        lkp = np.array(e["lkp"][:2])
        for s in e["snapshots"]:
            for v in s["victims"]:
                p = np.array(v["position"])
                i, j = int(round(p[1] / t.spacing)), int(round(p[0] / t.spacing))
                assert 100 <= p[0] <= t.size[0] - 100 and 100 <= p[1] <= t.size[1] - 100
                assert not t.water[i, j] and slope[i, j] <= 38.0 + 1e-6
                # reachable: a UAV can hover 10 m above it, under the ceiling
                assert t.free_space(np.array([p[0], p[1], t.surface_at(p) + 10.0]), 0.5)
                assert t.surface_at(p) + 10.0 < ceiling
            classes = [c["class"] for c in s["clues"]]
            first = min(np.linalg.norm(np.array(c["position"][:2]) - lkp) for c in s["clues"])
            assert first < 120.0                                  # the trail of items starts at the LKP
            if s["snapshot"] >= 2:
                assert {"tent", "campfire"} <= set(classes)
            if s["snapshot"] == 4:
                vp = np.array(s["victims"][0]["position"][:2])
                sos = [c for c in s["clues"] if c["class"] == "sos_sign"]
                assert sos and np.linalg.norm(np.array(sos[0]["position"][:2]) - vp) < 80.0
    for tk in data["tasks"][:60]:
        ev = data["events"][tk["event"]]
        assert tk["weather"] in WEATHERS and terrain_for(ev["map"]).biome in WEATHERS[tk["weather"]].biomes
        d = difficulty(WEATHERS[tk["weather"]].severity, tk["light"], tk["start_distance"],
                       {"alpine": 2000, "desert": 2000, "snowy_peak": 3000, "coastal": 5000}[ev["map"]],
                       tk["clues_near_victims"])
        assert d == pytest.approx(tk["difficulty"], abs=2e-3) and tk["tier"] == tier_of(tk["difficulty"])


def test_scenario_generation_is_deterministic_for_an_event():
    from hazard_sim.tasks.esar.scenario import _route, _snapshots
    t = terrain_for("alpine")
    slope = t.slope_deg()
    outs = []
    for _ in range(2):
        rng = np.random.default_rng([11, 2024])
        lkp, route = _route(t, "lost_hiker", rng, slope)
        snaps = _snapshots(t, "lost_hiker", lkp, route, rng, slope)     # as generate() does
        outs.append(json.dumps(snaps[3], default=float))
    assert outs[0] == outs[1]
    stored = load_dataset()["events"][0]["snapshots"][3]
    assert json.loads(outs[0])["victims"][0]["position"] == stored["victims"][0]["position"]


def test_every_event_is_one_timeline():
    """Issue 17: items dropped in snapshot k are still there, same class and place, in every
    later snapshot, and new ones are added; the victim moves on along the route; a route never
    comes back to where it has been (the old event 0 revisited 28 of its 37 points)."""
    data = load_dataset()
    for e in data["events"]:
        route = np.array(e["route"])
        assert len(route) >= 3
        for i in range(2, len(route)):            # no point within half a 24 m step of an earlier one
            assert np.min(np.linalg.norm(route[:i - 1] - route[i], axis=1)) >= 12.0 - 0.2, (e["event"], i)
        snaps = e["snapshots"]
        for a, b in zip(snaps, snaps[1:]):
            before = [(c["class"], tuple(c["position"])) for c in a["clues"]]
            after = [(c["class"], tuple(c["position"])) for c in b["clues"]]
            assert after[:len(before)] == before, f"event {e['event']}: items changed between snapshots"
            assert len(after) >= len(before)
        assert len(snaps[-1]["clues"]) > len(snaps[0]["clues"])      # items accumulate
        # the victim moves on: the route distance of its nearest route point grows snapshot by snapshot
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(route, axis=0), axis=1))])
        s_v = [arc[int(np.argmin(np.linalg.norm(route - np.array(s["victims"][0]["position"][:2]), axis=1)))]
               for s in snaps]
        assert all(s_v[k + 1] >= s_v[k] - 30.0 for k in range(len(s_v) - 1)), (e["event"], s_v)
        assert s_v[-1] > s_v[0]
        if e["story"] == "group":                                     # the hurt companion stays put
            assert len({tuple(s["victims"][1]["position"]) for s in snaps}) == 1


# ------------------------------------------------------------------ env, sensors, weather
def _episode(**kw):
    from hazard_sim.core.spec import get_spec
    ep = get_spec("esar").dataset.load("test", 21)
    ep.update(kw)
    return ep


def test_env_observes_four_cameras_lidar_imu_gps_altimeter():
    env = EmbodiedEnv("esar", episode_spec=_episode(), camera=CAM)
    obs, info = env.reset()
    assert set(obs["cameras"]) == set(CAMERAS) and env.camera.far == 8000.0
    b = env.agent
    bottom = obs["cameras"]["bottom_center"]
    agl = b.z - env.world.scene.terrain.surface_at(b.position)
    assert float(np.nanmedian(bottom["depth"][12:20, 12:20])) == pytest.approx(agl + 0.1, rel=0.1)
    assert obs["altitude"][1] == pytest.approx(agl) and obs["altitude"][0] == pytest.approx(b.z)
    lat, lon, _ = env.world.scene.terrain.gps(b.position)
    assert obs["gps"][:2] == pytest.approx([lat, lon])
    assert obs["imu"]["linear_acceleration"][2] == pytest.approx(9.81)
    pts = obs["lidar"][np.isfinite(obs["lidar"][:, 0])]
    assert len(pts) > 100 and np.all(np.linalg.norm(pts, axis=1) <= 300.0)
    assert info["labels"][1] == "terrain" and "victim" in info["labels"].values()


def test_night_is_dark_and_fog_hides_things_from_the_detection_track():
    def frame(**kw):
        env = EmbodiedEnv("esar", episode_spec=_episode(**kw), camera=CameraSpec(64, 64, 90.0))
        obs, _ = env.reset()
        return obs["cameras"]["front_center"]
    day, night = frame(time_of_day=12.0, weather="clear"), frame(time_of_day=1.0, weather="clear")
    fog = frame(time_of_day=12.0, weather="fog")
    assert night["rgb"].mean() < 0.3 * day["rgb"].mean()
    assert (night["seg_visible"] > 0).sum() < 0.2 * (day["seg_visible"] > 0).sum()
    assert (fog["seg_visible"] > 0).sum() < (day["seg_visible"] > 0).sum()
    assert np.array_equal(fog["seg"], day["seg"])                    # ground truth is unchanged
    assert daylight(12.0, 46.5) > 0.95 and daylight(0.5, 46.5) < 0.1


def test_rain_is_drawn_by_a_post_effect_and_is_deterministic():
    a = EmbodiedEnv("esar", episode_spec=_episode(weather="rain", time_of_day=12.0), camera=CAM)
    b = EmbodiedEnv("esar", episode_spec=_episode(weather="rain", time_of_day=12.0), camera=CAM)
    c = EmbodiedEnv("esar", episode_spec=_episode(weather="overcast", time_of_day=12.0), camera=CAM)
    oa, ob, oc = a.reset()[0], b.reset()[0], c.reset()[0]
    assert np.array_equal(oa["rgb"], ob["rgb"])
    assert not np.array_equal(oa["rgb"], oc["rgb"])
    assert [p.name for p in a.world.processes] == ["daylight", "weather", "wind_field", "terrain_view"]


def test_crash_ends_the_episode_as_unsafe():
    env = EmbodiedEnv("esar", episode_spec=_episode(weather="clear"), camera=CAM)
    env.reset()
    for _ in range(30):
        _, _, term, trunc, info = env.step("descend")
        if term:
            break
    m = env.metrics()
    assert term and info["crashed"] and info["action_result"]["status"] == Status.BLOCKED.value
    assert m["safe"] is False and m["crashed"] is True and m["rs"] == 0.0


# ------------------------------------------------------------------ bad input
def test_bad_input_gets_clear_errors():
    with pytest.raises(WeatherError, match="unknown weather 'tornado'"):
        weather("tornado")
    with pytest.raises(WeatherError, match="does not occur on the desert map"):
        weather("snowstorm", "desert")
    with pytest.raises(DatasetError, match="unknown weather"):
        validate_episode(_episode(weather="tornado"))
    with pytest.raises(DatasetError, match="time_of_day"):
        validate_episode(_episode(time_of_day=25))
    with pytest.raises(DatasetError, match="version"):
        validate_dataset({"version": "esar-v0", "events": [], "tasks": []})
    bad = json.loads(json.dumps(load_dataset()))
    bad["events"][0]["snapshots"][0]["clues"][0]["class"] = "ufo"
    with pytest.raises(DatasetError, match=r"event 0 snapshot 0: clues\[0\].class 'ufo' is not one of"):
        validate_dataset(bad)
    with pytest.raises(ActionError, match="unknown ESAR action"):
        parse_action("fly_to_the_moon")
    with pytest.raises(ActionError, match="unknown clue class"):
        parse_action({"action": "hover", "clues": [{"class": "ufo", "position": [0, 0, 0]}]})
    with pytest.raises(ActionError, match="finite"):
        parse_action({"action": {"type": "velocity", "vx": float("inf")}})
    env = EmbodiedEnv("esar", episode_spec=_episode(), camera=CAM)
    env.reset()
    _, _, _, _, info = env.step({"action": {"type": "velocity", "vx": 30.0, "duration": 1.0}})
    res = info["action_result"]
    assert res["status"] == Status.INVALID.value and "limits" in res["reason"]
    _, _, _, _, info = env.step({"action": {"type": "goto", "position": [-50.0, 0.0, 2000.0]}})
    res = info["action_result"]
    assert res["status"] == Status.INVALID.value and "outside the map" in res["reason"]


# ------------------------------------------------------------------ baselines, CLI, API
@pytest.mark.parametrize("tier", TIERS)
def test_every_baseline_runs_on_every_tier(tier):
    from hazard_sim.runner import run_episode
    data = load_dataset()
    ep = next(t["index"] for t in data["tasks"] if t["tier"] == tier and t["map"] != "coastal")
    for agent in ("random", "lawnmower", "frontier", "probmap"):
        m = run_episode("esar", "test", ep, agent, 0, camera=CAM, frame_limit=400)
        assert m["tier"] == tier and m["victims"] >= 1 and 0 <= m["sr"] <= 100 and 0 <= m["rs"] <= 100
        assert m["time_s"] <= 40.0 + 1e-6 and m["actions"] >= 1
        if agent != "random":
            assert m["safe"], f"{agent} crashed on {tier} task {ep}"


def test_cli_json_is_deterministic(capsys):
    args = ["run", "--benchmark", "esar", "--split", "test", "--episode", "24", "--agent", "random",
            "--seed", "3", "--width", "32", "--height", "32", "--json"]
    outs = cli_runs(args, capsys)
    assert outs[0] == outs[1]
    m = json.loads(outs[0])
    for k in ("sr", "tsr", "cds", "rs", "safe", "victims", "victims_found", "clues", "clues_found", "time_s",
              "tier", "weather", "time_of_day", "map"):
        assert k in m


def test_airsim_style_api_flies_in_ned():
    from hazard_sim.tasks.esar.api import ApiError, DiscreteActions, ImageRequest, ImageType, MultirotorClient
    c = MultirotorClient(episode=21, camera=CAM)
    with pytest.raises(ApiError, match="enableApiControl"):
        c.moveByVelocityAsync(1, 0, 0, 1)
    c.enableApiControl(True)
    c.armDisarm(True)
    e0 = c.env.agent.position.copy()
    assert c.moveByVelocityAsync(5, 0, 0, 4).join().success          # north = +y in ENU
    d = c.env.agent.position - e0
    assert d[1] > 10.0 and abs(d[0]) < 0.1 and abs(d[2]) < 0.1
    assert c.getMultirotorState().kinematics_estimated.position[0] == pytest.approx(d[1])
    assert c.moveToPositionAsync(0, 20, -5, 5).join().success       # 20 m east, 5 m up of home
    assert c.env.agent.position - e0 == pytest.approx([20, 0, 5], abs=0.6)
    assert c.rotateToYawAsync(90).join().success                    # NED yaw 90 = east = ENU yaw 0
    assert c.env.agent.yaw == pytest.approx(0.0, abs=0.03)
    (depth,) = c.simGetImages([ImageRequest("bottom_center", ImageType.DepthPlanar, True)])
    assert len(depth.image_data_float) == 32 * 32
    with pytest.raises(ApiError, match="unknown camera"):
        c.simGetImages([ImageRequest("nose")])
    env = DiscreteActions(EmbodiedEnv("esar", episode_spec=_episode(), camera=CAM))
    env.reset()
    y0 = env.unwrapped.agent.yaw
    env.step(1)
    assert math.remainder(env.unwrapped.agent.yaw - y0 - math.pi / 2, 2 * math.pi) == pytest.approx(0, abs=0.03)
    with pytest.raises(ValueError, match="0..6"):
        env.step(9)


def test_terrain_lod_rings_meet_without_cracks():
    from hazard_sim.render.backend import make_renderer
    from hazard_sim.tasks.esar.look import ground_colors, lod_terrain
    t = terrain_for("alpine")
    fine, mid = lod_terrain(t, ground_colors(t), (1000.0, 1000.0))[:2]
    v = fine.vertices.astype(float)
    x0, x1, y0, y1 = v[:, 0].min(), v[:, 0].max(), v[:, 1].min(), v[:, 1].max()
    edge = v[(v[:, 0] == x0) | (v[:, 0] == x1) | (v[:, 1] == y0) | (v[:, 1] == y1)]
    r = make_renderer(CAM, "raycast")
    r.set_static([], np.zeros(0, np.int32), np.zeros((0, 3), np.uint8))
    r.set_static_meshes([mid])
    # just outside the hole, straight down: the coarse ring's border has the fine ring's border heights
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    out = edge[:, :2] + np.sign(edge[:, :2] - c) * (np.abs(edge[:, :2] - c) >= [(x1 - x0) / 2, (y1 - y0) / 2]) * 1e-3
    rays = np.hstack([np.column_stack([out, np.full(len(out), 5000.0)]),
                      np.tile([0, 0, -1.0], (len(out), 1))]).astype(np.float32)
    z = 5000.0 - r.cast_rays(rays)
    assert np.isfinite(z).all() and np.abs(z - edge[:, 2]).max() < 0.05


def test_save_viz_writes_the_map_and_the_camera_video(tmp_path):
    from hazard_sim.runner import run_episode
    m = run_episode("esar", "test", 24, "random", 0, camera=CAM, save_viz=str(tmp_path))
    assert (tmp_path / "map.png").stat().st_size > 10000
    assert m["viz"]["video"].endswith((".mp4", ".gif")) and (tmp_path / m["viz"]["video"].split("/")[-1]).exists()


def test_airsim_api_refuses_non_finite_and_impossible_arguments():
    """Every flight call with a NaN / infinite duration, speed or angle, a negative or NaN time
    limit, a negative speed to a position, and a report off the map: one ApiError naming the
    argument, the UAV where it was, no report kept. An infinite time limit means the call's cap."""
    from hazard_sim.tasks.esar.api import ApiError, MultirotorClient
    c = MultirotorClient(episode=21, camera=CAM)
    c.enableApiControl(True)
    c.armDisarm(True)
    start, frame = c.env.agent.position.copy(), c.env.world.frame
    nan, inf = float("nan"), float("inf")
    calls = [
        (lambda: c.moveByVelocityAsync(1, 0, 0, inf), "duration must be a finite number"),
        (lambda: c.moveByVelocityAsync(1, 0, 0, nan), "duration must be a finite number"),
        (lambda: c.moveByVelocityAsync(nan, 0, 0, 1), "vx must be a finite number"),
        (lambda: c.moveByVelocityAsync(0, 0, inf, 1), "vz must be a finite number"),
        (lambda: c.moveByVelocityBodyFrameAsync(1, 0, 0, -1), "duration must be > 0"),
        (lambda: c.rotateByYawRateAsync(30, inf), "duration must be a finite number"),
        (lambda: c.rotateByYawRateAsync(nan, 1), "yaw_rate must be a finite number"),
        (lambda: c.landAsync(timeout_sec=nan), "timeout_sec must be > 0"),
        (lambda: c.landAsync(timeout_sec=-5), "timeout_sec must be > 0"),
        (lambda: c.takeoffAsync(timeout_sec="soon"), "timeout_sec must be a number"),
        (lambda: c.moveToPositionAsync(0, 20, -5, -5), "velocity must be > 0"),
        (lambda: c.moveToPositionAsync(0, 20, -5, nan), "velocity must be a finite number"),
        (lambda: c.moveToPositionAsync(nan, 20, -5, 5), "x must be a finite number"),
        (lambda: c.moveToPositionAsync(0, 20, -5, 5, timeout_sec=nan), "timeout_sec must be > 0"),
        (lambda: c.rotateToYawAsync(inf), "yaw must be a finite number"),
        (lambda: c.rotateToYawAsync(90, timeout_sec=nan), "timeout_sec must be > 0"),
        (lambda: c.reportVictim([1e308, 5.0, 0.0]), "outside the map"),
        (lambda: c.reportVictim([nan, 5.0]), "victim position must be a finite number"),
        (lambda: c.reportVictim(5.0), r"must be \[x, y\] or \[x, y, z\]"),
        (lambda: c.reportClue("backpack", [5.0, -1e9]), "outside the map"),
    ]
    for call, message in calls:
        with pytest.raises(ApiError, match=message):
            call()
    assert c.env.world.frame == frame and np.allclose(c.env.agent.position, start)   # nothing flew
    assert not c.env.task.victim_reports and not c.env.task.clue_reports
    assert c.rotateToYawAsync(90, timeout_sec=inf).join().success                    # inf: the call's own cap
    assert c.landAsync(timeout_sec=inf).join().status is not None
