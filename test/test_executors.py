"""hazard_ros.executors: the multi-threaded executor that waits for a dispatched callback to
start. Behaviour only (no timing): callbacks of reentrant groups run at the same time, a
mutually exclusive group still serialises, service round trips complete, exceptions from a
callback reach spin, and spin ends on shutdown."""
from __future__ import annotations

import threading

import pytest

try:
    import rclpy
    from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
    from rclpy.context import Context
    from std_msgs.msg import Int32
    from std_srvs.srv import Trigger
except Exception as exc:  # ImportError, or OSError from a missing shared library
    pytest.skip(f"rclpy cannot be imported ({type(exc).__name__}: {exc})", allow_module_level=True)

from hazard_ros.executors import SteadyMultiThreadedExecutor, make_executor


@pytest.fixture
def context(ros_env):
    c = Context()
    rclpy.init(context=c, domain_id=ros_env)
    yield c
    if c.ok():
        rclpy.shutdown(context=c)


def _spin(ex):
    t = threading.Thread(target=ex.spin, daemon=True)
    t.start()
    return t


def test_make_executor_picks_by_thread_count(context):
    from rclpy.executors import SingleThreadedExecutor
    assert isinstance(make_executor(1, context), SingleThreadedExecutor)
    ex = make_executor(3, context)
    assert isinstance(ex, SteadyMultiThreadedExecutor) and ex._executor._max_workers == 3
    ex.shutdown()


def test_reentrant_callbacks_run_together_and_exclusive_ones_do_not(context):
    """Two timers in a reentrant group each wait for the other to have started: only an executor
    that runs them on two workers at once lets both finish. Two timers in one mutually exclusive
    group never overlap."""
    node = rclpy.create_node("steady_exec_groups", context=context)
    ex = SteadyMultiThreadedExecutor(num_threads=3, context=context)
    ex.add_node(node)
    a_in, b_in, both = threading.Event(), threading.Event(), threading.Event()
    overlap, active, lock, ran = [], [0], threading.Lock(), []

    def meet(mine, other):
        def cb():
            mine.set()
            if other.wait(5.0):
                both.set()
        return cb

    def exclusive():
        with lock:
            active[0] += 1
            overlap.append(active[0])
        threading.Event().wait(0.01)
        with lock:
            active[0] -= 1
        ran.append(1)

    re, mx = ReentrantCallbackGroup(), MutuallyExclusiveCallbackGroup()
    timers = [node.create_timer(0.05, meet(a_in, b_in), callback_group=re),
              node.create_timer(0.05, meet(b_in, a_in), callback_group=re),
              node.create_timer(0.01, exclusive, callback_group=mx),
              node.create_timer(0.01, exclusive, callback_group=mx)]
    t = _spin(ex)
    try:
        assert both.wait(10.0), "reentrant callbacks did not run at the same time"
        deadline = threading.Event()
        while len(ran) < 20 and not deadline.wait(0.05):
            pass
        assert len(ran) >= 20 and max(overlap) == 1
    finally:
        for tm in timers:
            tm.cancel()
        ex.shutdown()
        t.join(5.0)
        node.destroy_node()
    assert not t.is_alive(), "spin did not end on shutdown"


def test_service_round_trips_and_callback_errors(context):
    """A client in one node calls a service of another through the same executor 50 times (the
    lock-step pattern of the decision nodes); an exception raised in a callback reaches spin."""
    server = rclpy.create_node("steady_exec_server", context=context)
    client_node = rclpy.create_node("steady_exec_client", context=context)
    count = [0]

    def serve(_req, resp):
        count[0] += 1
        resp.success, resp.message = True, str(count[0])
        return resp

    server.create_service(Trigger, "steady_exec/step", serve)
    cli = client_node.create_client(Trigger, "steady_exec/step", callback_group=ReentrantCallbackGroup())
    ex = SteadyMultiThreadedExecutor(num_threads=4, context=context)
    ex.add_node(server)
    ex.add_node(client_node)
    t = _spin(ex)
    try:
        assert cli.wait_for_service(timeout_sec=10.0)
        for i in range(1, 51):
            fut = cli.call_async(Trigger.Request())
            done = threading.Event()
            fut.add_done_callback(lambda _f: done.set())
            assert done.wait(10.0), f"call {i} did not complete"
            assert fut.result().message == str(i)
    finally:
        ex.shutdown()
        t.join(5.0)

    boom = rclpy.create_node("steady_exec_boom", context=context)
    ex2 = SteadyMultiThreadedExecutor(num_threads=2, context=context)
    ex2.add_node(boom)

    def fail(_msg):
        raise RuntimeError("callback failed")

    boom.create_subscription(Int32, "steady_exec/boom", fail, 10)
    pub = client_node.create_publisher(Int32, "steady_exec/boom", 10)
    errors = []

    def spin_and_catch():
        try:
            while context.ok():
                ex2.spin_once(timeout_sec=0.1)
        except RuntimeError as exc:
            errors.append(str(exc))

    t2 = threading.Thread(target=spin_and_catch, daemon=True)
    t2.start()
    for _ in range(100):
        if errors:
            break
        pub.publish(Int32(data=1))
        threading.Event().wait(0.05)
    ex2.shutdown()
    t2.join(5.0)
    assert errors == ["callback failed"] or errors[:1] == ["callback failed"]
    for n in (server, client_node, boom):
        n.destroy_node()
