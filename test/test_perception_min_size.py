"""The minimum-size rule's default: the 50 % point of a detector's recall against mask pixels."""
import numpy as np
import pytest

from hazard_sim.perception.min_size import ceiling, frames_of, half_point, half_point_ci, monotone_recall


def test_monotone_fit_pools_a_dip_by_hand():
    # sizes 4, 8, 16, 32, 64 with hits 0, 0, 1, 0, 1: the 1-then-0 at 16 / 32 pools to 0.5, 0.5
    sizes, fit = monotone_recall([32, 4, 64, 8, 16], [0, 0, 1, 0, 1])
    assert sizes.tolist() == [4, 8, 16, 32, 64]
    assert fit.tolist() == pytest.approx([0, 0, 0.5, 0.5, 1])
    assert half_point([32, 4, 64, 8, 16], [0, 0, 1, 0, 1]) == 16
    assert half_point([32, 4, 64, 8, 16], [0, 0, 1, 0, 1], level=0.9) == 64


def test_ties_are_weighted_by_their_count():
    # 10 px: 1 of 4 found (0.25); 20 px: 2 of 3 (0.667): monotone already, half point 20
    px = [10] * 4 + [20] * 3
    hit = [1, 0, 0, 0, 1, 1, 0]
    sizes, fit = monotone_recall(px, hit)
    assert fit.tolist() == pytest.approx([0.25, 2 / 3])
    assert half_point(px, hit, relative=False) == 20
    # 10 px: 3 of 4 (0.75) above 20 px: 1 of 3 (0.333): pooled (3 + 1) / 7 = 0.571 at both
    sizes, fit = monotone_recall(px, [1, 1, 1, 0, 1, 0, 0])
    assert fit.tolist() == pytest.approx([4 / 7, 4 / 7])
    assert half_point(px, [1, 1, 1, 0, 1, 0, 0], relative=False) == 10


def test_the_point_is_half_the_recall_on_the_largest_tenth():
    # 10 objects each of 10, 20 and 40 px found 3, 4 and 5 times: the fit is 0.3, 0.4, 0.5. The
    # largest tenth (3 objects: the last three of 40 px) has recall 2 / 3, so the level is 1 / 3:
    # reached at 20 px; the plain 50 % point would be 40 px
    px = [10] * 10 + [20] * 10 + [40] * 10
    hit = [1] * 3 + [0] * 7 + [1] * 4 + [0] * 6 + [1, 1, 1, 0, 0, 0, 0, 1, 0, 1]
    assert ceiling(px, hit) == pytest.approx(2 / 3)
    assert half_point(px, hit) == 20
    assert half_point(px, hit, relative=False) == 40
    assert ceiling([], []) is None and ceiling([5], [1]) == 1.0


def test_a_detector_that_never_reaches_half_has_no_point():
    # 0, then 1, 0, 0 pooled to 1/3: the fit never reaches one half
    assert half_point([10, 20, 40, 80], [0, 1, 0, 0], relative=False) is None
    assert half_point([10, 20, 40], [0, 1, 0], relative=False) == 20     # 1, 0 pooled to exactly 0.5
    assert half_point([10, 20, 40], [0, 1, 0]) is None                    # the largest is missed: ceiling 0
    assert half_point([], []) is None
    with pytest.raises(ValueError, match="differ in length"):
        half_point([1, 2], [1])


def test_bootstrap_interval_of_identical_frames_is_the_point():
    frame = ([6, 12, 24, 48, 96], [0, 0, 1, 1, 1])
    r = half_point_ci([frame] * 20, reps=50)
    assert r["pixels"] == 24 and r["ci95"] == [24, 24]
    assert r["n"] == 100 and r["frames"] == 20 and r["reps_reached"] == 50


def test_bootstrap_interval_brackets_a_known_curve():
    # objects of 2..2048 px whose true recall is 1 / (1 + (64 / px)^2): the 50 % point is 64
    rng = np.random.default_rng(1)
    frames = []
    for _ in range(300):
        px = 2 ** rng.uniform(1, 11, 10)
        frames.append((px.tolist(), (rng.random(10) < 1 / (1 + (64 / px) ** 2)).tolist()))
    r = half_point_ci(frames, reps=200, seed=3)
    lo, hi = r["ci95"]
    assert lo <= 64 <= hi and hi / lo < 2.5
    assert half_point_ci(frames, reps=200, seed=3) == r           # seeded: the same interval


def test_empty_input_reports_nothing_found():
    r = half_point_ci([([], [])], reps=10)
    assert r == {"pixels": None, "ci95": [None, None], "ceiling": None, "n": 0, "frames": 0, "reps_reached": 0}


def test_frames_of_keeps_each_frames_objects_together():
    images = [{"objs": [({"pixels": 7}, False), ({"pixels": 90}, True)]}, {"objs": [({"pixels": 30}, True)]}]
    assert frames_of(images, lambda ims: ims[0]["objs"]) == [([7, 90], [False, True]), ([30], [True])]


def test_the_benchmarks_defaults_are_the_recorded_50_percent_points():
    """Each spec's ground-truth ``min_pixels`` is its shipped detector's half-ceiling point as recorded by
    ``hazard perception eval`` (rerun it and update both together: docs/perception.md)."""
    import json
    from pathlib import Path

    from hazard_sim.core.spec import get_spec
    from hazard_sim.perception.embedded import default_min_pixels
    root = Path(__file__).resolve().parents[1] / "data" / "perception"
    six = json.loads((root / "eval_min_size.json").read_text())
    doze = json.loads((root / "doze" / "eval_min_size.json").read_text())
    esar = json.loads((root / "eval_min_size_esar.json").read_text())
    assert six["weights"].endswith("detector.onnx") and doze["weights"].endswith("doze.onnx")
    assert esar["weights"].endswith("detector.onnx")
    want = {f"hazard/{t}": six["half_recall_pixels"][f"hazard/{t}"] for t in ("fire", "flood", "wind")}
    want.update({f"doze/level{n}": doze["half_recall_pixels"]["doze"] for n in (1, 2, 3)})
    want["esar/alpine"] = esar["half_recall_pixels"]["esar"]
    for benchmark, point in want.items():
        assert point["pixels"] is not None and point["n"] >= 200, benchmark
        assert get_spec(benchmark).min_pixels == round(point["pixels"]), benchmark
        assert default_min_pixels(benchmark) == round(point["pixels"])
        lo, hi = point["ci95"]
        assert lo <= point["pixels"] <= hi
    # a detector's own instances keep the small floor (its recall already falls with size)
    assert default_min_pixels("hazard/fire", "onnx") == 3 and default_min_pixels("doze/level2", "yolo") == 3
    assert default_min_pixels("esar/alpine", "onnx") == 16


def test_cli_lists_every_benchmarks_minimum_sizes(capsys):
    from hazard_sim.cli import main
    assert main(["benchmarks", "--min-pixels"]) == 0
    rows = {r.split()[0]: r.split()[1:] for r in capsys.readouterr().out.splitlines()[1:]}
    assert rows["hazard/fire"] == ["46", "3"] and rows["hazard/wind"] == ["22", "3"]
    assert rows["doze/level3"] == ["72", "3"] and rows["esar/alpine"] == ["13", "16"]
