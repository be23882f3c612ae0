"""Run episodes embedded (no middleware): one episode, or a resumable parallel sweep."""
from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from gymnasium.wrappers import TimeLimit

from hazard_sim.agents import make_agent
from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.spec import get_spec, resolve
from hazard_sim.render.camera import CameraSpec


def make_env(benchmark: str, split: str = "test", episode: int = 0, **kw):
    """The env of a benchmark id (or alias) wrapped in Gymnasium's ``TimeLimit`` at the
    spec's action limit, as ``gymnasium.make`` would."""
    spec = get_spec(benchmark)
    env = EmbodiedEnv(spec, split, episode, **kw)
    return TimeLimit(env, spec.max_steps) if spec.max_steps else env


def run_episode(benchmark: str, split: str, episode: int, agent: str, seed: int = 0, *,
                camera: CameraSpec = CameraSpec(), save_viz: str | None = None,
                hazards_affect_agent: bool = False, agent_kwargs: dict | None = None,
                dataset_root=None, frame_limit: int | None = None, render_backend: str = "auto") -> dict:
    """Run one episode of ``benchmark`` (an id such as ``hazard/fire`` or an alias such
    as ``fire``) to its end and return its metrics (a JSON-able dict)."""
    t0 = time.perf_counter()
    wrapped = make_env(benchmark, split, episode, seed=seed, camera=camera,
                       hazards_affect_agent=hazards_affect_agent, dataset_root=dataset_root,
                       frame_limit=frame_limit, render_backend=render_backend)
    env = wrapped.unwrapped
    obs, info = wrapped.reset()
    pol = make_agent(agent, seed=seed, benchmark=env.benchmark, **(agent_kwargs or {}))
    pol.reset(obs, info)
    recorder = None
    if save_viz:
        from hazard_sim.viz import EpisodeRecorder
        recorder = (env.spec_b.recorder or EpisodeRecorder)(env, save_viz)
        recorder.add(info, obs)
    actions = failed = 0
    terminated = truncated = False
    while not (terminated or truncated):
        action = pol.act(obs, info)
        obs, _, terminated, truncated, info = wrapped.step(action)
        actions += 1
        failed += not info["action_result"]["success"]
        if recorder:
            recorder.add(info, obs)
    m = env.metrics()
    env.close()
    m.update({"agent": agent, "actions": actions, "failed_actions": failed,
              "wall_time_s": round(time.perf_counter() - t0, 3)})
    if recorder:
        m["viz"] = recorder.finish(m)
    return m


def _run_one(args):
    return run_episode(**args)


def load_results(path: Path) -> list[dict]:
    """Results already written to a sweep file (a torn last line is ignored)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def _benchmark_of(result: dict) -> str | None:
    """The benchmark id of a stored result (older HAZARD results name only their task)."""
    name = result.get("benchmark") or result.get("task")
    try:
        return resolve(name)
    except KeyError:
        return None


def bench(benchmark: str, split: str, agent: str, episodes: list[int], workers: int = 2, seed: int = 0,
          out: str | None = None, ray_address: str | None = None, progress=True,
          agent_kwargs: dict | None = None) -> dict:
    """Run episodes of ``benchmark`` in parallel, append one JSON line per finished episode
    to ``out`` (skipping those already there: an interrupted sweep resumes), and aggregate."""
    spec = get_spec(benchmark)
    task = spec.id
    path = Path(out) if out else None
    done = load_results(path) if path else []
    if path and path.exists():
        # drop a line torn by an interruption so appended results start on a fresh line
        path.write_text("".join(json.dumps(d) + "\n" for d in done))
    done = [d for d in done if _benchmark_of(d) == task and d.get("agent") == agent and d.get("split") == split]
    have = {d["episode"] for d in done}
    todo = [e for e in episodes if e not in have]
    jobs = [dict(benchmark=task, split=split, episode=e, agent=agent, seed=seed, agent_kwargs=agent_kwargs)
            for e in todo]
    results = [d for d in done if d["episode"] in set(episodes)]
    fh = open(path, "a") if path else None

    def record(r):
        results.append(r)
        if fh:
            fh.write(json.dumps(r) + "\n")
            fh.flush()
        if progress:
            line = spec.progress(r) if spec.progress else f"frames {r['frames']}"
            print(f"[{len(results)}/{len(episodes)}] {task}/{split} ep {r['episode']:3d} {agent}: "
                  f"{line} ({r['wall_time_s']:.1f} s)",
                  file=sys.stderr, flush=True)

    try:
        if ray_address:
            import ray
            ray.init(address=ray_address, ignore_reinit_error=True)
            remote = ray.remote(_run_one)
            pending = [remote.remote(j) for j in jobs]
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                record(ray.get(ready[0]))
        elif workers <= 1 or len(jobs) <= 1:
            for j in jobs:
                record(_run_one(j))
        else:
            # forkserver: workers never inherit the parent's OpenGL state (llvmpipe's threads do
            # not survive fork) and start from a clean interpreter
            ctx = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                futs = [pool.submit(_run_one, j) for j in jobs]
                for f in as_completed(futs):
                    record(f.result())
    finally:
        if fh:
            fh.close()
    results.sort(key=lambda r: r["episode"])
    return {"benchmark": task, "split": split, "agent": agent, **spec.aggregate(results), "results": results}


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))
