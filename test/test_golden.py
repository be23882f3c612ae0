"""Golden results: the HAZARD runs must stay identical through refactoring.

``test/golden/hazard/<task>_<agent>_<episode>.json`` holds the full
``hazard run --task T --split test --episode E --agent A --seed 0 --json`` output
(less ``wall_time_s``) of fire, flood and wind test episodes 0-4 with the greedy and
rule agents, recorded on the raster backend before the core was reshaped.  A
deliberate change of behaviour rewrites the affected files in a commit of its own
that says why (``python test/test_golden.py --rewrite``).

The default run checks episode 0 of every task and agent; ``-m golden`` (``make
test-golden``) checks all 30 files.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "hazard"
TASKS, AGENTS, EPISODES = ("fire", "flood", "wind"), ("greedy", "rule"), range(5)
IGNORED = ("wall_time_s",)


def _cases():
    for task in TASKS:
        for agent in AGENTS:
            for ep in EPISODES:
                marks = () if ep == 0 else (pytest.mark.golden,)
                yield pytest.param(task, agent, ep, id=f"{task}-{agent}-{ep}", marks=marks)


def _run(task: str, agent: str, episode: int) -> dict:
    from hazard_sim.runner import run_episode
    m = run_episode(task, "test", episode, agent, seed=0)
    return json.loads(json.dumps({k: v for k, v in m.items() if k not in IGNORED}, sort_keys=True))


def _raster_available() -> bool:
    from hazard_sim.render.raster import raster_available
    return raster_available()[0]


@pytest.mark.parametrize("task,agent,episode", list(_cases()))
def test_golden(task, agent, episode):
    if not _raster_available():
        pytest.skip("golden results were recorded on the raster backend, which cannot run here")
    want = json.loads((GOLDEN / f"{task}_{agent}_{episode}.json").read_text())
    got = _run(task, agent, episode)
    assert got["render_backend"] == "raster"
    diff = {k: (want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)}
    assert not diff, f"{task} {agent} episode {episode} differs from its golden result: {diff}"


def test_golden_files_complete():
    names = {p.name for p in GOLDEN.glob("*.json")}
    assert names == {f"{t}_{a}_{e}.json" for t in TASKS for a in AGENTS for e in EPISODES}
    for p in GOLDEN.glob("*.json"):
        doc = json.loads(p.read_text())
        assert doc["render_backend"] == "raster" and "wall_time_s" not in doc
        assert 0.0 <= doc["value_rate"] <= 1.0 and doc["frames"] > 0


if __name__ == "__main__" and sys.argv[1:] == ["--rewrite"]:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for t in TASKS:
        for a in AGENTS:
            for e in EPISODES:
                (GOLDEN / f"{t}_{a}_{e}.json").write_text(json.dumps(_run(t, a, e), indent=1, sort_keys=True) + "\n")
                print("rewrote", t, a, e)
