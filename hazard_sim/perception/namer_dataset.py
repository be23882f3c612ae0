"""The instance namer's crops (ROS-free): ``hazard perception namer-dataset``.

A benchmark whose spec has ``namer_crops`` renders crops of its objects with their kind
names (:class:`CropSet`); this module stores them: its **train** split makes ``train.npz``, its
**test** split ``val.npz`` (held out: other scenes, other colours), deterministically, each file
written whole.

Each crop is stored with context for box jitter: a square of side twice the box's larger
side around it, resized to ``CONTEXT`` px, and the box inside it (``boxes``, in that crop's
pixels), so training can cut :func:`~hazard_sim.perception.namer.crop_square` from it with a
scaled and shifted box, as a detector's boxes are.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from hazard_sim.arg_types import IMAGE_SIZE, SEED, int_in
from hazard_sim.perception.namer import crop_square

CONTEXT = 128                     # stored crop size (px); the box's larger side spans half of it
CONTEXT_MARGIN = 0.5              # crop_square margin giving a side of twice the box's


class CropSet:
    """Crops with context (module docstring), their kinds, scenes and pixel counts."""

    def __init__(self, renames=("object",)):
        self.crops, self.boxes, self.labels, self.house, self.pixels = [], [], [], [], []
        self.renames = tuple(renames)       # the detector classes a namer of these crops names again

    def __len__(self) -> int:
        return len(self.labels)

    def add(self, rgb: np.ndarray, box, label: str, scene: str, pixels: int) -> None:
        """One object of ``rgb`` in ``box`` = ``(x0, y0, x1, y1)`` (half-open pixels)."""
        x0, y0, x1, y1 = (float(v) for v in box)
        self.crops.append(crop_square(rgb, (x0, y0, x1, y1), CONTEXT, CONTEXT_MARGIN))
        s = CONTEXT / (max(x1 - x0, y1 - y0) * (1 + 2 * CONTEXT_MARGIN))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        self.boxes.append([(x0 - cx) * s + CONTEXT / 2, (y0 - cy) * s + CONTEXT / 2,
                           (x1 - cx) * s + CONTEXT / 2, (y1 - cy) * s + CONTEXT / 2])
        self.labels.append(str(label))
        self.house.append(str(scene))
        self.pixels.append(int(pixels))

    def as_dict(self) -> dict:
        return {"crops": np.stack(self.crops) if self.crops else np.zeros((0, CONTEXT, CONTEXT, 3), np.uint8),
                "boxes": np.asarray(self.boxes, np.float32).reshape(-1, 4), "labels": list(self.labels),
                "house": list(self.house), "pixels": np.asarray(self.pixels, np.int32)}


def save_split(d: dict, path: Path) -> None:
    """Write ``path`` whole (an interrupted run leaves no half file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, crops=d["crops"], boxes=d["boxes"], labels=np.asarray(d["labels"]),
                            house=np.asarray(d["house"]), pixels=d["pixels"])
    tmp.replace(path)


def load_split(path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no crops there (hazard perception namer-dataset --out {path.parent} "
                                f"makes them)")
    with np.load(path) as z:
        return {"crops": z["crops"], "boxes": z["boxes"], "labels": [str(s) for s in z["labels"]],
                "house": [str(s) for s in z["house"]], "pixels": z["pixels"]}


def crop_source(benchmark: str):
    """The spec's ``namer_crops`` of ``benchmark``; a clear error when it has none."""
    from hazard_sim.core.spec import benchmark_ids, get_spec
    spec = get_spec(benchmark)
    if spec.namer_crops is None:
        have = [b for b in benchmark_ids() if get_spec(b).namer_crops is not None]
        raise ValueError(f"benchmark {benchmark!r} renders no crops for the namer; these do: {', '.join(have)}")
    return spec.namer_crops


def build(out, benchmark: str, *, imgsz: int = 256, per_kind: int = 60, seed: int = 0, houses: int | None = None,
          splits=("train", "val"), appearances: int = 0, log=print) -> dict:
    """Render the splits that are not there yet; returns crops, kinds and scenes per split."""
    source = crop_source(benchmark)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    old = out / "summary.json"
    before = json.loads(old.read_text()) if old.is_file() else {}
    renames = before.get("renames")
    summary = {s: before[s] for s in ("train", "val") if s in before}     # the splits not rendered now stay
    for s in splits:
        path = out / f"{s}.npz"
        if not path.exists():
            extra = {"appearances": appearances} if appearances and s == "train" else {}   # held out: as they are
            if houses is not None:
                extra["houses"] = houses
            cs = source("train" if s == "train" else "test", imgsz=imgsz, per_kind=per_kind, seed=seed,
                        log=log, **extra)
            save_split(cs.as_dict(), path)
            renames = list(cs.renames)
        d = load_split(path)
        summary[s] = {"crops": len(d["labels"]), "kinds": len(set(d["labels"])), "scenes": len(set(d["house"]))}
    (out / "summary.json").write_text(json.dumps({"benchmark": benchmark, "renames": renames or ["object"],
                                                  **summary}, indent=1))
    log(f"[namer-dataset] {out}: {summary}")
    return summary


def add_args(p) -> None:
    p.add_argument("--benchmark", required=True, metavar="ID",
                   help="a benchmark whose spec renders crops for the namer (its train split: train.npz; "
                        "its test split: val.npz)")
    p.add_argument("--out", default="runs/perception/namer", help="folder for train.npz and val.npz")
    p.add_argument("--imgsz", type=IMAGE_SIZE, default=256, help="camera size the crops are cut from (px)")
    p.add_argument("--per-kind", type=int_in(1, 10 ** 6), default=60, help="about this many crops per kind")
    p.add_argument("--houses", type=int_in(1, 10 ** 4), default=None, help="only the first N scenes of each split")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--appearances", type=int_in(0, 10 ** 6), default=0, metavar="N",
                   help="train split: also N items a scene of random kinds in random looks (colours, materials, "
                        "patterns, brands), three views each (where the benchmark's crop renderer supports it)")
    p.add_argument("--splits", default="train,val", help="comma-separated: train (train split), val (test split)")


def run(args) -> int:
    from hazard_sim.perception.dataset_render import parse_splits
    splits = parse_splits(args.splits)
    if splits is None:
        return 2
    try:
        build(args.out, args.benchmark, imgsz=args.imgsz, per_kind=args.per_kind, seed=args.seed,
              houses=args.houses, splits=splits, appearances=args.appearances)
    except (KeyError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
