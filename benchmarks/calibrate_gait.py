"""Calibrate the humanoid's per-frame kinematics of HAZARD (a script, not a test).

ThreeDWorld's Replicant gait timing (metres walked, degrees turned and frames spent on an
arm motion per simulation frame) is not in the public HAZARD code, while the hazards are
specified per frame there (temperatures every 5 frames, water +0.01 m every 10 frames,
floor fire every 10 frames). So one factor ``k`` scales every per-frame rate of the body:
walking ``0.05 k`` m/frame, turning ``15 k`` deg/frame, a pick-up ``15 / k`` frames and a
drop ``10 / k`` frames; ``k = 1`` is the release before this calibration, and the chosen
``k = 0.2`` (:data:`CHOSEN_K`) is what ``HumanoidSpec`` now holds.

The calibration target is a *kinematic* number of the paper, not a value rate: the frames
the nearest-first (greedy) agent spends per rescued object, i.e. the paper's Step for
greedy (fire 315.8, flood 289.9; Table 1). It is measured on the **train** split so that
the test split stays untouched; the value rates that follow are reported, not tuned.

    .venv/bin/python benchmarks/calibrate_gait.py --ks 1,0.7,0.5,0.4 --episodes 10 \
        --tasks fire,flood --agents greedy --workers 2 --out runs/calibrate_gait.jsonl

Results are appended one JSON line per episode to ``--out`` and reused on a rerun (the
same k, task, agent, episode and seed), so an interrupted run resumes.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from hazard_sim.core.spec import get_spec
from hazard_sim.runner import run_episode
from hazard_sim.tasks.hazard.metrics import aggregate

#: the paper's Step (frames per rescue, public code's rule) of the greedy agent, Table 1
PAPER_GREEDY_STEP = {"fire": 315.8, "flood": 289.9, "wind": 444.0}


#: the gait k scales: the release before the calibration (0.5 m/s, 150 deg/s on 0.1 s frames)
REFERENCE_GAIT = {"walk_per_frame": 0.05, "turn_per_frame_deg": 15.0, "pick_frames": 15, "drop_frames": 10}
#: the k the calibration chose (hazard_sim/embodiment/humanoid.py holds its numbers)
CHOSEN_K = 0.2


def body_for(k: float):
    r = REFERENCE_GAIT
    return replace(get_spec("hazard/fire").body_spec, walk_per_frame=round(r["walk_per_frame"] * k, 6),
                   turn_per_frame_deg=round(r["turn_per_frame_deg"] * k, 6),
                   pick_frames=max(1, round(r["pick_frames"] / k)), drop_frames=max(1, round(r["drop_frames"] / k)))


def set_wind_gain(gain: float | None) -> None:
    """Experiment only: the wind hazard's force gain for the envs built after this call."""
    if gain is not None:
        from hazard_sim.tasks.hazard.hazards import wind_hazard
        d = list(wind_hazard.WindHazard.__init__.__defaults__)
        d[1] = float(gain)                      # (frame_dt, force_gain, force_every)
        wind_hazard.WindHazard.__init__.__defaults__ = tuple(d)


def run_one(k: float, task: str, agent: str, episode: int, split: str, seed: int,
            wind_gain: float | None = None) -> dict:
    set_wind_gain(wind_gain)
    m = run_episode(f"hazard/{task}", split, episode, agent, seed, body_spec=body_for(k))
    m.update({"k": k, "task": task, "agent": agent, "episode": episode, "split": split, "seed": seed,
              "wind_gain": wind_gain})
    return m


def key(m: dict) -> tuple:
    return (float(m["k"]), m["task"], m["agent"], int(m["episode"]), m["split"], int(m["seed"]), m.get("wind_gain"))


def load(path: Path) -> dict:
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                m = json.loads(line)
                done[key(m)] = m
            except (ValueError, KeyError, TypeError):
                continue
    return done


def _f(x) -> str:
    return "-" if x is None else f"{x:.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ks", default="1,0.7,0.5,0.4", help="comma-separated speed factors k")
    ap.add_argument("--tasks", default="fire,flood")
    ap.add_argument("--agents", default="greedy")
    ap.add_argument("--episodes", type=int, default=10, help="first N episodes of the split")
    ap.add_argument("--split", default="train")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--wind-gain", type=float, default=None,
                    help="experiment: the wind force gain (default: the code's)")
    ap.add_argument("--out", default="runs/calibrate_gait.jsonl")
    a = ap.parse_args(argv)
    ks = [float(x) for x in a.ks.split(",")]
    if any(not 0.05 <= k <= 5 for k in ks):
        ap.error("--ks: each k must be within 0.05..5")
    if a.episodes < 1 or a.workers < 1:
        ap.error("--episodes and --workers must be >= 1")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = load(out)
    jobs = [(k, t, ag, e, a.split, a.seed, a.wind_gain) for k in ks for t in a.tasks.split(",")
            for ag in a.agents.split(",") for e in range(a.episodes)]
    todo = [j for j in jobs if j not in done]
    print(f"{len(jobs) - len(todo)} of {len(jobs)} episodes already in {out}", file=sys.stderr)
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=a.workers, mp_context=ctx) as pool, out.open("a") as f:
        futs = {pool.submit(run_one, *j): j for j in todo}
        for n, fut in enumerate(as_completed(futs), 1):
            m = fut.result()
            done[key(m)] = m
            f.write(json.dumps(m) + "\n")
            f.flush()
            os.fsync(f.fileno())
            print(f"[{n}/{len(todo)}] k={m['k']} {m['task']} {m['agent']} ep {m['episode']}: "
                  f"value {m['value_rate']:.3f} step {m['step']}", file=sys.stderr)
    print("| k | walk m/frame | turn deg/frame | pick / drop frames | task | agent | Value % | Step (paper greedy) "
          "| Damage % | MeanF |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in ks:
        b = body_for(k)
        for t in a.tasks.split(","):
            for ag in a.agents.split(","):
                eps = [done[(k, t, ag, e, a.split, a.seed, a.wind_gain)] for e in range(a.episodes)]
                s = aggregate(eps)
                print(f"| {k} | {b.walk_per_frame:.4f} | {b.turn_per_frame_deg:.2f} "
                      f"| {b.pick_frames} / {b.drop_frames} "
                      f"| {t} | {ag} | {s['value']:.1f} | {_f(s['step'])} ({PAPER_GREEDY_STEP[t]}) "
                      f"| {_f(s['damage'])} | {_f(s['mean_rescue_frame'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
