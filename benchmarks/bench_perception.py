"""Speed of the perception layer on this machine (a script, not a test).

Measures, in one run:
  * ONNX inference per frame on the CPU (onnxruntime, the ``onnx`` backend) at each camera
    size (default 256 and 640 px): ``detect()`` as a whole (letterbox, inference, decoding,
    NMS) and the network alone (``session.run``), median and 90th percentile over N frames
    rendered by the simulator (HAZARD fire test episode 0, the greedy agent's first actions);
    an ONNX file exported with a fixed input size runs at that size (re-export with
    ``dynamic=True`` to measure both sizes with one file);
  * an embedded episode decided on the detector's output (``--perception onnx``) against the
    same episode on the ground-truth backend: wall time, frames, and the metrics.

    .venv/bin/python benchmarks/bench_perception.py --model MODEL.onnx [--frames 50]
        [--sizes 256,640] [--benchmark hazard/fire] [--episode 0] [--agent greedy] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from hazard_sim.agents import make_agent
from hazard_sim.perception import make_backend
from hazard_sim.perception.embedded import PerceptionSettings
from hazard_sim.render.camera import CameraSpec
from hazard_sim.runner import make_env, run_episode

sys.path.insert(0, str(Path(__file__).resolve().parent))   # run from a checkout
import bench_hazard  # noqa: E402  (one machine() for the benchmark scripts)


def frames(size: int, n: int, benchmark: str, episode: int) -> list[np.ndarray]:
    """``n`` RGB frames of ``size`` x ``size`` from the greedy agent's first actions."""
    wrapped = make_env(benchmark, "test", episode, camera=CameraSpec(width=size, height=size))
    env = wrapped.unwrapped
    obs, info = wrapped.reset()
    agent = make_agent("greedy", benchmark=env.benchmark)
    agent.reset(obs, info)
    out = [obs["rgb"]]
    done = False
    while len(out) < n and not done:
        obs, _, term, trunc, info = wrapped.step(agent.act(obs, info))
        out += [o["rgb"] for o in info.get("observations") or [obs]]
        done = term or trunc
    env.close()
    while len(out) < n:                      # a short episode: repeat its frames
        out += out[: n - len(out)]
    return out[:n]


def stats_ms(ts: list[float]) -> dict:
    ms = sorted(t * 1000.0 for t in ts)
    return {"median_ms": round(statistics.median(ms), 2), "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 2),
            "n": len(ms)}


def inference(model: str, size: int, n: int, benchmark: str, episode: int) -> dict:
    det = make_backend("onnx", weights=model)
    imgs = frames(size, n, benchmark, episode)
    in_size = det.input_size(imgs[0].shape[:2])
    det.detect(imgs[0])                      # warm-up (first-run allocations)
    whole, net, found = [], [], 0
    x = np.zeros((1, 3, *in_size), np.float32)
    for img in imgs:
        t0 = time.perf_counter()
        found += len(det.detect(img))
        whole.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        det.session.run(None, {det.input_name: x})
        net.append(time.perf_counter() - t0)
    return {"camera_px": size, "input_px": list(in_size), "detect": stats_ms(whole), "network": stats_ms(net),
            "detections_per_frame": round(found / len(imgs), 2)}


def episode(model: str, benchmark: str, ep: int, agent: str) -> dict:
    out = {}
    for name, settings in (("groundtruth", PerceptionSettings()),
                           ("onnx", PerceptionSettings(backend="onnx", weights=model))):
        m = run_episode(benchmark, "test", ep, agent, perception=settings)
        keep = {k: m[k] for k in ("frames", "actions", "failed_actions", "wall_time_s", "value_rate", "sr",
                                  "success", "rescued_count") if k in m}
        keep["perception"] = m.get("perception")
        out[name] = keep
    out["wall_time_ratio"] = round(out["onnx"]["wall_time_s"] / max(out["groundtruth"]["wall_time_s"], 1e-9), 2)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="an ultralytics ONNX export")
    ap.add_argument("--frames", type=int, default=50)
    ap.add_argument("--sizes", default="256,640")
    ap.add_argument("--benchmark", default="hazard/fire")
    ap.add_argument("--episode", type=int, default=0)
    ap.add_argument("--agent", default="greedy")
    ap.add_argument("--no-episode", action="store_true", help="only the per-frame inference")
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args(argv)
    if not Path(a.model).is_file():
        print(f"error: model file not found: {a.model}", file=sys.stderr)
        return 2
    report = {"machine": bench_hazard.machine(), "model": Path(a.model).name, "inference": []}
    for size in (int(s) for s in a.sizes.split(",")):
        r = inference(a.model, size, a.frames, a.benchmark, a.episode)
        report["inference"].append(r)
        print(f"{size} px camera -> {r['input_px'][1]}x{r['input_px'][0]} input: detect {r['detect']['median_ms']} ms "
              f"median (p90 {r['detect']['p90_ms']}), network {r['network']['median_ms']} ms, "
              f"over {r['detect']['n']} frames, {r['detections_per_frame']} detections/frame", flush=True)
    if not a.no_episode:
        r = episode(a.model, a.benchmark, a.episode, a.agent)
        report["episode"] = r
        for k in ("groundtruth", "onnx"):
            print(f"{a.benchmark} ep {a.episode} {a.agent} on {k}: {r[k]}", flush=True)
        print(f"wall time onnx / groundtruth: {r['wall_time_ratio']}")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
