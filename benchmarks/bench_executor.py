"""Benchmark rclpy's MultiThreadedExecutor against hazard_ros.executors.SteadyMultiThreadedExecutor
(a script, not a test).

    .venv/bin/python benchmarks/bench_executor.py [--calls 200] [--threads 4] [--repeats 3] [--json out.json]

The lock-step pattern of the decision nodes: a client calls a ``Trigger`` service (the
simulator's ``sim/step``) and waits for the answer, ``--calls`` times in a row, while a
second topic carries a message per call (``episode/status``). The server runs in its own
context and executor (a single-threaded one, as sim_node); the client's node spins in the
executor under test with ``--threads`` workers, and the calling thread is the main thread,
as in ``decision_node``. Reports the median over ``--repeats`` runs of round trips per second
and the process CPU time per call, for each executor, in one run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time


def one_run(executor_cls, calls: int, threads: int, domain: int) -> tuple[float, float]:
    import rclpy
    from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from std_msgs.msg import String
    from std_srvs.srv import Trigger

    ctxs = [Context(), Context()]
    for c in ctxs:
        rclpy.init(context=c, domain_id=domain)
    server = rclpy.create_node("bench_exec_server", context=ctxs[0])
    client = rclpy.create_node("bench_exec_client", context=ctxs[1])
    status_pub = server.create_publisher(String, "bench_exec/status", 10)
    count = [0]

    def serve(_req, resp):
        count[0] += 1
        status_pub.publish(String(data=str(count[0])))
        resp.success, resp.message = True, str(count[0])
        return resp

    server.create_service(Trigger, "bench_exec/step", serve)
    seen, cv = [0], threading.Condition()

    def on_status(msg):
        with cv:
            seen[0] = int(msg.data)
            cv.notify_all()

    client.create_subscription(String, "bench_exec/status", on_status, 10,
                               callback_group=MutuallyExclusiveCallbackGroup())
    cli = client.create_client(Trigger, "bench_exec/step", callback_group=ReentrantCallbackGroup())
    ex_s = SingleThreadedExecutor(context=ctxs[0])
    ex_s.add_node(server)
    ex_c = executor_cls(num_threads=threads, context=ctxs[1])
    ex_c.add_node(client)
    spinners = [threading.Thread(target=e.spin, daemon=True) for e in (ex_s, ex_c)]
    for t in spinners:
        t.start()
    try:
        if not cli.wait_for_service(timeout_sec=20.0):
            raise RuntimeError("service did not appear")
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(1, calls + 1):
            fut = cli.call_async(Trigger.Request())
            done = threading.Event()
            fut.add_done_callback(lambda _f: done.set())
            if not done.wait(60.0):
                raise RuntimeError(f"call {i} did not complete in 60 s")
            with cv:
                cv.wait_for(lambda: seen[0] >= i, timeout=60.0)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        for e in (ex_s, ex_c):
            e.shutdown()
        for t in spinners:
            t.join(5.0)
        for c in ctxs:
            if c.ok():
                rclpy.shutdown(context=c)
    return calls / wall, cpu / calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    from rclpy.executors import MultiThreadedExecutor

    from hazard_ros.executors import SteadyMultiThreadedExecutor
    domain = random.SystemRandom().randint(150, 200)
    results = {}
    runs = {"rclpy MultiThreadedExecutor": [], "SteadyMultiThreadedExecutor": []}
    for _ in range(a.repeats):            # interleaved, so a change in machine load hits both
        runs["rclpy MultiThreadedExecutor"].append(one_run(MultiThreadedExecutor, a.calls, a.threads, domain))
        runs["SteadyMultiThreadedExecutor"].append(one_run(SteadyMultiThreadedExecutor, a.calls, a.threads, domain))
    print(f"{a.calls} lock-step service round trips, client executor with {a.threads} threads, "
          f"median of {a.repeats} (load average {os.getloadavg()[0]:.1f})")
    print(f"{'executor':32}{'round trips/s':>15}{'CPU ms/call':>13}")
    for name, rs in runs.items():
        rate = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs) * 1000.0
        results[name] = {"round_trips_per_s": rate, "cpu_ms_per_call": cpu}
        print(f"{name:32}{rate:15.1f}{cpu:13.2f}")
    a_, b_ = (results[k]["round_trips_per_s"] for k in runs)
    print(f"speed-up: x{b_ / a_:.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
