"""Language-model decision making: an OpenAI-compatible chat client, answer parsing and
per-episode transcripts, shared by every benchmark's LLM agent."""
from hazard_sim.llm.client import ChatClient, LLMError, LLMResponseError, LLMUnavailable
from hazard_sim.llm.parse import parse_choice
from hazard_sim.llm.transcript import Transcript

#: the command-line options every LLM agent takes (``--llm-mode`` ...): option destination -> keyword
#: argument of the agent (``cli_options`` of :func:`hazard_sim.agents.cli_kwargs`)
LLM_CLI_OPTIONS = {"llm_mode": "mode", "llm_model": "model", "llm_base_url": "base_url", "llm_timeout": "timeout",
                   "llm_retries": "retries", "llm_transcript_dir": "transcript_dir"}

__all__ = ["LLM_CLI_OPTIONS", "ChatClient", "LLMError",
           "LLMResponseError", "LLMUnavailable", "Transcript", "parse_choice"]
