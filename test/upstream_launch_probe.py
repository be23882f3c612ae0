"""What ROS 2 Jazzy's own launch makes of a launch file, without starting anything.

Run with upstream ``launch`` / ``launch_ros`` on the path (``. ../shared/upstream/ros2_launch_jazzy/env.sh
PREFIX``)::

    python test/upstream_launch_probe.py FILE [name:=value ...]
    python test/upstream_launch_probe.py --cases CASES.json    # [[FILE, [name:=value, ...]], ...]

It runs the real ``LaunchService`` over ``IncludeLaunchDescription(FILE, args)`` as ``ros2
launch`` does, with one change: a process action is prepared (substitutions, conditions,
parameter files, environment: exactly what would be executed) and recorded instead of being
started. Prints one JSON object per case, a line each: ``processes`` (name, cmd, node name / namespace, typed
parameters read back from launch_ros' parameter files, the environment it adds, whether it
has ``on_exit: shutdown``), ``exit_handlers`` (modules of the OnProcessExit handlers registered
without a target: exit_status.launch.py's) and ``rc`` (LaunchService's return code).
Used by test/test_upstream_launch.py; it is a test tool, not project code.
"""
from __future__ import annotations

import json
import os
import sys

import yaml
from launch import LaunchDescription, LaunchService
from launch.actions import IncludeLaunchDescription, RegisterEventHandler, Shutdown
from launch.actions.execute_local import ExecuteLocal
from launch.event_handlers import OnProcessExit
from launch.launch_description_sources import AnyLaunchDescriptionSource

RECORD: list = []
HANDLERS: list = []
BASE_ENV = dict(os.environ)         # set_env changes os.environ itself (LaunchContext.environment)


def _params(cmd: list) -> dict:
    out = {}
    for k, a in enumerate(cmd):
        if a == "--params-file":
            data = yaml.safe_load(open(cmd[k + 1]))
            for node_params in data.values():
                out.update(node_params.get("ros__parameters", {}))
        elif a == "-p":
            name, _, text = cmd[k + 1].partition(":=")
            out[name] = yaml.safe_load(text)
    return out


def _fake_execute(self, context):
    self.prepare(context)
    desc = self.process_description
    cmd = list(desc.final_cmd)
    env = {k: v for k, v in (desc.final_env or {}).items() if BASE_ENV.get(k) != v}
    node_name = ns = None
    for k, a in enumerate(cmd):
        if a == "-r" and cmd[k + 1].startswith("__node:="):
            node_name = cmd[k + 1].split(":=", 1)[1]
        if a == "-r" and cmd[k + 1].startswith("__ns:="):
            ns = cmd[k + 1].split(":=", 1)[1]
    on_exit = getattr(self, "_ExecuteLocal__on_exit", None) or []
    RECORD.append({"name": node_name or desc.final_name, "cmd": cmd, "node_name": node_name, "namespace": ns,
                   "params": _params(cmd), "env": env,
                   "on_exit_shutdown": any(isinstance(a, Shutdown) for a in on_exit)})
    return None


_register = RegisterEventHandler.execute


def _record_handler(self, context):
    handler = self.event_handler
    if isinstance(handler, OnProcessExit):
        fn = getattr(handler, "_OnActionEventBase__on_event", None)
        HANDLERS.append(getattr(fn, "__module__", "?"))
    return _register(self, context)


def probe(path: str, largs: list[str]) -> dict:
    RECORD.clear()
    HANDLERS.clear()
    args = [tuple(a.split(":=", 1)) for a in largs]
    ls = LaunchService(argv=largs, noninteractive=True)
    ls.include_launch_description(LaunchDescription([
        IncludeLaunchDescription(AnyLaunchDescriptionSource(path), launch_arguments=args)]))
    rc = ls.run()
    os.environ.clear()                 # set_env wrote into os.environ: the next case starts afresh
    os.environ.update(BASE_ENV)
    return {"file": path, "args": largs, "processes": list(RECORD), "exit_handlers": list(HANDLERS), "rc": rc}


def main(argv: list[str]) -> int:
    ExecuteLocal.execute = _fake_execute
    RegisterEventHandler.execute = _record_handler
    if argv[0] == "--cases":
        cases = json.load(open(argv[1]))
    else:
        cases = [[argv[0], argv[1:]]]
    for path, largs in cases:
        print(json.dumps(probe(path, largs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
