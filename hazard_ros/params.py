"""Parameter helpers shared by every hazard_stack node.

Launch files and ``--ros-args -p`` hand booleans over in several spellings: a YAML bool
(``true``), a string (``"true"``, ``"False"``, ``"1"``) when a launch substitution produced
text, or an integer. ``bool("false")`` is ``True`` in Python, so nodes must never convert
with ``bool()``; :func:`as_bool` accepts exactly the spellings ROS users write and rejects
anything else with a clear error. :func:`declare_bool` declares a parameter that takes
them (dynamic typing, so a string from a launch file is not a type error). :func:`declare_floats`
declares several float parameters at once.
"""
from __future__ import annotations

from rcl_interfaces.msg import ParameterDescriptor

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def as_bool(value, name: str = "parameter") -> bool:
    """``value`` as a bool: bools, 0 / 1, and the strings true/false, yes/no, on/off, 1/0
    (any case). Raises ``ValueError`` naming ``name`` for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ValueError(f"{name} must be a boolean (true / false), got {value!r}")


def declare_bool(node, name: str, default: bool, description: str = "") -> bool:
    """Declare ``name`` on ``node`` (dynamic typing, so "true" from a launch file works) and
    return its value as a bool (see :func:`as_bool`)."""
    if node.has_parameter(name):
        value = node.get_parameter(name).value
    else:
        value = node.declare_parameter(
            name, default, ParameterDescriptor(description=description, dynamic_typing=True)).value
    return as_bool(default if value is None else value, f"parameter {name!r}")


__all__ = ["as_bool", "declare_bool"]


def declare_floats(node, **defaults: float) -> list[float]:
    """Declare each ``name=default`` parameter on ``node``; their values as floats, in order."""
    return [float(node.declare_parameter(name, default).value) for name, default in defaults.items()]
