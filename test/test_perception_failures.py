"""``hazard perception failures``: condition flags, per-frame recall, the choice of frames and the
pictures, on a tiny synthetic held-out set written here (three 40 x 30 frames)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from hazard_sim.cli import main
from hazard_sim.perception.evaluation import groundtruth_predictor, run_predictions
from hazard_sim.perception.failures import (
    DET,
    HIT,
    MISS,
    OTHER,
    frame_cases,
    has_condition,
    panel,
    pick,
    write_failures,
)

CLASSES = ["person", "fire", "object"]
DETECT = Path(__file__).parent / "data" / "tiny_yolo_detect.onnx"


def _obj(image, box, cls="object", episode=0, bench="hazard/flood", **cond):
    flags = {c: cond.get(c, False) for c in ("under_water", "behind_flames", "night", "fog")}
    return {"image": image, "benchmark": bench, "episode": episode, "cls": cls, "box": box,
            "pixels": (box[2] - box[0]) * (box[3] - box[1]), **flags}


A, B, C = ("images/val/hazard-flood_test_0000_s000.png", "images/val/hazard-flood_test_0001_s000.png",
           "images/val/hazard-fire_test_0000_s000.png")
OBJECTS = [
    _obj(A, [2, 2, 12, 12], under_water=True),           # 10 px, under water
    _obj(A, [20, 5, 36, 25], "person"),                  # 17.9 px, dry
    _obj(B, [2, 14, 10, 22], under_water=True, episode=1),  # 8 px, under water
    _obj(B, [10, 10, 30, 28], under_water=True, episode=1),
    _obj(C, [4, 4, 24, 24], "fire", bench="hazard/fire"),
    _obj(C, [26, 10, 30, 14], behind_flames=True, bench="hazard/fire"),
]


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "ds"
    (root / "images" / "val").mkdir(parents=True)
    (root / "data.yaml").write_text("names:\n" + "".join(f"  {k}: {c}\n" for k, c in enumerate(CLASSES)))
    for k, f in enumerate((A, B, C)):
        Image.fromarray(np.full((30, 40, 3), 60 * (k + 1), np.uint8)).save(root / f)
    (root / "objects_val.jsonl").write_text("\n".join(json.dumps(o) for o in OBJECTS) + "\n")
    return root


def _half_detector(rgb, gt):
    """Detects (exactly) every ground-truth object of 12 px or more; a stray box of the wrong class."""
    keep = [o for o in gt if (o["box"][2] - o["box"][0]) * (o["box"][3] - o["box"][1]) >= 144]
    boxes = [o["box"] for o in keep] + [[0, 20, 6, 29]]
    return np.array(boxes, float), [o["cls"] for o in keep] + ["fire"], np.array([0.9] * len(keep) + [0.5])


def test_conditions_from_flags_and_size():
    assert has_condition(OBJECTS[0], "under_water") and not has_condition(OBJECTS[1], "under_water")
    assert has_condition(OBJECTS[0], "small")                  # 10 px < 16
    assert not has_condition(OBJECTS[1], "small")              # sqrt(16 * 20) = 17.9 px
    assert has_condition(OBJECTS[1], "small", small_px=18.0)
    with pytest.raises(ValueError, match="unknown condition 'rain'"):
        has_condition(OBJECTS[0], "rain")


def test_frame_cases_recall_by_hand(dataset):
    images = run_predictions(dataset, _half_detector, CLASSES, log=lambda *_: None)
    cases = {c["image"]: c for c in frame_cases(images, "under_water")}
    assert sorted(cases) == [A, B]                              # C holds nothing under water
    # A: the 10 px object under water is missed, the dry person found
    assert (cases[A]["n"], cases[A]["hits"], cases[A]["recall"]) == (1, 0, 0.0)
    assert cases[A]["mask"].tolist() == [True, False] and cases[A]["hit"].tolist() == [False, True]
    # B: the 8 px one missed, the 20 x 18 one found
    assert (cases[B]["n"], cases[B]["hits"], cases[B]["recall"]) == (2, 1, 0.5)
    small = {c["image"]: c for c in frame_cases(images, "small")}
    assert {k: (c["n"], c["hits"]) for k, c in small.items()} == {A: (1, 0), B: (1, 0), C: (1, 0)}
    # a score threshold above 0.9 makes every detection not count
    assert all(c["hits"] == 0 for c in frame_cases(images, "under_water", score_thr=0.95))


def _case(image, recall, n, bench="hazard/fire", episode=0):
    return {"image": image, "benchmark": bench, "group": (bench, episode), "recall": recall, "n": n}


def test_pick_worst_first_spread_over_benchmarks_then_episodes():
    cases = [_case("a", 0.0, 5), _case("b", 0.0, 9), _case("c", 0.5, 2, "hazard/flood"),
             _case("d", 0.0, 1, "hazard/fire", 1), _case("e", 1.0, 3, "esar")]
    assert [c["image"] for c in pick(cases, 1)] == ["b"]
    # b (worst), then one per benchmark (c, e), ordered by recall then count
    assert [c["image"] for c in pick(cases, 3)] == ["b", "c", "e"]
    # then another episode (d) before a second frame of b's episode (a)
    assert [c["image"] for c in pick(cases, 4)] == ["b", "d", "c", "e"]
    assert [c["image"] for c in pick(cases, 9)] == ["b", "a", "d", "c", "e"]
    assert pick([], 3) == []


def test_panel_draws_hits_misses_and_detections(dataset):
    images = run_predictions(dataset, _half_detector, CLASSES, log=lambda *_: None)
    case = next(c for c in frame_cases(images, "under_water") if c["image"] == B)
    rgb = np.asarray(Image.open(dataset / B))
    pic = np.asarray(panel(rgb, case, scale=2))
    h, w = pic.shape[:2]
    top = h - 60                                                # the frames fill the bottom 60 rows
    assert w == 2 * 80 + 8 and top > 20                         # two 80 px panels, an 8 px gap, a caption
    left, right = pic[top:, :80], pic[top:, 88:]
    # B's objects: (2, 14, 10, 22) missed (red), (10, 10, 30, 28) found (green); x2 scale
    assert tuple(left[30, 20]) == HIT and tuple(left[40, 20]) == HIT        # left edge of the found box
    assert tuple(left[44, 8]) == MISS                                         # bottom edge of the missed box
    assert tuple(left[30, 40]) == (120, 120, 120)                             # inside: the frame untouched
    assert tuple(right[45, 20]) == DET and tuple(right[50, 12]) == DET       # found box, stray fire box
    assert MISS not in {tuple(p) for p in right.reshape(-1, 3)}
    # the caption is dark text on white
    assert (pic[:top] < 100).all(axis=2).any() and (pic[:top] == 255).all(axis=2).any()
    # a dry object in a frame shown for another condition is drawn thin grey
    other = next(c for c in frame_cases(images, "under_water") if c["image"] == A)
    pa = np.asarray(panel(np.asarray(Image.open(dataset / A)), other, scale=1))
    assert tuple(pa[pa.shape[0] - 30 + 15, 20]) == OTHER                    # person's left edge, x 20


def test_write_failures_index_and_pictures(dataset, tmp_path):
    images = run_predictions(dataset, _half_detector, CLASSES, log=lambda *_: None)
    out = tmp_path / "fail"
    s = write_failures(dataset, images, out, dict(enumerate(CLASSES)), per_condition=1, scale=1)
    assert s["under_water"] == {"frames": 2, "objects": 3, "hits": 1, "recall": pytest.approx(1 / 3),
                                "pictures": ["under_water_hazard-flood_test_0000_s000.png"]}
    assert s["night"] == {"frames": 0, "objects": 0, "hits": 0, "recall": None, "pictures": []}
    assert s["behind_flames"]["recall"] == 0.0 and s["small"]["objects"] == 3
    index = (out / "index.md").read_text()
    assert "3 objects in 2 frames; recall 0.333" in index and "0 objects in 0 frames; recall n/a" in index
    assert "![under_water](under_water_hazard-flood_test_0000_s000.png)" in index
    assert sorted(p.name for p in out.glob("*.png")) == sorted(sum((v["pictures"] for v in s.values()), []))


def test_groundtruth_backend_misses_only_below_its_minimum(dataset):
    pred = groundtruth_predictor(min_pixels=100)
    images = run_predictions(dataset, pred, CLASSES, log=lambda *_: None)
    small = frame_cases(images, "small")
    # the small objects have 100, 64 and 16 pixels: only the first is seen
    assert {c["image"]: c["hits"] for c in small} == {A: 1, B: 0, C: 0}
    assert {c["image"]: c["hits"] for c in frame_cases(images, "under_water")} == {A: 1, B: 1}


def test_cli_failures(dataset, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["perception", "failures", "--dataset", str(dataset), "--backend", "groundtruth",
                 "--out", str(out), "--per-condition", "2", "--scale", "1"]) == 0
    text = capsys.readouterr().out
    assert "under_water: recall 1.000 on 3 objects in 2 frames; 2 pictures" in text
    assert len(list(out.glob("under_water_*.png"))) == 2
    assert main(["perception", "failures", "--dataset", str(tmp_path / "none"), "--out", str(out)]) == 2
    assert main(["perception", "failures", "--dataset", str(dataset), "--weights", str(tmp_path / "x.onnx"),
                 "--out", str(out)]) == 2
    assert "no ONNX model" in capsys.readouterr().err
    # the tiny graph's classes are none of the dataset's: refused (it reported recall 0.000 before)
    assert main(["perception", "failures", "--dataset", str(dataset), "--weights", str(DETECT),
                 "--out", str(tmp_path / "onnx"), "--scale", "1"]) == 2
    assert "none of this dataset's classes (person, fire, object)" in capsys.readouterr().err
