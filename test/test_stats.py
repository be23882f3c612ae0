"""The table statistics against values computed by hand (and textbook examples)."""
import math

import numpy as np
import pytest

from hazard_sim import stats


def test_wilson_by_hand():
    # k = 4, n = 24: p = 1/6, z^2 = 3.8415; centre = (p + z^2/48) / (1 + z^2/24)
    z2 = stats.Z95 ** 2
    p = 4 / 24
    den = 1 + z2 / 24
    centre = (p + z2 / 48) / den
    half = stats.Z95 * math.sqrt(p * (1 - p) / 24 + z2 / (4 * 24 * 24)) / den
    lo, hi = stats.wilson(4, 24)
    assert lo == pytest.approx(centre - half) and hi == pytest.approx(centre + half)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (6.7, 35.9)
    lo, hi = stats.wilson(10, 24)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (24.5, 61.2)


def test_wilson_edges():
    assert stats.wilson(0, 10)[0] == 0.0 and stats.wilson(10, 10)[1] == pytest.approx(1.0)
    assert stats.wilson(0, 10)[1] == pytest.approx(stats.Z95 ** 2 / (10 + stats.Z95 ** 2))
    with pytest.raises(ValueError):
        stats.wilson(3, 0)
    with pytest.raises(ValueError):
        stats.wilson(5, 4)


def test_clopper_pearson_textbook():
    # 4 of 24 and 10 of 24: the exact intervals issue 17 quotes, 4.7-37.4 % and 22.1-63.4 %
    lo, hi = stats.clopper_pearson(4, 24)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (4.7, 37.4)
    lo, hi = stats.clopper_pearson(10, 24)
    assert (round(100 * lo, 1), round(100 * hi, 1)) == (22.1, 63.4)
    # 0 of n: upper bound 1 - (alpha/2)^(1/n)
    assert stats.clopper_pearson(0, 10) == (0.0, pytest.approx(1 - 0.025 ** 0.1))
    assert stats.clopper_pearson(10, 10) == (pytest.approx(0.025 ** 0.1), 1.0)


def test_mcnemar_exact_by_hand():
    # 6 discordant pairs, all for a: p = 2 * 0.5^6 = 0.03125
    a = [1] * 6 + [1, 0, 1, 0]
    b = [0] * 6 + [1, 0, 1, 0]
    assert stats.mcnemar_exact(a, b) == pytest.approx(2 * 0.5 ** 6)
    # 3 vs 1 discordant: p = 2 * P(X <= 1 | n=4) = 2 * 5/16 = 0.625
    assert stats.mcnemar_exact([1, 1, 1, 0, 1], [0, 0, 0, 1, 1]) == pytest.approx(0.625)
    assert stats.mcnemar_exact([1, 0], [1, 0]) == 1.0
    with pytest.raises(ValueError):
        stats.mcnemar_exact([1], [1, 0])


def test_wilcoxon_by_hand():
    # differences 1..5 all positive: W- = 0, exact two-sided p = 2 / 2^5 = 0.0625
    assert stats.wilcoxon_p([2, 3, 4, 5, 6], [1, 1, 1, 1, 1]) == pytest.approx(0.0625)
    assert stats.wilcoxon_p([1, 2], [1, 2]) == 1.0


def test_bootstrap_mean_and_ratio():
    x = [0.0, 0.0, 1.0, 1.0]
    lo, hi = stats.bootstrap_ci(x)
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert stats.bootstrap_ci(x) == stats.bootstrap_ci(x)            # seeded: reproducible
    assert stats.bootstrap_ci([0.3] * 5) == (0.3, 0.3)
    assert stats.bootstrap_ci([0.7]) == (0.7, 0.7)
    # a ratio of sums over paired samples: the point (sum 600 / sum 4 = 150) lies inside
    last, rescued = [100, 200, 300, 0], [1, 1, 2, 0]
    lo, hi = stats.bootstrap_ci((last, rescued), lambda a, b: a.sum() / max(b.sum(), 1))
    assert lo <= 150 <= hi and lo >= 0 and hi <= 300
    with pytest.raises(ValueError):
        stats.bootstrap_ci(([1, 2], [1]), lambda a, b: 0)


def test_bootstrap_covers_the_mean_of_a_known_distribution():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(40):
        lo, hi = stats.bootstrap_ci(rng.normal(0.0, 1.0, 60).tolist(), n_resamples=400)
        covered += lo <= 0.0 <= hi
    assert covered >= 33           # about 95 % of 40 (binomial: >= 33 with probability > 0.99)


def test_compare_and_verdicts():
    ra = [{"episode": i, "success": i < 8} for i in range(10)]
    rb = [{"episode": i, "success": i < 1} for i in range(12)]
    c = stats.compare("mcts", "greedy", ra, rb, "SR", lambda r: float(r["success"]), binary=True, paper_sign=1)
    assert c.n == 10 and c.mean_a == 0.8 and c.mean_b == 0.1
    assert c.p == pytest.approx(2 * 0.5 ** 7) and c.verdict == "holds"
    c = stats.compare("greedy", "mcts", rb, ra, "SR", lambda r: float(r["success"]), binary=True, paper_sign=1)
    assert c.verdict == "reversed (significant)"
    c = stats.compare("a", "b", ra[:2], rb[:2], "SR", lambda r: float(r["success"]), binary=True, paper_sign=1)
    assert c.verdict == "same direction, not significant" or c.p == 1.0
    c = stats.compare("a", "b", ra, ra, "SR", lambda r: float(r["success"]), binary=True, paper_sign=1)
    assert c.p == 1.0 and c.verdict == "cannot be told apart"
    c = stats.compare("a", "b", ra, [{"episode": 99, "success": True}], "SR", lambda r: 1.0)
    assert c.p is None and c.verdict == "no common episodes"
    lines = stats.comparison_lines([stats.compare("mcts", "greedy", ra, rb, "SR", lambda r: float(r["success"]),
                                                  binary=True, paper_sign=1)], scale=100)
    assert "n=10 paired" in lines[0] and "p=0.016" in lines[0] and "holds" in lines[0]


def test_paper_orderings():
    paper = {"random": 43.8, "greedy": 35.4, "mcts": 75.9, "ppo": None}
    got = stats.paper_orderings(paper, ["random", "greedy", "mcts", "ppo", "mine"])
    assert got == [("random", "greedy", 1), ("mcts", "random", 1), ("mcts", "greedy", 1)]


def test_formatting():
    assert stats.fmt_ci(0.25, (0.1, 0.4), scale=100) == "25.0 [10.0, 40.0]"
    assert stats.fmt_ci(None, None) == "-"
    assert stats.fmt_p(0.0001) == "<0.001" and stats.fmt_p(0.1234) == "0.123"


def test_bootstrap_leaves_out_undefined_resamples():
    # one episode of four rescued anything: resamples without it have no Step and are left out
    last, rescued = [0, 0, 0, 500], [0, 0, 0, 2]
    lo, hi = stats.bootstrap_ci((last, rescued), lambda a, b: a.sum() / b.sum() if b.sum() else float("nan"))
    assert lo == hi == 250.0


def _hazard_ep(i, vr, last, n, dam=0):
    return {"episode": i, "value_rate": vr, "last_rescue_frame": last, "rescued_count": n, "damaged_count": dam,
            "rescue_frames_sum": last * n}


def test_hazard_table_prints_intervals_and_the_papers_orderings():
    from hazard_sim.core.spec import get_spec
    from hazard_sim.tasks.hazard.paper import table_rows
    aggregate = get_spec("hazard/fire").aggregate
    mcts = [_hazard_ep(i, 0.8, 300, 2) for i in range(8)]
    greedy = [_hazard_ep(i, 0.1, 600, 1, dam=1) for i in range(8)]
    rows = [{"agent": a, "split": "test", **aggregate(rs), "results": rs} for a, rs in
            (("mcts", mcts), ("greedy", greedy))]
    text = table_rows("hazard/fire", rows)
    assert "mcts          n=8    Value 80.0 [80.0, 80.0]  Step 150.0 [150.0, 150.0]  Damage 0.0 [0.0, 0.0]" in text
    assert "Damage 100.0 [100.0, 100.0]" in text
    # 8 paired episodes, all in mcts's favour: Wilcoxon exact p = 2 / 2^8
    assert "mcts 80.0 vs greedy 10.0 (Value, n=8 paired, p=0.008; paper: mcts > greedy): holds" in text


def test_doze_table_layout_excludes_hints_from_table_ii_and_tests_table_iii():
    from hazard_sim.tasks.doze.paper import aggregate, table
    def ep(i, gt, ok, spl):
        return {"episode": i, "goal_type": gt, "success": ok, "spl": spl, "collisions": 1, "steps": 10}
    base = [ep(i, "appearance", i < 2, 0.2) for i in range(4)]
    l3 = base + [ep(10 + i, "hint", i < 1, 0.1) for i in range(4)]
    h = base + [ep(10 + i, "hint", True, 0.5) for i in range(4)]
    rows = [{"agent": a, **aggregate(rs), "results": rs} for a, rs in (("l3mvn", l3), ("h_l3mvn", h))]
    assert rows[0]["table_ii"]["episodes"] == 4 and rows[0]["table_ii"]["sr"] == 50.0
    text = table("doze/level1", rows)
    assert "l3mvn          4   50.0  20.0  10.0" in text              # Table II: the 4 non-hint episodes
    assert "DOZE Table III (hint goals, level 1)" in text
    assert "h_l3mvn 50.0 vs l3mvn 10.0 (SPL, n=4 paired, p=0.125; paper: h_l3mvn > l3mvn): same direction, " \
           "not significant" in text
    assert "Table III, hint goals, is the paper's level 1 experiment" in table("doze/level2", rows)


def test_esar_table_uses_wilson_for_rates():
    from hazard_sim.tasks.esar.paper import aggregate, table_rows
    def ep(i, sr, rs):
        return {"episode": i, "sr": sr, "tsr": sr, "cds": 0.0, "rs": rs, "safe": True, "tier": "Medium",
                "weather": "clear", "time_of_day": 12.0}
    rows = [{"agent": "lawnmower", **aggregate([ep(i, 100.0 * (i < 1), 10.0 + i) for i in range(4)]),
             "results": [ep(i, 100.0 * (i < 1), 10.0 + i) for i in range(4)]}]
    text = table_rows("esar", rows)
    lo, hi = stats.wilson(1, 4)
    assert f"SR 25.0 [{100 * lo:.1f}, {100 * hi:.1f}]" in text
