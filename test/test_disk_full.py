"""A full disk or a closed output (issue 32, class 5): one line naming the path and the error,
a non-zero exit, and what was written before left intact."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HAZARD = [sys.executable, "-c", "import sys; from hazard_sim.cli import main; sys.exit(main())"]
RUN = ["run", "--task", "fire", "--episode", "0", "--agent", "greedy", "--frame-limit", "20", "--json"]


def test_results_file_keeps_its_lines_when_the_disk_fills(tmp_path, monkeypatch):
    from hazard_sim.sweep_io import ResultsWriter, read_sweep
    path = tmp_path / "sweep.jsonl"
    w = ResultsWriter(path)
    w.write({"episode": 0, "config": {"episode": 0}, "value_rate": 0.5})
    before = path.read_bytes()
    real = os.write

    def full(fd, data):
        real(fd, data[: len(data) // 2])          # half a line gets out, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError) as exc:
        w.write({"episode": 1, "config": {"episode": 1}, "value_rate": 0.25})
    monkeypatch.setattr(os, "write", real)
    assert exc.value.errno == errno.ENOSPC and exc.value.filename == str(path)
    assert path.read_bytes() == before                 # the partial line is gone
    w.close()
    assert [d["episode"] for d in read_sweep(path)[0]] == [0]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_json_to_a_full_disk_is_one_line_and_exit_1():
    with open("/dev/full", "w") as full:
        p = subprocess.run(HAZARD + RUN, cwd=REPO, stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip().splitlines() == [
        "hazard: cannot write standard output: No space left on device (ENOSPC); what was written before is kept"]


def test_json_to_a_closed_stdout_fails():
    cmd = " ".join(f"'{x}'" for x in HAZARD + RUN) + " >&-"
    p = subprocess.run(["bash", "-c", cmd], cwd=REPO, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    assert "cannot write standard output: standard output is closed (EBADF)" in p.stderr
    assert "Traceback" not in p.stderr


def test_save_viz_on_a_full_disk_names_the_folder(tmp_path, monkeypatch, capsys):
    import imageio.v2 as imageio

    from hazard_sim import cli

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(imageio, "imwrite", full)
    out = tmp_path / "viz"
    assert cli.main(RUN[:-1] + ["--save-viz", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"hazard: cannot write {out}: No space left on device (ENOSPC)" in err and "Traceback" not in err


def test_table_file_on_a_full_disk(tmp_path, monkeypatch, capsys):
    """The sweep's lines are written; the table file at the end hits the full disk: one line, exit 1."""
    from hazard_sim import cli
    real = Path.write_text

    def full(self, *a, **k):
        if self.name.startswith("table_"):
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, *a, **k)
    monkeypatch.setattr(Path, "write_text", full)
    rc = cli.main(["table", "--benchmark", "hazard/fire", "--split", "test", "--agents", "greedy", "--episodes", "1",
                   "--workers", "1", "--out-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 1 and "cannot write" in err and "table_fire_test.txt" in err
    lines = (tmp_path / "fire_test_greedy.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["episode"] == 0
