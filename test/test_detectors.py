"""Detectors: ground truth from a hand-made segmentation, class filtering, errors, and
the optional ultralytics backends (skipped when ultralytics cannot be imported)."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import TensorStandIn

from perception_node.detectors import (
    DETECTOR_NAMES,
    Detection,
    DetectorError,
    DetectorInputError,
    DetectorUnavailableError,
    GroundTruthDetector,
    TextEncoderUnavailableError,
    UnknownDetectorError,
    WeightsMismatchError,
    WeightsNotFoundError,
    YoloDetector,
    YoloWorldDetector,
    make_detector,
    ultralytics_status,
)

ULTRALYTICS_OK, ULTRALYTICS_WHY = ultralytics_status()
needs_ultralytics = pytest.mark.skipif(
    not ULTRALYTICS_OK,
    reason=f"ultralytics not importable in this environment (test_perception_ultralytics.py runs the YOLO "
           f"backends in the ultralytics one: {ULTRALYTICS_WHY[:100]}...)")


def hand_seg():
    """8 x 10 image:
    id 5 (backpack): rows 1-2, cols 2-4 (a 2 x 3 block)
    id 7 (cart):     an L: rows 4-6 col 1, plus row 6 cols 2-3
    id 3 (wall):     column 9, all rows
    id 9 (backpack): 2 pixels (below min_pixels=3)
    id 11:           no label
    """
    seg = np.zeros((8, 10), np.int32)
    seg[1:3, 2:5] = 5
    seg[4:7, 1] = 7
    seg[6, 2:4] = 7
    seg[:, 9] = 3
    seg[0, 6:8] = 9
    seg[3:5, 6:8] = 11
    labels = {5: "backpack", 7: "cart", 3: "wall", 9: "backpack"}
    return seg, labels


def by_id(dets):
    return {d.instance_id: d for d in dets}


def test_groundtruth_boxes_by_hand():
    seg, labels = hand_seg()
    dets = GroundTruthDetector(labels).detect(None, {"seg": seg})
    assert [d.instance_id for d in dets] == [3, 5, 7]            # sorted, 9 too small, 11 unlabelled
    d = by_id(dets)
    b = d[5]
    assert (b.label, b.score) == ("backpack", 1.0)
    assert (b.cx, b.cy, b.w, b.h) == (3.0, 1.5, 3.0, 2.0)         # cols 2..4, rows 1..2
    assert b.pixel_box() == (2, 1, 5, 3)
    assert b.mask.shape == (2, 3) and b.mask.all()
    c = d[7]
    assert (c.cx, c.cy, c.w, c.h) == (2.0, 5.0, 3.0, 3.0)         # cols 1..3, rows 4..6
    assert c.pixel_box() == (1, 4, 4, 7)
    np.testing.assert_array_equal(c.mask, [[1, 0, 0], [1, 0, 0], [1, 1, 1]])
    w = d[3]
    assert (w.cx, w.cy, w.w, w.h) == (9.0, 3.5, 1.0, 8.0)


def test_groundtruth_class_filter_and_min_pixels():
    seg, labels = hand_seg()
    det = GroundTruthDetector(labels, classes=["backpack", "cart", "absent"])
    assert [d.instance_id for d in det.detect(None, {"seg": seg})] == [5, 7]
    det.set_classes(["cart"])
    assert [d.label for d in det.detect(None, {"seg": seg})] == ["cart"]
    det = GroundTruthDetector(labels, classes=["backpack"], min_pixels=1)
    assert [d.instance_id for d in det.detect(None, {"seg": seg})] == [5, 9]
    det.set_classes([])                                            # empty list: nothing
    assert det.detect(None, {"seg": seg}) == []
    det.set_classes(None)                                          # None: every labelled id
    assert len(det.detect(None, {"seg": seg})) == 4


def test_groundtruth_labels_per_call_and_huge_ids():
    seg, labels = hand_seg()
    big = np.where(seg > 0, seg + 2_000_000_000, 0).astype(np.int64)
    big_labels = {k + 2_000_000_000: v for k, v in labels.items()}
    a = GroundTruthDetector().detect(None, {"seg": seg, "labels": labels})
    b = GroundTruthDetector().detect(None, {"seg": big, "labels": big_labels})
    assert [d.instance_id - 2_000_000_000 for d in b] == [d.instance_id for d in a]
    for x, y in zip(a, b):
        assert (x.cx, x.cy, x.w, x.h, x.label) == (y.cx, y.cy, y.w, y.h, y.label)
        np.testing.assert_array_equal(x.mask, y.mask)


def test_groundtruth_empty_and_bad_input():
    det = GroundTruthDetector({1: "a"})
    assert det.detect(None, {"seg": np.zeros((4, 4), np.int32)}) == []
    with pytest.raises(DetectorInputError, match="segmentation"):
        det.detect(np.zeros((4, 4, 3), np.uint8), {})
    with pytest.raises(DetectorInputError, match="2-D integer"):
        det.detect(None, {"seg": np.zeros((4, 4), np.float32)})
    with pytest.raises(DetectorInputError, match="list of names"):
        det.set_classes("backpack")


def test_pixel_box_of_continuous_box_is_clipped():
    d = Detection("x", 0.9, cx=1.2, cy=3.0, w=5.0, h=2.0)
    # columns whose centres lie in [-1.3, 3.7] -> 0..3 (clipped at 0); rows in [2, 4] -> 2..4
    assert d.pixel_box((10, 10)) == (0, 2, 4, 5)


def test_make_detector_names_and_errors(tmp_path):
    assert isinstance(make_detector("groundtruth"), GroundTruthDetector)
    assert isinstance(make_detector("GT", classes=["a"]), GroundTruthDetector)
    with pytest.raises(UnknownDetectorError) as exc:
        make_detector("detectron")
    for n in DETECTOR_NAMES:
        assert n in str(exc.value)
    for name in ("yolo", "yolo_world"):
        with pytest.raises(WeightsNotFoundError, match="weights"):
            make_detector(name)
        missing = tmp_path / "nope" / "best.pt"
        with pytest.raises(WeightsNotFoundError) as exc:
            make_detector(name, weights=str(missing))
        assert str(missing) in str(exc.value)
        with pytest.raises(WeightsNotFoundError, match="directory"):
            make_detector(name, weights=str(tmp_path))
    assert issubclass(WeightsNotFoundError, DetectorError)


@pytest.mark.skipif(ULTRALYTICS_OK, reason="ultralytics is installed; the missing-package error cannot occur")
def test_missing_ultralytics_gives_one_clear_error(tmp_path):
    weights = tmp_path / "model.pt"
    weights.write_bytes(b"not really a model")
    for name in ("yolo", "yolo_world"):
        with pytest.raises(DetectorUnavailableError) as exc:
            make_detector(name, weights=str(weights))
        msg = str(exc.value)
        assert "pip install ultralytics" in msg and "torch" in msg and "groundtruth" in msg


# ------------------------------------------------------------------ ultralytics backends
@pytest.fixture(scope="module")
def tiny_weights(tmp_path_factory):
    """Untrained models built from ultralytics' own yaml files and saved here (nothing
    is downloaded)."""
    from ultralytics import YOLO
    d = tmp_path_factory.mktemp("weights")
    det = YOLO("yolov8n.yaml")
    det.save(str(d / "tiny_det.pt"))
    world = YOLO("yolov8s-worldv2.yaml")
    world.save(str(d / "tiny_world.pt"))
    return d / "tiny_det.pt", d / "tiny_world.pt"


@needs_ultralytics
def test_yolo_backend_runs_on_self_made_weights(tiny_weights):
    det_w, _ = tiny_weights
    det = make_detector("yolo", weights=str(det_w), confidence=0.01, device="cpu", imgsz=128)
    assert isinstance(det, YoloDetector)
    rng = np.random.default_rng(0)
    out = det.detect(rng.integers(0, 255, (96, 128, 3), dtype=np.uint8))
    assert isinstance(out, list)
    for d in out:
        assert isinstance(d, Detection) and isinstance(d.label, str) and 0 <= d.score <= 1
    known = list(det._names().values())
    assert det.set_classes([known[0], "no_such_class"]) == ["no_such_class"]
    assert all(d.label == known[0] for d in det.detect(np.zeros((96, 128, 3), np.uint8)))
    det.set_classes(["no_such_class"])
    assert det.detect(np.zeros((96, 128, 3), np.uint8)) == []


@needs_ultralytics
def test_yolo_world_backend_vocabulary(tiny_weights):
    _, world_w = tiny_weights
    det = make_detector("yolo_world", weights=str(world_w), device="cpu", imgsz=128)
    assert isinstance(det, YoloWorldDetector)
    saved = list(det._names().values())
    assert det.set_classes(saved) == []                 # the saved vocabulary: no encoder needed
    assert isinstance(det.detect(np.zeros((96, 128, 3), np.uint8)), list)
    try:
        det.set_classes(["backpack", "fire extinguisher"])
    except TextEncoderUnavailableError as exc:          # no CLIP here: one clear error
        assert "CLIP" in str(exc)
    else:
        assert det.classes == ["backpack", "fire extinguisher"]


# ------------------------------------------- wrapper logic with a stand-in ultralytics
class _FakeModel:
    names = {0: "person", 1: "backpack", 2: "cart"}
    calls: list = []

    def __init__(self, path):
        self.path = path

    def predict(self, img, **kw):
        _FakeModel.calls.append((img, kw))
        boxes = type("Boxes", (), {"__len__": lambda self: 2})()
        boxes.xywh = TensorStandIn([[10.0, 20.0, 4.0, 6.0], [30.0, 5.0, 2.0, 2.0]])
        boxes.conf = TensorStandIn([0.9, 0.4])
        boxes.cls = TensorStandIn([1.0, 2.0])
        result = type("Result", (), {"boxes": boxes, "names": self.names})()
        return [result]


class _FakeWorld(_FakeModel):
    def __init__(self, path):
        super().__init__(path)
        self.model = type("WorldModel", (), {"txt_feats": np.zeros((1, 3, 512), np.float32)})()

    def set_classes(self, classes):
        raise RuntimeError("cannot download ViT-B-32.pt")


@pytest.fixture
def fake_ultralytics(monkeypatch):
    import sys
    import types
    mod = types.ModuleType("ultralytics")
    mod.YOLO, mod.YOLOWorld, mod.__version__ = _FakeModel, _FakeWorld, "fake"
    monkeypatch.setitem(sys.modules, "ultralytics", mod)
    _FakeModel.calls = []
    return mod


def test_yolo_wrapper_with_stand_in_ultralytics(fake_ultralytics, tmp_path, monkeypatch):
    """Checks our side of the ultralytics API (BGR input, box convention, class filter,
    errors) with a stand-in module; the real library is tested above when installed."""
    weights = tmp_path / "w.pt"
    weights.write_bytes(b"x")
    det = make_detector("yolo", weights=str(weights), confidence=0.3, imgsz=320)
    rgb = np.zeros((40, 50, 3), np.uint8)
    rgb[..., 0] = 255                                         # red
    out = det.detect(rgb)
    img, kw = _FakeModel.calls[-1]
    assert img[0, 0].tolist() == [0, 0, 255]                  # handed over as BGR
    assert kw["conf"] == 0.3 and kw["imgsz"] == 320 and "classes" not in kw
    assert [(d.label, d.score) for d in out] == [("backpack", 0.9), ("cart", 0.4)]
    assert (out[0].cx, out[0].cy, out[0].w, out[0].h) == (9.5, 19.5, 4.0, 6.0)   # edge -> centre convention
    assert out[0].instance_id is None and out[0].mask is None
    assert det.set_classes(["cart", "fire extinguisher"]) == ["fire extinguisher"]
    det.detect(rgb)
    assert _FakeModel.calls[-1][1]["classes"] == [2]
    with pytest.raises(DetectorInputError):
        det.detect(None)

    world = make_detector("yolo_world", weights=str(weights))
    assert world.set_classes(["person", "backpack", "cart"]) == []      # saved vocabulary: no encoder
    monkeypatch.setattr("hazard_sim.perception.backends.ultralytics.clip_usable", lambda: False)
    with pytest.raises(TextEncoderUnavailableError, match="not installed") as exc:
        world.set_classes(["umbrella"])
    assert "text_embeddings=minilm" in str(exc.value)                     # points at the offline adapter
    monkeypatch.setattr("hazard_sim.perception.backends.ultralytics.clip_usable", lambda: True)
    with pytest.raises(TextEncoderUnavailableError, match="ViT-B-32"):
        world.set_classes(["umbrella"])
    assert world.classes == ["person", "backpack", "cart"]               # unchanged after a failure
    with pytest.raises(WeightsMismatchError, match="not a YOLO-World model"):
        YoloWorldDetector.check_world(_FakeModel(str(weights)), weights)   # a plain detection model


def test_clip_check_refuses_the_clipboard_package(monkeypatch):
    """PyPI's `clip` is a clipboard tool: importable, but not OpenAI's CLIP."""
    import sys
    import types

    from hazard_sim.perception.backends.ultralytics import clip_usable
    monkeypatch.setitem(sys.modules, "clip", types.ModuleType("clip"))
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: object())
    assert not clip_usable()
    fake = types.ModuleType("clip")
    fake.load, fake.tokenize = (lambda *a: None), (lambda *a: None)
    monkeypatch.setitem(sys.modules, "clip", fake)
    assert clip_usable()
