"""Per-episode transcripts: every prompt and answer of an LLM agent, one JSON line each."""
from __future__ import annotations

import json
import time
from pathlib import Path


class Transcript:
    """Appends one JSON object per event to ``path`` (created with its folders), flushed at
    once so that a crash loses nothing.  Events: ``call`` (messages, answer or error,
    seconds), ``decision`` (options, choice, fallback and why), free ``note``s."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "w")

    def write(self, kind: str, **data) -> None:
        self._fh.write(json.dumps({"event": kind, "time": round(time.time(), 3), **data}, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    @staticmethod
    def read(path) -> list[dict]:
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
