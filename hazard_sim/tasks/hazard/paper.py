"""HAZARD's published numbers (Table 1, ground-truth segmentation) and our table layout,
with 95 % intervals (bootstrap over episodes) and paired tests of the paper's orderings."""
from __future__ import annotations

from hazard_sim import stats

PAPER = {  # value %, step, damage %; "llm" is the paper's GPT-4 row
    "hazard/fire": {"random": (43.8, 279.1, 37.3), "ppo": (46.1, 277.3, 33.6), "rule": (53.1, 236.1, 32.3),
                    "greedy": (35.4, 315.8, 25.9), "mcts": (75.9, 150.1, 19.7), "llm": (77.8, 159.9, 15.9)},
    "hazard/flood": {"random": (28.1, 286.6, 80.0), "ppo": (35.0, 252.5, 71.7), "rule": (27.3, 325.3, 82.2),
                     "greedy": (18.5, 289.9, 80.3), "mcts": (43.7, 146.6, 69.9), "llm": (45.7, 142.9, 64.9)},
    "hazard/wind": {"random": (7.1, 1131.8, None), "ppo": (12.4, 889.5, None), "rule": (0.0, None, None),
                    "greedy": (0.2, 444.0, None), "mcts": (18.0, None, None), "llm": (31.1, 590.1, None)},
}
for _rows in PAPER.values():      # the paper's greedy is the public code's (greedy_public, farthest first)
    _rows["greedy_public"] = _rows["greedy"]
    _rows["random_public"] = _rows["random"]      # and its random the public rand.py (privileged)


def _fmt(v, nd=1):
    return "-" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def table_rows(benchmark: str, rows: list[dict]) -> str:
    """The paper's table (Value % / Step / Damage %, as the public code scores them) of our
    rows, the paper's numbers beside; ``MeanF`` is the mean rescue frame (not in the paper)."""
    head = (f"{'agent':<13} {'Value':>7} {'Step':>8} {'Damage':>7} {'MeanF':>7} | paper {'Value':>6} {'Step':>7} "
            f"{'Damage':>6}  (n)")
    lines = [f"HAZARD {benchmark.split('/')[-1]} ({rows[0]['split']} split)", head, "-" * len(head)]
    for r in rows:
        p = PAPER.get(benchmark, {}).get(r["agent"], (None, None, None))
        lines.append(f"{r['agent']:<13} {_fmt(r['value']):>7} {_fmt(r['step']):>8} {_fmt(r['damage']):>7} "
                     f"{_fmt(r.get('mean_rescue_frame')):>7} | "
                     f"      {_fmt(p[0]):>6} {_fmt(p[1]):>7} {_fmt(p[2]):>6}  ({r['episodes']})")
    return "\n".join(lines + statistics(benchmark, rows))


def _last(e: dict) -> float:
    if "last_rescue_frame" in e:
        return e["last_rescue_frame"]
    return max((r["frame"] for r in e.get("rescued") or []), default=0)


def _ratio(num, den) -> float:
    """A ratio of sums over resampled episodes (NaN when a resample has no rescue)."""
    return num.sum() / den.sum() if den.sum() > 0 else float("nan")


def _cells(rs: list[dict]) -> str:
    """Value, Step and Damage of ``rs`` with 95 % bootstrap intervals over episodes (Step and
    Damage are ratios of sums over episodes, resampled as pairs)."""
    n = len(rs)
    vr = [e["value_rate"] for e in rs]
    value = stats.fmt_ci(sum(vr) / n, stats.bootstrap_ci(vr), 100)
    last, res, dam = [_last(e) for e in rs], [e["rescued_count"] for e in rs], [e["damaged_count"] for e in rs]
    if sum(res) == 0:
        return f"Value {value}  Step -  Damage -"
    step = stats.fmt_ci(sum(last) / sum(res), stats.bootstrap_ci((last, res), _ratio))
    damage = stats.fmt_ci(sum(dam) / sum(res), stats.bootstrap_ci((dam, res), _ratio), 100)
    return f"Value {value}  Step {step}  Damage {damage}"


def statistics(benchmark: str, rows: list[dict]) -> list[str]:
    """95 % intervals per agent, and the paper's Value orderings tested on paired episodes
    (Wilcoxon signed-rank on the episodes' value rates)."""
    if not any(r.get("results") for r in rows):
        return []
    out = ["", "95 % intervals (percentile bootstrap over episodes, 2000 resamples):"]
    for r in rows:
        rs = r.get("results") or []
        if rs:
            out.append(f"  {r['agent']:<13} n={len(rs):<4} {_cells(rs)}")
    by_agent = {r["agent"]: r.get("results") or [] for r in rows}
    paper = {a: (PAPER.get(benchmark, {}).get(a) or (None,))[0] for a in by_agent}
    comps = [stats.compare(a, b, by_agent[a], by_agent[b], "Value", lambda e: e["value_rate"], paper_sign=sign)
             for a, b, sign in stats.paper_orderings(paper, list(by_agent))]
    if comps:
        out.append("the paper's orderings (Value; Wilcoxon signed-rank on paired episodes):")
        out += stats.comparison_lines(comps, scale=100)
    return out
