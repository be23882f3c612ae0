"""A multi-threaded rclpy executor that does not busy-loop while a callback waits for a worker.

rclpy's ``MultiThreadedExecutor`` (9.x, Jazzy) hands a ready callback to its thread pool and
returns at once to ``_wait_for_ready_callbacks``, which yields every task that is *not yet
executing* again without waiting. Until a pool worker actually starts the task, the spinning
thread loops on that task, holding the GIL, so the worker it waits for hardly gets to run
(ros2/rclpy#1452, fixed upstream by ros2/rclpy#1547 after our rclpy). Measured here: a
decision node stepping the simulator over DDS took 126 s for 201 frames with it, 1.5 s with a
single thread.

:class:`SteadyMultiThreadedExecutor` keeps rclpy's executor and changes only the dispatch: after
handing a task to the pool it waits until a worker has started it. A callback is still run by
any free worker, callback groups still decide what may run together, and the spinning thread
no longer competes with the workers for the GIL.
"""
from __future__ import annotations

import threading
from typing import Callable

from rclpy.executors import (
    ConditionReachedException,
    ExternalShutdownException,
    MultiThreadedExecutor,
    ShutdownException,
    TimeoutException,
)

__all__ = ["SteadyMultiThreadedExecutor", "make_executor"]


class SteadyMultiThreadedExecutor(MultiThreadedExecutor):
    """``MultiThreadedExecutor`` whose spin waits for a submitted callback to start."""

    #: how often the dispatch wait looks at shutdown (s)
    POLL = 0.1

    def _spin_once_impl(self, timeout_sec=None, wait_condition: Callable[[], bool] = lambda: False) -> None:
        try:
            handler, _entity, _node = self.wait_for_ready_callbacks(timeout_sec, None, wait_condition)
        except (ExternalShutdownException, ShutdownException, TimeoutException, ConditionReachedException):
            return
        started = threading.Event()

        def run():
            started.set()
            handler()

        self._executor.submit(run)
        self._futures.append(handler)
        # The task is queued: until a worker begins it, the next wait would yield it again at
        # once. Wait for the start (all workers busy: until one is free), not for the end.
        while not started.wait(self.POLL):
            if self._is_shutdown or not self._context.ok():
                break
        for future in self._futures[:]:
            if future.done():
                self._futures.remove(future)
                future.result()  # raise any exceptions


def make_executor(threads: int = 1, context=None):
    """A ``SingleThreadedExecutor`` for one thread, else a :class:`SteadyMultiThreadedExecutor`."""
    from rclpy.executors import SingleThreadedExecutor
    if threads > 1:
        return SteadyMultiThreadedExecutor(num_threads=threads, context=context)
    return SingleThreadedExecutor(context=context)
