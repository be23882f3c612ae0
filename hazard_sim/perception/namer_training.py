"""Training the instance namer (:mod:`hazard_sim.perception.namer`) with torch, and its ONNX export.

``hazard perception namer-train --data runs/perception/namer --out data/perception/namer``
(torch and onnx: the ultralytics environment has both, ``.venv-yolo/bin/python -m
hazard_sim.cli perception namer-train ...``). A small convolutional classifier (four
conv-BN-ReLU-pool stages, 32-256 channels, global pooling, about 0.4 M weights) over
``crop_size`` px crops. Each epoch every training crop is cut again from its stored context
with a box scaled by 0.85-1.25 and shifted by up to 8 % (a detector's boxes are not the
simulator's), flipped left-right half the time, its colour channels permuted half the time
(the kind must not be learnt from the colour: the test houses paint their items differently)
and its brightness and contrast jittered. Held-out accuracy (top-1, top-5) on the test
houses' crops, cut with the exact box, every epoch; the best epoch is exported.

Resumable (``--resume``: ``last.pt`` in the output folder holds the model, the optimiser and
the epoch); every file is written whole (a temporary name, then a rename).
"""
from __future__ import annotations

import csv
import functools
import json
import os
import time
from pathlib import Path

import numpy as np

from hazard_sim.arg_types import SCORE, SEED, float_in, int_in
from hazard_sim.perception.namer import DEFAULT_MARGIN, DEFAULT_MIN_SCORE, crop_square
from hazard_sim.perception.namer_dataset import CONTEXT, CONTEXT_MARGIN, load_split


def _torch():
    try:
        import torch
    except ImportError as e:
        raise SystemExit(f"namer-train needs torch ({e}): run it with the ultralytics environment, "
                         f".venv-yolo/bin/python -m hazard_sim.cli perception namer-train ... (make setup-yolo)")
    return torch


def build_model(nc: int):
    torch = _torch()
    nn = torch.nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                nn.Conv2d(o, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                nn.MaxPool2d(2)]
    return nn.Sequential(*block(3, 32), *block(32, 64), *block(64, 128), *block(128, 256),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(256, nc))


def cut(d: dict, idx, size: int, rng: np.random.Generator | None) -> np.ndarray:
    """Crops ``(n, size, size, 3)`` cut from stored contexts: exact boxes when ``rng`` is None,
    else jittered and augmented (module docstring)."""
    out = np.empty((len(idx), size, size, 3), np.uint8)
    for k, i in enumerate(idx):
        box = d["boxes"][i]
        if rng is None:
            out[k] = crop_square(d["crops"][i], box, size, DEFAULT_MARGIN)
            continue
        c = crop_square(d["crops"][i], box, size, DEFAULT_MARGIN, scale=rng.uniform(0.85, 1.25),
                        shift=tuple(rng.uniform(-0.08, 0.08, 2)))
        if rng.random() < 0.5:
            c = c[:, ::-1]
        if rng.random() < 0.5:
            c = c[..., rng.permutation(3)]
        f = c.astype(np.float32)
        mean = f.mean()
        f = (f - mean) * rng.uniform(0.75, 1.3) + mean * rng.uniform(0.7, 1.3)
        out[k] = np.clip(f, 0, 255).astype(np.uint8)
    return out


def _tensor(torch, crops: np.ndarray):
    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2))).float().div_(255.0)


def evaluate(model, d: dict, classes: list[str], size: int, batch: int = 256) -> dict:
    """Top-1 / top-5 accuracy over the crops whose kind the namer knows; and per kind."""
    torch = _torch()
    index = {c: i for i, c in enumerate(classes)}
    keep = [i for i, lab in enumerate(d["labels"]) if lab in index]
    if not keep:
        return {"n": 0, "top1": float("nan"), "top5": float("nan"), "unknown_kinds": sorted(set(d["labels"]))}
    y = np.array([index[d["labels"][i]] for i in keep])
    model.eval()
    preds = []
    with torch.no_grad():
        for s in range(0, len(keep), batch):
            x = _tensor(torch, cut(d, keep[s:s + batch], size, None))
            preds.append(model(x).numpy())
    logits = np.concatenate(preds)
    top5 = np.argsort(-logits, axis=1)[:, :5]
    ok1 = top5[:, 0] == y
    per = {}
    for c in sorted(set(y.tolist())):
        sel = y == c
        per[classes[c]] = [int(ok1[sel].sum()), int(sel.sum())]
    return {"n": len(keep), "top1": float(ok1.mean()), "top5": float((top5 == y[:, None]).any(1).mean()),
            "per_kind": per, "unknown_kinds": sorted({lab for lab in d["labels"] if lab not in index}),
            "unknown_crops": len(d["labels"]) - len(keep)}


def _atomic(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".part")
    write(tmp)
    tmp.replace(path)


def export_onnx(model, nc: int, size: int, path: Path) -> None:
    torch = _torch()
    model.eval()
    _atomic(path, lambda tmp: torch.onnx.export(
        model, torch.zeros(1, 3, size, size), str(tmp), input_names=["images"], output_names=["logits"],
        dynamic_axes={"images": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False))


def renames_of(data) -> list[str]:
    """The detector classes a namer trained on the crops at ``data`` renames: the crop set's
    own (``summary.json``, written by ``namer-dataset``), else ``object``."""
    p = Path(data) / "summary.json"
    try:
        given = json.loads(p.read_text()).get("renames") if p.is_file() else None
    except json.JSONDecodeError:
        given = None
    return [str(c) for c in given] if isinstance(given, list) and given else ["object"]


def train(data, out, *, epochs: int = 20, batch: int = 64, size: int = 48, lr: float = 2e-3, seed: int = 0,
          resume: bool = False, threads: int | None = None, renames=None, goal_min_score: float | None = None,
          log=None) -> dict:
    """Train (or resume) and export the best epoch; returns the description written to namer.json.
    ``renames``: the detector classes the namer names again (default: the crop set's);
    ``goal_min_score``: written to namer.json when given (the namer's default otherwise)."""
    torch = _torch()
    log = log or functools.partial(print, flush=True)
    torch.set_num_threads(int(threads or os.cpu_count() or 1))
    data, out = Path(data), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tr = load_split(data / "train.npz")
    va = load_split(data / "val.npz")
    classes = sorted(set(tr["labels"]))
    index = {c: i for i, c in enumerate(classes)}
    y = torch.tensor([index[lab] for lab in tr["labels"]])
    torch.manual_seed(seed)
    model = build_model(len(classes))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * ((len(y) + batch - 1) // batch))
    start, best, history = 0, -1.0, []
    last = out / "last.pt"
    if resume and last.exists():
        ck = torch.load(last, map_location="cpu", weights_only=False)
        if ck["classes"] != classes or ck["epochs"] != epochs:
            raise SystemExit(f"{last}: made for other classes or another epoch count; start again without --resume")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best, history = ck["epoch"], ck["best"], ck["history"]
        log(f"[namer-train] resumed after epoch {start} (best top-1 {best:.3f})")
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    for ep in range(start, epochs):
        rng = np.random.default_rng([seed, ep])
        order = rng.permutation(len(y))
        model.train()
        t0, tot = time.perf_counter(), 0.0
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            x = _tensor(torch, cut(tr, idx, size, rng))
            loss = lossf(model(x), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
        ev = evaluate(model, va, classes, size)
        row = {"epoch": ep + 1, "train_loss": round(tot / len(y), 4), "val_top1": round(ev["top1"], 4),
               "val_top5": round(ev["top5"], 4), "seconds": round(time.perf_counter() - t0, 1)}
        history.append(row)
        log(f"[namer-train] epoch {ep + 1}/{epochs}: loss {row['train_loss']}, held-out top-1 {row['val_top1']}, "
            f"top-5 {row['val_top5']} ({row['seconds']} s)")
        if ev["top1"] > best:
            best = ev["top1"]
            _atomic(out / "best.pt", lambda tmp: torch.save({"model": model.state_dict(), "classes": classes,
                                                              "epoch": ep + 1, "eval": ev}, tmp))
        _atomic(last, lambda tmp: torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                                              "sched": sched.state_dict(), "epoch": ep + 1, "epochs": epochs,
                                              "best": best, "history": history, "classes": classes}, tmp))
        _atomic(out / "history.csv", lambda tmp: _write_csv(tmp, history))
    ck = torch.load(out / "best.pt", map_location="cpu", weights_only=False)
    model.load_state_dict(ck["model"])
    export_onnx(model, len(classes), size, out / "namer.onnx")
    desc = {"classes": classes, "crop_size": size, "margin": DEFAULT_MARGIN,
            "renames": list(renames) if renames else renames_of(data),
            "min_score": DEFAULT_MIN_SCORE, "best_epoch": ck["epoch"], "epochs": epochs,
            "train_crops": len(y), "train_houses": len(set(tr["house"])),
            "heldout": {k: v for k, v in ck["eval"].items() if k != "per_kind"},
            "heldout_per_kind": ck["eval"]["per_kind"],
            "context": {"size": CONTEXT, "margin": CONTEXT_MARGIN}}
    if goal_min_score is not None:
        desc["goal_min_score"] = float(goal_min_score)
    _atomic(out / "namer.json", lambda tmp: tmp.write_text(json.dumps(desc, indent=1)))
    try:
        plot_history(out / "history.csv", out / "namer_curve.png")
    except ImportError:
        log("[namer-train] no matplotlib: namer_curve.png not drawn")
    log(f"[namer-train] {out / 'namer.onnx'}: {len(classes)} kinds, best epoch {ck['epoch']}, held-out top-1 "
        f"{ck['eval']['top1']:.3f} on {ck['eval']['n']} crops ({ck['eval']['unknown_crops']} crops of "
        f"{len(ck['eval']['unknown_kinds'])} kinds it never saw)")
    return desc


def plot_history(history_csv, png) -> Path:
    """The training curve: loss and held-out top-1 / top-5 per epoch."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(history_csv) as f:
        rows = list(csv.DictReader(f))
    ep = [int(r["epoch"]) for r in rows]
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4))
    ax[0].plot(ep, [float(r["train_loss"]) for r in rows], "o-")
    ax[0].set(xlabel="epoch", ylabel="training loss (label smoothing 0.1)", title="loss")
    ax[1].plot(ep, [float(r["val_top1"]) for r in rows], "o-", label="top-1")
    ax[1].plot(ep, [float(r["val_top5"]) for r in rows], "s--", label="top-5")
    ax[1].set(xlabel="epoch", ylabel="accuracy", ylim=(0, 1), title="held-out crops (test scenes)")
    ax[1].legend()
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    png = Path(png)
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def add_args(p) -> None:
    p.add_argument("--data", default="runs/perception/namer", help="folder with train.npz and val.npz")
    p.add_argument("--out", default="data/perception/namer", help="where namer.onnx, namer.json, best.pt go")
    p.add_argument("--epochs", type=int_in(1, 100_000), default=20)
    p.add_argument("--batch", type=int_in(1, 4096), default=64)
    p.add_argument("--size", type=int_in(8, 1024), default=48, help="crop size (px)")
    p.add_argument("--lr", type=float_in(0.0, 10.0, open_ends=True), default=2e-3)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--threads", type=int_in(1, 1024), default=None, help="torch threads (default: every core)")
    p.add_argument("--resume", action="store_true", help="continue from OUT/last.pt")
    p.add_argument("--goal-min-score", type=SCORE, default=None, metavar="P",
                   help="the probability from which a kind the task looks for is named when no kind is sure "
                        "(namer.json goal_min_score; default: the namer's, 0.2). Give the namer's min_score (0.5) "
                        "where every kind is looked for and a wrong name costs")
    p.add_argument("--renames", default=None, metavar="CLASSES",
                   help="comma-separated detector classes the namer names again (default: the crop set's, "
                        "from DATA/summary.json; else object)")


def run(a) -> int:
    train(a.data, a.out, epochs=a.epochs, batch=a.batch, size=a.size, lr=a.lr, seed=a.seed, resume=a.resume,
          threads=a.threads, renames=[c for c in a.renames.split(",") if c] if a.renames else None,
          goal_min_score=a.goal_min_score)
    return 0
