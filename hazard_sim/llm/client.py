"""A small client for any OpenAI-compatible chat endpoint (standard library only).

vLLM, Ollama, llama.cpp's server, LM Studio and hosted APIs all serve
``POST {base_url}/chat/completions`` with the same JSON.  ``ChatClient`` sends one
request per :meth:`ChatClient.chat`, times out, retries connection failures, time-outs,
429 and 5xx answers with a growing pause, and raises a specific error otherwise:

* :class:`LLMUnavailable`: the endpoint cannot be reached or kept failing (after retries);
* :class:`LLMResponseError`: it answered, but not with a usable chat completion
  (HTTP 4xx such as a wrong model name or key, or a malformed body).

Configuration (:meth:`ChatClient.from_env`): base URL from the argument or
``OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``), API key from
``OPENAI_API_KEY`` (local servers ignore it; ``none`` is sent when unset), model from
the argument or ``OPENAI_MODEL``.  Reusable by any benchmark's agent.
"""
from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class LLMError(RuntimeError):
    """Base of the client's errors."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached or kept failing after the retries."""


class LLMResponseError(LLMError):
    """The endpoint answered with an error status or a body that is no chat completion."""


MAX_TIMEOUT_S = 3600.0      # seconds per request: an hour
MAX_RETRIES = 100


@dataclass
class ChatClient:
    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0          # seconds per request
    retries: int = 2               # extra attempts after a failed one (connection, time-out, 429, 5xx)
    backoff: float = 1.0           # pause before retry k is backoff * 2**k seconds
    requests: int = field(default=0, init=False)     # HTTP requests sent, retries included

    def __post_init__(self):
        if not self.base_url or not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"LLM base URL must start with http:// or https://, got {self.base_url!r}")
        if not self.model:
            raise ValueError("no LLM model name: give --llm-model NAME or set OPENAI_MODEL")
        self.base_url = self.base_url.rstrip("/")
        t = self.timeout
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= MAX_TIMEOUT_S:
            raise ValueError(f"LLM timeout must be a number of seconds in (0, {MAX_TIMEOUT_S:g}], got {t!r}")
        r = self.retries
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r <= MAX_RETRIES:
            raise ValueError(f"LLM retries must be an integer in [0, {MAX_RETRIES}], got {r!r}")
        b = self.backoff
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0 <= b <= MAX_TIMEOUT_S:
            raise ValueError(f"LLM backoff must be a number of seconds in [0, {MAX_TIMEOUT_S:g}], got {b!r}")

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 **kw) -> ChatClient:
        return cls(base_url=base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
                   model=model or os.environ.get("OPENAI_MODEL", ""),
                   api_key=api_key if api_key is not None else os.environ.get("OPENAI_API_KEY"), **kw)

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def chat(self, messages: list[dict], temperature: float = 0.7, top_p: float = 1.0,
             max_tokens: int = 512, seed: int | None = None) -> str:
        """The assistant's answer (text) to ``messages`` (``[{"role", "content"}, ...]``)."""
        body = {"model": self.model, "messages": messages, "temperature": temperature, "top_p": top_p,
                "max_tokens": max_tokens}
        if seed is not None:
            body["seed"] = int(seed)
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key or 'none'}"}
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            self.requests += 1
            req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    raw = r.read()
            except urllib.error.HTTPError as e:
                detail = e.read()[:300].decode("utf-8", "replace")
                if e.code == 429 or e.code >= 500:
                    last = f"HTTP {e.code} from {self.url}: {detail}"
                    continue
                raise LLMResponseError(f"HTTP {e.code} from {self.url}: {detail}") from None
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as e:
                reason = getattr(e, "reason", e)
                last = f"cannot reach {self.url}: {reason}"
                continue
            return _content(raw, self.url)
        raise LLMUnavailable(f"{last} (after {self.retries + 1} attempts)")


def _content(raw: bytes, url: str) -> str:
    try:
        doc = json.loads(raw)
        content = doc["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMResponseError(f"{url} answered with no chat completion: {raw[:200]!r}") from None
    if not isinstance(content, str):
        raise LLMResponseError(f"{url} answered with non-text content: {content!r}"[:300])
    return content
