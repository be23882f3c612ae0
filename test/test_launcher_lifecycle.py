"""hazard_launch's process lifecycle with real nodes: children die with a SIGKILLed launcher,
every exit code is the documented one (130 Ctrl-C, 1 a node crashed, 2 a bad argument; 0 and 3
in test_robust_ros.py) and never 134 ("terminate called without an active exception"), and many
quick launches start their children without the subprocess start-up race."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import REPO, launch_env, sim_node_launch

TEST_TIME_LIMIT_S = 120
PY = sys.executable


def _launch(tmp_path, text, *extra):
    path = tmp_path / "t.launch.yaml"
    path.write_text(textwrap.dedent(text))
    return subprocess.Popen([PY, "-m", "hazard_ros.launcher", str(path), "--grace", "3", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=launch_env(), cwd=REPO)


NODES = sim_node_launch(32, 24, "- node: {pkg: hazard_stack, exec: mapping_node, name: mapping_node}")


def _read_until(proc, *patterns: str, timeout: float) -> list[str]:
    """The launcher's output lines until every pattern has appeared (in any order)."""
    lines, end, left = [], time.monotonic() + timeout, list(patterns)
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        left = [p for p in left if not re.search(p, line)]
        if not left:
            return lines
    raise AssertionError(f"{left!r} did not appear within {timeout} s:\n{''.join(lines)[-3000:]}")


#: both nodes are up: the simulator has loaded its episode, the mapping node has started
UP = (r"\[sim_node\] .*episode \d+ \(scene", r"\[mapping_node\] .*(map|waiting|started)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:        # a zombie (not yet reaped by its new parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_children_die_with_a_sigkilled_launcher(tmp_path):
    pytest.importorskip("rclpy")
    proc = _launch(tmp_path, NODES)
    lines = _read_until(proc, *UP, timeout=60)
    pids = [int(m.group(1)) for ln in lines for m in [re.search(r"started \w+ \(pid (\d+)\)", ln)] if m]
    assert len(pids) == 2, lines
    proc.kill()                                   # SIGKILL: the launcher cannot stop anything itself
    proc.wait(10)
    end = time.monotonic() + 20
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.2)
    assert not [p for p in pids if _alive(p)], "orphaned children"


def test_exit_codes_are_the_documented_ones(tmp_path):
    pytest.importorskip("rclpy")
    # Ctrl-C: 130 (the run did not finish)
    proc = _launch(tmp_path, NODES)
    _read_until(proc, *UP, timeout=60)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=40)
    assert proc.returncode == 130, out[-3000:]
    assert "terminate called" not in out and "Traceback" not in out, out[-3000:]
    # a bad parameter the launcher sees (an unknown task): 2, nothing started (hazard_ros.launch_checks)
    proc = _launch(tmp_path, NODES.replace("- {name: task, value: fire}", "- {name: task, value: lava}"))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "[launcher] started" not in out, out[-3000:]
    assert "sim_node: unknown benchmark 'lava'" in out, out[-3000:]
    # a node that cannot start for what only it finds out (no episode file there): 1, the others stopped
    no_episodes = f"- {{name: task, value: fire}}\n    - {{name: dataset_root, value: {tmp_path}}}"
    proc = _launch(tmp_path, NODES.replace("- {name: task, value: fire}", no_episodes))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 1, out[-3000:]
    assert "process 'sim_node' crashed (exit code 2)" in out and "terminate called" not in out, out[-3000:]
    # a bad launch argument: 2, nothing started
    proc = _launch(tmp_path, NODES, "no_such_arg:=1")
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "started" not in out, out


def test_quick_launches_have_no_start_up_race(tmp_path):
    """Many launches of several children each: every child starts (no "release unlocked
    lock" from subprocess), every launch exits 0."""
    children = "".join(f"- executable: {{cmd: \"{PY} -c 'print(\\\"hi {k}\\\")'\", name: c{k}}}\n"
                       for k in range(6))
    for run in range(8):
        proc = _launch(tmp_path, "launch:\n" + children)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
        assert "release unlocked lock" not in out and "Traceback" not in out, out
        assert all(f"[c{k}] hi {k}" in out for k in range(6)), out


def test_a_node_whose_parent_dies_stops_without_a_signal(tmp_path):
    """No parent-death signal (a parent that is not the launcher, or a system without
    prctl): the node notices it was re-parented and stops cleanly, exit 0."""
    pytest.importorskip("rclpy")
    out = tmp_path / "node.log"
    parent = subprocess.Popen([PY, "-c", textwrap.dedent(f"""\
        import os, subprocess, sys
        with open({str(out)!r}, "w") as log:
            p = subprocess.Popen([sys.executable, "-m", "perception_node.mapping_node"], stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True,
                                 env=dict(os.environ, HAZARD_LAUNCHER_PID=str(os.getpid())))
        print(p.pid, flush=True)
        """)], stdout=subprocess.PIPE, text=True, env=launch_env(), cwd=REPO)
    pid = int(parent.stdout.readline())
    parent.wait(10)                                # the parent is gone; the node lives on ...
    end = time.monotonic() + 30
    while time.monotonic() < end and _alive(pid):
        time.sleep(0.2)
    assert not _alive(pid), out.read_text()[-2000:]   # ... only until it notices
    assert "parent process" in out.read_text() and "ended; stopping" in out.read_text()


HANGING_NODE = """\
import sys, time
from rclpy.node import Node
from hazard_ros import ros_node_main

ros_node_main.STOP_DEADLINE_S = 2.0

class Stuck(Node):
    def __init__(self):
        super().__init__("stuck")
        print("ready", flush=True)

    def on_shutdown(self):          # a stop that never finishes
        time.sleep(600)

sys.exit(ros_node_main.run_node(Stuck, "stuck"))
"""


def test_a_stop_that_hangs_ends_the_process_after_the_deadline(tmp_path):
    pytest.importorskip("rclpy")
    proc = subprocess.Popen([PY, "-c", HANGING_NODE], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=launch_env(), cwd=REPO)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    # its stop would hang 600 s: ending within the 30 s deadline, saying why, shows the 2 s deadline acted
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1, out
    assert "did not stop within 2 s of SIGTERM; exiting" in out
