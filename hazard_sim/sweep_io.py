"""The parts of a sweep (``hazard bench`` / ``table``) that meet the operating system: its
results file, its worker processes and its interruption.

* Results file: a regular file (or a new one), checked by opening it for appending without
  blocking (:func:`open_results`), so a directory, a device (``/dev/full``), a FIFO or a place
  that cannot be written is refused before any episode runs, whatever the permission bits say.
  :func:`read_sweep` reads only a regular file, line by line, each line at most
  :data:`MAX_LINE_BYTES`; a line that is not a JSON object with a ``config`` (too long, torn,
  nested too deeply, junk) is counted and skipped.
* Writing (:class:`ResultsWriter`): one writer per file (an exclusive ``flock``; a second sweep on
  the same file gets a clear error before it runs anything); before each append the file's
  identity is checked (a file replaced by rename while the sweep runs, as an editor saves, gets
  this run's results that it lacks appended again, with a warning) and the record starts on a line
  of its own (a partial line appended by someone else is ended first); a result with a
  non-finite metric is refused (:func:`non_finite`), and :func:`read_sweep` skips stored ones.
* Workers (:func:`worker_init`): they ignore SIGINT (Ctrl-C reaches the whole process group;
  the sweep decides what happens) and get SIGKILL from Linux when the sweep's process dies
  (``prctl(PR_SET_PDEATHSIG)``), so SIGTERM or SIGKILL of the sweep leaves no worker behind.
* Interruption (:class:`interruptible`): the first SIGINT or SIGTERM raises
  :class:`SweepInterrupted` in the sweep (the results written so far stay in the file; the
  episodes under way are dropped and their workers killed); a second one, during the clean-up
  or after it, ends the process at once with status 128 + the signal's number.
"""
from __future__ import annotations

import fcntl
import json
import math
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


def non_finite(value, where: str = "") -> str | None:
    """The first place (``key.key[3]``) of a NaN or infinite number in a JSON-like value; None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "value"
    if isinstance(value, dict):
        for k, v in value.items():
            bad = non_finite(v, f"{where}.{k}" if where else str(k))
            if bad:
                return bad
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = non_finite(v, f"{where}[{i}]")
            if bad:
                return bad
    return None


class ResultsWriter:
    """Appends one JSON record a line to a sweep's results file (see the module docstring)."""

    def __init__(self, path, option: str = "results file", log=None):
        self.path, self.option = Path(path), option
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        self.written: list[dict] = []
        self._open()

    def _open(self) -> None:
        self.fh = open_results(self.path, self.option)
        try:
            fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.fh.close()
            raise ValueError(f"{self.option} {self.path}: another sweep is writing it (it holds the file's lock); "
                             "wait for it to end or give another file") from None
        st = os.fstat(self.fh.fileno())
        self.identity, self.size = (st.st_dev, st.st_ino), st.st_size

    def _ends_with_newline(self) -> bool:
        try:
            with open(self.path, "rb") as f:
                f.seek(-1, 2)
                return f.read(1) == b"\n"
        except OSError:                 # empty, or gone
            return True

    def _check_identity(self) -> None:
        """The path still names the file this writer holds; if it was replaced (renamed over, or
        removed), open the new one and append this run's results it lacks."""
        try:
            st = os.stat(self.path)
            same = (st.st_dev, st.st_ino) == self.identity
        except FileNotFoundError:
            same = False
        if same:
            return
        self.fh.close()
        self._open()
        have, _ = read_sweep(self.path)
        keys = {json.dumps(d.get("config"), sort_keys=True) for d in have}
        lost = [r for r in self.written if json.dumps(r.get("config"), sort_keys=True) not in keys]
        self.log(f"{self.path}: the results file was replaced while the sweep ran; appending again the "
                 f"{len(lost)} result(s) of this run it lacks")
        for r in lost:
            self._append(r)

    def _append(self, record: dict) -> None:
        fd = self.fh.fileno()
        size = os.fstat(fd).st_size
        data = json.dumps(record, allow_nan=False) + "\n"
        if size and (size != self.size or not self.written) and not self._ends_with_newline():
            data = "\n" + data                  # someone left a partial line: ours starts on its own
        raw = data.encode()
        try:                                    # unbuffered: a failed write leaves nothing behind
            done = 0
            while done < len(raw):
                done += os.write(fd, raw[done:])
        except OSError as e:                    # disk full, quota, I/O error: the file keeps what it had
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise OSError(e.errno, e.strerror, str(self.path)) from None
        self.size = os.fstat(fd).st_size

    def write(self, record: dict) -> None:
        """Append ``record``; ValueError (nothing written) if it holds a NaN or infinite number."""
        bad = non_finite(record)
        if bad:
            raise ValueError(f"not stored: {bad} is {record_value(record, bad)}, not a finite number")
        self._check_identity()
        self._append(record)
        self.written.append(record)

    def close(self) -> None:
        self.fh.close()


def record_value(record: dict, where: str):
    """The value at a :func:`non_finite` place (for its message)."""
    import re
    v = record
    for key, idx in re.findall(r"([^.\[\]]+)|\[(\d+)\]", where):
        v = v[int(idx)] if idx else v[key]
    return v


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


def _no_constant(name: str):
    raise ValueError(f"{name} is not a finite number")        # a stored NaN / Infinity: not a usable line


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
                d = json.loads(line, parse_constant=_no_constant)
            except (ValueError, RecursionError):        # JSONDecodeError, bad UTF-8, 100,000 nested '[', NaN
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
    # let the pool's manager thread see its dead workers and close its wake-up pipe now: at exit
    # concurrent.futures would otherwise write to that pipe while the thread closes it (EBADF)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=5)


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
