"""``hazard``: run HAZARD episodes and benchmark sweeps from the command line.

  hazard run   --task fire --split test --episode 0 --agent greedy --seed 0 [--json] [--save-viz DIR]
  hazard bench --task fire --split test --agent mcts [--episodes N] [--workers K] [--out FILE] [--ray ADDRESS]
  hazard table --task fire --agents random,rule,greedy,mcts [--out-dir DIR] [--workers K]
  hazard dataset generate [--out DIR] | hazard dataset validate FILE...
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hazard_sim.agents import AGENTS
from hazard_sim.dataset import SPLITS, TASKS, DatasetError

PAPER = {  # HAZARD Table 1 (ground-truth segmentation): value %, step, damage %
    "fire": {"random": (43.8, 279.1, 37.3), "rule": (53.1, 236.1, 32.3), "greedy": (35.4, 315.8, 25.9),
             "mcts": (75.9, 150.1, 19.7)},
    "flood": {"random": (28.1, 286.6, 80.0), "rule": (27.3, 325.3, 82.2), "greedy": (18.5, 289.9, 80.3),
              "mcts": (43.7, 146.6, 69.9)},
    "wind": {"random": (7.1, 1131.8, None), "rule": (0.0, None, None), "greedy": (0.2, 444.0, None),
             "mcts": (18.0, None, None)},
}


def _camera(a):
    from hazard_sim.render.camera import CameraSpec
    return CameraSpec(width=a.width, height=a.height, hfov_deg=a.hfov)


def _agent_kwargs(a) -> dict:
    return {"simulations": a.mcts_simulations} if a.agent.startswith("mcts") and a.mcts_simulations else {}


def cmd_run(a) -> int:
    from hazard_sim.runner import run_episode
    m = run_episode(a.task, a.split, a.episode, a.agent, a.seed, camera=_camera(a), save_viz=a.save_viz,
                    hazards_affect_agent=a.hazards_affect_agent, agent_kwargs=_agent_kwargs(a),
                    render_backend=a.render_backend)
    if a.json:
        print(json.dumps(m, sort_keys=True))
    else:
        print(f"{a.task}/{a.split} episode {a.episode} ({m['scene']}), agent {a.agent}, seed {a.seed}")
        print(f"  value rate {m['value_rate']:.3f}   step {_fmt(m['step'])}   damage {_fmt(m['damage'])}")
        print(f"  rescued {m['rescued_count']}/{m['targets']} targets in {m['frames']} frames, "
              f"{m['actions']} actions ({m['failed_actions']} failed), {m['wall_time_s']:.1f} s")
        if a.save_viz:
            print(f"  pictures: {m['viz']['topdown']}, {m['viz']['first_person']}, {m['viz']['dir']}/frames/")
    return 0


def _fmt(v, nd=1):
    return "-" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def table_rows(task: str, rows: list[dict]) -> str:
    head = f"{'agent':<11} {'Value':>7} {'Step':>8} {'Damage':>7} | paper {'Value':>6} {'Step':>7} {'Damage':>6}  (n)"
    lines = [f"HAZARD {task} ({rows[0]['split']} split)", head, "-" * len(head)]
    for r in rows:
        p = PAPER.get(task, {}).get(r["agent"], (None, None, None))
        lines.append(f"{r['agent']:<11} {_fmt(r['value']):>7} {_fmt(r['step']):>8} {_fmt(r['damage']):>7} | "
                     f"      {_fmt(p[0]):>6} {_fmt(p[1]):>7} {_fmt(p[2]):>6}  ({r['episodes']})")
    return "\n".join(lines)


def _episodes(a) -> list[int]:
    from hazard_sim.dataset import load_dataset
    n = len(load_dataset(a.task, a.split))
    count = n if a.episodes is None else a.episodes
    if not 1 <= count <= n:
        raise IndexError(f"--episodes {count} out of range: {a.task}/{a.split} has {n} episodes")
    return list(range(count))


def cmd_bench(a) -> int:
    from hazard_sim.runner import bench
    r = bench(a.task, a.split, a.agent, _episodes(a), workers=a.workers, seed=a.seed, out=a.out,
              ray_address=a.ray, agent_kwargs=_agent_kwargs(a))
    print(table_rows(a.task, [r]))
    if a.json:
        print(json.dumps({k: v for k, v in r.items() if k != "results"}, sort_keys=True))
    return 0


def cmd_table(a) -> int:
    from hazard_sim.runner import bench
    out_dir = Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for agent in a.agents.split(","):
        if agent not in AGENTS:
            raise KeyError(f"unknown agent {agent!r}; known: {', '.join(sorted(AGENTS))}")
        a.agent = agent
        rows.append(bench(a.task, a.split, agent, _episodes(a), workers=a.workers, seed=a.seed,
                          out=str(out_dir / f"{a.task}_{a.split}_{agent}.jsonl"), ray_address=a.ray,
                          agent_kwargs=_agent_kwargs(a)))
    text = table_rows(a.task, rows)
    print(text)
    (out_dir / f"table_{a.task}_{a.split}.txt").write_text(text + "\n")
    return 0


def cmd_dataset(a) -> int:
    from hazard_sim.dataset import write_datasets
    if a.action == "generate":
        for p in write_datasets(Path(a.out) if a.out else None):
            print(p)
        return 0
    import json as _json

    from hazard_sim.dataset import validate_episode
    for f in a.files:
        try:
            doc = _json.loads(Path(f).read_text())
        except (OSError, _json.JSONDecodeError) as e:
            raise DatasetError(f"{f}: cannot read ({e})") from None
        for i, ep in enumerate(doc.get("episodes", [])):
            validate_episode(ep, f"{f} episode {i}")
        print(f"{f}: {len(doc.get('episodes', []))} episodes ok")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hazard", description="HAZARD rescue benchmark (fire, flood, wind)")
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp, agent=True):
        sp.add_argument("--task", required=True, choices=TASKS)
        sp.add_argument("--split", default="test", choices=SPLITS)
        if agent:
            sp.add_argument("--agent", default="greedy", choices=sorted(AGENTS))
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--mcts-simulations", type=int, default=None, help="MCTS simulations (default 2000)")
        sp.add_argument("--width", type=int, default=256)
        sp.add_argument("--height", type=int, default=256)
        sp.add_argument("--hfov", type=float, default=90.0)
        sp.add_argument("--render-backend", default="auto", choices=["auto", "raster", "raycast"])

    r = sub.add_parser("run", help="run one episode")
    common(r)
    r.add_argument("--episode", type=int, default=0)
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.add_argument("--save-viz", metavar="DIR", help="write top-down and first-person pictures")
    r.add_argument("--hazards-affect-agent", action="store_true")
    r.set_defaults(func=cmd_run)

    from hazard_sim.runner import default_workers
    b = sub.add_parser("bench", help="run many episodes in parallel and print the paper's table")
    common(b)
    b.add_argument("--episodes", type=int, default=None, help="first N episodes (default all)")
    b.add_argument("--workers", type=int, default=default_workers())
    b.add_argument("--out", help="JSON-lines results file (resumed if it exists)")
    b.add_argument("--ray", metavar="ADDRESS", help="run on a Ray cluster (pip install ray)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bench)

    t = sub.add_parser("table", help="bench several agents and print one table")
    common(t, agent=False)
    t.add_argument("--agents", default="random,rule,greedy,mcts")
    t.add_argument("--episodes", type=int, default=None)
    t.add_argument("--workers", type=int, default=default_workers())
    t.add_argument("--out-dir", default="runs/bench")
    t.add_argument("--ray", metavar="ADDRESS")
    t.set_defaults(func=cmd_table)

    d = sub.add_parser("dataset", help="generate or validate episode files")
    d.add_argument("action", choices=["generate", "validate"])
    d.add_argument("files", nargs="*")
    d.add_argument("--out", help="directory (default: the package's data/hazard/v1)")
    d.set_defaults(func=cmd_dataset)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (DatasetError, IndexError, KeyError, ValueError, FileNotFoundError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"hazard: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
