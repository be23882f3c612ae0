"""``hazard``: run benchmark episodes and sweeps from the command line.

  hazard run   --benchmark hazard/fire --split test --episode 0 --agent greedy --seed 0 [--json] [--save-viz DIR]
  hazard bench --benchmark hazard/fire --split test --agent mcts [--episodes N] [--workers K] [--out FILE]
  hazard table --benchmark hazard/fire --agents random,rule,greedy,mcts [--out-dir DIR] [--workers K]
  hazard train-ppo --task fire --steps N --out-dir DIR [--envs K] [--resume]   (HAZARD's PPO agent)
  hazard benchmarks                        (the registered benchmark ids)
  hazard dataset generate [--out DIR] | hazard dataset validate FILE...   (any benchmark's episode files)

run, bench and table take ``--perception groundtruth|onnx|yolo|yolo_world --detector-weights FILE``
(what the agents see; docs/perception.md).

``--task fire`` is the older spelling of ``--benchmark hazard/fire`` (same results).
"""
from __future__ import annotations

import argparse
import errno
import io
import json
import os
import signal
import sys
from pathlib import Path

from hazard_sim.agents import agents_for, all_agent_names, cli_kwargs
from hazard_sim.arg_types import float_in as _float_in
from hazard_sim.arg_types import int_in as _int_in
from hazard_sim.core.spec import ALIASES, DEFAULT_SPLITS, benchmark_ids, get_spec
from hazard_sim.llm.client import MAX_RETRIES, MAX_TIMEOUT_S
from hazard_sim.perception.errors import DetectorError
from hazard_sim.ray_cluster import RayUnavailable
from hazard_sim.sweep_io import SweepInterrupted, check_results_path
from hazard_sim.validation import DatasetError


def _camera(a):
    from hazard_sim.render.camera import CameraSpec
    return CameraSpec(width=a.width, height=a.height, hfov_deg=a.hfov)


def _check_file_out(path: str | None, option: str) -> None:
    """An output file: opened for appending (not by its permission bits), a regular file or a
    new one, in a directory that exists (or can be made)."""
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{option} {path}: is a directory; give a file name")
    _check_dir_out(str(p.parent) if str(p.parent) else ".", option)
    check_results_path(p, option)


def _check_dir_out(path: str | None, option: str) -> None:
    """An output directory: a directory (made if missing) that is writable."""
    if not path:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{option} {path}: is a file; give a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot create it ({e.strerror})") from None
    if not os.access(p, os.W_OK):
        raise ValueError(f"{option} {path}: not writable")


def _perception(a):
    """The perception settings of run / bench / table, checked once here (a missing or
    mismatched weights file is reported before any episode starts)."""
    from hazard_sim.perception.embedded import EmbeddedPerception, PerceptionSettings
    s = PerceptionSettings(backend=a.perception, weights=a.detector_weights, min_pixels=a.min_pixels,
                           confidence=a.detector_confidence, imgsz=a.detector_imgsz,
                           text_embeddings=a.text_embeddings, namer=a.namer)
    EmbeddedPerception(s, a.benchmark)
    return s


def _perception_once(a):
    """:func:`_perception` of ``a``, checked once per command (kept on ``a``)."""
    if not hasattr(a, "_perception_settings"):
        a._perception_settings = _perception(a)
    return a._perception_settings


def _run_options(a) -> dict:
    """What run, bench and table pass to every episode besides the agent."""
    return dict(camera=_camera(a), render_backend=a.render_backend,
                processes_act_on_body=getattr(a, "processes_act_on_body", False),
                frame_limit=getattr(a, "frame_limit", None), perception=_perception_once(a))


def _agent_kwargs(a) -> dict:
    """The keyword arguments the chosen agent takes from the command line (its ``cli_options``)."""
    cls = agents_for(a.benchmark).get(a.agent)
    return cli_kwargs(cls, a) if cls is not None else {}


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
    spec = get_spec(_benchmark(a))
    _check_dir_out(a.save_viz, "--save-viz")
    m = run_episode(a.benchmark, a.split, a.episode, a.agent, a.seed, save_viz=a.save_viz,
                    agent_kwargs=_agent_kwargs(a), **_run_options(a))
    if a.json:
        omit = set(get_spec(a.benchmark).json_omit)
        if omit and "wall_time_s" in omit:
            print(f"wall time {m['wall_time_s']:.1f} s", file=sys.stderr)
        print(json.dumps({k: v for k, v in m.items() if k not in omit}, sort_keys=True))
    elif "value_rate" not in m:       # another benchmark's metrics: its progress line and every key
        spec = get_spec(a.benchmark)
        print(f"{a.benchmark}/{a.split} episode {a.episode} ({m['scene']}), agent {a.agent}, seed {a.seed}")
        if spec.progress:
            print(f"  {spec.progress(m)}")
        for k in sorted(m):
            if not isinstance(m[k], (dict, list)):
                print(f"  {k}: {m[k]}")
    else:
        print(f"{a.benchmark}/{a.split} episode {a.episode} ({m['scene']}), agent {a.agent}, seed {a.seed}")
        if spec.progress:
            print(f"  {spec.progress(m)}")
        print(f"  {m['frames']} frames, {m['actions']} actions ({m['failed_actions']} failed), "
              f"{m['wall_time_s']:.1f} s")
        if "llm_calls" in m:
            print(f"  LLM: {m['llm_calls']} calls, {m['llm_fallbacks']} fallbacks of {m['llm_decisions']} decisions; "
                  f"transcript {m['llm_transcript']}")
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
    ds = get_spec(a.benchmark).dataset
    n = ds.count(a.split)
    count = ds.sweep_count(a.split) if a.episodes is None else a.episodes
    if not 1 <= count <= n:
        raise IndexError(f"--episodes {count} out of range: {a.benchmark}/{a.split} has {n} episodes")
    return list(range(count))


def cmd_bench(a) -> int:
    from hazard_sim.runner import bench
    _benchmark(a)
    _check_file_out(a.out, "--out")
    r = bench(a.benchmark, a.split, a.agent, _episodes(a), workers=a.workers, seed=a.seed, out=a.out,
              ray_address=a.ray, agent_kwargs=_agent_kwargs(a), **_run_options(a))
    print(table_rows(a.benchmark, [r]))
    if a.json:
        print(json.dumps({k: v for k, v in r.items() if k != "results"}, sort_keys=True))
    return 0


def cmd_table(a) -> int:
    from hazard_sim.runner import bench
    _benchmark(a)
    known = agents_for(a.benchmark)
    listed = a.agents or ",".join(DEFAULT_TABLE_AGENTS + (("llm",) if _llm_configured() else ()))
    agents = [x.strip() for x in listed.split(",") if x.strip()]
    bad = [x for x in agents if x not in known]
    if bad or not agents:                   # checked before any episode runs
        raise KeyError(f"unknown agent(s) {', '.join(bad) or '(none given)'} for {a.benchmark}; "
                       f"known: {', '.join(sorted(known))}")
    _check_dir_out(a.out_dir, "--out-dir")
    out_dir = Path(a.out_dir)
    episodes = _episodes(a)
    # results of another perception backend go to files of their own (fire_test_greedy.onnx.jsonl;
    # with an instance namer: .onnx_namer.jsonl)
    tag = _perception_once(a).file_tag(a.benchmark)
    rows = []
    for agent in agents:
        a.agent = agent
        rows.append(bench(a.benchmark, a.split, agent, episodes, workers=a.workers, seed=a.seed,
                          out=str(out_dir / f"{_legacy_stem(a.benchmark)}_{a.split}_{agent}{tag}.jsonl"),
                          ray_address=a.ray, agent_kwargs=_agent_kwargs(a), **_run_options(a)))
    text = table_rows(a.benchmark, rows)
    print(text)
    (out_dir / f"table_{_legacy_stem(a.benchmark)}_{a.split}{tag}.txt").write_text(text + "\n")
    return 0


DEFAULT_TABLE_AGENTS = ("random", "random_public", "ppo", "rule", "greedy", "mcts", "mcts_hazard")


def _llm_configured() -> bool:
    """An LLM endpoint is configured (the table then adds the LLM row)."""
    import os
    return bool(os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")) and \
        bool(os.environ.get("OPENAI_MODEL"))


def _legacy_stem(benchmark: str) -> str:
    """File-name stem of a benchmark's sweep files (an alias keeps older sweeps resumable)."""
    for alias, bid in ALIASES.items():
        if bid == benchmark:
            return alias
    return benchmark.replace("/", "_")


def cmd_train_ppo(a) -> int:
    from hazard_sim.tasks.hazard.rl.train import TrainConfig, train
    out = a.out_dir or f"runs/ppo_{a.task}"
    _check_dir_out(out, "--out-dir")
    n = get_spec(a.task).dataset.count(a.split)
    if a.episodes is not None and a.episodes > n:
        raise IndexError(f"--episodes {a.episodes} out of range: hazard/{a.task}/{a.split} has {n} episodes")
    cfg = TrainConfig(task=a.task, steps=a.steps, out_dir=out, envs=a.envs, vec=a.vec, split=a.split,
                      episodes=None if a.episodes is None else list(range(a.episodes)), seed=a.seed,
                      camera=(a.width, a.height, 90.0), checkpoint_every=a.checkpoint_every, resume=a.resume,
                      failure_penalty=a.failure_penalty,
                      progress=not a.no_progress)
    s = train(cfg)
    state = "interrupted; resume with --resume" if s["interrupted"] else f"policy {out}/ppo_{a.task}.zip"
    print(f"{s['steps_done']} steps, {s['frames']} frames in {s['wall_s']:.0f} s "
          f"({s.get('frames_per_s', 0):.0f} frames/s), {s.get('episodes', 0)} episodes, mean value rate of the "
          f"last 20: {s.get('mean_value_rate_last20')}; {state}; curve {out}/learning_curve.png")
    return 130 if s["interrupted"] else 0


def cmd_benchmarks(a) -> int:
    if getattr(a, "min_pixels", False):
        print(f"{'benchmark':<16} {'groundtruth':>11} {'detector':>8}   (mask pixels from which an instance counts "
              "as seen: docs/perception.md, \"Minimum size\")")
        for bid in benchmark_ids():
            spec = get_spec(bid)
            print(f"{bid:<16} {spec.min_pixels:>11} {spec.detector_min_pixels:>8}")
        return 0
    for bid in benchmark_ids():
        spec = get_spec(bid)
        aliases = [k for k, v in ALIASES.items() if v == bid]
        alias = f" (alias: {', '.join(aliases)})" if aliases else ""
        print(f"{bid:<16} {spec.gym_id:<32} {spec.description}{alias}")
    return 0


def cmd_dataset(a) -> int:
    from hazard_sim.tasks.hazard.dataset import write_datasets
    if a.action == "generate":
        for p in write_datasets(Path(a.out) if a.out else None):
            print(p)
        return 0
    from hazard_sim.validation import validate_file
    if not a.files:
        raise ValueError("dataset validate needs at least one FILE")
    failed = 0
    for f in a.files:              # every file is checked (any benchmark's); each bad one is reported, then exit 1
        try:
            summary = validate_file(f)
        except DatasetError as e:
            print(f"hazard: error: {e}", file=sys.stderr)
            failed += 1
            continue
        print(summary)
    return 1 if failed else 0


def _processes_option(sp) -> None:
    sp.add_argument("--processes-act-on-body", "--hazards-affect-agent", action="store_true",
                    dest="processes_act_on_body",
                    help="world processes act on the body (HAZARD's harder setting: fire blocks and heat slows "
                         "it, water slows it, wind pushes it); --hazards-affect-agent is the older spelling")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hazard", description="embodied benchmarks in dangerous, changing worlds "
                                                           "(HAZARD fire / flood / wind, ...)")
    sub = p.add_subparsers(dest="cmd", required=True)
    benchmark_ids()          # registers the shipped benchmarks (and their aliases)

    def common(sp, agent=True):
        sp.add_argument("--benchmark", metavar="ID", help="benchmark id, e.g. hazard/fire (hazard benchmarks)")
        sp.add_argument("--task", choices=sorted(ALIASES), help="older spelling: --task fire = --benchmark hazard/fire")
        sp.add_argument("--split", default="test", choices=DEFAULT_SPLITS)
        if agent:
            sp.add_argument("--agent", default="greedy", choices=all_agent_names(),
                            help="an agent of the benchmark's group (HAZARD: random, rule, greedy, mcts, ...)")
        sp.add_argument("--seed", type=_int_in(0, 2 ** 32 - 1), default=0)
        sp.add_argument("--mcts-simulations", type=_int_in(1, 100_000), default=None,
                        help="MCTS simulations (1..100000; default 2000)")
        sp.add_argument("--width", type=_int_in(8, 4096), default=256, help="image width (8..4096 px)")
        sp.add_argument("--height", type=_int_in(8, 4096), default=256, help="image height (8..4096 px)")
        sp.add_argument("--hfov", type=_float_in(1.0, 179.0, open_ends=True), default=90.0,
                        help="horizontal field of view (degrees, between 1 and 179)")
        sp.add_argument("--render-backend", default="auto", choices=["auto", "raster", "raycast"])
        pe = sp.add_argument_group("perception (what the agents see; docs/perception.md)")
        pe.add_argument("--perception", default="groundtruth", choices=["groundtruth", "onnx", "yolo", "yolo_world"],
                        help="backend whose instances replace the segmentation the agents see (default groundtruth)")
        pe.add_argument("--detector-weights", metavar="FILE", help="model file: .onnx (onnx), .pt (yolo, yolo_world)")
        pe.add_argument("--min-pixels", type=_int_in(0, 10 ** 6), metavar="N", default=None,
                        help="an instance counts as seen from N pixels (default: the benchmark's own; for "
                             "groundtruth the shipped detector's half-ceiling point, for a detector a small "
                             "floor: `hazard benchmarks --min-pixels` lists them; docs/perception.md)")
        pe.add_argument("--detector-confidence", type=_float_in(0.0, 1.0), default=0.25, metavar="P",
                        help="minimum detection score (default 0.25)")
        pe.add_argument("--detector-imgsz", type=_int_in(32, 4096), default=None, metavar="PX",
                        help="inference size (default: the camera's size rounded up to 32)")
        pe.add_argument("--text-embeddings", metavar="SOURCE",
                        help="yolo_world: class-name embeddings offline: minilm or an .npz / .pt file")
        pe.add_argument("--namer", metavar="FILE",
                        help="onnx / yolo: a namer (namer.onnx from hazard perception namer-train) that names "
                             "the detector's `object`s by kind (object-navigation goals)")
        sp.add_argument("--ppo-policy", metavar="PATH",
                        help="--agent ppo: a policy .zip from hazard train-ppo (default data/policies/ppo_<task>.zip)")
        llm = sp.add_argument_group("LLM agent (--agent llm; any OpenAI-compatible chat endpoint)")
        llm.add_argument("--llm-mode", default="direct", choices=["direct", "cot"],
                         help="direct answer, or chain of thought then a second call for the option")
        llm.add_argument("--llm-model", metavar="NAME", help="model name (default: $OPENAI_MODEL)")
        llm.add_argument("--llm-base-url", metavar="URL",
                         help="endpoint, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL; key: "
                              "$OPENAI_API_KEY)")
        llm.add_argument("--llm-timeout", type=_float_in(0.0, MAX_TIMEOUT_S, open_ends=True), metavar="S",
                         help=f"seconds per request, more than 0 and less than {MAX_TIMEOUT_S:g} (default 60)")
        llm.add_argument("--llm-retries", type=_int_in(0, MAX_RETRIES), metavar="N",
                         help=f"retries of a failed request, 0..{MAX_RETRIES} (default 2)")
        llm.add_argument("--llm-transcript-dir", metavar="DIR",
                         help="where the per-episode transcripts go (default runs/llm)")

    r = sub.add_parser("run", help="run one episode")
    common(r)
    r.add_argument("--episode", type=_int_in(0, 10 ** 9), default=0)
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.add_argument("--save-viz", metavar="DIR", help="write top-down and first-person pictures")
    _processes_option(r)
    r.add_argument("--frame-limit", type=_int_in(1, 10 ** 7), metavar="N",
                   help="end the episode after N frames (default: the benchmark's limit)")
    r.set_defaults(func=cmd_run)

    from hazard_sim.runner import default_workers
    b = sub.add_parser("bench", help="run many episodes in parallel and print the paper's table")
    common(b)
    b.add_argument("--episodes", type=_int_in(1, 10 ** 9), default=None,
                   help="first N episodes (default: the benchmark's sweep, e.g. its leaderboard's count)")
    b.add_argument("--workers", type=_int_in(1, 64), default=default_workers(), help="parallel workers (1..64)")
    _processes_option(b)
    b.add_argument("--out", help="JSON-lines results file (resumed if it exists)")
    b.add_argument("--ray", metavar="ADDRESS", help="run the episodes on a Ray cluster at HOST:PORT or "
                   "'auto' (start one with .venv/bin/ray start --head)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bench)

    t = sub.add_parser("table", help="bench several agents and print one table")
    common(t, agent=False)
    t.add_argument("--agents", default=None,
                   help="comma-separated (default random,ppo,rule,greedy,mcts,mcts_hazard, and llm when OPENAI_MODEL "
                        "and OPENAI_BASE_URL or OPENAI_API_KEY are set)")
    t.add_argument("--episodes", type=_int_in(1, 10 ** 9), default=None,
                   help="first N episodes (default: the benchmark's sweep, e.g. its leaderboard's count)")
    t.add_argument("--workers", type=_int_in(1, 64), default=default_workers(), help="parallel workers (1..64)")
    _processes_option(t)
    t.add_argument("--out-dir", default="runs/bench")
    t.add_argument("--ray", metavar="ADDRESS", help="as for bench")
    t.set_defaults(func=cmd_table)

    tp = sub.add_parser("train-ppo", help="train HAZARD's PPO agent (stable-baselines3, CPU)")
    tp.add_argument("--task", required=True,
                    choices=[b.split("/", 1)[1] for b in benchmark_ids() if b.startswith("hazard/")])
    tp.add_argument("--steps", type=_int_in(1, 10 ** 9), default=20_000, help="agent actions in total")
    tp.add_argument("--out-dir", default=None, help="checkpoints, curve.csv, learning_curve.png, the policy "
                                                    "(default runs/ppo_<task>)")
    tp.add_argument("--envs", type=_int_in(1, 64), default=2, help="parallel environments")
    tp.add_argument("--vec", default="subproc", choices=["subproc", "dummy"],
                    help="environments in worker processes (subproc) or in this one (dummy)")
    tp.add_argument("--split", default="train", choices=DEFAULT_SPLITS)
    tp.add_argument("--episodes", type=_int_in(1, 10 ** 9), default=None, help="first N episodes (default all)")
    tp.add_argument("--seed", type=_int_in(0, 2 ** 31 - 1), default=0)
    tp.add_argument("--width", type=_int_in(8, 4096), default=256, help="camera width while training (px)")
    tp.add_argument("--height", type=_int_in(8, 4096), default=256, help="camera height while training (px)")
    tp.add_argument("--failure-penalty", type=_float_in(0.0, 100.0), default=0.0, metavar="R",
                    help="reward -R per failed action (the public code's earlier version: 2; default 0)")
    tp.add_argument("--checkpoint-every", type=_int_in(1, 10 ** 9), default=2048, metavar="STEPS")
    tp.add_argument("--resume", action="store_true", help="continue from OUT_DIR/checkpoint.zip")
    tp.add_argument("--no-progress", action="store_true", help="no progress bar")
    tp.set_defaults(func=cmd_train_ppo)

    bl = sub.add_parser("benchmarks", help="list the registered benchmark ids")
    bl.add_argument("--min-pixels", action="store_true",
                    help="list each benchmark's minimum instance sizes instead (ground truth, detector)")
    bl.set_defaults(func=cmd_benchmarks)

    d = sub.add_parser("dataset", help="generate or validate episode files")
    d.add_argument("action", choices=["generate", "validate"])
    d.add_argument("files", nargs="*")
    d.add_argument("--out", help="directory (default: the package's data/hazard/v1)")
    d.set_defaults(func=cmd_dataset)
    __import__("hazard_sim.perception.commands", fromlist=["_"]).add_perception_parser(sub)
    return p


class _ClosedStdout(io.TextIOBase):
    """Standard output when the shell closed it (``>&-``): a write fails, so a result is never lost
    silently."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed", "standard output")


#: write errors that are the machine's, not the program's: one line, exit 1
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EPIPE, errno.EBADF, errno.EROFS, errno.EFBIG)


def _write_error(e: OSError) -> str:
    where = e.filename or "standard output"
    code = errno.errorcode.get(e.errno, str(e.errno))
    return f"hazard: cannot write {where}: {e.strerror} ({code}); what was written before is kept"


def _quiet_write_errors() -> None:
    """After the one-line report: writers that the failed write left open (an image or video
    file) fail again when they are collected; those repeats are not printed."""
    default = sys.unraisablehook

    def hook(u):
        if not (isinstance(u.exc_value, OSError) and u.exc_value.errno in WRITE_ERRORS):
            default(u)
    sys.unraisablehook = hook


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    try:
        rc = args.func(args)
        try:
            sys.stdout.flush()          # a full disk behind stdout shows here, not after exit
        except OSError as e:
            raise OSError(e.errno, e.strerror, e.filename or "standard output") from None
        return rc
    except SweepInterrupted as e:       # Ctrl-C / SIGTERM of a sweep: what was written stays
        where = f" in {e.path}; the same command resumes" if e.path else ""
        print(f"\nhazard: interrupted by {signal.Signals(e.signum).name}: {e.kept} result(s) kept{where}",
              file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("\nhazard: interrupted", file=sys.stderr)
        return 130
    except (DatasetError, IndexError, KeyError, ValueError, FileNotFoundError, FileExistsError,
            RayUnavailable, DetectorError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
        print(f"hazard: error: {msg}", file=sys.stderr)
        return 2
    except OSError as e:
        if e.errno not in WRITE_ERRORS:
            raise
        print(_write_error(e), file=sys.stderr)
        _quiet_write_errors()
        if e.filename in (None, "standard output") and not isinstance(sys.stdout, _ClosedStdout):
            # what is still buffered for stdout goes nowhere at exit (no second error there)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 1


if __name__ == "__main__":
    sys.exit(main())
