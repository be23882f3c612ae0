"""HAZARD's action space and the result every action reports."""
from __future__ import annotations

from dataclasses import asdict, dataclass

#: action names, in the order of the Discrete ``type`` of the gym action space
ACTIONS = ("walk_to", "pick_up", "drop", "explore", "move_by", "turn_by", "turn_to", "stop")
NEEDS_OBJECT = {"walk_to", "pick_up", "turn_to"}
NEEDS_AMOUNT = {"move_by", "turn_by"}


class ActionError(ValueError):
    """An action that cannot even be interpreted (unknown name, missing argument)."""


@dataclass(frozen=True)
class Action:
    name: str
    object_id: int | None = None
    amount: float | None = None       # metres (move_by) or degrees (turn_by)

    def __str__(self) -> str:
        arg = self.object_id if self.object_id is not None else self.amount
        return f"{self.name}({'' if arg is None else arg})"


@dataclass
class ActionResult:
    action: str
    success: bool
    frames: int
    reason: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def parse_action(a) -> Action:
    """Accept an Action, a (name, arg) tuple, a name, or a gym dict {type, object, amount}."""
    if isinstance(a, Action):
        act = a
    elif isinstance(a, str):
        act = Action(a)
    elif isinstance(a, (tuple, list)) and a and isinstance(a[0], str):
        name, arg = a[0], (a[1] if len(a) > 1 else None)
        if name in NEEDS_AMOUNT:
            act = Action(name, amount=None if arg is None else float(arg))
        else:
            act = Action(name, object_id=None if arg is None else int(arg))
    elif isinstance(a, dict) and "type" in a:
        t = int(a["type"])
        if not 0 <= t < len(ACTIONS):
            raise ActionError(f"action type {t} out of range 0..{len(ACTIONS) - 1}")
        amount = a.get("amount")
        act = Action(ACTIONS[t], object_id=int(a["object"]) if "object" in a else None,
                     amount=None if amount is None else float(amount[0] if hasattr(amount, "__len__") else amount))
    else:
        raise ActionError(f"cannot interpret action {a!r}")
    if act.name not in ACTIONS:
        raise ActionError(f"unknown action {act.name!r}; known: {', '.join(ACTIONS)}")
    if act.name in NEEDS_OBJECT and act.object_id is None:
        raise ActionError(f"{act.name} needs an object id")
    if act.name in NEEDS_AMOUNT and act.amount is None:
        raise ActionError(f"{act.name} needs an amount")
    return act
