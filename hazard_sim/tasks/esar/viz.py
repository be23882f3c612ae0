"""Pictures of an ESAR episode (``hazard run --benchmark esar ... --save-viz DIR``):

* ``map.png``: hillshaded terrain in the ground colours, the flight path (white; start a
  circle, a crash a red X), victims (found: green ring, missed: red ring) and clues (found:
  cyan dot, missed: orange dot), victim estimates (yellow +);
* ``cameras.mp4`` (``cameras.gif`` if no video writer is available): the four camera views
  side by side, one frame per action.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from hazard_sim.embodiment.multirotor import CAMERAS


class EsarRecorder:
    def __init__(self, env, out_dir, max_frames: int = 600):
        self.env = env
        self.dir = Path(out_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.frames: list[np.ndarray] = []
        self.max_frames = max_frames

    def add(self, info: dict, obs: dict) -> None:
        if len(self.frames) >= self.max_frames or "cameras" not in obs:
            return
        self.frames.append(np.concatenate([obs["cameras"][c]["rgb"] for c in CAMERAS], axis=1))

    def finish(self, metrics: dict) -> dict:
        out = {"dir": str(self.dir), "map": str(self.dir / "map.png")}
        self.map_picture(out["map"])
        if self.frames:
            import imageio.v2 as imageio
            path = self.dir / "cameras.mp4"
            try:
                imageio.mimsave(path, self.frames, fps=4, macro_block_size=1)
            except (TypeError, ValueError, RuntimeError, OSError):   # no ffmpeg writer (imageio-ffmpeg): a GIF
                path.unlink(missing_ok=True)
                path = self.dir / "cameras.gif"
                imageio.mimsave(path, self.frames, duration=250)
            out["video"] = str(path)
        return out

    def map_picture(self, path) -> None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from hazard_sim.tasks.esar.look import ground_colors
        from hazard_sim.tasks.esar.task import hungarian_matches
        from hazard_sim.tasks.esar.terrain import hillshade
        env = self.env
        t = env.world.scene.terrain
        img = ground_colors(t).astype(float) * (0.35 + 0.65 * hillshade(t.heights, t.spacing))[..., None]
        w, d = t.size
        fig, ax = plt.subplots(figsize=(8, 8), dpi=100)
        ax.imshow(np.clip(img, 0, 255).astype(np.uint8), origin="lower", extent=(0, w, 0, d))
        tr = np.array(env.agent.trace)
        ax.plot(tr[:, 0], tr[:, 1], "-", color="white", lw=1.5, label="flight path")
        ax.plot(tr[0, 0], tr[0, 1], "o", mfc="none", mec="white", ms=10)
        if env.agent.crashed:
            ax.plot(*env.agent.crash_point[:2], "x", color="red", ms=14, mew=3, label="crash")
        task, ep = env.task, env.spec_dict
        vt = np.array([v["position"] for v in ep["victims"]], float)
        vr = np.array([list(p) + [0] * (3 - len(p)) for p, _ in task.victim_reports], float).reshape(-1, 3)
        found = {i for i, _ in hungarian_matches(vt, vr, env.measures[0].cfg.victim_radius)}
        for k, v in enumerate(vt):
            ax.plot(v[0], v[1], "o", mfc="none", mec="lime" if k in found else "red", ms=16, mew=2.5)
        if len(vr):
            ax.plot(vr[:, 0], vr[:, 1], "+", color="yellow", ms=12, mew=2, label="victim estimates")
        ct = np.array([c["position"] for c in ep["clues"]], float).reshape(-1, 3)
        cr = np.array([list(p) + [0] * (3 - len(p)) for _, p, _ in task.clue_reports], float).reshape(-1, 3)
        cf = {i for i, _ in hungarian_matches(ct, cr, env.measures[0].cfg.clue_radius)}
        for k, c in enumerate(ct):
            ax.plot(c[0], c[1], "o", color="cyan" if k in cf else "orange", ms=5)
        ax.set_title(f"{ep['map']} task {ep.get('index')} ({ep.get('tier')}, {ep['weather']}, "
                     f"{ep['time_of_day']:.1f} h): victims {len(found)}/{len(vt)}, clues {len(cf)}/{len(ct)}")
        ax.set_xlabel("x east (m)")
        ax.set_ylabel("y north (m)")
        ax.legend(loc="upper right", fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
