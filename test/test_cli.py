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
    (["bench", "--task", "flood", "--episodes", "26"], "--episodes 26 out of range: hazard/flood/test has 25"),
    (["run", "--task", "fire", "--benchmark", "hazard/flood"], "--benchmark hazard/flood and --task fire disagree"),
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


@pytest.mark.parametrize("argv,msg", [
    (["run", "--task", "fire", "--mcts-simulations", "0"],
     "argument --mcts-simulations: must be in [1, 100000], got 0"),
    (["run", "--task", "fire", "--mcts-simulations", "-5"], "argument --mcts-simulations: must be in"),
    (["run", "--task", "fire", "--hfov", "180"], "argument --hfov: must be in (1, 179), got 180"),
    (["run", "--task", "fire", "--hfov", "nan"], "argument --hfov: must be in"),
    (["run", "--task", "fire", "--width", "0"], "argument --width: must be in [8, 4096], got 0"),
    (["bench", "--task", "fire", "--workers", "0"], "argument --workers: must be in [1, 64], got 0"),
    (["bench", "--task", "fire", "--workers", "-1"], "argument --workers: must be in"),
    (["run", "--task", "fire", "--seed", "x"], "argument --seed: expected an integer, got 'x'"),
    (["bench", "--task", "flood", "--episodes", "0"], "argument --episodes: must be in"),
])
def test_every_parameter_is_range_checked(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and msg in capsys.readouterr().err


def test_output_paths_and_agent_lists_are_checked_before_work(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    cases = [
        (["bench", "--task", "fire", "--out", str(tmp_path)], "--out " + str(tmp_path) + ": is a directory"),
        (["run", "--task", "fire", "--save-viz", str(f)], "--save-viz " + str(f) + ": is a file"),
        (["table", "--task", "fire", "--agents", "greedy,foo", "--out-dir", str(tmp_path)],
         "unknown agent(s) foo for hazard/fire"),
        (["table", "--task", "fire", "--agents", "greedy", "--out-dir", str(f)], "is a file; give a directory"),
    ]
    for argv, msg in cases:
        assert main(argv) == 2, argv
        assert msg in capsys.readouterr().err
    assert not list(tmp_path.glob("*.jsonl"))           # nothing ran


def test_sweep_resumes_only_results_of_the_same_configuration(tmp_path, capsys):
    from hazard_sim.runner import bench
    out = tmp_path / "s.jsonl"
    kw = dict(workers=1, out=str(out), progress=False, camera=__import__("hazard_sim.render.camera",
              fromlist=["CameraSpec"]).CameraSpec(48, 48))
    first = bench("hazard/fire", "test", "greedy", [0], **kw)
    line = out.read_text().splitlines()[0]
    assert json.loads(line)["config"]["camera"] == [48, 48, 90.0]
    # a duplicate line, a junk line and a result of another seed in the file
    other = json.loads(line)
    other["config"]["seed"], other["value_rate"] = 7, 0.123
    out.write_text("\n".join([line, line, "42", json.dumps(other)]) + "\n")
    again = bench("hazard/fire", "test", "greedy", [0], **kw)
    assert again["episodes"] == 1 and again["value"] == first["value"]
    assert again["ignored"] == {"duplicates": 1, "other_configurations": 1, "unreadable_lines": 1}
    assert len(out.read_text().splitlines()) == 4                   # reused: nothing new ran
    seed5 = bench("hazard/fire", "test", "greedy", [0], seed=5, **kw)   # neither the seed-0 nor the seed-7 line
    assert seed5["results"][0]["config"]["seed"] == 5 and seed5["ignored"]["other_configurations"] == 3
    assert len(out.read_text().splitlines()) == 5


def test_old_task_spelling_gives_the_same_json_as_the_benchmark_id(capsys):
    out = []
    for spelling in (["--task", "fire"], ["--benchmark", "hazard/fire"]):
        assert main(["run", *spelling, "--episode", "2", "--agent", "rule", "--width", "64", "--height", "64",
                     "--frame-limit", "300", "--json"]) == 0
        m = json.loads(capsys.readouterr().out)
        m.pop("wall_time_s")
        out.append(m)
    assert out[0] == out[1] and out[0]["task"] == "fire" and out[0]["frames"] == 300


def test_every_command_prints_its_help():
    """`--help` of every command and subcommand formats (a bare '%' in a help text made
    `hazard perception --help` end in a ValueError)."""
    import argparse

    from hazard_sim.cli import build_parser

    def walk(parser, path):
        yield path, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, path + [name])
    seen = 0
    for path, parser in walk(build_parser(), ["hazard"]):
        text = parser.format_help()
        assert text.startswith("usage:"), path
        seen += 1
    assert seen > 10
