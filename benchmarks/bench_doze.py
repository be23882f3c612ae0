"""DOZE benchmarks: simulator speed, OCR read rate of whiteboards, and the paper's tables.

  python benchmarks/bench_doze.py speed  [--steps 300] [--people 10] [--size 256]
  python benchmarks/bench_doze.py ocr    [--size 256] [--distances 1,2,3] [--angles 0,30]   (every whiteboard)
  python benchmarks/bench_doze.py table  [--per-type 4] [--agents random,frontier,...] [--workers 2]
                                         [--out-dir runs/doze]     (resumable; Table II and III)

speed: env steps (one DOZE action = 5 simulated frames + one RGB-D + segmentation render)
per second on level 3 with N walking people, the simulated frames per second, and the wall
time of a whole 500-step episode of the frontier agent.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def machine() -> str:
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; load average " \
           f"{os.getloadavg()[0]:.1f}"


def speed(a) -> None:
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.runner import run_episode
    from hazard_sim.tasks.doze.dataset import load
    ep = load(3, "test", 0)
    ep["people"] = a.people
    env = EmbodiedEnv("doze/level3", episode_spec=ep, camera=CameraSpec(a.size, a.size))
    t0 = time.perf_counter()
    env.reset()
    reset_s = time.perf_counter() - t0
    acts = ["MoveAhead", "RotateLeft", "MoveAhead", "MoveAhead", "RotateRight"]
    for k in range(20):
        env.step(acts[k % 5])
    times = []
    for k in range(a.steps):
        t = time.perf_counter()
        env.step(acts[k % 5])
        times.append(time.perf_counter() - t)
    obs = env.last_obs
    people = len(env.world.process("people").people)
    med = float(np.median(times))
    print(f"machine: {machine()}; render backend {env.render_backend}")
    print(f"level 3, {people} walking people, {a.size}x{a.size} RGB + depth + segmentation; reset {reset_s:.2f} s")
    print(f"env steps/s: {a.steps / sum(times):.1f} (mean), {1 / med:.1f} (median step {1000 * med:.2f} ms); "
          f"simulated frames/s: {5 * a.steps / sum(times):.0f}; observation keys {sorted(obs)}")
    if a.compare:
        compare(a, ep, acts)
    t = time.perf_counter()
    m = run_episode("doze/level3", "test", 0, "frontier", 0, camera=CameraSpec(a.size, a.size))
    print(f"whole episode (frontier agent, {m['steps']} steps): {time.perf_counter() - t:.2f} s wall")


def compare(a, ep, acts) -> None:
    """Before / after in one run: the same steps on two envs, alternating, one with the people's
    vertex buffers rebuilt every frame (before) and one writing them in place (after)."""
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render import raster_mesh
    from hazard_sim.render.camera import CameraSpec
    update = raster_mesh.GLMeshGroup.update
    envs = {"before": EmbodiedEnv("doze/level3", episode_spec=ep, camera=CameraSpec(a.size, a.size)),
            "after": EmbodiedEnv("doze/level3", episode_spec=ep, camera=CameraSpec(a.size, a.size))}
    times = {k: [] for k in envs}
    for env in envs.values():
        env.reset()
    try:
        for k in range(a.steps):
            for name, env in envs.items():
                raster_mesh.GLMeshGroup.update = update if name == "after" else (lambda self, meshes: False)
                t = time.perf_counter()
                env.step(acts[k % 5])
                times[name].append(time.perf_counter() - t)
    finally:
        raster_mesh.GLMeshGroup.update = update
    for name, ts in times.items():
        print(f"{name:>6}: {len(ts) / sum(ts):.1f} env steps/s (mean), {1 / np.median(ts):.1f} (median)", flush=True)


def ocr(a) -> None:
    """RapidOCR's read rate of every whiteboard from places ``--distances`` m from its middle and
    ``--angles`` degrees off its front, the camera facing the middle: from the whole frame, the
    frame upscaled 3x, and the crop h_l3mvn reads (the board's pixels, upscaled to 384 px; only when
    it is seen whole)."""
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    from hazard_sim.tasks.doze.dataset import load
    from hazard_sim.tasks.doze.ocr import board_crop, board_only, ocr_text, upscale
    from hazard_sim.tasks.doze.scenes import SCENES, TRAIN_SCENES, build_house
    rates = {}
    envs = {}
    for dist in [float(v) for v in a.distances.split(",")]:
        for angle in [float(v) for v in a.angles.split(",")]:
            ok, n = {"frame": 0, "x3": 0, "crop": 0, "only": 0}, 0
            for scene in SCENES:
                house = build_house(scene)
                if scene not in envs:
                    ep = dict(load(1, "train" if scene in TRAIN_SCENES else "test", 0))
                    grid, free = house.nav_grid()
                    start = [float(v) for v in grid.to_world(np.argwhere(free)[0])]
                    ep.update(scene=scene, goal_ids=[house.items[0].id], hint_ids=[], people=0,
                              initial_position=[start[0], start[1], 0.9], initial_horizon=0.0,
                              shortest_path=[start], shortest_path_length=1.0)   # (no SPL is taken)
                    envs[scene] = EmbodiedEnv("doze/level1", episode_spec=ep, camera=CameraSpec(a.size, a.size))
                    envs[scene].reset()
                env = envs[scene]
                for b in house.boards:
                    # the camera ``dist`` from the board's middle, ``angle`` off its front, facing the middle
                    c, s_ = math.cos(math.radians(angle)), math.sin(math.radians(angle))
                    out = np.array([b.normal[0] * c - b.normal[1] * s_, b.normal[0] * s_ + b.normal[1] * c])
                    env.agent.xy = b.center[:2] + out * dist
                    env.agent.yaw = math.atan2(-out[1], -out[0])
                    obs = env.observe(update_map=False)
                    words = [w.strip(".,!") for w in " ".join(b.lines).lower().split()]
                    mask = obs["seg"] == b.id
                    cols = np.nonzero(mask)[1]
                    whole = len(cols) and cols.min() > 0 and cols.max() < mask.shape[1] - 1
                    variants = [("frame", obs["rgb"]), ("x3", upscale(obs["rgb"], 3))]
                    if whole:
                        variants.append(("crop", board_crop(obs["rgb"], mask)))
                        variants.append(("only", board_only(obs["rgb"], mask)))
                    for variant, img in variants:
                        text = ocr_text(img).lower()
                        got = sum(w in text for w in words) / len(words)
                        ok[variant] += got >= 0.9
                    n += 1
            rates[f"{dist:g} m, {angle:g} deg"] = {k: v / n for k, v in ok.items()}
            print(f"{dist:g} m, {angle:g} deg off the front: whiteboards read (>= 90 % of the words) from the "
                  f"{a.size}x{a.size} frame {ok['frame']}/{n}, upscaled 3x {ok['x3']}/{n}, "
                  f"the board's crop {ok['crop']}/{n}, the frame with the board only {ok['only']}/{n}", flush=True)
    print(json.dumps({"size": a.size, "read_rate": rates}))


def episodes_by_type(level: int, per_type: int, types=("appearance", "spatial", "open_vocab", "hint"),
                     every: int = 1) -> list[int]:
    """``per_type`` test episodes of each goal type, evenly spaced; ``every`` > 1 keeps every
    ``every``-th of each type's selection (a subset of the same episodes: a perceptional run
    pairs with the ground-truth run of the full selection)."""
    from hazard_sim.tasks.doze.dataset import load_split
    eps = load_split(level, "test")
    out = []
    for t in types:
        idx = [e["index"] for e in eps if e["goal_type"] == t]
        step = max(1, len(idx) // per_type)
        out += idx[::step][:per_type][::every]
    return sorted(out)


def table(a) -> None:
    """Agent by agent (so a cut-short run still compares the levels of the agents done), every
    level on the same episodes (``--per-type`` of each goal type); Table II per level and over
    the levels, and Table III (level 1's hint goals, as in the paper)."""
    from hazard_sim.runner import bench
    from hazard_sim.tasks.doze.paper import TABLE_III_LEVEL
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    levels = [int(v) for v in a.levels.split(",")]
    eps = {level: episodes_by_type(level, a.per_type, a.goal_types.split(","), a.every) for level in levels}
    by_level, results = {}, {}
    perception, tag = None, ""
    if a.perception != "groundtruth" or a.min_pixels is not None:
        from hazard_sim.perception.embedded import PerceptionSettings
        perception = PerceptionSettings(backend=a.perception, weights=a.detector_weights, namer=a.namer,
                                        min_pixels=a.min_pixels)
        # beside the ground truth's files (level1_frontier.onnx_namer.jsonl; level1_frontier.px3.jsonl)
        tag = perception.file_tag(f"doze/level{levels[0]}")
    for agent in a.agents.split(","):
        for level in levels:
            r = bench(f"doze/level{level}", "test", agent, eps[level], workers=a.workers,
                      out=str(out / f"level{level}_{agent}{tag}.jsonl"), progress=True, perception=perception)
            if level == TABLE_III_LEVEL:
                results.setdefault(agent, []).extend(r.get("results", []))
            by_level.setdefault(level, {})[agent] = r            # with its per-episode results
    report_tables(by_level, results, out, levels, tag)


def report(a) -> None:
    """The tables of every ``level<N>_<agent>.jsonl`` in ``--out-dir`` (runs of ``table``); with
    ``--perception`` (and ``--namer``), of that backend's files (``level1_frontier.onnx_namer.jsonl``)."""
    from hazard_sim.tasks.doze.paper import TABLE_III_LEVEL, aggregate
    out = Path(a.out_dir)
    tag = ""
    if a.perception != "groundtruth" or a.min_pixels is not None:
        from hazard_sim.perception.embedded import PerceptionSettings
        tag = PerceptionSettings(backend=a.perception, weights=a.detector_weights, namer=a.namer,
                                 min_pixels=a.min_pixels).file_tag("doze/level1")
    by_level, results = {}, {}
    for f in sorted(out.glob(f"level*_*{tag}.jsonl")):
        stem = f.name[:-len(f"{tag}.jsonl")]
        if "." in stem:
            continue            # another backend's run (level1_frontier.onnx_namer.jsonl)
        level, agent = int(stem.split("_", 1)[0][5:]), stem.split("_", 1)[1]
        rs = [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()]
        rs = sorted((r for r in rs if "success" in r), key=lambda r: r["episode"])   # as `table` has them
        if rs:
            if level == TABLE_III_LEVEL:
                results.setdefault(agent, []).extend(rs)
            by_level.setdefault(level, {})[agent] = {**aggregate(rs), "results": rs}
    report_tables(by_level, results, out, sorted(by_level), tag)


def report_tables(by_level, results, out, levels, tag: str = "") -> None:
    """Per level: Table II with intervals and the paper's orderings tested; then the paper's
    Table II over the levels and Table III on level 1's hint goals (``results``)."""
    from hazard_sim.core.spec import get_spec
    from hazard_sim.tasks.doze.paper import aggregate, table_ii, table_iii
    for level in levels:
        rows = [{"agent": ag, **agg} for ag, agg in by_level[level].items()]
        text = get_spec(f"doze/level{level}").table(f"doze/level{level}", rows)
        print(text, flush=True)
        (out / f"table_level{level}{tag}.txt").write_text(text + "\n")    # a perceptional run: its own files
    hints = {ag: aggregate([r for r in rs if r.get("goal_type") == "hint"]) for ag, rs in results.items()}
    text = table_ii(by_level) + "\n\n" + table_iii(hints)
    print(text)
    (out / f"table_ii{tag}.txt").write_text(text + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["speed", "ocr", "table", "report"])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--compare", action="store_true", help="speed: before / after people's buffers in place")
    ap.add_argument("--distances", default="1,2,3", help="ocr: distances (m) from the boards' middles")
    ap.add_argument("--angles", default="0", help="ocr: degrees off the boards' fronts")
    ap.add_argument("--people", type=int, default=10)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--per-type", type=int, default=4)
    ap.add_argument("--every", type=int, default=1,
                    help="table: every N-th episode of each goal type's --per-type selection (a paired subset)")
    ap.add_argument("--agents", default="random,frontier,l3mvn,c_l3mvn,h_l3mvn")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--goal-types", default="appearance,spatial,open_vocab,hint",
                    help="table: goal types of the episodes (e.g. hint for Table III only)")
    ap.add_argument("--out-dir", default="runs/doze")
    ap.add_argument("--perception", default="groundtruth", choices=["groundtruth", "onnx", "yolo", "yolo_world"],
                    help="table: what the agents see (docs/perception.md)")
    ap.add_argument("--detector-weights", default="data/perception/detector.onnx")
    ap.add_argument("--min-pixels", type=int, default=None, metavar="N",
                    help="table / report: an instance counts as seen from N pixels (default: the benchmark's; "
                         "another value's files carry .px<N>)")
    ap.add_argument("--namer", default=None, help="table: a namer (data/perception/namer/namer.onnx)")
    a = ap.parse_args(argv)
    {"speed": speed, "ocr": ocr, "table": table, "report": report}[a.what](a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
