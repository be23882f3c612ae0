"""The `hazard` command line: JSON output, determinism, errors, pictures, resumable sweeps."""
import json
import subprocess
import sys

import pytest

from hazard_sim.cli import main

HAZARD = [sys.executable, "-m", "hazard_sim.cli"]


def _run(args):
    return subprocess.run(HAZARD + args, capture_output=True, text=True, timeout=300)


def test_run_json_is_deterministic():
    args = ["run", "--task", "fire", "--split", "test", "--episode", "1", "--agent", "rule", "--seed", "2", "--json"]
    a, b = _run(args), _run(args)
    assert a.returncode == 0, a.stderr
    ra, rb = json.loads(a.stdout), json.loads(b.stdout)
    assert {"value_rate", "step", "damage", "rescued", "targets", "frames"} <= set(ra)
    ra.pop("wall_time_s"), rb.pop("wall_time_s")
    assert ra == rb


@pytest.mark.parametrize("argv,msg", [
    (["run", "--task", "fire", "--episode", "25"], "out of range"),
    (["bench", "--task", "flood", "--episodes", "0"], "out of range"),
])
def test_clear_errors(argv, msg, capsys):
    assert main(argv) == 2
    assert msg in capsys.readouterr().err


def test_unknown_task_is_rejected():
    r = _run(["run", "--task", "lava"])
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_save_viz(tmp_path):
    assert main(["run", "--task", "flood", "--episode", "2", "--agent", "greedy", "--save-viz", str(tmp_path),
                 "--width", "96", "--height", "96"]) == 0
    for name in ("topdown.png", "topdown.gif", "first_person.gif"):
        assert (tmp_path / name).stat().st_size > 1000
    assert len(list((tmp_path / "frames").glob("*.png"))) > 3


def test_bench_writes_lines_and_resumes(tmp_path, capsys):
    out = tmp_path / "sweep.jsonl"
    assert main(["bench", "--task", "fire", "--agent", "greedy", "--episodes", "2", "--workers", "2",
                 "--out", str(out), "--width", "64", "--height", "64"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 2
    text = capsys.readouterr().out
    assert "Value" in text and "greedy" in text
    # an interrupted sweep: drop one line and a torn line; the rerun only redoes episode 1
    out.write_text(lines[0] + "\n" + lines[1][:20])
    assert main(["bench", "--task", "fire", "--agent", "greedy", "--episodes", "2", "--workers", "1",
                 "--out", str(out), "--width", "64", "--height", "64"]) == 0
    eps = [json.loads(x)["episode"] for x in out.read_text().splitlines() if x.endswith("}")]
    assert sorted(eps) == [0, 1]
