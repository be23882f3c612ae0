"""``hazard``: run benchmark episodes and sweeps from the command line.

  hazard run   --benchmark hazard/fire --split test --episode 0 --agent greedy --seed 0 [--json] [--save-viz DIR]
  hazard bench --benchmark hazard/fire --split test --agent mcts [--episodes N] [--workers K] [--out FILE]
  hazard table --benchmark hazard/fire --agents random,rule,greedy,mcts [--out-dir DIR] [--workers K]
  hazard benchmarks                        (the registered benchmark ids)
  hazard dataset generate [--out DIR] | hazard dataset validate FILE...

``--task fire`` is the older spelling of ``--benchmark hazard/fire`` (same results).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hazard_sim.agents import AGENT_GROUPS, agents_for
from hazard_sim.core.spec import ALIASES, benchmark_ids, get_spec
from hazard_sim.dataset import SPLITS, DatasetError


def _camera(a):
    from hazard_sim.render.camera import CameraSpec
    return CameraSpec(width=a.width, height=a.height, hfov_deg=a.hfov)


def _agent_kwargs(a) -> dict:
    return {"simulations": a.mcts_simulations} if a.agent.startswith("mcts") and a.mcts_simulations else {}


def _benchmark(a) -> str:
    """The benchmark id from --benchmark or the older --task."""
    if a.benchmark and a.task and get_spec(a.benchmark).id != get_spec(a.task).id:
        raise ValueError(f"--benchmark {a.benchmark} and --task {a.task} disagree: give one")
    if not (a.benchmark or a.task):
        raise ValueError("give --benchmark ID (hazard benchmarks lists them) or --task fire|flood|wind")
    a.benchmark = get_spec(a.benchmark or a.task).id
    return a.benchmark


def cmd_run(a) -> int:
    from hazard_sim.runner import run_episode
    m = run_episode(_benchmark(a), a.split, a.episode, a.agent, a.seed, camera=_camera(a), save_viz=a.save_viz,
                    hazards_affect_agent=a.hazards_affect_agent, agent_kwargs=_agent_kwargs(a),
                    render_backend=a.render_backend)
    if a.json:
        print(json.dumps(m, sort_keys=True))
    else:
        print(f"{a.benchmark}/{a.split} episode {a.episode} ({m['scene']}), agent {a.agent}, seed {a.seed}")
        spec = get_spec(a.benchmark)
        if "value_rate" not in m and spec.progress is not None:     # benchmarks with other metrics
            print(f"  {spec.progress(m)}; {m['frames']} frames, {m['actions']} actions, {m['wall_time_s']:.1f} s")
            if a.save_viz:
                print(f"  pictures: {m['viz']}")
            return 0
        print(f"  value rate {m['value_rate']:.3f}   step {_fmt(m['step'])}   damage {_fmt(m['damage'])}")
        print(f"  rescued {m['rescued_count']}/{m['targets']} targets in {m['frames']} frames, "
              f"{m['actions']} actions ({m['failed_actions']} failed), {m['wall_time_s']:.1f} s")
        if a.save_viz:
            print(f"  pictures: {m['viz']['topdown']}, {m['viz']['first_person']}, {m['viz']['dir']}/frames/")
    return 0


def _fmt(v, nd=1):
    return "-" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def table_rows(benchmark: str, rows: list[dict]) -> str:
    """The benchmark's table of ``rows`` beside the paper's numbers."""
    spec = get_spec(benchmark)
    if spec.table is None:
        raise ValueError(f"benchmark {spec.id} has no table layout")
    return spec.table(spec.id, rows)


def _episodes(a) -> list[int]:
    n = get_spec(a.benchmark).dataset.count(a.split)
    count = n if a.episodes is None else a.episodes
    if not 1 <= count <= n:
        raise IndexError(f"--episodes {count} out of range: {a.benchmark}/{a.split} has {n} episodes")
    return list(range(count))


def cmd_bench(a) -> int:
    from hazard_sim.runner import bench
    r = bench(_benchmark(a), a.split, a.agent, _episodes(a), workers=a.workers, seed=a.seed, out=a.out,
              ray_address=a.ray, agent_kwargs=_agent_kwargs(a))
    print(table_rows(a.benchmark, [r]))
    if a.json:
        print(json.dumps({k: v for k, v in r.items() if k != "results"}, sort_keys=True))
    return 0


def cmd_table(a) -> int:
    from hazard_sim.runner import bench
    _benchmark(a)
    out_dir = Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for agent in a.agents.split(","):
        known = agents_for(a.benchmark)
        if agent not in known:
            raise KeyError(f"unknown agent {agent!r} for {a.benchmark}; known: {', '.join(sorted(known))}")
        a.agent = agent
        rows.append(bench(a.benchmark, a.split, agent, _episodes(a), workers=a.workers, seed=a.seed,
                          out=str(out_dir / f"{_legacy_stem(a.benchmark)}_{a.split}_{agent}.jsonl"), ray_address=a.ray,
                          agent_kwargs=_agent_kwargs(a)))
    text = table_rows(a.benchmark, rows)
    print(text)
    (out_dir / f"table_{_legacy_stem(a.benchmark)}_{a.split}.txt").write_text(text + "\n")
    return 0


def _legacy_stem(benchmark: str) -> str:
    """File-name stem of a benchmark's sweep files (an alias keeps older sweeps resumable)."""
    for alias, bid in ALIASES.items():
        if bid == benchmark:
            return alias
    return benchmark.replace("/", "_")


def cmd_benchmarks(a) -> int:
    for bid in benchmark_ids():
        spec = get_spec(bid)
        aliases = [k for k, v in ALIASES.items() if v == bid]
        alias = f" (alias: {', '.join(aliases)})" if aliases else ""
        print(f"{bid:<16} {spec.gym_id:<32} {spec.description}{alias}")
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
    p = argparse.ArgumentParser(prog="hazard", description="embodied benchmarks in dangerous, changing worlds "
                                                           "(HAZARD fire / flood / wind, ...)")
    sub = p.add_subparsers(dest="cmd", required=True)
    benchmark_ids()          # registers the shipped benchmarks (and their aliases)

    def common(sp, agent=True):
        sp.add_argument("--benchmark", metavar="ID", help="benchmark id, e.g. hazard/fire (hazard benchmarks)")
        sp.add_argument("--task", choices=sorted(ALIASES), help="older spelling: --task fire = --benchmark hazard/fire")
        sp.add_argument("--split", default="test", choices=SPLITS)
        if agent:
            sp.add_argument("--agent", default="greedy", choices=sorted({n for g in AGENT_GROUPS.values() for n in g}),
                            help="an agent of the benchmark's group (HAZARD: random, rule, greedy, mcts, ...)")
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

    bl = sub.add_parser("benchmarks", help="list the registered benchmark ids")
    bl.set_defaults(func=cmd_benchmarks)

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
