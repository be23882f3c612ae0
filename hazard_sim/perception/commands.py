"""``hazard perception dataset | train | export | ship | eval | failures | drop | namer-dataset |
namer-train | namer-eval`` (registered by :mod:`hazard_sim.cli`).

``dataset`` and ``eval`` (groundtruth / onnx backends) run in the simulator's ``.venv``;
``train``, ``export`` and ``eval --backend yolo`` need the ultralytics environment
(``make setup-yolo``; ``.venv-yolo/bin/python -m hazard_sim.cli perception train ...``).
docs/perception.md, "Dataset, training and evaluation".
"""
from __future__ import annotations

from hazard_sim.arg_types import COUNT_LIMIT, IMAGE_SIZE, PIXELS, SEED, int_in

# a missing ultralytics (UltralyticsMissing, a DetectorError) reaches hazard_sim.cli.main, which
# reports it in one line with exit code 2, as every other user error

def _train(a) -> int:
    from hazard_sim.perception.training import train
    run = train(a.data, model=a.model, epochs=a.epochs, imgsz=a.imgsz, batch=a.batch, device=a.device,
                project=a.project, name=a.name, workers=a.workers, patience=a.patience, seed=a.seed,
                resume=a.resume, exist_ok=a.exist_ok, cache=not a.no_cache)
    print(f"[train] run folder: {run}")
    return 0


def _export(a) -> int:
    from hazard_sim.perception.training import export_onnx
    path = export_onnx(a.weights, imgsz=a.imgsz, out=a.out, opset=a.opset)
    print(f"[export] {path}")
    return 0


def _ship(a) -> int:
    from hazard_sim.perception.training import ship
    files = ship(a.run, a.out, a.imgsz, a.onnx_name)
    print("[ship] " + ", ".join(f"{k}: {v}" for k, v in files.items()))
    return 0


def add_perception_parser(sub) -> None:
    """Add the ``perception`` command group to the CLI's sub-parsers."""
    from hazard_sim.perception.dataset_render import add_dataset_args
    from hazard_sim.perception.drop import add_drop_args
    from hazard_sim.perception.failures import add_failures_args
    from hazard_sim.perception.namer_dataset import add_args as add_namer_dataset_args
    from hazard_sim.perception.namer_eval import add_args as add_namer_eval_args
    from hazard_sim.perception.namer_training import add_args as add_namer_train_args
    p = sub.add_parser("perception", help="detector dataset, training, export and evaluation")
    ps = p.add_subparsers(dest="perception_cmd", required=True)


    t = ps.add_parser("train", help="train a YOLO detector from a model yaml (ultralytics, offline)")
    t.add_argument("--data", default="runs/perception/dataset/data.yaml")
    t.add_argument("--model", default="yolov8n.yaml", help="model yaml (no pretrained weights) or a .pt")
    t.add_argument("--epochs", type=int_in(1, 100_000), default=100)
    t.add_argument("--imgsz", type=IMAGE_SIZE, default=320)
    t.add_argument("--batch", type=int_in(1, 4096), default=16)
    t.add_argument("--device", default="auto", help="auto (a CUDA GPU if there is one, else cpu), cpu, 0, ...")
    t.add_argument("--project", default="runs/perception/train")
    t.add_argument("--name", default="yolov8n")
    t.add_argument("--workers", type=int_in(0, 256), default=None, help="data loader workers (default: min(2, cores))")
    t.add_argument("--patience", type=int_in(0, 100_000), default=50)
    t.add_argument("--seed", type=SEED, default=0)
    t.add_argument("--exist-ok", action="store_true", help="reuse the run folder")
    t.add_argument("--no-cache", action="store_true", help="decode frames from disk every epoch (less memory)")
    t.add_argument("--resume", metavar="LAST_PT", help="continue a run from its weights/last.pt (or run folder)")
    t.set_defaults(func=_train)

    e = ps.add_parser("export", help="export a trained .pt to ONNX (class names in the metadata)")
    e.add_argument("weights")
    e.add_argument("--imgsz", type=IMAGE_SIZE, default=320)
    e.add_argument("--out", help="where to put the .onnx (default: beside the weights)")
    e.add_argument("--opset", type=int_in(7, 30), default=None)
    e.set_defaults(func=_export)

    s = ps.add_parser("ship", help="copy a run's detector (best.pt, resumable last.pt, ONNX, curve) to a folder")
    s.add_argument("run", help="run folder (runs/perception/train/yolov8n)")
    s.add_argument("--out", default="data/perception")
    s.add_argument("--imgsz", type=IMAGE_SIZE, default=320)
    s.add_argument("--onnx-name", default="detector.onnx",
                   help="the ONNX file's name in --out (another detector than the shipped one: NAME.onnx, "
                        "whose results files are tagged .onnx_NAME)")
    s.set_defaults(func=_ship)

    v = ps.add_parser("eval", help="mAP, per-class AP, recall against size and condition on the held-out frames")
    v.add_argument("--data", default="runs/perception/dataset", help="dataset folder (or its data.yaml)")
    v.add_argument("--backend", default="onnx", choices=["groundtruth", "onnx", "yolo"])
    v.add_argument("--weights", help="the .onnx (onnx) or .pt (yolo) model")
    v.add_argument("--min-pixels", type=int_in(0, 10 ** 7), default=0,
                   help="groundtruth: objects smaller than this are unseen")
    v.add_argument("--min-size", type=PIXELS, default=32.0, help="size (sqrt box area, px) of the headline mAP")
    v.add_argument("--limit", type=COUNT_LIMIT, default=None, help="only the first N held-out frames")
    v.add_argument("--out", help="report path (writes .json and .md)")
    v.set_defaults(func=_handler("evaluation:run_eval"))

    # the commands whose arguments live with their module: (name, help, add_args, handler)
    for name, text, add_args, ref in (
            ("dataset", "render labelled frames (train splits) and held-out frames (test splits)", add_dataset_args,
             "dataset_render:run_dataset"),
            ("failures", "pictures of the held-out frames where the detector fails, per condition", add_failures_args,
             "failures:run_failures"),
            ("drop", "per agent: a metric on ground truth vs on perception, paired episodes, 95 %% CI", add_drop_args,
             "drop:run_drop"),
            ("namer-dataset", "crops of a benchmark's objects with their kinds (train split; test split held out) "
                              "for the instance namer", add_namer_dataset_args, "namer_dataset:run"),
            ("namer-train", "train the instance namer on those crops (torch) and export it to ONNX",
             add_namer_train_args, "namer_training:run"),
            ("namer-eval", "detector + namer on the held-out frames: objects detected, named right, named wrong, "
                           "per size", add_namer_eval_args, "namer_eval:run")):
        sp = ps.add_parser(name, help=text)
        add_args(sp)
        sp.set_defaults(func=_handler(ref))


def _handler(ref: str):
    """``module:function`` of this package, imported when the command runs (the heavy modules
    stay out of the command line's help)."""
    from hazard_sim.core.registry import lazy_ref
    return lazy_ref(f"hazard_sim.perception.{ref}")
