"""The ROS-free parts of the Nav2 servers against hand-computed values: Nav2 costs and their
OccupancyGrid translation, clears, the local window, the smoother, map files, and the
behaviors' control (spin on the gait's schedule, straight moves, wait)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.navigation.map_files import MapFileError, load_map, save_map
from planner_node.behavior_control import SpinFollower, StraightFollower, WaitFollower
from planner_node.costmap import ClearableMap, costs, occupancy_from_costs, window
from planner_node.following import FollowerConfig, GoalRunner
from planner_node.navigation import GridPlanner, OccupancyMap
from planner_node.smoothing import resample, smooth


def one_obstacle(unknown_corner: bool = False) -> OccupancyMap:
    data = np.zeros((11, 11), np.int16)
    data[5, 5] = 100
    if unknown_corner:
        data[0, 0] = -1
    return OccupancyMap(data, 0.1)


def test_costs_follow_nav2_inflation_law():
    c = costs(one_obstacle(True), inscribed_radius=0.25, inflation_radius=0.55, cost_scaling_factor=3.0)
    assert c[5, 5] == 254                                   # the obstacle
    assert c[5, 7] == 253                                   # 0.2 m: the robot's centre there touches it
    assert c[5, 8] == math.floor(252 * math.exp(-3.0 * (0.3 - 0.25))) == 216
    assert c[5, 10] == math.floor(252 * math.exp(-3.0 * (0.5 - 0.25))) == 119
    assert c[0, 0] == 255 and c[0, 10] == 0                 # unknown; 0.71 m away: beyond inflation


def test_occupancy_translation_is_nav2s():
    got = occupancy_from_costs(np.array([0, 1, 100, 252, 253, 254, 255], np.uint8))
    assert got.tolist() == [0, 1, 1 + 97 * 99 // 251, 1 + 97 * 251 // 251, 99, 100, -1]


def test_clears_free_squares_until_the_next_map():
    cm = ClearableMap()
    data = np.full((11, 11), 100, np.int16)
    cm.set_map(OccupancyMap(data, 0.1))
    assert cm.clear_around((0.55, 0.55), 0.4) == 25           # centres within 0.2 m: 5 x 5 cells
    eff = cm.effective().data
    assert (eff[3:8, 3:8] == 0).all() and eff[2, 5] == 100 and eff[5, 8] == 100
    assert cm.clear_except((0.55, 0.55), 0.4) == 121 - 25
    assert (cm.effective().data == 0).all()
    cm.set_map(OccupancyMap(data, 0.1))                      # a new observation marks them again
    assert cm.effective() is cm.map and cm.clear_all() == 121


def test_local_window_is_aligned_and_unknown_outside():
    w = window(one_obstacle(), (0.05, 0.55), 0.5)
    assert w.shape == (5, 5) and w.origin == pytest.approx((-0.2, 0.3))
    assert (w.data[:, :2] == -1).all() and w.data[2, 2] == 0 and w.data[2, 4] == 0


def test_smoother_rounds_a_corner_and_never_enters_an_obstacle():
    spec = OccupancyMap(np.zeros((30, 30), np.int16), 0.1).spec
    blocked = np.zeros((30, 30), bool)
    path = np.array([[0.5, 0.5], [2.0, 0.5], [2.0, 2.0]])
    out, done = smooth(path, blocked, spec)
    assert done and np.allclose(out[0], path[0]) and np.allclose(out[-1], path[-1])
    k = int(np.argmin(np.linalg.norm(out - (2.0, 0.5), axis=1)))
    assert out[k][0] < 2.0 - 0.05 and out[k][1] > 0.5 + 0.05           # the corner cut inwards
    blocked[7:15, 15:19] = True                      # inside the corner, off the path (x 1.5-1.9, y 0.7-1.5)
    out2, _ = smooth(path, blocked, spec)
    i, j = spec.to_cells(out2)
    assert not blocked[i, j].any()
    straight, _ = smooth(np.array([[0.5, 0.5], [2.5, 0.5]]), blocked, spec)
    assert np.allclose(straight[:, 1], 0.5) and len(straight) == len(resample(np.array([[0.5, 0.5], [2.5, 0.5]]), 0.1))


def test_map_files_read_as_map_server(tmp_path):
    from PIL import Image
    img = np.array([[0, 254, 205], [100, 254, 254]], np.uint8)        # image row 0 is the map's top
    Image.fromarray(img).save(tmp_path / "m.pgm")
    (tmp_path / "m.yaml").write_text("image: m.pgm\nresolution: 0.5\norigin: [1.0, -2.0, 0.0]\n")
    data, res, origin = load_map(tmp_path / "m.yaml")
    # p = (255 - v) / 255: 0 -> 1.0 occupied, 254 -> 0.004 free, 205 -> 0.196 unknown, 100 -> 0.61 unknown
    assert data.tolist() == [[-1, 0, 0], [100, 0, -1]] and res == 0.5 and origin == (1.0, -2.0)
    (tmp_path / "n.yaml").write_text("image: m.pgm\nresolution: 0.5\nnegate: 1\n")
    # negate: p = v / 255: 205 -> 0.80 occupied, 100 -> 0.39 unknown
    assert load_map(tmp_path / "n.yaml")[0].tolist() == [[-1, 100, 100], [0, 100, 100]]
    save_map(tmp_path / "s.yaml", data, 0.5, origin)
    assert load_map(tmp_path / "s.yaml")[0].tolist() == data.tolist()
    with pytest.raises(MapFileError) as e:
        load_map(tmp_path / "none.yaml")
    assert e.value.kind == "missing"
    (tmp_path / "bad.yaml").write_text("image: m.pgm\nresolution: 0.5\norigin: [0, 0, 0.3]\n")
    with pytest.raises(MapFileError, match="rotated"):
        load_map(tmp_path / "bad.yaml")


def drive(follower, pose, dt=0.1, limit=400, slip=1.0):
    """Integrate the follower's commands (turn, then move along the new heading), ``slip``
    times the commanded motion; returns the final pose and the number of commands."""
    pose = np.array(pose, float)
    for k in range(limit):
        cmd = follower.step(pose, k * dt)
        if cmd.status == "succeeded":
            return pose, k
        assert cmd.status != "stuck"
        pose[2] += cmd.w * dt * slip
        pose[:2] += cmd.v * dt * slip * np.array([math.cos(pose[2]), math.sin(pose[2])])
    raise AssertionError("did not finish")


def test_spin_on_the_gait_takes_the_cores_schedule():
    cfg = FollowerConfig(max_angular=math.radians(3.0) / 0.1, control_period=0.1)
    pose, n = drive(SpinFollower(cfg, math.pi / 2, on_gait=True), (0, 0, 0.3))
    assert n == 30 and pose[2] == pytest.approx(0.3 + math.pi / 2, abs=1e-12)
    pose, n = drive(SpinFollower(cfg, -4.0, on_gait=True), (0, 0, 0.0))          # more than half a turn
    assert n == math.ceil(math.degrees(4.0) / 3.0) and math.remainder(pose[2] + 4.0, 2 * math.pi) == \
        pytest.approx(0.0, abs=1e-9)


def test_free_run_spin_and_straight_moves_land_within_tolerance_despite_slip():
    cfg = FollowerConfig(max_linear=0.5, max_angular=math.radians(90), control_period=0.1, gain=0.6)
    pose, _ = drive(SpinFollower(cfg, 2.0, on_gait=False), (0, 0, 0), slip=0.9)
    assert abs(pose[2] - 2.0) <= math.radians(0.5)
    f = StraightFollower(cfg, -0.3, 0.25)
    pose, _ = drive(f, (1.0, 1.0, 0.0), slip=1.1)
    assert abs((1.0 - pose[0]) - 0.3) <= 0.005 and pose[1] == pytest.approx(1.0)


def test_wait_lasts_its_time_and_a_stalled_move_is_stuck():
    cfg = FollowerConfig(control_period=0.1, stuck_time=1.0)
    _, n = drive(WaitFollower(cfg, 0.5), (0, 0, 0))
    assert n == 5
    f = StraightFollower(cfg, 1.0, 0.1)
    runner = GoalRunner(GridPlanner(), lambda pose, goal: None, cfg, max_recoveries=0, follower=f)
    statuses = [f.step(np.zeros(3), k * 0.1).status for k in range(13)]   # the body never moves
    assert statuses[:11] == ["following"] * 11 and statuses[-1] == "stuck"
    assert runner.follower is f


def test_launch_files_start_the_navigator_for_each_body():
    from pathlib import Path

    from hazard_ros.launcher import describe
    launch = Path(__file__).resolve().parent.parent / "launch"

    def nav_params(name, args):
        procs = {p.name: p for p in describe(launch / name, args).processes}
        if "navigation_node" not in procs:
            return None
        cmd = procs["navigation_node"].cmd
        return {cmd[k + 1] for k, a in enumerate(cmd) if a == "-p"}
    assert {"robot_radius:=0.18", "max_linear_speed:=0.5", "lockstep:=false"} <= nav_params("doze.launch.yaml", {})
    assert nav_params("doze.launch.yaml", {"decision": "frontier"}) is None        # the agent drives it
    assert nav_params("esar.launch.yaml", {}) is None
    assert "body_kind:=aerial" in nav_params("esar.launch.yaml", {"navigation": "true"})
    assert {"approach_gap:=0.5", "approach_reach:=3.0"} <= nav_params("hazard.launch.yaml", {})
