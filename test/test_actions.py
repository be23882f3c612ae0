"""Action parsing: every argument is checked, with a message naming the action."""
import math

import numpy as np
import pytest

from hazard_sim.tasks.hazard.actions import Action, ActionError, parse_action


@pytest.mark.parametrize("action,match", [
    (("move_by", float("nan")), "move_by: amount must be finite"),
    (("turn_by", float("inf")), "turn_by: amount must be finite"),
    (("move_by", -360.5), r"within \+-360 m"),
    (("turn_by", 361), r"within \+-360 degrees"),
    (("move_by", "abc"), "move_by: amount must be a number"),
    (("walk_to", 1.7), "walk_to: object id must be an integer, got 1.7"),
    (("pick_up", True), "object id must be an integer, got True"),
    (("turn_to", 2 ** 40), "out of range 0..2147483647"),
    (("walk_to", -3), "out of range"),
    (("walk_to",), "walk_to needs an object id"),
    (("move_by",), "move_by needs an amount"),
    (("fly", 3), "unknown action 'fly'"),
    (("drop", 1, 2), "cannot interpret"),
    ({"type": 99}, "action type 99 out of range"),
    (42, "cannot interpret action 42"),
])
def test_bad_actions_are_rejected_with_a_reason(action, match):
    with pytest.raises(ActionError, match=match):
        parse_action(action)


def test_good_actions_in_every_spelling():
    assert parse_action(("walk_to", np.int64(1003))) == Action("walk_to", object_id=1003)
    assert parse_action(("walk_to", 1003.0)) == Action("walk_to", object_id=1003)     # integral float
    assert parse_action({"type": 4, "amount": np.array([-0.5], np.float32)}) == Action("move_by", amount=-0.5)
    assert parse_action("explore") == Action("explore")
    assert parse_action(("turn_by", -360)).amount == -360.0
    assert isinstance(ActionError("x"), ValueError) and math.isfinite(parse_action(("move_by", 1e-9)).amount)
