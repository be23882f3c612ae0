"""What ``hazard_launch`` checks before it starts any process: every hazard_stack node's name,
namespace and parameters, by the rules the node itself applies when it starts. A wrong launch
argument (``camera_width:=100000``, ``record:=`` a place no bag can be made, an unknown
benchmark, ``namespace:=bad//ns``, ``navigation_timeout:=nan``) is then one line naming the node,
the parameter, the value and the launch argument that gave it, exit code 2, and nothing started.

Under ROS 2's own ``ros2 launch`` the same values are refused by launch itself (a namespace) or
by the node at its start, with the same one-line message (exit code 2); the launch files'
``exit_status.launch.py`` then fails the launch (exit 1). Nodes of other packages are not checked.
"""
from __future__ import annotations

import math

import yaml

PACKAGE = "hazard_stack"


def node_params(cmd: list) -> dict:
    """name -> typed value of a process's ``-p name:=value`` rules (as rcl reads them: YAML)."""
    out = {}
    for k, a in enumerate(cmd[:-1]):
        if a == "-p":
            name, _, text = cmd[k + 1].partition(":=")
            out[name] = yaml.safe_load(text)
    return out


def _remap(cmd: list, key: str) -> str | None:
    for k, a in enumerate(cmd[:-1]):
        if a == "-r" and cmd[k + 1].startswith(f"{key}:="):
            return cmd[k + 1].split(":=", 1)[1]
    return None


def _sim_node(params: dict) -> str | None:
    from hazard_ros.sim_params import parameters_from
    parameters_from(params)
    return None


def _navigation_node(params: dict) -> str | None:
    t = params.get("max_navigation_time", 0.0)
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 <= t < math.inf:
        return f"parameter 'max_navigation_time' must be a finite number of s >= 0 (0: none), got {t!r}"
    return None


def _decision_node(params: dict) -> str | None:
    from hazard_sim.agents import agents_for
    from planner_node.decision_main import benchmark_for
    agent = str(params.get("agent", ""))
    try:
        bench = benchmark_for(agent, str(params.get("benchmark", "")), str(params.get("task", "")))
    except KeyError as exc:
        return str(exc.args[0] if exc.args else exc)
    known = agents_for(bench)
    if agent and agent not in known:
        return f"unknown agent {agent!r} for {bench}: expected one of {', '.join(sorted(known))}"
    if agent and getattr(known[agent], "privileged", False):
        from hazard_sim.agents import privileged_refusal
        return privileged_refusal(agent)
    return None


def _mcap_recorder(params: dict) -> str | None:
    from hazard_ros.recorder_node import output_problem
    output = params.get("output", "")
    if not output:
        return "parameter 'output' is empty: give the bag directory to write"
    return output_problem(str(output))


#: executable -> its start-up rules (raise ValueError or return a message for a wrong value)
CHECKS = {"sim_node": _sim_node, "navigation_node": _navigation_node, "decision_node": _decision_node,
          "mcap_recorder": _mcap_recorder}


def problems(desc, overrides: dict | None = None) -> list[str]:
    """One line for each node of hazard_stack that would not start with its name, namespace or
    parameters (the launch argument named where one gave the wrong value)."""
    from rclpy.exceptions import InvalidNamespaceException, InvalidNodeNameException
    from rclpy.validate_namespace import validate_namespace
    from rclpy.validate_node_name import validate_node_name
    overrides = overrides or {}
    out = []
    for p in desc.processes:
        if not p.is_node:
            continue
        ns, name = _remap(p.cmd, "__ns"), _remap(p.cmd, "__node")
        try:
            if ns is not None:
                validate_namespace(ns)
            if name is not None:
                validate_node_name(name)
        except (InvalidNamespaceException, InvalidNodeNameException) as exc:
            out.append(f"{p.name}: {str(exc).splitlines()[0]} ({ns if ns is not None else name!r})"
                       + _given_by(ns if ns is not None else name, overrides))
            continue
        check = CHECKS.get(p.exec)
        if check is None or p.pkg != PACKAGE:
            continue
        params = node_params(p.cmd)
        try:
            msg = check(params)
        except ValueError as exc:
            msg = str(exc)
        if msg:
            out.append(f"{p.name}: {msg}" + _given_by_params(msg, params, overrides))
    return _grouped(out)


def _grouped(lines: list[str]) -> list[str]:
    """Lines with the same message for several nodes (a namespace) as one: ``a, b: message``."""
    by: dict[str, list[str]] = {}
    for line in lines:
        name, _, msg = line.partition(": ")
        by.setdefault(msg, []).append(name)
    return [f"{', '.join(names)}: {msg}" for msg, names in by.items()]


def _given_by(value, overrides: dict) -> str:
    names = [k for k, v in overrides.items() if v != "" and (v == str(value) or f"/{v}" == str(value))]
    return f" (launch argument {', '.join(f'{k}:={overrides[k]}' for k in names)})" if names else ""


def _given_by_params(msg: str, params: dict, overrides: dict) -> str:
    """The launch arguments whose value is that of a parameter the message names."""
    named = [v for k, v in params.items() if f"'{k}'" in msg or f" {k} " in f" {msg} "]
    names = sorted({k for k, v in overrides.items() if v != "" and any(v == str(x) for x in named)})
    if not names:             # a value in the message itself (an unknown benchmark's id)
        names = sorted(k for k, v in overrides.items() if len(v) > 1 and repr(v) in msg)
    return f" (launch argument {', '.join(f'{k}:={overrides[k]}' for k in names)})" if names else ""


__all__ = ["CHECKS", "node_params", "problems"]
