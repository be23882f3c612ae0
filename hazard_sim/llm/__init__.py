"""Language-model decision making: an OpenAI-compatible chat client, answer parsing and
per-episode transcripts, shared by every benchmark's LLM agent."""
from hazard_sim.llm.client import ChatClient, LLMError, LLMResponseError, LLMUnavailable
from hazard_sim.llm.parse import parse_choice
from hazard_sim.llm.transcript import Transcript

__all__ = ["ChatClient", "LLMError", "LLMResponseError", "LLMUnavailable", "Transcript", "parse_choice"]
