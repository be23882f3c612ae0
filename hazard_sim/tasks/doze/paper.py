"""DOZE's result tables, in the paper's layouts, ours beside the paper's numbers (percent).

* Table II: SR / SPL / CR per level over the appearance, spatial and open-vocabulary goals
  (the paper's Table II has no hint goals), with the per-goal-type breakdown beside it.
* Table III: hint goals on level 1 (the paper ran its hint experiment on level 1),
  L3MVN against H-L3MVN.

Every cell carries its episodes and a 95 % interval (Wilson for SR, bootstrap over
episodes for SPL and CR), and the paper's orderings are tested on paired episodes
(:mod:`hazard_sim.stats`).
"""
from __future__ import annotations

from hazard_sim import stats

#: Table II of the paper: agent -> level -> (SR, SPL, CR)
PAPER_TABLE_II = {
    "Random": {1: (24.7, 5.2, 0.9), 2: (21.1, 4.6, 6.8), 3: (2.9, 0.2, 17.5)},
    "Frontier": {1: (27.1, 6.2, 0.8), 2: (23.8, 5.6, 6.3), 3: (3.1, 0.2, 16.7)},
    "C-L3MVN": {1: (32.1, 8.2, 0.8), 2: (28.6, 6.7, 4.2), 3: (5.2, 0.3, 13.3)},
    "C-LGX": {1: (26.7, 7.6, 0.6), 2: (21.2, 5.1, 5.3), 3: (8.3, 0.6, 14.2)},
}
#: Table III: agent -> (SR, SPL) on hint goals
PAPER_TABLE_III = {"L3MVN": (30.3, 7.9), "H-L3MVN": (31.6, 13.1)}
#: our agent names -> the paper's
PAPER_NAME = {"random": "Random", "frontier": "Frontier", "c_l3mvn": "C-L3MVN", "l3mvn": "L3MVN",
              "h_l3mvn": "H-L3MVN"}
GOAL_TYPES = ("appearance", "spatial", "open_vocab", "hint")
#: the goal types of the paper's Table II (its hint goals are Table III's)
TABLE_II_GOAL_TYPES = ("appearance", "spatial", "open_vocab")
#: the level of the paper's Table III (hint goals)
TABLE_III_LEVEL = 1


def _rates(rs: list) -> dict:
    n = len(rs)
    if not n:
        return {"episodes": 0, "sr": None, "spl": None, "cr": None}
    return {"episodes": n, "sr": 100.0 * sum(bool(r["success"]) for r in rs) / n,
            "spl": 100.0 * sum(r["spl"] for r in rs) / n,
            "cr": 100.0 * sum(r["collisions"] / max(r["steps"], 1) for r in rs) / n}


def aggregate(results: list) -> dict:
    """Per-episode metrics -> SR, SPL, CR (percent; CR = mean of collisions / steps) overall,
    over the Table II goal types (``table_ii``) and per goal type, plus mean collisions and steps."""
    out = _rates(results)
    out["table_ii"] = _rates([r for r in results if r.get("goal_type") in TABLE_II_GOAL_TYPES])
    out["collisions"] = sum(r["collisions"] for r in results) / len(results) if results else None
    out["steps"] = sum(r["steps"] for r in results) / len(results) if results else None
    out["by_goal_type"] = {t: _rates([r for r in results if r.get("goal_type") == t]) for t in GOAL_TYPES}
    return out


def _f(v) -> str:
    return "   -" if v is None else f"{v:5.1f}"


def _sr(r) -> float:
    return float(bool(r["success"]))


def _cr(r) -> float:
    return r["collisions"] / max(r["steps"], 1)


def _ci_cells(results: list) -> str:
    """SR / SPL / CR with their 95 % intervals (percent) over ``results``."""
    if not results:
        return "-"
    k, n = sum(bool(r["success"]) for r in results), len(results)
    sr = stats.fmt_ci(k / n, stats.wilson(k, n), 100)
    spl = [r["spl"] for r in results]
    cr = [_cr(r) for r in results]
    return (f"SR {sr}  SPL {stats.fmt_ci(sum(spl) / n, stats.bootstrap_ci(spl), 100)}  "
            f"CR {stats.fmt_ci(sum(cr) / n, stats.bootstrap_ci(cr), 100)}")


def _results(r: dict, goal_types=None) -> list:
    rs = r.get("results") or []
    return [x for x in rs if goal_types is None or x.get("goal_type") in goal_types]


def table(benchmark: str, rows: list) -> str:
    """One level's rows (each an aggregate plus ``agent``, with its per-episode ``results``)
    in the paper's Table II layout (appearance, spatial, open-vocabulary goals), per goal type
    beside it, Table III (hint goals) on level 1, then 95 % intervals and paired tests."""
    level = int(benchmark.rsplit("level", 1)[1])
    lines = [f"DOZE Table II, level {level} ({benchmark}): appearance, spatial and open-vocabulary goals, "
             f"ours vs paper (SR / SPL / CR, %)",
             f"{'agent':<10} {'n':>5}  {'SR':>5} {'SPL':>5} {'CR':>5}   | paper {'SR':>5} {'SPL':>5} {'CR':>5}"]
    for r in rows:
        t = r.get("table_ii") or r
        paper = PAPER_TABLE_II.get(PAPER_NAME.get(r["agent"], ""), {}).get(level)
        p = "   (not in the paper)" if paper is None else f"{PAPER_NAME[r['agent']]:>5} " + " ".join(
            _f(v) for v in paper)
        lines.append(f"{r['agent']:<10} {t['episodes']:>5}  {_f(t['sr'])} {_f(t['spl'])} {_f(t['cr'])}   | {p}")
    lines.append("")
    lines.append("per goal type (n: SR / SPL, %): " + ", ".join(GOAL_TYPES))
    for r in rows:
        g = r.get("by_goal_type") or {}
        cells = [f"{(g.get(t) or {}).get('episodes', 0)}: {_f((g.get(t) or {}).get('sr'))}/"
                 f"{_f((g.get(t) or {}).get('spl'))}" for t in GOAL_TYPES]
        lines.append(f"{r['agent']:<10} " + "  ".join(cells))
    lines.append("")
    if level == TABLE_III_LEVEL:
        lines.append(f"DOZE Table III (hint goals, level {level}): ours vs paper (SR / SPL, %)")
        for r in rows:
            h = (r.get("by_goal_type") or {}).get("hint") or {}
            paper = PAPER_TABLE_III.get(PAPER_NAME.get(r["agent"], ""))
            p = "" if paper is None else f"| paper {PAPER_NAME[r['agent']]} {_f(paper[0])} {_f(paper[1])}"
            lines.append(f"{r['agent']:<10} {h.get('episodes', 0):>5}  {_f(h.get('sr'))} {_f(h.get('spl'))}   {p}")
    else:
        lines.append(f"(Table III, hint goals, is the paper's level {TABLE_III_LEVEL} experiment; this level's hint "
                     f"episodes are in the per goal type block)")
    lines += statistics(level, rows)
    return "\n".join(lines)


def statistics(level: int, rows: list) -> list[str]:
    """95 % intervals of every Table II / III cell and paired tests of the paper's orderings
    (McNemar on success, Wilcoxon on SPL) on the episodes both agents ran."""
    if not any(r.get("results") for r in rows):
        return []
    out = ["", "95 % intervals (Wilson for SR, bootstrap over episodes for SPL and CR), Table II goals:"]
    for r in rows:
        rs = _results(r, TABLE_II_GOAL_TYPES)
        out.append(f"  {r['agent']:<10} n={len(rs):<4} {_ci_cells(rs)}")
    by_agent = {r["agent"]: r for r in rows}
    paper_sr = {a: (PAPER_TABLE_II.get(PAPER_NAME.get(a, ""), {}).get(level) or (None,))[0] for a in by_agent}
    comps = [stats.compare(a, b, _results(by_agent[a], TABLE_II_GOAL_TYPES), _results(by_agent[b], TABLE_II_GOAL_TYPES),
                           "SR", _sr, binary=True, paper_sign=sign)
             for a, b, sign in stats.paper_orderings(paper_sr, list(by_agent))]
    if comps:
        out.append("the paper's Table II orderings (SR; McNemar's exact test, paired episodes):")
        out += stats.comparison_lines(comps, scale=100)
    if level == TABLE_III_LEVEL:
        hint = {a: _results(r, ("hint",)) for a, r in by_agent.items()}
        out.append("95 % intervals, Table III (hint goals):")
        for a, rs in hint.items():
            out.append(f"  {a:<10} n={len(rs):<4} {_ci_cells(rs)}")
        if "l3mvn" in hint and "h_l3mvn" in hint:
            out.append("the paper's Table III ordering (H-L3MVN above L3MVN; SPL Wilcoxon, SR McNemar, paired):")
            out += stats.comparison_lines([
                stats.compare("h_l3mvn", "l3mvn", hint["h_l3mvn"], hint["l3mvn"], "SPL", lambda r: r["spl"],
                              paper_sign=1),
                stats.compare("h_l3mvn", "l3mvn", hint["h_l3mvn"], hint["l3mvn"], "SR", _sr, binary=True,
                              paper_sign=1)], scale=100)
    return out


def table_ii(by_level: dict) -> str:
    """The paper's Table II layout over all three levels: ``by_level[level][agent] = aggregate``."""
    agents = sorted({a for rows in by_level.values() for a in rows})
    head = "agent      " + "".join(f"| level {lv}: SR   SPL    CR " for lv in (1, 2, 3))
    lines = ["DOZE Table II: ours (paper) per level, SR / SPL / CR in %, appearance / spatial / open-vocabulary "
             "goals", head]
    for a in agents:
        cells = []
        for lv in (1, 2, 3):
            r = by_level.get(lv, {}).get(a)
            paper = PAPER_TABLE_II.get(PAPER_NAME.get(a, ""), {}).get(lv)
            t = None if r is None else (r.get("table_ii") or r)
            ours = "  -    -    - " if t is None else f"{_f(t['sr'])}{_f(t['spl'])}{_f(t['cr'])}"
            cells.append(f"| {ours}" + ("" if paper is None else f" ({paper[0]}/{paper[1]}/{paper[2]})"))
        lines.append(f"{a:<10} " + " ".join(cells))
    return "\n".join(lines)


def table_iii(by_agent: dict) -> str:
    """Table III: hint goals of level 1 (the paper's setting), ``by_agent[agent] = aggregate``."""
    lines = [f"DOZE Table III: hint goals on level {TABLE_III_LEVEL}, ours (paper), SR / SPL in %",
             "agent         n     SR    SPL"]
    for a, r in sorted(by_agent.items()):
        paper = PAPER_TABLE_III.get(PAPER_NAME.get(a, ""))
        p = "" if paper is None else f"   ({paper[0]}/{paper[1]})"
        lines.append(f"{a:<10} {r['episodes']:>4}  {_f(r['sr'])}  {_f(r['spl'])}{p}")
    return "\n".join(lines)
