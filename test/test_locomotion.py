"""HAZARD's action programs run on the ROS locomotion (ROS-free, scripted ports): the
decision node executes actions through the same code as the embedded env."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from hazard_sim.core.outcome import Status
from hazard_sim.navigation.grid import GridSpec
from hazard_sim.tasks.hazard import controllers
from hazard_sim.tasks.hazard.actions import parse_action
from hazard_sim.tasks.hazard.controllers import EXPLORE_DEG, EXPLORE_TURNS, EnvLocomotion, run_action
from planner_node.locomotion import OBJECT_RADIUS, XY_TOLERANCE, RosLocomotion, RosPorts

SPEC = GridSpec((0.0, 0.0, 10.0, 6.0), 0.1)


class FakeRobot:
    """Navigation that reaches every goal (turns stop 1 degree short, as a real controller
    within its tolerance might) unless told to fail; records the goals."""

    def __init__(self, pose=(2.0, 3.0, 0.0), fail=None):
        self.pose = np.array(pose, float)
        self.goals, self.triggers, self.fail = [], [], fail
        self.frame = 0

    def navigate(self, x, y, yaw, max_frames=None):
        self.goals.append((x, y, yaw, max_frames))
        if self.fail:
            return self.fail
        short = math.radians(1.0) * np.sign(math.remainder(yaw - self.pose[2], 2 * math.pi))
        self.pose = np.array([x, y, yaw - short])
        return Status.SUCCEEDED, ""

    def wait_frame(self, what):
        self.frame += 1
        return {"agent_pose": self.pose.copy(), "frame": np.int64(self.frame)}

    def ports(self, blocked=None):
        return RosPorts(navigate=self.navigate, trigger=lambda name: self.triggers.append(name) or
                        (Status.OUT_OF_REACH, "out of reach"),
                        wait_frame=self.wait_frame, nav_map=lambda: None if blocked is None else (blocked, SPEC),
                        episode_over=lambda: False, cancel=lambda: None)


def agent_with(objects=None, blocked=None):
    mem = SimpleNamespace(objects={k: SimpleNamespace(position=np.array(v)) for k, v in (objects or {}).items()},
                          containers={})
    amap = SimpleNamespace(blocked=lambda: np.zeros(SPEC.shape, bool) if blocked is None else blocked, spec=SPEC)
    return SimpleNamespace(memory=mem, map=amap)


def run(robot, agent, action, blocked=None):
    loco = RosLocomotion(robot.ports(blocked), agent, robot.wait_frame("start"))
    return run_action(loco, parse_action(action)), loco


def test_explore_turns_twelve_times_from_the_commanded_heading():
    robot = FakeRobot()
    out, loco = run(robot, agent_with(), ("explore",))
    assert out.status is Status.SUCCEEDED and len(loco.kept) == EXPLORE_TURNS
    yaws = [g[2] for g in robot.goals]
    want = [math.remainder(math.radians(EXPLORE_DEG) * (k + 1), 2 * math.pi) for k in range(EXPLORE_TURNS)]
    assert yaws == pytest.approx(want, abs=1e-9)          # 1-degree short stops do not add up
    assert all(g[:2] == (2.0, 3.0) for g in robot.goals)


def test_walk_to_goes_to_the_shared_stand_off_pose_facing_the_object():
    robot = FakeRobot()
    out, _ = run(robot, agent_with({7: (6.0, 3.0, 0.4)}), ("walk_to", 7))
    assert out.status is Status.SUCCEEDED
    (x, y, yaw, frames), = robot.goals
    ring = OBJECT_RADIUS + 0.25 + controllers.ARRIVE_GAP - XY_TOLERANCE
    assert np.hypot(x - 6.0, y - 3.0) <= ring + 1e-9 and x < 6.0 and frames == 100
    assert abs(math.remainder(math.atan2(3.0 - y, 6.0 - x) - yaw, 2 * math.pi)) < 1e-6


def test_walk_to_failures_are_typed():
    out, _ = run(FakeRobot(), agent_with(), ("walk_to", 9))
    assert out.status is Status.NOT_VISIBLE and "has not been observed" in out.message
    robot = FakeRobot(fail=(Status.NO_PATH, "goal occupied"))
    out, _ = run(robot, agent_with({7: (6.0, 3.0, 0.4)}), ("walk_to", 7))
    assert out.status is Status.NO_PATH and out.message == "no path to 7: goal occupied"


def test_move_by_is_clipped_where_the_map_is_blocked():
    blocked = np.zeros(SPEC.shape, bool)
    blocked[:, 30:] = True                                # a wall from x = 3 m, robot at x = 2
    robot = FakeRobot()
    out, _ = run(robot, agent_with(), ("move_by", 2.0), blocked)
    (x, y, yaw, _), = robot.goals
    assert x == pytest.approx(2.95) and y == 3.0           # straight, never a detour
    assert out.status is Status.BLOCKED and out.message == "blocked after 0.95 m"


def test_exact_walk_to_and_move_by_are_typed_goals_not_pose_goals():
    # lock-step (exact arrival): walk_to is an approach goal to the object itself, move_by a
    # drive_on_heading of the whole distance: the navigator carries HAZARD's semantics in the
    # goal's type, never in per-goal parameters
    robot = FakeRobot()
    calls = []

    def approach(target, yaw, max_frames):
        calls.append(("approach", target.id, tuple(np.round(target.xy, 9)), target.true_box, max_frames))
        return Status.SUCCEEDED, ""

    def drive(metres):
        calls.append(("drive", metres))
        robot.pose[:2] += (metres * 0.5, 0.0)             # a bump half way
        return Status.BLOCKED, "collision ahead"

    ports = robot.ports()
    ports.approach, ports.drive, ports.exact_arrival = approach, drive, True
    loco = RosLocomotion(ports, agent_with({7: (6.0, 3.0, 0.4)}), robot.wait_frame("start"))
    assert run_action(loco, parse_action(("walk_to", 7))).status is Status.SUCCEEDED
    out = run_action(loco, parse_action(("move_by", 2.0)))
    assert calls == [("approach", 7, (6.0, 3.0), False, 100), ("drive", 2.0)] and robot.goals == []
    assert out.status is Status.BLOCKED and out.message == "blocked after 1.00 m"


def test_hands_report_the_service_status():
    robot = FakeRobot()
    out, _ = run(robot, agent_with(), ("pick_up", 3))
    assert robot.triggers == ["pick_up"] and out.status is Status.OUT_OF_REACH


def test_pick_up_names_its_object_when_the_robot_can():
    """With a pick_object port (hazard_msgs/srv/PickUp) pick_up(3) asks for object 3, not for
    the Trigger's nearest target; drop still uses the Trigger."""
    from dataclasses import replace
    robot, asked = FakeRobot(), []
    ports = replace(robot.ports(), pick_object=lambda oid: asked.append(oid) or (Status.SUCCEEDED, ""))
    loco = RosLocomotion(ports, agent_with(), robot.wait_frame("start"))
    assert run_action(loco, parse_action(("pick_up", 3))).status is Status.SUCCEEDED
    assert asked == [3] and robot.triggers == []
    ports = replace(ports, pick_object=lambda oid: (Status.OUT_OF_REACH, f"{oid} is 3.1 m away"))
    out = run_action(RosLocomotion(ports, agent_with(), robot.wait_frame("again")), parse_action(("pick_up", 4)))
    assert out.status is Status.OUT_OF_REACH and out.message == "4 is 3.1 m away"
    run_action(loco, parse_action(("drop",)))
    assert robot.triggers == ["drop"]


def test_embedded_and_ros_share_the_programs():
    """Both locomotions implement the same primitives; the actions are the same functions."""
    assert set(controllers.PROGRAMS) == {"walk_to", "pick_up", "drop", "explore", "move_by", "turn_by",
                                         "turn_to", "stop"}
    prims = {n for n, v in vars(controllers.Locomotion).items() if getattr(v, "__isabstractmethod__", False)}
    for cls in (EnvLocomotion, RosLocomotion):
        assert prims <= set(vars(cls)), cls


# ------------------------------------------------------------------ one gait: embedded and ROS

def _humanoid():
    from hazard_sim.embodiment.humanoid import HumanoidSpec
    return HumanoidSpec()


STEP = _humanoid().walk_per_frame             # m per frame (0.04911)
TURN = _humanoid().turn_per_frame_deg         # deg per frame (15)


def _frames(*legs) -> int:
    """Walking frames of straight legs (m): each leg ends on its waypoint."""
    return sum(math.ceil(leg / STEP - 1e-9) for leg in legs)


def _gait_walk(path, pose, step=STEP):
    """The embedded walk law (hazard_sim.navigation.gait), frame by frame: the poses."""
    from hazard_sim.navigation.gait import Walk, walk_step, walk_turn
    walk = Walk(replan_every=10_000)
    walk.set_path([np.asarray(p, float) for p in path[1:]], 0)
    xy, yaw, poses = np.array(pose[:2], float), float(pose[2]), []
    while walk.path is not None:
        heading, offset = walk_step(xy, walk.waypoint, step)
        if heading is not None:
            yaw, steps = walk_turn(yaw, heading, math.radians(TURN))
            if steps:
                xy = xy + offset
        walk.moved(xy, True)
        poses.append((xy.copy(), yaw))
    return poses


def _ros_walk(path, pose, goal_yaw=None, free=lambda xy: True, frames=400):
    """The navigation node's GaitFollower driving the humanoid through EmbodiedEnv.drive's
    law (Limits.clip, turn then move): the poses after each frame, and the commands."""
    from planner_node.following import GaitFollower
    return _ros_walk_with(GaitFollower(), path, pose, goal_yaw, frames, free)


def test_gait_follower_walks_the_embedded_gait_frame_for_frame():
    # bends of at most the humanoid's turn per frame (15 degrees): the same poses every frame
    a1, a2 = math.radians(TURN), math.radians(2 * TURN)
    p2 = (2.0 + math.cos(a1), 1.0 + math.sin(a1))
    path = [(1.0, 1.0), (2.0, 1.0), p2, (p2[0] + 0.55 * math.cos(a2), p2[1] + 0.55 * math.sin(a2))]
    emb = _gait_walk(path, (1.0, 1.0, 0.0))
    ros, cmds = _ros_walk(path, (1.0, 1.0, 0.0), frames=1000)
    assert len(ros) == len(emb)
    assert len(ros) == _frames(1.0, 1.0, 0.55)     # 1 m, 1 m and 0.55 m at 0.04911 m per frame: 54 frames
    for (a, ya), (b, yb) in zip(emb, ros):
        np.testing.assert_allclose(a, b, atol=1e-9)
        assert abs(math.remainder(ya - yb, 2 * math.pi)) < 1e-9
    assert cmds[-1].status == "succeeded"


def test_gait_follower_turns_sharp_bends_at_the_turn_rate():
    # a 90 degree bend, and a start facing away: both the embedded walk and the body over
    # cmd_vel turn 15 degrees per frame in place (5 frames), then step with the 6th
    path = [(1.0, 1.0), (1.5, 1.0), (1.5, 2.0)]
    emb = _gait_walk(path, (1.0, 1.0, -math.pi / 2))
    ros, _ = _ros_walk(path, (1.0, 1.0, -math.pi / 2), frames=1000)
    in_place = round(90 / TURN) - 1
    assert len(ros) == len(emb) == 2 * in_place + _frames(0.5, 1.0)
    for (a, ya), (b, yb) in zip(emb, ros):
        np.testing.assert_allclose(a, b, atol=1e-9)
        assert abs(math.remainder(ya - yb, 2 * math.pi)) < 1e-9
    np.testing.assert_allclose(emb[in_place - 1][0], (1.0, 1.0))       # 5 frames of turning in place
    assert abs(emb[in_place - 1][1] - math.radians(-TURN)) < 1e-9


def test_walk_turn_is_clipped_to_the_turn_rate():
    from hazard_sim.navigation.gait import walk_turn
    rate = math.radians(TURN)
    assert walk_turn(0.0, math.radians(2.0), rate) == (math.radians(2.0), True)
    yaw, steps = walk_turn(0.0, math.radians(100.0), rate)
    assert not steps and abs(yaw - rate) < 1e-12
    yaw, steps = walk_turn(math.radians(179.0), math.radians(-179.0), rate)     # across +-180: 2 degrees
    assert steps and abs(yaw - math.radians(-179.0)) < 1e-12


def test_gait_follower_final_turn_on_the_gait_schedule():
    from hazard_sim.navigation.gait import turn_frames, turn_headings
    ros, cmds = _ros_walk([(2.0, 2.0)], (2.0, 2.0, 0.3), goal_yaw=-1.2)
    delta = -1.5
    n = turn_frames(delta, TURN)
    assert len(ros) == n == 6                 # 85.9 degrees at 15 degrees per frame
    np.testing.assert_allclose([y for _, y in ros], turn_headings(0.3, delta, n), atol=1e-9)
    assert [c.status for c in cmds] == ["final_turn"] * n + ["succeeded"]


def test_gait_follower_reports_a_bump_at_once():
    ros, cmds = _ros_walk([(1.0, 1.0), (3.0, 1.0)], (1.0, 1.0, 0.0), free=lambda xy: xy[0] < 1.2)
    assert cmds[-1].status == "stuck" and "bumped" in cmds[-1].message
    steps = math.floor(0.2 / STEP)  # 4 steps of 0.04911 m, a refused one (past x = 1.2), then the report
    assert len(cmds) == steps + 2


def test_gait_follower_arrives_as_walk_to_does_and_faces_the_object():
    # walk_to's arrival: the walk ends before the first frame whose gap to the object's
    # circle is at most ARRIVE_GAP, then the body turns to face the object on the gait's schedule
    from hazard_sim.navigation.gait import ARRIVE_GAP, arrival_gap, turn_frames
    from planner_node.following import GaitFollower
    target, r = np.array([3.0, 1.4]), 0.1
    f = GaitFollower()
    f.set_arrival(target, r, 0.25, ARRIVE_GAP)
    poses, cmds = _ros_walk_with(f, [(1.0, 1.0), (3.0, 1.0)], (1.0, 1.0, 0.0), goal_yaw=0.0)
    walked = [c for c in cmds if c.status == "following"]
    gaps = [arrival_gap(p, 0.25, target, r) for p, _ in poses[:len(walked)]]
    assert gaps[-1] <= ARRIVE_GAP < gaps[-2]             # stopped at the first frame inside the ring
    stop, yaw0 = poses[len(walked) - 1]
    face = math.atan2(target[1] - stop[1], target[0] - stop[0])
    n = turn_frames(face - yaw0, TURN)
    assert [c.status for c in cmds[len(walked):]] == ["final_turn"] * n + ["succeeded"]
    assert abs(math.remainder(poses[-1][1] - face, 2 * math.pi)) < 1e-9


def _ros_walk_with(f, path, pose, goal_yaw=None, frames=400, free=lambda xy: True):
    from hazard_sim.core.embodiment import GroundBody, Twist
    from hazard_sim.core.frames import FRAME_DT
    from hazard_sim.embodiment.humanoid import HumanoidSpec
    body = GroundBody(pose[:2], pose[2], HumanoidSpec())
    f.set_path(np.asarray(path, float), goal_yaw, 0.0)
    poses, cmds = [], []
    for k in range(frames):
        c = f.step((body.xy[0], body.xy[1], body.yaw), k * FRAME_DT)
        cmds.append(c)
        if c.status in ("succeeded", "stuck"):
            break
        body.apply(Twist(vx=c.v, wz=c.w), FRAME_DT, free)
        poses.append((body.xy.copy(), body.yaw))
    return poses, cmds


def test_core_law_planner_plans_the_embedded_walk_path():
    # GridPlanner(core_law=True) on an occupancy grid = the core's walk_to on the same obstacles:
    # inflation by the radius less half a cell, the start released, the cell path's corners
    from hazard_sim.navigation.grid import inflate, plan_path, release_start, simplify_path
    from planner_node.navigation import GridPlanner, OccupancyMap
    occ = np.zeros(SPEC.shape, bool)
    occ[10:50, 40] = True                    # a wall with a gap at the top (rows 50..59)
    occ[30, 20:40] = True
    start, goal = np.array([2.05, 2.05]), np.array([7.05, 2.05])
    planner = GridPlanner(0.25, core_law=True)
    planner.set_map(OccupancyMap(np.where(occ, 100, 0).astype(np.int8), SPEC.resolution, (0.0, 0.0)))
    plan = planner.plan(start, goal)
    blocked = release_start(inflate(occ, 0.25 - SPEC.resolution / 2, SPEC.resolution), occ, SPEC.to_cell(start),
                            0.25, SPEC.resolution)
    cells = plan_path(blocked, SPEC.to_cell(start), [SPEC.to_cell(goal)])
    want = simplify_path(SPEC, cells)
    np.testing.assert_allclose(plan.waypoints[1:-1], want[1:-1])     # the same corners
    np.testing.assert_allclose(plan.waypoints[[0, -1]], [start, goal])
    assert len(plan.waypoints) > 2                                   # it went round the wall


def test_walk_map_is_the_embedded_walking_map():
    # the decision node's walking map, fed with the observations the agent gets, has exactly
    # the obstacle cells of the embedded body's own map
    from hazard_sim.agents import make_agent
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import make_env
    from planner_node.walk_map import WalkMap
    wrapped = make_env("fire", "test", 0, seed=0, camera=CameraSpec(width=96, height=72), frame_limit=600)
    env = wrapped.unwrapped
    obs, info = wrapped.reset()
    wm = WalkMap(info["bounds"], env.grid.resolution, env.agent.radius)
    for o in info.get("observations") or [obs]:
        wm.integrate(o)
    agent = make_agent("greedy", seed=0, benchmark=env.benchmark)
    agent.reset(obs, info)
    done = False
    while not done:
        obs, _, term, trunc, info = wrapped.step(agent.act(obs, info))
        done = term or trunc
        for o in info["observations"]:
            wm.integrate(o)
        np.testing.assert_array_equal(wm.map.obstacles(), env.memory_map.obstacles())
    assert wm.map.obstacles().sum() > 50 and len(wm.frames) > 20


@pytest.mark.parametrize("episode,object_id,frames", [(3, 1012, 58), (0, 1008, 100)])
def test_navigation_goal_walks_walk_to_as_the_embedded_controller(episode, object_id, frames):
    # the navigation node's goal control in lock-step (GridPlanner core law planning to the
    # stand-off cells on the walking map, GaitFollower with walk_to's arrival, GoalRunner with
    # the 10 s limit), driving the body with velocity commands (env.drive, as sim_node does)
    # and observing every 10th frame, walks walk_to frame for frame as the embedded controller
    from hazard_sim.core.embodiment import Twist
    from hazard_sim.core.frames import FRAME_DT
    from hazard_sim.navigation.gait import ARRIVE_GAP, observes_at
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import make_env
    from planner_node.following import GaitFollower, GoalRunner
    from planner_node.navigation import GridPlanner, NavigationError, OccupancyMap

    def env():
        w = make_env("fire", "test", episode, seed=0, camera=CameraSpec(width=96, height=72))
        w.reset()
        return w.unwrapped

    emb, ros = env(), env()
    out = EnvLocomotion(emb).walk_near(controllers._Target(emb.world.by_id[object_id], object_id))
    obj = ros.world.by_id[object_id]
    target, radius = obj.box.center[:2].copy(), float(np.hypot(*obj.box.half[:2]))
    planner = GridPlanner(ros.agent.radius, core_law=True)

    def update_map():
        g = ros.grid
        planner.set_map(OccupancyMap(ros.memory_map.occupancy(), g.resolution, (g.bounds[0], g.bounds[1])))

    update_map()
    follower = GaitFollower()
    follower.set_arrival(target, radius, ros.agent.radius, ARRIVE_GAP)
    runner = GoalRunner(planner, lambda pose, goal: planner.plan_stand_off(pose[:2], target, radius, ARRIVE_GAP,
                                                                           ros.agent.spec.reach),
                        follower=follower, max_recoveries=10 ** 6, max_time=10.0)
    runner.bump_ahead = False           # bumps reach the map as the simulator's bumper/cells do
    pose = lambda: (ros.agent.xy[0], ros.agent.xy[1], ros.agent.yaw)      # noqa: E731
    status, k = Status.SUCCEEDED, 0
    try:
        runner.start(pose(), target, 0.0, 0.0)
        while (cmd := runner.step(pose(), k * FRAME_DT)).status != "succeeded":
            ros.drive(Twist(vx=cmd.v, wz=cmd.w))
            k += 1
            if observes_at(k, ros.render_every):
                ros.observe()
            update_map()                # a new camera frame or a bump (bumper/cells) changes it
    except NavigationError:
        status = Status.NOT_ARRIVED
    assert out.status is status
    assert emb.world.frame == ros.world.frame == frames
    np.testing.assert_allclose(ros.agent.xy, emb.agent.xy, atol=1e-9)
    assert abs(math.remainder(ros.agent.yaw - emb.agent.yaw, 2 * math.pi)) < 1e-9
