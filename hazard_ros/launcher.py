"""``hazard_launch``: run a ROS 2 YAML launch file where ``ros2 launch`` is not installed.

It reads ROS 2's YAML launch format with the meaning ROS 2 Jazzy's ``launch`` /
``launch_ros`` give it (:mod:`hazard_ros.launch_file`; ``test/test_upstream_launch.py`` runs
the project's launch files under both and compares them), so the same file runs with
``ros2 launch hazard_stack hazard.launch.yaml`` on a full install::

    launch:
    - arg: {name: task, default: fire, description: ...}
    - let: {name: x, value: "$(var task)_run"}
    - node: {pkg: hazard_stack, exec: sim_node, name: sim_node, namespace: "$(var namespace)",
             if: "$(var enabled)", on_exit: shutdown, param: [{name: task, value: "$(var task)"}],
             remap: [{from: cmd_vel, to: cmd_vel_safe}], args: "...", ros_args: "...",
             env: [{name: N, value: V}]}
    - executable: {cmd: "prog --flag", name: prog, if: ..., unless: ..., env: [...]}
    - group: {scoped: true, children: [...]}   # ``let`` / ``set_env`` stay local if scoped
    - include: {file: "$(dirname)/common.launch.yaml", arg: [{name: a, value: b}]}   # not scoped
    - set_env: {name: NAME, value: VALUE}       # for the processes after it (in its scope)

Substitutions: ``$(var NAME)``, ``$(env NAME [DEFAULT])``, ``$(find-pkg-share PKG)``,
``$(dirname)``, ``$(equals A B)``, ``$(not-equals A B)``, ``$(not X)``,
``$(and A B)``, ``$(or A B)``; arguments may be quoted ('..' or "..") and nested.

Usage::

    hazard_launch                                    # launch/hazard.launch.yaml, defaults
    hazard_launch task:=flood agent:=greedy          # override arguments
    hazard_launch hazard_stack hazard.launch.yaml task:=wind --exit-on decision_node
    hazard_launch my.launch.yaml --print             # show the commands, start nothing
    hazard_launch --show-args                        # list the launch arguments

Each node runs as its own process (``<prefix>/lib/<pkg>/<exec>``, found through the ament
index as launch_ros finds it) with ``--ros-args -r __node:=NAME -r __ns:=NS -p key:=value
-r from:=to``; its output is printed with a ``[name]`` prefix. Ctrl-C (or SIGTERM) sends
SIGINT to every child, SIGTERM after ``--grace`` seconds, SIGKILL after that.

When the launch ends, as upstream: when a process marked ``on_exit: shutdown`` ends (whatever
its exit code), when every process has ended, or on Ctrl-C / SIGTERM; also when the process
named by ``--exit-on`` ends. A process that ends otherwise is reported and the launch runs
on, unless the launch includes ``exit_status.launch.py`` (every project launch file does):
then a process that exits non-zero fails the launch and stops the others. The project's
launch files mark every node but the decision node ``on_exit: shutdown``, and the simulator
ends its episode by exiting (``exit_after_episode``), so an episode's end ends the launch.
The simulator's ``episode/metrics`` are printed as JSON when they arrive (``--metrics-out
FILE`` saves them).

Exit codes: 0 where ``ros2 launch`` ends with 0, non-zero where it ends with non-zero, with
the non-zero causes told apart: 1: a process failed (exit_status.launch.py), could not start,
or the metrics could not be written to ``--metrics-out``; 2: a bad argument or launch file
(nothing started); 128 + N: stopped by signal N (130 Ctrl-C, 143 SIGTERM; ``ros2 launch``
gives 0 there). One check goes beyond upstream: in a launch with a ``sim_node``, the launch
ending without its episode's metrics (a required node ended with 0 first) gives 3 where
``ros2 launch`` gives 0. The ``--exit-on`` process's own non-zero code is passed on.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from hazard_ros import launch_checks
from hazard_ros import msg_guards as mg
from hazard_ros.launch_file import (  # noqa: F401 (the launcher's API: describe, then run)
    PACKAGE,
    REPO_ROOT,
    Context,
    LaunchDescription,
    LaunchError,
    Process,
    Subst,
    declared_args,
    describe,
    find_executable,
    find_package_share,
    parse_template,
    read_launch_file,
)

DEFAULT_LAUNCH_FILE = "hazard.launch.yaml"
# exit codes (docs/robustness.md): 0 only when the run finished (its episode's metrics arrived and
# were written; without an episode: every process, or the --exit-on one, ended with 0)
EXIT_OK, EXIT_CRASHED, EXIT_BAD_ARGUMENT, EXIT_UNFINISHED = 0, 1, 2, 3     # 128 + N: stopped by signal N
METRICS_GRACE_S = 5.0       # a required node that ended with 0: how long its episode's metrics may take


#: the Fast DDS profile the launch files set (FASTDDS_DEFAULT_PROFILES_FILE) unless the user has
#: chosen one: a 32 MB shared-memory segment per participant plus plain UDPv4 (config/)
DDS_PROFILE_FILE = "config/fastdds_large_data.xml"


def dds_profile_env(env: dict | None = None) -> dict:
    """The environment the launch files' ``set_env`` gives their nodes (for tests and benchmarks
    that start nodes without a launch file): FASTDDS_DEFAULT_PROFILES_FILE pointing at the installed
    large-data profile; empty when the user already chose a profile file or another RMW."""
    env = os.environ if env is None else env
    if env.get("FASTDDS_DEFAULT_PROFILES_FILE") or env.get("FASTRTPS_DEFAULT_PROFILES_FILE"):
        return {}
    if env.get("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp") != "rmw_fastrtps_cpp":
        return {}
    return {"FASTDDS_DEFAULT_PROFILES_FILE": str(find_package_share(PACKAGE) / DDS_PROFILE_FILE)}


# ============================================================================ running
PR_SET_PDEATHSIG = 1


def _load_prctl():
    """libc's prctl, looked up here in the parent: the child between fork and exec must not
    import or allocate locks (an ``import ctypes`` there raced with the parent's import lock:
    "RuntimeError: release unlocked lock" from subprocess in some launches)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
_PDEATHSIG = int(signal.SIGTERM)


def _die_with_parent():
    """In the child, before exec: SIGTERM when the launcher's thread that started it ends
    (also on SIGKILL of the launcher), so no node is orphaned. The nodes also watch their
    parent themselves (hazard_ros.ros_node_main.watch_parent) and end a stop that hangs."""
    _PRCTL(PR_SET_PDEATHSIG, _PDEATHSIG)


class Runner:
    def __init__(self, desc: LaunchDescription, grace: float = 5.0, exit_on: str | None = None,
                 out=sys.stdout, base_env: dict | None = None):
        self.desc, self.grace, self.exit_on, self.out = desc, grace, exit_on, out
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.children: dict[str, subprocess.Popen] = {}
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()
        self.stop_reason: str | None = None
        self.exit_code = 0
        self.metrics: dict | None = None
        self.episode = False                # the run has an episode whose metrics are watched
        self.metrics_grace = METRICS_GRACE_S

    def say(self, name: str, line: str) -> None:
        with self.lock:
            self.out.write(f"[{name}] {line}\n")
            self.out.flush()

    def _pump(self, name: str, stream) -> None:
        for raw in iter(stream.readline, b""):
            self.say(name, raw.decode(errors="replace").rstrip("\n"))
        stream.close()

    def start(self) -> None:
        # all children first: preexec_fn is only safe before other threads run
        for p in self.desc.processes:
            env = dict(self.base_env, PYTHONUNBUFFERED="1", RCUTILS_LOGGING_BUFFERED_STREAM="0",
                       HAZARD_LAUNCHER_PID=str(os.getpid()), **p.env)
            try:
                proc = subprocess.Popen(p.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True,
                                        preexec_fn=_die_with_parent if _PRCTL is not None else None)
            except OSError as exc:
                self.say("launcher", f"cannot start {p.name}: {exc}")
                self.request_stop(f"{p.name} could not start", EXIT_CRASHED)
                break
            self.children[p.name] = proc
            self.say("launcher", f"started {p.name} (pid {proc.pid})")
        for name, proc in self.children.items():
            t = threading.Thread(target=self._pump, args=(name, proc.stdout), daemon=True)
            t.start()
            self.threads.append(t)

    def request_stop(self, reason: str, code: int | None = None) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            if code is not None:
                self.exit_code = code

    def wait(self, poll: float = 0.05) -> int:
        """Supervise until a stop is requested or every child has ended; then stop all."""
        ended: set[str] = set()
        required = {p.name for p in self.desc.processes if p.required}
        while self.stop_reason is None:
            for name, proc in self.children.items():
                rc = proc.poll()
                if rc is None or name in ended:
                    continue
                ended.add(name)
                how = f"exit code {rc}" if rc >= 0 else f"signal {signal.Signals(-rc).name}"
                if rc != 0 and name != self.exit_on and self.desc.fail_on_error:
                    self.say("launcher", f"process {name!r} crashed ({how}); stopping the others")
                    self.request_stop(f"{name} crashed", EXIT_CRASHED)
                elif name == self.exit_on or name in required:
                    why = "--exit-on" if name == self.exit_on else "on_exit: shutdown"
                    self.say("launcher", f"{name} exited with code {rc} ({why}); stopping the others")
                    self._ended(name, rc)
                elif rc != 0:
                    self.say("launcher", f"process {name!r} ended ({how}); the launch runs on (it fails on a "
                                         "process's error only where it includes exit_status.launch.py)")
                else:
                    self.say("launcher", f"{name} finished cleanly")
                if self.stop_reason is not None:
                    break
            if self.stop_reason is None and len(ended) == len(self.children):
                self._ended(None, 0)
            time.sleep(poll)
        self.shutdown()
        return self.exit_code

    def _ended(self, name: str | None, rc: int) -> None:
        """A required (``on_exit: shutdown``) or ``--exit-on`` process ``name`` ended with ``rc``,
        or (None) every process did. A required process's non-zero code fails the launch only with
        ``fail_on_error`` (upstream's Shutdown action has no exit code; exit_status.launch.py fails
        it); ``--exit-on``'s code is passed on. Where the launch has an episode, a clean end counts
        as finished once its metrics arrived (they get a moment to arrive)."""
        what = "all processes ended" if name is None else f"{name} exited"
        if rc != 0 and name == self.exit_on:
            self.request_stop(what, rc)
        elif rc != 0 and self.desc.fail_on_error:
            self.request_stop(what, EXIT_CRASHED)
        elif not self.episode:
            self.request_stop(what, EXIT_OK)
        else:
            deadline = time.monotonic() + self.metrics_grace
            while self.metrics is None and self.stop_reason is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.metrics is None:
                self.say("launcher", f"{what} before the episode finished (no episode/metrics)")
                self.request_stop(f"{what} before the episode finished", EXIT_UNFINISHED)
            else:
                self.request_stop("episode finished", EXIT_OK)

    def shutdown(self) -> None:
        """SIGINT to every live child, SIGTERM after the grace period, then SIGKILL."""
        live = {n: p for n, p in self.children.items() if p.poll() is None}
        for sig, wait_s in ((signal.SIGINT, self.grace), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            if not live:
                break
            if sig != signal.SIGINT:
                self.say("launcher", f"sending {sig.name} to {', '.join(live)}")
            for p in live.values():
                try:
                    os.killpg(p.pid, sig)      # the child's own session: its helpers too
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + wait_s
            while live and time.monotonic() < deadline:
                live = {n: p for n, p in live.items() if p.poll() is None}
                time.sleep(0.05)
        for t in self.threads:
            t.join(timeout=1.0)


def _watch_metrics(runner: Runner, topic: str, stop: threading.Event) -> None:
    """Take the final metrics from ``topic`` (the sim's episode/metrics) for printing and
    ``--metrics-out``; the launch itself ends when the simulator exits (``on_exit: shutdown``)."""
    try:
        import rclpy
        from rclpy.context import Context as RclContext
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.signals import SignalHandlerOptions
        from std_msgs.msg import String

        from hazard_ros.ros_qos import LATCHED_SUB
    except Exception as exc:
        runner.say("launcher", f"not watching {topic} (rclpy unavailable: {exc})")
        return
    ctx = RclContext()
    rclpy.init(args=[], context=ctx, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("hazard_launch_watcher", context=ctx)
    # ten deep: a message the guard ignores (a fuzzer's) must not displace the sim's metrics from a
    # one-deep queue before they are taken (the launch then ended as unfinished, exit 3)
    qos = LATCHED_SUB

    ignored = []

    def on_metrics(msg):
        try:        # anything else on the topic (a typo, a fuzzer) must not end the launch
            metrics = mg.parse_json(msg.data, mg.METRICS_FIELDS, topic, mg.METRICS_REQUIRED)
        except mg.Rejected as exc:
            ignored.append(exc)
            if len(ignored) in (1, 10, 100, 1000):
                runner.say("launcher", f"ignored {len(ignored)} message(s) on {topic}; the last: {exc}")
            return
        runner.metrics = metrics             # the launch ends when the simulator does (on_exit: shutdown)
        runner.say("launcher", f"episode metrics received on {topic}")
    node.create_subscription(String, topic, on_metrics, qos)
    ex = SingleThreadedExecutor(context=ctx)
    ex.add_node(node)
    try:
        while not stop.is_set() and runner.metrics is None:
            ex.spin_once(timeout_sec=0.1)
    finally:
        ex.shutdown()
        node.destroy_node()
        rclpy.shutdown(context=ctx)


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds in [0, 600]."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0.0 <= v <= 600.0:                  # (NaN fails too)
        raise argparse.ArgumentTypeError(f"must be in [0, 600] s, got {text}")
    return v


def resolve_launch_path(positional: list[str]) -> Path:
    if not positional:
        return find_package_share(PACKAGE) / "launch" / DEFAULT_LAUNCH_FILE
    if len(positional) == 1:
        p = Path(positional[0])
        if p.exists() or p.name != str(p):
            return p
        return find_package_share(PACKAGE) / "launch" / p.name          # a bare file name
    if len(positional) == 2:
        return find_package_share(positional[0]) / "launch" / positional[1]
    raise LaunchError(f"expected [PACKAGE] [LAUNCH_FILE] then name:=value arguments, got {positional}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="hazard_launch", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("items", nargs="*", help="[PACKAGE] [LAUNCH_FILE] name:=value ...")
    ap.add_argument("--exit-on", metavar="NAME", help="stop everything when this process exits")
    ap.add_argument("--grace", type=float, default=5.0, help="seconds between SIGINT and SIGTERM (default 5)")
    ap.add_argument("--metrics-out", metavar="FILE", help="also write the final metrics JSON here")
    ap.add_argument("--metrics-grace", type=_seconds, default=METRICS_GRACE_S, metavar="S",
                    help="when a required node ends with 0, how long its episode's metrics may take to arrive "
                         f"(default {METRICS_GRACE_S:g})")
    ap.add_argument("--print", dest="dry", action="store_true", help="print the commands, start nothing")
    ap.add_argument("--show-args", action="store_true", help="list the launch arguments and exit")
    opts = ap.parse_args(argv)
    try:
        overrides, positional = {}, []
        for item in opts.items:
            if ":=" in item:
                k, v = item.split(":=", 1)
                if not k:
                    raise LaunchError(f"bad argument {item!r}: expected name:=value")
                overrides[k] = v
            else:
                positional.append(item)
        path = resolve_launch_path(positional)
        if opts.show_args:
            for name, (default, doc) in declared_args(read_launch_file(path)).items():
                print(f"{name} (default: {default!r}){': ' + doc if doc else ''}")
            return 0
        desc = describe(path, overrides)
        bad = launch_checks.problems(desc, overrides)
        if bad:
            raise LaunchError("a node would not start; nothing was started:\n  " + "\n  ".join(bad))
        names = [p.name for p in desc.processes]
        if opts.exit_on and opts.exit_on not in names:
            raise LaunchError(f"--exit-on {opts.exit_on!r}: no such process; processes: {', '.join(names)}")
    except LaunchError as exc:
        print(f"hazard_launch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGUMENT
    if opts.dry:
        for p in desc.processes:
            env = " ".join(f"{k}={shlex.quote(v)}" for k, v in p.env.items())
            print(f"{p.name}: {env + ' ' if env else ''}{shlex.join(p.cmd)}")
        return 0
    if not desc.processes:
        print("hazard_launch: nothing to start", file=sys.stderr)
        return 0

    base_env = dict(os.environ)
    if (REPO_ROOT / "hazard_ros").is_dir():      # run from a checkout: children import the same code
        paths = [p for p in base_env.get("PYTHONPATH", "").split(os.pathsep) if p]
        if str(REPO_ROOT) not in paths:
            base_env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *paths])
    runner = Runner(desc, opts.grace, opts.exit_on, base_env=base_env)
    runner.metrics_grace = opts.metrics_grace

    def on_signal(signum, frame):
        runner.say("launcher", f"{signal.Signals(signum).name}: stopping")
        runner.request_stop("interrupted", 128 + signum)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    stop = threading.Event()
    watcher = None
    runner.start()         # before any other thread: fork + preexec_fn is unsafe with threads running
    sim = next((p for p in desc.processes if p.is_node and p.exec == "sim_node"), None)
    if sim is not None:
        runner.episode = True
        ns = sim.namespace.strip("/")
        topic = f"/{ns}/episode/metrics" if ns else "/episode/metrics"
        watcher = threading.Thread(target=_watch_metrics, args=(runner, topic, stop), daemon=True)
        watcher.start()
    code = runner.wait()
    stop.set()
    if watcher is not None:
        # its rclpy context must be shut down before the interpreter exits: a thread still
        # inside rclpy at exit ends in "terminate called without an active exception"
        watcher.join(timeout=30.0)
    if runner.metrics is not None:
        text = json.dumps(runner.metrics, indent=2, sort_keys=True)
        print(text)
        if opts.metrics_out:
            try:
                Path(opts.metrics_out).write_text(text + "\n")
            except OSError as exc:
                runner.say("launcher", f"cannot write --metrics-out {opts.metrics_out}: {exc.strerror or exc}")
                code = EXIT_CRASHED if code == EXIT_OK else code
    runner.say("launcher", f"done ({runner.stop_reason})")
    if watcher is not None and watcher.is_alive():
        # still inside rclpy (a DDS participant slow to come up under load): the interpreter's
        # exit would destroy its C++ threads while they run ("terminate called without an
        # active exception", exit 134); leave with the documented code instead
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
