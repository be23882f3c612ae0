"""Issue 18, ROS: a ``perception/set_classes`` of 100,000 names neither blocks the perception
node nor its shutdown (case 15), and the launcher ends the run when a required node ends,
whatever its exit code, with the documented exit codes (case 16)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import launch_env, sim_node_launch

from hazard_ros.launch_file import LaunchDescription, LaunchError, Process, describe
from hazard_ros.launcher import EXIT_OK, EXIT_UNFINISHED, Runner
from perception_node.detectors import DetectorInputError, GroundTruthDetector

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
TEST_TIME_LIMIT_S = 90


# ------------------------------------------------------------------ case 15: set_classes
def test_ground_truth_set_classes_is_linear_and_bounded():
    det = GroundTruthDetector()
    names = [f" c{i} " for i in range(GroundTruthDetector.MAX_CLASSES)]
    det.set_classes(names + names[::-1] + ["", "  "])           # repeats and blanks dropped, order kept
    assert det.classes == [n.strip() for n in names]
    det.set_classes(["sofa", "mug"] * 50_000)                   # 100,000 names, 2 distinct: fine
    assert det.classes == ["sofa", "mug"]
    with pytest.raises(DetectorInputError, match="more than 10000 class names"):
        det.set_classes([f"c{i}" for i in range(100_000)])
    assert det.classes == ["sofa", "mug"]                       # a refused list changes nothing
    with pytest.raises(DetectorInputError, match="must be strings"):
        det.set_classes(["a", 3])
    with pytest.raises(DetectorInputError, match="a list of names"):
        det.set_classes("sofa")
    det.set_classes(None)
    assert det.classes is None


def test_perception_node_refuses_100k_class_names_at_once(ros_env):
    rclpy = pytest.importorskip("rclpy")
    from rclpy.context import Context
    from std_msgs.msg import String

    from perception_node.perception_node import PerceptionNode
    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_env)
    node = PerceptionNode(context=ctx)
    try:
        node._on_set_classes(String(data=json.dumps(["backpack", "wall"])))
        assert node.detector.classes == ["backpack", "wall"] and node.class_error is None
        text = json.dumps([f"class_{i}" for i in range(100_000)])      # ~1.3 MB, under the size limit
        node._on_set_classes(String(data=text))
        assert "more than 10000 class names" in node.class_error
        assert node.detector.classes == ["backpack", "wall"]
    finally:
        node.destroy_node()
        rclpy.shutdown(context=ctx)


# ------------------------------------------------------------------ case 16: the launcher
def _proc(name: str, code: str, required: bool) -> Process:
    return Process(name, [PY, "-c", code], required=required)


FOREVER = "import signal; signal.pause()"


def _run(procs, episode: bool, metrics_when=None, fail_on_error: bool = True) -> tuple[int, Runner]:
    runner = Runner(LaunchDescription({}, procs, fail_on_error), grace=5.0, out=open(os.devnull, "w"))
    runner.episode, runner.metrics_grace = episode, 0.3
    if metrics_when is not None:           # the metrics watcher: metrics arrive when a process has ended
        def watch():
            while runner.stop_reason is None:
                if any(p.poll() is not None for p in runner.children.values()):
                    runner.metrics = {"frames": 1}
                    return
                threading.Event().wait(0.01)
        threading.Thread(target=watch, daemon=True).start()
    runner.start()
    code = runner.wait()
    assert all(p.poll() is not None for p in runner.children.values())      # everything stopped
    return code, runner


@pytest.mark.parametrize("rc", [0, 3])
def test_a_required_process_that_ends_ends_the_run(rc):
    code, runner = _run([_proc("node_a", FOREVER, True), _proc("node_b", f"raise SystemExit({rc})", True)],
                        episode=True)
    assert code == (EXIT_UNFINISHED if rc == 0 else 1)
    assert runner.stop_reason.startswith("node_b ")
    assert runner.children["node_a"].returncode != 0            # stopped by the launcher, not left running


def test_a_required_process_that_fails_without_exit_status_ends_the_run_with_0():
    """Upstream: on_exit: shutdown carries no exit code; only exit_status.launch.py fails the launch."""
    code, runner = _run([_proc("node_a", FOREVER, True), _proc("node_b", "raise SystemExit(3)", True)],
                        episode=False, fail_on_error=False)
    assert code == EXIT_OK and runner.stop_reason == "node_b exited"
    assert runner.children["node_a"].returncode != 0


def test_exit_code_0_only_when_the_episode_finished():
    code, runner = _run([_proc("sim", FOREVER, True), _proc("decision", "pass", True)], episode=True,
                        metrics_when="a process ended")
    assert code == EXIT_OK and runner.stop_reason == "episode finished"     # decision ended, the metrics came
    code, _ = _run([_proc("a", FOREVER, True), _proc("b", "pass", True)], episode=False)   # no episode: 0
    assert code == EXIT_OK


def test_a_process_that_is_not_required_may_end():
    code, runner = _run([_proc("once", "pass", False), _proc("node", "import time; time.sleep(0.5)", True)],
                        episode=False)
    assert code == EXIT_OK and runner.stop_reason == "node exited"


def test_on_exit_in_launch_files(tmp_path):
    path = tmp_path / "t.launch.yaml"
    path.write_text("launch:\n- executable: {cmd: 'true', name: a, on_exit: shutdown}\n- executable: {cmd: 'true'}\n")
    procs = describe(path, {}).processes
    assert [p.required for p in procs] == [True, False]
    path.write_text("launch:\n- node: {pkg: p, exec: true, name: a}\n")
    assert not describe(path, {}).processes[0].required          # a node too ends the launch only when marked
    path.write_text("launch:\n- executable: {cmd: 'true', name: a, on_exit: respawn}\n")
    with pytest.raises(LaunchError, match="on_exit must be 'shutdown'"):
        describe(path, {})


def test_sim_node_ended_by_sigint_ends_the_launch_with_code_3(tmp_path):
    """The issue's probe: SIGINT to sim_node alone (it exits 0) left the launcher and the other
    nodes running for ever; now the launch ends, every node stops, exit code 3."""
    pytest.importorskip("rclpy")
    path = tmp_path / "t.launch.yaml"
    path.write_text(sim_node_launch(16, 12, '- executable: {cmd: "%s %s", name: other}' % (PY, tmp_path / "other.py")))
    (tmp_path / "other.py").write_text("import signal, sys\nsignal.signal(signal.SIGINT, lambda *a: sys.exit(0))\n"
                                       "print('up', flush=True)\nsignal.pause()\n")
    env = launch_env()
    proc = subprocess.Popen([PY, "-m", "hazard_ros.launcher", str(path), "--grace", "3", "--metrics-grace", "1"],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO, start_new_session=True)
    lines: list[str] = []
    try:
        end = time.monotonic() + 60
        pids = {}
        while time.monotonic() < end and not ("sim_node" in pids and any("[sim_node]" in ln for ln in lines)):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"started (\w+) \(pid (\d+)\)", line)
            if m:
                pids[m.group(1)] = int(m.group(2))
        assert "sim_node" in pids and "other" in pids, "".join(lines)
        os.kill(pids["sim_node"], signal.SIGINT)
        out = "".join(lines) + proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        for pid in locals().get("pids", {}).values():
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    assert proc.returncode == EXIT_UNFINISHED, out[-3000:]
    assert "sim_node exited with code 0 (on_exit: shutdown)" in out, out[-3000:]
    assert "before the episode finished" in out and "Traceback" not in out, out[-3000:]
    for pid in pids.values():                       # no node left running (a zombie counts as gone)
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z"


def test_cmd_vel_beyond_the_body_limit_is_dropped_in_every_component():
    """A flying body takes linear.y / .z: they are bounded like linear.x, so no cmd_vel reaches
    the body's CommandError (which would stop the sim node's frame loop)."""
    pytest.importorskip("rclpy")
    from geometry_msgs.msg import Twist

    from hazard_ros import msg_guards as mg
    for axis in "xyz":
        msg = Twist()
        setattr(msg.linear, axis, 1e200)
        with pytest.raises(mg.Rejected, match="beyond"):
            mg.check_twist(msg)
    msg = Twist()
    msg.linear.y, msg.linear.z = 99.0, -99.0
    assert mg.check_twist(msg) == (0.0, 0.0)
