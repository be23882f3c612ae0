"""Small helpers shared by several test modules (imported as ``helpers``: pytest puts test/ on the path).

- launcher runs: :func:`launch_env`, :func:`sim_node_launch`, :func:`finish`;
- ROS waits: :func:`spin_until`;
- stand-ins: :class:`TensorStandIn` (a torch tensor's ``.cpu().numpy()``);
- JSON fuzzing: :func:`json_paths`, :func:`json_get`, :func:`mutate_json`;
- the CLI: :func:`cli_runs`.
"""
from __future__ import annotations

import copy
import os
import random
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ launcher runs
def launch_env(**extra) -> dict:
    """The environment of a launcher / node subprocess: this checkout first on the path, a DDS
    domain of its own on the loopback, unbuffered output."""
    return dict(os.environ, PYTHONPATH=str(REPO), ROS_DOMAIN_ID=str(random.SystemRandom().randint(1, 101)),
                ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", PYTHONUNBUFFERED="1", **extra)


def sim_node_launch(width: int, height: int, *entries: str, task: str = "fire") -> str:
    """A launch file's text with the project launch files' policy (exit_status.launch.py: a failed
    process fails the launch; the simulator ends the launch, 1 s after its episode): a free-running
    ``sim_node`` of ``task`` with a ``width`` x ``height`` camera, then the launch ``entries`` (each
    one YAML list item, e.g. ``"- node: {...}"``)."""
    lines = ["launch:",
             f'- include: {{file: "{REPO / "launch" / "exit_status.launch.py"}"}}',
             "- node:",
             "    pkg: hazard_stack",
             "    exec: sim_node",
             "    name: sim_node",
             "    on_exit: shutdown",
             "    param:",
             f"    - {{name: task, value: {task}}}",
             "    - {name: lockstep, value: false}",
             f"    - {{name: camera_width, value: {width}}}",
             f"    - {{name: camera_height, value: {height}}}",
             "    - {name: exit_after_episode, value: 1.0}",
             *entries]
    return "\n".join(lines) + "\n"


def finish(proc, timeout: float) -> str:
    """The output of a process started in a session of its own (text mode) once it ends within
    ``timeout`` s; its whole process group is killed if it has not (the caller checks the code)."""
    import signal
    import subprocess
    try:
        return proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        try:
            out = proc.communicate(timeout=30)[0] or ""
        except subprocess.TimeoutExpired:
            out = ""
        return f"{out}\n[finish] still running after {timeout:g} s: killed"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


# ------------------------------------------------------------------ ROS waits
def spin_until(executor, predicate, timeout_s: float, step=None, period: float = 0.02) -> bool:
    """Spin ``executor`` (calling ``step`` first each round) until ``predicate()`` holds or
    ``timeout_s`` has passed; returns ``predicate()``'s last value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if step is not None:
            step()
        executor.spin_once(timeout_sec=period)
        if predicate():
            return True
    return predicate()


# ------------------------------------------------------------------ stand-ins
class TensorStandIn:
    """Stands in for a torch tensor: .cpu().numpy()."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def cpu(self):
        return self

    def numpy(self):
        return self.a


# ------------------------------------------------------------------ JSON fuzzing
def json_paths(value, prefix=(), list_limit: int | None = None):
    """Every path (tuple of keys / indexes) of a JSON value (of each list, only its first
    ``list_limit`` items where given)."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, prefix + (k,), list_limit)
    elif isinstance(value, list):
        for i, v in enumerate(value[:list_limit]):
            yield from json_paths(v, prefix + (i,), list_limit)


def json_get(doc, path):
    """The value at ``path`` (as :func:`json_paths` gives it) in ``doc``."""
    for k in path:
        doc = doc[k]
    return doc


def mutate_json(draw, doc, odd_values, kinds=("odd", "scale", "shift", "delete", "grow"), skip=(),
                list_limit: int | None = None) -> list:
    """Change one to three things anywhere in ``doc`` (in place) with hypothesis' ``draw``: a number
    scaled or shifted, a key deleted, a list grown, an ``objects`` entry duplicated (kind
    ``dup_object``), or (``odd`` and every kind that does not apply) a value from ``odd_values``.
    Paths whose first key is in ``skip`` stay. Returns the ``(path, kind)`` changes made."""
    from hypothesis import strategies as st
    log = []
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in json_paths(doc, list_limit=list_limit) if p and p[0] not in skip]
        path = draw(st.sampled_from(paths))
        parent, key = json_get(doc, path[:-1]), path[-1]
        old = parent[key]
        kind = draw(st.sampled_from(list(kinds)))
        number = isinstance(old, (int, float)) and not isinstance(old, bool)
        if kind == "scale" and number:
            parent[key] = old * draw(st.sampled_from([-1, 0, 0.5, 10, 1000, 1e9]))
        elif kind == "shift" and number:
            parent[key] = old + draw(st.floats(-30, 30, allow_nan=False))
        elif kind == "delete" and isinstance(parent, dict):
            del parent[key]
        elif kind == "dup_object" and doc.get("objects"):
            o = copy.deepcopy(draw(st.sampled_from(doc["objects"])))
            if isinstance(o, dict):
                o["id"] = draw(st.sampled_from([o.get("id"), 9000]))
            doc["objects"].append(o)
        elif kind == "grow" and isinstance(old, list) and old:
            parent[key] = old + [copy.deepcopy(old[-1])] * draw(st.sampled_from([1, 5, 400]))
        else:               # a copy: a drawn list or dict must not carry changes into the next case
            parent[key] = copy.deepcopy(draw(odd_values))
        log.append((path, kind))
    return log


# ------------------------------------------------------------------ the CLI
def cli_runs(args: list[str], capsys, runs: int = 2) -> list[str]:
    """Run ``hazard_sim.cli.main(args)`` ``runs`` times, each ending with exit code 0; each run's stdout."""
    from hazard_sim.cli import main
    outs = []
    for _ in range(runs):
        assert main(args) == 0
        outs.append(capsys.readouterr().out)
    return outs
