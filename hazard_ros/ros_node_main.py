"""``main()`` for every hazard_stack node: init, spin, and a clean stop on Ctrl-C / SIGTERM.

rclpy's default signal handling raises ``KeyboardInterrupt`` (or shuts the context down)
wherever the main thread happens to be: in the middle of a callback writing a file, while
worker threads of a ``MultiThreadedExecutor`` still use the node, or while an action goal
is running. That gave tracebacks, recordings with an unindexed last chunk, and
"terminate called without an active exception" aborts. Here SIGINT and SIGTERM only set a
flag; the main loop notices it within ``poll`` seconds and then, in this order:

1. calls the node's ``on_shutdown()`` if it has one (stop goals, close files) while the
   context is still valid, then spins (at most 2 s) until its ``shutdown_drained()`` is
   true (e.g. the results of aborted goals have gone out);
2. shuts the executor down (waits for running callbacks) and destroys the node;
3. shuts rclpy down.

The exit code is 0 after a signal, 2 when the node's constructor rejects its parameters
(``ValueError``, printed as one line), 1 on any other error. A second signal during the
stop is ignored (the launcher escalates to SIGKILL if a node hangs).

Nothing outlives its launcher: a node whose parent process ends (the launcher killed with
SIGKILL; the launcher also asks Linux for a parent-death SIGTERM) stops as after SIGTERM,
and a stop that has not finished :data:`STOP_DEADLINE_S` seconds after it began ends the
process with exit code 1 (a node stuck in a callback must not spin on, orphaned).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.signals import SignalHandlerOptions

from hazard_ros.executors import make_executor

STOP_DEADLINE_S = 15.0        # a requested stop ends the process after this, finished or not
PARENT_POLL_S = 0.5
LAUNCHER_PID_ENV = "HAZARD_LAUNCHER_PID"     # set by hazard_launch for its children


class StopRequested(Exception):
    """Raised in the main thread by SIGINT / SIGTERM when it runs a node's ``work`` loop."""


class StopFlag:
    """Set by SIGINT / SIGTERM (or by code); wakes the executor."""

    def __init__(self):
        self.event = threading.Event()
        self.signal_name: str | None = None
        self.executor = None
        self.raise_in_main = False
        self.finished = threading.Event()     # run_node returned: no deadline any more

    def set(self, signum=None, frame=None) -> None:
        if signum is not None and self.signal_name is None:
            self.signal_name = signal.Signals(signum).name
        if signum is not None and not self.event.is_set():
            _exit_after(STOP_DEADLINE_S, self)
        self.event.set()
        ex = self.executor
        if ex is not None:
            try:
                ex.wake()
            except Exception:  # noqa: BLE001 - the executor may be shutting down already
                pass
        if signum is not None and self.raise_in_main:
            self.raise_in_main = False
            raise StopRequested(self.signal_name)

    def is_set(self) -> bool:
        return self.event.is_set()


def _exit_after(seconds: float, flag: StopFlag) -> None:
    """End the process ``seconds`` from now unless it has ended by then (a daemon thread:
    it dies with a process that stops in time)."""
    def deadline():
        if flag.finished.wait(seconds):
            return
        print(f"[{os.path.basename(sys.argv[0] or 'node')}] did not stop within {seconds:g} s "
              f"of {flag.signal_name or 'the stop request'}; exiting", file=sys.stderr, flush=True)
        os._exit(1)
    threading.Thread(target=deadline, name="stop-deadline", daemon=True).start()


def watch_parent(flag: StopFlag, poll: float = PARENT_POLL_S) -> None:
    """Stop (as on SIGTERM) when the process that started this one ends: its children are
    re-parented, so ``getppid()`` changes (the parent is ``$HAZARD_LAUNCHER_PID`` when set,
    so a launcher that died while this process was still starting counts too). Covers a
    launcher killed with SIGKILL where the parent-death signal is not available."""
    parent = os.getppid()
    launcher = os.environ.get(LAUNCHER_PID_ENV, "")
    if launcher.isdigit() and int(launcher) > 1:
        parent = int(launcher)     # the launcher may have died while this process was starting
    elif parent <= 1:              # started by init / a container's PID 1: nothing to watch
        return

    def watch():
        while not flag.is_set() and not flag.finished.is_set():
            if os.getppid() != parent:
                if flag.signal_name is None:
                    flag.signal_name = "parent process ended"
                print(f"[{os.path.basename(sys.argv[0] or 'node')}] parent process {parent} ended; stopping",
                      file=sys.stderr, flush=True)
                _exit_after(STOP_DEADLINE_S, flag)
                flag.set()
                return
            flag.event.wait(poll)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def install_signal_handlers(flag: StopFlag) -> dict:
    """SIGINT and SIGTERM set ``flag`` (main thread only); returns the previous handlers."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, flag.set)
    return previous


def _start_error_line(name: str, exc: Exception) -> str:
    return f"[{name}] error: {exc}"


def run_node(factory, name: str, args=None, threads: int = 1, poll: float = 0.1,
             start_errors: tuple = (ValueError,), start_error_code: int = 2, start_error_line=None,
             stop_code=None, work=None, work_errors: tuple = ()) -> int:
    """Create the node with ``factory()`` and spin it until SIGINT / SIGTERM (see the module
    docstring); returns the process exit code.

    ``start_errors``: exceptions of ``factory()`` reported as one line (``start_error_line(
    name, exc)``, default ``[name] error: ...``) with exit code ``start_error_code``.
    ``stop_code(node)``: checked every ``poll`` s; an int stops the node with that exit code.
    ``work(node)``: a blocking main loop (the decision node's ``run``) run in the main thread
    while a (joined, non-daemon) thread spins the executor; a signal interrupts it with
    :class:`StopRequested`; ``work_errors`` are reported as one line with exit code 2, any
    other exception as one line with exit code 1.
    """
    from hazard_ros.entry import EARLY_STOP
    flag = StopFlag()
    previous = install_signal_handlers(flag)
    if EARLY_STOP.is_set():                    # Ctrl-C while the modules were loading
        return 0
    watch_parent(flag)
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    node = executor = None
    code = 0
    try:
        try:
            node = factory()
        except start_errors as exc:
            print((start_error_line or _start_error_line)(name, exc), file=sys.stderr, flush=True)
            return start_error_code
        except ParameterException as exc:        # a parameter of the wrong type: one line, no traceback
            print(f"[{name}] error: {exc}", file=sys.stderr, flush=True)
            return 2
        executor = make_executor(threads)
        executor.add_node(node)
        flag.executor = executor
        if EARLY_STOP.is_set():                # ... or while the node was being created
            flag.set()
        if work is not None:
            return_code = _run_work(node, name, executor, flag, work, work_errors, poll)
            code = return_code
            return code
        # The executor spins in its own thread; the main thread only waits on Python-level
        # events, so a signal's handler runs at once (a main thread blocked in rcl_wait, e.g.
        # on a sim-time timer without /clock, would never run it).
        failure = []
        spinner = threading.Thread(target=_spin, args=(executor, flag, poll, failure), name=f"{name}-executor")
        spinner.start()
        while spinner.is_alive() and not flag.is_set():
            flag.event.wait(poll)
            if stop_code is not None:
                wanted = stop_code(node)
                if wanted is not None:
                    code = int(wanted)
                    break
        flag.set()
        spinner.join()
        if failure:
            code = 1
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: BLE001 - report and exit non-zero, but still clean up
        traceback.print_exc()
        code = 1
    finally:
        for sig in previous:                       # a second signal: ignore, we are stopping
            signal.signal(sig, signal.SIG_IGN)
        if node is not None and hasattr(node, "on_shutdown"):
            try:
                node.on_shutdown()
                # let the work on_shutdown started go out (e.g. aborted goals' results)
                drained = getattr(node, "shutdown_drained", None)
                end = time.monotonic() + 2.0
                while (executor is not None and drained is not None and not drained()
                       and time.monotonic() < end and rclpy.ok()):
                    executor.spin_once(timeout_sec=0.05)
            except Exception:  # noqa: BLE001
                traceback.print_exc()
                code = code or 1
        if executor is not None:
            flag.executor = None
            try:
                executor.shutdown(timeout_sec=5.0)
            except Exception:  # noqa: BLE001
                pass
        if node is not None:
            try:
                node.destroy_node()
            except Exception:  # noqa: BLE001
                pass
        rclpy.try_shutdown()
        flag.finished.set()
        if flag.signal_name is None:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        # stopped by a signal: the process is ending, so a second Ctrl-C (pressed while it
        # stops) stays ignored; restoring Python's handler would let it end the process with
        # an uncaught KeyboardInterrupt (exit status -2) after a clean stop
    return code


def _spin(executor, flag, poll, failure: list) -> None:
    try:
        while not flag.is_set() and executor.context.ok():
            executor.spin_once(timeout_sec=poll)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: BLE001 - a callback's bug: report, stop the node, exit 1
        traceback.print_exc()
        failure.append(True)
    finally:
        flag.event.set()


def _run_work(node, name, executor, flag, work, work_errors, poll) -> int:
    spinner = threading.Thread(target=_spin, args=(executor, flag, poll, []), name=f"{name}-executor")
    spinner.start()
    code = 0
    try:
        flag.raise_in_main = True
        work(node)
    except (StopRequested, KeyboardInterrupt, ExternalShutdownException):
        pass
    except work_errors as exc:
        print(f"[{name}] error: {exc}", file=sys.stderr, flush=True)
        code = 2
    except Exception as exc:  # noqa: BLE001 - one clear line, not a traceback
        print(f"[{name}] error: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        code = 1
    finally:
        flag.raise_in_main = False
        flag.set()
        spinner.join()
    return code


__all__ = ["StopFlag", "StopRequested", "install_signal_handlers", "run_node"]
