"""ESAR results as the paper reports them: SR / TSR / CDS / RS overall and per tier.

The paper (seed 002, Tables 2-3) gives the overall numbers of its best methods in the
text: APEX SR 13.89, CDS 4.14, RS 13.45 (best on all three) and SPF RS 13.12; the other
cells of its tables are not in the text we have, so they are left out rather than made up.
"""
from __future__ import annotations

import numpy as np

from hazard_sim import stats
from hazard_sim.tasks.esar.scenario import TIERS

PAPER = {"APEX (paper)": {"sr": 13.89, "tsr": None, "cds": 4.14, "rs": 13.45},
         "SPF (paper)": {"sr": None, "tsr": None, "cds": None, "rs": 13.12}}
KEYS = ("sr", "tsr", "cds", "rs")


def _mean(rows, key):
    return float(np.mean([r[key] for r in rows])) if rows else None


def aggregate(results: list[dict]) -> dict:
    out = {"episodes": len(results)}
    for k in KEYS:
        out[k] = _mean(results, k)
    out["safe_rate"] = 100.0 * _mean(results, "safe") if results else None
    out["tiers"] = {}
    for t in TIERS:
        rows = [r for r in results if r.get("tier") == t]
        out["tiers"][t] = {"episodes": len(rows), **{k: _mean(rows, k) for k in KEYS}}
    night = [r for r in results if r.get("time_of_day") is not None and not 6.0 <= r["time_of_day"] <= 20.0]
    fog = [r for r in results if r.get("weather") in ("fog", "snowstorm", "sandstorm")]
    out["false_victims"] = false_victim_summary(results)
    out["night"] = {"episodes": len(night), **{k: _mean(night, k) for k in KEYS}}
    out["low_visibility"] = {"episodes": len(fog), **{k: _mean(fog, k) for k in KEYS}}
    return out


def false_victim_summary(results: list[dict]) -> dict | None:
    """Victim estimates that located no victim, over the tasks whose results say what they lay
    on (``false_victims``; older results do not): ``{"tasks": n, "tasks_with": m, "reports":
    r, "on": {label: count}}``, or None when no result says."""
    said = [r["false_victims"] for r in results if isinstance(r.get("false_victims"), dict)]
    if not said:
        return None
    on: dict[str, int] = {}
    for fv in said:
        for label, n in fv.items():
            on[label] = on.get(label, 0) + int(n)
    return {"tasks": len(said), "tasks_with": sum(1 for fv in said if fv), "reports": sum(on.values()),
            "on": dict(sorted(on.items(), key=lambda kv: (-kv[1], kv[0])))}


def progress(r: dict) -> str:
    return (f"SR {r['sr']:.0f} CDS {r['cds']:.1f} RS {r['rs']:.1f} {r['tier']} {r['weather']} "
            f"{'safe' if r['safe'] else 'CRASH'} {r['time_s']:.0f}s")


def _f(v):
    return "    -" if v is None else f"{v:5.2f}"


def table_rows(benchmark: str, rows: list[dict]) -> str:
    """rows: one aggregate per agent (with ``agent``)."""
    head = f"{'method':22s} {'n':>4s}  " + "  ".join(f"{k.upper():>5s}" for k in KEYS) + "   safe%   " + \
        "  ".join(f"{t[:4]}:SR/CDS/RS" for t in TIERS)
    lines = [f"{benchmark}: SR / TSR / CDS / RS in percent (ours: simulated terrain; paper: UE5 + AirSim)", head]
    for r in rows:
        tiers = "  ".join(f"{_f(r['tiers'][t]['sr'])}/{_f(r['tiers'][t]['cds'])}/{_f(r['tiers'][t]['rs'])}"
                          f"({r['tiers'][t]['episodes']})" for t in TIERS)
        lines.append(f"{r['agent']:22s} {r['episodes']:4d}  " + "  ".join(_f(r[k]) for k in KEYS)
                     + f"  {_f(r.get('safe_rate'))}   " + tiers)
    for r in rows:
        n, f = r.get("night", {}), r.get("low_visibility", {})
        if n or f:
            lines.append(f"  {r['agent']}: night SR/CDS/RS {_f(n.get('sr'))}/{_f(n.get('cds'))}/{_f(n.get('rs'))} "
                         f"({n.get('episodes', 0)})   fog, snowstorm, sandstorm {_f(f.get('sr'))}/{_f(f.get('cds'))}/"
                         f"{_f(f.get('rs'))} ({f.get('episodes', 0)})")
    for r in rows:
        fv = r.get("false_victims")
        if fv:
            on = ", ".join(f"{label} {n}" for label, n in fv["on"].items()) or "-"
            lines.append(f"  {r['agent']}: false victim reports {fv['reports']} in {fv['tasks_with']} of {fv['tasks']} "
                         f"tasks; nearest true thing within the clue radius: {on}")
    for name, p in PAPER.items():
        lines.append(f"{name:22s} {'':>4s}  " + "  ".join(_f(p[k]) for k in KEYS))
    return "\n".join(lines + statistics(rows))


def _ci(values: list[float]) -> str:
    """Mean and 95 % interval of per-task percentages: Wilson when every task is 0 or 100 (a
    rate), else a bootstrap over tasks."""
    mean = float(np.mean(values))
    if all(v in (0, 100) for v in values):
        k = sum(v == 100 for v in values)
        lo, hi = stats.wilson(k, len(values))
        return stats.fmt_ci(mean, (100 * lo, 100 * hi))
    return stats.fmt_ci(mean, stats.bootstrap_ci(values))


def statistics(rows: list[dict]) -> list[str]:
    """95 % intervals (bootstrap over tasks) of SR / TSR / CDS / RS overall and SR per tier, and
    every pair of our agents compared on paired tasks (Wilcoxon signed-rank on RS and on SR).
    The paper ranks only its own methods (APEX, SPF), so no ordering of ours is stated."""
    if not any(r.get("results") for r in rows):
        return []
    out = ["", "95 % intervals (Wilson where every task scores 0 or 100, else percentile bootstrap over tasks), "
               "percent:"]
    for r in rows:
        rs = r.get("results") or []
        if not rs:
            continue
        cells = "  ".join(f"{k.upper()} " + _ci([e[k] for e in rs]) for k in KEYS)
        out.append(f"  {r['agent']:<20} n={len(rs):<4} {cells}")
        for t in TIERS:
            ts = [e["sr"] for e in rs if e.get("tier") == t]
            if ts:
                out.append(f"    {t:<18} n={len(ts):<4} SR {_ci(ts)}")
    by_agent = {r["agent"]: r.get("results") or [] for r in rows}
    names = list(by_agent)
    comps = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in ("sr", "rs"):
                comps.append(stats.compare(a, b, by_agent[a], by_agent[b], k.upper(), lambda e, k=k: e[k]))
    if comps:
        out.append("pairs of agents (paired tasks, Wilcoxon signed-rank; no paper ordering for our agents):")
        out += stats.comparison_lines(comps)
    return out
