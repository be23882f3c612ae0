"""Hypothesis strategies over ROS 2 message types, built from the types' own field lists.

``message(cls)`` draws instances of any rclpy message class: numbers that are NaN, inf,
huge or ordinary; strings that are empty, long, odd or JSON with wrong-typed fields of the
project's JSON topics; sequences that are empty, short or (for byte arrays) huge; nested
messages likewise.
"""
from __future__ import annotations

import importlib
import json
import math
import re

from hypothesis import strategies as st

FLOATS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 1e12, 0.0, -0.0, 1.0, 5e-324]),
                   st.floats(allow_nan=True, allow_infinity=True, width=64),
                   st.floats(-20.0, 20.0))
INT_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}
UINT_RANGES = {"uint8": 8, "byte": 8, "char": 8, "octet": 8, "uint16": 16, "uint32": 32, "uint64": 64}

# JSON fields of the project's String topics, with values of every wrong type
JSON_KEYS = ["hazard", "targets", "containers", "bounds", "map_resolution", "frame_dt", "sensor_periods", "channel",
             "episode", "benchmark", "frame", "held", "rescued_ids", "done", "last_result", "frames", "split", "seed",
             "classes", "category", "id"]
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=False),
              st.sampled_from([1e308, -1e308, 7, 5, -1, 2 ** 31, 2 ** 40, 1000.0, 1.7]), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(JSON_KEYS), inner, max_size=4)),
    max_leaves=12)
JSON_TEXT = st.one_of(
    st.dictionaries(st.sampled_from(JSON_KEYS), JSON_VALUES, max_size=6).map(json.dumps),
    JSON_VALUES.map(json.dumps),
    st.sampled_from(['{"targets": 7}', '{"rescued_ids": 5}', '{"held": "x"}', '{"bounds": [0, 0, 1]}',
                     '{"bounds": [NaN, 0, 1, 1]}', '{"sensor_periods": {"camera": 0}}', "[" * 5000 + "]" * 5000,
                     '{"frame_dt": -1}', "", "null", "not json", '{"frames": 5, "episode": 0}']),
    st.text(max_size=40))
STRINGS = st.one_of(st.sampled_from(["", "map", "odom", "base_link", "/odom", "camera_optical_frame", "x" * 300,
                                     "\x00", "é", "1003", "-5", "  7"]), st.text(max_size=20), JSON_TEXT)


def _msg_class(type_name: str):
    pkg, name = type_name.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def _field(type_str: str, depth: int):
    """Strategy of one field given its rosidl type string."""
    m = re.fullmatch(r"sequence<(.+?)(?:, (\d+))?>", type_str)
    if m:
        return _sequence(m.group(1), int(m.group(2)) if m.group(2) else None, depth)
    m = re.fullmatch(r"(.+)\[(\d+)\]", type_str)
    if m:
        return st.lists(_field(m.group(1), depth), min_size=int(m.group(2)), max_size=int(m.group(2)))
    if type_str in ("float", "double"):
        return FLOATS
    if type_str in INT_RANGES:
        b = INT_RANGES[type_str]
        return st.one_of(st.sampled_from([0, -1, 1, 2 ** (b - 1) - 1, -2 ** (b - 1)]),
                         st.integers(-2 ** (b - 1), 2 ** (b - 1) - 1))
    if type_str in UINT_RANGES:
        b = UINT_RANGES[type_str]
        return st.one_of(st.sampled_from([0, 1, 2 ** b - 1]), st.integers(0, 2 ** b - 1))
    if type_str == "boolean":
        return st.booleans()
    if type_str.startswith("string") or type_str.startswith("wstring"):
        return STRINGS
    return message(_msg_class(type_str), depth + 1)


def _sequence(item: str, bound: int | None, depth: int):
    top = bound if bound is not None else (3 if depth == 0 else 2 if depth <= 2 else 1)
    if item in ("uint8", "int8", "byte", "octet", "char"):        # image / map data: also huge
        small = st.lists(_field(item, depth), max_size=64)
        lo, hi = (0, 127) if item == "int8" else (0, 255)
        big = st.tuples(st.sampled_from([0, 100, 4800, 19200, 76800, 2_000_000]),
                        st.integers(lo, hi)).map(lambda nv: [nv[1]] * nv[0])
        return st.one_of(small, big)
    if item in ("float", "double"):
        if depth > 1:
            return st.lists(FLOATS, max_size=4)
        return st.one_of(st.lists(FLOATS, max_size=12), st.integers(0, 20000).map(lambda n: [math.nan] * n))
    return st.lists(_field(item, depth), max_size=top)


def message(cls, depth: int = 0):
    """Any instance of the rclpy message class ``cls``."""
    fields = cls.get_fields_and_field_types()
    if depth > 5 or not fields:
        return st.just(cls())
    parts = {name: _field(t, depth) for name, t in fields.items()}

    def build(values):
        msg = cls()
        for name, v in values.items():
            try:
                setattr(msg, name, v)
            except (AssertionError, TypeError, ValueError):
                pass                        # rclpy's own type checks: keep the default
        return msg
    return st.fixed_dictionaries(parts).map(build)
