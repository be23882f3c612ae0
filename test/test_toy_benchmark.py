"""A toy benchmark built only through the places docs/adding_a_benchmark.md lists:
a point robot that must reach a goal point and say ``done`` within 0.3 m of it.

It shows that a benchmark is a spec plus its own pieces (scene, body, task,
measure, dataset, agent, ``--save-viz`` recorder, ROS pieces) and that the env, Gymnasium,
the runner, the CLI and the ROS sim node take it without any change to the core or the node.
"""
from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from PIL import Image

from hazard_sim.agents import AGENT_GROUPS, Agent, register_agent, unregister_agent
from hazard_sim.core.embodiment import GroundBody, Limits, Twist, mount
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.outcome import OK, Outcome, Status, fail
from hazard_sim.core.ros_pieces import RosPieces
from hazard_sim.core.spec import (
    ALIASES,
    BENCHMARKS,
    BenchmarkSpec,
    Dataset,
    benchmark_ids,
    register_benchmark,
    unregister_benchmark,
)
from hazard_sim.core.task import Measure, Task
from hazard_sim.geometry import Box
from hazard_sim.render.camera import BODY_FROM_OPTICAL, CameraSpec
from hazard_sim.render.mesh import box_mesh, quad_mesh, text_texture
from hazard_sim.scenes.base import Scene, floor_part, wall_segments
from hazard_sim.world import Entity, Kind, World

GOAL_RADIUS = 0.3
EPISODES = [{"index": 0, "scene": "box", "start": [1.0, 1.0, 0.0], "goal": [4.0, 1.0]},
            {"index": 1, "scene": "box", "start": [1.0, 1.0, math.pi / 2], "goal": [1.0, 3.5]}]


# -------------------------------------------------------------------- the body
@dataclass(frozen=True)
class PointSpec:
    radius: float = 0.1
    height: float = 0.3
    speed: float = 0.5          # m/s
    turn_rate: float = math.pi  # rad/s

    def limits(self) -> Limits:
        return Limits(self.speed, self.turn_rate)

    def mounts(self):
        return [mount("camera_optical_frame", "base_link", 0.25, BODY_FROM_OPTICAL)]


class PointRobot(GroundBody):
    kind = "point"


# -------------------------------------------------------------------- the task
@dataclass(frozen=True)
class Step:
    name: str

    def __str__(self):
        return f"{self.name}()"


class ReachGoal(Task):
    name = "reach_goal"
    actions = ("forward", "left", "right", "done")

    def reset(self, env):
        self.goal = np.array(env.spec_dict["goal"], float)
        self.said_done = False

    def action_space(self):
        return spaces.Discrete(len(self.actions))

    def parse(self, action):
        name = self.actions[int(action)] if isinstance(action, (int, np.integer)) else str(action)
        if name not in self.actions:
            raise ValueError(f"unknown action {name!r}; known: {', '.join(self.actions)}")
        return Step(name)

    def execute(self, env, act) -> Outcome:
        if act.name == "done":
            self.said_done = True
            return OK
        twist = {"forward": Twist(vx=0.5), "left": Twist(wz=math.pi / 2), "right": Twist(wz=-math.pi / 2)}[act.name]
        for _ in range(5):                       # 0.5 s: 0.25 m forward or 45 degrees
            r = env.drive(twist)
            if r.bumped:
                return fail(Status.BLOCKED, "bumped into a wall")
        return OK

    def terminated(self, env, act):
        return self.said_done

    def describe(self, env):
        return {"task": self.name, "goal": self.goal.tolist()}

    def observation(self, env):
        return {"goal": self.goal.astype(np.float32)}

    def observation_space(self, env):
        return {"goal": spaces.Box(-np.inf, np.inf, (2,), np.float32)}


class Success(Measure):
    name = "success"

    def metrics(self, env):
        d = float(np.linalg.norm(env.agent.xy - env.task.goal))
        return {"success": bool(env.task.said_done and d <= GOAL_RADIUS), "distance_to_goal": round(d, 6)}


# -------------------------------------------------------------------- world, dataset, agent
BOARD_ID, FLAG_ID = 50, 1000


def build_world(ep, rng):
    """A walled box with a whiteboard (a static textured mesh) on the east wall and a goal
    flag (an entity drawn as a mesh) at the goal."""
    bounds = (0.0, 0.0, 5.0, 4.0)
    parts = [floor_part(bounds)]
    for k, (a, b) in enumerate((((0, 0), (5, 0)), ((5, 0), (5, 4)), ((5, 4), (0, 4)), ((0, 4), (0, 0)))):
        parts += wall_segments(f"wall{k}", a, b)
    board = quad_mesh([[4.94, 1.5, 1.2], [4.94, 0.5, 1.2], [4.94, 0.5, 0.4], [4.94, 1.5, 0.4]], BOARD_ID,
                      texture=text_texture(["GOAL AHEAD"]))
    flag_shape = Box.from_yaw((0, 0, 0), (0.05, 0.05, 0.3))
    flag = Entity(FLAG_ID, Kind("flag", (0.1, 0.1, 0.6), 1.0, (220, 30, 30)),
                  Box.from_yaw((*ep["goal"], 0.3), (0.05, 0.05, 0.3)), mesh=box_mesh(flag_shape, (220, 30, 30), 1))
    return World(Scene("box", "indoor", bounds, parts, meshes=[board]), [flag], rng, physics=False, episode=ep)


def load(split, index, root=None):
    if not 0 <= index < len(EPISODES):
        raise IndexError(f"toy episode {index} out of range 0..{len(EPISODES) - 1}")
    return dict(EPISODES[index])


class TrailRecorder:
    """``--save-viz`` of the toy: every first-person frame as a PNG and the path as JSON."""

    def __init__(self, env, out_dir):
        self.env, self.dir, self.path = env, Path(out_dir), []
        (self.dir / "frames").mkdir(parents=True, exist_ok=True)

    def add(self, info, obs):
        self.path.append([float(v) for v in self.env.agent.xy])
        Image.fromarray(obs["rgb"]).save(self.dir / "frames" / f"{len(self.path) - 1:04d}.png")

    def finish(self, metrics):
        (self.dir / "trajectory.json").write_text(json.dumps({"path": self.path, "success": metrics["success"]}))
        return {"dir": str(self.dir), "frames": len(self.path)}


SPEC = BenchmarkSpec(
    id="toy/point-goal", description="a point robot drives to a goal point",
    dataset=Dataset(load=load, validate=lambda ep, where, spec=None: ep, count=lambda split, root=None: len(EPISODES)),
    build_world=build_world, processes=(),
    embodiment=lambda ep, spec: PointRobot(ep["start"][:2], ep["start"][2], spec), body_spec=PointSpec(),
    task=ReachGoal, measures=(Success,), max_frames=400, max_steps=60, sensors=("rgbd",), agents="toy",
    aggregate=lambda rs: {"episodes": len(rs), "sr": 100.0 * sum(r["success"] for r in rs) / len(rs)},
    table=lambda bid, rows: "\n".join(f"{r['agent']}: SR {r['sr']:.1f} ({r['episodes']})" for r in rows),
    recorder=TrailRecorder,
    # over ROS: the generic sensors, cmd_vel and sim/step, plus a Trigger service for its done action
    ros=RosPieces(services={"done": "done"}),
)


class StraightToGoal:
    """Turns towards the goal, drives, says done when close (uses only its observation): an
    :class:`~hazard_sim.agents.Agent` (``reset`` / ``act``), built on nothing of another benchmark."""
    name = "toy_straight"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def reset(self, obs, info):
        pass

    def act(self, obs, info):
        x, y, yaw = obs["agent_pose"]
        d = obs["goal"] - np.array([x, y])
        if np.linalg.norm(d) <= GOAL_RADIUS:
            return "done"
        err = (math.atan2(d[1], d[0]) - yaw + math.pi) % (2 * math.pi) - math.pi
        if abs(err) > math.radians(30):
            return "left" if err > 0 else "right"
        return "forward"


@pytest.fixture(scope="module", autouse=True)
def registered():
    import gymnasium

    from hazard_ros.sim_topics import PUBLISHED_TOPICS  # no rclpy: the ROS side's topic catalogue

    def state():
        return (BENCHMARKS.names(), dict(ALIASES), {g: dict(a) for g, a in AGENT_GROUPS.items()},
                set(gymnasium.registry), dict(PUBLISHED_TOPICS.items()))
    benchmark_ids()                  # the shipped benchmarks first, so that only the toy's entries come and go
    before = state()
    register_benchmark(SPEC, aliases=("toy",))
    register_agent("toy", StraightToGoal)
    yield
    unregister_agent("toy", StraightToGoal.name)
    unregister_benchmark(SPEC.id)
    # every registry the toy touched is as it was
    assert state() == before


def test_toy_agent_follows_the_agent_protocol_and_alias_resolves():
    assert isinstance(StraightToGoal(), Agent)
    assert EmbodiedEnv("toy", camera=CameraSpec(16, 12)).benchmark == SPEC.id


def run(env, agent):
    obs, info = env.reset()
    agent.reset(obs, info)
    done, steps = False, 0
    while not done:
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        done, steps = term or trunc, steps + 1
    return env.unwrapped.metrics(), steps


def test_toy_benchmark_runs_in_the_core_env():
    env = EmbodiedEnv("toy/point-goal", camera=CameraSpec(32, 24))
    m, steps = run(env, StraightToGoal())
    assert m["success"] and m["distance_to_goal"] <= GOAL_RADIUS
    assert m["task"] == "reach_goal" and m["frames"] == 5 * (steps - 1) + 1   # "done" costs one frame
    assert env.agent.limits.linear == 0.5


def test_toy_scene_meshes_and_entity_meshes_are_drawn_with_their_ids():
    env = EmbodiedEnv("toy/point-goal", camera=CameraSpec(96, 72))
    obs, info = env.reset()                       # at (1, 1) facing +x: the flag and the board ahead
    ids = set(np.unique(obs["seg"]).tolist())
    assert {BOARD_ID, FLAG_ID} <= ids and FLAG_ID in env.observed_ids
    assert info["labels"][FLAG_ID] == "flag"
    board = obs["seg"] == BOARD_ID
    assert obs["depth"][board].min() == pytest.approx(3.94, abs=0.05)   # the board is 3.94 m ahead
    flag = obs["seg"] == FLAG_ID
    assert obs["depth"][flag].min() == pytest.approx(2.95, abs=0.05)    # the flag's near face


def test_toy_benchmark_through_gymnasium_with_time_limit():
    env = gymnasium.make(SPEC.gym_id, camera=CameraSpec(32, 24))
    assert env.spec.max_episode_steps == 60
    obs, info = env.reset()
    assert set(obs) == {"rgb", "depth", "seg", "camera_K", "camera_pose", "agent_pose", "goal", "frame"}
    truncated = False
    for _ in range(60):                     # always turning: never done, so TimeLimit truncates
        obs, _, terminated, truncated, info = env.step(1)
        assert not terminated
    assert truncated and info["action_result"]["status"] == "succeeded"


def test_toy_benchmark_blocked_by_walls_reports_a_status():
    env = EmbodiedEnv("toy/point-goal", episode=1, camera=CameraSpec(32, 24))
    env.reset()
    for _ in range(20):
        _, _, _, _, info = env.step("forward")
        if not info["action_result"]["success"]:
            break
    assert info["action_result"]["status"] == Status.BLOCKED.value
    assert env.agent.xy[1] < 4.0 - env.agent.radius


def test_toy_benchmark_through_runner_and_cli(tmp_path, capsys):
    from hazard_sim.cli import main
    from hazard_sim.runner import bench
    assert main(["run", "--benchmark", "toy/point-goal", "--episode", "1", "--agent", "toy_straight",
                 "--width", "32", "--height", "24", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["success"] is True and m["episode"] == 1
    r = bench("toy/point-goal", "test", "toy_straight", [0, 1], workers=1, out=str(tmp_path / "t.jsonl"),
              progress=False)
    assert r["sr"] == 100.0 and r["episodes"] == 2
    # its own --save-viz recorder: a frame per observation, the path ending at the goal
    assert main(["run", "--benchmark", "toy/point-goal", "--agent", "toy_straight", "--width", "32", "--height", "24",
                 "--save-viz", str(tmp_path / "viz"), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["viz"] == {"dir": str(tmp_path / "viz"), "frames": m["actions"] + 1}
    frames = sorted((tmp_path / "viz" / "frames").glob("*.png"))
    assert len(frames) == m["actions"] + 1 and np.asarray(Image.open(frames[0])).shape == (24, 32, 3)
    trail = json.loads((tmp_path / "viz" / "trajectory.json").read_text())
    assert trail["path"][0] == [1.0, 1.0] and trail["success"] is True
    assert math.dist(trail["path"][-1], EPISODES[0]["goal"]) == pytest.approx(m["distance_to_goal"], abs=1e-6)
    # without a recorder, --save-viz says so (no other benchmark's recorder stands in)
    BENCHMARKS.register(SPEC.id, dataclasses.replace(SPEC, recorder=None), replace=True)
    try:
        assert main(["run", "--benchmark", "toy/point-goal", "--agent", "toy_straight", "--width", "32",
                     "--height", "24", "--save-viz", str(tmp_path / "viz2")]) == 2
        assert "toy/point-goal has no recorder" in capsys.readouterr().err
    finally:
        BENCHMARKS.register(SPEC.id, SPEC, replace=True)


def test_toy_benchmark_through_the_sim_node(ros_context):
    """The ROS sim node serves the toy with no change to the node: its body's camera, depth and
    segmentation (the flag's label), odometry and sim/step; the done service its RosPieces
    declare (and no other benchmark's); the episode's metrics when the robot says done at the goal."""
    rclpy = pytest.importorskip("rclpy")
    from geometry_msgs.msg import Twist as TwistMsg
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import DurabilityPolicy, QoSProfile
    from std_msgs.msg import String
    from std_srvs.srv import Trigger
    from vision_msgs.msg import LabelInfo

    from hazard_ros import conversions as conv
    from hazard_ros.sim_node import SimNode
    params = dict(benchmark="toy", lockstep=True, camera_width=32, camera_height=24, idle_republish=0.0,
                  cmd_vel_timeout=100.0, lidar_beams=36, lidar_rings=2)
    sim = SimNode(context=ros_context, parameter_overrides=[Parameter(k, value=v) for k, v in params.items()])
    probe = rclpy.create_node("toy_probe", context=ros_context)
    ex = SingleThreadedExecutor(context=ros_context)
    ex.add_node(sim)
    ex.add_node(probe)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    got = {"labels": [], "metrics": []}
    probe.create_subscription(LabelInfo, "camera/segmentation/label_info", got["labels"].append, latched)
    probe.create_subscription(String, "episode/metrics", got["metrics"].append, latched)

    def spin_until(pred, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not pred():
            ex.spin_once(timeout_sec=0.02)
        return pred()

    def call(name):
        client = probe.create_client(Trigger, name)
        assert spin_until(client.service_is_ready), name
        fut = client.call_async(Trigger.Request())
        assert spin_until(fut.done), name
        return fut.result()
    try:
        assert sim.env.benchmark == SPEC.id and sim.field_topic is None and not sim.flies
        assert {"camera/color/image_raw", "camera/depth/image_raw", "camera/segmentation/image_raw", "odom",
                "lidar/points", "world/objects"} <= set(sim.pubs)
        assert spin_until(lambda: {"/done", "/sim/step"} <= {n for n, _ in probe.get_service_names_and_types()})
        served = {n for n, _ in probe.get_service_names_and_types()}
        assert not {"/pick_up", "/drop", "/stop"} & served
        assert spin_until(lambda: got["labels"])
        assert conv.from_ros_label_info(got["labels"][0])[FLAG_ID] == "flag"
        pub = probe.create_publisher(TwistMsg, "cmd_vel", 10)
        cmd = TwistMsg()
        cmd.linear.x = 0.5                       # 0.05 m a frame towards the goal 3 m ahead
        assert spin_until(lambda: pub.get_subscription_count() > 0)
        pub.publish(cmd)
        assert spin_until(lambda: sim.cmd == (0.5, 0.0))
        for k in range(56):
            assert call("sim/step").message == str(k + 1)
        assert sim.env.agent.xy == pytest.approx((1.0 + 56 * 0.05, 1.0))
        res = call("done")
        assert res.success and spin_until(lambda: got["metrics"])
        m = json.loads(got["metrics"][0].data)
        assert m["success"] is True and m["distance_to_goal"] == pytest.approx(0.2, abs=1e-6)
        assert not call("sim/step").success                 # the episode is over
    finally:
        ex.shutdown()
        sim.destroy_node()
        probe.destroy_node()
