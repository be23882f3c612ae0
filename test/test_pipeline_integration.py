"""The whole pipeline over real DDS: every node a separate process started by the project's
launcher from launch/hazard.launch.yaml, a fire episode in lock-step mode, its metrics checked."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FRAMES = 300


def _launch(tmp_path, *args, timeout=420):
    env = dict(os.environ, ROS_DOMAIN_ID=str(random.SystemRandom().randint(1, 101)),
               ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", PYTHONUNBUFFERED="1")
    out = tmp_path / "metrics.json"
    cmd = [sys.executable, "-m", "hazard_ros.launcher", "--metrics-out", str(out),
           str(REPO / "launch" / "hazard.launch.yaml"), *args]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    return proc, (json.loads(out.read_text()) if out.exists() else None)


def test_fire_episode_through_all_nodes_in_lockstep(tmp_path):
    pytest.importorskip("rclpy")
    pytest.importorskip("nav2_msgs")
    proc, m = _launch(tmp_path, "task:=fire", "episode:=3", "agent:=greedy", f"frame_limit:={FRAMES}",
                      "camera_width:=160", "camera_height:=120")
    log = proc.stdout[-4000:] + proc.stderr[-4000:]
    assert proc.returncode == 0, log
    assert m is not None, log
    for name in ("sim_node", "perception_node", "mapping_node", "navigation_node", "decision_node"):
        assert f"started {name}" in proc.stdout + proc.stderr
    assert m["task"] == "fire" and m["episode"] == 3
    assert m["frames"] == FRAMES or m["rescued_count"] == m["targets"]
    assert 0.0 <= m["value_rate"] <= 1.0
    assert m["rescued_count"] >= 1, log          # greedy rescues its first object at frame ~139
    assert len(m["rescued"]) == m["rescued_count"]
    assert all(r["frame"] <= m["frames"] for r in m["rescued"])
