"""``hazard perception drop``: paired drops of a metric between ground-truth and perceptional runs,
against hand-computed values."""
from __future__ import annotations

import json

import pytest

from hazard_sim.cli import main
from hazard_sim.perception.drop import drop, pairs_in


def _r(ep, **m):
    return {"episode": ep, **m}


def test_drop_by_hand():
    gt = [_r(0, value_rate=0.5), _r(1, value_rate=0.4), _r(2, value_rate=0.3), _r(3, value_rate=0.9)]
    det = [_r(2, value_rate=0.3), _r(0, value_rate=0.1), _r(1, value_rate=0.2)]   # episode 3 not run
    d = drop(gt, det, "value_rate")
    assert d["n"] == 3
    assert d["groundtruth"] == pytest.approx(0.4) and d["perception"] == pytest.approx(0.2)
    assert d["drop"] == pytest.approx(0.2)                       # differences 0.4, 0.2, 0.0
    lo, hi = d["ci"]
    assert 0.0 <= lo <= 0.2 <= hi <= 0.4 + 1e-12                  # resampled means of {0.4, 0.2, 0}
    assert d["p"] == pytest.approx(0.5)                           # Wilcoxon, two non-zero differences, same sign
    assert drop(gt, det, "success") is None                       # metric absent
    assert drop(gt, [_r(7, value_rate=0.0)], "value_rate") is None


def test_drop_of_identical_runs_is_zero():
    gt = [_r(k, success=k % 2 == 0, spl=0.1 * k) for k in range(4)]
    d = drop(gt, gt, "success")
    assert (d["drop"], d["ci"], d["p"]) == (0.0, (0.0, 0.0), 1.0)


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_cli_drop(tmp_path, capsys):
    _write(tmp_path / "fire_test_greedy.jsonl", [_r(0, value_rate=0.5), _r(1, value_rate=0.25)])
    _write(tmp_path / "fire_test_greedy.onnx.jsonl", [_r(0, value_rate=0.0), _r(1, value_rate=0.25)])
    _write(tmp_path / "fire_test_rule.onnx.jsonl", [_r(0, value_rate=0.0)])   # no ground-truth twin
    assert [(g.name, d.name) for g, d in pairs_in(tmp_path, "onnx")] == [
        ("fire_test_greedy.jsonl", "fire_test_greedy.onnx.jsonl")]
    out = tmp_path / "drop.md"
    assert main(["perception", "drop", "--dir", str(tmp_path), "--out", str(out)]) == 0
    row = "| fire_test_greedy | Value % | 2 | 37.5 | 12.5 | 25.0 [0.0, 50.0] | 1.000 |"
    assert row in capsys.readouterr().out and row in out.read_text()
    assert main(["perception", "drop", "--dir", str(tmp_path), "--backend", "yolo"]) == 2
    assert "no <run>.yolo.jsonl" in capsys.readouterr().err


def test_cli_drop_by_tier_keeps_esar_percentages(tmp_path, capsys):
    # ESAR gives sr and rs in percent already: they are not scaled again
    gt = [_r(0, sr=100.0, rs=80.0, tier="Simple"), _r(1, sr=100.0, rs=60.0, tier="Hard"),
          _r(2, sr=0.0, rs=10.0, tier="Hard")]
    det = [_r(0, sr=0.0, rs=20.0, tier="Simple"), _r(1, sr=100.0, rs=50.0, tier="Hard"),
           _r(2, sr=0.0, rs=10.0, tier="Hard")]
    _write(tmp_path / "esar_test_probmap.jsonl", gt)
    _write(tmp_path / "esar_test_probmap.onnx.jsonl", det)
    assert main(["perception", "drop", "--dir", str(tmp_path), "--by", "tier"]) == 0
    out = capsys.readouterr().out
    assert "| run | group | metric |" in out
    # all: SR 66.7 -> 33.3 (differences 100, 0, 0); RS 50.0 -> 26.7 (60, 10, 0)
    assert "| esar_test_probmap | all | SR % | 3 | 66.7 | 33.3 | 33.3 [0.0, 100.0] |" in out
    assert "| esar_test_probmap | all | RS % | 3 | 50.0 | 26.7 | 23.3 [" in out
    assert "| esar_test_probmap | Simple | SR % | 1 | 100.0 | 0.0 | 100.0 [100.0, 100.0] |" in out
    assert "| esar_test_probmap | Hard | RS % | 2 | 35.0 | 30.0 | 5.0 [0.0, 10.0] |" in out
    assert "Value %" not in out and "SPL %" not in out


def test_cli_drop_against_another_ground_truth_and_the_rule_itself(tmp_path, capsys):
    # the ground truth seen from 3 pixels (<run>.px3.jsonl) beside the default one and a detector's
    _write(tmp_path / "fire_test_greedy.jsonl", [_r(0, value_rate=0.5), _r(1, value_rate=0.25)])
    _write(tmp_path / "fire_test_greedy.px3.jsonl", [_r(0, value_rate=1.0), _r(1, value_rate=0.5)])
    _write(tmp_path / "fire_test_greedy.onnx.jsonl", [_r(0, value_rate=0.0), _r(1, value_rate=0.25)])
    _write(tmp_path / "fire_test_greedy.onnx.px3.jsonl", [_r(0, value_rate=0.0)])   # another tag's file
    assert [(g.name, d.name) for g, d in pairs_in(tmp_path, "onnx", "px3")] == [
        ("fire_test_greedy.px3.jsonl", "fire_test_greedy.onnx.jsonl")]
    assert main(["perception", "drop", "--dir", str(tmp_path), "--reference", "px3"]) == 0
    # 75.0 -> 12.5: differences 1.0, 0.25
    assert "| fire_test_greedy.px3 | Value % | 2 | 75.0 | 12.5 | 62.5 [25.0, 100.0] |" in capsys.readouterr().out
    # what the minimum-size rule costs: the 3-pixel ground truth against the default one
    assert main(["perception", "drop", "--dir", str(tmp_path), "--backend", "px3"]) == 0
    assert "| fire_test_greedy | Value % | 2 | 37.5 | 75.0 | -37.5 [-50.0, -25.0] |" in capsys.readouterr().out
    assert main(["perception", "drop", "--dir", str(tmp_path), "--reference", "px9"]) == 2
    assert "beside a <run>.px9.jsonl" in capsys.readouterr().err
