"""Where the package's installed files are: its ROS share directory and the data in it.

A ``colcon build`` (or this project's setup on a pip-only machine, which lays out the same
prefix) installs ``share/hazard_stack/`` with ``data/`` (datasets, shipped models, policies),
``launch/``, ``rviz/`` and ``config/``, and registers the package in the ament resource index
(``share/ament_index/resource_index/packages/hazard_stack``). The code finds its data there,
through the index, not beside its modules: a plain (non-symlink) install puts the modules in
``lib/python3.X/site-packages`` where no ``data/`` lies.

Order (the first that exists wins):

1. ``$HAZARD_STACK_DATA`` (a data directory of your own);
2. ``<prefix>/share/hazard_stack/data`` of the first prefix on ``$AMENT_PREFIX_PATH`` whose index
   lists hazard_stack, then of ``sys.prefix`` (the venv of a pip-only machine);
3. the source checkout's ``data/`` (a checkout used before its setup has run).

This module never imports ROS (``ament_index_python`` does the same lookup, but the core stays
ROS-free).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = "hazard_stack"
DATA_ENV = "HAZARD_STACK_DATA"
SOURCE_ROOT = Path(__file__).resolve().parents[1]       # the checkout (or site-packages when installed)


def ament_prefixes() -> list[Path]:
    """The prefixes searched for an ament resource index: ``$AMENT_PREFIX_PATH`` then ``sys.prefix``."""
    out = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    if Path(sys.prefix) not in out:
        out.append(Path(sys.prefix))
    return out


def package_prefix(package: str = PACKAGE) -> Path | None:
    """The first prefix whose ament index registers ``package`` (None: none does)."""
    for prefix in ament_prefixes():
        if (prefix / "share" / "ament_index" / "resource_index" / "packages" / package).is_file():
            return prefix
    return None


def share_dir(package: str = PACKAGE) -> Path | None:
    """``<prefix>/share/<package>`` of the registered package (None: not installed)."""
    prefix = package_prefix(package)
    return None if prefix is None else prefix / "share" / package


def data_dir() -> Path:
    """The package's data directory (see the module docstring for the order)."""
    given = os.environ.get(DATA_ENV, "")
    if given:
        return Path(given)
    share = share_dir()
    if share is not None and (share / "data").is_dir():
        return share / "data"
    return SOURCE_ROOT / "data"


def data_path(*parts: str) -> Path:
    """A path inside :func:`data_dir`."""
    return data_dir().joinpath(*parts)


__all__ = ["DATA_ENV", "PACKAGE", "ament_prefixes", "data_dir", "data_path", "package_prefix", "share_dir"]
