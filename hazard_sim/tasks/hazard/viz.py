"""Pictures of an episode: a top-down view (image + animation) and first-person frames.

``hazard run ... --save-viz DIR`` writes:
  topdown.png        final top-down view: layout, fire cells or water depth, objects
                     coloured by state, the agent's path, the metrics in the title
  topdown.gif        the same view every ~50 frames through the episode
  first_person.gif   the agent's RGB observations (every one rendered, subsampled)
  frames/NNNN_*.png  first-person RGB, depth, segmentation and hazard images at each action
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import imageio.v2 as imageio  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402

STATE_COLORS = {"normal": "#2b8cbe", "dry": "#2b8cbe", "burning": "#ff7f00", "burnt": "#222222",
                "submerged": "#6a51a3"}
#: how a process field is drawn: colour map and range (temperature in C, water level in m)
CHANNEL_STYLES = {"temperature": ("inferno", 20.0, 600.0), "water_level": ("Blues", 0.0, 1.5)}
KIND_COLORS = {"wall": "#555555", "furniture": "#a6761d", "building": "#8c8c8c", "tree": "#1b7837",
               "cart": "#e31a1c", "road": "#bdbdbd"}


RESCUED_COLOR = "#31a354"


def draw_topdown(ax, env, title: str = "", rescued_from: dict | None = None) -> None:
    """The scene from above: process fields, walls and furniture, objects coloured by state
    (targets as stars), the agent's path from its start square, and, when ``rescued_from``
    (object id -> x, y where it left the scene) is given, every rescued target as a green star
    where it was picked up, with a legend."""
    w = env.world
    x0, y0, x1, y1 = w.scene.bounds
    ax.set_facecolor("#f7f4ea" if w.scene.kind == "indoor" else "#d9f0d3")
    for proc in w.processes:          # each process's field on the floor, e.g. heat or water
        style = CHANNEL_STYLES.get(proc.channel)
        if style is None:
            continue
        cmap, lo, hi = style
        pts = np.concatenate([env.grid.centres(), np.zeros(env.grid.shape + (1,))], axis=-1)
        val = proc.sample_field(pts)
        if val is None:
            continue
        ax.imshow(np.ma.masked_where(val <= lo + 0.02 * (hi - lo), val), origin="lower", cmap=cmap, vmin=lo,
                  vmax=hi, extent=(x0, x1, y0, y1), alpha=0.75, zorder=1)
    for p in w.scene.parts:
        if p.kind in KIND_COLORS:
            ax.add_patch(Polygon(p.box.footprint(), closed=True, color=KIND_COLORS[p.kind],
                                 alpha=0.9 if p.kind != "road" else 0.5, zorder=2 if p.kind != "road" else 0))
    for o in w.objects:
        if o.location != "scene":
            continue
        c = STATE_COLORS.get(o.state, "#2b8cbe")
        ax.scatter(*o.position[:2], s=60 if o.is_target else 18, c=c, marker="*" if o.is_target else "o",
                   edgecolors="k" if o.is_target else "none", linewidths=0.5, zorder=4)
    rescued = [o for o in w.objects if o.location == "rescued" and o.is_target]
    for o in rescued if rescued_from is not None else ():
        xy = rescued_from.get(o.id)
        if xy is not None:
            ax.scatter(*xy, s=110, c=RESCUED_COLOR, marker="*", edgecolors="k", linewidths=0.6, zorder=4)
    tr = np.array(env.agent.trace)
    ax.plot(tr[:, 0], tr[:, 1], "-", color="#d62728", lw=1.2, zorder=5)
    ax.scatter(*tr[0], c="#2ca02c", s=40, marker="s", zorder=6)
    ax.arrow(*env.agent.xy, 0.5 * np.cos(env.agent.yaw), 0.5 * np.sin(env.agent.yaw),
             width=0.06, color="#d62728", zorder=6)
    ax.set_xlim(x0 - 0.2, x1 + 0.2)
    ax.set_ylim(y0 - 0.2, y1 + 0.2)
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=9)
    ax.tick_params(labelsize=7)
    if rescued_from is not None:
        _legend(ax, env)


def _legend(ax, env) -> None:
    from matplotlib.lines import Line2D
    star = dict(marker="*", linestyle="none", markeredgecolor="k", markeredgewidth=0.5)
    handles = [Line2D([], [], color=STATE_COLORS["normal"], markersize=9, label="target (in the scene)", **star),
               Line2D([], [], color=RESCUED_COLOR, markersize=11, label="rescued (where picked up)", **star),
               Line2D([], [], color="#d62728", marker="s", linestyle="-", markersize=5, label="start, path",
                      markeredgecolor="#2ca02c", markerfacecolor="#2ca02c")]
    states = {o.state for o in env.world.objects if o.location == "scene" and o.is_target} - {"normal", "dry"}
    handles += [Line2D([], [], color=STATE_COLORS[s], markersize=9, label=s, **star) for s in sorted(states)
                if s in STATE_COLORS]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=3, fontsize=6.5,
              frameon=False, handletextpad=0.3, columnspacing=1.0)


def _figure_to_array(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()


def colorize(img: np.ndarray, vmin=None, vmax=None, cmap="viridis") -> np.ndarray:
    a = np.nan_to_num(np.asarray(img, float), posinf=np.nan)
    a = np.nan_to_num(a, nan=np.nanmax(a) if np.isfinite(a).any() else 0.0)
    lo = a.min() if vmin is None else vmin
    hi = a.max() if vmax is None else vmax
    n = np.clip((a - lo) / max(hi - lo, 1e-9), 0, 1)
    return (plt.get_cmap(cmap)(n)[..., :3] * 255).astype(np.uint8)


def seg_colors(seg: np.ndarray) -> np.ndarray:
    h = (seg.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(1 << 24)
    rgb = np.stack([(h >> np.uint64(16)) & np.uint64(255), (h >> np.uint64(8)) & np.uint64(255),
                    h & np.uint64(255)], -1).astype(np.uint8)
    rgb[seg == 0] = 0
    return rgb


class EpisodeRecorder:
    def __init__(self, env, out_dir, topdown_every: int = 50, max_gif_frames: int = 300):
        self.env = env
        self.out = Path(out_dir)
        (self.out / "frames").mkdir(parents=True, exist_ok=True)
        self.every = topdown_every
        self.max_gif = max_gif_frames
        self.fp: list[np.ndarray] = []
        self.last_in_scene: dict[int, tuple[float, float]] = {}
        self._note_positions()
        self.td: list[np.ndarray] = []
        self.next_td = 0
        self.k = 0
        self.fig, self.ax = plt.subplots(figsize=(5, 5 * self._aspect()), dpi=90)

    def _aspect(self) -> float:
        x0, y0, x1, y1 = self.env.world.scene.bounds
        return (y1 - y0) / (x1 - x0)

    def _note_positions(self) -> None:
        """Where each target last stood in the scene (a rescued one is drawn there)."""
        for o in self.env.world.objects:
            if o.is_target and o.location == "scene":
                self.last_in_scene[o.id] = tuple(float(v) for v in o.position[:2])

    def add(self, info: dict, obs: dict) -> None:
        self._note_positions()
        for o in info.get("observations") or [obs]:
            self.fp.append(o["rgb"])
        res = info.get("action_result", {})
        tag = res.get("action", "reset").split("(")[0]
        imgs = [obs["rgb"], colorize(obs["depth"], 0, 10, "magma"), seg_colors(obs["seg"])]
        channel = next((p.channel for p in self.env.world.processes if p.channel in CHANNEL_STYLES), None)
        if channel is not None and obs.get("field") is not None:
            cmap, lo, hi = CHANNEL_STYLES[channel]
            imgs.append(colorize(obs["field"], lo, hi, cmap))
        imageio.imwrite(self.out / "frames" / f"{self.k:04d}_{int(obs['frame']):04d}_{tag}.png",
                        np.concatenate(imgs, axis=1))
        self.k += 1
        if int(obs["frame"]) >= self.next_td:
            self.td.append(self._topdown(f"frame {int(obs['frame'])}"))
            self.next_td = int(obs["frame"]) + self.every

    def _topdown(self, title: str) -> np.ndarray:
        self.ax.clear()
        draw_topdown(self.ax, self.env, title, rescued_from=self.last_in_scene)
        self.fig.tight_layout()
        return _figure_to_array(self.fig)

    def finish(self, metrics: dict) -> dict:
        title = (f"{metrics['task']} ep {metrics['episode']} ({metrics['scene']}), agent {metrics.get('agent', '')}\n"
                 f"value {metrics['value_rate']:.2f}, rescued {metrics['rescued_count']}/{metrics['targets']}, "
                 f"frames {metrics['frames']}")
        return self._write(self._topdown(title))

    def _write(self, final: np.ndarray) -> dict:
        """Write the last top-down picture, the top-down and first-person animations; the
        files' paths (what ``finish`` returns)."""
        imageio.imwrite(self.out / "topdown.png", final)
        self.td.append(final)
        shape = self.td[0].shape
        imageio.mimsave(self.out / "topdown.gif", [t for t in self.td if t.shape == shape], duration=0.3, loop=0)
        step = max(1, len(self.fp) // self.max_gif)
        imageio.mimsave(self.out / "first_person.gif", self.fp[::step], duration=0.1, loop=0)
        plt.close(self.fig)
        return {"dir": str(self.out), "topdown": str(self.out / "topdown.png"),
                "topdown_animation": str(self.out / "topdown.gif"),
                "first_person": str(self.out / "first_person.gif"), "frames": self.k}
