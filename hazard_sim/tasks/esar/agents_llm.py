"""ESAR's LLM agent (``llm`` in the ``esar`` group): a language model picks which area or
clue the UAV investigates next; the probability-map agent flies there.

The agent keeps the probability-map agent's memory (what the cameras searched, the clues
and victims it found, the 2.5-D map) and its terrain-following legs.  Whenever it needs a
new destination (none yet, reached within 20 m, a failed leg, or every ``replan`` steps)
it asks an OpenAI-compatible chat endpoint (``hazard_sim.llm``) to choose among lettered
options built from its own observations only:

* up to four areas where its probability map has the most mass per distance (at least
  200 m apart): "search the area 420 m to the north-east (12 % of the probability, 80 %
  unsearched)";
* every clue found and not yet looked at from close by: "look around the backpack clue
  found 230 m to the south";
* "go back over the last known position".

The prompt gives the briefing (missing persons, located so far, time used and left, the
last known position's distance and direction, the height above ground), what has been
searched, the clues found and the last choices with their outcome.  Fallback (counted in
``llm_fallbacks``, the reason in the transcript): option A, the probability map's own best
area; after ``max_down`` unreachable calls the endpoint counts as down for the episode.
Transcripts: ``<transcript_dir>/esar_<map>_lkp<x>_<y>_seed<seed>_<mode>.jsonl``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import gaussian_filter

from hazard_sim.agents import register_agent
from hazard_sim.llm import LLM_CLI_OPTIONS
from hazard_sim.llm.chooser import LLMChooser
from hazard_sim.tasks.esar.agents import ProbabilityMapAgent

AREAS = 4
AREA_SPACING = 200.0     # m between the areas offered
AREA_RADIUS = 150.0      # m: an area's probability mass and searched share
CLOSE_LOOK = 60.0        # m: a clue has been looked at once the UAV passed this close
HISTORY = 8
_DIRS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def direction(d) -> str:
    """Compass direction of an ENU offset (x east, y north)."""
    a = math.degrees(math.atan2(float(d[1]), float(d[0]))) % 360.0
    return _DIRS[int((a + 22.5) // 45.0) % 8]


class EsarLLMAgent(ProbabilityMapAgent):
    name = "llm"
    cli_options = LLM_CLI_OPTIONS

    def __init__(self, seed: int = 0, replan: int = 30, looks_closer: bool | None = None, **llm):
        super().__init__(seed, looks_closer)
        self.llm = LLMChooser(seed=seed, **llm)
        self.replan = int(replan)

    def reset(self, obs, info):
        task = info["task"]
        lkp = task.get("lkp") or [0, 0]
        self.llm.start(f"esar_{task.get('map', 'x')}_lkp{int(lkp[0])}_{int(lkp[1])}_seed{self.llm.seed}",
                       task={k: v for k, v in task.items() if k != "trails"})
        self.briefing = str(task.get("briefing", ""))
        self.conditions = f"Weather: {task.get('weather', 'unknown')}, time of day: {task.get('time_of_day', '?')}."
        self.choices: list[str] = []
        self.choice_text = None
        self.looked_at: set[int] = set()
        self.decided_at = -10 ** 6
        super().reset(obs, info)

    def episode_info(self) -> dict:
        return {**super().episode_info(), **self.llm.summary()}

    # ------------------------------------------------------------ options
    def _areas(self, smooth, d) -> list[np.ndarray]:
        score = np.where(d > 60.0, smooth / (d + 150.0), 0.0)
        out = []
        for _ in range(AREAS):
            i, j = np.unravel_index(int(np.argmax(score)), score.shape)
            if score[i, j] <= 0:
                break
            c = self.xy[i, j].copy()
            out.append(c)
            near = np.hypot(self.xy[..., 0] - c[0], self.xy[..., 1] - c[1]) < AREA_SPACING
            score = np.where(near, 0.0, score)
        return out

    def options(self) -> tuple[list[str], list]:
        smooth = gaussian_filter(self.p, 2.0)
        d = np.hypot(self.xy[..., 0] - self.pos[0], self.xy[..., 1] - self.pos[1])
        texts, targets = [], []
        for c in self._areas(smooth, d):
            near = np.hypot(self.xy[..., 0] - c[0], self.xy[..., 1] - c[1]) < AREA_RADIUS
            mass = 100.0 * float(self.p[near].sum())
            unsearched = 100.0 * float((~self.searched[near]).mean()) if near.any() else 100.0
            off = c - self.pos[:2]
            texts.append(f"search the area {np.linalg.norm(off):.0f} m to the {direction(off)} "
                         f"({mass:.0f} % of the probability, {unsearched:.0f} % unsearched)")
            targets.append(("area", c))
        for oid, (cls, pos) in self.clues_found.items():
            if oid in self.looked_at:
                continue
            off = np.asarray(pos[:2], float) - self.pos[:2]
            texts.append(f"look around the {cls} clue found {np.linalg.norm(off):.0f} m to the {direction(off)}")
            targets.append(("clue", oid))
        off = self.lkp - self.pos[:2]
        texts.append(f"go back over the last known position ({np.linalg.norm(off):.0f} m to the {direction(off)})")
        targets.append(("lkp", self.lkp.copy()))
        return texts[:10], targets[:10]

    def context(self) -> str:
        off = self.lkp - self.pos[:2]
        near_lkp = np.hypot(self.xy[..., 0] - self.lkp[0], self.xy[..., 1] - self.lkp[1]) < 1000.0
        lines = ["You fly a search-and-rescue drone over mountain terrain, looking for missing persons with four "
                 "cameras. Choose where to search next.", "", f"Briefing: {self.briefing}", self.conditions,
                 f"Missing persons: {self.n_victims}; located so far: {len(self.victims_found)}.",
                 f"Time used: {self.time:.0f} s of {self.t_max:.0f} s.",
                 f"Last known position: {np.linalg.norm(off):.0f} m to the {direction(off)}.",
                 f"Height above the ground: {self.agl:.0f} m.",
                 f"Searched so far: {100.0 * float(self.searched[near_lkp].mean()):.0f} % of the area within 1 km "
                 "of the last known position."]
        clues = [f"{cls} {np.linalg.norm(np.asarray(p[:2]) - self.pos[:2]):.0f} m to the "
                 f"{direction(np.asarray(p[:2]) - self.pos[:2])}" for cls, p in self.clues_found.values()]
        lines.append("Clues found: " + ("; ".join(clues) if clues else "none"))
        lines += ["", "Previous choices:"] + ([f"- {c}" for c in self.choices[-HISTORY:]] or ["- none"])
        return "\n".join(lines)

    # ------------------------------------------------------------ deciding
    def decide(self):
        self.p[self.seen_now] *= 1 - self.pod
        self._boost_clues()
        self.p /= self.p.sum()
        for oid, (_, pos) in self.clues_found.items():
            if np.linalg.norm(np.asarray(pos[:2]) - self.pos[:2]) < CLOSE_LOOK:
                self.looked_at.add(oid)
        arrived = self.target is not None and np.linalg.norm(self.target - self.pos[:2]) < 20.0
        failed = self.last_status != "succeeded"
        if self.target is None or arrived or failed or self.steps - self.decided_at >= self.replan:
            if self.choice_text is not None:
                self.choices.append(f"{self.choice_text}: " + ("reached" if arrived else
                                                             "leg failed" if failed else "changed course"))
            texts, targets = self.options()
            k = self.llm.choose(self.context(), texts, fallback=0, step=self.steps, time_s=round(self.time, 1))
            kind, what = targets[k]
            if kind == "clue":
                self.looked_at.add(what)
                self.target = np.asarray(self.clues_found[what][1][:2], float)
            else:
                self.target = np.asarray(what, float)
            self.choice_text, self.decided_at = texts[k], self.steps
        return self.leg_to(self.target)


register_agent("esar", EsarLLMAgent)
