"""DOZE's agents over ROS 2: ``decision_node`` with ``agent:=random | frontier | l3mvn |
c_l3mvn | h_l3mvn`` (the ``doze`` agent group) drives the LoCoBot with its discrete actions
against ``sim_node`` serving a ``doze/levelN`` episode in lock-step.

Inputs (:mod:`planner_node.decision_base`): ``task`` (the goal text, bounds, benchmark),
``camera/color/image_raw``, ``camera/depth/image_raw``, perception's
``perception/instances/image_raw`` (the agent's ``seg``; category names from
``perception/instances/label_info`` of the same frame) and ``perception/classes``,
``camera/color/camera_info``, ``/tf``, ``/tf_static``, ``odom``, ``episode/status``,
``episode/metrics``. Never the simulator's ground truth. With a detector whose classes do
not name the goal's kind (the shipped one calls every kind ``object``) the goal is
never recognised: the agent searches until the step limit (docs/perception.md).

Each action, as the embedded task runs it (``ObjectNavTask``: five frames of 0.1 s at the
LoCoBot's limits):

* ``MoveAhead``: ``cmd_vel`` 0.5 m/s, then ``sim/step``, five times; once the simulator's
  status says the frame's move was blocked (``blocked_frame``: a wall, furniture or a
  person), the remaining frames are stepped with a zero command (AI2-THOR's MoveAhead stops);
* ``RotateLeft`` / ``RotateRight``: ``cmd_vel`` +-60 deg/s for five ``sim/step`` s;
* ``Done``: the ``done`` service of ``sim_node`` (the task's stop action);

then the agent gets the camera frame of the step's last frame.  The simulator counts the
steps and collisions of the driven frames (five frames make a step) and publishes the
paper's metrics on ``episode/metrics`` when the episode ends (Done, or the frame limit:
500 steps x 5 frames in ``launch/doze.launch.yaml``).  With the same episode, seed and
camera size the agent sees the same images and poses as embedded (the camera pose comes
through TF: equal to rounding), so the results are the embedded ones (docs/doze.md).

Parameters: agent, benchmark (doze/levelN: picks DOZE's ``random`` over HAZARD's), seed (0),
agent_options (JSON object), max_actions (0: until the episode ends; N: say Done after N actions),
wait_timeout (30 s wall), sim_node (sim_node: the node
whose parameter service gives a round trip after each action).
"""
from __future__ import annotations

import json
import time

from geometry_msgs.msg import Twist
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import Trigger

from hazard_sim.agents import agents_for, make_agent
from hazard_sim.core.outcome import Status
from hazard_sim.embodiment.locobot import LoCoBotSpec
from hazard_sim.tasks.doze.task import ActionError, ObjectNavTask
from planner_node.decision_base import DecisionBase, EpisodeOver
from planner_node.observation import ObservationAssembler, action_result

#: topics this node publishes (relative names, ROS type)
PUBLISHED_TOPICS = [("cmd_vel", "geometry_msgs/msg/Twist"), ("decision/action", "std_msgs/msg/String")]
DOZE_BENCHMARK = "doze/level1"          # any DOZE spec: they share the agent group
READER = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def doze_agents() -> dict:
    """The DOZE agent group (name -> class)."""
    return agents_for(DOZE_BENCHMARK)


def is_doze_agent(name: str) -> bool:
    return name in doze_agents()


def parse_doze_action(action) -> str:
    """The DOZE action an agent returned (``MoveAhead`` ...), or ValueError naming the known ones."""
    try:
        return str(ObjectNavTask().parse(action))
    except ActionError as exc:
        raise ValueError(str(exc)) from None


def action_twist(action: str, spec: LoCoBotSpec = LoCoBotSpec()) -> tuple[float, float]:
    """(linear.x m/s, angular.z rad/s) of a motion action at the LoCoBot's limits: the
    command that moves the body exactly as the embedded action does, frame by frame."""
    lim = spec.limits()
    if action == "MoveAhead":
        return lim.linear, 0.0
    if action in ("RotateLeft", "RotateRight"):
        return 0.0, lim.angular if action == "RotateLeft" else -lim.angular
    raise ValueError(f"{action!r} is not a motion action; motion actions: MoveAhead, RotateLeft, RotateRight")


def doze_info(labels: dict, task: dict, status: dict, result: dict, obs: dict, reset: bool = False) -> dict:
    """The ``info`` dict an embedded DOZE env gives its agent, from ROS inputs."""
    info = {"action_result": dict(result), "labels": {int(k): str(v) for k, v in labels.items()},
            "bounds": [float(b) for b in task["bounds"]], "observations": [obs], "frame": int(obs["frame"])}
    for key in ("goal", "collided", "steps", "blocked_frame"):
        if key in status:
            info[key] = status[key]
    if reset:
        info["task"] = {k: task[k] for k in ("task", "benchmark", "goal", "actions", "success_distance",
                                             "max_steps") if k in task}
    return info


def check_doze_task(task) -> dict:
    """The ``task`` JSON of a DOZE episode, or ValueError saying what is missing."""
    if not isinstance(task, dict):
        raise ValueError(f"task must be a JSON object, got {type(task).__name__}")
    missing = [k for k in ("goal", "bounds", "benchmark") if k not in task]
    if missing:
        raise ValueError(f"task JSON lacks {missing} (is sim_node serving a doze/levelN benchmark?); "
                         f"keys: {sorted(task)}")
    if not task.get("lockstep"):
        raise ValueError("the DOZE decision node needs sim_node in lock-step (lockstep:=true): it steps the "
                         "simulator frame by frame")
    if len(task["bounds"]) != 4:
        raise ValueError(f"task bounds must be [xmin, ymin, xmax, ymax], got {task['bounds']}")
    return task


class DozeDecisionNode(DecisionBase):
    """See the module docstring."""

    default_agent = "frontier"

    def __init__(self, node_name: str = "decision_node", **kwargs):
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        self.max_actions = int(p("max_actions", 0).value)
        p("benchmark", "")                  # read by decision_node's make_decision_node (random: DOZE's)
        if not is_doze_agent(self.agent_name):
            raise ValueError(f"unknown DOZE agent {self.agent_name!r}; known: {', '.join(sorted(doze_agents()))}")
        if self.max_actions < 0:
            raise ValueError(f"max_actions must be >= 0, got {self.max_actions}")
        self.spec = LoCoBotSpec()
        self.task_error: str | None = None
        self.assembler = ObservationAssembler(None, max_pending=60)
        self.obs_by_frame: dict[int, dict] = {}

        subs = MutuallyExclusiveCallbackGroup()
        self.subscribe_camera(READER, subs)
        fast = MutuallyExclusiveCallbackGroup()
        self.subscribe_episode(fast, task_fields=({}, ()))
        self.subscribe_perception(READER, fast)
        clients = ReentrantCallbackGroup()
        self.step_client = self.create_client(Trigger, "sim/step", callback_group=clients)
        self.done_client = self.create_client(Trigger, "done", callback_group=clients)
        self.make_sim_clients(clients)
        self.cmd_pub = self.create_publisher(Twist, "cmd_vel", 10)
        self.action_pub = self.create_publisher(String, "decision/action", 10)

    # ------------------------------------------------------------ inputs (the lock is held)
    def _on_image(self, kind: str, stamp: int, arr, frame_id: str) -> None:
        self.assembler.add(kind, stamp, arr, frame_id)
        self._assemble()

    def _on_camera_info(self, K, msg) -> None:
        self.assembler.set_camera_info(K)
        self._assemble()

    def _assemble(self) -> None:
        for o in self.assembler.pop_complete(self.poses.tf, -1):
            self.take_unrecognised(o)
            self.obs_by_frame[int(o["frame"])] = o
            for f in [f for f in self.obs_by_frame if f < int(o["frame"]) - 20]:
                del self.obs_by_frame[f]
        self._cv.notify_all()

    def _set_task(self, data: dict) -> None:
        try:
            self.task, self.task_error = check_doze_task(data), None
        except ValueError as exc:
            self.task_error = str(exc)
            self.get_logger().error(f"task: {exc}")
        self._cv.notify_all()

    @staticmethod
    def parse_status(data: dict) -> dict:
        if "frame" not in data:
            raise ValueError(f"episode/status without a frame: {json.dumps(data)[:80]}")
        return data

    # ------------------------------------------------------------ waiting and calling
    def _wait(self, predicate, what: str, timeout: float | None = None, stop_on_metrics: bool = True) -> None:
        end = time.monotonic() + (self.wait_timeout if timeout is None else timeout)
        with self._cv:
            while not predicate():
                if stop_on_metrics and self.metrics is not None:
                    raise EpisodeOver()
                if self.task_error is not None:
                    raise ValueError(self.task_error)
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"waited {self.wait_timeout:g} s for {what}")
                self._cv.wait(min(left, 0.2))

    def _call(self, client, name: str) -> Trigger.Response:
        resp, why = self.call_trigger(client, name)
        if resp is None:
            raise TimeoutError(f"{why} (is sim_node running in lock-step?)")
        return resp

    def _status_of(self, frame: int) -> dict:
        self._wait(lambda: self.status is not None and int(self.status["frame"]) >= frame,
                   f"episode/status of frame {frame}")
        with self._cv:
            return dict(self.status)

    def observation(self, frame: int) -> dict:
        """The observation (images, perception's instances and labels, TF) of ``frame``."""
        self._wait(lambda: frame in self.obs_by_frame and self.labels_of(frame) is not None,
                   f"the camera frame {frame} with its TF and perception's instances "
                   "(camera_rate must bring an image at the end of every step; is perception_node running?)")
        with self._cv:
            return self.obs_by_frame[frame]

    # ------------------------------------------------------------ actions
    def drive(self, action: str) -> tuple[bool, int]:
        """One motion action over cmd_vel + sim/step; returns (blocked, the last frame)."""
        v, w = action_twist(action, self.spec)
        blocked = False
        frame = int(self.status["frame"])
        for _ in range(self.spec.frames_per_action):
            cmd = Twist()
            cmd.linear.x, cmd.angular.z = (0.0, 0.0) if blocked else (v, w)
            self.cmd_pub.publish(cmd)
            resp = self._call(self.step_client, "sim/step")
            if not resp.success:
                if self.metrics is not None or "over" in resp.message:
                    raise EpisodeOver()
                raise RuntimeError(f"sim/step failed: {resp.message}")
            frame = int(resp.message.strip())
            st = self._status_of(frame)
            blocked = blocked or bool(st.get("blocked_frame"))
            if st.get("done"):
                break
        self.cmd_pub.publish(Twist())
        return blocked, frame

    # ------------------------------------------------------------ the run
    def run(self) -> dict | None:
        """Decide and act until the episode ends; returns the metrics."""
        log = self.get_logger()
        try:
            self._wait(lambda: self.task is not None and self.perception is not None and self.status is not None,
                       "task, perception/classes and episode/status (are sim_node and perception_node running?)",
                       stop_on_metrics=False)
            self.sync_with_sim()
            obs = self.observation(int(self.status["frame"]))
            agent = make_agent(self.agent_name, seed=self.seed, benchmark=self.task["benchmark"],
                               **self.agent_options)
            info = doze_info(self.labels_of(int(obs["frame"])), self.task, self.status,
                             action_result("reset", True, 0), obs, reset=True)
            agent.reset(obs, info)
            log.info(f"agent {self.agent_name} (seed {self.seed}) on {self.task['benchmark']}: "
                     f"find {self.task['goal']!r}")
            n = 0
            while True:
                action = parse_doze_action(agent.act(obs, info))
                if self.max_actions and n >= self.max_actions:
                    action = "Done"
                frame0 = int(obs["frame"])
                if action == "Done":
                    resp = self._call(self.done_client, "done")
                    log.info(f"#{n} Done -> {resp.message}")
                    break
                blocked, frame = self.drive(action)
                self.sync_with_sim()
                st = self._status_of(frame)
                status = Status.BLOCKED if blocked else Status.SUCCEEDED
                reason = "MoveAhead blocked by an obstacle or a person" if blocked else ""
                result = action_result(action, status, frame - frame0, reason)
                self.action_pub.publish(String(data=json.dumps(
                    {"n": n, "action": action, "success": not blocked, "frame": frame,
                     "collided": bool(st.get("collided"))})))
                n += 1
                if st.get("done"):
                    break
                obs = self.observation(frame)
                info = doze_info(self.labels_of(frame), self.task, st, result, obs)
            self._wait(lambda: self.metrics is not None, "episode/metrics", stop_on_metrics=False)
        except EpisodeOver:
            pass
        return self.episode_over(("success", "spl", "collisions", "steps", "distance_to_goal"))


__all__ = ["DozeDecisionNode", "EpisodeOver", "action_twist", "check_doze_task", "doze_agents", "doze_info",
           "is_doze_agent", "parse_doze_action", "PUBLISHED_TOPICS"]
