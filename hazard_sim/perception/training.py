"""``hazard perception train`` and ``export``: ultralytics, fully offline.

Runs in the ultralytics environment (``scripts/setup_yolo.sh``, default ``.venv-yolo``), never
in the simulator's ``.venv``. :func:`offline_ultralytics` makes every run offline before
ultralytics is imported: ``YOLO_OFFLINE=1`` (no DNS look-ups, no hub, no downloads), the
config dir ``YOLO_CONFIG_DIR`` in the venv (where ``setup_yolo.sh`` put a DejaVu font as
``Arial.ttf``, so plots never download a font), settings ``sync=False`` (no analytics), and
torch using every core. Training starts from a model yaml (``yolov8n.yaml``: no pretrained
weights), with ``amp=False`` (the AMP check would download a model) and ``pretrained=False``;
``--resume`` continues a run from its ``weights/last.pt`` (epoch, optimiser and schedule).
Export writes ONNX (class names in the model's metadata, as ultralytics writes them).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from hazard_sim.perception.errors import DetectorUnavailableError

SETUP_HINT = ("ultralytics is not installed in this Python ({exe}); build its environment with "
              "`make setup-yolo` (scripts/setup_yolo.sh) and run `.venv-yolo/bin/python -m hazard_sim.cli "
              "perception {cmd} ...`")


class UltralyticsMissing(DetectorUnavailableError):
    """ultralytics cannot be imported here (the CLI reports it as ``hazard: error: ...``, exit 2)."""


def offline_ultralytics(cmd: str = "train"):
    """Import ultralytics with everything that reaches the network switched off; returns the
    module. Raises :class:`UltralyticsMissing` (with the command to set it up) without it."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(Path(sys.prefix) / "ultralytics-config"))
    try:
        import torch
        import ultralytics
    except ImportError as e:
        raise UltralyticsMissing(SETUP_HINT.format(exe=sys.executable, cmd=cmd)) from e
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    from ultralytics import settings
    off = {k: False for k in ("sync", "hub", "clearml", "comet", "dvc", "mlflow", "neptune", "raytune", "wandb")
           if settings.get(k, False)}
    if off:
        settings.update(off)
    font = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        _place_font(font)
    return ultralytics


def _place_font(dest: Path) -> None:
    """A DejaVu font (matplotlib's) under the names ultralytics' plots look for."""
    import shutil

    import matplotlib
    src = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    dest.parent.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        shutil.copyfile(src, dest.parent / name)


def pick_device(device: str = "auto") -> str:
    """``auto``: the first CUDA GPU where torch sees one, else ``cpu``."""
    if device != "auto":
        return device
    import torch
    return "0" if torch.cuda.is_available() else "cpu"


def train(data: str, *, model: str = "yolov8n.yaml", epochs: int = 100, imgsz: int = 320, batch: int = 16,
          device: str = "auto", project: str = "runs/perception/train", name: str = "yolov8n",
          workers: int | None = None, patience: int = 50, seed: int = 0, resume: str | None = None,
          exist_ok: bool = False, cache: bool = True) -> Path:
    """Train (or resume from ``resume``, a run's ``last.pt`` or its folder: the run's own
    arguments, epoch, optimiser and schedule); returns the run folder. ``cache`` keeps decoded
    frames in memory (about 0.3 MB per 320 px frame)."""
    offline_ultralytics("train")
    from ultralytics import YOLO
    if resume:
        last = Path(resume)
        if last.is_dir():
            last = last / "weights" / "last.pt"
        if not last.exists():
            raise FileNotFoundError(f"no checkpoint to resume at {last}")
        # a run's own folder when last.pt is in one (run/weights/last.pt), else project/name (a
        # checkpoint shipped elsewhere, e.g. data/perception/last.pt); the dataset given here
        # (rebuilt deterministically anywhere) replaces the absolute path stored in the checkpoint
        run = last.parent.parent if last.parent.name == "weights" else Path(project) / name
        kw = {"data": str(Path(data).resolve())} if data and Path(data).exists() else {}
        m = YOLO(str(last))
        m.train(resume=True, device=pick_device(device), workers=workers if workers is not None else 2,
                save_dir=str(run.resolve()), **kw)
        return run
    if not Path(data).exists():
        raise FileNotFoundError(f"no dataset file {data}: build one with `hazard perception dataset`")
    m = YOLO(model)
    # a .pt starts from its weights (fine-tuning; a changed class list keeps everything but the class
    # head), a yaml from scratch (pretrained=False: nothing to fetch)
    m.train(data=str(Path(data).resolve()), epochs=epochs, imgsz=imgsz, batch=batch, device=pick_device(device),
            project=str(Path(project).resolve()), name=name, exist_ok=exist_ok,
            pretrained=Path(model).suffix == ".pt", amp=False,
            workers=workers if workers is not None else min(2, os.cpu_count() or 1), patience=patience,
            seed=seed, deterministic=True, plots=True, verbose=True, cache="ram" if cache else False)
    return Path(m.trainer.save_dir)


def export_onnx(weights: str, *, imgsz: int = 320, out: str | None = None, opset: int | None = None) -> Path:
    """Export ``weights`` (.pt) to ONNX beside it (or to ``out``); returns the .onnx path."""
    offline_ultralytics("export")
    from ultralytics import YOLO
    if not Path(weights).exists():
        raise FileNotFoundError(f"no weights file {weights}")
    kw = {"format": "onnx", "imgsz": imgsz, "simplify": True, "dynamic": False}
    if opset:
        kw["opset"] = opset
    path = Path(YOLO(weights).export(**kw))
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        path = Path(path.replace(out))
    return path


def compact_checkpoint(src, dst) -> Path:
    """A resumable copy of a training checkpoint at about half the size: the optimiser's moment
    tensors stored as bfloat16 (torch casts optimiser state back to the parameters' float32 when
    it is loaded on resume). ``last.pt`` of YOLOv8n: 30 MB -> 18 MB."""
    import torch
    ck = torch.load(str(src), map_location="cpu", weights_only=False)
    opt = ck.get("optimizer")
    if opt:
        for st in opt["state"].values():
            for k, v in st.items():
                if k != "step" and torch.is_tensor(v) and v.is_floating_point():
                    st[k] = v.to(torch.bfloat16)
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ck, str(dst))
    return Path(dst)


def plot_curve(results_csv, out_png) -> Path:
    """Training curve from a run's ``results.csv``: losses, and held-out mAP50 / mAP50-95."""
    import csv

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(results_csv)))
    if not rows:
        raise ValueError(f"{results_csv} has no epochs yet")
    col = {k.strip(): k for k in rows[0]}
    ep = [int(float(r[col["epoch"]])) for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for k in ("train/box_loss", "train/cls_loss", "train/dfl_loss", "val/box_loss", "val/cls_loss"):
        if k in col:
            a.plot(ep, [float(r[col[k]]) for r in rows], marker=".", label=k)
    a.set_xlabel("epoch")
    a.set_title("losses")
    a.legend(fontsize=7)
    for k in ("metrics/mAP50(B)", "metrics/mAP50-95(B)", "metrics/recall(B)"):
        if k in col:
            b.plot(ep, [float(r[col[k]]) for r in rows], marker="o", label=k)
    b.set_xlabel("epoch")
    b.set_title("held-out frames (all sizes)")
    b.legend(fontsize=7)
    if "stage" in col:        # a history of several runs (history.csv): mark where each begins
        for i in range(1, len(rows)):
            if rows[i][col["stage"]] != rows[i - 1][col["stage"]]:
                for ax in (a, b):
                    ax.axvline(ep[i] - 0.5, color="grey", linestyle="--", linewidth=0.8)
                b.annotate(rows[i][col["stage"]][:40], (ep[i] - 0.5, 0.02), xycoords=("data", "axes fraction"),
                           rotation=90, fontsize=6, color="grey", va="bottom", ha="right")
    fig.tight_layout()
    fig.savefig(out_png, dpi=90)
    plt.close(fig)
    return Path(out_png)


def merge_results(old_csv: str, new_csv: str) -> str:
    """ultralytics' results.csv of a resumed run after the shipped one's: the shipped rows of the
    epochs before the new run's first, then the new run's rows (one history across sessions).
    Different columns: the new run's alone."""
    new_lines = [ln for ln in new_csv.splitlines() if ln.strip()]
    old_lines = [ln for ln in old_csv.splitlines() if ln.strip()]
    if len(new_lines) < 2 or len(old_lines) < 2 or old_lines[0] != new_lines[0]:
        return "\n".join(new_lines) + "\n"
    first = int(float(new_lines[1].split(",")[0]))
    kept = [ln for ln in old_lines[1:] if int(float(ln.split(",")[0])) < first]
    return "\n".join([new_lines[0], *kept, *new_lines[1:]]) + "\n"


def ship(run, out: str = "data/perception", imgsz: int = 320, onnx_name: str = "detector.onnx") -> dict:
    """Copy a run's detector into ``out``: ``best.pt`` (optimiser stripped), a resumable compact
    ``last.pt``, ``detector.onnx`` (from best.pt; or ``onnx_name``), ``results.csv``, ``args.yaml``,
    ``training_curve.png`` and ``data.yaml`` (class names; dataset path relative to the repo)."""
    import shutil

    import yaml
    offline_ultralytics("ship")
    from ultralytics.utils.torch_utils import strip_optimizer
    run, out = Path(run), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    w = run / "weights"
    if not (w / "last.pt").exists():
        raise FileNotFoundError(f"no checkpoint in {w}")
    best = w / "best.pt" if (w / "best.pt").exists() else w / "last.pt"
    strip_optimizer(str(best), str(out / "best.pt"))
    compact_checkpoint(w / "last.pt", out / "last.pt")
    if (run / "results.csv").exists():
        # a run resumed from the shipped last.pt starts its results.csv at the resumed epoch
        old = (out / "results.csv").read_text() if (out / "results.csv").exists() else ""
        (out / "results.csv").write_text(merge_results(old, (run / "results.csv").read_text()))
    if (run / "args.yaml").exists():
        shutil.copyfile(run / "args.yaml", out / "args.yaml")
    plot_curve(out / "results.csv", out / "training_curve.png")
    args = yaml.safe_load((run / "args.yaml").read_text())
    data = yaml.safe_load(Path(args["data"]).read_text())
    root = Path(args["data"]).resolve().parent
    try:
        root = root.relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    (out / "data.yaml").write_text(yaml.safe_dump({"path": str(root), "train": "images/train",
                                                   "val": "images/val", "names": data["names"]}, sort_keys=False))
    onnx = export_onnx(str(out / "best.pt"), imgsz=imgsz, out=str(out / onnx_name))
    return {"best": out / "best.pt", "last": out / "last.pt", "onnx": onnx}
