"""DOZE's episode pictures (``hazard run --benchmark doze/levelN ... --save-viz DIR``):

  topdown.png        rooms, furniture, objects (goal instances as stars), whiteboards (hint
                     boards highlighted), people's tracks and where they are, the robot's path,
                     the geodesic shortest path, the metrics in the title
  topdown.gif        the same view through the episode
  first_person.gif   the robot's RGB frames
  frames/NNNN_*.png  RGB, depth and segmentation (people in red) at each action
"""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Polygon

from hazard_sim.tasks.hazard.viz import EpisodeRecorder, _figure_to_array


def draw_doze(ax, env, title: str = "") -> None:
    w = env.world
    house = w.house
    x0, y0, x1, y1 = w.scene.bounds
    ax.set_facecolor("#f7f4ea")
    for p in w.scene.parts:
        if p.kind in ("wall", "furniture"):
            ax.add_patch(Polygon(p.box.footprint(), closed=True, color="#555555" if p.kind == "wall" else "#c8a26b",
                                 alpha=0.9, zorder=2))
    for name, (rx0, ry0, rx1, ry1) in w.scene.rooms:
        ax.text((rx0 + rx1) / 2, (ry0 + ry1) / 2, name, fontsize=6, color="#888888", ha="center", zorder=1)
    goal_ids = set(env.spec_dict["goal_ids"])
    xy = np.array([it.position[:2] for it in house.items])
    ax.scatter(xy[:, 0], xy[:, 1], s=4, c="#2b8cbe", zorder=3)
    for it in house.items:
        if it.id in goal_ids:
            ax.scatter(*it.position[:2], s=140, marker="*", c="#ffd700", edgecolors="k", linewidths=0.8, zorder=7)
    hints = set(env.spec_dict.get("hint_ids", []))
    for b in house.boards:
        c = b.corners
        ax.plot(c[[0, 1], 0], c[[0, 1], 1], "-", lw=4, color="#e6550d" if b.id in hints else "#9e9ac8", zorder=4)
    sp = np.array(env.spec_dict.get("shortest_path") or [[np.nan, np.nan]])
    ax.plot(sp[:, 0], sp[:, 1], "--", color="#31a354", lw=1.0, zorder=5, label="shortest path")
    for p in w.processes:
        for person in getattr(p, "people", []):
            tr = np.array(person.track)
            ax.plot(tr[:, 0], tr[:, 1], "-", color="#756bb1", lw=0.8, alpha=0.7, zorder=5)
            ax.scatter(*person.xy, s=40, c="#756bb1", edgecolors="k", linewidths=0.5, zorder=6)
    tr = np.array(env.agent.trace)
    ax.plot(tr[:, 0], tr[:, 1], "-", color="#d62728", lw=1.2, zorder=6, label="robot")
    ax.scatter(*tr[0], c="#2ca02c", s=40, marker="s", zorder=7)
    ax.arrow(*env.agent.xy, 0.4 * np.cos(env.agent.yaw), 0.4 * np.sin(env.agent.yaw), width=0.05, color="#d62728",
             zorder=7)
    ax.set_xlim(x0 - 0.2, x1 + 0.2)
    ax.set_ylim(y0 - 0.2, y1 + 0.2)
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=8)
    ax.tick_params(labelsize=6)


class DozeRecorder(EpisodeRecorder):
    def __init__(self, env, out_dir):
        super().__init__(env, out_dir, topdown_every=25)

    def _topdown(self, title: str) -> np.ndarray:
        self.ax.clear()
        draw_doze(self.ax, self.env, f"{self.env.spec_dict['goal_object']!r} ({self.env.spec_dict['goal_type']}), "
                                     f"{title}")
        self.fig.tight_layout()
        return _figure_to_array(self.fig)

    def add(self, info: dict, obs: dict) -> None:
        seg = obs["seg"]
        labels = info.get("labels", {})
        people = np.isin(seg, [k for k, v in labels.items() if v == "person"])
        marked = obs["rgb"].copy()
        marked[people] = (0.5 * marked[people] + [127, 0, 0]).astype(np.uint8)
        super().add(info, {**obs, "rgb": marked})

    def finish(self, metrics: dict) -> dict:
        m = dict(metrics)
        m.setdefault("task", metrics.get("goal", ""))
        title = (f"{metrics['goal']!r} ({metrics['goal_type']}, level {metrics['level']}), {metrics['scene']} "
                 f"ep {metrics['episode']}, {metrics.get('agent', '')}\nsuccess {metrics['success']}, "
                 f"SPL {metrics['spl']:.2f}, collisions {metrics['collisions']}/{metrics['steps']}")
        self.ax.clear()
        draw_doze(self.ax, self.env, title)
        self.fig.tight_layout()
        return self._write(_figure_to_array(self.fig))
