"""Perception inputs that cannot be right are refused in one line, not used silently:
a detector evaluated on a dataset of another class set (its mAP would be 0.000), a truncated
ONNX file in ``perception eval`` (a protobuf error from inside before), and detector weights /
a namer given with the groundtruth backend (ignored before)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from hazard_sim.cli import main

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "test" / "data" / "tiny_yolo_detect.onnx"           # classes: red / green / blue thing


def _dataset(root: Path, names: list[str]) -> Path:
    (root / "images" / "val").mkdir(parents=True)
    Image.fromarray(np.full((64, 64, 3), 90, np.uint8)).save(root / "images" / "val" / "f0.png")
    (root / "data.yaml").write_text(yaml.safe_dump({"path": str(root), "names": dict(enumerate(names))}))
    (root / "objects_val.jsonl").write_text(json.dumps({"image": "images/val/f0.png", "cls": names[0],
                                                        "box": [10, 10, 30, 30], "pixels": 400}) + "\n")
    return root


def test_eval_refuses_a_detector_of_another_class_set(tmp_path, capsys):
    data = _dataset(tmp_path / "other", ["person", "fire"])
    assert main(["perception", "eval", "--backend", "onnx", "--weights", str(TINY), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert "none of this dataset's classes (person, fire)" in err and "Traceback" not in err, err


def test_eval_warns_about_the_classes_a_detector_lacks(tmp_path, capsys):
    data = _dataset(tmp_path / "mixed", ["red thing", "person"])
    assert main(["perception", "eval", "--backend", "onnx", "--weights", str(TINY), "--data", str(data)]) == 0
    captured = capsys.readouterr()
    assert "has no class person of this dataset: those score 0" in captured.err, captured.err
    assert "[eval] onnx: mAP50" in captured.out


def test_eval_of_a_truncated_onnx_is_one_line(tmp_path, capsys):
    data = _dataset(tmp_path / "d", ["red thing"])
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(TINY.read_bytes()[: len(TINY.read_bytes()) // 2])
    assert main(["perception", "eval", "--backend", "onnx", "--weights", str(cut), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert f"onnxruntime cannot load {cut}" in err and "is it truncated?" in err and "Traceback" not in err, err


@pytest.mark.parametrize("extra", [["--detector-weights", str(TINY)], ["--namer", "data/perception/namer/namer.onnx"]])
def test_a_detectors_files_with_the_groundtruth_backend_are_refused(extra, capsys):
    args = ["run", "--task", "fire", "--split", "test", "--episode", "0", "--agent", "greedy", "--frame-limit", "5"]
    assert main(args + extra) == 2
    err = capsys.readouterr().err
    assert "given with the groundtruth backend, which uses none of them" in err and "Traceback" not in err, err


def test_a_detector_of_another_benchmarks_class_set_is_refused_embedded(capsys):
    """HAZARD on the DOZE detector (class set 'doze'): refused before any episode; DOZE on it runs."""
    doze = str(REPO / "data" / "perception" / "doze" / "doze.onnx")
    args = ["--perception", "onnx", "--detector-weights", doze, "--frame-limit", "5", "--json"]
    assert main(["run", "--task", "fire", "--split", "test", "--episode", "0", "--agent", "greedy", *args]) == 2
    err = capsys.readouterr().err
    assert "class set 'doze' (trained for doze), not one for hazard/fire: use a detector of class set 'all'" in err
    assert main(["run", "--benchmark", "doze/level1", "--episode", "0", "--agent", "random", *args]) == 0


def test_a_detector_of_another_benchmarks_class_set_ends_the_launch():
    """Over ROS the perception node says so when the task arrives and ends (exit 1): the launch fails."""
    import subprocess
    import sys

    from helpers import finish, launch_env
    pytest.importorskip("rclpy")
    doze = str(REPO / "data" / "perception" / "doze" / "doze.onnx")
    proc = subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", "task:=fire", "detector:=onnx",
                             f"weights:={doze}", "frame_limit:=50", "camera_width:=64", "camera_height:=48"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=launch_env(), cwd=REPO,
                            start_new_session=True)
    out = finish(proc, 120)
    assert proc.returncode == 1, out[-3000:]
    assert "class set 'doze' (trained for doze), not one for hazard/fire" in out, out[-3000:]
    assert "process 'perception_node' crashed (exit code 1)" in out, out[-3000:]


def test_a_namer_of_another_benchmark_is_refused():
    """An instance namer that knows none of the episode's kinds would name nothing: refused at the
    first frame, with what it was trained for (issue 32, class 1)."""
    from pathlib import Path

    from hazard_sim.perception.errors import DetectorInputError
    from hazard_sim.perception.namer import namer_problem
    from hazard_sim.runner import run_episode
    assert namer_problem(["clue:rope", "victim"], ["book", "apple"], "n.onnx", "hazard/fire").startswith(
        "namer n.onnx: it names none of the 2 kinds")
    assert namer_problem(["book", "victim"], ["book", "apple"], "n.onnx", "hazard/fire") is None
    root = Path(__file__).resolve().parents[1] / "data" / "perception"
    if not (root / "namer_esar" / "namer.onnx").is_file():
        pytest.skip("the shipped ESAR namer is not here")
    from hazard_sim.perception.embedded import PerceptionSettings
    settings = PerceptionSettings(backend="onnx", weights=str(root / "detector.onnx"),
                                  namer=str(root / "namer_esar" / "namer.onnx"))
    with pytest.raises(DetectorInputError, match="names none of the .* kinds of objects in this hazard/fire"):
        run_episode("hazard/fire", "test", 0, "greedy", seed=0, frame_limit=20, perception=settings)


def test_a_namer_of_another_benchmark_ends_the_launch():
    """Over ROS the perception node checks the namer against the simulator's label info when the
    task is there, and ends (exit 1): the launch fails with the namer named."""
    import subprocess
    import sys

    from helpers import finish, launch_env
    pytest.importorskip("rclpy")
    root = REPO / "data" / "perception"
    if not (root / "namer_esar" / "namer.onnx").is_file():
        pytest.skip("the shipped ESAR namer is not here")
    proc = subprocess.Popen([sys.executable, "-m", "hazard_ros.launcher", "task:=fire", "detector:=onnx",
                             f"weights:={root / 'detector.onnx'}", f"namer:={root / 'namer_esar' / 'namer.onnx'}",
                             "frame_limit:=50", "camera_width:=64", "camera_height:=48"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=launch_env(), cwd=REPO,
                            start_new_session=True)
    out = finish(proc, 120)
    assert proc.returncode == 1, out[-3000:]
    assert "namer_esar/namer.onnx: it names none of the" in out and "in this hazard/fire episode" in out, out[-3000:]
    assert "process 'perception_node' crashed (exit code 1)" in out, out[-3000:]
