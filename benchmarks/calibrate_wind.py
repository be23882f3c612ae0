"""Wind against the public model's displacements (docs/hazard.md, "Calibration: wind").

The public HAZARD code applies the drag law ``F = rho |v_rel| v_rel A`` (felt wind
``v / (resistance + 1)``) to every object every frame as an impulse of ``F`` N s
(ThreeDWorld's ``apply_force_to_object``), on ThreeDWorld's physics step of 0.01 s per frame
(the ``set_time_step`` command's default) with Unity's default friction 0.6. This script

1. integrates that public model for every target of the wind episodes (a box sliding
   on the ground, downwind, from its start; Coulomb friction; no obstacles): the frame at
   which each would leave the 16 m x 16 m patch;
2. runs our wind (MuJoCo, the episode's own scene and objects, no agent) at several force
   gains and records when each target leaves the patch;
3. prints, per gain, the targets lost by frames 500 / 1000 / 2000 / 3000 against the
   public model's, and the mean distance travelled in the first 500 frames.

    .venv/bin/python benchmarks/calibrate_wind.py --split train --episodes 0-11 --gains 10,30,45,55,100

(the reference is an idealisation: a straight slide downwind that stops at the first building,
tree or cart in the way; no turbulence, no tumbling, no cross force).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

MU = 0.6          # Unity's default physic material (static and dynamic friction)
DT_PUBLIC = 0.01  # s of physics per ThreeDWorld frame (set_time_step's default)
G = 9.81
RHO = 1.225
CHECKS = (500, 1000, 2000, 3000)


def facing_area(size, yaw: float, direction: float) -> float:
    """A box's area facing a horizontal wind (the same law as our model's)."""
    from hazard_sim.rotations import quaternion_to_matrix, yaw_to_quaternion
    from hazard_sim.tasks.hazard.hazards.wind_forces import facing_area as fa
    rot = quaternion_to_matrix(yaw_to_quaternion(yaw))
    wind = np.array([math.cos(direction), math.sin(direction), 0.0])
    return float(fa(np.asarray(size, float)[None] / 2, rot[None], wind)[0])


def public_track(mass, area, resistance, wind, frames):
    """Distance (m) travelled downwind after each frame by the public model (1-D slide)."""
    out = np.zeros(frames)
    if resistance > 10:
        return out
    felt = wind / (resistance + 1.0)
    v = x = 0.0
    for k in range(frames):
        rel = felt - v
        impulse = RHO * abs(rel) * rel * area                       # N s, once per frame
        friction = MU * mass * G * DT_PUBLIC                        # N s over the frame's physics step
        if v > 0 or impulse > friction:
            v = max(0.0, v + (impulse - friction) / mass)
        x += v * DT_PUBLIC
        out[k] = x
    return out


def exit_distance(xy, direction, bounds) -> float:
    """Distance from ``xy`` downwind to the patch's edge."""
    x0, y0, x1, y1 = bounds
    d = np.array([math.cos(direction), math.sin(direction)])
    ts = []
    for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
        if d[k] > 1e-9:
            ts.append((hi - xy[k]) / d[k])
        elif d[k] < -1e-9:
            ts.append((lo - xy[k]) / d[k])
    return min(ts)


def shelter_distance(xy, direction, solid, spec, edge: float) -> float:
    """Distance downwind from ``xy`` to the first solid cell (a building, a tree, a cart: the
    object stops there and is sheltered), or ``edge`` when the way out is clear."""
    d = np.array([math.cos(direction), math.sin(direction)])
    for t in np.arange(0.3, edge, 0.05):
        i, j = spec.to_cell(np.asarray(xy[:2], float) + t * d)
        if 0 <= i < solid.shape[0] and 0 <= j < solid.shape[1] and solid[i, j]:
            return float(t)
    return math.inf


def reference(ep: dict, scene, frames: int, shelter: bool = True):
    from hazard_sim.navigation.grid import GridSpec, rasterize_boxes
    from hazard_sim.tasks.hazard.catalog import category
    wind, direction = ep["wind"]["speed"], ep["wind"]["direction"]
    bounds = scene.bounds
    spec = GridSpec(bounds, 0.1)
    solid = rasterize_boxes(spec, [p.box for p in scene.solids()])
    lost, moved = {}, []
    for o in ep["objects"]:
        if o["category"] not in ep["target_categories"]:
            continue
        c = category("wind", o["category"])
        track = public_track(c.mass, facing_area(c.size, o["yaw"], direction), c.wind_resistance, wind, frames)
        edge = exit_distance(o["position"][:2], direction, bounds)
        if shelter:
            stop = shelter_distance(o["position"], direction, solid, spec, edge)
            if stop < edge:
                track = np.minimum(track, stop)
        out = np.nonzero(track >= edge)[0]
        lost[o["id"]] = int(out[0]) + 1 if len(out) else None
        moved.append(min(track[min(499, frames - 1)], edge))
    return lost, moved


def ours(split: str, episode: int, gain: float, frames: int):
    from hazard_sim.runner import make_env
    wrapped = make_env("hazard/wind", split, episode, seed=0)
    wrapped.reset()
    env = wrapped.unwrapped
    for p in env.world.processes:
        if getattr(p, "name", "") == "wind":
            p.model.gain = float(gain)
    targets = env.world.targets()
    start = {o.id: o.position[:2].copy() for o in targets}
    moved = None
    while env.world.frame < frames:
        env.advance(min(100, frames - env.world.frame))
        if env.world.frame == 500:
            moved = [float(np.linalg.norm(o.position[:2] - start[o.id])) for o in targets]
    lost = {o.id: o.meta.get("lost_at") for o in targets}
    env.close()
    return lost, moved or []


def _count(lost: dict, by: int) -> int:
    return sum(1 for f in lost.values() if f is not None and f <= by)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="train", choices=("train", "test"))
    ap.add_argument("--episodes", default="0-11", help="wind episodes of the split, e.g. 0-11 or 0,3")
    ap.add_argument("--gains", default="10,30,100", help="force gains to try (10: the per-frame impulse on 0.1 s)")
    ap.add_argument("--frames", type=int, default=3000)
    a = ap.parse_args(argv)
    from hazard_sim.tasks.hazard.dataset import load_dataset
    from hazard_sim.tasks.hazard.scenes import build_scene
    lo, _, hi = a.episodes.partition("-")
    eps = list(range(int(lo), int(hi or lo) + 1)) if "," not in a.episodes else [int(x) for x in a.episodes.split(",")]
    data = load_dataset("wind", a.split)
    checks = [c for c in CHECKS if c <= a.frames]
    ref_lost, ref_moved, n = {}, [], 0
    for e in eps:
        ep = data[e]
        lost, moved = reference(ep, build_scene(ep["scene"]), a.frames)
        ref_lost.update({(e, k): v for k, v in lost.items()})
        ref_moved += moved
        n += len(lost)
    print(f"{len(eps)} wind {a.split} episodes, {n} targets; lost by frame " + " / ".join(map(str, checks)) +
          "; mean distance moved in 500 frames (m)")
    print(f"  public model (mu {MU}, {DT_PUBLIC} s a frame): " +
          " / ".join(str(_count(ref_lost, c)) for c in checks) + f"; {np.mean(ref_moved):.2f}", flush=True)
    for gain in [float(g) for g in a.gains.split(",")]:
        all_lost, all_moved = {}, []
        for e in eps:
            lost, moved = ours(a.split, e, gain, a.frames)
            all_lost.update({(e, k): v for k, v in lost.items()})
            all_moved += moved
        print(f"  ours, gain {gain:g}: " + " / ".join(str(_count(all_lost, c)) for c in checks) +
              f"; {np.mean(all_moved):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
