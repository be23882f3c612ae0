"""The perception interface (hazard_sim.perception): instances, images, masks from depth,
the minimum-size rule, the onnx backend's decoding against hand-built outputs and two tiny
ONNX graphs (test/data, made by scripts/make_test_onnx.py), the embedded layer that
rewrites what agents see, and the runner / command-line wiring."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hazard_sim.perception import (
    DetectorInputError,
    Instance,
    WeightsMismatchError,
    WeightsNotFoundError,
    as_rgb_uint8,
    clean_classes,
    keep_seen,
    locate,
    make_backend,
    mask_from_depth,
    rasterize,
)
from hazard_sim.perception.backends.onnx import decode, default_imgsz, letterbox, nms, unletterbox_boxes
from hazard_sim.perception.embedded import (
    PHANTOM_BASE,
    EmbeddedPerception,
    PerceptionSettings,
    default_min_pixels,
)

DATA = Path(__file__).parent / "data"
DETECT, SEGMENT = DATA / "tiny_yolo_detect.onnx", DATA / "tiny_yolo_segment.onnx"
ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ images and classes
def test_rgb_inputs_uint8_rgba_and_float():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    assert as_rgb_uint8(img) is img
    rgba = np.dstack([img, np.full((2, 3), 7, np.uint8)])
    np.testing.assert_array_equal(as_rgb_uint8(rgba), img)                     # alpha dropped
    f = np.array([[[0.0, 0.5, 1.0]]], np.float32)
    assert as_rgb_uint8(f).tolist() == [[[0, 128, 255]]]                       # 0..1 scaled, rounded
    with pytest.raises(DetectorInputError, match=r"0\.\.1"):
        as_rgb_uint8(f * 255)                                                  # a 0..255 float image
    with pytest.raises(DetectorInputError, match="NaN"):
        as_rgb_uint8(np.full((1, 1, 3), np.nan, np.float32))
    with pytest.raises(DetectorInputError, match="shape"):
        as_rgb_uint8(np.zeros((4, 4), np.uint8))
    with pytest.raises(DetectorInputError, match="uint16"):
        as_rgb_uint8(np.zeros((4, 4, 3), np.uint16))


def test_clean_classes_keeps_order_and_is_linear():
    assert clean_classes([" a", "b", "a", "", "c "]) == ["a", "b", "c"]
    assert clean_classes(None) is None
    big = [f"c{i % 5000}" for i in range(200_000)]
    assert len(clean_classes(big)) == 5000
    with pytest.raises(DetectorInputError, match="more than 10000"):
        clean_classes([f"c{i}" for i in range(10_001)])


# ------------------------------------------------------------------ masks, size, 3-D
def test_mask_from_depth_by_hand():
    """A box over a 2 m object in front of a wall at 5 m: the band keeps the object."""
    depth = np.full((10, 10), 5.0, np.float32)
    depth[3:7, 3:6] = 2.0
    depth[4, 4] = np.nan                                                       # a hole
    inst = Instance("box", 0.9, cx=4.0, cy=4.5, w=5.0, h=6.0)                 # cols 2..6, rows 2..7
    assert inst.pixel_box() == (2, 2, 7, 8)
    m = mask_from_depth(inst, depth, fx=100.0)
    # band = max(0.15, 0.5 * min(5, 6) * 2 / 100) = 0.15 m around the core's median 2 m
    want = np.zeros((6, 5), bool)
    want[1:5, 1:4] = True
    want[2, 2] = False
    np.testing.assert_array_equal(m, want)
    wide = mask_from_depth(inst, depth, fx=0.5)                                # band 5 m: the wall too
    assert wide.sum() == 29
    assert mask_from_depth(inst, np.full((10, 10), np.inf), fx=100.0) is None


def test_mask_from_depth_of_a_box_over_the_image_edge():
    depth = np.full((4, 4), 1.0, np.float32)
    inst = Instance("x", 1.0, cx=0.0, cy=0.0, w=3.0, h=3.0)                  # pixels -1..1: half outside
    m = mask_from_depth(inst, depth, fx=100.0)
    assert m.shape == (3, 3) and m.sum() == 4 and not m[0].any() and not m[:, 0].any()
    assert inst.__class__(**{**inst.__dict__, "mask": m}).n_pixels((4, 4)) == 4


def test_min_size_rule_counts_mask_or_box_pixels():
    a = Instance("a", 1.0, cx=0.5, cy=0.5, w=2.0, h=2.0)                      # pixels 0..1 x 0..1: 4 px
    b = Instance("b", 1.0, cx=5.0, cy=5.0, w=3.0, h=3.0, mask=np.eye(3, dtype=bool))   # 3 px mask
    assert [i.label for i in keep_seen([a, b], 4)] == ["a"]
    assert [i.label for i in keep_seen([a, b], 3)] == ["a", "b"]
    assert keep_seen([a, b], 5) == []
    assert [i.label for i in keep_seen([a, b], 0)] == ["a", "b"]


def test_locate_places_the_mask_in_the_world():
    K = np.array([[10.0, 0, 5.0], [0, 10.0, 5.0], [0, 0, 1]])
    depth = np.full((11, 11), 4.0)
    inst = Instance("x", 1.0, cx=5.0, cy=5.0, w=3.0, h=3.0, mask=np.ones((3, 3), bool))
    pose = np.eye(4)
    pose[:3, 3] = [1.0, 2.0, 3.0]
    assert locate(inst, depth, K, pose)
    np.testing.assert_allclose(inst.position, [1.0, 2.0, 7.0])                # centre pixel at 4 m, shifted
    # x of the 9 points: -0.4, 0, 0.4 m three times each; their 2nd / 98th percentiles are the ends
    np.testing.assert_allclose(inst.extent, [0.8, 0.8, 0.0], atol=1e-9)
    assert not locate(Instance("y", 1.0, 5.0, 5.0, 3.0, 3.0), np.full((11, 11), np.nan), K)


def test_rasterize_paints_best_score_last():
    lo = Instance("lo", 0.3, cx=1.0, cy=1.0, w=3.0, h=3.0)
    hi = Instance("hi", 0.9, cx=2.0, cy=2.0, w=3.0, h=3.0, mask=np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], bool))
    img = rasterize([hi, lo], (4, 4), [7, 5])
    assert img.tolist() == [[5, 5, 5, 0], [5, 7, 5, 0], [5, 5, 7, 0], [0, 0, 0, 7]]


# ------------------------------------------------------------------ onnx decoding by hand
def test_nms_by_hand():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [0, 0, 10, 5]], float)
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    # IoU(0, 1) = 90 / 110 = 0.82; IoU(0, 3) = 50 / 100 = 0.5
    assert nms(boxes, scores, 0.7).tolist() == [0, 2, 3]
    assert nms(boxes, scores, 0.45).tolist() == [0, 2]


def test_decode_detect_layout_by_hand():
    # 4 anchors, 2 classes: (cx, cy, w, h, s0, s1) per column
    pred = np.array([[10, 10, 4, 4, 0.9, 0.1],
                     [11, 10, 4, 4, 0.2, 0.8],      # overlaps anchor 0 but another class: kept
                     [10.5, 10, 4, 4, 0.7, 0.0],    # same class as 0, IoU 0.78: suppressed
                     [30, 30, 2, 2, 0.1, 0.2]], np.float32).T   # below 0.25
    boxes, scores, cls, coef = decode(pred, nc=2, conf=0.25, iou=0.7)
    assert cls.tolist() == [0, 1] and np.allclose(scores, [0.9, 0.8])
    np.testing.assert_allclose(boxes, [[8, 8, 12, 12], [9, 8, 13, 12]])
    assert coef.shape == (2, 0)
    _, _, cls, _ = decode(pred, nc=2, conf=0.25, iou=0.7, class_ids=[1])
    assert cls.tolist() == [1]
    e2e = np.array([[1, 2, 5, 6, 0.8, 1], [0, 0, 1, 1, 0.1, 0], [3, 3, 4, 4, 0.9, 0]], np.float32)
    boxes, scores, cls, _ = decode(e2e, nc=2, conf=0.25, iou=0.7, end2end=True)
    assert cls.tolist() == [0, 1] and boxes[1].tolist() == [1, 2, 5, 6]


def test_letterbox_and_back_by_hand():
    img = np.full((32, 64, 3), 200, np.uint8)
    out, r, pad = letterbox(img, (64, 64))
    assert out.shape == (64, 64, 3) and r == 1.0 and pad == (0, 16)
    assert (out[:16] == 114).all() and (out[48:] == 114).all() and (out[16:48] == 200).all()
    small, r2, pad2 = letterbox(np.zeros((100, 50, 3), np.uint8), (64, 64))   # scaled 0.64 -> 32 x 64
    assert r2 == 0.64 and pad2 == (16, 0)
    b = unletterbox_boxes(np.array([[16.0, 0.0, 48.0, 64.0], [0, 0, 8, 8]]), r2, pad2, (100, 50))
    np.testing.assert_allclose(b, [[0, 0, 50, 100], [0, 0, 0, 12.5]])
    assert default_imgsz((256, 256)) == (256, 256) and default_imgsz((480, 640)) == (480, 640)
    assert default_imgsz((250, 100)) == (256, 128)


# ------------------------------------------------------------------ onnx on tiny graphs
def test_onnx_backend_on_the_tiny_detection_graph():
    det = make_backend("onnx", weights=str(DETECT))
    assert det.names == {0: "red thing", 1: "green thing", 2: "blue thing"} and det.fixed_size == (64, 64)
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 0] = 255
    out = det.detect(red)
    # channel means (1, 0, 0): class 0 with 0.9, 0.8 (suppressed by the first, IoU 0.78), 0.7, 0.1 (< 0.25)
    assert [(i.label, round(i.score, 4)) for i in out] == [("red thing", 0.9), ("red thing", 0.7)]
    assert [(i.cx, i.cy, i.w, i.h) for i in out] == [(15.5, 15.5, 8.0, 8.0), (47.5, 39.5, 16.0, 12.0)]
    assert all(i.mask is None for i in out)
    same = det.detect(red.astype(np.float32) / 255.0)                         # float 0..1: same answer
    assert [(i.label, i.cx, i.cy) for i in same] == [(i.label, i.cx, i.cy) for i in out]
    assert len(det.detect(np.dstack([red, np.zeros((64, 64), np.uint8)]))) == 2   # rgba8
    assert det.set_classes(["green thing", "unicorn"]) == ["unicorn"]
    assert det.detect(red) == []                                               # green scores 0
    det.set_classes(None)
    # 32 x 64 image: letterboxed with 16 grey rows above and below; red mean (255 + 114) / 2 / 255
    wide = np.zeros((32, 64, 3), np.uint8)
    wide[..., 0] = 255
    out = det.detect(wide)
    assert [i.label for i in out] == ["red thing", "red thing"]
    assert out[0].score == pytest.approx(0.9 * 369 / 510, abs=1e-5)
    assert [(i.cx, i.cy, i.w, i.h) for i in out] == [(15.5, 1.5, 8.0, 4.0), (47.5, 23.5, 16.0, 12.0)]


def test_onnx_backend_on_the_tiny_segmentation_graph():
    det = make_backend("onnx", weights=str(SEGMENT), confidence=0.05)
    blue = np.zeros((64, 64, 3), np.uint8)
    blue[..., 2] = 255
    out = det.detect(blue)
    assert [(i.label, round(i.score, 4)) for i in out] == [("blue thing", 0.9), ("blue thing", 0.7),
                                                             ("blue thing", 0.1)]
    assert all(i.mask_from == "model" for i in out)
    a0, a2, a3 = out
    assert a0.mask.all()                      # box x 12..19: inside the prototype's left half
    assert not a2.mask.any()                  # box x 40..55: outside it
    # box x 24..39 (cols of pixel centres); the 16 -> 64 bilinear upsampling leaves the left half
    # above 0 up to x = 33 (source (x + 0.5) / 4 - 0.5 < 8)
    assert a3.pixel_box() == (24, 24, 40, 40)
    cols = np.nonzero(a3.mask.all(axis=0))[0] + 24
    assert cols.tolist() == list(range(24, 34)) and not a3.mask[:, 10:].any()


def test_onnx_backend_errors(tmp_path):
    with pytest.raises(WeightsNotFoundError, match="--detector-weights"):
        make_backend("onnx")
    with pytest.raises(WeightsNotFoundError, match="no such file"):
        make_backend("onnx", weights=str(tmp_path / "none.onnx"))
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(WeightsMismatchError, match="onnxruntime cannot load"):
        make_backend("onnx", weights=str(junk))
    with pytest.raises(WeightsMismatchError, match="fixed size"):
        make_backend("onnx", weights=str(DETECT), imgsz=128)


def test_onnx_backend_and_the_detectors_module_import_no_torch_nor_scipy():
    code = ("import sys, numpy as np; import perception_node.detectors; "
            "from hazard_sim.perception import make_backend; "
            f"d = make_backend('onnx', weights={str(DETECT)!r}); d.detect(np.zeros((64, 64, 3), np.uint8)); "
            "print(sorted(m for m in ('torch', 'ultralytics', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ embedded layer
def _frame(seg, rgb=None):
    h, w = seg.shape
    return {"rgb": np.zeros((h, w, 3), np.uint8) if rgb is None else rgb, "depth": np.full((h, w), 2.0, np.float32),
            "seg": seg, "camera_K": np.array([[10.0, 0, w / 2], [0, 10.0, h / 2], [0, 0, 1]]),
            "camera_pose": np.eye(4), "frame": 0}


def test_embedded_groundtruth_passes_through_and_clears_small_instances():
    seg = np.zeros((8, 8), np.int32)
    seg[0:3, 0:3] = 1000            # 9 px
    seg[5, 5:7] = 1001              # 2 px
    seg[7, 7] = 3                   # 1 px, unlabelled: left as it is
    labels = {1000: "apple", 1001: "pen"}
    obs, info = _frame(seg), {"labels": labels, "observations": [_frame(seg)]}
    same = EmbeddedPerception(PerceptionSettings(min_pixels=1), "hazard/fire")
    o2, i2 = same(obs, info)
    assert o2 is obs and i2 is info                                           # untouched
    seen = EmbeddedPerception(PerceptionSettings(min_pixels=3), "hazard/fire")
    o3, i3 = seen(obs, info)
    want = seg.copy()
    want[5, 5:7] = 0
    np.testing.assert_array_equal(o3["seg"], want)
    np.testing.assert_array_equal(i3["observations"][0]["seg"], want)
    assert i3["labels"] is labels and obs["seg"][5, 5] == 1001                # input not modified
    huge = np.where(seg >= 1000, seg + 2_000_000_000, seg)                    # ids past the histogram
    o4, _ = seen(_frame(huge), {"labels": {k + 2_000_000_000: v for k, v in labels.items()}})
    np.testing.assert_array_equal(o4["seg"], np.where(want >= 1000, want + 2_000_000_000, want))


def test_embedded_esar_default_hides_a_victim_seen_as_four_pixels():
    assert default_min_pixels("esar/alpine") == 13 and default_min_pixels("hazard/fire") == 46
    seg = np.zeros((16, 16), np.int32)
    seg[2:4, 2:4] = 2000            # a victim as 4 px (ESAR test task 5)
    seg[8:13, 8:13] = 2001          # a clue as 25 px
    cam = {"rgb": np.zeros((16, 16, 3), np.uint8), "depth": np.full((16, 16), 50.0, np.float32), "seg": seg,
           "seg_visible": seg, "K": np.eye(3), "pose": np.eye(4)}
    obs = {"cameras": {"front_center": cam, "bottom_center": dict(cam)}, "seg": seg}
    o, _ = EmbeddedPerception(PerceptionSettings(), "esar")(obs, {"labels": {2000: "victim", 2001: "clue:tent"}})
    for c in o["cameras"].values():
        assert set(np.unique(c["seg_visible"]).tolist()) == {0, 2001}
    assert set(np.unique(o["seg"]).tolist()) == {0, 2001}


def test_embedded_onnx_grounds_detections_and_gives_phantoms_their_own_ids():
    """The tiny graph's red-image boxes: (12..19, 12..19) on instance 1005 (IoU 64 / 80: grounded,
    labelled by the detector), (40..55, 34..45) on a floor instance 8 whose IoU with it is
    192 / 896 (a phantom id, not the floor); masks from depth."""
    seg = np.zeros((64, 64), np.int32)
    seg[11:21, 12:20] = 1005        # 10 x 8 = 80 px; the box covers 64 of them
    seg[32:64, 32:64] = 8           # floor: 32 x 28 = 896 px after the wall, 192 under the second box
    seg[0:64, 60:64] = 7            # a wall the detector does not report
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 0] = 255
    obs = _frame(seg, red)
    info = {"labels": {1005: "apple", 7: "wall", 8: "floor"}, "task": {"targets": [{"category": "red thing"}]}}
    seen = EmbeddedPerception(PerceptionSettings(backend="onnx", weights=str(DETECT), min_pixels=4), "hazard/fire",
                              info["task"])
    o, i = seen(obs, info)
    ids = set(np.unique(o["seg"]).tolist()) - {0}
    phantom = [x for x in ids if x >= PHANTOM_BASE]
    assert 1005 in ids and len(phantom) == 1 and 7 not in ids and 8 not in ids
    assert i["labels"][1005] == "red thing" and i["labels"][phantom[0]] == "red thing"
    assert (o["seg"] == 1005).sum() == 64                                    # the 8 x 8 box, depth flat
    assert seen.stats == {"frames": 1, "instances": 2, "grounded": 1, "phantoms": 1}
    o2, _ = seen(obs, info)
    np.testing.assert_array_equal(o2["seg"], o["seg"])                       # stable ids frame to frame
    big = EmbeddedPerception(PerceptionSettings(backend="onnx", weights=str(DETECT), min_pixels=100), "hazard/fire")
    assert set(np.unique(big(obs, info)[0]["seg"]).tolist()) == {0, phantom[0]}   # 8 x 8 < 100 px: unseen


def test_embedded_prompts_map_only_labels_the_detector_does_not_give_as_they_are():
    """A task's prompts (label -> text): the tiny graph's "red thing" boxes come out under the
    label whose prompt it is; a label the detector gives as it is (a namer's kind, here
    "victim" put in its vocabulary) keeps no prompt, so its prompt's boxes stay as they are."""
    seg = np.zeros((64, 64), np.int32)
    seg[11:21, 12:20] = 1005
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 0] = 255
    task = {"detect_classes": {"victim": "red thing", "clue:tent": "tent"}}
    seen = EmbeddedPerception(PerceptionSettings(backend="onnx", weights=str(DETECT), min_pixels=4), "esar", task)
    assert seen.prompt_to_label == {"red thing": "victim", "tent": "clue:tent"}
    _, i = seen(_frame(seg, red), {"labels": {1005: "victim"}})
    assert i["labels"][1005] == "victim"
    seen.vocabulary = [*seen.vocabulary, "victim"]
    seen.set_task(task)
    assert seen.prompt_to_label == {"tent": "clue:tent"}
    _, i = seen(_frame(seg, red), {"labels": {1005: "victim"}})
    assert i["labels"][1005] == "red thing"


def test_results_files_of_a_perception_backend_carry_its_tag():
    assert PerceptionSettings().file_tag() == "" and PerceptionSettings(backend="gt").file_tag() == ""
    assert PerceptionSettings(backend="onnx", weights="data/perception/detector.onnx").file_tag() == ".onnx"
    assert PerceptionSettings(backend="onnx", weights="detector.onnx", namer="n.onnx").file_tag() == ".onnx_namer"
    # another detector's runs get files of their own
    assert PerceptionSettings(backend="onnx", weights="data/perception/doze/doze.onnx").file_tag() == ".onnx_doze"
    assert PerceptionSettings(backend="onnx", weights="doze.onnx", namer="n.onnx").file_tag() == ".onnx_doze_namer"
    assert PerceptionSettings(backend="yolo_world").file_tag() == ".yolo_world"
    # a minimum size other than the benchmark's default (any given one, without a benchmark)
    assert PerceptionSettings(min_pixels=3).file_tag("hazard/fire") == ".px3"
    assert PerceptionSettings(min_pixels=46).file_tag("hazard/fire") == ""           # the default itself
    assert PerceptionSettings(min_pixels=3).file_tag() == ".px3"
    assert PerceptionSettings(backend="onnx", weights="detector.onnx").file_tag("esar/alpine") == ".onnx"
    assert PerceptionSettings(backend="onnx", weights="detector.onnx", min_pixels=8).file_tag("esar") == ".onnx.px8"
    assert PerceptionSettings(backend="onnx", weights="detector.onnx", min_pixels=16).file_tag("esar") == ".onnx"


def test_settings_key_names_the_backend_and_weights():
    k = PerceptionSettings().key("esar")
    assert k == {"backend": "groundtruth", "min_pixels": 13}
    assert PerceptionSettings(backend="onnx", weights=str(DETECT)).key("esar")["min_pixels"] == 16
    k = PerceptionSettings(backend="onnx", weights=str(DETECT)).key("hazard/fire")
    assert k["backend"] == "onnx" and k["weights"] == DETECT.name and k["weights_bytes"] == DETECT.stat().st_size
    assert k["min_pixels"] == 3


def test_sweep_config_includes_perception():
    from hazard_sim.runner import sweep_config
    a = sweep_config("hazard/fire", "test", 0, "greedy")
    b = sweep_config("hazard/fire", "test", 0, "greedy", perception=PerceptionSettings(min_pixels=5))
    assert a["perception"] == {"backend": "groundtruth", "min_pixels": 46} and b["perception"]["min_pixels"] == 5


def test_cli_reports_a_missing_detector_file_before_any_episode(tmp_path):
    from hazard_sim.cli import main
    assert main(["run", "--benchmark", "hazard/fire", "--perception", "onnx",
                 "--detector-weights", str(tmp_path / "none.onnx")]) == 2
    assert main(["run", "--benchmark", "hazard/fire", "--perception", "yolo_world"]) == 2


def test_run_with_the_onnx_backend_reports_its_perception():
    """A short HAZARD episode decided on the tiny graph's detections: it runs to its end, the
    metrics are the simulator's, and the result names the perception."""
    from hazard_sim.runner import run_episode
    m = run_episode("hazard/fire", "test", 0, "greedy", frame_limit=60,
                    perception=PerceptionSettings(backend="onnx", weights=str(DETECT)))
    assert m["perception"]["backend"] == "onnx" and m["perception"]["frames"] > 0
    assert m["frames"] <= 60 and json.dumps(m)


# ------------------------------------------------------------------ reporting (ESAR over ROS)
def test_report_filter_reports_each_thing_once():
    from hazard_sim.tasks.esar.reporting import ReportFilter
    f = ReportFilter(merge_radius=10.0)
    new = f.new_reports([("victim", (0, 0, 0), ""), ("clue:tent", (5, 0, 0), ""), ("rock", (1, 1, 1), ""),
                         ("clue:", (0, 0, 0), ""), ("victim", (np.nan, 0, 0), "")])
    assert [lab for lab, _ in new] == ["victim", "clue:tent"]                 # others are not reports
    new = f.new_reports([("victim", (9.9, 0, 0), ""),                          # the same victim (9.9 m)
                         ("victim", (10.1, 0, 0), ""),                         # another (10.1 m)
                         ("clue:rope", (5, 0, 0), "")])                        # another label, same place
    assert [(lab, p.tolist()) for lab, p in new] == [("victim", [10.1, 0, 0]), ("clue:rope", [5.0, 0, 0])]
    # with instance ids (the ground-truth backend), the id decides, not the distance
    assert len(f.new_reports([("victim", (100, 0, 0), "2000"), ("victim", (100, 0, 0), "2001")])) == 2
    assert f.new_reports([("victim", (500, 0, 0), "2000")]) == []
    with pytest.raises(ValueError):
        ReportFilter(-1.0)


def test_embedded_closed_vocabulary_gives_the_agent_its_task_in_the_detectors_words():
    """As the perception node does over ROS: a closed-vocabulary detector's agent gets its target
    categories as the detector's classes (the task's own detector_classes map here), so that the
    labels it sees can match them; ground truth leaves the task alone."""
    seg = np.zeros((64, 64), np.int32)
    seg[11:21, 12:20] = 1005
    red = np.zeros((64, 64, 3), np.uint8)
    red[..., 0] = 255
    task = {"targets": [{"category": "apple", "value": 1}, {"category": "pear", "value": 5}],
            "detector_classes": {"apple": "red thing", "pear": "unicorn"}}
    info = {"labels": {1005: "apple"}, "task": task}
    seen = EmbeddedPerception(PerceptionSettings(backend="onnx", weights=str(DETECT), min_pixels=4), "hazard/fire",
                              task)
    assert seen.vocabulary == ["blue thing", "green thing", "red thing"]
    _, i = seen(_frame(seg, red), info)
    assert [t["category"] for t in i["task"]["targets"]] == ["red thing", "pear"]   # unicorn: no such class
    assert info["task"] is task and task["targets"][0]["category"] == "apple"        # the env's task untouched
    gt = EmbeddedPerception(PerceptionSettings(min_pixels=4), "hazard/fire", task)
    assert gt.vocabulary is None and gt(_frame(seg, red), info)[1]["task"] is task


def test_embedded_task_without_its_benchmark_maps_by_the_runs_benchmark():
    """The embedded env's task has no "benchmark" key (sim_node adds one over ROS): the targets
    still map through the dataset's classes of the benchmark being run (candle: value 1 ->
    object, purse: value 5 -> valuable)."""
    seg = np.zeros((64, 64), np.int32)
    red = np.zeros((64, 64, 3), np.uint8)
    seen = EmbeddedPerception(PerceptionSettings(backend="onnx", weights=str(DETECT)), "hazard/fire")
    seen.vocabulary = ["object", "person", "valuable"]           # the shipped detector's kind of classes
    task = {"targets": [{"category": "candle", "value": 1}, {"category": "purse", "value": 5}]}
    _, i = seen(_frame(seg, red), {"labels": {}, "task": task})
    assert sorted((t["category"], t["value"]) for t in i["task"]["targets"]) == [("object", 1), ("valuable", 5)]
