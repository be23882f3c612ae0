"""HAZARD's action space: names, parsing and the checks every action argument passes.
(Results are :class:`hazard_sim.core.outcome.ActionResult`.)"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

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


#: largest accepted amounts (the Gymnasium action space's ``amount`` bounds): beyond them a
#: move_by or turn_by is an input error rather than an action
MAX_MOVE_M, MAX_TURN_DEG = 360.0, 360.0
MAX_OBJECT_ID = 2 ** 31 - 1


def _object_id(name: str, v) -> int:
    """An instance id: an int (numpy ints too) or an integral number / numeric string."""
    if isinstance(v, bool):
        raise ActionError(f"{name}: object id must be an integer, got {v!r}")
    if isinstance(v, numbers.Integral):
        i = int(v)
    elif isinstance(v, numbers.Real) and math.isfinite(float(v)) and float(v).is_integer():
        i = int(v)
    elif isinstance(v, str) and v.strip().lstrip("-").isdigit():
        i = int(v)
    else:
        raise ActionError(f"{name}: object id must be an integer, got {v!r}")
    if not 0 <= i <= MAX_OBJECT_ID:
        raise ActionError(f"{name}: object id {i} out of range 0..{MAX_OBJECT_ID}")
    return i


def _amount(name: str, v) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ActionError(f"{name}: amount must be a number, got {v!r}") from None
    limit = MAX_MOVE_M if name == "move_by" else MAX_TURN_DEG
    unit = "m" if name == "move_by" else "degrees"
    if not math.isfinite(x) or abs(x) > limit:
        raise ActionError(f"{name}: amount must be finite and within +-{limit:g} {unit}, got {v!r}")
    return x


def parse_action(a) -> Action:
    """Accept an Action, a (name, arg) tuple, a name, or a gym dict {type, object, amount};
    raise :class:`ActionError` (a ValueError) saying what is wrong with anything else."""
    if isinstance(a, Action):
        name, obj, amount = a.name, a.object_id, a.amount
    elif isinstance(a, str):
        name, obj, amount = a, None, None
    elif isinstance(a, (tuple, list)) and a and isinstance(a[0], str):
        if len(a) > 2:
            raise ActionError(f"cannot interpret action {a!r}: (name,) or (name, argument)")
        name, arg = a[0], (a[1] if len(a) > 1 else None)
        obj, amount = (None, arg) if name in NEEDS_AMOUNT else (arg, None)
    elif isinstance(a, dict) and "type" in a:
        t = _object_id("action type", a["type"])
        if not 0 <= t < len(ACTIONS):
            raise ActionError(f"action type {t} out of range 0..{len(ACTIONS) - 1}")
        name, obj = ACTIONS[t], a.get("object")
        amount = a.get("amount")
        if amount is not None and hasattr(amount, "__len__"):
            amount = amount[0] if len(amount) else None
    else:
        raise ActionError(f"cannot interpret action {a!r}")
    if name not in ACTIONS:
        raise ActionError(f"unknown action {name!r}; known: {', '.join(ACTIONS)}")
    if name in NEEDS_OBJECT and obj is None:
        raise ActionError(f"{name} needs an object id")
    if name in NEEDS_AMOUNT and amount is None:
        raise ActionError(f"{name} needs an amount")
    return Action(name, object_id=_object_id(name, obj) if name in NEEDS_OBJECT else None,
                  amount=_amount(name, amount) if name in NEEDS_AMOUNT else None)
