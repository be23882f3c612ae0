"""The uniform policy over the six RL actions: the baseline a PPO policy must beat (what PPO
starts from), run like ``hazard run`` on the same episodes.

    python -m hazard_sim.tasks.hazard.rl.uniform --task fire --split test --episodes 0-9 [--seed 0]

prints one JSON line per episode (value rate, rescues, Step inputs) and the mean value rate.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from hazard_sim.tasks.hazard.rl.actions import ACTION_NAMES, RLActor


def run_uniform(task: str, split: str, episode: int, seed: int = 0, **env_kw) -> dict:
    """One episode with actions drawn uniformly (seeded) from the six; returns its metrics."""
    from hazard_sim.runner import make_env
    wrapped = make_env(f"hazard/{task}", split, episode, seed=seed, **env_kw)
    env = wrapped.unwrapped
    obs, info = wrapped.reset()
    rng = np.random.default_rng(seed)
    actor = RLActor(seed=seed)
    actor.policy = lambda features: int(rng.integers(len(ACTION_NAMES)))
    actor.reset(obs, info)
    done = False
    while not done:
        obs, _, terminated, truncated, info = wrapped.step(actor.act(obs, info))
        done = terminated or truncated
    m = env.metrics()
    env.close()
    return m


def _episodes(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from hazard_sim.tasks.hazard.rl.env import hazards
    p.add_argument("--task", required=True, choices=hazards())
    p.add_argument("--split", default="test")
    p.add_argument("--episodes", default="0-9", help="e.g. 0-9 or 0,2,4")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    rates = []
    for ep in _episodes(a.episodes):
        m = run_uniform(a.task, a.split, ep, a.seed)
        rates.append(m["value_rate"])
        print(json.dumps({"episode": ep, "value_rate": m["value_rate"], "rescued_count": m["rescued_count"],
                          "damaged_count": m["damaged_count"], "last_rescue_frame": m["last_rescue_frame"],
                          "frames": m["frames"]}), flush=True)
    print(f"mean value rate {np.mean(rates):.3f} over {len(rates)} episodes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
