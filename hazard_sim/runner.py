"""Run episodes embedded (no middleware): one episode, or a resumable parallel sweep."""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from gymnasium.wrappers import TimeLimit

from hazard_sim.agents import make_agent
from hazard_sim.core.env import EmbodiedEnv, processes_act_on_body_flag
from hazard_sim.core.spec import get_spec
from hazard_sim.perception.embedded import EmbeddedPerception, PerceptionSettings
from hazard_sim.render.camera import CameraSpec
from hazard_sim.sweep_io import (
    ResultsWriter,
    SweepInterrupted,
    interruptible,
    kill_workers,
    non_finite,
    read_sweep,
    worker_init,
)

__all__ = ["bench", "run_episode", "make_env", "read_sweep", "load_results", "sweep_config", "SweepInterrupted",
           "default_workers"]


def make_env(benchmark: str, split: str = "test", episode: int = 0, **kw):
    """The env of a benchmark id (or alias) wrapped in Gymnasium's ``TimeLimit`` at the
    spec's action limit, as ``gymnasium.make`` would."""
    spec = get_spec(benchmark)
    env = EmbodiedEnv(spec, split, episode, **kw)
    return TimeLimit(env, spec.max_steps) if spec.max_steps else env


def run_episode(benchmark: str, split: str, episode: int, agent: str, seed: int = 0, *,
                camera: CameraSpec = CameraSpec(), save_viz: str | None = None,
                processes_act_on_body: bool = False, agent_kwargs: dict | None = None,
                dataset_root=None, frame_limit: int | None = None, render_backend: str = "auto",
                body_spec=None, hazards_affect_agent: bool | None = None,
                perception: PerceptionSettings | None = None) -> dict:
    """Run one episode of ``benchmark`` (an id such as ``hazard/fire`` or an alias such
    as ``fire``) to its end and return its metrics (a JSON-able dict). The agent sees the
    world through ``perception`` (default: the ground-truth backend,
    :mod:`hazard_sim.perception.embedded`); the metrics are the simulator's.
    ``hazards_affect_agent`` is the deprecated name of ``processes_act_on_body``."""
    t0 = time.perf_counter()
    processes_act_on_body = processes_act_on_body_flag(processes_act_on_body, hazards_affect_agent)
    # the perception backend first: torch (ultralytics) must be loaded before the OpenGL renderer starts
    benchmark_id = get_spec(benchmark).id
    seen = EmbeddedPerception(perception or PerceptionSettings(), benchmark_id)
    pol = make_agent(agent, seed=seed, benchmark=benchmark_id, **(agent_kwargs or {}))
    wrapped = make_env(benchmark, split, episode, seed=seed, camera=camera,
                       processes_act_on_body=processes_act_on_body, dataset_root=dataset_root,
                       frame_limit=frame_limit, render_backend=render_backend, body_spec=body_spec,
                       privileged=bool(getattr(pol, "privileged", False)))
    env = wrapped.unwrapped
    obs, info = wrapped.reset()
    if info.get("task") is not None:
        seen.set_task(info["task"])
    obs, info = seen(obs, info)
    pol.reset(obs, info)
    recorder = None
    if save_viz:
        if env.spec_b.recorder is None:
            raise ValueError(f"--save-viz: benchmark {env.benchmark} has no recorder (its spec's recorder)")
        recorder = _viz_call(save_viz, env.spec_b.recorder, env, save_viz)
        _viz_call(save_viz, recorder.add, info, obs)
    actions = failed = 0
    terminated = truncated = False
    while not (terminated or truncated):
        action = pol.act(obs, info)
        obs, _, terminated, truncated, info = wrapped.step(action)
        obs, info = seen(obs, info)
        actions += 1
        failed += not info["action_result"]["success"]
        if recorder:
            _viz_call(save_viz, recorder.add, info, obs)
    m = env.metrics()
    env.close()
    m.update(getattr(pol, "episode_info", dict)())
    m.update({"agent": agent, "actions": actions, "failed_actions": failed,
              "wall_time_s": round(time.perf_counter() - t0, 3)})
    if seen.settings != PerceptionSettings():       # the default adds nothing (golden results)
        m["perception"] = {**seen.settings.key(env.benchmark), **seen.stats, **getattr(seen.backend, "stats", {})}
    if recorder:
        m["viz"] = _viz_call(save_viz, recorder.finish, m)
    return m


def _viz_call(folder, fn, *args):
    """A recorder's step; a write error (a full disk) names the ``--save-viz`` folder (the CLI
    prints it in one line)."""
    try:
        return fn(*args)
    except OSError as e:
        raise OSError(e.errno, e.strerror, e.filename or str(folder)) from None


def _run_one(args):
    return run_episode(**args)


def load_results(path: Path) -> list[dict]:
    """Results already written to a sweep file (torn or junk lines are ignored)."""
    return read_sweep(path)[0]


def sweep_config(benchmark: str, split: str, episode: int, agent: str, seed: int = 0,
                 agent_kwargs: dict | None = None, camera: CameraSpec = CameraSpec(),
                 render_backend: str = "auto", processes_act_on_body: bool = False,
                 frame_limit: int | None = None, dataset_root=None,
                 perception: PerceptionSettings | None = None) -> dict:
    """Everything that determines an episode's result; a sweep resumes only results whose
    stored configuration equals this. (``processes_act_on_body`` is stored under its older name
    ``hazards_affect_agent``, so that sweep files written before the rename still resume.)"""
    spec = get_spec(benchmark)
    fp = spec.dataset.fingerprint(split, dataset_root) if spec.dataset.fingerprint else None
    return {"benchmark": spec.id, "split": split, "episode": int(episode), "agent": agent,
            "agent_kwargs": dict(sorted((agent_kwargs or {}).items())), "seed": int(seed),
            "camera": [camera.width, camera.height, camera.hfov_deg], "render_backend": render_backend,
            "hazards_affect_agent": bool(processes_act_on_body), "frame_limit": frame_limit, "dataset": fp,
            "perception": (perception or PerceptionSettings()).key(spec.id)}


@contextlib.contextmanager
def inference_threads(workers: int):
    """The sweep's workers share the cores: each runs onnxruntime (detector, namer) on
    ``cores // workers`` threads (at least 1) unless ``HAZARD_ONNX_THREADS`` says otherwise.
    Measured here, 2 threads per worker on 2 busy cores cost 50 % more CPU for the same
    inference time (`docs/perception.md`)."""
    key = "HAZARD_ONNX_THREADS"
    if os.environ.get(key):
        yield
        return
    os.environ[key] = str(max(1, (os.cpu_count() or 1) // max(1, workers)))
    try:
        yield
    finally:
        os.environ.pop(key, None)


def bench(benchmark: str, split: str, agent: str, episodes: list[int], workers: int = 2, seed: int = 0,
          out: str | None = None, ray_address: str | None = None, progress=True,
          agent_kwargs: dict | None = None, camera: CameraSpec = CameraSpec(), render_backend: str = "auto",
          processes_act_on_body: bool = False, frame_limit: int | None = None, dataset_root=None,
          hazards_affect_agent: bool | None = None, perception: PerceptionSettings | None = None) -> dict:
    """Run episodes of ``benchmark`` in parallel, append one JSON line per finished episode
    to ``out`` (each with its ``config``), and aggregate. Rerunning the same sweep resumes
    it: a stored result is reused only if its configuration is exactly this sweep's;
    duplicates, results of other configurations and junk lines are reported and ignored.
    ``hazards_affect_agent`` is the deprecated name of ``processes_act_on_body``."""
    processes_act_on_body = processes_act_on_body_flag(processes_act_on_body, hazards_affect_agent)
    spec = get_spec(benchmark)
    task = spec.id
    run_kw = dict(camera=camera, render_backend=render_backend, processes_act_on_body=processes_act_on_body,
                  frame_limit=frame_limit, dataset_root=dataset_root, perception=perception)
    configs = {e: sweep_config(task, split, e, agent, seed, agent_kwargs, **run_kw) for e in episodes}
    path = Path(out) if out else None
    stored, junk = read_sweep(path) if path else ([], 0)
    results, dupes, other = [], 0, 0
    have: set[int] = set()
    for d in stored:
        e = d["config"].get("episode")
        if isinstance(e, int) and e in configs and d["config"] == configs[e]:
            if not _usable(spec, d, e):
                junk += 1
            elif e in have:
                dupes += 1
            else:
                have.add(e)
                results.append(d)
        else:
            other += 1
    if progress and path and (junk or dupes or other or results):
        print(f"{path}: reusing {len(results)} result(s); ignored {dupes} duplicate(s), {other} of other "
              f"configurations, {junk} unreadable line(s)", file=sys.stderr, flush=True)
    fh = ResultsWriter(path) if path else None      # one writer per file; each record on its own line
    jobs = [dict(benchmark=task, split=split, episode=e, agent=agent, seed=seed, agent_kwargs=agent_kwargs,
                 **run_kw) for e in episodes if e not in have]

    def record(r):
        r["config"] = configs[r["episode"]]
        bad = non_finite(r)
        if bad:                        # neither stored nor counted: a rerun runs the episode again
            print(f"{task}/{split} ep {r['episode']} {agent}: result not kept: {bad} is not a finite number",
                  file=sys.stderr, flush=True)
            return
        results.append(r)
        if fh:
            fh.write(r)
        if progress:
            line = spec.progress(r) if spec.progress else f"frames {r['frames']}"
            print(f"[{len(results)}/{len(episodes)}] {task}/{split} ep {r['episode']:3d} {agent}: "
                  f"{line} ({r['wall_time_s']:.1f} s)",
                  file=sys.stderr, flush=True)

    pool = None
    with interruptible():
        try:
            if ray_address:
                from hazard_sim.ray_cluster import run_tasks
                for r in run_tasks(ray_address, _run_one, jobs):
                    record(r)
            elif workers <= 1 or len(jobs) <= 1:
                for j in jobs:
                    record(_run_one(j))
            else:
                # spawn: workers start from a clean interpreter (they never inherit the parent's OpenGL
                # state: llvmpipe's threads do not survive fork) as children of this process, so that
                # they die with it (sweep_io.worker_init); not used as a context manager, whose exit
                # would wait for the episodes under way
                ctx = multiprocessing.get_context("spawn")
                with inference_threads(workers):
                    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=worker_init,
                                               initargs=(os.getpid(),))
                    pool.submit(int).result()          # the workers start (and read the setting) now
                futs = [pool.submit(_run_one, j) for j in jobs]
                for f in as_completed(futs):
                    record(f.result())
                pool.shutdown(wait=True)
        except KeyboardInterrupt as e:     # Ctrl-C or SIGTERM: keep what is written, drop what runs
            if pool is not None:
                kill_workers(pool)
            signum = e.signum if isinstance(e, SweepInterrupted) else int(signal.SIGINT)
            raise SweepInterrupted(signum, len(results), None if path is None else str(path)) from None
        finally:
            if fh:
                fh.close()
    results.sort(key=lambda r: r["episode"])
    return {"benchmark": task, "split": split, "agent": agent, **spec.aggregate(results), "results": results,
            "ignored": {"duplicates": dupes, "other_configurations": other, "unreadable_lines": junk}}


def _usable(spec, d: dict, episode: int) -> bool:
    """A stored result of this sweep's configuration that the table can use: its ``episode`` is
    the configuration's and the benchmark's aggregate takes it (wrong-typed or missing metrics
    make it raise)."""
    if d.get("episode") != episode or isinstance(d.get("episode"), bool):
        return False
    try:
        spec.aggregate([d])
    except (TypeError, ValueError, KeyError, AttributeError, ArithmeticError):
        return False
    return True


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))
