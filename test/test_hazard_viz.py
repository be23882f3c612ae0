"""HAZARD's pictures: a rescued target is drawn where it left the scene (green star), with a legend."""
import numpy as np

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.tasks.hazard.viz import RESCUED_COLOR, EpisodeRecorder, draw_topdown


def _env():
    env = EmbodiedEnv("hazard/fire", split="test", episode=0, seed=0)
    env.reset()
    return env


def test_recorder_remembers_where_targets_stood_and_draws_the_rescued_there(tmp_path):
    env = _env()
    rec = EpisodeRecorder(env, tmp_path)
    target = next(o for o in env.world.objects if o.is_target)
    start = tuple(float(v) for v in target.position[:2])
    assert rec.last_in_scene[target.id] == start
    env.world.take(target, "rescued")          # as a drop into the bag does
    rec._note_positions()                      # a rescued target keeps the place it left
    assert rec.last_in_scene[target.id] == start
    rec.ax.clear()
    draw_topdown(rec.ax, env, "t", rescued_from=rec.last_in_scene)
    green = [c for c in rec.ax.collections
             if len(c.get_offsets()) == 1 and np.allclose(c.get_offsets()[0], start)
             and np.allclose(c.get_facecolor()[0][:3], [0x31 / 255, 0xa3 / 255, 0x54 / 255])]
    assert len(green) == 1 and RESCUED_COLOR == "#31a354"
    labels = [t.get_text() for t in rec.ax.get_legend().get_texts()]
    assert labels[:3] == ["target (in the scene)", "rescued (where picked up)", "start, path"]
    rec.ax.clear()
    draw_topdown(rec.ax, env, "t")                 # without positions: no rescued stars, no legend
    assert rec.ax.get_legend() is None
    assert not any(np.allclose(c.get_offsets()[0], start) for c in rec.ax.collections if len(c.get_offsets()) == 1)
