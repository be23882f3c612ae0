"""Mutated DOZE and ESAR episodes and ESAR datasets: rejected with a clear DatasetError, or they
run with finite state (as test/test_fuzz_episodes.py does for HAZARD).

Hypothesis takes a shipped episode (DOZE level 2 and 3, ESAR tasks with their victims and
clues) or the whole ESAR dataset, changes one to three things anywhere in it (a number made
NaN / inf / huge / negative / fractional, a value of another type, a list emptied or grown, a
key removed) and hands it to the validator. A rejection must be a :class:`DatasetError` whose
message names the episode; an accepted episode must build an environment and run a few actions
with the body's pose finite; an accepted ESAR dataset must give an episode for every task.
``-m fuzz`` runs many more examples (``HAZARD_FUZZ_EXAMPLES``).
"""
from __future__ import annotations

import copy
import json
import math
import os
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("hypothesis")
from helpers import mutate_json  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hazard_sim.core.spec import get_spec  # noqa: E402
from hazard_sim.tasks.esar.scenario import DATA_DIR as ESAR_DIR  # noqa: E402
from hazard_sim.validation import DatasetError  # noqa: E402

DOZE = {b: [get_spec(b).dataset.load("test", i) for i in (0, 300)] for b in ("doze/level2", "doze/level3")}
ESAR = [get_spec("esar").dataset.load("test", i) for i in (0, 7)]
EPISODES = {**DOZE, "esar": ESAR}
ACTIONS = {"doze/level2": ("MoveAhead", "RotateLeft", "MoveAhead"), "doze/level3": ("MoveAhead", "RotateRight"),
           "esar": ("forward", "descend", "turn_left")}
ODD_VALUES = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 2 ** 31, 2 ** 40, -1, 0, 1000.0, 1.7,
                              -0.0, 50.0, -5000.0, 10_000, "", "x", None, True, [], {}, [0.0], [1.0, 2.0, 3.0, 4.0],
                              [1e308, 0.0, 0.0]])
SMALL = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))
COUNTS: Counter = Counter()


def _mutate(draw, doc, skip=()):
    mutate_json(draw, doc, ODD_VALUES, skip=skip, list_limit=6)
    return doc


@st.composite
def mutated_episode(draw):
    bench = draw(st.sampled_from(sorted(EPISODES)))
    return bench, _mutate(draw, copy.deepcopy(draw(st.sampled_from(EPISODES[bench]))))


def _finite_run(bench: str, ep: dict) -> None:
    from hazard_sim.core.env import EmbodiedEnv
    from hazard_sim.render.camera import CameraSpec
    env = EmbodiedEnv(bench, episode_spec=ep, camera=CameraSpec(width=16, height=12), frame_limit=60,
                      processes_act_on_body=True)
    env.reset()
    for action in ACTIONS[bench]:
        env.step(action)
        b = env.agent
        assert np.all(np.isfinite([*b.xy, b.yaw, b.z])), (action, b.xy, b.yaw, b.z)
        if env.done:
            break
    m = env.metrics()
    assert all(math.isfinite(v) for v in m.values() if isinstance(v, float)), m
    env.close()


def check_episode(bench, ep):
    spec = get_spec(bench)
    try:
        spec.dataset.validate(ep, "mutated episode", spec)
    except DatasetError as exc:
        assert str(exc).startswith("mutated episode: "), exc
        COUNTS[f"{bench} rejected"] += 1
        return "rejected"
    _finite_run(bench, ep)
    COUNTS[f"{bench} ran"] += 1
    return "ran"


@given(mutated_episode())
@settings(max_examples=30, **SMALL)
def test_mutated_doze_and_esar_episodes_are_rejected_clearly_or_run_finite(case):
    check_episode(*case)


# ---------------------------------------------------------------- the ESAR dataset file
_DATASET = json.loads((ESAR_DIR / "esar_v1.json").read_text())
_SMALL_DATASET = {**_DATASET, "events": _DATASET["events"][:2],
                  "tasks": [t for t in _DATASET["tasks"] if t["event"] < 2][:6]}
for _i, _t in enumerate(_SMALL_DATASET["tasks"]):
    _t["index"] = _i


@st.composite
def mutated_dataset(draw):
    return _mutate(draw, copy.deepcopy(_SMALL_DATASET), skip=("maps",))


def check_dataset(data):
    from hazard_sim.tasks.esar.scenario import episode_from, validate_dataset, validate_episode
    try:
        validate_dataset(data, "mutated.json")
    except DatasetError as exc:
        assert str(exc).startswith("mutated.json"), exc
        COUNTS["esar dataset rejected"] += 1
        return "rejected"
    for k in range(len(data["tasks"])):          # what the loader does: never a KeyError after validation
        validate_episode(episode_from(data, k), f"task {k}")
    COUNTS["esar dataset accepted"] += 1
    return "accepted"


@given(mutated_dataset())
@settings(max_examples=30, **SMALL)
def test_mutated_esar_datasets_are_rejected_clearly_or_load(data):
    check_dataset(data)


@pytest.mark.fuzz
def test_deep_doze_esar_fuzz(request):
    if "fuzz" not in (request.config.option.markexpr or ""):
        pytest.skip("the deep fuzz runs with -m fuzz")
    n = int(os.environ.get("HAZARD_FUZZ_EXAMPLES", "600"))
    COUNTS.clear()

    @given(mutated_episode())
    @settings(max_examples=n, **SMALL)
    def run(case):
        check_episode(*case)

    @given(mutated_dataset())
    @settings(max_examples=n, **SMALL)
    def run_dataset(data):
        check_dataset(data)
    run()
    run_dataset()
    print(f"deep DOZE / ESAR fuzz: {dict(sorted(COUNTS.items()))}")
