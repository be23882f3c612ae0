"""The parts of a sweep (``hazard bench`` / ``table``) that meet the operating system: its
results file, its worker processes and its interruption.

* Results file: a regular file (or a new one), checked by opening it for appending without
  blocking (:func:`open_results`), so a directory, a device (``/dev/full``), a FIFO or a place
  that cannot be written is refused before any episode runs, whatever the permission bits say.
  :func:`read_sweep` reads only a regular file, line by line, each line at most
  :data:`MAX_LINE_BYTES`; a line that is not a JSON object with a ``config`` (too long, torn,
  nested too deeply, junk) is counted and skipped.
* Workers (:func:`worker_init`): they ignore SIGINT (Ctrl-C reaches the whole process group;
  the sweep decides what happens) and get SIGKILL from Linux when the sweep's process dies
  (``prctl(PR_SET_PDEATHSIG)``), so SIGTERM or SIGKILL of the sweep leaves no worker behind.
* Interruption (:class:`interruptible`): the first SIGINT or SIGTERM raises
  :class:`SweepInterrupted` in the sweep (the results written so far stay in the file; the
  episodes under way are dropped and their workers killed); a second one, during the clean-up
  or after it, ends the process at once with status 128 + the signal's number.
"""
from __future__ import annotations

import json
import os
import signal
import stat
import sys
import threading
from pathlib import Path

MAX_LINE_BYTES = 4 * 1024 * 1024        # one result line (an episode's metrics) is a few kB
PR_SET_PDEATHSIG = 1


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by SIGINT / SIGTERM; ``kept`` results are in the results file."""

    def __init__(self, signum: int, kept: int = 0, path: str | None = None):
        super().__init__(signum)
        self.signum, self.kept, self.path = signum, kept, path

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


# ============================================================================ results file
def open_results(path, option: str = "results file"):
    """Open ``path`` for appending (created if missing) and return the file object, or raise
    ValueError naming ``option`` when it is not a regular file or cannot be written. Opening
    does not block (O_NONBLOCK: a FIFO without a reader is refused, not waited on)."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot use it ({e.strerror})") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ValueError(f"{option} {path}: {what}; give a file name")
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot write it ({e.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{option} {path}: not a regular file; give a file name")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a")


def check_results_path(path, option: str) -> None:
    """What ``hazard bench --out`` checks before any work: :func:`open_results` succeeds (a file
    it had to create for the check is removed again)."""
    existed = os.path.lexists(path)
    open_results(path, option).close()
    if not existed and os.path.getsize(path) == 0:
        os.unlink(path)


def _lines(fh):
    """Lines of a binary file, each at most :data:`MAX_LINE_BYTES` (None for a longer one)."""
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):       # skip the rest of the long line
                line = fh.readline(MAX_LINE_BYTES)
            yield None
            continue
        yield line


def read_sweep(path) -> tuple[list[dict], int]:
    """The JSON-object lines with a ``config`` object of a sweep file, and how many other
    lines it has (torn by an interruption, junk, too long, nested too deeply). A path that
    is not a regular file raises ValueError."""
    path = Path(path)
    if not path.exists():
        return [], 0
    if not path.is_file():
        raise ValueError(f"{path}: not a regular file; a sweep's results file must be one")
    out, junk = [], 0
    with open(path, "rb") as fh:
        for line in _lines(fh):
            if line is None:
                junk += 1
                continue
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except (ValueError, RecursionError):        # JSONDecodeError, bad UTF-8, 100,000 nested '['
                junk += 1
                continue
            if isinstance(d, dict) and isinstance(d.get("config"), dict):
                out.append(d)
            else:
                junk += 1
    return out, junk


# ============================================================================ workers
def _prctl():
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):       # not Linux
        return None


def worker_init(parent_pid: int) -> None:
    """Initializer of a sweep's worker process: SIGINT ignored, SIGKILL when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent_pid:          # the parent died before prctl took effect
        os._exit(1)


def kill_workers(pool) -> None:
    """Kill a ProcessPoolExecutor's workers now (episodes under way are dropped) and shut it down
    without waiting for them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        if p.is_alive():
            p.kill()
    for p in procs:
        p.join(timeout=5)
    pool.shutdown(wait=False, cancel_futures=True)


# ============================================================================ interruption
class interruptible:
    """``with interruptible():`` the first SIGINT / SIGTERM raises :class:`SweepInterrupted`; a
    second one ends the process at once (``os._exit(128 + signum)``). Outside the main thread
    (where Python cannot set handlers) it does nothing."""

    def __enter__(self):
        self._old = {}
        if threading.current_thread() is not threading.main_thread():
            return self
        self._hit = False

        def handler(signum, frame):
            if self._hit:
                sys.stderr.write(f"\nhazard: {signal.Signals(signum).name} again: stopping now\n")
                sys.stderr.flush()
                os._exit(128 + signum)
            self._hit = True
            raise SweepInterrupted(signum)
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, handler)
        return self

    def __exit__(self, *exc):
        if getattr(self, "_hit", False):    # interrupted: a second signal still ends the process at once
            return False
        for sig, old in self._old.items():
            signal.signal(sig, old)
        return False
