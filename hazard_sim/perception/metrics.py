"""Detection metrics (COCO's definitions, numpy only): IoU, greedy matching, 101-point AP.

* :func:`box_iou`: IoU between ``(N, 4)`` and ``(M, 4)`` boxes ``x0, y0, x1, y1``.
* :func:`match_image`: COCO's greedy matching for one image and one class at one IoU
  threshold: detections by falling score each take the unmatched ground truth of highest IoU
  (>= threshold); ground truth flagged ``ignore`` (outside the size range evaluated) absorbs a
  detection without counting, and an unmatched detection whose own size is outside the range
  is ignored too.
* :func:`average_precision`: COCO's 101-point interpolated AP from scored true / false
  positives and the number of ground-truth objects.
* :func:`evaluate`: AP per class at IoU 0.50:0.05:0.95 over a set of images; mAP50 and
  mAP50-95 (mean over classes with ground truth), recall at a score threshold.
"""
from __future__ import annotations

import numpy as np

IOU_THRESHOLDS = np.round(np.arange(0.5, 0.951, 0.05), 2)


def box_iou(a, b) -> np.ndarray:
    a = np.asarray(a, float).reshape(-1, 4)
    b = np.asarray(b, float).reshape(-1, 4)
    ix0 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy0 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix1 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def box_size(boxes) -> np.ndarray:
    """Object size in pixels: the square root of the box area."""
    b = np.asarray(boxes, float).reshape(-1, 4)
    return np.sqrt(np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None))


def match_image(det_boxes, det_scores, gt_boxes, iou_thr: float, gt_ignore=None, size_range=None):
    """Greedy COCO matching: returns ``(tp, keep, gt_matched)`` over the detections sorted by
    falling score (``tp`` bool, ``keep`` False for detections that do not count) and a bool per
    ground-truth object (matched or not); ``det_scores`` order is returned as ``order``."""
    det_boxes = np.asarray(det_boxes, float).reshape(-1, 4)
    gt_boxes = np.asarray(gt_boxes, float).reshape(-1, 4)
    order = np.argsort(-np.asarray(det_scores, float), kind="stable")
    ign = np.zeros(len(gt_boxes), bool) if gt_ignore is None else np.asarray(gt_ignore, bool)
    iou = box_iou(det_boxes[order], gt_boxes) if len(gt_boxes) else np.zeros((len(order), 0))
    matched = np.zeros(len(gt_boxes), bool)
    tp = np.zeros(len(order), bool)
    keep = np.ones(len(order), bool)
    gt_rank = np.argsort(ign, kind="stable")            # real ground truth before ignored
    for d in range(len(order)):
        best, best_iou = -1, iou_thr - 1e-12
        for g in gt_rank:
            if matched[g]:
                continue
            if best >= 0 and not ign[best] and ign[g]:
                break                                   # a real match beats any ignored one
            if iou[d, g] >= best_iou:
                best, best_iou = g, iou[d, g]
        if best >= 0:
            matched[best] = True
            if ign[best]:
                keep[d] = False
            else:
                tp[d] = True
        elif size_range is not None:
            s = box_size(det_boxes[order[d]])[0]
            keep[d] = size_range[0] <= s < size_range[1]
    return tp, keep, matched & ~ign, order


def average_precision(tp, scores, n_gt: int) -> float:
    """COCO's 101-point interpolated AP; NaN when there is no ground truth."""
    if n_gt == 0:
        return float("nan")
    tp = np.asarray(tp, bool)
    if tp.size == 0:
        return 0.0
    order = np.argsort(-np.asarray(scores, float), kind="stable")
    tp = tp[order]
    ctp, cfp = np.cumsum(tp), np.cumsum(~tp)
    recall = ctp / n_gt
    precision = ctp / np.maximum(ctp + cfp, 1e-12)
    precision = np.maximum.accumulate(precision[::-1])[::-1]      # monotone envelope
    rs = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, rs, side="left")
    return float(np.mean([precision[i] if i < len(precision) else 0.0 for i in idx]))


def evaluate(images: list[dict], classes, size_range=(0.0, np.inf), score_thr: float = 0.25) -> dict:
    """AP per class and IoU threshold over ``images``: each ``{gt_boxes (N, 4), gt_cls (N,),
    det_boxes (M, 4), det_cls (M,), det_scores (M,)}``. Ground truth whose size
    (:func:`box_size`) lies outside ``size_range`` is ignored. Returns ``{map50, map50_95,
    ap50: {class: AP}, ap50_95: {class: AP}, n_gt: {class: n}, recall50: {class: recall of
    detections scoring >= score_thr at IoU 0.5}}``."""
    out = {"ap50": {}, "ap50_95": {}, "n_gt": {}, "recall50": {}}
    for c, name in enumerate(classes):
        aps, n_gt = [], 0
        for t in IOU_THRESHOLDS:
            tps, scs, n_gt, hit = [], [], 0, 0
            for im in images:
                gsel = np.asarray(im["gt_cls"]) == c
                dsel = np.asarray(im["det_cls"]) == c
                gb = np.asarray(im["gt_boxes"], float).reshape(-1, 4)[gsel]
                sz = box_size(gb)
                ign = (sz < size_range[0]) | (sz >= size_range[1])
                db = np.asarray(im["det_boxes"], float).reshape(-1, 4)[dsel]
                ds = np.asarray(im["det_scores"], float)[dsel]
                tp, keep, matched, order = match_image(db, ds, gb, t, ign, size_range)
                tps.append(tp[keep])
                scs.append(ds[order][keep])
                n_gt += int((~ign).sum())
                if t == 0.5:
                    tp2, _, m2, _ = match_image(db[ds >= score_thr], ds[ds >= score_thr], gb, t, ign, size_range)
                    hit += int(m2.sum())
            aps.append(average_precision(np.concatenate(tps) if tps else [], np.concatenate(scs) if scs else [], n_gt))
            if t == 0.5:
                out["recall50"][name] = hit / n_gt if n_gt else float("nan")
        out["n_gt"][name] = n_gt
        out["ap50"][name] = aps[0]
        out["ap50_95"][name] = float(np.mean(aps)) if n_gt else float("nan")
    vals50 = [v for v in out["ap50"].values() if not np.isnan(v)]
    vals = [v for v in out["ap50_95"].values() if not np.isnan(v)]
    out["map50"] = float(np.mean(vals50)) if vals50 else float("nan")
    out["map50_95"] = float(np.mean(vals)) if vals else float("nan")
    return out
