"""The composed core: benchmark registry and Gymnasium ids, bodies, typed outcomes,
and the rule that benchmark names stay inside their own pieces."""
from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from hazard_sim.core.embodiment import GroundBody, Limits, Twist
from hazard_sim.core.outcome import ActionResult, Status
from hazard_sim.core.spec import benchmark_ids, get_spec, resolve
from hazard_sim.embodiment.humanoid import HumanoidSpec
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.hazard.env import HazardEnv

ROOT = Path(__file__).resolve().parents[1]
#: modules allowed to name HAZARD's hazards: its task (and episode checks), hazard, dataset, catalogue and RL modules,
#: its baseline agents (hazard_sim/agents: the "hazard" agent group) and its benchmark scripts
HAZARD_MODULES = ("hazard_sim/tasks/hazard/", "hazard_sim/tasks/hazard/hazards/", "hazard_sim/tasks/hazard/dataset.py",
                  "hazard_sim/tasks/hazard/catalog.py", "hazard_sim/agents/", "hazard_sim/tasks/hazard/rl/",
                  "benchmarks/bench_hazard.py", "benchmarks/calibrate_gait.py")


def test_benchmark_names_stay_in_their_pieces():
    files = subprocess.run(["git", "ls-files", "*.py", "*.yaml"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    pattern = re.compile(r"""["'](fire|flood|wind)["']""")
    offenders = []
    for f in files:
        if f.startswith(("test/",) + HAZARD_MODULES) or not (ROOT / f).exists():
            continue
        for n, line in enumerate((ROOT / f).read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{f}:{n}: {line.strip()}")
    assert not offenders, "benchmark names outside the HAZARD modules:\n" + "\n".join(offenders)


def test_registry_ids_aliases_and_errors():
    assert {"hazard/fire", "hazard/flood", "hazard/wind"} <= set(benchmark_ids())
    assert resolve("flood") == "hazard/flood" and get_spec("hazard/wind").max_frames == 3000
    with pytest.raises(KeyError, match=r"unknown benchmark 'hazard/lava'; known: .*hazard/fire"):
        get_spec("hazard/lava")
    with pytest.raises(ValueError, match="unknown task 'lava'"):
        HazardEnv("lava")


def test_gymnasium_make_is_the_same_env_with_the_action_limit():
    spec = get_spec("hazard/fire")
    env = gymnasium.make("hazard_stack/hazard-fire-v1", camera=CameraSpec(64, 48))
    assert env.spec.max_episode_steps == spec.max_steps == 2000
    ref = HazardEnv("fire", "test", 0, camera=CameraSpec(64, 48))
    a, _ = env.reset()
    b, _ = ref.reset()
    for action in (("explore",), ("move_by", 0.5), ("turn_by", -45.0)):
        a, ra, ta, tra, ia = env.step(action)
        b, rb, tb, trb, ib = ref.step(action)
        assert np.array_equal(a["rgb"], b["rgb"]) and np.array_equal(a["seg"], b["seg"])
        assert ia["action_result"] == ib["action_result"] and (ra, ta, tra) == (rb, tb, trb)


def test_limits_clip_and_ground_body_apply_by_hand():
    lim = Limits(linear=0.5, angular=1.0)
    assert lim.clip(Twist(vx=2.0, wz=-3.0)) == Twist(vx=0.5, wz=-1.0)
    c = lim.clip(Twist(vx=0.3, vy=0.4 * 2))               # |(0.3, 0.8)| > 0.5: scaled as a vector
    assert math.hypot(c.vx, c.vy) == pytest.approx(0.5) and c.vy / c.vx == pytest.approx(0.8 / 0.3)

    class Spec:
        radius = 0.2

        def limits(self):
            return lim

    body = GroundBody((1.0, 2.0), math.pi / 2, Spec())
    m = body.apply(Twist(vx=1.0, wz=0.0), 0.1, lambda xy: True)     # 0.05 m along +y
    assert m.moved and not m.bumped and body.xy == pytest.approx((1.0, 2.05))
    m = body.apply(Twist(vx=0.0, wz=1.0), 0.5, lambda xy: True)     # turns 0.5 rad, no motion
    assert not m.moved and body.yaw == pytest.approx(math.pi / 2 + 0.5)
    m = body.apply(Twist(vx=0.5), 0.1, lambda xy: False)            # a wall everywhere
    assert not m.moved and m.bumped and body.xy == pytest.approx((1.0, 2.05))
    # sliding: the x part of the step is free, the y part is not
    body.yaw = math.pi / 4
    m = body.apply(Twist(vx=0.5), 0.2, lambda xy: xy[1] <= 2.05 + 1e-9)
    assert m.moved and m.bumped and body.xy[1] == pytest.approx(2.05) and body.xy[0] > 1.0


def test_humanoid_spec_is_the_one_source_of_numbers():
    from planner_node import decision_node, following, observation
    s = HumanoidSpec()
    # 0.01 m and 3 deg per 0.1 s frame (the calibrated gait, docs/hazard.md)
    assert s.limits().linear == pytest.approx(0.1) and s.limits().angular == pytest.approx(math.radians(30))
    assert observation.BODY_RADIUS == s.radius and decision_node.REACH == s.reach
    assert following.HUMANOID_MAX_LINEAR == pytest.approx(s.limits().linear)


def test_outcomes_are_typed():
    env = HazardEnv("fire", "test", 0, camera=CameraSpec(64, 48))
    env.reset()
    cases = {("walk_to", 999999): Status.UNKNOWN_OBJECT, ("drop",): Status.HANDS_EMPTY}
    unseen = next(o for o in env.world.targets() if o.id not in env.observed_ids)
    cases[("pick_up", unseen.id)] = Status.NOT_VISIBLE
    for action, status in cases.items():
        _, _, _, _, info = env.step(action)
        res = info["action_result"]
        assert res["status"] == status.value and res["success"] is False and res["reason"], (action, res)
    r = ActionResult("x()", Status.SUCCEEDED, 3, "")
    assert r.success and r.to_dict() == {"action": "x()", "status": "succeeded", "success": True, "frames": 3,
                                         "reason": ""}


def test_process_render_effects_and_post_effects_reach_the_image():
    """A process's hooks (fog, light, an image filter) change the camera image through the
    generic path; depth and segmentation stay as they are."""
    from hazard_sim.core.process import WorldProcess
    from hazard_sim.render.effects import RenderEffects

    env = HazardEnv("fire", "test", 0, camera=CameraSpec(64, 48))
    plain, _ = env.reset()

    class Night(WorldProcess):
        name = "night"

        def render_effects(self):
            return RenderEffects(light=0.0, sky=(0, 0, 10))

        def post_effects(self):
            return [lambda rgb: 255 - rgb]            # an image filter: inverted colours

    env.world.processes.append(Night())
    night = env.observe()
    assert np.array_equal(night["depth"], plain["depth"]) and np.array_equal(night["seg"], plain["seg"])
    hit = np.isfinite(plain["depth"])
    assert np.all(night["rgb"][hit] == 255)            # dark (0) then inverted
    assert not np.array_equal(night["rgb"], plain["rgb"])
