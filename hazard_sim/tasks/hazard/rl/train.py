"""Train a PPO policy on HAZARD's RL interface with stable-baselines3 (CPU).

``train(TrainConfig(task="hazard/fire", steps=20000, out_dir="runs/ppo_fire"))`` writes into
``out_dir``:

* ``checkpoint.zip``: the latest model (every ``checkpoint_every`` steps, at the end and on
  Ctrl-C; written to a temporary file and renamed, so an interruption never leaves half a file);
* ``curve.csv``: one line per finished training episode (steps, frames, reward, value rate...);
* ``learning_curve.png``: episode reward and value rate against simulated frames;
* ``ppo_<task>.zip`` and ``ppo_<task>.json``: the final policy and a summary (wall time,
  frames simulated per second, mean value rate of the last episodes).

``resume=True`` continues from ``checkpoint.zip`` up to ``steps`` in total (the curve file is
kept and appended to). Progress: SB3's progress bar (``progress_bar=True``, tqdm + rich).
"""
from __future__ import annotations

import csv
import json
import os
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from hazard_sim.tasks.hazard.rl.observation import MAP_SIZE

CURVE_FIELDS = ("steps", "frames", "wall_s", "episode", "reward", "value_rate", "rescued", "episode_frames",
                "actions", "invalid")


@dataclass
class TrainConfig:
    task: str = "hazard/fire"         # or the alias, e.g. fire
    steps: int = 20_000
    out_dir: str = "runs/ppo"
    envs: int = 2
    vec: str = "subproc"               # subproc | dummy
    split: str = "train"
    episodes: list | None = None       # episode indices of the split (None: all)
    seed: int = 0
    map_size: int = MAP_SIZE
    camera: tuple = (256, 256, 90.0)   # width, height, hfov: the same camera as `hazard run`
    render_backend: str = "auto"
    max_actions: int = 400             # a training episode is cut after this many actions
    failure_penalty: float = 0.0       # reward per failed action (the public code's earlier version: 2)
    checkpoint_every: int = 2048
    resume: bool = False
    progress: bool = True
    ppo: dict = field(default_factory=lambda: {"n_steps": 256, "batch_size": 128, "n_epochs": 4,
                                               "learning_rate": 3e-4, "gamma": 0.99, "gae_lambda": 0.95,
                                               "ent_coef": 0.01, "clip_range": 0.2})


def _make_env(cfg: TrainConfig, rank: int):
    def make():
        import torch
        torch.set_num_threads(1)
        from hazard_sim.render.camera import CameraSpec
        from hazard_sim.tasks.hazard.rl.env import HazardRLEnv
        from hazard_sim.tasks.hazard.rl.reward import RescueReward
        w, h, fov = cfg.camera
        return HazardRLEnv(cfg.task, cfg.split, cfg.episodes, seed=cfg.seed * 1000 + rank, map_size=cfg.map_size,
                           camera=CameraSpec(width=int(w), height=int(h), hfov_deg=float(fov)),
                           render_backend=cfg.render_backend, max_actions=cfg.max_actions,
                           reward=RescueReward(failure_penalty=cfg.failure_penalty))
    return make


def _atomic_save(model, path: Path, meta: dict) -> None:
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.hazard_meta = meta
    model.save(tmp, include=["hazard_meta"])
    os.replace(tmp, path)


def _callback(cfg: TrainConfig, out: Path, t0: float, frames0: int, meta: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    class Logger(BaseCallback):
        """Appends finished episodes to curve.csv, counts frames, saves checkpoints."""

        def _on_training_start(self):
            self.frames = frames0
            self.last_ckpt = self.num_timesteps
            self.ep = {}
            new = not (out / "curve.csv").exists()
            self.fh = open(out / "curve.csv", "a", newline="")
            self.w = csv.writer(self.fh)
            if new:
                self.w.writerow(CURVE_FIELDS)

        def _on_step(self):
            for k, (info, r) in enumerate(zip(self.locals["infos"], self.locals["rewards"])):
                self.frames += int(info.get("frames", 0))
                acc = self.ep.setdefault(k, [0.0, 0, 0])
                acc[0] += float(r)
                acc[1] += 1
                acc[2] += int(info.get("invalid", False))
                if "value_rate" in info:
                    wall = round(time.perf_counter() - t0 + meta["wall_s0"], 2)
                    self.w.writerow([self.num_timesteps, self.frames, wall, info["episode_index"], round(acc[0], 3),
                                     round(info["value_rate"], 4), info["rescued_count"], info["episode_frames"],
                                     acc[1], acc[2]])
                    self.fh.flush()
                    self.ep[k] = [0.0, 0, 0]
            if self.num_timesteps - self.last_ckpt >= cfg.checkpoint_every:
                self.save()
            return True

        def save(self):
            self.last_ckpt = self.num_timesteps
            meta.update(frames=self.frames, wall_s=round(time.perf_counter() - t0 + meta["wall_s0"], 2),
                        steps_done=int(self.num_timesteps))
            _atomic_save(self.model, out / "checkpoint.zip", meta)

        def _on_training_end(self):
            self.fh.close()

    return Logger()


def read_curve(path) -> dict:
    """curve.csv as arrays by column."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in CURVE_FIELDS}


def _frames_label(x, _pos=None) -> str:
    """Tick text for frame counts: 0, 500, 20k, 1.5M (raw numbers overlap past 100,000)."""
    if abs(x) >= 1e6:
        return f"{x / 1e6:g}M"
    if abs(x) >= 1e4:
        return f"{x / 1e3:g}k"
    return f"{x:g}"


def plot_curve(csv_path, png_path, title: str) -> None:
    """Episode reward and value rate against simulated frames (points and a moving mean)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    c = read_curve(csv_path)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, key, label in ((axes[0], "reward", "episode reward"), (axes[1], "value_rate", "value rate")):
        x, y = c["frames"], c[key]
        ax.plot(x, y, ".", ms=3, alpha=0.4, color="tab:blue", label="episode")
        if len(y) >= 5:
            k = max(5, len(y) // 10)
            mov = np.convolve(y, np.ones(k) / k, mode="valid")
            ax.plot(x[k - 1:], mov, "-", color="tab:red", lw=2, label=f"mean of {k}")
        ax.set_xlabel("simulated frames")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_frames_label))
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(6))
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=8)
    axes[1].set_ylim(-0.02, 1.02)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png_path, dpi=90)
    plt.close(fig)


def _close(vec, interrupted: bool) -> None:
    """Close the envs; after an interruption, worker processes are ended rather than asked (a
    step interrupted half-way leaves the pipes out of step, and close() would wait forever)."""
    procs = getattr(vec, "processes", None)
    if interrupted and procs is not None:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(10)
        vec.closed = True
        return
    try:
        vec.close()
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass            # workers already gone after a Ctrl-C


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def train(cfg: TrainConfig) -> dict:
    """Train (or resume) and return the summary written to ``ppo_<task>.json``."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from hazard_sim.tasks.hazard.rl.policy import policy_kwargs

    hazard = cfg.task.split("/")[-1]
    if cfg.steps < 1:
        raise ValueError(f"steps must be positive, got {cfg.steps}")
    if cfg.vec not in ("subproc", "dummy"):
        raise ValueError(f"vec must be subproc or dummy, got {cfg.vec!r}")
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint.zip"
    if not cfg.resume and (ckpt.exists() or (out / "curve.csv").exists()):
        raise FileExistsError(f"{out} already holds a training run (checkpoint.zip / curve.csv): pass --resume to "
                              f"continue it, or choose another --out-dir")
    torch.set_num_threads(1)
    config = {k: v for k, v in asdict(cfg).items() if k not in ("resume", "progress")}
    meta = {"task": hazard, "map_size": cfg.map_size, "config": config,
            "frames": 0, "wall_s": 0.0, "wall_s0": 0.0, "steps_done": 0}
    model = None
    if cfg.resume and ckpt.exists():
        from hazard_sim.tasks.hazard.rl.policy import load_policy
        model = load_policy(ckpt, hazard, cfg.map_size)
        old = getattr(model, "hazard_meta", {}) or {}
        meta.update(frames=int(old.get("frames", 0)), wall_s0=float(old.get("wall_s", 0.0)),
                    wall_s=float(old.get("wall_s", 0.0)), steps_done=int(model.num_timesteps),
                    config={**old.get("config", config), "steps": cfg.steps},   # the run's own settings
                    resumed=int(old.get("resumed", 0)) + 1)
    remaining = cfg.steps - (model.num_timesteps if model is not None else 0)
    vec = None
    if remaining > 0:
        fns = [_make_env(cfg, k) for k in range(cfg.envs)]
        vec = SubprocVecEnv(fns) if cfg.vec == "subproc" and cfg.envs > 1 else DummyVecEnv(fns)
        if model is None:
            model = PPO("CnnPolicy", vec, policy_kwargs=policy_kwargs(), seed=cfg.seed, device="cpu", verbose=0,
                        **cfg.ppo)
        else:
            model.set_env(vec)
    t0 = time.perf_counter()
    cb = _callback(cfg, out, t0, meta["frames"], meta)
    remaining = cfg.steps - model.num_timesteps
    interrupted = False
    # Ctrl-C and a plain `kill` (SIGTERM; background jobs ignore SIGINT) both stop safely
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if _main_thread() else None
    try:
        if remaining > 0:
            model.learn(remaining, callback=cb, progress_bar=cfg.progress, reset_num_timesteps=False)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if hasattr(cb, "frames"):          # training started: keep what it learned
            cb.save()
        if vec is not None:
            _close(vec, interrupted)
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    summary = dict(meta)
    summary.pop("wall_s0", None)
    if (out / "curve.csv").exists():
        c = read_curve(out / "curve.csv")
        last = c["value_rate"][-20:]
        summary.update(episodes=int(len(c["value_rate"])),
                       mean_value_rate_last20=round(float(np.mean(last)), 4) if len(last) else None,
                       frames_per_s=round(summary["frames"] / max(summary["wall_s"], 1e-9), 1))
        plot_curve(out / "curve.csv", out / "learning_curve.png",
                   f"PPO on hazard/{hazard} ({cfg.split} split): {summary['steps_done']} steps, "
                   f"{summary['frames']} frames, {summary['wall_s'] / 60:.1f} min")
    summary["interrupted"] = interrupted
    if not interrupted:
        _atomic_save(model, out / f"ppo_{hazard}.zip", meta)
        (out / f"ppo_{hazard}.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary
