"""HAZARD's metrics as the public code computes them (``utils/calc_value.py``).

* **Value** of a rescued object: 5 for categories marked valuable, else 1, times its
  discount: 0.5 when the hazard damaged it before it was rescued (fire: no longer
  NORMAL; flood: not waterproof and touched by water; wind: never), else 1.
  Value rate of an episode = sum of value x discount over rescued targets / sum of
  the values of all targets; the benchmark's Value is the mean over episodes.
* **Step** (the paper's "averaged step number to rescue an object"): for each episode
  the frame of its *last* rescue, summed over episodes, divided by the number of
  objects rescued over all episodes.  An episode without a rescue adds 0 frames and
  0 objects.  One episode's ``step`` is its last rescue frame / its rescues.
* **Damage** = rescued objects whose discount is below 0.6 / rescued objects.
* ``mean_rescue_frame`` (not in the paper): the mean of the rescue frames of every
  rescued object (what this project called Step before it followed the public code).
"""
from __future__ import annotations

from dataclasses import dataclass

DAMAGE_DISCOUNT = 0.5
DAMAGED_BELOW = 0.6        # a rescue counts as damaged when its discount is below this


@dataclass(frozen=True)
class Rescue:
    id: int
    category: str
    value: int
    frame: int
    damaged: bool

    @property
    def discount(self) -> float:
        return DAMAGE_DISCOUNT if self.damaged else 1.0


def value_rate(rescued: list[Rescue], target_values: list[int]) -> float:
    total = float(sum(target_values))
    if total <= 0:
        raise ValueError("an episode needs at least one target with a positive value")
    return sum(r.value * r.discount for r in rescued) / total


def episode_metrics(rescued: list[Rescue], target_values: list[int]) -> dict:
    n = len(rescued)
    last = max((r.frame for r in rescued), default=0)
    n_damaged = sum(r.discount < DAMAGED_BELOW for r in rescued)
    frames_sum = sum(r.frame for r in rescued)
    return {
        "value_rate": value_rate(rescued, target_values),
        "step": (last / n) if n else None,
        "damage": (n_damaged / n) if n else None,
        "mean_rescue_frame": (frames_sum / n) if n else None,
        "rescued_count": n,
        "damaged_count": n_damaged,
        "last_rescue_frame": last,
        "rescue_frames_sum": frames_sum,
    }


def _last_frame(e: dict) -> int:
    if "last_rescue_frame" in e:
        return e["last_rescue_frame"]
    rescued = e.get("rescued")
    if isinstance(rescued, list):      # results written before last_rescue_frame existed
        return max((r["frame"] for r in rescued), default=0)
    raise KeyError(f"episode {e.get('episode', '?')} has neither last_rescue_frame nor its rescues: "
                   f"re-run it to score Step")


def aggregate(episodes: list[dict]) -> dict:
    """The paper's table row from per-episode results (as written by ``hazard run --json``)."""
    if not episodes:
        raise ValueError("no episodes to aggregate")
    n_rescued = sum(e["rescued_count"] for e in episodes)
    return {
        "episodes": len(episodes),
        "value": 100.0 * sum(e["value_rate"] for e in episodes) / len(episodes),
        "step": (sum(_last_frame(e) for e in episodes) / n_rescued) if n_rescued else None,
        "damage": (100.0 * sum(e["damaged_count"] for e in episodes) / n_rescued) if n_rescued else None,
        "mean_rescue_frame": (sum(e["rescue_frames_sum"] for e in episodes) / n_rescued) if n_rescued else None,
        "rescued": n_rescued,
    }
