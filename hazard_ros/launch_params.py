"""Node parameter values as launch_ros types them (``evaluate_parameter_dict``), and the
``-p name:=value`` rule it passes them with; used by :mod:`hazard_ros.launch_file`."""
from __future__ import annotations

import yaml

from hazard_ros.launch_file import Context, LaunchError, Subst, parse_template


class _Quiet(yaml.SafeDumper):
    """YAML for one ``-p name:=value`` rule: flow style, no document end marker."""


def param_value(raw, ctx: Context, where: str, name: str):
    """A node parameter's typed value as launch_ros gives it (``evaluate_parameter_dict``):

    - YAML's own scalars keep their type (``value: 0.5`` is a double, ``value: true`` a bool);
    - plain text without a substitution stays a string (``value: "0.5"`` is the string "0.5");
    - text with substitutions is performed, then read as YAML (empty: ``''``) and must give a
      bool, int, float, string or a list of one of them (``"$(var n)"`` with n=3 is an int);
    - a list: each item by these rules, all of one type.
    """
    if isinstance(raw, bool) or isinstance(raw, (int, float)):
        return raw
    if raw is None:
        raise LaunchError(f"{where}: parameter {name!r} has no value")
    if isinstance(raw, str):
        parts = parse_template(raw)
        if not any(isinstance(x, Subst) for x in parts):
            return "".join(parts)
        text = ctx._perform(parts, where) or "''"
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise LaunchError(f"{where}: the value of parameter {name!r} ({text!r}) is not valid YAML; "
                              "ROS 2 launch reads values built from substitutions as YAML") from None
        if isinstance(value, list):
            return _uniform(value, where, name)
        if not isinstance(value, (bool, int, float, str)):
            raise LaunchError(f"{where}: parameter {name!r} evaluates to {text!r}, a YAML "
                              f"{type(value).__name__}: allowed are bool, int, float, string and lists of one")
        return value
    if isinstance(raw, list):
        return _uniform([param_value(x, ctx, where, name) for x in raw], where, name)
    raise LaunchError(f"{where}: parameter {name!r}: unexpected value {raw!r}")


def _uniform(values: list, where: str, name: str) -> list:
    kinds = {type(v) for v in values}
    if not values or len(kinds) > 1 or not kinds <= {bool, int, float, str}:
        raise LaunchError(f"{where}: parameter {name!r} must be a non-empty list of items of one type "
                          f"(bool, int, float or string), got {values!r}")
    return values


def param_rule(name: str, value) -> str:
    """``name:=value`` in YAML, as launch_ros writes it (rcl reads it back with the same type)."""
    text = yaml.dump(value, Dumper=_Quiet, default_flow_style=True, width=1 << 30)
    if text.endswith("\n...\n"):
        text = text[:-5]
    return f"{name}:={text.strip()}"
