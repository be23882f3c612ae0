"""HAZARD's metrics: Value rate, Step and Damage (paper section 4, ``benchmarks.md``).

* Value rate of an episode = sum over rescued targets of value x discount / sum of
  the values of all targets; discount 0.5 if the object was damaged when rescued.
  The benchmark's Value is the mean over episodes.
* Step = the frame at which each rescued object was rescued, averaged over every
  rescued object of every episode ("averaged step number to rescue an object").
* Damage = damaged rescued objects / rescued objects, over every episode.
"""
from __future__ import annotations

from dataclasses import dataclass

DAMAGE_DISCOUNT = 0.5


@dataclass(frozen=True)
class Rescue:
    id: int
    category: str
    value: int
    frame: int
    damaged: bool


def value_rate(rescued: list[Rescue], target_values: list[int]) -> float:
    total = float(sum(target_values))
    if total <= 0:
        raise ValueError("an episode needs at least one target with a positive value")
    got = sum(r.value * (DAMAGE_DISCOUNT if r.damaged else 1.0) for r in rescued)
    return got / total


def episode_metrics(rescued: list[Rescue], target_values: list[int]) -> dict:
    n = len(rescued)
    return {
        "value_rate": value_rate(rescued, target_values),
        "step": (sum(r.frame for r in rescued) / n) if n else None,
        "damage": (sum(r.damaged for r in rescued) / n) if n else None,
        "rescued_count": n,
        "damaged_count": sum(r.damaged for r in rescued),
        "rescue_frames_sum": sum(r.frame for r in rescued),
    }


def aggregate(episodes: list[dict]) -> dict:
    """The paper's table row from per-episode results (as written by ``hazard run --json``)."""
    if not episodes:
        raise ValueError("no episodes to aggregate")
    n_rescued = sum(e["rescued_count"] for e in episodes)
    return {
        "episodes": len(episodes),
        "value": 100.0 * sum(e["value_rate"] for e in episodes) / len(episodes),
        "step": (sum(e["rescue_frames_sum"] for e in episodes) / n_rescued) if n_rescued else None,
        "damage": (100.0 * sum(e["damaged_count"] for e in episodes) / n_rescued) if n_rescued else None,
        "rescued": n_rescued,
    }
