"""Fixtures shared by the ROS test modules."""
import random
import signal

import pytest


@pytest.fixture(autouse=True)
def hard_time_limit(request):
    """A hard wall-clock limit per test for modules that set ``TEST_TIME_LIMIT_S``:
    a ROS test that hangs fails with a clear error instead of stalling the suite."""
    limit = getattr(request.module, "TEST_TIME_LIMIT_S", None)
    if not limit:
        yield
        return

    def on_alarm(signum, frame):
        raise TimeoutError(f"test exceeded its hard limit of {limit} s")
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(limit)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def ros_env(monkeypatch):
    """An isolated DDS domain on the loopback for one test; returns its domain id."""
    domain_id = random.SystemRandom().randint(1, 101)
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain_id))
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    monkeypatch.setenv("ROS_STATIC_PEERS", "")
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    return domain_id


@pytest.fixture
def ros_context(ros_env):
    """An rclpy context of its own on the test's domain (so tests do not share global state)."""
    import rclpy
    from rclpy.context import Context
    context = Context()
    rclpy.init(context=context, domain_id=ros_env)
    try:
        yield context
    finally:
        if context.ok():
            rclpy.shutdown(context=context)
