"""What HAZARD's agents are told about each hazard.

LLM prompt pieces (after the public code's per-hazard templates): the task description,
how a target's attribute reads, and the hazard reading's name, unit and format; the LLM
agent (``hazard_sim.tasks.hazard.agents.llm``) assembles the prompt.  And the kind of forward model
the hazard-model MCTS uses (``hazard_sim.tasks.hazard.agents.hazard_model``): a spreading front with
the reading above which an object counts as damaged, or a drift of the objects."""
from __future__ import annotations

TASK_TEXT = {
    "fire": ("I am in a house on fire. I must rescue valuable objects into the bag I carry before they burn. "
             "An object loses half its value once it is burning or burnt; fire spreads over the floor and heats "
             "objects near it until they catch fire."),
    "flood": ("I am in a house that is flooding: water comes in from one wall and rises. I must rescue valuable "
              "objects into the bag I carry. An object that is not waterproof loses half its value as soon as "
              "the water touches it; light objects float away."),
    "wind": ("I am outdoors in a strong wind that blows light objects away. I must carry valuable objects to a "
             "shopping cart and drop them in. Objects blown out of the area are lost."),
}
READING = {"fire": ("temperature", "C", "{:.0f}"), "flood": ("water level", "m", "{:.2f}")}


def task_text(hazard: str) -> str:
    try:
        return TASK_TEXT[hazard]
    except KeyError:
        raise ValueError(f"no LLM prompt for hazard {hazard!r}: expected one of {', '.join(TASK_TEXT)}") from None


def target_attribute(hazard: str, target: dict) -> str:
    """The attribute of a target category that matters for the hazard."""
    if hazard == "flood":
        return "waterproof" if target.get("waterproof") else "not waterproof"
    if hazard == "fire":
        return "fireproof" if target.get("fireproof") else "not fireproof"
    return f"wind resistance {target.get('wind_resistance', 0):g}"


def reading(hazard: str):
    """(name, unit, format) of the hazard reading agents see, or None (wind has none)."""
    return READING.get(hazard)


#: hazard -> (forward model kind, damage threshold of the hazard reading)
FORWARD_MODEL = {"fire": ("front", 100.0), "flood": ("front", 0.02), "wind": ("drift", None)}


def forward_model(hazard: str) -> tuple[str | None, float | None]:
    return FORWARD_MODEL.get(hazard, (None, None))
