"""``hazard perception train | export | eval`` through the real ultralytics package: a 1-epoch
run on a tiny rendered dataset (64 px frames) in the ultralytics environment (``$VENV_YOLO`` or
``.venv-yolo``; skipped without it), its ONNX export with the class names in the metadata,
and the onnx backend of ``eval`` on it (onnxruntime, in this process)."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hazard_sim.perception.dataset_render import CLASSES, Plan, render_episode, write_data_yaml
from hazard_sim.perception.evaluation import onnx_predictor, report, run_predictions

ROOT = Path(__file__).resolve().parents[1]


def _yolo_python():
    for base in (os.environ.get("VENV_YOLO"), ROOT / ".venv-yolo"):
        if base and (Path(base) / "bin" / "python").exists():
            return str(Path(base) / "bin" / "python")
    return None


PY = _yolo_python()
needs_yolo_env = pytest.mark.skipif(PY is None, reason="no ultralytics environment: set VENV_YOLO or run "
                                                   "`make setup-yolo`")


def _cli(*args, timeout=600):
    # YOLO_VERBOSE: the in-process backend tests set it false for this process; the CLI shows its log
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="2", YOLO_VERBOSE="true")
    r = subprocess.run([PY, "-m", "hazard_sim.cli", "perception", *args], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout + r.stderr


@needs_yolo_env
@pytest.mark.timeout(1500)          # two fresh torch processes: minutes on a shared 2-core machine
def test_train_one_epoch_export_and_eval(tmp_path):
    plan = Plan(ground_shots=3)
    for split in ("train", "val"):
        for sub in ("images", "labels", "done"):
            (tmp_path / sub / split).mkdir(parents=True)
        assert render_episode(tmp_path, split, "hazard/fire", "train", 0, plan, 64, 0, False) == 3
    data = write_data_yaml(tmp_path)
    out = _cli("train", "--data", str(data), "--epochs", "1", "--imgsz", "64", "--batch", "4", "--workers", "0",
               "--project", str(tmp_path / "runs"), "--name", "t", "--no-cache")
    run = tmp_path / "runs" / "t"
    assert (run / "weights" / "last.pt").exists() and (run / "results.csv").exists(), out
    assert "Arial" not in out or "Downloading" not in out               # the font never downloads
    # a .pt given as the model is fine-tuned from its weights, even with another class list
    names = {**dict(enumerate(CLASSES)), len(CLASSES): "extra"}
    (tmp_path / "data6.yaml").write_text(data.read_text().split("names:")[0] + "names:\n" +
                                         "".join(f"  {k}: {v}\n" for k, v in names.items()))
    out6 = _cli("train", "--model", str(run / "weights" / "last.pt"), "--data", str(tmp_path / "data6.yaml"),
                "--epochs", "1", "--imgsz", "64", "--batch", "4", "--workers", "0",
                "--project", str(tmp_path / "runs"), "--name", "t6", "--no-cache")
    assert "Transferred" in out6 and f"nc={len(CLASSES)} with nc={len(CLASSES) + 1}" in out6, out6[-3000:]
    # ship: the run's detector into a folder, its ONNX under a name of its own, its dataset's own path
    _cli("ship", str(run), "--out", str(tmp_path / "shipped"), "--imgsz", "64", "--onnx-name", "m.onnx")
    shipped = tmp_path / "shipped"
    assert {"best.pt", "last.pt", "m.onnx", "results.csv", "args.yaml", "training_curve.png", "data.yaml"} <= \
        {f.name for f in shipped.iterdir()}
    import yaml
    assert yaml.safe_load((shipped / "data.yaml").read_text())["path"] == str(tmp_path.resolve())
    import onnxruntime as ort
    meta = ort.InferenceSession(str(shipped / "m.onnx")).get_modelmeta().custom_metadata_map
    assert ast.literal_eval(meta["names"]) == dict(enumerate(CLASSES))
    images = run_predictions(tmp_path, onnx_predictor(shipped / "m.onnx"), list(CLASSES))
    rep = report(images, list(CLASSES), min_size=0.0)
    assert rep["frames"] == 3 and 0.0 <= rep["all"]["map50"] <= 1.0


def test_train_without_ultralytics_says_how_to_set_it_up(tmp_path):
    r = subprocess.run([sys.executable, "-c", "import sys; sys.modules['ultralytics'] = None\n"
                        "from hazard_sim.cli import main; sys.exit(main(['perception', 'train', '--data', 'x.yaml']))"],
                       cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
    assert r.returncode == 2 and "make setup-yolo" in r.stderr and "Traceback" not in r.stderr


def test_merge_results_keeps_the_shipped_epochs_before_a_resumed_run():
    from hazard_sim.perception.training import merge_results
    head = "epoch,time,metrics/mAP50(B)"
    old = f"{head}\n1,10,0.01\n2,20,0.05\n3,30,0.08\n"
    new = f"{head}\n3,5,0.09\n4,15,0.12\n"            # resumed at epoch 3: its own epoch 3 wins
    assert merge_results(old, new) == f"{head}\n1,10,0.01\n2,20,0.05\n3,5,0.09\n4,15,0.12\n"
    assert merge_results("", new) == new                  # nothing shipped yet
    assert merge_results("epoch,other\n1,2\n", new) == new  # other columns: the new run alone


def test_training_curve_of_a_history_marks_where_each_run_begins(tmp_path):
    """history.csv (several runs, a ``stage`` column) draws as one curve with a line per change."""
    pytest.importorskip("matplotlib")
    from PIL import Image

    from hazard_sim.perception.training import plot_curve
    head = "epoch,train/box_loss,metrics/mAP50(B),metrics/mAP50-95(B),stage\n"
    rows = "".join(f"{e},{2.0 - e / 10},{e / 10},{e / 20},{'a' if e < 3 else 'b'}\n" for e in range(1, 6))
    (tmp_path / "history.csv").write_text(head + rows)
    png = plot_curve(tmp_path / "history.csv", tmp_path / "curve.png")
    img = np.asarray(Image.open(png).convert("L"))
    assert img.shape[0] > 100 and img.min() < 128            # something was drawn
