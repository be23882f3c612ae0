"""HAZARD's LLM agent: a language model chooses the next object to rescue.

The prompt follows the public HAZARD code's per-hazard templates: the task, the target
categories (value, waterproof / fireproof / wind resistance), the current state (targets
seen now and seen before, with distance in m and temperature in Celsius or water level
in m), the history of object states (HAZARD's v2), the last 10 actions with their
results, and at most 10 lettered options ("go pick up object <name> (<id>)", "look
around", "explore a new area") ending in "Answer:".  Everything comes from the agent's
own memory of its observations (``Memory``), never from the simulator's state.

Modes: ``direct`` (one call, the answer parsed for an option) and ``cot`` (the prompt
plus "Let's think step by step.", then a second call with the reasoning appended that
asks "Answer with only one best next action. So the answer is option").  Sampling:
temperature 0.7, top_p 1.0, at most 512 tokens (as the public code).

A chosen object is pursued without new calls (walk_to, pick_up, then the container) until
it is rescued or given up; "look around" / "explore a new area" run one action and the
model is asked again.

**Fallback** (counted in ``llm_fallbacks``, the reason written to the transcript): when
the endpoint cannot be reached or keeps failing, answers with an error, or its answer
names no option, the agent takes the greedy choice: the nearest known open target, or
exploration when none is known.  After ``max_down`` consecutive unreachable calls the
endpoint is taken as down for the rest of the episode (no more calls, every decision
falls back) so that a dead server does not cost a time-out per decision.

Every prompt and answer goes to a JSON-lines transcript per episode
(``transcript_dir``/``<hazard>_<split>_ep<episode>_seed<seed>_<mode>.jsonl``).
"""
from __future__ import annotations

from hazard_sim.llm import LLM_CLI_OPTIONS, ChatClient
from hazard_sim.llm.chooser import LLMChooser, lettered_prompt
from hazard_sim.tasks.hazard.agents.base import RescueAgent
from hazard_sim.tasks.hazard.prompts import reading, target_attribute, task_text

MAX_OPTIONS = 10
HISTORY = 10

class LLMAgent(RescueAgent):
    name = "llm"
    cli_options = LLM_CLI_OPTIONS

    def __init__(self, seed: int = 0, mode: str = "direct", model: str | None = None, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 60.0, retries: int = 2, backoff: float = 1.0,
                 transcript_dir: str | None = None, max_down: int = 3, client: ChatClient | None = None,
                 temperature: float = 0.7, top_p: float = 1.0, max_tokens: int = 512):
        super().__init__(seed)
        # the endpoint, sampling, counters, fallback rules and transcript: the shared chooser
        self.llm = LLMChooser(mode=mode, model=model, base_url=base_url, api_key=api_key, timeout=timeout,
                              retries=retries, backoff=backoff, transcript_dir=transcript_dir, max_down=max_down,
                              client=client, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)

    # ------------------------------------------------------------ episode
    def reset(self, obs, info):
        task = info["task"]
        self.hazard = task.get("hazard", "")
        task_text(self.hazard)          # a clear error for a task without a prompt
        self.current = None
        self.plan_text = None
        self.log: list[str] = []           # "<option>: <result>" of past choices
        self.llm.start(f"{self.hazard}_{task.get('split', 'x')}_ep{task.get('episode', 'x')}_seed{self.llm.seed}",
                       task=task)
        super().reset(obs, info)

    def episode_info(self) -> dict:
        """Keys added to the episode's results."""
        return self.llm.summary()

    # ------------------------------------------------------------ acting
    def decide(self):
        m = self.memory
        self._close_plan()
        if m.held >= 0:
            return self.to_container()
        open_ids = {r.id for r in m.open_targets()}
        if self.current in open_ids and not (self.last_action == ("walk_to", self.current) and not self.last_ok
                                             and self.failures.get(self.current, 0) >= 2):
            return self.rescue_step(self.current)
        self.current = None
        options, actions = self.options()
        k = self.choose(options)
        self.plan_text = options[k]
        act = actions[k]
        if isinstance(act, int):
            self.current = act
            return self.rescue_step(act)
        return act() if callable(act) else act

    def _close_plan(self) -> None:
        """Log the outcome of the running plan once it is over."""
        if self.plan_text is None:
            return
        res = self.memory
        if self.current is None:      # look around / explore: one action
            r = self._last_result()
            self.log.append(f"{self.plan_text}: {r}")
            self.plan_text = None
            return
        rec = res.objects.get(self.current)
        if rec is not None and rec.status == "rescued":
            self.log.append(f"{self.plan_text}: success, rescued")
        elif rec is None or rec.status == "lost":
            self.log.append(f"{self.plan_text}: failed ({self._last_result()})")
        elif self.current in {r.id for r in res.open_targets()} or res.held == self.current:
            return                    # still running
        else:
            self.log.append(f"{self.plan_text}: stopped")
        self.plan_text = None

    def _last_result(self) -> str:
        r = getattr(self, "_result", {}) or {}
        if not r:
            return "done"
        return "success" if r.get("success") else f"failed: {r.get('message') or r.get('status')}"

    def observe(self, obs, info):
        self._result = info.get("action_result", {})
        super().observe(obs, info)

    # ------------------------------------------------------------ prompt
    def options(self) -> tuple[list[str], list]:
        """Lettered options (text) and what each does: an object id (rescue it) or an action."""
        m = self.memory
        targets = sorted(m.open_targets(), key=m.distance)[:MAX_OPTIONS - 2]
        texts = [f"go pick up object {r.category} ({r.id})" for r in targets]
        acts: list = [r.id for r in targets]
        texts += ["look around", "explore a new area"]
        acts += [("explore",), lambda: self.frontier_step() or self.random_low_level()]
        return texts, acts

    def _reading(self, value) -> str:
        r = reading(self.hazard)
        if r is None or value != value:      # no reading for this hazard, or NaN: never read
            return ""
        name, unit, fmt = r
        return f", {name} {fmt.format(value)} {unit}"

    def prompt(self, options: list[str]) -> str:
        return lettered_prompt(self.context(), options)

    def context(self) -> str:
        """The prompt before its options: task, targets, state, history, previous actions."""
        m = self.memory
        lines = [task_text(self.hazard), "", "Target objects:"]
        for t in m.task["targets"]:
            lines.append(f"- {t['category']}: value {t['value']}, {target_attribute(self.hazard, t)}")
        now = [r for r in m.objects.values() if r.is_target and r.status == "scene" and r.last_seen == m.frame]
        before = [r for r in m.objects.values() if r.is_target and r.status == "scene" and r.last_seen != m.frame]
        lines += ["", f"Current state (frame {m.frame}):"]
        lines.append("Targets currently seen: " + ("; ".join(
            f"{r.category} ({r.id}), value {r.value}, distance {m.distance(r):.1f} m{self._reading(r.reading)}"
            for r in sorted(now, key=m.distance)) or "none"))
        lines.append("Targets previously seen: " + ("; ".join(
            f"{r.category} ({r.id}), value {r.value}, distance {m.distance(r):.1f} m{self._reading(r.reading)}, "
            f"last seen at frame {r.last_seen}" for r in sorted(before, key=m.distance)) or "none"))
        held = m.objects.get(m.held)
        lines.append(f"Holding: {held.category} ({held.id})" if held else "Holding: nothing")
        done = [r for r in m.objects.values() if r.is_target and r.status == "rescued"]
        lines.append("Rescued: " + (", ".join(f"{r.category} ({r.id})" for r in done) or "none"))
        if reading(self.hazard) is not None:
            hist = [r for r in m.objects.values() if r.is_target and len(r.readings) >= 2 and r.status == "scene"]
            if hist:
                lines += ["", "History of object states:"]
                for r in hist:
                    lines.append(f"- {r.category} ({r.id}): " + ", ".join(
                        f"frame {f}{self._reading(v).replace(', ', ' ', 1)}" for f, v in r.readings[-4:]))
        lines += ["", "Previous actions:"]
        lines += [f"- {a}" for a in self.log[-HISTORY:]] or ["- none"]
        return "\n".join(lines)

    # ------------------------------------------------------------ calling
    def choose(self, options: list[str]) -> int:
        return self.llm.choose(self.context(), options, self._fallback(options), frame=self.memory.frame)

    def _fallback(self, options: list[str]) -> int:
        """Greedy: the nearest known open target (options list them nearest first), else look around."""
        return 0 if options[0].startswith("go pick up") else options.index("look around")
