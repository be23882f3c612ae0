"""The LLM decision pipeline against a scripted OpenAI-protocol server on loopback."""
from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hazard_sim.llm import ChatClient, LLMResponseError, LLMUnavailable, Transcript, parse_choice


class ScriptedServer:
    """``POST /v1/chat/completions`` answered from ``script``: each entry is a reply text,
    an int HTTP status, or a callable(request body) -> text; the last entry repeats."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                item = outer.script[min(len(outer.requests) - 1, len(outer.script) - 1)]
                if isinstance(item, int):
                    self.send_response(item)
                    self.end_headers()
                    self.wfile.write(b'{"error": "scripted"}')
                    return
                text = item(body) if callable(item) else item
                if text.startswith("RAW:"):         # a body that is no chat completion
                    raw = text[4:].encode()
                else:
                    raw = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _dead_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"


# ---------------------------------------------------------------- client
def test_client_sends_the_openai_request_and_reads_the_answer():
    with ScriptedServer(["B"]) as srv:
        c = ChatClient(srv.url, "tiny-model", api_key="sk-test", timeout=5)
        assert c.chat([{"role": "user", "content": "hi"}], max_tokens=7) == "B"
    req = srv.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "tiny-model" and req["body"]["max_tokens"] == 7
    assert req["body"]["temperature"] == 0.7 and req["body"]["top_p"] == 1.0


def test_client_retries_server_errors_then_gives_up():
    with ScriptedServer([503, 500, "A"]) as srv:
        c = ChatClient(srv.url, "m", retries=2, backoff=0.0)
        assert c.chat([{"role": "user", "content": "x"}]) == "A" and c.requests == 3
    with ScriptedServer([503]) as srv:
        with pytest.raises(LLMUnavailable, match="HTTP 503.*after 2 attempts"):
            ChatClient(srv.url, "m", retries=1, backoff=0.0).chat([{"role": "user", "content": "x"}])
    with ScriptedServer([404]) as srv:        # a wrong model name: no retry, a specific error
        c = ChatClient(srv.url, "m", retries=3, backoff=0.0)
        with pytest.raises(LLMResponseError, match="HTTP 404"):
            c.chat([{"role": "user", "content": "x"}])
        assert c.requests == 1
    with ScriptedServer(["RAW:{\"nothing\": 1}"]) as srv:
        with pytest.raises(LLMResponseError, match="no chat completion"):
            ChatClient(srv.url, "m").chat([{"role": "user", "content": "x"}])
    with pytest.raises(LLMUnavailable, match="cannot reach"):
        ChatClient(_dead_url(), "m", retries=0, timeout=2).chat([{"role": "user", "content": "x"}])


def test_client_configuration_errors_and_environment(monkeypatch):
    with pytest.raises(ValueError, match="http"):
        ChatClient("localhost:8000", "m")
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with pytest.raises(ValueError, match="--llm-model"):
        ChatClient.from_env(base_url="http://x/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    c = ChatClient.from_env(model="m")
    assert c.url == "http://127.0.0.1:9/v1/chat/completions" and c.api_key == "k"


# ---------------------------------------------------------------- parsing
OPTS = ["go pick up object purse (1001)", "go pick up object book (1002)", "look around", "explore a new area"]


@pytest.mark.parametrize("answer,want", [
    ("B", 1), ("(C)", 2), (" d. ", 3), ("So the answer is option A.", 0), ("Answer: C", 2),
    ("A) go pick up the purse", 0), ("We could do A or B. The answer is B", 1),
    ("go pick up object book (1002)", 1), ("I would rescue 1001 first", 0), ("I'd look around", 2),
    ("The answer is a good one: B", 1), ("zzz qqq", None), ("", None), ("K", None),
])
def test_parse_choice(answer, want):
    assert parse_choice(answer, OPTS) == want


# ---------------------------------------------------------------- the agent in an episode
def _run(tmp_path, base_url, mode="direct", frame_limit=120, **kw):
    from hazard_sim.runner import run_episode
    return run_episode("fire", "test", 0, "llm", seed=0, frame_limit=frame_limit,
                       agent_kwargs={"mode": mode, "model": "scripted", "base_url": base_url, "retries": 0,
                                     "timeout": 5, "transcript_dir": str(tmp_path), **kw})


def test_llm_agent_direct_prompt_and_transcript(tmp_path):
    def first_target_or_look(body):
        prompt = body["messages"][-1]["content"]
        return "A" if "A. go pick up object" in prompt else "Let me see: C is wrong, so B"

    with ScriptedServer([first_target_or_look]) as srv:
        m = _run(tmp_path, srv.url)
    assert m["llm_calls"] == len(srv.requests) >= 1 and m["llm_fallbacks"] == 0
    assert m["llm_decisions"] == m["llm_calls"]
    prompt = srv.requests[0]["body"]["messages"][0]["content"]
    assert "house on fire" in prompt and "Target objects:" in prompt and re.search(r"- \w+: value [15], ", prompt)
    assert "Targets currently seen:" in prompt and "Targets previously seen:" in prompt
    assert "Previous actions:" in prompt and prompt.rstrip().endswith("Answer:")
    assert "A. " in prompt and "look around" in prompt
    seen_target = [r["body"]["messages"][0]["content"] for r in srv.requests
                   if "A. go pick up object" in r["body"]["messages"][0]["content"]]
    if seen_target:     # a target in view: its distance in m and temperature in C
        assert " m, temperature " in seen_target[0] and " C" in seen_target[0]
    if len(srv.requests) > 1:        # the actions taken, each with its result, in the later prompts
        later = srv.requests[-1]["body"]["messages"][0]["content"]
        done = later[later.index("Previous actions:"):later.index("Available actions:")]
        taken = r"- (look around|explore a new area|go pick up object [^:]+): (success|failed|stopped)"
        assert re.search(taken, done), done
    events = Transcript.read(m["llm_transcript"])
    assert events[0]["event"] == "episode" and events[-1]["event"] == "end"
    calls = [e for e in events if e["event"] == "call"]
    decisions = [e for e in events if e["event"] == "decision"]
    assert len(calls) == m["llm_calls"] and len(decisions) == m["llm_decisions"]
    assert calls[0]["messages"][0]["content"] == prompt and calls[0]["answer"] in ("A", "Let me see: C is wrong, so B")
    assert all(d["fallback"] is None for d in decisions)


def test_llm_agent_chain_of_thought_makes_two_calls(tmp_path):
    with ScriptedServer([lambda body: "B" if len(body["messages"]) == 3 else "Thinking about the fire..."]) as srv:
        m = _run(tmp_path, srv.url, mode="cot", frame_limit=60)
    assert m["llm_calls"] == 2 * m["llm_decisions"] >= 2 and m["llm_fallbacks"] == 0
    first, second = srv.requests[0]["body"]["messages"], srv.requests[1]["body"]["messages"]
    assert first[0]["content"].endswith("Answer: Let's think step by step.")
    assert second[1] == {"role": "assistant", "content": "Thinking about the fire..."}
    assert second[2]["content"] == "Answer with only one best next action. So the answer is option"


def test_llm_agent_falls_back_on_unusable_answers_and_a_dead_endpoint(tmp_path):
    with ScriptedServer(["I refuse to choose."]) as srv:
        m = _run(tmp_path, srv.url, frame_limit=60)
    assert m["llm_fallbacks"] == m["llm_decisions"] == m["llm_calls"] >= 1
    decisions = [e for e in Transcript.read(m["llm_transcript"]) if e["event"] == "decision"]
    assert all(d["fallback"] == "unusable answer (no option named)" for d in decisions)

    m = _run(tmp_path / "dead", _dead_url(), frame_limit=700, max_down=1)
    # one unreachable call, then the endpoint counts as down: no more calls, every decision falls back
    assert m["llm_calls"] == 1 and m["llm_fallbacks"] == m["llm_decisions"] >= 2
    decisions = [e for e in Transcript.read(m["llm_transcript"]) if e["event"] == "decision"]
    assert decisions[0]["fallback"].startswith("LLMUnavailable")
    assert decisions[-1]["fallback"].startswith("endpoint down")
    assert m["frames"] == 700 or m["rescued_count"] == m["targets"]    # the episode still ran to its end


def test_cli_flags(tmp_path, monkeypatch, capsys):
    from hazard_sim.cli import main
    with ScriptedServer(["A"]) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
        rc = main(["run", "--task", "fire", "--agent", "llm", "--llm-mode", "direct", "--llm-model", "scripted",
                   "--llm-transcript-dir", str(tmp_path), "--width", "64", "--height", "64", "--json",
                   "--frame-limit", "40"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["llm_calls"] >= 1 and out["llm_fallbacks"] == 0 and out["llm_transcript"].startswith(str(tmp_path))
    assert srv.requests[0]["auth"] == "Bearer sk-env" and srv.requests[0]["body"]["model"] == "scripted"
    assert main(["run", "--task", "fire", "--agent", "llm", "--llm-model", "m", "--llm-base-url", "ftp://x",
                 "--json"]) == 2
