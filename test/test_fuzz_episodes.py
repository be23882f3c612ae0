"""Mutated HAZARD episodes: rejected with a clear DatasetError, or they run with finite state.

Hypothesis takes a shipped episode of each task, changes one to three things anywhere in
its record (a number made NaN / inf / huge / negative / fractional, a value of another
type, a list emptied or grown, a key removed, an object duplicated or moved) and hands it
to the validator. A rejection must be a :class:`DatasetError` whose message names the
episode; an accepted episode must build an environment and run a few frames with every
pose finite. ``-m fuzz`` runs many more examples (``HAZARD_FUZZ_EXAMPLES``).
"""
from __future__ import annotations

import copy
import json
import math
import os

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from helpers import mutate_json  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hazard_sim.tasks.hazard.dataset import DATA_DIR, DatasetError, validate_episode  # noqa: E402

EPISODES = {t: json.loads((DATA_DIR / f"{t}_test.json").read_text())["episodes"][:3] for t in ("fire", "flood", "wind")}
ODD_VALUES = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 2 ** 31, 2 ** 40, -1, 0, 1000.0, 1.7,
                              -0.0, 50.0, "", "x", None, True, [], {}, [0.0], [1.0, 2.0, 3.0, 4.0]])


@st.composite
def mutated(draw):
    task = draw(st.sampled_from(sorted(EPISODES)))
    ep = copy.deepcopy(draw(st.sampled_from(EPISODES[task])))
    log = mutate_json(draw, ep, ODD_VALUES, kinds=("odd", "scale", "shift", "delete", "dup_object", "grow"))
    return task, ep, log


def _finite_run(task: str, ep: dict) -> None:
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    env = EmbodiedEnv(f"hazard/{task}", episode_spec=ep, camera=CameraSpec(width=32, height=24), frame_limit=40)
    env.reset()
    for action in (("move_by", 0.5), ("turn_by", 30.0), ("explore",)):
        env.step(action)
        state = [*np.ravel(env.agent.xy), env.agent.yaw]
        for e in env.world.in_scene():
            state.extend(np.ravel(e.box.center))
        assert np.all(np.isfinite(state)), (action, state)
        if env.done:
            break


def _check(task, ep, log):
    try:
        validate_episode(ep, "mutated episode")
    except DatasetError as exc:
        assert str(exc).startswith("mutated episode"), exc       # names the episode
        assert "Traceback" not in str(exc)
        return "rejected"
    _finite_run(task, ep)
    return "ran"


@given(mutated())
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_mutated_episodes_are_rejected_clearly_or_run_finite(case):
    _check(*case)


@pytest.mark.fuzz
def test_deep_episode_fuzz(request):
    if "fuzz" not in (request.config.option.markexpr or ""):
        pytest.skip("the deep fuzz runs with -m fuzz")
    counts = {"rejected": 0, "ran": 0}

    @given(mutated())
    @settings(max_examples=int(os.environ.get("HAZARD_FUZZ_EXAMPLES", "600")), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case):
        counts[_check(*case)] += 1
    run()
    print(f"deep episode fuzz: {counts}")
