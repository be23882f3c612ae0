"""hazard_launch: the YAML launch format subset, substitutions, argument overrides,
errors, and process supervision (crash report, Ctrl-C, --exit-on, final metrics).

The parsing tests need only PyYAML; the process tests start small Python children
(and, for the metrics test, the real sim_node, skipped without rclpy).
"""
from __future__ import annotations

import os
import random
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hazard_ros import launch_file, launcher
from hazard_ros.launcher import Context, LaunchError, Subst, describe, parse_template

REPO = Path(__file__).resolve().parents[1]
LAUNCH_FILE = REPO / "launch" / "hazard.launch.yaml"
TEST_TIME_LIMIT_S = 25


@pytest.fixture
def fake_bin(monkeypatch):
    """Executables resolve to fixed paths, so parsing does not depend on what is installed."""
    monkeypatch.setattr(launch_file, "find_executable", lambda pkg, exe, where="": f"/opt/bin/{exe}")


def by_name(desc):
    return {p.name: p for p in desc.processes}


def ros_params(cmd):
    return [cmd[k + 1] for k, a in enumerate(cmd) if a == "-p"]


# --------------------------------------------------------------------------- parsing

def test_project_launch_file_defaults(fake_bin):
    desc = describe(LAUNCH_FILE, {})
    procs = by_name(desc)
    assert list(procs) == ["sim_node", "perception_node", "mapping_node", "navigation_node", "decision_node"]
    sim = procs["sim_node"].cmd
    assert sim[0] == "/opt/bin/sim_node" and sim[1] == "--ros-args"
    assert sim[2:6] == ["-r", "__node:=sim_node", "-r", "__ns:=/"]
    assert {"benchmark:=''", "task:=fire", "split:=test", "episode:=0", "lockstep:=true",
            "camera_rate:=10.0"} <= set(ros_params(sim))                   # empty: sim_node's default benchmark
    # typed as launch_ros types them: YAML scalars keep their type, $(var) values are read as YAML
    nav = ros_params(procs["navigation_node"].cmd)
    assert {"approach_gap:=0.5", "approach_reach:=3.0", "max_navigation_time:=10.0"} <= set(nav)
    # the episode's end ends the launch; every node but the decision node must not end before it
    assert [n for n, p in procs.items() if p.required] == ["sim_node", "perception_node", "mapping_node",
                                                          "navigation_node"]
    assert desc.fail_on_error                                  # exit_status.launch.py, through common
    profile = procs["sim_node"].env["FASTDDS_DEFAULT_PROFILES_FILE"]
    assert Path(profile).name == "fastdds_large_data.xml" and "<segment_size>" in Path(profile).read_text()
    assert "weights:=''" in ros_params(procs["perception_node"].cmd)        # empty text stays a string
    assert "agent:=greedy" in ros_params(procs["decision_node"].cmd)
    assert {"benchmark", "task", "split", "episode", "agent", "detector", "weights", "camera_rate", "lockstep",
            "record",
            "namespace"} <= set(desc.args)


def test_overrides_and_recorder_condition(fake_bin):
    desc = describe(LAUNCH_FILE, {"task": "flood", "lockstep": "false", "record": "/tmp/run.mcap",
                                  "namespace": "robot1", "agent": "mcts"})
    procs = by_name(desc)
    assert {"task:=flood", "lockstep:=false"} <= set(ros_params(procs["sim_node"].cmd))
    bench = by_name(describe(LAUNCH_FILE, {"benchmark": "hazard/flood"}))["sim_node"].cmd
    assert "benchmark:=hazard/flood" in ros_params(bench)
    assert "-r" in procs["sim_node"].cmd and "__ns:=/robot1" in procs["sim_node"].cmd
    assert "agent:=mcts" in ros_params(procs["decision_node"].cmd)
    assert ros_params(procs["mcap_recorder"].cmd) == ["output:=/tmp/run.mcap", "use_sim_time:=true"]
    digits = by_name(describe(LAUNCH_FILE, {"record": "2024"}))["mcap_recorder"].cmd
    assert "output:='2024'" in ros_params(digits)              # quoted inside the substitution: a string


def test_decision_navigation_timeout_and_sim_time_arguments(fake_bin):
    procs = by_name(describe(LAUNCH_FILE, {}))
    assert "decision_node" in procs and "mcap_recorder" not in procs
    nav = ros_params(procs["navigation_node"].cmd)
    # with the decision node: HAZARD's walk_to limit (exact in lock-step)
    assert "max_navigation_time:=10.0" in nav and "enabled:=true" in nav
    procs = by_name(describe(LAUNCH_FILE, {"decision": "false"}))
    assert "decision_node" not in procs                      # a user's own commander drives
    assert "max_navigation_time:=0.0" in ros_params(procs["navigation_node"].cmd)   # no time limit
    procs = by_name(describe(LAUNCH_FILE, {"navigation": "false", "navigation_timeout": "42"}))
    assert {"enabled:=false", "max_navigation_time:=42"} <= set(ros_params(procs["navigation_node"].cmd))
    procs = by_name(describe(LAUNCH_FILE, {"use_sim_time": "false", "camera_qos": "best_effort"}))
    for name in ("perception_node", "mapping_node", "navigation_node", "decision_node"):
        assert "use_sim_time:=false" in ros_params(procs[name].cmd)
    assert not any(p.startswith("use_sim_time") for p in ros_params(procs["sim_node"].cmd))  # the clock source
    assert "camera_qos:=best_effort" in ros_params(procs["sim_node"].cmd)


def test_unknown_argument_is_an_error(fake_bin, capsys):
    with pytest.raises(LaunchError, match=r"unknown launch argument\(s\) tsak; .* declares: .*task"):
        describe(LAUNCH_FILE, {"tsak": "flood"})
    assert launcher.main([str(LAUNCH_FILE), "tsak:=flood", "--print"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hazard_launch: error: unknown launch argument(s) tsak") and "Traceback" not in err


def test_print_mode_lists_commands(fake_bin, capsys):
    assert launcher.main([str(LAUNCH_FILE), "task:=wind", "--print"]) == 0
    out = capsys.readouterr().out.splitlines()
    sim = next(ln for ln in out if ln.startswith("sim_node: "))
    words = shlex.split(sim.split(": ", 1)[1])
    assert words[0].startswith("FASTDDS_DEFAULT_PROFILES_FILE=") and words[1:3] == ["/opt/bin/sim_node", "--ros-args"]
    assert "task:=wind" in words


def test_substitution_parser_and_evaluation(monkeypatch, tmp_path):
    assert parse_template("a$(var x)b") == ["a", Subst("var", [["x"]]), "b"]
    nested = parse_template("$(not-equals '$(var record)' '')")
    assert nested == [Subst("not-equals", [[Subst("var", [["record"]])], []])]
    ctx = Context(tmp_path / "x.launch.yaml", {"record": "", "n": "1", "flag": "true", "name": "sim"})
    ev = ctx.evaluate
    # as upstream: an empty quoted argument compares as the text "[]" (a warning says so)
    assert ev("$(not-equals '$(var record)' '')") == "true" and ev("$(equals '' '')") == "true"
    assert ev("$(not-equals '_$(var record)' _)") == "false"          # the emptiness test that works
    assert ev("$(equals 0 1e-12)") == "false"                        # math.isclose, as upstream
    assert ev("$(equals $(var n) 1.0)") == "true"                      # numbers compare as numbers
    assert ev("$(equals $(var flag) 1)") == "true"                     # booleans as booleans
    assert ev("$(and $(var flag) $(not false))") == "true" and ev("$(or false 0)") == "false"
    assert ev('pre_$(var name)_"q"') == 'pre_sim_"q"'
    assert ev("$(dirname)") == str(tmp_path)
    monkeypatch.setenv("HAZARD_TEST_ENV", "yes")
    assert ev("$(env HAZARD_TEST_ENV)") == "yes" and ev("$(env HAZARD_NOT_SET 'dflt')") == "dflt"
    assert ev("$(env HAZARD_TEST_ENV '$(var missing)')") == "yes"     # a default only when it is needed
    ctx.env["HAZARD_SET_IN_LAUNCH"] = "here"                           # set_env before it
    assert ev("$(env HAZARD_SET_IN_LAUNCH)") == "here"
    assert ev(3) == "3" and ev(True) == "true"
    assert Path(ev("$(find-pkg-share hazard_stack)"), "launch", "hazard.launch.yaml").is_file()
    for bad, msg in [("$(var missing)", "undefined launch variable 'missing'"),
                     ("$(env HAZARD_NOT_SET)", "is not set"), ("$(eval 1+1)", r"\$\(eval\) is not supported"),
                     ("$(var x", "unterminated"), ("$(equals a)", "takes 2 argument"),
                     ("$(not maybe)", "must be true/false")]:
        with pytest.raises(LaunchError, match=msg):
            ev(bad, "test")


def write(tmp_path, text, name="t.launch.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_file_errors(tmp_path, fake_bin):
    with pytest.raises(LaunchError, match="not found"):
        describe(tmp_path / "none.yaml", {})
    with pytest.raises(LaunchError, match="top level must be `launch:`"):
        describe(write(tmp_path, "nodes: []\n"), {})
    with pytest.raises(LaunchError, match="launch file not found"):
        describe(write(tmp_path, "launch:\n- include: {file: $(dirname)/x.yaml}\n"), {})
    (tmp_path / "other.launch.py").write_text("def generate_launch_description(): ...\n")
    with pytest.raises(LaunchError, match="is a Python launch file: hazard_launch runs YAML launch files only"):
        describe(write(tmp_path, "launch:\n- include: {file: $(dirname)/other.launch.py}\n"), {})
    with pytest.raises(LaunchError, match="has no default: pass need:=VALUE"):
        describe(write(tmp_path, "launch:\n- arg: {name: need}\n"), {})
    with pytest.raises(LaunchError, match="share the name"):
        describe(write(tmp_path, "launch:\n- node: {pkg: p, exec: a, name: x}\n"
                                 "- node: {pkg: p, exec: b, name: x}\n"), {})
    # let, groups, unless, env, remap
    desc = describe(write(tmp_path, """\
        launch:
        - arg: {name: use, default: "false"}
        - let: {name: base, value: "run_$(var use)"}
        - set_env: {name: HAZARD_MODE, value: "test_$(var use)"}
        - group:
            children:
            - let: {name: inner, value: "1"}
            - node: {pkg: p, exec: a, name: "$(var base)", remap: [{from: cmd_vel, to: safe_cmd}],
                     env: [{name: E, value: "$(var inner)"}]}
        - node: {pkg: p, exec: b, unless: "$(var use)", args: "--x 1"}
        - node: {pkg: p, exec: c, if: "$(var use)"}
        """), {})
    procs = by_name(desc)
    assert list(procs) == ["run_false", "b"]
    assert "cmd_vel:=safe_cmd" in procs["run_false"].cmd
    assert procs["run_false"].env == {"E": "1", "HAZARD_MODE": "test_false"}
    assert procs["b"].env == {"HAZARD_MODE": "test_false"}
    assert procs["b"].cmd[:3] == ["/opt/bin/b", "--x", "1"]


def test_include_does_not_scope(tmp_path, fake_bin):
    """As upstream's IncludeLaunchDescription: its args and the included file's let / set_env hold after it."""
    write(tmp_path, """\
        launch:
        - arg: {name: who, default: inner}
        - let: {name: seen, value: "$(var who)-$(var base)"}
        - set_env: {name: HAZARD_FROM_INCLUDE, value: "1"}
        - node: {pkg: p, exec: a, name: "n_$(var seen)"}
        """, name="inc.launch.yaml")
    desc = describe(write(tmp_path, """\
        launch:
        - arg: {name: base, default: b}
        - include: {file: "$(dirname)/inc.launch.yaml", arg: [{name: who, value: outer}]}
        - node: {pkg: p, exec: z, name: "after_$(var seen)"}
        """), {})
    procs = by_name(desc)
    assert list(procs) == ["n_outer-b", "after_outer-b"]
    assert procs["after_outer-b"].env == {"HAZARD_FROM_INCLUDE": "1"} and not desc.fail_on_error


def test_dds_profile_env(tmp_path):
    env = launcher.dds_profile_env({})
    path = Path(env["FASTDDS_DEFAULT_PROFILES_FILE"])
    assert path.name == "fastdds_large_data.xml" and "<segment_size>33554432" in path.read_text()
    assert launcher.dds_profile_env({"FASTDDS_DEFAULT_PROFILES_FILE": "/mine.xml"}) == {}      # the user's wins
    assert launcher.dds_profile_env({"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}) == {}


def test_missing_executable_is_reported(tmp_path):
    with pytest.raises(LaunchError, match="executable 'no_such_exec_xyz' not found in .*lib/hazard_stack"):
        describe(write(tmp_path, "launch:\n- node: {pkg: hazard_stack, exec: no_such_exec_xyz}\n"), {})


# --------------------------------------------------------------------------- processes

def run_launcher(tmp_path, text, *extra, timeout=20, env=None):
    path = write(tmp_path, text)
    env = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", str(path), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


PY = sys.executable


EXIT_STATUS = REPO / "launch" / "exit_status.launch.py"


def test_crashed_child_is_reported_and_the_rest_stopped(tmp_path):
    crasher = f"{PY} -c 'import time, sys; print(\\\"about to fail\\\"); time.sleep(0.5); sys.exit(3)'"
    proc = run_launcher(tmp_path, f"""\
        launch:
        - include: {{file: "{EXIT_STATUS}"}}
        - executable: {{cmd: "{PY} -c 'import time, sys; time.sleep(30)'", name: sleeper}}
        - executable: {{cmd: "{crasher}", name: crasher}}
        """, "--grace", "2")
    # the sleeper would run 30 s: the launcher ending within the 20 s deadline shows it was stopped
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 1, out
    assert "[crasher] about to fail" in out
    assert "process 'crasher' crashed (exit code 3); stopping the others" in out


def test_without_exit_status_a_crash_ends_only_that_process(tmp_path):
    """Upstream without exit_status.launch.py: a process that fails is reported and the launch
    runs on; it ends (with 0, as ros2 launch) when every process has ended."""
    proc = run_launcher(tmp_path, f"""\
        launch:
        - executable: {{cmd: "{PY} -c 'import time; time.sleep(1.5)'", name: sleeper}}
        - executable: {{cmd: "{PY} -c 'import sys; sys.exit(3)'", name: crasher}}
        """)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out
    assert "process 'crasher' ended (exit code 3); the launch runs on" in out and "sleeper finished cleanly" in out


def test_ctrl_c_stops_children_and_escalates(tmp_path):
    stubborn = (f"{PY} -c 'import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                f"print(\\\"ready\\\", flush=True); time.sleep(30)'")
    proc = run_launcher(tmp_path, f"""\
        launch:
        - executable: {{cmd: "{PY} -c 'import time; print(\\"ready\\", flush=True); time.sleep(30)'", name: polite}}
        - executable: {{cmd: "{stubborn}", name: stubborn}}
        """, "--grace", "1")
    lines = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum("ready" in ln for ln in lines) < 2:
        lines.append(proc.stdout.readline())
    proc.send_signal(signal.SIGINT)
    # both children would sleep 30 s and one ignores SIGINT: ending within the 15 s deadline, with the
    # escalation in the log, shows the grace period ran out and SIGTERM stopped it
    out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 130, out            # stopped by Ctrl-C: the run did not finish
    assert "SIGINT: stopping" in out and "sending SIGTERM to stubborn" in out


def test_exit_on(tmp_path):
    proc = run_launcher(tmp_path, f"""\
        launch:
        - executable: {{cmd: "{PY} -c 'import time; time.sleep(30)'", name: sleeper}}
        - executable: {{cmd: "{PY} -c 'import time; time.sleep(0.3)'", name: quick}}
        """, "--exit-on", "quick")
    out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 0 and "quick exited with code 0 (--exit-on)" in out, out
    proc = run_launcher(tmp_path, "launch:\n- executable: {cmd: true, name: a}\n", "--exit-on", "b")
    out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 2 and "--exit-on 'b': no such process" in out


def test_stops_on_final_metrics(tmp_path):
    pytest.importorskip("rclpy")
    domain = str(random.SystemRandom().randint(1, 101))
    proc = run_launcher(tmp_path, """\
        launch:
        - arg: {name: task, default: fire}
        - node:
            pkg: hazard_stack
            exec: sim_node
            name: sim
            namespace: robot1
            on_exit: shutdown
            param:
            - {name: task, value: "$(var task)"}
            - {name: frame_limit, value: "10"}
            - {name: realtime_factor, value: "20.0"}
            - {name: camera_width, value: "32"}
            - {name: camera_height, value: "24"}
            - {name: exit_after_episode, value: 0.5}
        """, "task:=wind", env={"ROS_DOMAIN_ID": domain, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"})
    out, _ = proc.communicate(timeout=22)
    assert proc.returncode == 0, out
    assert '"task": "wind"' in out and '"frames": 10' in out and "done (episode finished)" in out


def test_sim_node_ends_its_episode_by_exiting():
    """exit_after_episode: None until the metrics went out, then 0 once that many s have passed; < 0 never."""
    pytest.importorskip("rclpy")
    from types import SimpleNamespace

    from hazard_ros.sim_node import episode_exit_code
    from hazard_ros.sim_params import check
    node = SimpleNamespace(p={"exit_after_episode": 0.2}, metrics_sent_at=None)
    assert episode_exit_code(node) is None                       # the episode runs
    node.metrics_sent_at = time.monotonic()
    assert episode_exit_code(node) is None                       # its metrics just went out
    node.metrics_sent_at -= 0.3
    assert episode_exit_code(node) == 0
    node.p["exit_after_episode"] = -1.0
    assert episode_exit_code(node) is None                       # keep running (the node's default)
    from hazard_ros.sim_params import PARAMETERS
    good = {k: v[0] for k, v in PARAMETERS.items()}
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="exit_after_episode"):
            check(dict(good, exit_after_episode=bad))


@pytest.mark.parametrize("arg,message", [
    ("camera_width:=100000", "sim_node: parameter 'camera_width' must be in 1..8192 px"),
    ("record:=/proc/no_such_dir/bag", "mcap_recorder: cannot create the bag '/proc/no_such_dir/bag'"),
    ("record:=/etc/hostname/bag", "'/etc/hostname' is not a directory"),
    ("benchmark:=hazard/lava", "unknown benchmark 'hazard/lava'"),
    ("namespace:=bad//ns", "Invalid namespace: namespace must not contain repeated '/'"),
    ("navigation_timeout:=nan", "navigation_node: parameter 'max_navigation_time' must be a finite number"),
    ("navigation_timeout:=-1", "navigation_node: parameter 'max_navigation_time' must be a finite number"),
    ("agent:=frontier", "decision_node: unknown agent 'frontier' for hazard/fire"),
])
def test_launch_arguments_are_checked_before_any_node_starts(arg, message, capsys):
    """Each node's own start-up rules, applied by hazard_launch to the parameters the launch file
    gives it: exit 2, one line naming the node, the parameter and the launch argument; nothing started."""
    pytest.importorskip("rclpy")
    assert launcher.main([str(LAUNCH_FILE), arg, "frame_limit:=5"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and f"(launch argument {arg})" in captured.err, captured.err
    assert "nothing was started" in captured.err and "started" not in captured.out and "Traceback" not in captured.err


def test_the_nodes_refuse_the_same_values_in_one_line(tmp_path):
    """Under ROS 2's own launch nothing checks first: the node refuses the value itself (exit 2, one line)."""
    pytest.importorskip("rclpy")
    from helpers import launch_env
    for exe, params in (("sim_node", ["task:=fire", "camera_width:=100000"]),
                        ("navigation_node", ["max_navigation_time:=.nan"]),
                        ("mcap_recorder", ["output:=/proc/no_such_dir/bag"]),
                        ("decision_node", ["benchmark:=hazard/lava", "agent:=greedy"])):
        args = [x for p in params for x in ("-p", p)]
        proc = subprocess.run([PY, "-c", f"import sys; from hazard_ros.entry import {exe} as f; sys.exit(f())",
                               "--ros-args", *args], capture_output=True, text=True, env=launch_env(), timeout=60)
        assert proc.returncode == 2, (exe, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr and f"[{exe}] error:" in proc.stderr, (exe, proc.stderr[-2000:])


def test_frame_limit_minus_one_is_no_limit():
    """frame_limit:=-1 drives by hand without an episode end; 0 is the benchmark's; below -1 is refused."""
    pytest.importorskip("rclpy")
    from hazard_ros.sim_params import NO_FRAME_LIMIT, env_frame_limit, parameters_from
    assert env_frame_limit(parameters_from({"benchmark": "hazard/fire", "frame_limit": -1})) == NO_FRAME_LIMIT
    assert env_frame_limit(parameters_from({"benchmark": "hazard/fire", "frame_limit": 0})) is None
    assert env_frame_limit(parameters_from({"benchmark": "hazard/fire", "frame_limit": 40})) == 40
    with pytest.raises(ValueError, match="-1 \\(no limit\\)"):
        parameters_from({"benchmark": "hazard/fire", "frame_limit": -2})
