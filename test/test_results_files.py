"""A sweep's results file when something else touches it (issue: robustness, results files):
one writer per file (a second sweep gets a clear error), a file replaced by rename while the sweep
runs (an editor's save) gets this run's results back, a partial line appended by someone else
does not swallow the next record, and NaN / infinite metrics are neither stored nor reused."""
from __future__ import annotations

import json
import os

import pytest

from hazard_sim.cli import main
from hazard_sim.sweep_io import ResultsWriter, read_sweep


def _rec(k: int, **extra) -> dict:
    return {"config": {"episode": k}, "episode": k, "value": 0.5 * k, **extra}


def test_one_writer_per_file(tmp_path):
    path = tmp_path / "r.jsonl"
    first = ResultsWriter(path)
    with pytest.raises(ValueError, match="another sweep is writing it"):
        ResultsWriter(path)
    first.close()
    ResultsWriter(path).close()                     # free again once the first is closed


def test_a_file_replaced_by_rename_gets_this_runs_results_back(tmp_path):
    path, said = tmp_path / "r.jsonl", []
    w = ResultsWriter(path, log=said.append)
    w.write(_rec(0))
    w.write(_rec(1))
    edited = tmp_path / "r.jsonl.tmp"               # an editor saves: it wrote what it had read, then renamed
    edited.write_text(json.dumps(_rec(0)) + "\n")
    os.replace(edited, path)
    w.write(_rec(2))
    w.close()
    stored, junk = read_sweep(path)
    assert sorted(d["episode"] for d in stored) == [0, 1, 2] and junk == 0
    assert said and "replaced while the sweep ran" in said[0] and "1 result(s)" in said[0]


def test_a_partial_line_does_not_swallow_the_next_record(tmp_path):
    path = tmp_path / "r.jsonl"
    w = ResultsWriter(path)
    w.write(_rec(0))
    with open(path, "a") as other:                  # someone else appends half a line
        other.write('{"config": {"episode": 7}, "episo')
    w.write(_rec(1))
    w.close()
    stored, junk = read_sweep(path)
    assert [d["episode"] for d in stored] == [0, 1] and junk == 1
    path.write_text('{"partial')                    # a file left ending in a partial line, opened afresh
    w = ResultsWriter(path)
    w.write(_rec(3))
    w.close()
    assert [d["episode"] for d in read_sweep(path)[0]] == [3]


def test_non_finite_metrics_are_neither_stored_nor_reused(tmp_path):
    path = tmp_path / "r.jsonl"
    w = ResultsWriter(path)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="value is .*, not a finite number"):
            w.write(_rec(1, value=bad))
    with pytest.raises(ValueError, match=r"metrics.per_target\[1\]"):
        w.write(_rec(1, metrics={"per_target": [0.1, float("nan")]}))
    w.close()
    assert path.read_text() == ""
    path.write_text('{"config": {"episode": 0}, "episode": 0, "value": NaN}\n')
    assert read_sweep(path) == ([], 1)                  # a stored NaN is an unusable line


def test_bench_does_not_reuse_a_stored_nan(tmp_path, capsys):
    out = tmp_path / "sweep.jsonl"
    args = ["bench", "--task", "fire", "--agent", "greedy", "--episodes", "1", "--workers", "1", "--out", str(out),
            "--width", "48", "--height", "48"]
    assert main(args) == 0
    line = json.loads(out.read_text())
    line["value_rate"] = float("nan")
    out.write_text(json.dumps(line) + "\n")
    capsys.readouterr()
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "1 unreadable line(s)" in captured.err and "nan" not in captured.out.lower(), captured
    stored, junk = read_sweep(out)
    assert len(stored) == 1 and junk == 1           # the episode ran again; its result is finite


def test_a_second_sweep_on_the_same_file_is_refused(tmp_path, capsys):
    out = tmp_path / "sweep.jsonl"
    holder = ResultsWriter(out)                     # a sweep that is running
    try:
        assert main(["bench", "--task", "fire", "--agent", "greedy", "--episodes", "1", "--out", str(out),
                     "--width", "48", "--height", "48"]) == 2
    finally:
        holder.close()
    err = capsys.readouterr().err
    assert "another sweep is writing it" in err and "Traceback" not in err, err
