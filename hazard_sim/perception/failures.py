"""``hazard perception failures``: pictures of where a detector fails on the held-out frames.

The rescue paper's perceptional track discusses its failures on objects under water, behind
flames and far away; the dataset's ``objects_<split>.jsonl`` records for every object whether it
is ``under_water``, ``behind_flames``, seen at ``night`` or in ``fog``, and its box (its size in
pixels is the square root of the box area, :func:`metrics.box_size`). For each condition (plus
``small``: objects under ``small_px`` pixels) this module

* scores every held-out frame that holds objects of that condition (:func:`frame_cases`: which
  of those objects a detection of the right class, score >= ``score_thr``, matches at IoU 0.5,
  as ``hazard perception eval`` counts recall, :func:`evaluation.gt_hits`);
* picks the frames where the detector fails worst (:func:`pick`: lowest recall on the
  condition's objects, then most such objects, spread over benchmarks first);
* draws each as a picture (:func:`panel`): the frame with its ground-truth boxes on the left
  (the condition's objects thick, green when detected and red when missed; other objects thin),
  the detector's boxes with class and score on the right, and a caption naming the condition,
  the frame and the recall;
* writes the PNGs and an ``index.md`` with the condition's recall over all the frames scored.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from hazard_sim.arg_types import COUNT_LIMIT, PIXELS, SCORE, int_in
from hazard_sim.perception.evaluation import CONDITIONS, gt_hits, load_heldout, predict_dataset
from hazard_sim.perception.metrics import box_size

SMALL_PX = 16.0
FAILURE_CONDITIONS = CONDITIONS + ("small",)
HIT, MISS, OTHER, DET = (40, 220, 40), (230, 30, 30), (235, 235, 235), (255, 200, 0)


def has_condition(obj: dict, condition: str, small_px: float = SMALL_PX) -> bool:
    """Whether a ground-truth record shows ``condition`` (``small``: box size under ``small_px``)."""
    if condition == "small":
        return float(box_size(obj["box"])[0]) < small_px
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}: expected one of {', '.join(FAILURE_CONDITIONS)}")
    return bool(obj.get(condition))


def frame_cases(images: list[dict], condition: str, small_px: float = SMALL_PX,
                score_thr: float = 0.25) -> list[dict]:
    """Per frame holding objects of ``condition``: which objects have it (``mask``), which were
    detected (``hit``), and the counts (``n``, ``hits``, ``recall`` on the condition's objects)."""
    cases = []
    for im in images:
        mask = np.array([has_condition(o, condition, small_px) for o in im["gt"]], bool)
        if not mask.any():
            continue
        hit = np.array([h for _, h in gt_hits([im], score_thr)], bool)
        n, hits = int(mask.sum()), int((hit & mask).sum())
        group = (im["benchmark"], im["gt"][0].get("episode"))
        cases.append({"image": im["image"], "benchmark": im["benchmark"], "group": group, "condition": condition,
                      "mask": mask, "hit": hit, "n": n, "hits": hits, "recall": hits / n, "im": im})
    return cases


def pick(cases: list[dict], k: int) -> list[dict]:
    """The ``k`` worst frames: lowest recall on the condition's objects, then the most of them,
    then the frame name; one frame per benchmark first, then one per episode (``group``: benchmark
    and episode), then the next worst of any."""
    ranked = sorted(cases, key=lambda c: (c["recall"], -c["n"], c["image"]))
    chosen = []
    for key in ("benchmark", "group"):
        seen = {c[key] for c in chosen}
        for c in ranked:
            if len(chosen) < k and c[key] not in seen and c["image"] not in {x["image"] for x in chosen}:
                chosen.append(c)
                seen.add(c[key])
    for c in ranked:
        if len(chosen) < k and c["image"] not in {x["image"] for x in chosen}:
            chosen.append(c)
    return sorted(chosen, key=lambda c: (c["recall"], -c["n"], c["image"]))


def _font(size: int):
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except TypeError:                                   # Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


def _boxes(draw, boxes, colours, widths, labels, scale, font):
    for b, col, w, lab in zip(boxes, colours, widths, labels):
        x0, y0, x1, y1 = (float(v) * scale for v in b)
        draw.rectangle([x0, y0, x1, y1], outline=col, width=w)
        if lab:
            tx, ty = x0, max(0.0, y0 - font.size - 4)
            x_lo, y_lo, x_hi, y_hi = draw.textbbox((tx, ty), lab, font=font)
            draw.rectangle([x_lo - 1, y_lo - 1, x_hi + 1, y_hi + 1], fill=(0, 0, 0))
            draw.text((tx, ty), lab, fill=col, font=font)


def panel(rgb: np.ndarray, case: dict, scale: int = 2, score_thr: float = 0.25, small_px: float = SMALL_PX):
    """The picture of one case (a PIL image): ground truth left, detections right, caption on top."""
    from PIL import Image, ImageDraw
    im, mask, hit = case["im"], case["mask"], case["hit"]
    h, w = rgb.shape[:2]
    font, small = _font(8 * scale), _font(7 * scale)
    left = Image.fromarray(np.ascontiguousarray(rgb[..., :3])).resize((w * scale, h * scale), Image.NEAREST)
    right = left.copy()
    gt = im["gt"]
    order = np.argsort(mask, kind="stable")             # the condition's objects drawn last, on top
    _boxes(ImageDraw.Draw(left), [gt[i]["box"] for i in order],
           [(HIT if hit[i] else MISS) if mask[i] else OTHER for i in order],
           [max(2, scale + 1) if mask[i] else 1 for i in order],
           [gt[i]["cls"] if mask[i] else "" for i in order], scale, small)
    keep = np.nonzero(np.asarray(im["det_scores"]) >= score_thr)[0]
    names = case.get("names") or {}
    _boxes(ImageDraw.Draw(right), [im["det_boxes"][i] for i in keep], [DET] * len(keep), [max(1, scale)] * len(keep),
           [f"{names.get(int(im['det_cls'][i]), im['det_cls'][i])} {im['det_scores'][i]:.2f}" for i in keep],
           scale, small)
    cond = case["condition"] + (f" (< {small_px:g} px)" if case["condition"] == "small" else "")
    n_all, hits_all = len(hit), int(hit.sum())
    lines = [f"{cond}: {Path(case['image']).name}",
             f"recall on {case['condition']} objects {case['hits']}/{case['n']}, all objects {hits_all}/{n_all}"
             f"   (IoU 0.5, score >= {score_thr:g})",
             "left: ground truth (green detected, red missed, grey other)   right: detector boxes >= "
             f"{score_thr:g} ({len(keep)})"]
    line_h = font.size + 6
    gap = 4 * scale
    out = Image.new("RGB", (2 * w * scale + gap, h * scale + line_h * len(lines) + 6), (255, 255, 255))
    d = ImageDraw.Draw(out)
    for n, text in enumerate(lines):
        d.text((4, 3 + n * line_h), text, fill=(0, 0, 0), font=font if n < 2 else small)
    top = line_h * len(lines) + 6
    out.paste(left, (0, top))
    out.paste(right, (w * scale + gap, top))
    return out


def _fmt(v) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def write_failures(root, images: list[dict], out, names: dict, per_condition: int = 3, scale: int = 2,
                   small_px: float = SMALL_PX, score_thr: float = 0.25, title: str = "Detector failures") -> dict:
    """Pictures of the worst frames per condition and ``index.md``; returns the summary by condition."""
    from PIL import Image
    root, out = Path(root), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {}
    lines = [f"# {title}", "", f"{len(images)} held-out frames scored; recall at IoU 0.5 and score >= "
             f"{score_thr:g}, as `hazard perception eval` counts it. For each condition, the "
             f"{per_condition} frames where the detector does worst on that condition's objects (one per "
             "benchmark, then one per episode, first). Left: ground truth (the condition's objects thick, "
             "green when detected, red when missed; other objects thin grey). "
             "Right: the detector's boxes with class and score.", ""]
    for cond in FAILURE_CONDITIONS:
        cases = frame_cases(images, cond, small_px, score_thr)
        n = sum(c["n"] for c in cases)
        hits = sum(c["hits"] for c in cases)
        summary[cond] = {"frames": len(cases), "objects": n, "hits": hits, "recall": hits / n if n else None,
                         "pictures": []}
        label = cond + (f" (box under {small_px:g} px)" if cond == "small" else "")
        lines += [f"## {label}", "", f"{n} objects in {len(cases)} frames; recall {_fmt(summary[cond]['recall'])}.", ""]
        chosen = pick(cases, per_condition)
        if chosen:
            lines += ["| picture | frame | benchmark | detected / objects |", "| --- | --- | --- | --- |"]
        for c in chosen:
            c["names"] = names
            rgb = np.asarray(Image.open(root / c["image"]).convert("RGB"))
            name = f"{cond}_{Path(c['image']).stem}.png"
            panel(rgb, c, scale, score_thr, small_px).save(out / name, optimize=True)
            summary[cond]["pictures"].append(name)
            lines.append(f"| ![{cond}]({name}) | {Path(c['image']).name} | {c['benchmark']} | {c['hits']} / {c['n']} |")
        lines.append("")
    (out / "index.md").write_text("\n".join(lines))
    return summary


def condition_frames(root, split: str = "val", small_px: float = SMALL_PX) -> set[str]:
    """The held-out frames that hold an object of at least one condition (the only ones scored)."""
    _, objs = load_heldout(root, split)
    return {f for f, gt in objs.items() if any(has_condition(o, c, small_px) for o in gt for c in FAILURE_CONDITIONS)}


def run_failures(args) -> int:
    predicted = predict_dataset(args.dataset, args.backend, args.weights, args.min_pixels, args.limit,
                                frames=lambda root: condition_frames(root, small_px=args.small_px))
    if predicted is None:
        return 2
    root, classes, images = predicted
    summary = write_failures(root, images, args.out, dict(enumerate(classes)), args.per_condition, args.scale,
                             args.small_px, args.score, f"Detector failures: {args.backend} {args.weights or ''}")
    for c, s in summary.items():
        print(f"[failures] {c}: recall {_fmt(s['recall'])} on {s['objects']} objects in {s['frames']} frames; "
              f"{len(s['pictures'])} pictures")
    print(f"[failures] index: {Path(args.out) / 'index.md'}")
    return 0


def add_failures_args(p) -> None:
    p.add_argument("--dataset", default="runs/perception/dataset", help="dataset folder (or its data.yaml)")
    p.add_argument("--backend", default="onnx", choices=["groundtruth", "onnx", "yolo"])
    p.add_argument("--weights", default="data/perception/detector.onnx", help="the .onnx (onnx) or .pt (yolo) model")
    p.add_argument("--min-pixels", type=int_in(0, 10 ** 7), default=0,
                   help="groundtruth: objects smaller than this are unseen")
    p.add_argument("--out", default="runs/perception/failures", help="folder for the PNGs and index.md")
    p.add_argument("--per-condition", type=int_in(1, 1000), default=3, help="pictures per condition")
    p.add_argument("--scale", type=int_in(1, 16), default=2, help="pixel enlargement of the frames in the pictures")
    p.add_argument("--small-px", type=PIXELS, default=SMALL_PX, help="'small': box size (sqrt area) under this")
    p.add_argument("--score", type=SCORE, default=0.25, help="score threshold of a detection")
    p.add_argument("--limit", type=COUNT_LIMIT, default=None, help="only the first N frames holding a condition")
