"""DOZE's result tables: Table II (SR / SPL / CR per level) and Table III (hint goals:
SR / SPL), ours beside the paper's numbers (percent)."""
from __future__ import annotations

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


def _rates(rs: list) -> dict:
    n = len(rs)
    if not n:
        return {"episodes": 0, "sr": None, "spl": None, "cr": None}
    return {"episodes": n, "sr": 100.0 * sum(bool(r["success"]) for r in rs) / n,
            "spl": 100.0 * sum(r["spl"] for r in rs) / n,
            "cr": 100.0 * sum(r["collisions"] / max(r["steps"], 1) for r in rs) / n}


def aggregate(results: list) -> dict:
    """Per-episode metrics -> SR, SPL, CR (percent; CR = mean of collisions / steps) overall and
    per goal type, plus mean collisions and steps."""
    out = _rates(results)
    out["collisions"] = sum(r["collisions"] for r in results) / len(results) if results else None
    out["steps"] = sum(r["steps"] for r in results) / len(results) if results else None
    out["by_goal_type"] = {t: _rates([r for r in results if r.get("goal_type") == t]) for t in GOAL_TYPES}
    return out


def _f(v) -> str:
    return "   -" if v is None else f"{v:5.1f}"


def table(benchmark: str, rows: list) -> str:
    """One level's rows (each an aggregate plus ``agent``) beside the paper's Table II column, and
    the hint goals beside Table III."""
    level = int(benchmark.rsplit("level", 1)[1])
    lines = [f"DOZE Table II, level {level} ({benchmark}): ours vs paper (SR / SPL / CR, %)",
             f"{'agent':<10} {'n':>5}  {'SR':>5} {'SPL':>5} {'CR':>5}   | paper {'SR':>5} {'SPL':>5} {'CR':>5}"]
    for r in rows:
        paper = PAPER_TABLE_II.get(PAPER_NAME.get(r["agent"], ""), {}).get(level)
        p = "   (not in the paper)" if paper is None else f"{PAPER_NAME[r['agent']]:>5} " + " ".join(
            _f(v) for v in paper)
        lines.append(f"{r['agent']:<10} {r['episodes']:>5}  {_f(r['sr'])} {_f(r['spl'])} {_f(r['cr'])}   | {p}")
    lines.append("")
    lines.append(f"DOZE Table III (hint goals, level {level}): ours vs paper (SR / SPL, %)")
    for r in rows:
        h = (r.get("by_goal_type") or {}).get("hint") or {}
        paper = PAPER_TABLE_III.get(PAPER_NAME.get(r["agent"], ""))
        p = "" if paper is None else f"| paper {PAPER_NAME[r['agent']]} {_f(paper[0])} {_f(paper[1])}"
        lines.append(f"{r['agent']:<10} {h.get('episodes', 0):>5}  {_f(h.get('sr'))} {_f(h.get('spl'))}   {p}")
    lines.append("")
    lines.append("per goal type (SR / SPL, %): " + ", ".join(GOAL_TYPES))
    for r in rows:
        g = r.get("by_goal_type") or {}
        cells = [f"{_f((g.get(t) or {}).get('sr'))}/{_f((g.get(t) or {}).get('spl'))}" for t in GOAL_TYPES]
        lines.append(f"{r['agent']:<10} " + "  ".join(cells))
    return "\n".join(lines)


def table_ii(by_level: dict) -> str:
    """The paper's Table II layout over all three levels: ``by_level[level][agent] = aggregate``."""
    agents = sorted({a for rows in by_level.values() for a in rows})
    head = "agent      " + "".join(f"| level {lv}: SR   SPL    CR " for lv in (1, 2, 3))
    lines = ["DOZE Table II: ours (paper) per level, SR / SPL / CR in %", head]
    for a in agents:
        cells = []
        for lv in (1, 2, 3):
            r = by_level.get(lv, {}).get(a)
            paper = PAPER_TABLE_II.get(PAPER_NAME.get(a, ""), {}).get(lv)
            ours = "  -    -    - " if r is None else f"{_f(r['sr'])}{_f(r['spl'])}{_f(r['cr'])}"
            cells.append(f"| {ours}" + ("" if paper is None else f" ({paper[0]}/{paper[1]}/{paper[2]})"))
        lines.append(f"{a:<10} " + " ".join(cells))
    return "\n".join(lines)


def table_iii(by_agent: dict) -> str:
    """Table III: hint goals (pooled over the levels run), ``by_agent[agent] = aggregate``."""
    lines = ["DOZE Table III: hint goals, ours (paper), SR / SPL in %", "agent         n     SR    SPL"]
    for a, r in sorted(by_agent.items()):
        paper = PAPER_TABLE_III.get(PAPER_NAME.get(a, ""))
        p = "" if paper is None else f"   ({paper[0]}/{paper[1]})"
        lines.append(f"{a:<10} {r['episodes']:>4}  {_f(r['sr'])}  {_f(r['spl'])}{p}")
    return "\n".join(lines)
