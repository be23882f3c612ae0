"""``hazard perception dataset``: labels from segmentation, a tiny deterministic render, and the
held-out evaluation of the groundtruth backend on it (hazard_sim.perception.dataset_render,
.evaluation)."""
import json

import numpy as np
import pytest

from hazard_sim.perception.dataset_render import CLASSES, Plan, class_of, instance_boxes, render_episode, yolo_lines
from hazard_sim.perception.evaluation import groundtruth_predictor, report, run_predictions


def test_class_set():
    assert class_of("doze/level2", "person") == "person"
    assert class_of("esar", "victim") == "person"
    assert class_of("esar", "clue:tent") == "clue"
    assert class_of("hazard/fire", "fire") == "fire"
    assert class_of("hazard/fire", "laptop") == "valuable"          # value 5
    assert class_of("hazard/flood", "book") == "object"             # value 1
    assert class_of("doze/level1", "T-rex model") == "object"
    for lab in ("wall", "floor", "tree", "terrain", "water"):
        assert class_of("esar", lab) is None and class_of("hazard/wind", lab) is None
    assert class_of("hazard/fire", "sofa") is None                  # not in the catalogue
    assert class_of("hazard/wind", "cart") == "container"           # wind's carts: where to drop


def test_boxes_and_label_lines_by_hand():
    seg = np.zeros((10, 20), np.int32)
    seg[2:5, 4:8] = 1000            # 12 px laptop: box x 4..8, y 2..5
    seg[6:8, 10:11] = 1001          # 2 px book: below min_pixels
    seg[0:1, 0:20] = 3              # a wall (scene part, id < 900)
    objs = instance_boxes(seg, {1000: "laptop", 1001: "book", 3: "wall"}, "hazard/fire", min_pixels=3)
    assert [(o["id"], o["cls"], o["box"], o["pixels"]) for o in objs] == [(1000, "valuable", [4, 2, 8, 5], 12)]
    (line,) = yolo_lines(objs, seg.shape)
    c, cx, cy, w, h = line.split()
    assert int(c) == CLASSES.index("valuable")
    assert (float(cx), float(cy), float(w), float(h)) == pytest.approx((6 / 20, 3.5 / 10, 4 / 20, 3 / 10))
    seg[8:10, 0:5] = 11             # a cart (scene part): the only part with a class
    objs = instance_boxes(seg, {1000: "laptop", 1001: "book", 3: "wall", 11: "cart"}, "hazard/wind", min_pixels=3)
    assert [(o["id"], o["cls"]) for o in objs] == [(11, "container"), (1000, "valuable")]
    poly = instance_boxes(seg, {1000: "laptop"}, "hazard/fire", 3, polygons=True)[0]["polygon"]
    xs, ys = poly[0::2], poly[1::2]
    assert (min(xs), max(xs), min(ys), max(ys)) == (4, 7, 2, 4)      # contour through pixel centres


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two HAZARD fire shots and one ESAR pose (its four cameras), rendered twice."""
    outs = []
    plan = Plan(ground_shots=2, esar_shots=1)
    for k in range(2):
        out = tmp_path_factory.mktemp(f"ds{k}")
        for sub in ("images", "labels", "done"):
            (out / sub / "val").mkdir(parents=True)
        n = render_episode(out, "val", "hazard/fire", "train", 0, plan, 96, 0, False)
        n += render_episode(out, "val", "esar", "test", 0, plan, 96, 0, False) if k == 0 else 0
        outs.append((out, n))
    return plan, outs


def test_tiny_render_is_deterministic_and_resumable(tiny):
    plan, ((a, na), (b, _)) = tiny
    assert na == 2 + 4
    imgs = sorted(p.name for p in (a / "images" / "val").glob("*.png"))
    assert len(imgs) == 6 and sum("esar" in n for n in imgs) == 4
    for name in (p.name for p in (b / "labels" / "val").glob("*.txt")):
        assert (a / "labels" / "val" / name).read_text() == (b / "labels" / "val" / name).read_text()
        img = name[:-4] + ".png"
        assert (a / "images" / "val" / img).read_bytes() == (b / "images" / "val" / img).read_bytes()
    assert render_episode(a, "val", "hazard/fire", "train", 0, plan, 96, 0, False) == 0   # done: skipped
    recs = [json.loads(s) for s in (a / "objects_val.jsonl").read_text().splitlines()]
    assert recs and {r["benchmark"] for r in recs} <= {"hazard/fire", "esar"}
    for r in recs:
        assert set(r) >= {"image", "cls", "box", "pixels", "under_water", "behind_flames", "night", "fog"}
        label = (a / r["image"].replace("images", "labels").replace(".png", ".txt")).read_text()
        assert label.count("\n") >= 1


def test_groundtruth_backend_scores_one_above_its_minimum(tiny):
    _, ((a, _), _) = tiny
    images = run_predictions(a, groundtruth_predictor(0), list(CLASSES))
    rep = report(images, list(CLASSES), min_size=0.0)
    assert rep["all"]["map50"] == pytest.approx(1.0) and rep["all"]["map50_95"] == pytest.approx(1.0)
    small = groundtruth_predictor(min_pixels=10**6)                  # sees nothing
    rep = report(run_predictions(a, small, list(CLASSES)), list(CLASSES), min_size=0.0)
    assert rep["all"]["map50"] == 0.0


def test_the_doze_class_set_names_furniture_by_kind_and_renders_doze_alone():
    from hazard_sim.perception.dataset_render import class_set, episode_list
    from hazard_sim.tasks.doze.detector_classes import DOZE_FURNITURE
    cs = class_set("doze")
    assert cs.classes[:3] == ("person", "object", "whiteboard") and len(cs.classes) == 3 + len(DOZE_FURNITURE)
    assert class_of("doze/level1", "bed", "doze") == "bed" and class_of("doze/level1", "side table", cs) == "side table"
    assert class_of("doze/level1", "T-rex model", "doze") == "object"
    assert class_of("doze/level3", "person", "doze") == "person"
    assert class_of("hazard/fire", "laptop", "doze") is None           # another benchmark
    assert class_of("esar", "victim", "doze") is None
    with pytest.raises(ValueError, match="unknown class set 'coco'"):
        class_set("coco")
    # furniture parts are labelled one by one (ids below the entity range are scene parts)
    seg = np.zeros((10, 20), np.int32)
    seg[0:4, 0:10] = 40             # a table top (a scene part)
    seg[4:10, 0:2] = 41             # one of its legs
    seg[0:2, 12:20] = 3             # a wall: never labelled
    seg[5:8, 5:9] = 1000            # an object
    labels = {40: "side table", 41: "side table", 3: "wall", 1000: "mug"}
    doze = instance_boxes(seg, labels, "doze/level1", 3, classes="doze")
    assert [(o["id"], o["cls"], o["box"]) for o in doze] == [
        (40, "side table", [0, 0, 10, 4]), (41, "side table", [0, 4, 2, 10]), (1000, "object", [5, 5, 9, 8])]
    assert [o["id"] for o in instance_boxes(seg, labels, "doze/level1", 3)] == [1000]    # the six classes: no furniture
    (line,) = yolo_lines(doze[:1], seg.shape, cs.classes)
    assert int(line.split()[0]) == cs.classes.index("side table")
    # its DOZE episodes are spread over every house of a split; the six-class set keeps the first ones
    from hazard_sim.tasks.doze.dataset import load_split
    scenes = {e["index"]: e["scene"] for e in load_split(1, "train")}
    spread = [i for b, _, i in episode_list(Plan(), "train", 3.0, "doze") if b == "doze/level1"]
    assert len(spread) == 24 and len({scenes[i] for i in spread}) == len(set(scenes.values())) == 8
    assert {b for b, _, _ in episode_list(Plan(), "val", 1.0, "doze")} == {"doze/level1", "doze/level2", "doze/level3"}
    first = [i for b, _, i in episode_list(Plan(), "train", 1.0) if b == "doze/level1"]
    assert first == list(range(8))


def test_doze_furniture_is_every_kind_the_houses_label_their_parts_with():
    from hazard_sim.tasks.doze.detector_classes import DOZE_FURNITURE
    from hazard_sim.tasks.doze.scenes import SCENES, build_house
    kinds = set()
    for name in SCENES:
        kinds |= set(build_house(name).part_labels.values())
    assert tuple(sorted(kinds)) == DOZE_FURNITURE


def test_a_dataset_folder_holds_one_class_set(tmp_path):
    from hazard_sim.perception.dataset_render import write_data_yaml
    write_data_yaml(tmp_path, "doze")
    write_data_yaml(tmp_path, "doze")                # the same classes: fine
    with pytest.raises(ValueError, match="holds a dataset of other classes"):
        write_data_yaml(tmp_path, "all")


def test_recall_against_mask_pixels_bins_by_the_minimum_size_rules_unit():
    from hazard_sim.perception.evaluation import PIXEL_BINS, recall_by_pixels
    hits = [({"pixels": 5}, False), ({"pixels": 7}, True), ({"pixels": 8}, True),
            ({"pixels": 40}, False), ({"pixels": 63}, True), ({"pixels": 5000}, True)]
    r = recall_by_pixels(hits)
    assert list(r) == [f"{lo:g}-{hi:g}" for lo, hi in zip(PIXEL_BINS[:-1], PIXEL_BINS[1:])]
    assert r["0-8"] == {"n": 2, "recall": 0.5} and r["8-16"] == {"n": 1, "recall": 1.0}
    assert r["32-64"] == {"n": 2, "recall": 0.5} and r["1024-inf"]["n"] == 1
    assert r["16-32"] == {"n": 0, "recall": None}


def test_the_eval_report_gives_recall_against_mask_pixels_per_benchmark(tiny):
    from hazard_sim.perception.evaluation import markdown
    _, ((a, _), _) = tiny
    images = run_predictions(a, groundtruth_predictor(0), list(CLASSES))
    rep = report(images, list(CLASSES), min_size=0.0)
    total = sum(v["n"] for v in rep["recall_by_pixels"].values())
    assert total == sum(len(im["gt"]) for im in images)
    assert all(v["recall"] in (None, 1.0) for v in rep["recall_by_pixels"].values())   # the oracle
    assert set(rep["per_benchmark"]) and all("recall_by_pixels" in r for r in rep["per_benchmark"].values())
    assert "mask pixels" in markdown(rep, "t")


def test_dataset_of_only_some_benchmarks_keeps_the_class_set():
    from hazard_sim.perception.dataset_render import Plan, class_set, episode_list, only_benchmarks
    full = class_set("all")
    cs = only_benchmarks("all", "esar")
    assert cs.benchmarks == ("esar",) and cs.classes == full.classes and cs.name == full.name
    eps = episode_list(Plan(), "val", 1.0, cs)
    assert eps and {b for b, _, _ in eps} == {"esar"}
    assert [e for e in episode_list(Plan(), "val", 1.0, full) if e[0] == "esar"] == eps
    assert only_benchmarks("all", None) is full
    with pytest.raises(ValueError, match="renders hazard, doze, esar, not nope"):
        only_benchmarks("all", "esar,nope")
