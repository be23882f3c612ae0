"""``hazard perception eval``: a detector on the held-out frames of ``hazard perception dataset``.

Reports mAP50 and mAP50-95 (:mod:`.metrics`, COCO's definitions) over all objects and over
objects of at least ``--min-size`` pixels (square root of the box area; default 32), AP per
class, per benchmark, and recall (IoU 0.5, score >= 0.25) against object size in pixels and
per condition (under water, behind flames, night, fog) from the dataset's ``objects_val.jsonl``.

Backends (:func:`predictor`): ``groundtruth`` (the simulator's segmentation, as the dataset
stored it: scores 1.0 for every object of at least ``min_pixels``), ``onnx`` (an ultralytics
ONNX export run with onnxruntime, :func:`onnx_predictor`) and ``yolo`` (an ultralytics ``.pt``,
in the ultralytics environment). Each predictor maps an RGB frame (and its ground truth, which
only ``groundtruth`` reads) to ``(boxes (N, 4) x0 y0 x1 y1, class names, scores)``.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from hazard_sim.perception.metrics import box_size, evaluate, match_image

SIZE_BINS = (0, 8, 16, 32, 64, 128, np.inf)
# mask pixels, the unit of the minimum-size rule (--min-pixels): where the detector's recall lies
PIXEL_BINS = (0, 8, 16, 32, 64, 128, 256, 1024, np.inf)
CONDITIONS = ("under_water", "behind_flames", "night", "fog")


def load_heldout(root, split: str = "val") -> tuple[list[str], dict]:
    """The dataset's frames of ``split`` and their objects (``objects_<split>.jsonl``) by image."""
    root = Path(root)
    frames = sorted(str(p.relative_to(root)) for p in (root / "images" / split).glob("*.png"))
    if not frames:
        raise FileNotFoundError(f"no held-out frames under {root / 'images' / split}: "
                                f"run `hazard perception dataset --out {root}`")
    objs = defaultdict(list)
    side = root / f"objects_{split}.jsonl"
    if side.exists():
        for line in side.read_text().splitlines():
            if line.strip():
                o = json.loads(line)
                objs[o["image"]].append(o)
    return frames, objs


def groundtruth_predictor(min_pixels: int = 0):
    """The oracle: every stored object with at least ``min_pixels`` pixels, score 1."""
    def predict(rgb, gt):
        keep = [o for o in gt if o["pixels"] >= min_pixels]
        return (np.array([o["box"] for o in keep], float).reshape(-1, 4), [o["cls"] for o in keep],
                np.ones(len(keep)))
    return predict


def _nms(boxes, scores, classes, iou_thr: float) -> np.ndarray:
    """Greedy per-class NMS (OpenCV's), indices by falling score."""
    import cv2
    if len(boxes) == 0:
        return np.zeros(0, int)
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]]).tolist()
    keep = cv2.dnn.NMSBoxesBatched(xywh, scores.tolist(), classes.tolist(), 0.0, iou_thr)
    keep = np.asarray(keep, int).reshape(-1)
    return keep[np.argsort(-scores[keep], kind="stable")]


def onnx_predictor(model_path, conf: float = 0.001, iou: float = 0.7, max_det: int = 300):
    """An ultralytics detection export (output ``(1, 4 + nc, anchors)``: centre boxes, class
    scores) run with onnxruntime; class names from the model's metadata. Frames are resized
    with letterboxing to the model's input size; boxes come back in frame pixels. (The
    perception package's ``onnx`` backend does the same for the agents.)"""
    import ast

    import cv2
    import onnxruntime as ort
    if not Path(model_path).exists():
        raise FileNotFoundError(f"no ONNX model {model_path}")
    from hazard_sim.perception.errors import WeightsMismatchError
    try:
        sess = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own (protobuf) errors for a bad file
        raise WeightsMismatchError(f"onnxruntime cannot load {model_path} ({type(exc).__name__}: {str(exc)[:200]}); "
                                   "give an ONNX file exported by ultralytics (is it truncated?)") from None
    meta = sess.get_modelmeta().custom_metadata_map
    names = ast.literal_eval(meta["names"]) if "names" in meta else {}
    inp = sess.get_inputs()[0]
    size = int(inp.shape[2]) if isinstance(inp.shape[2], int) else 320

    def predict(rgb, gt=None):
        h, w = rgb.shape[:2]
        r = min(size / h, size / w)
        nh, nw = round(h * r), round(w * r)
        top, left = (size - nh) // 2, (size - nw) // 2
        canvas = np.full((size, size, 3), 114, np.uint8)
        canvas[top:top + nh, left:left + nw] = cv2.resize(rgb[..., :3], (nw, nh), interpolation=cv2.INTER_LINEAR)
        x = canvas.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        out = sess.run(None, {inp.name: x})[0][0]          # (4 + nc, anchors)
        cls_scores = out[4:]
        cls = cls_scores.argmax(0)
        score = cls_scores[cls, np.arange(cls_scores.shape[1])]
        sel = score >= conf
        c = out[:4, sel].T
        boxes = np.stack([c[:, 0] - c[:, 2] / 2, c[:, 1] - c[:, 3] / 2, c[:, 0] + c[:, 2] / 2,
                          c[:, 1] + c[:, 3] / 2], 1)
        boxes = (boxes - [left, top, left, top]) / r
        boxes = np.clip(boxes, 0, [w, h, w, h])
        score, cls = score[sel], cls[sel]
        keep = _nms(boxes, score, cls, iou)[:max_det]
        return boxes[keep], [names.get(int(cls[i]), str(int(cls[i]))) for i in keep], score[keep]
    predict.names = [str(v) for v in names.values()]          # the model's class set (checked against the data)
    return predict


def yolo_predictor(weights, conf: float = 0.001, iou: float = 0.7):
    """An ultralytics ``.pt`` (needs the ultralytics environment)."""
    from hazard_sim.perception.training import offline_ultralytics
    offline_ultralytics("eval")
    from ultralytics import YOLO
    m = YOLO(str(weights))

    def predict(rgb, gt=None):
        r = m.predict(rgb[..., ::-1].copy(), conf=conf, iou=iou, verbose=False)[0]
        b = r.boxes
        return (b.xyxy.cpu().numpy(), [r.names[int(k)] for k in b.cls.cpu().numpy()], b.conf.cpu().numpy())
    predict.names = [str(v) for v in dict(m.names).values()]
    return predict


def check_class_sets(model_names, classes, weights) -> list[str]:
    """The dataset's classes the model lacks (they score 0); ValueError when it has none of them
    (another benchmark's detector: its mAP would be 0.000, a number that means nothing)."""
    if not model_names:
        return []
    shared = [c for c in classes if c in set(model_names)]
    if not shared:
        raise ValueError(f"{weights} detects {', '.join(model_names)}, none of this dataset's classes "
                         f"({', '.join(classes)}): evaluate it on a dataset of its own class set "
                         "(hazard perception dataset --classes ...)")
    return [c for c in classes if c not in set(model_names)]


def predictor(backend: str, weights: str | None = None, min_pixels: int = 0):
    """The predictor of a backend name (``groundtruth`` | ``onnx`` | ``yolo``)."""
    if backend == "groundtruth":
        return groundtruth_predictor(min_pixels)
    if backend in ("onnx", "yolo") and not weights:
        raise ValueError(f"backend {backend!r} needs --weights (an .onnx / .pt file)")
    if backend == "onnx":
        return onnx_predictor(weights)
    if backend == "yolo":
        return yolo_predictor(weights)
    raise ValueError(f"unknown backend {backend!r}: expected groundtruth, onnx or yolo")


def run_predictions(root, predict, classes, split: str = "val", limit: int | None = None, log=print,
                    only=None) -> list[dict]:
    """Predictions and ground truth for every held-out frame (or those in ``only``), in
    :func:`metrics.evaluate`'s form (plus ``benchmark`` and the ground truth's records)."""
    from PIL import Image
    root = Path(root)
    frames, objs = load_heldout(root, split)
    if only is not None:
        frames = [f for f in frames if f in only]
    if limit:
        frames = frames[:limit]
    idx = {c: k for k, c in enumerate(classes)}
    images = []
    for n, f in enumerate(frames):
        rgb = np.asarray(Image.open(root / f).convert("RGB"))
        gt = objs.get(f, [])
        boxes, names, scores = predict(rgb, gt)
        known = [k for k, nm in enumerate(names) if nm in idx]
        images.append({"image": f, "benchmark": _benchmark_of(f), "gt": gt,
                       "gt_boxes": np.array([o["box"] for o in gt], float).reshape(-1, 4),
                       "gt_cls": np.array([idx[o["cls"]] for o in gt], int),
                       "det_boxes": np.asarray(boxes, float).reshape(-1, 4)[known],
                       "det_cls": np.array([idx[names[k]] for k in known], int),
                       "det_scores": np.asarray(scores, float)[known]})
        if (n + 1) % 100 == 0:
            log(f"[eval] {n + 1}/{len(frames)} frames")
    return images


def _benchmark_of(image: str) -> str:
    stem = Path(image).name
    return stem.split("_")[0].replace("-", "/")


def gt_hits(images: list[dict], score_thr: float = 0.25, iou: float = 0.5) -> list[tuple[dict, bool]]:
    """Every ground-truth object with whether a detection of its class (score >= thr) matched it."""
    out = []
    for im in images:
        hit = np.zeros(len(im["gt"]), bool)
        for c in np.unique(im["gt_cls"]):
            g = np.nonzero(im["gt_cls"] == c)[0]
            d = (im["det_cls"] == c) & (im["det_scores"] >= score_thr)
            _, _, matched, _ = match_image(im["det_boxes"][d], im["det_scores"][d], im["gt_boxes"][g], iou)
            hit[g] = matched
        out += list(zip(im["gt"], hit.tolist()))
    return out


def report(images: list[dict], classes, min_size: float = 32.0) -> dict:
    """The full report (JSON-able)."""
    def summary(ims, rng=(0.0, np.inf)):
        r = evaluate(ims, classes, size_range=rng)
        return {"map50": r["map50"], "map50_95": r["map50_95"], "ap50": r["ap50"], "ap50_95": r["ap50_95"],
                "n_gt": r["n_gt"], "recall50": r["recall50"]}
    rep = {"frames": len(images), "min_size": min_size, "all": summary(images),
           f"size>={min_size:g}": summary(images, (min_size, np.inf)), "per_benchmark": {}}
    for b in sorted({im["benchmark"] for im in images}):
        ims = [im for im in images if im["benchmark"] == b]
        rep["per_benchmark"][b] = {"frames": len(ims), "all": summary(ims),
                                   f"size>={min_size:g}": summary(ims, (min_size, np.inf))}
    hits_of = {b: gt_hits([im for im in images if im["benchmark"] == b]) for b in rep["per_benchmark"]}
    hits = [h for b in hits_of for h in hits_of[b]]            # every object, matched once
    sizes = box_size([o["box"] for o, _ in hits]) if hits else np.zeros(0)
    rep["recall_by_size"] = _recall_bins([h for _, h in hits], sizes, SIZE_BINS)
    rep["recall_by_pixels"] = recall_by_pixels(hits)
    for b, bh in hits_of.items():
        rep["per_benchmark"][b]["recall_by_pixels"] = recall_by_pixels(bh)
    rep["half_recall_pixels"] = half_recall_pixels(images)
    conds = {}
    for c in CONDITIONS:
        sel = [h for o, h in hits if o.get(c)]
        big = [h for (o, h), s in zip(hits, sizes) if o.get(c) and s >= min_size]
        conds[c] = {"n": len(sel), "recall": (sum(sel) / len(sel)) if sel else None,
                    f"n_size>={min_size:g}": len(big),
                    f"recall_size>={min_size:g}": (sum(big) / len(big)) if big else None}
    rep["recall_by_condition"] = conds
    return rep


def half_recall_pixels(images: list[dict], reps: int = 1000) -> dict:
    """The detector's half-ceiling point in mask pixels (:mod:`.min_size`) with its bootstrap interval,
    for every benchmark family (the id before its "/": what a spec's ``min_pixels`` is
    set from), every benchmark and all frames together: {name: {"pixels", "ci95", "n", ...}}."""
    from hazard_sim.perception.min_size import frames_of, half_point_ci
    per_frame = frames_of(images, gt_hits)        # each frame matched once, whatever groups it is in
    groups: dict[str, list[int]] = {"all": list(range(len(images)))}
    for k, im in enumerate(images):
        groups.setdefault(im["benchmark"].split("/")[0], []).append(k)
        if "/" in im["benchmark"]:
            groups.setdefault(im["benchmark"], []).append(k)
    return {name: half_point_ci([per_frame[k] for k in ks], reps=reps) for name, ks in sorted(groups.items())}


def recall_by_pixels(hits: list[tuple[dict, bool]]) -> dict:
    """Recall against the object's mask pixels (``pixels`` in ``objects_<split>.jsonl``), the unit
    of the minimum-size rule: {"lo-hi": {"n", "recall"}} over :data:`PIXEL_BINS`."""
    return _recall_bins([h for _, h in hits], [o["pixels"] for o, _ in hits], PIXEL_BINS)


def _recall_bins(hit, value, edges) -> dict:
    """{"lo-hi": {"n", "recall"}}: the share of ``hit`` whose ``value`` lies in each bin of ``edges``."""
    bins = {}
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = [h for h, v in zip(hit, value) if lo <= v < hi]
        bins[f"{lo:g}-{hi:g}"] = {"n": len(sel), "recall": (sum(sel) / len(sel)) if sel else None}
    return bins


def markdown(rep: dict, title: str) -> str:
    """The report as a Markdown page."""
    def f(v):
        return "n/a" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.3f}"
    def row(name, r):
        return f"| {name} | {f(r['map50'])} | {f(r['map50_95'])} | {sum(r['n_gt'].values())} |"
    key = next(k for k in rep if k.startswith("size>="))
    lines = [f"# {title}", "", f"{rep['frames']} held-out frames.", "",
             "| subset | mAP50 | mAP50-95 | objects |", "| --- | --- | --- | --- |",
             row("all sizes", rep["all"]), row(f"{key} px", rep[key])]
    for b, r in rep["per_benchmark"].items():
        lines.append(row(f"{b}, {key} px", r[key]))
    lines += ["", f"AP50 per class ({key} px / all sizes):", "", "| class | AP50 | AP50 all | AP50-95 | n |",
              "| --- | --- | --- | --- | --- |"]
    for c in rep["all"]["ap50"]:
        lines.append(f"| {c} | {f(rep[key]['ap50'][c])} | {f(rep['all']['ap50'][c])} | "
                     f"{f(rep[key]['ap50_95'][c])} | {rep[key]['n_gt'][c]} |")
    lines += ["", "Recall (IoU 0.5, score >= 0.25) against object size (square root of the box area, px):", "",
              "| size | n | recall |", "| --- | --- | --- |"]
    lines += [f"| {k} | {v['n']} | {f(v['recall'])} |" for k, v in rep["recall_by_size"].items()]
    keys = list(rep["recall_by_pixels"])
    lines += ["", "Recall against the object's mask pixels (the unit of `--min-pixels`), n in brackets:", "",
              "| benchmark | " + " | ".join(keys) + " |", "| --- |" + " --- |" * len(keys)]
    rows = [("all", rep["recall_by_pixels"])] + [(b, r["recall_by_pixels"]) for b, r in rep["per_benchmark"].items()]
    for name, bins in rows:
        lines.append(f"| {name} | " + " | ".join(f"{f(bins[k]['recall'])} ({bins[k]['n']})" for k in keys) + " |")
    half = rep.get("half_recall_pixels", {})
    lines += ["", "The half-ceiling point: the smallest mask-pixel count from which the monotone fit of recall "
              "reaches half the recall on the largest tenth of the objects (the ceiling); the benchmarks' "
              "`--min-pixels` defaults are set from it (95 % interval: bootstrap over frames):", "",
              "| benchmark | pixels | 95 % interval | ceiling | objects | frames |",
              "| --- | --- | --- | --- | --- | --- |"]
    for name, h in half.items():
        lo, hi = h["ci95"]
        pt = "never" if h["pixels"] is None else f"{h['pixels']:g}"
        ci = "n/a" if lo is None else f"{lo:g}-{hi:g}"
        lines.append(f"| {name} | {pt} | {ci} | {f(h.get('ceiling'))} | {h['n']} | {h['frames']} |")
    lines += ["", "Recall by condition:", "", "| condition | n | recall | n (large) | recall (large) |",
              "| --- | --- | --- | --- | --- |"]
    for c, v in rep["recall_by_condition"].items():
        vals = list(v.values())
        lines.append(f"| {c} | {vals[0]} | {f(vals[1])} | {vals[2]} | {f(vals[3])} |")
    return "\n".join(lines) + "\n"


def open_dataset(path) -> tuple[Path, list[str]] | None:
    """A dataset folder (or its data.yaml) -> (its folder, its class names); None, with the error
    printed, when there is no dataset there."""
    import yaml
    root = Path(path)
    root = root.parent if root.suffix in (".yaml", ".yml") else root
    if not (root / "data.yaml").exists():
        print(f"error: no dataset at {root} (data.yaml missing): run `hazard perception dataset`", file=sys.stderr)
        return None
    return root, list(yaml.safe_load((root / "data.yaml").read_text())["names"].values())


def predict_dataset(path, backend: str, weights, min_pixels: int, limit=None, frames=None):
    """Open the dataset at ``path`` and run a backend over its held-out frames -> (folder, class names,
    the per-frame predictions); ``frames(folder)`` names the frames to use (all when None). None, with
    the error printed, when the dataset or the backend's weights are missing or do not match."""
    opened = open_dataset(path)
    if opened is None:
        return None
    root, classes = opened
    try:
        pred = predictor(backend, weights, min_pixels)
        missing = check_class_sets(getattr(pred, "names", None), classes, weights)
        if missing:
            print(f"warning: {weights} has no class {', '.join(missing)} of this dataset: those score 0",
                  file=sys.stderr)
        only = frames(root) if frames is not None else None
        images = run_predictions(root, pred, classes, limit=limit, only=only)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    return root, classes, images


def run_eval(args) -> int:
    predicted = predict_dataset(args.data, args.backend, args.weights, args.min_pixels, args.limit)
    if predicted is None:
        return 2
    _, classes, images = predicted
    rep = report(images, classes, args.min_size)
    rep.update({"backend": args.backend, "weights": args.weights, "data": str(args.data)})
    key = f"size>={args.min_size:g}"
    print(f"[eval] {args.backend}: mAP50 {rep['all']['map50']:.3f} (all sizes), {rep[key]['map50']:.3f} "
          f"({key} px); mAP50-95 {rep[key]['map50_95']:.3f} ({key} px); {len(images)} frames")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".json").write_text(json.dumps(rep, indent=1, default=float))
        out.with_suffix(".md").write_text(markdown(rep, f"Held-out detection: {args.backend} {args.weights or ''}"))
        print(f"[eval] report: {out.with_suffix('.md')}")
    return 0
