"""``hazard perception namer-eval``: the detector and the namer together, on held-out frames (ROS-free).

On the detection dataset's held-out frames of one benchmark (``--benchmark``, a prefix of the
frames' benchmark ids), every ground-truth object of a class the namer renames (``object``):

* **detected**: a detection of that class (score >= ``score``) matches it (IoU >= 0.5, greedy
  by falling score, as the mAP matching);
* **named**: the namer, on that detection's box, gives the object's kind with at least its
  ``min_score`` (an agent then recognises it); **named wrong**: it gives another kind with at
  least ``min_score`` (an agent is misled);
* **named from the true box**: the namer on the object's own box (the namer alone).

Reported overall and per object size (the square root of the box area, px); counts of
objects, so that every rate has its sample size.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from hazard_sim.arg_types import COUNT_LIMIT, SCORE
from hazard_sim.perception.metrics import box_iou, box_size

SIZE_BINS = (0, 8, 16, 32, 64, np.inf)


def _match(det_boxes, det_scores, gt_boxes, iou_thr: float = 0.5) -> np.ndarray:
    """For each ground-truth box, the index of the detection matched to it, or -1."""
    out = np.full(len(gt_boxes), -1)
    if not len(gt_boxes) or not len(det_boxes):
        return out
    iou = box_iou(det_boxes, gt_boxes)
    for d in np.argsort(-np.asarray(det_scores, float), kind="stable"):
        free = out < 0
        if not free.any():
            break
        cand = np.where(free, iou[d], -1.0)
        g = int(np.argmax(cand))
        if cand[g] >= iou_thr:
            out[g] = d
    return out


def evaluate(root, detector, namer_path, benchmark: str, score: float = 0.25, limit: int | None = None,
             log=print, split: str = "val", min_score: float | None = None) -> dict:
    from PIL import Image

    from hazard_sim.perception.evaluation import _benchmark_of, load_heldout, onnx_predictor
    from hazard_sim.perception.namer import Namer
    root = Path(root)
    frames, objs = load_heldout(root, split)
    frames = [f for f in frames if _benchmark_of(f).startswith(benchmark)]
    if not frames:
        raise ValueError(f"no held-out frames of {benchmark!r} in {root}")
    frames = frames[:limit] if limit else frames
    predict = onnx_predictor(detector, conf=score)
    namer = Namer(namer_path, min_score=min_score)
    rows = []
    for n, f in enumerate(frames):
        rgb = np.asarray(Image.open(root / f).convert("RGB"))
        gt = [o for o in objs.get(f, []) if o["cls"] in namer.renames]
        if not gt:
            continue
        boxes, names, scores = predict(rgb)
        sel = [k for k, nm in enumerate(names) if nm in namer.renames]
        det_boxes, det_scores = np.asarray(boxes, float).reshape(-1, 4)[sel], np.asarray(scores, float)[sel]
        gt_boxes = np.array([o["box"] for o in gt], float)
        m = _match(det_boxes, det_scores, gt_boxes)
        on_det = namer.name(rgb, [tuple(det_boxes[d]) for d in m if d >= 0])
        on_gt = namer.name(rgb, [tuple(b) for b in gt_boxes])
        it = iter(on_det)
        for o, d, (gk, gp), size in zip(gt, m, on_gt, box_size(gt_boxes)):
            kind, p = next(it) if d >= 0 else (None, 0.0)
            sure = p >= namer.min_score
            rows.append({"label": o["label"], "size": float(size), "detected": bool(d >= 0),
                         "named": bool(d >= 0 and sure and kind == o["label"]),
                         "named_wrong": bool(d >= 0 and sure and kind != o["label"]),
                         "gt_box_named": bool(gp >= namer.min_score and gk == o["label"]),
                         "known_kind": o["label"] in namer.classes})
        if (n + 1) % 100 == 0:
            log(f"[namer-eval] {n + 1}/{len(frames)} frames")
    return {**summarise(rows, benchmark, len(frames)), "split": split, "min_score": namer.min_score}


def summarise(rows: list[dict], benchmark: str, frames: int) -> dict:
    def part(rs):
        n = len(rs)
        det = sum(r["detected"] for r in rs)
        return {"objects": n, "detected": det, "named": sum(r["named"] for r in rs),
                "named_wrong": sum(r["named_wrong"] for r in rs),
                "gt_box_named": sum(r["gt_box_named"] for r in rs),
                "known_kind": sum(r["known_kind"] for r in rs)}
    bins = []
    for lo, hi in zip(SIZE_BINS[:-1], SIZE_BINS[1:]):
        bins.append({"size": [lo, None if hi == np.inf else hi],
                     **part([r for r in rows if lo <= r["size"] < hi])})
    return {"benchmark": benchmark, "frames": frames, "all": part(rows), "by_size": bins}


def markdown(rep: dict) -> str:
    def pct(a, b):
        return f"{100 * a / b:.1f} % ({a}/{b})" if b else "-"
    lines = [f"Frames ({rep.get('split', 'val')}) of `{rep['benchmark']}`: {rep['frames']}; namer threshold "
             f"{rep.get('min_score', '-')}; objects the namer names: "
             f"{rep['all']['objects']} ({rep['all']['known_kind']} of kinds it was trained on).", "",
             "| size (px) | objects | detected | detected and named right | named wrong "
             "| named right from the true box |",
             "| --- | --- | --- | --- | --- | --- |"]
    for b in [*rep["by_size"], {"size": ["all", None], **rep["all"]}]:
        lo, hi = b["size"]
        label = "all" if lo == "all" else (f"{lo}+" if hi is None else f"{lo}-{hi}")
        n = b["objects"]
        lines.append(f"| {label} | {n} | {pct(b['detected'], n)} | {pct(b['named'], n)} | "
                     f"{pct(b['named_wrong'], n)} | {pct(b['gt_box_named'], n)} |")
    return "\n".join(lines) + "\n"


def add_args(p) -> None:
    p.add_argument("--data", default="runs/perception/dataset", help="the detection dataset (held-out frames)")
    p.add_argument("--benchmark", required=True, help="frames of this benchmark id (or prefix)")
    p.add_argument("--weights", default="data/perception/detector.onnx", help="the ONNX detector")
    p.add_argument("--namer", default="data/perception/namer/namer.onnx")
    p.add_argument("--score", type=SCORE, default=0.25, help="minimum detection score")
    p.add_argument("--limit", type=COUNT_LIMIT, default=None, help="only the first N frames")
    p.add_argument("--split", default="val", help="val (held-out frames) or train")
    p.add_argument("--min-score", type=SCORE, default=None, help="the namer's threshold (default: its own)")
    p.add_argument("--out", help="report path (writes .json and .md)")


def run(a) -> int:
    try:
        rep = evaluate(a.data, a.weights, a.namer, a.benchmark, a.score, a.limit, split=a.split,
                       min_score=a.min_score)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    text = markdown(rep)
    print(text, end="")
    if a.out:
        out = Path(a.out)
        out.with_suffix(".json").write_text(json.dumps(rep, indent=1))
        out.with_suffix(".md").write_text(text)
    return 0
