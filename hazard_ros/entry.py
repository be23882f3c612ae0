"""Console-script entry points of the nodes: stop cleanly even when Ctrl-C comes during start-up.

A node module imports heavy libraries (Open3D, MuJoCo, SciPy, rclpy) before its ``main()`` can
install signal handlers; a Ctrl-C in those seconds used to end in a ``KeyboardInterrupt``
traceback from the middle of an import. These entry points install a handler first that only
records the signal; :func:`hazard_ros.ros_node_main.run_node` then exits with code 0 instead of
starting the node. Nothing heavy is imported here.
"""
from __future__ import annotations

import importlib
import signal
import sys
import threading

#: set by SIGINT / SIGTERM before the node's own handlers are installed
EARLY_STOP = threading.Event()


def _record(signum, frame) -> None:
    EARLY_STOP.set()


def _run(module: str) -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _record)
        signal.signal(signal.SIGTERM, _record)
    main = importlib.import_module(module).main
    if EARLY_STOP.is_set():
        return 0
    return main()


def _script(module: str):
    """The console-script entry point that runs ``module``'s ``main()`` (through :func:`_run`)."""
    def entry() -> int:
        return _run(module)
    return entry


#: the console scripts setup.py names (``<script> = hazard_ros.entry:<script>``)
sim_node = _script("hazard_ros.sim_node")
perception_node = _script("perception_node.perception_node")
mapping_node = _script("perception_node.mapping_node")
navigation_node = _script("planner_node.navigation_node")
decision_node = _script("planner_node.decision_main")
mcap_recorder = _script("hazard_ros.recorder_node")


if __name__ == "__main__":
    sys.exit(_run(sys.argv.pop(1)))
