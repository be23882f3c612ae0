"""``hazard perception drop``: what perception costs each agent, on paired episodes.

``hazard table --perception B --out-dir DIR`` writes ``<stem>_<agent>.B.jsonl`` beside the
ground-truth run's ``<stem>_<agent>.jsonl`` (same benchmark, split, agent and episodes). For every
such pair and every per-episode metric the results carry (a rescue task's ``value_rate``; an
object-navigation task's ``success`` and ``spl``; a search task's ``sr``, ``tsr``, ``cds`` and
``rs``, already given in percent), this module gives, on the episodes both runs
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

#: metric -> (name in the table, factor to percent)
METRICS = {"value_rate": ("Value", 100.0), "success": ("SR", 100.0), "spl": ("SPL", 100.0),
           "sr": ("SR", 1.0), "tsr": ("TSR", 1.0), "cds": ("CDS", 1.0), "rs": ("RS", 1.0)}


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


def _ref_tag(reference: str) -> str:
    """``--reference`` as the part of a file name before ``.jsonl`` (``px3`` -> ``.px3``; none: "")."""
    return f".{reference.strip('.')}" if reference else ""


def pairs_in(folder, backend: str, reference: str = "") -> list[tuple[Path, Path]]:
    """(ground truth, perception) result files of ``folder``, by name: ``<run>.<backend>.jsonl``
    beside ``<run>.jsonl`` (with ``reference``, beside ``<run>.<reference>.jsonl``, e.g. ``px3``:
    the ground truth seen from 3 pixels)."""
    folder = Path(folder)
    ref = _ref_tag(reference)
    out = []
    for det in sorted(folder.glob(f"*.{backend}.jsonl")):
        run = det.name[: -len(f".{backend}.jsonl")]
        if "." in run:
            continue                # another tag's file ending the same way (<run>.onnx.px3.jsonl)
        gt = det.with_name(run + ref + ".jsonl")
        if gt.exists():
            out.append((gt, det))
    return out


def groups(gt: list[dict], det: list[dict], by: str | None) -> list[tuple[str, list[dict], list[dict]]]:
    """``(group, gt, det)``: all episodes (group "all"), then, with ``by`` (a per-episode field such
    as ``tier``, ``goal_type`` or ``level``), the episodes of each of its values, in the order
    they first appear in the ground-truth run."""
    out = [("all", gt, det)]
    if by:
        values = list(dict.fromkeys(str(r[by]) for r in gt if by in r))
        out += [(v, [r for r in gt if str(r.get(by)) == v], [r for r in det if str(r.get(by)) == v]) for v in values]
    return out


def markdown(rows: list[tuple], backend: str) -> str:
    """``rows``: (run stem, metric, :func:`drop`[, group]) as a Markdown table (metrics in %)."""
    grouped = any(len(r) > 3 for r in rows)
    lines = [f"| run |{' group |' if grouped else ''} metric | n | groundtruth | {backend} | drop [95 % CI] | "
             "Wilcoxon p |", "| --- |" + (" --- |" if grouped else "") + " --- | --- | --- | --- | --- | --- |"]
    for stem, metric, d, *group in rows:
        name, f = METRICS.get(metric, (metric, 100.0))
        cell = f" {group[0]} |" if grouped else ""
        lines.append(f"| {stem} |{cell} {name} % | {d['n']} | {f * d['groundtruth']:.1f} | "
                     f"{f * d['perception']:.1f} | {stats.fmt_ci(d['drop'], d['ci'], f)} | {stats.fmt_p(d['p'])} |")
    return "\n".join(lines) + "\n"


def run_drop(args) -> int:
    ref = _ref_tag(args.reference)
    found = pairs_in(args.dir, args.backend, args.reference)
    if not found:
        print(f"error: no <run>.{args.backend}.jsonl beside a <run>{ref}.jsonl in {args.dir}: run `hazard table` "
              f"with and without --perception {args.backend} --out-dir {args.dir}", file=sys.stderr)
        return 2
    rows = []
    for gt, det in found:
        for group, g, d in groups(load_results(gt), load_results(det), args.by):
            for metric in METRICS:
                r = drop(g, d, metric)
                if r is not None:
                    rows.append((gt.stem, metric, r, group) if args.by else (gt.stem, metric, r))
    text = markdown(rows, args.backend)
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


def add_drop_args(p) -> None:
    p.add_argument("--dir", default="runs/tables", help="the --out-dir of the hazard table runs")
    p.add_argument("--backend", default="onnx", help="the perception backend's file tag (<run>.<backend>.jsonl)")
    p.add_argument("--reference", default="", metavar="TAG",
                   help="pair with <run>.<TAG>.jsonl instead of <run>.jsonl (e.g. px3: the ground truth "
                        "seen from 3 pixels)")
    p.add_argument("--out", help="also write the Markdown table here")
    p.add_argument("--by", metavar="FIELD",
                   help="also per value of a per-episode field, e.g. tier, goal_type or level")
