"""Running sweep episodes on a Ray cluster (``hazard bench|table --ray ADDRESS``).

A cluster on this machine: ``.venv/bin/ray start --head --port 6379 --num-cpus 2`` (start it
from the project's virtual environment, so its workers import ``hazard_sim`` and its
dependencies), then ``hazard bench ... --ray 127.0.0.1:6379`` (or ``--ray auto`` for the
cluster Ray finds on this machine); ``ray stop`` ends it. Each episode is one Ray task
(one CPU); results come back as they finish and are appended to the sweep file like the
local workers' (so a sweep interrupted on Ray resumes locally and the other way round).

Errors a user can cause get one line each: Ray not installed, an address that is not
``host:port`` / ``auto``, nothing listening there, a worker that cannot import the project.
"""
from __future__ import annotations

import socket
from typing import Callable, Iterable, Iterator

__all__ = ["RayUnavailable", "parse_address", "connect", "run_tasks"]

PROBE_TIMEOUT_S = 3.0


class RayUnavailable(RuntimeError):
    """Ray is missing, the address is wrong, or no cluster answers there."""


def parse_address(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``host:port``; None for ``auto``. Raises :class:`RayUnavailable`."""
    text = str(address).strip()
    if text == "auto":
        return None
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayUnavailable(f"--ray {address!r}: give the cluster's GCS address as HOST:PORT "
                             "(e.g. 127.0.0.1:6379, printed by `ray start --head`) or 'auto'")
    return host.strip("[]"), int(port)


def _probe(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> None:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as exc:
        raise RayUnavailable(f"no Ray cluster answers at {host}:{port} ({exc.strerror or exc}); start one with "
                             f"`.venv/bin/ray start --head --port {port}` or check the address") from None


def connect(address: str):
    """Import Ray and join the cluster at ``address``; returns the ``ray`` module."""
    hostport = parse_address(address)
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: .venv/bin/pip install -r requirements.txt "
                             "(it pins ray), or run without --ray (local --workers)") from None
    if hostport is not None:
        _probe(*hostport)          # Ray itself retries an unreachable address for minutes
        address = f"{hostport[0]}:{hostport[1]}"
    try:
        ray.init(address=address, ignore_reinit_error=True, logging_level="WARNING", log_to_driver=False)
    except ConnectionError as exc:
        raise RayUnavailable(f"cannot join the Ray cluster at {address}: {exc}") from None
    return ray


def run_tasks(address: str, fn: Callable[[dict], dict], jobs: Iterable[dict]) -> Iterator[dict]:
    """Run ``fn(job)`` for every job as Ray tasks; yields results in the order they finish."""
    ray = connect(address)
    remote = ray.remote(num_cpus=1)(fn)
    pending = [remote.remote(j) for j in jobs]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        try:
            yield ray.get(ready[0])
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            if isinstance(cause, ModuleNotFoundError):
                raise RayUnavailable(f"a Ray worker cannot import {cause.name!r}: start the cluster from the "
                                     "project's environment (.venv/bin/ray start --head)") from None
            raise cause from None
