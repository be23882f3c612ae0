"""Golden results of DOZE and ESAR: their runs must stay identical through refactoring.

``test/golden/<benchmark>/<id>_<agent>_<episode>.json`` holds the metrics of
``run_episode(ID, "test", E, A, seed=0, frame_limit=F)`` (less ``wall_time_s``), as
``hazard run --benchmark ID --episode E --agent A --frame-limit F --json`` prints them: DOZE
levels 1-3 and ESAR, test episodes 0-2, with DOZE's frontier, L3MVN and hint-aware L3MVN agents
(frame limit 1000: successes come within it, the rest are cut at the limit) and ESAR's random,
lawnmower, frontier and probability-map agents (frame limit 3000, 300 s of flight; episode 1
ends with a found victim). Recorded on the raster backend before HAZARD moved into
``tasks/hazard/``. A deliberate change of behaviour rewrites the affected files in a commit of
its own that says why (``python test/test_golden_doze_esar.py --rewrite``).

The default run checks the cheap cases in :data:`DEFAULT` (a success of each benchmark and a DOZE
run cut at the limit); ``-m golden`` (``make test-golden``) checks all of them.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_golden import _raster_available

ROOT = Path(__file__).parent / "golden"
EPISODES = range(3)
#: benchmark id -> (agents, frame limit)
CASES = {"doze/level1": (("frontier", "l3mvn", "h_l3mvn"), 1000),
         "doze/level2": (("frontier", "l3mvn", "h_l3mvn"), 1000),
         "doze/level3": (("frontier", "l3mvn", "h_l3mvn"), 1000),
         "esar": (("random", "lawnmower", "frontier", "probmap"), 3000)}
#: the cases of the default suite (about a second each)
DEFAULT = {("doze/level2", "frontier", 2), ("doze/level2", "l3mvn", 0), ("doze/level1", "frontier", 0),
           ("esar", "probmap", 1), ("esar", "lawnmower", 0)}
IGNORED = ("wall_time_s",)


def _path(benchmark: str, agent: str, episode: int) -> Path:
    group, _, rest = benchmark.partition("/")
    return ROOT / group / f"{rest or group}_{agent}_{episode}.json"


def _all():
    for b, (agents, _) in CASES.items():
        for a in agents:
            for e in EPISODES:
                yield b, a, e


def _cases():
    for b, a, e in _all():
        marks = () if (b, a, e) in DEFAULT else (pytest.mark.golden,)
        yield pytest.param(b, a, e, id=f"{b}-{a}-{e}", marks=marks)


def _run(benchmark: str, agent: str, episode: int) -> dict:
    from hazard_sim.runner import run_episode
    m = run_episode(benchmark, "test", episode, agent, seed=0, frame_limit=CASES[benchmark][1])
    return json.loads(json.dumps({k: v for k, v in m.items() if k not in IGNORED}, sort_keys=True))


@pytest.mark.parametrize("benchmark,agent,episode", list(_cases()))
def test_golden(benchmark, agent, episode):
    if not _raster_available():
        pytest.skip("golden results were recorded on the raster backend, which cannot run here")
    want = json.loads(_path(benchmark, agent, episode).read_text())
    got = _run(benchmark, agent, episode)
    assert got["render_backend"] == "raster"
    diff = {k: (want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)}
    assert not diff, f"{benchmark} {agent} episode {episode} differs from its golden result: {diff}"


def test_golden_files_complete():
    for group in ("doze", "esar"):
        names = {p.name for p in (ROOT / group).glob("*.json")}
        assert names == {_path(b, a, e).name for b, a, e in _all() if b.split("/")[0] == group}
    for b, a, e in _all():
        doc = json.loads(_path(b, a, e).read_text())
        assert doc["render_backend"] == "raster" and "wall_time_s" not in doc
        assert doc["agent"] == a and doc["episode"] == e and 0 < doc["frames"] <= CASES[b][1]
    assert DEFAULT <= set(_all())


if __name__ == "__main__" and sys.argv[1:] == ["--rewrite"]:
    for b, a, e in _all():
        p = _path(b, a, e)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(_run(b, a, e), indent=1, sort_keys=True) + "\n")
        print("rewrote", b, a, e, flush=True)
