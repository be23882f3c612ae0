"""Typed results of actions: a status from :class:`Status` plus a human message.

Agents, nodes and tests branch on ``result.status``, never on the message text.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Status(str, Enum):
    SUCCEEDED = "succeeded"
    BLOCKED = "blocked"                  # the body bumped into something
    NO_PATH = "no_path"                  # no path on the agent's map
    NOT_ARRIVED = "not_arrived"          # a controller's own frame budget ran out
    OUT_OF_REACH = "out_of_reach"
    BEHIND_WALL = "behind_wall"
    NOT_VISIBLE = "not_visible"          # the object has not been observed yet
    NOT_IN_SCENE = "not_in_scene"        # held, rescued or otherwise gone
    UNKNOWN_OBJECT = "unknown_object"
    HANDS_FULL = "hands_full"
    HANDS_EMPTY = "hands_empty"
    NO_CONTAINER = "no_container"
    TIME_UP = "time_up"                  # the episode's frame limit
    INVALID = "invalid"                  # the action cannot be carried out as given

    def __str__(self) -> str:
        return self.value


@dataclass
class ActionResult:
    action: str
    status: Status
    frames: int
    message: str = ""

    @property
    def success(self) -> bool:
        return self.status is Status.SUCCEEDED

    @property
    def reason(self) -> str:
        return self.message

    def to_dict(self) -> dict:
        """JSON-able; keeps the ``success`` / ``reason`` keys that earlier clients read."""
        return {"action": self.action, "status": self.status.value, "success": self.success,
                "frames": self.frames, "reason": self.message}


@dataclass(frozen=True)
class Outcome:
    """What a controller returns before the env adds the action's name and frame count."""
    status: Status
    message: str = ""

    @property
    def success(self) -> bool:
        return self.status is Status.SUCCEEDED


OK = Outcome(Status.SUCCEEDED)


def fail(status: Status, message: str) -> Outcome:
    return Outcome(status, message)
