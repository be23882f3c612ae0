"""argparse types for numeric flags: a number in a range, with one clear message (argparse adds
the option's name and exits 2) instead of a traceback, a silent wrong result or a partial output
from a value no command can use (0 px frames, a NaN size, a negative limit)."""
from __future__ import annotations

import argparse
import math


def int_in(lo: int, hi: int):
    """An argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be in [{lo}, {hi}], got {v}")
        return v
    return parse


def float_in(lo: float, hi: float, open_ends: bool = False, open_low: bool = False):
    """An argparse type: a finite number in [lo, hi] ((lo, hi) with ``open_ends``, (lo, hi] with
    ``open_low``)."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        above = (lo < v) if (open_ends or open_low) else (lo <= v)
        below = (v < hi) if open_ends else (v <= hi)
        if not (math.isfinite(v) and above and below):
            ends = (f"({lo:g}, {hi:g})" if open_ends else f"({lo:g}, {hi:g}]" if open_low
                    else f"[{lo:g}, {hi:g}]")
            raise argparse.ArgumentTypeError(f"must be in {ends}, got {text}")
        return v
    return parse


SEED = int_in(0, 2 ** 32 - 1)
IMAGE_SIZE = int_in(16, 8192)          # px of a square frame or crop
COUNT_LIMIT = int_in(1, 10 ** 9)       # "only the first N"
SCORE = float_in(0.0, 1.0)
PIXELS = float_in(0.0, 1e6)

__all__ = ["COUNT_LIMIT", "IMAGE_SIZE", "PIXELS", "SCORE", "SEED", "float_in", "int_in"]
