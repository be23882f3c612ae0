"""The package as colcon installs it on a ROS 2 machine: ``colcon build`` (colcon-core / colcon-ros
from PyPI, the same extensions a ROS 2 install uses) lays out ``lib/hazard_stack/<exe>`` and
``share/hazard_stack/{launch,rviz,config,data}``; the code then finds its data through the share
directory (not beside its modules, which a plain install puts in site-packages); ROS 2's own
``ros2 launch`` (the upstream stand-in, where ../shared has it) runs a fire episode from that
install; and the venv prefix the setup lays out (hazard_ros.install_prefix) is the same layout.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, launch_env

from hazard_ros import install_prefix
from hazard_sim import paths

UPSTREAM = REPO.parent / "shared" / "upstream" / "ros2_launch_jazzy"
EXECUTABLES = sorted(install_prefix.console_scripts())
TEST_TIME_LIMIT_S = 200
COLCON = shutil.which("colcon", path=str(Path(sys.executable).parent)) or shutil.which("colcon")


def test_data_is_found_through_the_ament_index(tmp_path, monkeypatch):
    prefix = tmp_path / "prefix"
    (prefix / "share/ament_index/resource_index/packages").mkdir(parents=True)
    (prefix / "share/ament_index/resource_index/packages/hazard_stack").write_text("")
    (prefix / "share/hazard_stack/data").mkdir(parents=True)
    monkeypatch.delenv(paths.DATA_ENV, raising=False)
    monkeypatch.setenv("AMENT_PREFIX_PATH", f"{prefix}{os.pathsep}/nonexistent")
    assert paths.package_prefix() == prefix and paths.data_dir() == prefix / "share/hazard_stack/data"
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "mine"))                # the user's own wins
    assert paths.data_dir() == tmp_path / "mine"
    monkeypatch.delenv(paths.DATA_ENV)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "no_venv"))
    assert paths.package_prefix() is None and paths.data_dir() == REPO / "data"   # a checkout before setup


def test_the_venv_is_laid_out_as_an_install_prefix():
    """What scripts/setup.sh made (hazard_ros.install_prefix --check: nothing missing or stale)."""
    assert install_prefix.install(Path(sys.prefix), check=True, log=lambda s: None) == 0
    share = Path(sys.prefix) / "share" / "hazard_stack"
    for exe in EXECUTABLES:
        assert os.access(Path(sys.prefix) / "lib" / "hazard_stack" / exe, os.X_OK), exe
    assert (share / "launch" / "hazard.launch.yaml").resolve() == REPO / "launch" / "hazard.launch.yaml"
    assert not (share / "launch").is_symlink()          # ros2 launch walks share/ without following links
    assert {"sim_node", "perception_node", "mapping_node", "navigation_node", "decision_node",
            "mcap_recorder"} <= set(EXECUTABLES)


@pytest.fixture(scope="module")
def colcon_install(tmp_path_factory):
    if COLCON is None:
        pytest.skip("colcon is not installed (requirements-ros.txt)")
    ws = tmp_path_factory.mktemp("ws")
    env = dict(os.environ, AMENT_PREFIX_PATH=sys.prefix)
    proc = subprocess.run([COLCON, "--log-base", str(ws / "log"), "build", "--paths", str(REPO),
                           "--build-base", str(ws / "build"), "--install-base", str(ws / "install")],
                          cwd=ws, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return ws / "install" / "hazard_stack"


def test_colcon_build_lays_out_the_package(colcon_install):
    share = colcon_install / "share" / "hazard_stack"
    assert (colcon_install / "share/ament_index/resource_index/packages/hazard_stack").is_file()
    for exe in EXECUTABLES:
        assert os.access(colcon_install / "lib" / "hazard_stack" / exe, os.X_OK), exe
    for rel in ("package.xml", "launch/hazard.launch.yaml", "launch/doze.launch.yaml", "launch/esar.launch.yaml",
                "launch/common.launch.yaml", "launch/exit_status.launch.py", "rviz/hazard.rviz",
                "config/fastdds_large_data.xml", "data/hazard/v1/fire_test.json", "data/perception/detector.onnx",
                "data/policies/ppo_fire.zip"):
        assert (share / rel).is_file() and not (share / rel).is_symlink(), rel     # a plain install: copies
    site = next(colcon_install.glob("lib/python3*/site-packages"))
    assert (site / "hazard_sim" / "paths.py").is_file() and not (site / "data").exists()


def _installed_env(install: Path, upstream: bool = False) -> dict:
    """What `source install/setup.bash` gives (the install's site-packages and prefix first)."""
    env = launch_env()
    site = next(install.glob("lib/python3*/site-packages"))
    env.pop(paths.DATA_ENV, None)
    env["PYTHONPATH"] = str(site)
    env["AMENT_PREFIX_PATH"] = str(install)
    if upstream:
        env["PYTHONPATH"] = os.pathsep.join([str(UPSTREAM / "src"), str(UPSTREAM / "stubs"), str(UPSTREAM / "meta"),
                                             str(site)])
        env["AMENT_PREFIX_PATH"] += os.pathsep + str(UPSTREAM / "prefix")
    return env


def test_an_installed_package_reads_its_data_from_share(colcon_install, tmp_path):
    code = ("import json, hazard_sim, hazard_sim.paths as p\n"
            "from hazard_sim.tasks.hazard import dataset\n"
            "eps = dataset.load_dataset('fire', 'test')\n"
            "print(json.dumps({'module': hazard_sim.__file__, 'data': str(p.data_dir()), 'episodes': len(eps)}))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_installed_env(colcon_install),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["module"].startswith(str(colcon_install)), got
    assert got["data"] == str(colcon_install / "share" / "hazard_stack" / "data") and got["episodes"] == 25, got


@pytest.mark.skipif(not (UPSTREAM / "ros2_launch.py").is_file(), reason=f"no upstream launch at {UPSTREAM}")
def test_ros2_launch_runs_a_fire_episode_from_the_colcon_install(colcon_install, tmp_path):
    out = tmp_path / "metrics.json"
    proc = subprocess.run([sys.executable, str(UPSTREAM / "ros2_launch.py"), "hazard_stack", "hazard.launch.yaml",
                           "frame_limit:=100", f"metrics_out:={out}"], cwd=tmp_path,
                          env=_installed_env(colcon_install, upstream=True), capture_output=True, text=True,
                          timeout=150)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "ros2 launch rc=0" in log, log[-4000:]
    assert f"launch file {colcon_install}/share/hazard_stack/launch/hazard.launch.yaml" in log
    metrics = json.loads(out.read_text())
    assert metrics["frames"] == 100 and metrics["task"] == "fire", metrics
