"""Print the papers' tables from the per-episode results in results/ (nothing is run).

    .venv/bin/python benchmarks/paper_tables.py                 # every benchmark, ground truth
    .venv/bin/python benchmarks/paper_tables.py --only hazard --tag .onnx

For each benchmark it reads the sweep files of ``results/`` (HAZARD ``hazard_table/<task>_test_<agent>
<tag>.jsonl``, DOZE ``doze_table_ii/level<N>_<agent><tag>.jsonl``, ESAR ``esar_table/esar_test_<agent>
<tag>.jsonl``), keeps the lines of the current dataset (their stored configuration's fingerprint, one
line an episode) and prints the benchmark's own table: our numbers with 95 % intervals next to the
paper's, and the paper's orderings tested on paired episodes. A file with lines of another dataset
version only is listed as stale.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: (benchmark id, results folder, file name pattern with {agent}; the split the files hold)
SOURCES = [
    ("hazard/fire", "hazard_table", r"fire_test_(?P<agent>[a-z_]+){tag}\.jsonl", "test"),
    ("hazard/flood", "hazard_table", r"flood_test_(?P<agent>[a-z_]+){tag}\.jsonl", "test"),
    ("hazard/wind", "hazard_table", r"wind_test_(?P<agent>[a-z_]+){tag}\.jsonl", "test"),
    ("doze/level1", "doze_table_ii", r"level1_(?P<agent>[a-z_0-9]+){tag}\.jsonl", "test"),
    ("doze/level2", "doze_table_ii", r"level2_(?P<agent>[a-z_0-9]+){tag}\.jsonl", "test"),
    ("doze/level3", "doze_table_ii", r"level3_(?P<agent>[a-z_0-9]+){tag}\.jsonl", "test"),
    ("esar", "esar_table", r"esar_test_(?P<agent>[a-z_]+){tag}\.jsonl", "test"),
]


def current(spec, split: str, lines: list[dict]) -> list[dict]:
    """The lines of the current dataset, one per episode (the first of each)."""
    fp = spec.dataset.fingerprint(split, None) if spec.dataset.fingerprint else None
    seen, out = set(), []
    for d in lines:
        cfg = d.get("config") or {}
        e = d.get("episode")
        if cfg.get("dataset") != fp or e in seen or not isinstance(e, int):
            continue
        seen.add(e)
        out.append(d)
    return sorted(out, key=lambda d: d["episode"])


def table(benchmark: str, folder: Path, pattern: str, split: str, tag: str) -> str | None:
    from hazard_sim.core.spec import get_spec
    from hazard_sim.sweep_io import read_sweep
    spec = get_spec(benchmark)
    rx = re.compile(pattern.format(tag=re.escape(tag)) + "$")
    rows, stale = [], []
    for path in sorted(folder.glob("*.jsonl")):
        m = rx.fullmatch(path.name)
        if not m:
            continue
        lines, _ = read_sweep(path)
        kept = current(spec, split, lines)
        if not kept:
            stale.append(path.name)
            continue
        rows.append({"benchmark": spec.id, "split": split, "agent": m.group("agent"), **spec.aggregate(kept),
                     "results": kept})
    if not rows:
        return None
    text = spec.table(spec.id, rows) if spec.table else "\n".join(str(r) for r in rows)
    if stale:
        text += "\n(stale, another dataset version: " + ", ".join(stale) + ")"
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "results"), help="the results folder")
    ap.add_argument("--only", choices=("hazard", "doze", "esar"), help="one benchmark family")
    ap.add_argument("--tag", default="", help="a perception track's file tag, e.g. .onnx (default: ground truth)")
    a = ap.parse_args(argv)
    printed = 0
    for benchmark, sub, pattern, split in SOURCES:
        if a.only and not benchmark.startswith(a.only):
            continue
        text = table(benchmark, Path(a.results) / sub, pattern, split, a.tag)
        if text:
            print(text + "\n", flush=True)
            printed += 1
    if not printed:
        print(f"no results under {a.results} for these benchmarks", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
