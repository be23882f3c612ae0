"""``hazard perception drop``: what perception costs each agent, on paired episodes.

``hazard table --perception B --out-dir DIR`` writes ``<stem>_<agent>.B.jsonl`` beside the
ground-truth run's ``<stem>_<agent>.jsonl`` (same benchmark, split, agent and episodes). For every
such pair and every per-episode metric the results carry (a rescue task's ``value_rate``; an
object-navigation task's ``success`` and ``spl``), this module gives, on the episodes both runs
hold: both means, the drop
(ground truth minus perception; positive: perception costs) with a 95 % percentile bootstrap
interval over the paired episode differences (:func:`stats.bootstrap_ci`), and the Wilcoxon
signed-rank p-value of the paired scores (:func:`stats.wilcoxon_p`).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from hazard_sim import stats

METRICS = {"value_rate": "Value", "success": "SR", "spl": "SPL"}


def load_results(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def drop(gt: list[dict], det: list[dict], metric: str) -> dict | None:
    """The paired drop of ``metric`` (ground truth minus perception); None when no episode is common."""
    pairs = [(g, d) for g, d in stats.paired(gt, det) if metric in g and metric in d]
    if not pairs:
        return None
    a = [float(g[metric]) for g, _ in pairs]
    b = [float(d[metric]) for _, d in pairs]
    diff = [x - y for x, y in zip(a, b)]
    return {"n": len(pairs), "groundtruth": sum(a) / len(a), "perception": sum(b) / len(b),
            "drop": sum(diff) / len(diff), "ci": stats.bootstrap_ci(diff), "p": stats.wilcoxon_p(a, b)}


def pairs_in(folder, backend: str) -> list[tuple[Path, Path]]:
    """(ground truth, perception) result files of ``folder``, by name."""
    folder = Path(folder)
    out = []
    for det in sorted(folder.glob(f"*.{backend}.jsonl")):
        gt = det.with_name(det.name[: -len(f".{backend}.jsonl")] + ".jsonl")
        if gt.exists():
            out.append((gt, det))
    return out


def markdown(rows: list[tuple[str, str, dict]], backend: str) -> str:
    """``rows``: (run stem, metric, :func:`drop`) as a Markdown table (metrics in %)."""
    lines = [f"| run | metric | n | groundtruth | {backend} | drop [95 % CI] | Wilcoxon p |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for stem, metric, d in rows:
        lines.append(f"| {stem} | {METRICS.get(metric, metric)} % | {d['n']} | {100 * d['groundtruth']:.1f} | "
                     f"{100 * d['perception']:.1f} | {stats.fmt_ci(d['drop'], d['ci'], 100)} | {stats.fmt_p(d['p'])} |")
    return "\n".join(lines) + "\n"


def run_drop(args) -> int:
    found = pairs_in(args.dir, args.backend)
    if not found:
        print(f"error: no <run>.{args.backend}.jsonl beside a <run>.jsonl in {args.dir}: run `hazard table` "
              f"with and without --perception {args.backend} --out-dir {args.dir}", file=sys.stderr)
        return 2
    rows = []
    for gt, det in found:
        g, d = load_results(gt), load_results(det)
        for metric in METRICS:
            r = drop(g, d, metric)
            if r is not None:
                rows.append((gt.stem, metric, r))
    text = markdown(rows, args.backend)
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


def add_drop_args(p) -> None:
    p.add_argument("--dir", default="runs/tables", help="the --out-dir of the hazard table runs")
    p.add_argument("--backend", default="onnx", help="the perception backend's file tag (<run>.<backend>.jsonl)")
    p.add_argument("--out", help="also write the Markdown table here")
