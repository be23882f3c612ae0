"""HAZARD in the public code's regime (docs/hazard.md, "Calibration"): the humanoid's numbers
from ThreeDWorld's Replicant as HAZARD drives it, the test room of the public test episodes'
size and distances, and ``random_public``, the public code's privileged random agent."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.tasks.hazard.dataset import FIRE_SOURCE_RING, load_dataset
from hazard_sim.tasks.hazard.scenes import TEST_LAYOUTS, build_scene


def test_gait_is_the_replicants():
    b = HumanoidSpec()
    assert b.walk_per_frame == 0.04911                       # walk_motion.py meters_per_frame
    assert b.reach == 3.0                                     # a grasp fails beyond 3.0 m
    # pick-up: turn_to 2 + reach_for 16 + grasp 3 + reset_arm 16
    assert b.pick_frames == 2 + 16 + 3 + 16
    # bag: turn_to 2 + two reach_for + drop 21 + reset_arm 16; cart: one reach_for
    assert b.drop_frames == 2 + 2 * 16 + 21 + 16
    assert b.cart_drop_frames == 2 + 16 + 21 + 16
    # an explore (12 turns of 30 degrees) takes 24 frames, two a turn
    assert 12 * math.ceil(30.0 / b.turn_per_frame_deg) == 24
    # a walk_to's 100-frame cap covers about 5 m, as the public code's
    assert 100 * b.walk_per_frame == pytest.approx(4.911)


def test_test_room_matches_the_public_test_room():
    assert TEST_LAYOUTS == ("kitchen",)
    x0, y0, x1, y1 = build_scene("kitchen").bounds
    assert (x1 - x0, y1 - y0) == (3.6, 6.6)
    for task in ("fire", "flood"):
        d, counts = [], []
        for ep in load_dataset(task, "test"):
            a = np.array(ep["agent"]["position"])
            t = [o for o in ep["objects"] if o["category"] in ep["target_categories"]]
            counts.append(len(t))
            d += [float(np.hypot(*(np.array(o["position"][:2]) - a))) for o in t]
            if task == "fire":
                for s in ep["fire"]["sources"]:
                    r = float(np.hypot(*(np.array(s) - a)))
                    assert FIRE_SOURCE_RING[0] - 0.1 <= r <= FIRE_SOURCE_RING[1] + 0.1, (ep["index"], r)
        # the public fire test episodes: 2.8 m on average, median 2.4 m, 61 % within 3 m, 9.9 targets
        assert 2.3 <= np.mean(d) <= 3.1 and 2.0 <= np.median(d) <= 2.8
        assert 0.5 <= np.mean(np.array(d) <= 3.0) <= 0.75
        assert 7 <= np.mean(counts) <= 12


def test_random_public_chooses_among_every_target():
    from hazard_sim.runner import make_env
    from hazard_sim.tasks.hazard.agents import AGENTS
    agent = AGENTS["random_public"](seed=0)
    wrapped = make_env("hazard/fire", "test", 0, seed=0, privileged=True)
    obs, info = wrapped.reset()
    truth = info["privileged"]
    targets = {o.id for o in wrapped.unwrapped.world.targets()}
    assert set(truth["targets"]) == targets and truth["containers"] == {}
    agent.reset(obs, info)
    unseen = targets - wrapped.unwrapped.observed_ids
    assert unseen, "the test needs a target not seen from the start"
    # an unseen target can be walked to and picked up, as in the public code
    obs, _, _, _, info = wrapped.step(("walk_to", min(unseen)))
    assert info["action_result"]["status"] != "not_visible"
    kinds = set()
    for _ in range(60):
        a = agent.act(obs, info)
        kinds.add(a[0])
        obs, _, term, trunc, info = wrapped.step(a)
        if term or trunc:
            break
    assert {"walk_to", "pick_up", "drop", "explore"} <= kinds
    wrapped.close()


def test_random_public_needs_the_truth_and_is_refused_over_ros():
    from hazard_ros.launch_checks import _decision_node
    from hazard_sim.runner import make_env
    from hazard_sim.tasks.hazard.agents import AGENTS
    wrapped = make_env("hazard/fire", "test", 0, seed=0, frame_limit=50)
    obs, info = wrapped.reset()
    assert "privileged" not in info
    with pytest.raises(RuntimeError, match="ground truth"):
        AGENTS["random_public"](seed=0).reset(obs, info)
    wrapped.close()
    problem = _decision_node({"agent": "random_public", "benchmark": "hazard/fire"})
    assert problem and "embedded only" in problem


def test_random_public_runs_embedded():
    from hazard_sim.runner import run_episode
    m = run_episode("hazard/fire", "test", 0, "random_public", seed=0, frame_limit=400)
    assert m["agent"] == "random_public" and m["frames"] <= 400
    again = run_episode("hazard/fire", "test", 0, "random_public", seed=0, frame_limit=400)
    assert {k: v for k, v in m.items() if k != "wall_time_s"} == {k: v for k, v in again.items() if k != "wall_time_s"}


def test_paper_tables_prints_what_results_hold(tmp_path, capsys):
    """benchmarks/paper_tables.py reads sweep files and prints the benchmark's table, nothing run."""
    import importlib.util
    from pathlib import Path

    from hazard_sim.runner import bench
    folder = tmp_path / "hazard_table"
    folder.mkdir()
    bench("hazard/fire", "test", "greedy", [0, 1], workers=1, out=str(folder / "fire_test_greedy.jsonl"),
          progress=False, frame_limit=150)
    (folder / "fire_test_rule.jsonl").write_text('{"episode": 0, "config": {"dataset": "another"}}\n')
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "paper_tables.py"
    spec = importlib.util.spec_from_file_location("paper_tables", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--results", str(tmp_path), "--only", "hazard"]) == 0
    out = capsys.readouterr().out
    assert "HAZARD fire" in out and "greedy" in out and "(2)" in out
    assert "stale, another dataset version: fire_test_rule.jsonl" in out
    assert mod.main(["--results", str(tmp_path / "none"), "--only", "esar"]) == 1
