"""ROS-free navigation core: planning on hand-made occupancy grids and path following."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.geometry import wrap_angle
from hazard_sim.navigation.grid import inflate
from hazard_sim.navigation.stand_off import stand_off_pose
from planner_node.following import HUMANOID_MAX_ANGULAR, HUMANOID_MAX_LINEAR, FollowerConfig, GoalRunner, PathFollower
from planner_node.navigation import ErrorCode, GridPlanner, NavigationError, OccupancyMap

RES = 0.1
FRAME = 0.1
VMAX, WMAX = HUMANOID_MAX_LINEAR, HUMANOID_MAX_ANGULAR     # the humanoid's: 0.5 m/s, 150 deg/s


def room(h: int = 80, w: int = 120) -> np.ndarray:
    """A 12 m x 8 m room: walls on the border, free (0) inside."""
    g = np.zeros((h, w), np.int16)
    g[0, :] = g[-1, :] = g[:, 0] = g[:, -1] = 100
    return g


def door_map() -> np.ndarray:
    """A wall at x = 6.0..6.1 m with a 1 m door at y = 3.5..4.5 m."""
    g = room()
    g[:, 60] = 100
    g[35:45, 60] = 0
    return g


def planner(grid, radius=0.25) -> GridPlanner:
    p = GridPlanner(robot_radius=radius)
    p.set_map(OccupancyMap(grid, RES, (0.0, 0.0)))
    return p


def drive(follower: PathFollower, pose, frames: int = 600, blocked=None, grid_origin=(0.0, 0.0)):
    """Integrate the follower's commands like the humanoid does (turn, then move), one
    0.1 s frame per command.  ``blocked``: cells the body centre may not enter."""
    pose = np.array(pose, float)
    cmds, trace = [], [pose.copy()]
    t = 0.0
    for _ in range(frames):
        c = follower.step(pose, t)
        cmds.append(c)
        if c.status in ("succeeded", "stuck"):
            break
        pose[2] = wrap_angle(pose[2] + c.w * FRAME)
        nxt = pose[:2] + c.v * FRAME * np.array([math.cos(pose[2]), math.sin(pose[2])])
        if blocked is not None:
            i = int((nxt[1] - grid_origin[1]) / RES)
            j = int((nxt[0] - grid_origin[0]) / RES)
            if blocked[i, j]:
                nxt = pose[:2]           # a collision: the body does not move
        pose[:2] = nxt
        trace.append(pose.copy())
        t += FRAME
    return pose, cmds, np.array(trace)


# ------------------------------------------------------------------ planning

def test_straight_corridor_path_length():
    g = room()
    g[:30, :] = 100            # a corridor y = 3.0..5.0 m
    g[50:, :] = 100
    plan = planner(g).plan((1.0, 4.0), (11.0, 4.0))
    assert plan.length == pytest.approx(10.0, abs=1e-6)
    assert len(plan.waypoints) == 2                     # a straight line needs no corner
    assert np.allclose(plan.waypoints[0], (1.0, 4.0)) and np.allclose(plan.waypoints[-1], (11.0, 4.0))
    assert not plan.snapped


def test_path_through_the_door():
    p = planner(door_map())
    plan = p.plan((1.0, 1.0), (11.0, 1.0))
    assert plan.length > 10.0 + 1.0                     # a detour through the door
    # the path crosses the wall's column inside the door, clear of the inflated frame
    w = plan.waypoints
    crossing = [a + (b - a) * (6.05 - a[0]) / (b[0] - a[0]) for a, b in zip(w[:-1], w[1:])
                if (a[0] - 6.05) * (b[0] - 6.05) <= 0 and b[0] != a[0]]
    assert crossing and 3.5 + 0.25 <= crossing[0][1] <= 4.5 - 0.25
    assert p.path_clear(w)


def test_door_too_narrow_for_the_robot_is_no_path():
    g = door_map()
    g[35:45, 60] = 100
    g[39:41, 60] = 0                                   # a 0.2 m slit
    with pytest.raises(NavigationError) as e:
        planner(g).plan((1.0, 1.0), (11.0, 1.0))
    assert e.value.code == ErrorCode.NO_VALID_PATH
    assert "no path" in e.value.message


def test_goal_in_small_obstacle_snaps_to_nearest_free_cell():
    g = room()
    g[39:42, 79:82] = 100                              # a 0.3 m box around (8.0, 4.0)
    plan = planner(g).plan((2.0, 4.0), (8.05, 4.05))
    assert plan.snapped
    d = float(np.linalg.norm(plan.goal_xy - (8.05, 4.05)))
    assert 0.25 < d <= 0.5 + 1e-9
    # the nearest free cell: a corner of the inflated disk (sqrt(0.2^2 + 0.4^2) m away)
    assert d == pytest.approx(math.hypot(0.2, 0.4))
    assert p_clear(g, plan)


def p_clear(g, plan) -> bool:
    return planner(g).path_clear(plan.waypoints)


def test_goal_deep_in_obstacle_is_unreachable():
    g = room()
    g[20:60, 70:110] = 100                             # a 4 m x 4 m block
    with pytest.raises(NavigationError) as e:
        planner(g).plan((2.0, 4.0), (9.0, 4.0))
    assert e.value.code == ErrorCode.GOAL_OCCUPIED
    assert "unreachable" in e.value.message and "(9.00, 4.00)" in e.value.message


def test_unreachable_goal_in_closed_room():
    g = door_map()
    g[35:45, 60] = 100                                 # close the door
    with pytest.raises(NavigationError) as e:
        planner(g).plan((1.0, 1.0), (11.0, 1.0))
    assert e.value.code == ErrorCode.NO_VALID_PATH
    assert "no path from (1.00, 1.00) to (11.00, 1.00)" in e.value.message


def test_goal_and_start_outside_the_map():
    p = planner(room())
    with pytest.raises(NavigationError) as e:
        p.plan((1.0, 1.0), (20.0, 1.0))
    assert e.value.code == ErrorCode.GOAL_OUTSIDE_MAP and "outside the map" in e.value.message
    with pytest.raises(NavigationError) as e:
        p.plan((-3.0, 1.0), (2.0, 1.0))
    assert e.value.code == ErrorCode.START_OUTSIDE_MAP
    with pytest.raises(NavigationError) as e:
        GridPlanner().plan((0, 0), (1, 1))
    assert "no map" in e.value.message


def test_unknown_is_free_and_start_inside_inflation_can_leave():
    g = np.full((80, 120), -1, np.int16)
    plan = planner(g).plan((1.0, 1.0), (9.0, 5.0))
    assert len(plan.waypoints) == 2
    g = room()
    # start 0.15 m from the left wall: inside the 0.25 m inflation
    plan = planner(g).plan((0.25, 4.0), (5.0, 4.0))
    assert plan.length == pytest.approx(4.75, abs=0.05)


def test_map_origin_offset():
    g = room()
    p = GridPlanner(0.25)
    p.set_map(OccupancyMap.from_flat(g.ravel().tolist(), 120, 80, RES, (-6.0, -4.0)))
    plan = p.plan((-5.0, 0.0), (5.0, 0.0))
    assert plan.length == pytest.approx(10.0, abs=1e-6)
    with pytest.raises(ValueError):
        OccupancyMap.from_flat([0] * 10, 4, 4, RES)


def test_planning_on_120_by_80_grid_is_repeatable():
    # the planning time itself is measured by benchmarks/bench_planning.py, not asserted here
    p = planner(door_map())
    plans = [p.plan((1.0, 1.0), (11.0, 7.0)) for _ in range(3)]
    assert all(np.array_equal(q.waypoints, plans[0].waypoints) and q.cells == plans[0].cells for q in plans)
    assert plans[0].length >= math.hypot(10.0, 6.0) and plans[0].planning_time > 0


def test_stand_off_pose_stands_off_and_faces_the_target():
    g = door_map()
    blocked = inflate(g >= 50, 0.25, RES)
    p = planner(g)
    # ring 0.05 + 0.25 + 0.5 - 0.2 = 0.6 m around the object
    x, y, yaw, extra = stand_off_pose(p.map.spec, blocked, (1.0, 1.0), (9.0, 1.0), 0.05, 0.25, 0.5, 2.5, slack=0.2)
    assert extra == 0.0 and np.hypot(x - 9.0, y - 1.0) <= 0.6 + 1e-9
    assert x > 6.1                                     # reached through the door, same room
    assert abs(wrap_angle(math.atan2(1.0 - y, 9.0 - x) - yaw)) < 1e-6


# ------------------------------------------------------------------ following

def test_follower_converges_on_a_straight_line_within_limits():
    f = PathFollower()
    f.set_path(np.array([[1.0, 2.0], [6.0, 2.0]]), goal_yaw=None)
    pose, cmds, trace = drive(f, (1.0, 2.0, 0.0))
    assert cmds[-1].status == "succeeded"
    assert np.hypot(pose[0] - 6.0, pose[1] - 2.0) <= 0.25
    assert len(cmds) - 1 <= 5.0 / (VMAX * FRAME) + 2    # full speed, no dawdling
    assert np.abs(trace[:, 1] - 2.0).max() < 1e-6       # stays on the line
    for c in cmds:
        assert abs(c.v) <= VMAX + 1e-9 and abs(c.w) <= WMAX + 1e-9
    rem = [c.distance_remaining for c in cmds[:-1]]
    assert rem[0] == pytest.approx(5.0) and all(a >= b - 1e-9 for a, b in zip(rem, rem[1:]))


def test_follower_starts_facing_away_turns_first():
    f = PathFollower()
    f.set_path(np.array([[1.0, 2.0], [4.0, 2.0]]), goal_yaw=0.0)
    pose, cmds, _ = drive(f, (1.0, 2.0, math.pi))
    assert cmds[0].status == "turning" and cmds[0].v == 0.0
    assert abs(cmds[0].w) == pytest.approx(WMAX)
    assert cmds[-1].status == "succeeded"
    assert np.hypot(pose[0] - 4.0, pose[1] - 2.0) <= 0.25 and abs(wrap_angle(pose[2])) <= math.radians(10)


def test_follower_turns_in_place_to_goal_yaw():
    f = PathFollower()
    f.set_path(np.array([[3.0, 3.0]]), goal_yaw=math.radians(90))
    pose, cmds, trace = drive(f, (3.0, 3.0, 0.0))
    assert cmds[-1].status == "succeeded"
    assert all(c.v == 0.0 for c in cmds)
    assert np.allclose(trace[:, :2], (3.0, 3.0))
    assert abs(wrap_angle(pose[2] - math.radians(90))) <= math.radians(10)
    assert len(cmds) - 1 == 6                          # 90 deg at 15 deg per frame
    assert all(abs(c.w) <= WMAX + 1e-9 for c in cmds)


def test_follower_through_the_door_without_collision():
    g = door_map()
    p = planner(g)
    plan = p.plan((1.0, 1.0), (11.0, 1.0))
    f = PathFollower()
    f.set_path(plan.waypoints, goal_yaw=math.radians(-90))
    truth = inflate(g >= 50, 0.2, RES)                 # the simulator's body margin
    pose, cmds, trace = drive(f, (1.0, 1.0, 0.0), frames=3000, blocked=truth)
    assert cmds[-1].status == "succeeded", cmds[-1]
    assert np.hypot(pose[0] - 11.0, pose[1] - 1.0) <= 0.25
    assert len(cmds) < plan.length / (VMAX * FRAME) + 40


def test_limits_are_the_humanoids():
    from hazard_sim.embodiment.humanoid import HumanoidSpec
    spec = HumanoidSpec()
    assert VMAX * FRAME == pytest.approx(spec.walk_per_frame)
    assert math.degrees(WMAX) * FRAME == pytest.approx(spec.turn_per_frame_deg)


def test_follower_reports_stuck():
    f = PathFollower(FollowerConfig(stuck_time=2.0))
    f.set_path(np.array([[1.0, 1.0], [5.0, 1.0]]))
    pose = np.array([1.0, 1.0, 0.0])
    t, c = 0.0, None
    for _ in range(100):                               # the robot never moves
        c = f.step(pose, t)
        if c.status == "stuck":
            break
        t += FRAME
    assert c.status == "stuck" and 2.0 < t < 2.5
    assert "no progress" in c.message


def test_follower_does_not_stop_short_while_still_closing_in():
    """The 0.25 m tolerance is for a robot that cannot get closer, not a reason to stop early
    (move_by 0.5 must walk 0.5 m)."""
    f = PathFollower()
    f.set_path(np.array([[1.0, 1.0], [1.5, 1.0]]), goal_yaw=0.0)
    pose, cmds, _ = drive(f, (1.0, 1.0, 0.0))
    assert cmds[-1].status == "succeeded"
    assert abs(pose[0] - 1.5) < 0.03
    # blocked 0.1 m short: done after a few cycles without progress, inside the tolerance
    g = room()
    g[:, 16:] = 100                                    # a wall at x = 1.6 m; the body margin stops it at 1.4
    f = PathFollower()
    f.set_path(np.array([[1.0, 1.0], [1.5, 1.0]]), goal_yaw=None)
    pose, cmds, _ = drive(f, (1.0, 1.0, 0.0), blocked=inflate(g >= 50, 0.2, RES))
    assert cmds[-1].status == "succeeded" and 1.3 <= pose[0] < 1.45


def test_bumps_are_obstacles_until_cleared():
    p = planner(room())
    straight = p.plan((1.0, 4.0), (5.0, 4.0))
    for y in np.arange(3.0, 5.01, 0.1):                # a wall of bumps across the way at x = 3
        p.add_bump((3.0, y))
    around = p.plan((1.0, 4.0), (5.0, 4.0))
    assert around.length > straight.length + 0.5 and p.path_clear(around.waypoints)
    p.set_map(OccupancyMap(room(), RES))               # a new map keeps the bumps
    assert p.plan((1.0, 4.0), (5.0, 4.0)).length == pytest.approx(around.length)
    p.clear_bumps()
    assert p.plan((1.0, 4.0), (5.0, 4.0)).length == pytest.approx(straight.length)


def test_lower_gain_tolerates_late_commands():
    """Free-run: each command may act one frame late.  Dead-beat then overshoots; the
    free-run gain still ends inside the tolerance."""
    def run(gain):
        f = PathFollower(FollowerConfig(gain=gain))
        f.set_path(np.array([[2.0, 2.0]]), goal_yaw=math.radians(100))
        pose, prev, t = np.array([2.0, 2.0, 0.0]), None, 0.0
        for _ in range(100):
            c = f.step(pose, t)
            if c.status == "succeeded":
                break
            if prev is not None:                      # the previous command acts now
                pose[2] = wrap_angle(pose[2] + prev.w * FRAME)
            prev, t = c, t + FRAME
        if prev is not None:                          # ... and once more after the stop
            pose[2] = wrap_angle(pose[2] + prev.w * FRAME)
        return abs(wrap_angle(pose[2] - math.radians(100)))
    assert run(0.6) <= math.radians(10)


# ------------------------------------------------------------------ one goal (ROS-free recovery policy)

def test_goal_runner_recovers_by_bumping_ahead_then_gives_up():
    p = planner(room())
    plans = []
    runner = GoalRunner(p, lambda pose, goal: plans.append(goal) or p.plan(pose[:2], goal),
                        FollowerConfig(stuck_time=1.0), robot_radius=0.25, max_recoveries=2)
    pose = np.array([1.0, 4.0, 0.0])                  # facing the goal along +x: walking at once
    runner.start(pose, (9.0, 4.0), None, 0.0)
    t, seen = 0.0, []
    with pytest.raises(NavigationError) as err:
        while t < 60.0:                               # the body never moves: a wall the map lacks
            cmd = runner.step(pose, t)
            seen.append(cmd.status)
            t += 0.1
    assert err.value.code == ErrorCode.FAILED_TO_MAKE_PROGRESS and runner.recoveries == 3
    assert "gave up after 2 recoveries" in err.value.message
    assert len(plans) == 3                            # the start and one replan per recovery
    assert p.blocked[p.map.cell((1.0 + 0.3, 4.0))]    # a bump was remembered right ahead


def test_goal_runner_time_limit():
    p = planner(room())
    runner = GoalRunner(p, lambda pose, goal: p.plan(pose[:2], goal), max_time=1.0)
    pose = np.array([1.0, 4.0, 0.0])
    runner.start(pose, (9.0, 4.0), None, 5.0)
    for k in range(10):                               # 10 commands of 0.1 s fit in 1 s
        runner.step(pose, 5.0 + 0.1 * k)
    with pytest.raises(NavigationError, match=r"not at the goal after 1 s \(.* m left\)") as err:
        runner.step(pose, 6.0)
    assert err.value.code == ErrorCode.TIMEOUT
