"""One lettered choice by a language model, with the accounting every LLM agent shares.

:class:`LLMChooser` asks an OpenAI-compatible endpoint (:class:`ChatClient`) to pick one
of a few lettered options, in ``direct`` mode (one call) or ``cot`` (a reasoning call,
then "So the answer is option"), parses the answer (:func:`parse_choice`) and, when the
endpoint is down, answers with an error or names no option, returns the caller's
fallback instead.  It counts calls, decisions and fallbacks, stops calling after
``max_down`` unreachable calls in a row (the endpoint is taken as down for the episode),
and writes every prompt, answer and decision to a per-episode JSON-lines transcript:
every benchmark's LLM agent uses it.
"""
from __future__ import annotations

import os

from hazard_sim.llm.client import ChatClient, LLMError, LLMUnavailable
from hazard_sim.llm.parse import LETTERS, parse_choice
from hazard_sim.llm.transcript import Transcript

COT_CUE = "Let's think step by step."
COT_ANSWER = "Answer with only one best next action. So the answer is option"


def lettered_prompt(context: str, options: list[str]) -> str:
    """``context``, then the options lettered A, B, ... under "Available actions:", then "Answer:"."""
    return "\n".join([context, "", "Available actions:", *[f"{LETTERS[k]}. {o}" for k, o in enumerate(options)],
                      "", "Answer:"])


class LLMChooser:
    def __init__(self, mode: str = "direct", model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 60.0, retries: int = 2, backoff: float = 1.0,
                 transcript_dir: str | None = None, max_down: int = 3, client: ChatClient | None = None,
                 temperature: float = 0.7, top_p: float = 1.0, max_tokens: int = 512, seed: int = 0):
        if mode not in ("direct", "cot"):
            raise ValueError(f"unknown LLM mode {mode!r}: expected direct or cot")
        self.mode = mode
        self.client = client or ChatClient.from_env(model=model, base_url=base_url, api_key=api_key,
                                                    timeout=timeout, retries=retries, backoff=backoff)
        self.transcript_dir = transcript_dir or os.environ.get("HAZARD_LLM_TRANSCRIPTS", "runs/llm")
        self.max_down = max_down
        self.sampling = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
        self.seed = seed
        self.transcript: Transcript | None = None
        self.calls = self.fallbacks = self.decisions = self.down_streak = 0

    def start(self, name: str, **header) -> None:
        """A new episode: counters to zero, a new transcript ``<transcript_dir>/<name>_<mode>.jsonl``."""
        self.close()
        self.calls = self.fallbacks = self.decisions = self.down_streak = 0
        self.transcript = Transcript(os.path.join(self.transcript_dir, f"{name}_{self.mode}.jsonl"))
        self.transcript.write("episode", model=self.client.model, base_url=self.client.base_url, mode=self.mode,
                              sampling=self.sampling, **header)

    def close(self) -> None:
        if self.transcript:
            self.transcript.close()

    def summary(self) -> dict:
        """The keys an LLM agent adds to its episode's results (and the transcript's end event)."""
        if self.transcript:
            self.transcript.write("end", llm_calls=self.calls, llm_fallbacks=self.fallbacks, decisions=self.decisions)
            self.transcript.close()
        return {"llm_calls": self.calls, "llm_fallbacks": self.fallbacks, "llm_decisions": self.decisions,
                "llm_transcript": str(self.transcript.path) if self.transcript else None,
                "llm_model": self.client.model, "llm_mode": self.mode}

    def _call(self, messages: list[dict]) -> str:
        self.calls += 1
        try:
            answer = self.client.chat(messages, seed=self.seed, **self.sampling)
        except LLMError as e:
            self.transcript.write("call", messages=messages, error=str(e))
            if isinstance(e, LLMUnavailable):
                self.down_streak += 1
            raise
        self.down_streak = 0
        self.transcript.write("call", messages=messages, answer=answer)
        return answer

    def choose(self, context: str, options: list[str], fallback: int, **note) -> int:
        """The index of the option chosen for the prompt ``context`` + lettered ``options`` +
        "Answer:", or ``fallback`` (counted, its reason in the transcript)."""
        if not options:
            raise ValueError("no options to choose from")
        if len(options) > len(LETTERS):
            raise ValueError(f"at most {len(LETTERS)} options, got {len(options)}")
        if self.transcript is None:
            raise RuntimeError("LLMChooser.start() must be called before choose()")
        self.decisions += 1
        prompt = lettered_prompt(context, options)
        why, answer, k = None, None, None
        if self.down_streak >= self.max_down:
            why = f"endpoint down ({self.max_down} calls in a row could not reach it)"
        else:
            try:
                if self.mode == "cot":
                    thought = self._call([{"role": "user", "content": f"{prompt} {COT_CUE}"}])
                    answer = self._call([{"role": "user", "content": f"{prompt} {COT_CUE}"},
                                         {"role": "assistant", "content": thought},
                                         {"role": "user", "content": COT_ANSWER}])
                else:
                    answer = self._call([{"role": "user", "content": prompt}])
                k = parse_choice(answer, options)
                if k is None:
                    why = "unusable answer (no option named)"
            except LLMError as e:
                why = f"{type(e).__name__}: {e}"
        if k is None:
            self.fallbacks += 1
            k = fallback
        self.transcript.write("decision", options=options, answer=answer, choice=options[k], fallback=why, **note)
        return k


__all__ = ["LLMChooser", "COT_CUE", "COT_ANSWER", "lettered_prompt"]
