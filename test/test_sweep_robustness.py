"""Issue 18, sweeps (``hazard bench``): interruption (case 1), output paths (3), the resume
reader (4) and the LLM options (5). The dataset fingerprint (2) is in test_robust_datasets.py.

Signal tests run ``hazard bench`` in a subprocess in its own session (test/sweep_helper.py:
the real CLI and sweep, episode 0 finishes at once, the others run until stopped), wait for a
result in the file and an episode under way, send the signal, and wait (with deadlines, no
sleeps) for the process and every process of its session to end; whatever happens, the whole
session is killed at the end.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hazard_sim.runner import bench, read_sweep
from hazard_sim.sweep_io import check_results_path, open_results

ROOT = Path(__file__).resolve().parents[1]
HELPER = Path(__file__).with_name("sweep_helper.py")
DEADLINE_S = 60.0
#: five sweeps (13 Python processes importing the simulator) start side by side: on two cores
#: shared with other work that took over a minute in CI, so the start gets a deadline of its own
STARTUP_DEADLINE_S = 300.0


def _session(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(d.name))
    return out


def _wait_for(cond, what: str, deadline_s: float = DEADLINE_S):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        threading.Event().wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


class Sweep:
    def __init__(self, tmp_path: Path, workers: int):
        self.out = tmp_path / "sweep.jsonl"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.p = subprocess.Popen(
            [sys.executable, str(HELPER), "bench", "--benchmark", "doze/level2", "--agent", "random", "--episodes",
             "6", "--workers", str(workers), "--out", str(self.out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env, cwd=ROOT)
        self.err: list[str] = []
        self.reader = threading.Thread(target=lambda: self.err.extend(self.p.stderr), daemon=True)
        self.reader.start()
        self.workers = workers
        self.procs = 1 if workers == 1 else 1 + workers      # the sweep runs one worker's episodes itself

    def under_way(self):
        """Episode 0 written, the others running (in every worker)."""
        lines = self.out.read_text().splitlines() if self.out.exists() else []
        busy = sum("under way" in line for line in list(self.err))
        return len(lines) == 1 and busy >= self.workers and len(_session(self.p.pid)) >= self.procs

    def finish(self) -> tuple[int, str]:
        rc = self.p.wait(timeout=DEADLINE_S)
        _wait_for(lambda: not _session(self.p.pid), "every process of the sweep to end")
        self.reader.join(timeout=DEADLINE_S)
        return rc, "".join(self.err)

    def kill(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait(timeout=DEADLINE_S)


CASES = {"ctrl-c": (2, 130), "ctrl-c, one worker": (1, 130), "ctrl-c twice": (2, 130), "sigterm": (2, 143),
         "sigkill": (2, -9)}


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """Every case's sweep, started at once (they start up side by side); all killed at the end."""
    started = {how: Sweep(tmp_path_factory.mktemp("sweep"), workers) for how, (workers, _) in CASES.items()}
    yield started
    for s in started.values():
        s.kill()


@pytest.mark.parametrize("how", sorted(CASES))
def test_interrupted_sweeps_stop_at_once_keep_their_results_and_leave_no_process(sweeps, how):
    workers, code = CASES[how]
    s = sweeps[how]
    try:
        _wait_for(s.under_way, "a result and episodes under way", STARTUP_DEADLINE_S)
        before = _session(s.p.pid)
        if how.startswith("ctrl-c"):
            os.killpg(s.p.pid, signal.SIGINT)              # Ctrl-C reaches the whole process group
            if how == "ctrl-c twice":
                os.killpg(s.p.pid, signal.SIGINT)
        else:
            os.kill(s.p.pid, signal.SIGTERM if how == "sigterm" else signal.SIGKILL)
        rc, err = s.finish()
    finally:
        s.kill()
    if how == "ctrl-c twice":
        # the second SIGINT ends the process at once: by os._exit(130) when it lands while the sweep
        # cleans up, or by the signal itself (-2) when it lands after Python's exit began (the
        # interpreter restores the default handler as it finalises); either way it is gone at once
        assert rc in (code, -signal.SIGINT), err
    else:
        assert rc == code, err
    assert len(before) >= s.procs
    assert "Traceback" not in err, err
    if code > 0 and how != "ctrl-c twice":
        signame = "SIGTERM" if how == "sigterm" else "SIGINT"
        assert f"interrupted by {signame}: 1 result(s) kept in {s.out}" in err, err
    rows, junk = read_sweep(s.out)
    assert [r["episode"] for r in rows] == [0] and junk == 0


def test_output_paths_are_checked_by_opening_them(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, words in ((tmp_path, "a directory"), ("/dev/full", "not a regular file"), (fifo, "not a regular file"),
                        ("/dev/null", "not a regular file")):
        with pytest.raises(ValueError, match=f"--out {path}: {words}"):
            check_results_path(path, "--out")
    ro = tmp_path / "ro"
    ro.mkdir()
    if Path("/sys").is_dir():
        with pytest.raises(ValueError, match="--out /sys/x.jsonl: cannot write it"):
            check_results_path("/sys/x.jsonl", "--out")
    new = tmp_path / "new.jsonl"
    check_results_path(new, "--out")
    assert not new.exists()                # the check leaves no empty file behind
    with open_results(new) as fh:
        fh.write("x\n")
    assert new.read_text() == "x\n"


@pytest.mark.parametrize("out", ["/dev/full", "/sys/x.jsonl", "FIFO"])
def test_bench_refuses_unusable_out_in_one_line(tmp_path, capsys, out):
    from hazard_sim.cli import main
    if out == "FIFO":
        out = str(tmp_path / "fifo")
        os.mkfifo(out)
    if not Path(out).parent.exists():
        pytest.skip(f"no {Path(out).parent}")
    assert main(["bench", "--benchmark", "doze/level2", "--agent", "random", "--episodes", "1", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hazard: error: --out {out}: ") and err.count("\n") == 1


def test_the_resume_reader_reads_only_regular_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/full", fifo, "/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            read_sweep(Path(path))
    big = tmp_path / "long.jsonl"
    with open(big, "w") as fh:
        fh.write('{"config": {}}\n' + "x" * (5 * 1024 * 1024) + "\n" + '{"config": {"a": 1}}\n')
    rows, junk = read_sweep(big)
    assert rows == [{"config": {}}, {"config": {"a": 1}}] and junk == 1


JUNK_METRIC = {"hazard/fire": "value_rate", "doze/level2": "spl", "esar": "sr"}


@pytest.mark.parametrize("benchmark", sorted(JUNK_METRIC))
def test_junk_lines_are_skipped_with_a_warning(benchmark, tmp_path, capsys):
    from hazard_sim.render.camera import CameraSpec
    out = tmp_path / "sweep.jsonl"
    kw = dict(workers=1, out=str(out), frame_limit=3, camera=CameraSpec(width=16, height=16))
    first = bench(benchmark, "test", "random", [0], **kw)
    good = json.loads(out.read_text())
    junk = [{"config": {"episode": [1]}}, "[" * 100_000, {**good, "episode": "one"},
            {**good, JUNK_METRIC[benchmark]: "high"}, {**good, "config": {**good["config"], "episode": "one"}}]
    with open(out, "a") as fh:
        for j in junk:
            fh.write((j if isinstance(j, str) else json.dumps(j)) + "\n")
    capsys.readouterr()
    again = bench(benchmark, "test", "random", [0], **kw)      # nothing reruns, nothing raises
    err = capsys.readouterr().err
    assert "reusing 1 result(s)" in err and "unreadable line(s)" in err
    assert again["ignored"]["unreadable_lines"] == 3 and again["ignored"]["other_configurations"] == 2
    assert again["results"] == first["results"]
    assert len(out.read_text().splitlines()) == 1 + len(junk)


@pytest.mark.parametrize("option, value, words", [
    ("--llm-timeout", "inf", "must be in"), ("--llm-timeout", "nan", "must be in"),
    ("--llm-timeout", "-1", "must be in"), ("--llm-timeout", "0", "must be in"),
    ("--llm-timeout", "1e400", "must be in"),
    ("--llm-retries", "-1", r"must be in \[0, 100\]"), ("--llm-retries", "2.5", "expected an integer")])
def test_llm_timeout_and_retries_are_range_checked(option, value, words, capsys):
    from hazard_sim.cli import main
    with pytest.raises(SystemExit) as e:
        main(["bench", "--benchmark", "hazard/fire", "--agent", "llm", option, value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err
    assert __import__("re").search(words, err), err


def test_the_llm_client_checks_its_numbers():
    from hazard_sim.llm.client import ChatClient
    for kw in ({"timeout": float("inf")}, {"timeout": float("nan")}, {"timeout": -1}, {"retries": -1},
               {"retries": 1.5}, {"backoff": float("inf")}):
        with pytest.raises(ValueError, match="LLM (timeout|retries|backoff) must be"):
            ChatClient("http://localhost:1/v1", "m", **kw)


def test_sweep_workers_share_the_cores_for_inference(monkeypatch):
    # each of N workers runs onnxruntime on cores // N threads, unless the user set the variable
    import os

    from hazard_sim.runner import inference_threads
    monkeypatch.delenv("HAZARD_ONNX_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    with inference_threads(4):
        assert os.environ["HAZARD_ONNX_THREADS"] == "2"
    assert "HAZARD_ONNX_THREADS" not in os.environ
    with inference_threads(16):
        assert os.environ["HAZARD_ONNX_THREADS"] == "1"
    monkeypatch.setenv("HAZARD_ONNX_THREADS", "3")
    with inference_threads(4):
        assert os.environ["HAZARD_ONNX_THREADS"] == "3"
    assert os.environ["HAZARD_ONNX_THREADS"] == "3"
