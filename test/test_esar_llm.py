"""ESAR's LLM agent against a scripted OpenAI-protocol server on loopback."""
from __future__ import annotations

import json
import re

import pytest
from test_llm import ScriptedServer, _dead_url

from hazard_sim.llm import Transcript
from hazard_sim.llm.chooser import LLMChooser
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.esar.agents_llm import direction

CAM = CameraSpec(32, 32, 90.0)
EPISODE = 24


def _run(tmp_path, url, frame_limit=900, **kw):
    from hazard_sim.runner import run_episode
    kw = dict(model="scripted", base_url=url, transcript_dir=str(tmp_path), retries=0, timeout=5.0, **kw)
    return run_episode("esar", "test", EPISODE, "llm", 0, camera=CAM, frame_limit=frame_limit, agent_kwargs=kw)


def _letter_of(prompt: str, start: str) -> str:
    m = re.search(rf"^([A-J])\. {re.escape(start)}", prompt, re.MULTILINE)
    return m.group(1) if m else "Z"


def test_direction_names_compass_points():
    assert direction((1, 0)) == "east" and direction((0, 1)) == "north" and direction((-1, -1)) == "south-west"


def test_esar_llm_agent_prompt_choices_and_transcript(tmp_path):
    with ScriptedServer([lambda body: _letter_of(body["messages"][-1]["content"], "go back over")]) as srv:
        m = _run(tmp_path, srv.url, replan=3)
    assert m["llm_calls"] == m["llm_decisions"] == len(srv.requests) >= 2 and m["llm_fallbacks"] == 0
    prompt = srv.requests[0]["body"]["messages"][0]["content"]
    for part in ("search-and-rescue drone", "Briefing:", "Missing persons: ", "Time used: ", "Last known position: ",
                 "Height above the ground: ", "Searched so far: ", "Clues found: ", "Previous choices:",
                 "Available actions:", "A. search the area ", "% of the probability", "go back over the last known"):
        assert part in prompt, part
    assert prompt.rstrip().endswith("Answer:")
    later = srv.requests[-1]["body"]["messages"][0]["content"]
    assert "- go back over the last known position" in later          # its own past choice and outcome
    events = Transcript.read(m["llm_transcript"])
    assert events[0]["event"] == "episode" and events[-1]["event"] == "end"
    decisions = [e for e in events if e["event"] == "decision"]
    assert len(decisions) == m["llm_decisions"]
    assert all(d["fallback"] is None and d["choice"].startswith("go back over") for d in decisions)
    assert m["safe"] and m["actions"] >= 2


def test_esar_llm_agent_falls_back_to_the_probability_map(tmp_path):
    with ScriptedServer(["I cannot fly drones."]) as srv:
        m = _run(tmp_path, srv.url, frame_limit=500)
    assert m["llm_fallbacks"] == m["llm_decisions"] == m["llm_calls"] >= 1
    decisions = [e for e in Transcript.read(m["llm_transcript"]) if e["event"] == "decision"]
    assert all(d["fallback"] == "unusable answer (no option named)" and d["choice"].startswith("search the area")
               for d in decisions)
    m = _run(tmp_path / "dead", _dead_url(), frame_limit=1500, max_down=1, replan=2)
    assert m["llm_calls"] == 1 and m["llm_fallbacks"] == m["llm_decisions"] >= 2
    decisions = [e for e in Transcript.read(m["llm_transcript"]) if e["event"] == "decision"]
    assert decisions[0]["fallback"].startswith("LLMUnavailable") and decisions[-1]["fallback"].startswith(
        "endpoint down")


def test_chooser_chain_of_thought_and_bad_input(tmp_path):
    with ScriptedServer([lambda body: "B" if len(body["messages"]) == 3 else "Thinking..."]) as srv:
        c = LLMChooser(mode="cot", model="m", base_url=srv.url, transcript_dir=str(tmp_path), retries=0)
        c.start("x")
        assert c.choose("Where?", ["north", "south"], fallback=0) == 1
        assert c.summary()["llm_calls"] == 2
    with pytest.raises(ValueError, match="unknown LLM mode"):
        LLMChooser(mode="tree", model="m", base_url="http://127.0.0.1:1/v1")
    c = LLMChooser(model="m", base_url="http://127.0.0.1:1/v1", transcript_dir=str(tmp_path))
    with pytest.raises(RuntimeError, match="start"):
        c.choose("?", ["a"], 0)
    c.start("y")
    with pytest.raises(ValueError, match="no options"):
        c.choose("?", [], 0)


def test_cli_runs_the_esar_llm_agent(tmp_path, monkeypatch, capsys):
    from hazard_sim.cli import main
    with ScriptedServer(["A"]) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        rc = main(["run", "--benchmark", "esar", "--split", "test", "--episode", str(EPISODE), "--agent", "llm",
                   "--llm-model", "scripted", "--llm-transcript-dir", str(tmp_path), "--width", "32", "--height",
                   "32", "--frame-limit", "300", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["llm_calls"] >= 1 and out["llm_fallbacks"] == 0 and out["llm_transcript"].startswith(str(tmp_path))
