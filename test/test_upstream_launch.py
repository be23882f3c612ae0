"""The project's launch files under ROS 2 Jazzy's own launch system (launch 3.4.3, launch_ros
0.26.6, the stand-in for ``ros2 launch PKG FILE`` in ``../shared/upstream/ros2_launch_jazzy``)
against ``hazard_launch``:

- every launch file with each documented argument combination: the same processes, executables,
  node names and namespaces, parameters of the same values and types, environment, which
  processes end the launch (``on_exit: shutdown``) and whether a failed one fails it;
- the package found as ``ros2 launch hazard_stack ...`` finds it (the prefix the setup lays out);
- a HAZARD fire episode run end to end under upstream launch: exit 0 at the episode's end, and
  metrics equal to ``hazard_launch``'s;
- DOZE with an agent: every intended node up, exit 0 at the episode's end;
- ESAR with navigation and the reporter: every node up and running (a parameter of the wrong
  type would have ended it), then a killed node stops the launch with a non-zero code, under
  both launchers.

Skipped where the upstream copy is absent (it is in CI, at ../shared).
"""
from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from helpers import REPO, finish, launch_env

UPSTREAM = REPO.parent / "shared" / "upstream" / "ros2_launch_jazzy"
PROBE = REPO / "test" / "upstream_launch_probe.py"
PY = sys.executable
TEST_TIME_LIMIT_S = 240

pytestmark = pytest.mark.skipif(not (UPSTREAM / "ros2_launch.py").is_file(),
                                reason=f"ROS 2 Jazzy's launch is not at {UPSTREAM}")

#: the argument combinations the launch files, the README and docs/ros_contract.md document
COMBINATIONS = {
    "hazard.launch.yaml": [
        {}, {"benchmark": "hazard/flood", "agent": "mcts"}, {"task": "flood", "episode": "3", "agent": "mcts"},
        {"task": "fire", "record": "runs/fire0"}, {"record": "2024", "namespace": "r1"}, {"decision": "false"},
        {"navigation": "false", "lockstep": "false"}, {"navigation_timeout": "42"}, {"navigation_timeout": "0"},
        {"task": "fire", "lockstep": "false", "camera_width": "640", "camera_height": "480"},
        {"use_sim_time": "false", "camera_qos": "best_effort"}, {"ground_truth_topics": "false", "detector": "onnx",
                                                                 "weights": "data/perception/detector.onnx"},
        {"detector": "onnx", "weights": "d.onnx", "namer": "data/perception/namer/namer.onnx"},
        {"metrics_out": "runs/m.json", "frame_limit": "200", "seed": "7"},
    ],
    "doze.launch.yaml": [
        {}, {"level": "2", "episode": "5"}, {"level": "3", "decision": "h_l3mvn"},
        {"decision": "random", "max_actions": "3", "record": "runs/d"}, {"navigation": "false"},
        {"navigation_lockstep": "true"}, {"detector": "onnx", "weights": "data/perception/doze/doze.onnx",
                                          "namer": "data/perception/namer/namer.onnx"},
    ],
    "esar.launch.yaml": [
        {}, {"map": "coastal", "episode": "3", "weather": "fog"}, {"time_of_day": "21.5"},
        {"navigation": "true", "reporter": "true"}, {"lockstep": "true", "record": "runs/e", "min_pixels": "16"},
        {"segmentation": "instance", "realtime_factor": "4.0"},
    ],
}


def upstream_env(**extra) -> dict:
    """launch_env() plus upstream launch on the path and this venv as the install prefix."""
    env = launch_env(**extra)
    env["PYTHONPATH"] = os.pathsep.join([str(UPSTREAM / "src"), str(UPSTREAM / "stubs"), str(UPSTREAM / "meta"),
                                         str(REPO)])
    env["AMENT_PREFIX_PATH"] = os.pathsep.join([sys.prefix, str(UPSTREAM / "prefix")])
    return env


def typed(value):
    """A value with its type, so that 0.5 and "0.5", 1 and 1.0, true and "true" differ."""
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, value)


def _remaps(cmd: list) -> list:
    """The -r rules of a command line in order, but the node name and namespace."""
    return [cmd[k + 1] for k, a in enumerate(cmd) if a == "-r" and not cmd[k + 1].startswith(("__node:=", "__ns:="))]


def upstream_view(case: dict) -> dict:
    return {p["name"]: {"exe": p["cmd"][0], "node": p["node_name"], "ns": p["namespace"], "remaps": _remaps(p["cmd"]),
                        "params": {k: typed(v) for k, v in p["params"].items()}, "env": p["env"],
                        "ends_launch": p["on_exit_shutdown"]} for p in case["processes"]}


def hazard_view(desc) -> dict:
    out = {}
    for p in desc.processes:
        cmd = p.cmd
        rules = dict(cmd[k + 1].split(":=", 1) for k, a in enumerate(cmd) if a == "-p")
        remaps = dict(cmd[k + 1].split(":=", 1) for k, a in enumerate(cmd) if a == "-r")
        out[p.name] = {"exe": cmd[0], "node": remaps.get("__node"), "ns": remaps.get("__ns"), "remaps": _remaps(cmd),
                       "params": {k: typed(yaml.safe_load(v)) for k, v in rules.items()}, "env": p.env,
                       "ends_launch": p.required}
    return out


@pytest.fixture(scope="module")
def upstream_cases(tmp_path_factory):
    cases = [[str(REPO / "launch" / f), [f"{k}:={v}" for k, v in args.items()]]
             for f, combos in COMBINATIONS.items() for args in combos]
    path = tmp_path_factory.mktemp("upstream") / "cases.json"
    path.write_text(json.dumps(cases))
    proc = subprocess.run([PY, str(PROBE), "--cases", str(path)], capture_output=True, text=True,
                          env=upstream_env(), cwd=REPO, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert len(lines) == len(cases), proc.stderr[-3000:]
    return lines


def test_every_launch_file_means_the_same_under_upstream_launch(upstream_cases):
    from hazard_ros.launch_file import describe
    for case in upstream_cases:
        args = dict(a.split(":=", 1) for a in case["args"])
        what = f"{Path(case['file']).name} {case['args']}"
        assert case["rc"] == 0, what
        desc = describe(Path(case["file"]), args)
        up, ours = upstream_view(case), hazard_view(desc)
        assert list(up) == list(ours), what                     # the same processes, in the same order
        for name in up:
            assert ours[name] == up[name], f"{what}: {name}"
        assert desc.fail_on_error == bool(case["exit_handlers"]), what


def test_parameters_are_typed_as_the_nodes_declare_them(upstream_cases):
    """The values that were strings upstream before (the issue's list), now of their nodes' types."""
    by = {(Path(c["file"]).name, tuple(c["args"])): upstream_view(c) for c in upstream_cases}
    hz = by[("hazard.launch.yaml", ())]
    assert hz["navigation_node"]["params"]["approach_gap"] == ("float", 0.5)
    assert hz["navigation_node"]["params"]["max_navigation_time"] == ("float", 10.0)
    assert hz["sim_node"]["params"]["benchmark"] == ("str", "") and hz["sim_node"]["ends_launch"]
    assert "mcap_recorder" not in hz and not hz["decision_node"]["ends_launch"]
    assert by[("hazard.launch.yaml", ("record:=2024", "namespace:=r1"))]["mcap_recorder"]["params"]["output"] \
        == ("str", "2024")
    assert by[("hazard.launch.yaml", ("navigation_timeout:=42",))]["navigation_node"]["params"][
        "max_navigation_time"] == ("int", 42)        # the node declares it with dynamic typing
    dz = by[("doze.launch.yaml", ())]
    assert "decision_node" not in dz and "mcap_recorder" not in dz       # the empty arguments are empty
    assert dz["sim_node"]["params"]["lockstep"] == ("bool", False)
    assert dz["navigation_node"]["params"]["robot_radius"] == ("float", 0.18)
    assert dz["perception_node"]["params"]["use_sim_time"] == ("bool", True)
    agent = by[("doze.launch.yaml", ("level:=3", "decision:=h_l3mvn"))]
    assert "decision_node" in agent and "navigation_node" not in agent
    assert agent["sim_node"]["params"]["lockstep"] == ("bool", True)
    assert agent["sim_node"]["params"]["camera_rate"] == ("float", 2.0)
    es = by[("esar.launch.yaml", ("navigation:=true", "reporter:=true"))]
    assert es["navigation_node"]["params"]["max_linear_speed"] == ("float", 10.0)
    assert es["esar_reporter"]["params"]["use_sim_time"] == ("bool", True)
    for view in by.values():
        for name, proc in view.items():
            if name != "mcap_recorder":          # every node's TF and clock in its robot's namespace
                assert proc["remaps"][:3] == ["/tf:=tf", "/tf_static:=tf_static", "/clock:=clock"], name
            assert Path(proc["env"]["FASTDDS_DEFAULT_PROFILES_FILE"]).is_file()
            assert proc["exe"] == str(Path(sys.prefix) / "lib" / "hazard_stack" / proc["exe"].rsplit("/", 1)[-1])


def test_ros2_launch_finds_the_package_and_its_arguments():
    proc = subprocess.run([PY, str(UPSTREAM / "ros2_launch.py"), "-s", "hazard_stack", "hazard.launch.yaml"],
                          capture_output=True, text=True, env=upstream_env(), cwd="/", timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert str(Path(sys.prefix) / "share" / "hazard_stack" / "launch" / "hazard.launch.yaml") in proc.stdout
    for name in ("benchmark", "record", "metrics_out", "namespace"):
        assert f"'{name}':" in proc.stdout, proc.stdout


# --------------------------------------------------------------------------- runs
def _ros2_launch(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen([PY, str(UPSTREAM / "ros2_launch.py"), "hazard_stack", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO, start_new_session=True)


def _hazard_launch(args: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "hazard_ros.launcher", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO, start_new_session=True)


def test_a_fire_episode_under_upstream_launch_gives_hazard_launchs_metrics(tmp_path):
    """The quick start's episode (fire test 24, greedy), its first 300 frames (the first rescue is
    at frame 147): upstream launch ends with 0 at the episode's end, with the same metrics."""
    args = ["hazard.launch.yaml", "episode:=24", "frame_limit:=300"]
    up = _ros2_launch([*args, f"metrics_out:={tmp_path / 'upstream.json'}"], upstream_env())
    out = finish(up, 150)
    assert up.returncode == 0 and "ros2 launch rc=0" in out, out[-4000:]
    assert "process[sim_node-1] was required: shutting down launched system" in out, out[-4000:]
    for bad in ("expecting type", "Traceback", "process has died"):
        assert bad not in out, out[-4000:]
    ours = _hazard_launch([*args, f"metrics_out:={tmp_path / 'ours.json'}", "--metrics-out",
                           str(tmp_path / "watched.json")], launch_env())
    out2 = finish(ours, 150)
    assert ours.returncode == 0, out2[-4000:]
    upstream = json.loads((tmp_path / "upstream.json").read_text())
    assert upstream == json.loads((tmp_path / "ours.json").read_text())
    assert upstream == json.loads((tmp_path / "watched.json").read_text())    # what went out on the topic
    assert upstream["frames"] == 300 and upstream["rescued_count"] >= 1, upstream


def test_doze_with_an_agent_under_upstream_launch(tmp_path):
    up = _ros2_launch(["doze.launch.yaml", "decision:=random", "max_actions:=3", "level:=2",
                       f"metrics_out:={tmp_path / 'm.json'}"], upstream_env())
    out = finish(up, 150)
    assert up.returncode == 0, out[-4000:]
    for node in ("sim_node", "perception_node", "mapping_node", "decision_node"):
        assert re.search(rf"\[INFO\] \[{node}-\d\]: process started", out), (node, out[-4000:])
    assert not re.search(r"navigation_node-\d\]: process started", out)        # the agent's own steps
    for bad in ("expecting type", "Traceback", "process has died"):
        assert bad not in out, out[-4000:]
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert metrics["benchmark"] == "doze/level2" and "spl" in metrics and metrics["steps"] <= 4, metrics


#: each ESAR node's first line after its parameters were read (a wrong type ends the node before)
ESAR_UP = {"sim_node": r"sim_node\]: esar/alpine/test episode 0", "perception_node": r"detecting on the views",
           "mapping_node": r"mapping_node\]: map \d+ x \d+", "navigation_node": r"navigate_to_pose ready"}


def _until_up(proc: subprocess.Popen, patterns: dict, timeout: float) -> list[str]:
    """The launch's output lines until every pattern has appeared (a reader thread: a launch that
    goes quiet cannot block the deadline)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in iter(proc.stdout.readline, "")], daemon=True).start()
    seen, left, end = [], dict(patterns), time.monotonic() + timeout
    while left and time.monotonic() < end:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            continue
        seen.append(line)
        left = {k: p for k, p in left.items() if not re.search(p, line)}
    assert not left, f"{sorted(left)} not up:\n{''.join(seen)[-4000:]}"
    proc._reader_lines = lines           # what comes after: _rest()
    return seen


def _rest(proc: subprocess.Popen, timeout: float) -> str:
    """The rest of the output once the launch has ended (within ``timeout``)."""
    try:
        proc.wait(timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    time.sleep(0.2)
    out = []
    while not proc._reader_lines.empty():
        out.append(proc._reader_lines.get())
    return "".join(out)


def _pids(name: str, tag: str) -> list[int]:
    """Live processes of ``lib/hazard_stack/<name>`` whose command line holds ``tag`` (the namespace)."""
    out = []
    for d in Path("/proc").iterdir():
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
            state = (d / "stat").read_text().split(")")[-1].split()[0]
        except (OSError, IndexError):
            continue
        words = [w.decode(errors="replace") for w in cmd]
        if state != "Z" and any(w.endswith(f"lib/hazard_stack/{name}") for w in words) and any(tag in w for w in words):
            out.append(int(d.name))
    return out


@pytest.mark.parametrize("launcher", ["upstream", "hazard_launch"])
def test_esar_nodes_run_and_a_killed_node_fails_the_launch(launcher, tmp_path):
    env = upstream_env() if launcher == "upstream" else launch_env()
    domain = env["ROS_DOMAIN_ID"]
    args = ["esar.launch.yaml", "navigation:=true", "reporter:=true", "camera_width:=64", "camera_height:=64",
            f"namespace:=probe{domain}"]
    proc = _ros2_launch(args, env) if launcher == "upstream" else _hazard_launch(args, env)
    try:
        lines = _until_up(proc, ESAR_UP, 120)
        time.sleep(3.0)
        assert proc.poll() is None, "".join(lines)[-4000:]        # every node still runs (the reporter too)
        victims = _pids("mapping_node", f"probe{domain}")
        assert len(victims) == 1, victims
        os.kill(victims[0], signal.SIGKILL)
        out = "".join(lines) + _rest(proc, 60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode not in (0, None), out[-4000:]
    if launcher == "upstream":
        assert "failed (signal 9); stopping the launch" in out and "ros2 launch rc=1" in out, out[-4000:]
    else:
        assert "process 'mapping_node' crashed (signal SIGKILL)" in out and proc.returncode == 1, out[-4000:]
    for name in ("sim_node", "perception_node", "navigation_node", "decision_node"):
        assert not _pids(name, f"probe{domain}"), f"{name} left running"


def test_a_wrong_argument_under_upstream_launch_is_one_line_and_fails_the_launch():
    """ros2 launch checks nothing first: sim_node refuses the camera itself (one line, exit 2),
    exit_status.launch.py fails the launch and the other nodes are stopped."""
    up = _ros2_launch(["hazard.launch.yaml", "camera_width:=100000"], upstream_env())
    out = finish(up, 120)
    assert up.returncode == 1 and "ros2 launch rc=1" in out, out[-4000:]
    assert "[sim_node] error: parameter 'camera_width' must be in 1..8192 px" in out, out[-4000:]
    assert "failed (exit code 2); stopping the launch" in out and "Traceback" not in out, out[-4000:]
