"""Checks shared by every benchmark's episode files: one :class:`DatasetError`, one way to read
a file, one way to name a field.

Every error is a :class:`DatasetError` (a ValueError) whose message starts with where the
fault is: the file, then the episode (or event / task) and the field, e.g.
``level2_test.json.gz episode 3: initial_horizon is nan, not a finite number``. Structure
errors (a list where an object belongs, a missing key, a string for a number) are reported
this way too, never raised as KeyError / TypeError.

* :func:`read_json_file`: a regular file (not a device, FIFO or directory) of at most
  :data:`MAX_FILE_BYTES` (gzip or plain, by its first bytes), UTF-8 JSON nested at most
  :data:`MAX_NESTING` levels;
* :class:`Fields`: typed, ranged reads of one record's fields;
* :func:`file_fingerprint`: what sweeps store so that results of another file are never reused;
* :func:`validate_file`: ``hazard dataset validate FILE...`` for any benchmark's file (each
  benchmark registers its kind of file with :func:`register_file_kind`).
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import numbers
import os
import stat
from pathlib import Path
from typing import Callable

MAX_FILE_BYTES = 256 * 1024 * 1024      # an episode file (also its gzip's content)
MAX_NESTING = 32                        # levels of JSON in an episode file


class DatasetError(ValueError):
    """A dataset file or episode record is malformed or implausible (the message says where)."""


def fail(where: str, text: str) -> DatasetError:
    return DatasetError(f"{where}: {text}")


# ============================================================================ files
def _regular(path: Path) -> None:
    try:
        st = os.stat(path)
    except OSError as e:
        raise DatasetError(f"{path}: cannot read ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise DatasetError(f"{path}: not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise DatasetError(f"{path}: {st.st_size} bytes, more than an episode file's {MAX_FILE_BYTES}")


def read_bytes(path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE_BYTES`, gunzipped if it is a gzip."""
    path = Path(path)
    _regular(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        if data[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                data = gz.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError) as e:
        raise DatasetError(f"{path}: cannot read ({e})") from None
    if len(data) > MAX_FILE_BYTES:
        raise DatasetError(f"{path}: more than {MAX_FILE_BYTES} bytes of content")
    return data


def depth(value, limit: int = MAX_NESTING) -> int:
    """Nesting depth of a JSON value (stops counting past ``limit``; no recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if d > limit:
            return d
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def parse_json(data: bytes, where) -> object:
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise DatasetError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise DatasetError(f"{where}: not valid JSON ({e})") from None
    except RecursionError:
        raise DatasetError(f"{where}: JSON nested too deeply to be an episode file") from None
    if depth(doc) > MAX_NESTING:
        raise DatasetError(f"{where}: JSON nested more than {MAX_NESTING} levels deep")
    return doc


def read_json_file(path) -> object:
    """The JSON document of an episode file (plain or gzip), or DatasetError naming the file."""
    return parse_json(read_bytes(path), Path(path))


def file_fingerprint(path) -> str:
    """sha256 (16 hex digits) of a file's bytes; DatasetError if it cannot be read."""
    return hashlib.sha256(read_bytes(path)).hexdigest()[:16]


# ============================================================================ fields
class Fields:
    """Typed, ranged reads of one record's fields. ``where`` names the file and the episode;
    each method raises ``DatasetError("<where>: <field> ...")``."""

    def __init__(self, where: str):
        self.where = where

    def fail(self, text: str) -> DatasetError:
        return fail(self.where, text)

    def record(self, value, field: str = "record") -> dict:
        if not isinstance(value, dict):
            raise self.fail(f"{field} must be a JSON object, got {_kind(value)}")
        return value

    def get(self, rec: dict, key: str, field: str | None = None):
        if key not in rec:
            raise self.fail(f"missing field {field or key!r}")
        return rec[key]

    def number(self, value, field: str, lo: float = -math.inf, hi: float = math.inf) -> float:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self.fail(f"{field} must be a number, got {_kind(value)}")
        v = float(value)
        if not math.isfinite(v):
            raise self.fail(f"{field} is {v}, not a finite number")
        if not lo <= v <= hi:
            raise self.fail(f"{field} {v:g} is out of range [{lo:g}, {hi:g}]")
        return v

    def integer(self, value, field: str, lo: int = 0, hi: int = 2 ** 31 - 1) -> int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise self.fail(f"{field} must be an integer, got {_kind(value)}")
        if not lo <= int(value) <= hi:
            raise self.fail(f"{field} {value} is out of range {lo}..{hi}")
        return int(value)

    def string(self, value, field: str, choices=None, max_len: int = 1000) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{field} must be a string, got {_kind(value)}")
        if choices is not None and value not in choices:
            raise self.fail(f"{field} {value[:60]!r} is not one of {', '.join(map(str, choices))}")
        if not value.strip() or len(value) > max_len:
            raise self.fail(f"{field} must be a non-empty string of at most {max_len} characters")
        return value

    def items(self, value, field: str, lo: int = 0, hi: int = 100_000) -> list:
        if not isinstance(value, list):
            raise self.fail(f"{field} must be a list, got {_kind(value)}")
        if not lo <= len(value) <= hi:
            raise self.fail(f"{field} has {len(value)} item(s), expected {lo}..{hi}")
        return value

    def vector(self, value, field: str, n: int, lo: float = -math.inf, hi: float = math.inf) -> list[float]:
        if not isinstance(value, list) or len(value) != n:
            raise self.fail(f"{field} must be a list of {n} numbers, got {_kind(value)}")
        return [self.number(v, f"{field}[{i}]", lo, hi) for i, v in enumerate(value)]


def _kind(value) -> str:
    text = json.dumps(value)[:40] if isinstance(value, (str, int, float, bool, type(None))) else ""
    return f"{type(value).__name__} {text}".strip()


# ============================================================================ any benchmark's file
_FILE_KINDS: list[tuple[str, Callable[[object, Path], bool], Callable[[Path], str], bool]] = []


def register_file_kind(name: str, recognise: Callable[[object, Path], bool], validate: Callable[[Path], str],
                       default: bool = False) -> None:
    """A benchmark's kind of episode file: ``recognise(doc, path)`` says whether a parsed
    document is one, ``validate(path)`` checks the whole file and returns a one-line summary
    (or raises DatasetError). The ``default`` kind takes files no other kind recognises."""
    global _FILE_KINDS
    _FILE_KINDS = [k for k in _FILE_KINDS if k[0] != name] + [(name, recognise, validate, default)]


def validate_file(path) -> str:
    """Check an episode file of any registered benchmark; its summary line, or DatasetError."""
    from hazard_sim.core.spec import benchmark_ids
    benchmark_ids()                          # every shipped benchmark registers its kind of file
    path = Path(path)
    doc = read_json_file(path)
    kinds = sorted(_FILE_KINDS, key=lambda k: k[3])       # the default kind last
    for _name, recognise, validate, default in kinds:
        if default or recognise(doc, path):
            return validate(path)
    raise DatasetError(f"{path}: not an episode file of any benchmark ({', '.join(k[0] for k in kinds)})")
