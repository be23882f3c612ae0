"""Statistics printed with every result table: 95 % intervals and paired tests.

A number without its sample size and its uncertainty is not a result. Every table of the
three benchmarks prints, for each cell, the episodes it is computed on and a 95 % interval:

* rates (a success or not per episode: success rates, victims found): the Wilson score
  interval (:func:`wilson`) or the exact Clopper-Pearson one (:func:`clopper_pearson`);
* means over episodes (SPL, value rate, rescue score, ...) and ratios of sums (frames per
  rescued object):
  a percentile bootstrap over episodes (:func:`bootstrap_ci`: seeded so that a table is
  reproducible; unlike scipy's ``stats.bootstrap`` it leaves out resamples whose statistic
  is undefined, as a ratio of sums is when a resample has no rescue).

For an ordering that a paper states (agent A above agent B), :func:`compare` runs a paired
test on the episodes both agents ran: McNemar's exact test for success / failure
(:func:`mcnemar_exact`), the Wilcoxon signed-rank test for per-episode scores
(:func:`wilcoxon_p`). Both are two-sided; a p-value at or above 0.05 means the two agents
cannot be told apart on these episodes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

Z95 = 1.959963984540054         # the standard normal's 97.5 % quantile
ALPHA = 0.05
N_RESAMPLES = 2000
SEED = 0


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` trials, as fractions in [0, 1]."""
    if n <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= k <= n:
        raise ValueError(f"{k} successes out of {n} trials")
    p = k / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson(k: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of ``k`` successes in ``n`` trials."""
    from scipy.stats import beta
    if n <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= k <= n:
        raise ValueError(f"{k} successes out of {n} trials")
    lo = 0.0 if k == 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def bootstrap_ci(samples: Sequence[Sequence[float]] | Sequence[float],
                 statistic: Callable | None = None, confidence: float = 1 - ALPHA,
                 n_resamples: int = N_RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap interval over episodes.

    ``samples`` is one sequence of per-episode values (the statistic defaults to their
    mean) or a tuple of equally long sequences resampled together (paired, as episodes),
    with ``statistic(*arrays) -> float``: e.g. frames per rescued object, ``sum(last) / sum(rescued)``.
    Resamples whose statistic is undefined (NaN: e.g. no rescue at all in a resample of a
    ratio) are left out, which conditions the interval on the statistic being defined.
    One episode, or values that are all equal, give a zero-width interval.
    """
    multi = len(samples) > 0 and isinstance(samples[0], (list, tuple, np.ndarray))
    arrays = tuple(np.asarray(s, dtype=float) for s in (samples if multi else (samples,)))
    n = len(arrays[0])
    if n == 0 or any(len(a) != n for a in arrays):
        raise ValueError("bootstrap needs equally long, non-empty samples")
    if statistic is None and multi:
        raise ValueError("give a statistic for several samples")
    point = float(np.mean(arrays[0]) if statistic is None else statistic(*arrays))
    if n == 1 or all(np.all(a == a[0]) for a in arrays):
        return point, point
    idx = np.random.default_rng(seed).integers(0, n, (n_resamples, n))   # episodes drawn with replacement
    if statistic is None:
        boot = arrays[0][idx].mean(axis=1)
    else:
        boot = np.array([statistic(*(a[i] for a in arrays)) for i in idx], dtype=float)
    boot = boot[np.isfinite(boot)]
    if not len(boot):
        return point, point
    lo, hi = np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2])
    return min(float(lo), point), max(float(hi), point)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Two-sided exact McNemar p-value of paired successes ``a`` vs ``b`` (same episodes):
    a binomial test on the discordant pairs. No discordant pair gives 1.0."""
    if len(a) != len(b):
        raise ValueError("paired samples differ in length")
    from scipy.stats import binomtest
    only_a = sum(bool(x) and not bool(y) for x, y in zip(a, b))
    only_b = sum(bool(y) and not bool(x) for x, y in zip(a, b))
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired scores (same episodes); identical
    scores give 1.0."""
    if len(a) != len(b):
        raise ValueError("paired samples differ in length")
    from scipy.stats import wilcoxon
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(wilcoxon(d, zero_method="wilcox").pvalue)


def paired(results_a: list[dict], results_b: list[dict], key: str = "episode") -> list[tuple[dict, dict]]:
    """The results of two agents on the episodes both ran, in episode order."""
    by_b = {r[key]: r for r in results_b}
    return [(r, by_b[r[key]]) for r in sorted(results_a, key=lambda r: r[key]) if r[key] in by_b]


@dataclass(frozen=True)
class Comparison:
    """A paired comparison of agent ``a`` against ``b`` on one metric."""
    a: str
    b: str
    metric: str
    n: int               # episodes both ran
    mean_a: float | None
    mean_b: float | None
    p: float | None      # None: no common episode
    paper_sign: int = 0  # +1: the paper has a above b, -1 below, 0: no statement

    @property
    def verdict(self) -> str:
        if self.p is None or self.mean_a is None or self.mean_b is None:
            return "no common episodes"
        ours = (self.mean_a > self.mean_b) - (self.mean_a < self.mean_b)
        sig = self.p < ALPHA
        if self.paper_sign == 0 or ours == 0:
            return "differ" if sig else "cannot be told apart"
        if ours == self.paper_sign:
            return "holds" if sig else "same direction, not significant"
        return "reversed" + (" (significant)" if sig else ", not significant")


def compare(a: str, b: str, results_a: list[dict], results_b: list[dict], metric: str,
            value: Callable[[dict], float], binary: bool = False, paper_sign: int = 0) -> Comparison:
    """Paired test of two agents' per-episode ``value`` (McNemar when ``binary``)."""
    pairs = paired(results_a, results_b)
    if not pairs:
        return Comparison(a, b, metric, 0, None, None, None, paper_sign)
    xa = [value(r) for r, _ in pairs]
    xb = [value(r) for _, r in pairs]
    p = mcnemar_exact(xa, xb) if binary else wilcoxon_p(xa, xb)
    return Comparison(a, b, metric, len(pairs), float(np.mean(xa)), float(np.mean(xb)), p, paper_sign)


def fmt_ci(point: float | None, ci: tuple[float, float] | None, scale: float = 1.0, nd: int = 1) -> str:
    """``point [lo, hi]`` (scaled, e.g. 100 for percent), or ``-`` for no value."""
    if point is None or ci is None:
        return "-"
    return f"{point * scale:.{nd}f} [{ci[0] * scale:.{nd}f}, {ci[1] * scale:.{nd}f}]"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def comparison_lines(comps: list[Comparison], scale: float = 1.0, nd: int = 1) -> list[str]:
    """One line per comparison: the two means on common episodes, n, p and the verdict."""
    lines = []
    for c in comps:
        if c.p is None:
            lines.append(f"  {c.a} vs {c.b} ({c.metric}): no common episodes")
            continue
        paper = {1: f"paper: {c.a} > {c.b}", -1: f"paper: {c.a} < {c.b}", 0: "paper: no ordering"}[c.paper_sign]
        lines.append(f"  {c.a} {c.mean_a * scale:.{nd}f} vs {c.b} {c.mean_b * scale:.{nd}f} ({c.metric}, "
                     f"n={c.n} paired, p={fmt_p(c.p)}; {paper}): {c.verdict}")
    return lines


def paper_orderings(paper: dict[str, float | None], agents: list[str]) -> list[tuple[str, str, int]]:
    """Every pair of ``agents`` that the paper ranks (both numbers given and different),
    as ``(higher, lower, +1)`` in the paper's order of ``agents``."""
    out = []
    for i, x in enumerate(agents):
        for y in agents[i + 1:]:
            px, py = paper.get(x), paper.get(y)
            if px is None or py is None or px == py:
                continue
            out.append((x, y, 1) if px > py else (y, x, 1))
    return out
