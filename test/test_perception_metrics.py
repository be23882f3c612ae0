"""Detection metrics against hand-computed values (hazard_sim.perception.metrics)."""
import math

import numpy as np
import pytest

from hazard_sim.perception.metrics import average_precision, box_iou, box_size, evaluate, match_image


def test_iou_hand_values():
    iou = box_iou([[0, 0, 10, 10]], [[5, 0, 15, 10], [0, 0, 10, 10], [20, 20, 30, 30], [0, 0, 5, 5]])
    assert iou[0] == pytest.approx([50 / 150, 1.0, 0.0, 25 / 100])


def test_size_is_root_area():
    assert box_size([[0, 0, 16, 64]]) == pytest.approx([32.0])


def test_ap_101_point():
    # scores 0.9 (TP), 0.8 (FP), 0.7 (TP); 2 ground truth: precision 1, 1/2, 2/3 at recall
    # 1/2, 1/2, 1; envelope 1, 2/3, 2/3: 51 recall points (0..0.50) at 1, 50 at 2/3
    ap = average_precision([True, False, True], [0.9, 0.8, 0.7], 2)
    assert ap == pytest.approx((51 + 50 * 2 / 3) / 101)
    assert average_precision([True, True], [0.5, 0.6], 2) == pytest.approx(1.0)
    assert average_precision([], [], 3) == 0.0
    assert math.isnan(average_precision([False], [0.3], 0))
    # a false positive ranked first: precision 0, 1/2 at recall 0, 1 -> 1/2 at every point
    assert average_precision([False, True], [0.9, 0.1], 1) == pytest.approx(0.5)


def test_greedy_matching_takes_highest_score_first():
    gt = [[0, 0, 10, 10]]
    dets = [[0, 0, 10, 10], [1, 0, 11, 10]]
    tp, keep, matched, order = match_image(dets, [0.4, 0.9], gt, 0.5)
    assert list(order) == [1, 0]
    assert list(tp) == [True, False] and keep.all() and matched.all()


def test_ignored_ground_truth_and_small_detections_do_not_count():
    gt = [[0, 0, 40, 40], [100, 100, 110, 110]]          # sizes 40 and 10
    dets = [[0, 0, 40, 40], [100, 100, 110, 110], [200, 200, 205, 205]]
    tp, keep, matched, order = match_image(dets, [0.9, 0.8, 0.7], gt, 0.5, gt_ignore=[False, True],
                                           size_range=(32, np.inf))
    assert list(tp) == [True, False, False]
    assert list(keep) == [True, False, False]           # on ignored gt; unmatched and small
    assert list(matched) == [True, False]


def test_evaluate_perfect_and_missing():
    ims = [{"gt_boxes": [[0, 0, 40, 40], [50, 50, 90, 90]], "gt_cls": [0, 1],
            "det_boxes": [[0, 0, 40, 40]], "det_cls": [0], "det_scores": [0.9]}]
    r = evaluate(ims, ["a", "b", "c"])
    assert r["ap50"]["a"] == pytest.approx(1.0) and r["ap50_95"]["a"] == pytest.approx(1.0)
    assert r["ap50"]["b"] == 0.0 and math.isnan(r["ap50"]["c"])
    assert r["map50"] == pytest.approx(0.5)                # classes with ground truth only
    assert r["recall50"] == pytest.approx({"a": 1.0, "b": 0.0, "c": float("nan")}, nan_ok=True)
    assert r["n_gt"] == {"a": 1, "b": 1, "c": 0}


def test_evaluate_iou_sweep():
    # IoU 0.75 (a box 40 x 40 shifted by 40/7 px): TP at thresholds 0.50 .. 0.75 (6 of 10)
    s = 40 / 7
    ims = [{"gt_boxes": [[0, 0, 40, 40]], "gt_cls": [0],
            "det_boxes": [[s, 0, 40 + s, 40]], "det_cls": [0], "det_scores": [0.9]}]
    assert box_iou([[0, 0, 40, 40]], [[s, 0, 40 + s, 40]])[0, 0] == pytest.approx(0.75)
    r = evaluate(ims, ["a"])
    assert r["ap50"]["a"] == 1.0 and r["ap50_95"]["a"] == pytest.approx(0.6)


def test_evaluate_size_range():
    ims = [{"gt_boxes": [[0, 0, 40, 40], [100, 100, 108, 108]], "gt_cls": [0, 0],
            "det_boxes": [[0, 0, 40, 40]], "det_cls": [0], "det_scores": [0.9]}]
    assert evaluate(ims, ["a"])["ap50"]["a"] == pytest.approx(51 / 101)   # recall stops at 1/2
    assert evaluate(ims, ["a"], size_range=(32, np.inf))["ap50"]["a"] == pytest.approx(1.0)


def test_per_class_nms_keeps_the_best_of_each_overlap():
    from hazard_sim.perception.evaluation import _nms
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [0, 0, 10, 10], [50, 50, 60, 60]], float)
    scores = np.array([0.6, 0.9, 0.5, 0.7])
    classes = np.array([0, 0, 1, 0])          # box 2 overlaps box 1 but is another class
    assert list(_nms(boxes, scores, classes, 0.5)) == [1, 3, 2]
