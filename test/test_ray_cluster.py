"""hazard_sim.ray_cluster: sweeps on a Ray cluster. Address parsing and the one-line errors
(Ray missing, bad address, nothing listening) without a cluster; then a real local cluster
(`ray start --head` on loopback, one CPU) runs two short episodes whose results equal the
local runner's and land in the sweep file."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from hazard_sim import ray_cluster
from hazard_sim.ray_cluster import RayUnavailable, parse_address


def test_parse_address():
    assert parse_address("127.0.0.1:6379") == ("127.0.0.1", 6379)
    assert parse_address(" auto ") is None
    assert parse_address("[::1]:7000") == ("::1", 7000)
    for bad in ("localhost", "127.0.0.1:", ":6379", "host:port", "host:70000", "host:0"):
        with pytest.raises(RayUnavailable, match="HOST:PORT"):
            parse_address(bad)


def test_missing_ray_and_unreachable_cluster_give_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)            # import ray -> ImportError
    with pytest.raises(RayUnavailable, match="--ray needs Ray"):
        ray_cluster.connect("127.0.0.1:6379")
    fake = types.ModuleType("ray")
    fake.init = lambda **kw: pytest.fail("ray.init must not be reached for a dead address")
    monkeypatch.setitem(sys.modules, "ray", fake)
    with socket.socket() as s:                               # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RayUnavailable, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
        ray_cluster.connect(f"127.0.0.1:{port}")


def test_cli_reports_a_dead_cluster_with_exit_2(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run([sys.executable, "-m", "hazard_sim.cli", "bench", "--task", "fire", "--agent", "greedy",
                           "--episodes", "1", "--ray", f"127.0.0.1:{port}"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith(f"hazard: error: no Ray cluster answers at 127.0.0.1:{port}")


@pytest.fixture
def ray_head(tmp_path):
    pytest.importorskip("ray")
    ray_bin = Path(sys.executable).with_name("ray")
    if not ray_bin.exists():
        pytest.skip("the ray command is not in this environment")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    tmp = Path("/tmp") / f"ray_t{port}"     # Ray's socket paths must stay short
    start = subprocess.run([str(ray_bin), "start", "--head", "--port", str(port), "--num-cpus", "1",
                            "--include-dashboard=false", "--disable-usage-stats", "--node-ip-address", "127.0.0.1",
                            f"--temp-dir={tmp}"], capture_output=True, text=True, timeout=120, env=env)
    assert start.returncode == 0, start.stdout + start.stderr
    try:
        yield f"127.0.0.1:{port}"
    finally:
        import ray
        ray.shutdown()
        left = _stop_cluster(str(tmp))     # not `ray stop`: it would stop every cluster of the machine
        shutil.rmtree(tmp, ignore_errors=True)
        assert not left, f"processes of the test's Ray cluster still running: {left}"


def _stop_cluster(tag: str) -> list[int]:
    """Terminate the processes of the cluster whose command lines name ``tag`` (its temp
    dir), with their children; kill what is left after 10 s. Returns the survivors."""
    rows = []                              # /proc, not ps: ps cuts command lines at 80 columns off a tty
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            args = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        rows.append((int(d.name), ppid, args))
    mine = {p for p, _, args in rows if tag in args}
    grown = True
    while grown:
        kids = {p for p, pp, _ in rows if pp in mine} - mine
        mine |= kids
        grown = bool(kids)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in mine:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and any(_alive(p) for p in mine):
            time.sleep(0.2)
    return sorted(p for p in mine if _alive(p))


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_sweep_on_a_local_ray_cluster_equals_the_local_run(ray_head, tmp_path):
    from hazard_sim.runner import bench
    kw = dict(frame_limit=120, progress=False)
    out = tmp_path / "ray.jsonl"
    on_ray = bench("hazard/fire", "test", "greedy", [0, 3], workers=1, out=str(out), ray_address=ray_head, **kw)
    local = bench("hazard/fire", "test", "greedy", [0, 3], workers=1, **kw)
    strip = ("wall_time_s", "config", "cpu_time_s")
    for a, b in zip(on_ray["results"], local["results"]):
        assert {k: v for k, v in a.items() if k not in strip} == {k: v for k, v in b.items() if k not in strip}
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(d["episode"] for d in lines) == [0, 3]
