"""The yolo, yolo_world and onnx backends against the real ultralytics package.

ultralytics (with torch) lives in its own environment (scripts/setup_yolo.sh builds it;
``$VENV_YOLO`` or ``.venv-yolo`` in the checkout), so these tests run a script there in a
subprocess with this checkout on its path. Models are built from ultralytics' own yaml files
(untrained; nothing is downloaded). Skipped, with the reason, when that environment is absent.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def yolo_python() -> Path | None:
    for base in (os.environ.get("VENV_YOLO"), ROOT / ".venv-yolo"):
        if base and (Path(base) / "bin" / "python").is_file():
            return Path(base) / "bin" / "python"
    return None


PY = yolo_python()
pytestmark = pytest.mark.skipif(PY is None, reason="no ultralytics environment: set VENV_YOLO or build .venv-yolo "
                                                   "with scripts/setup_yolo.sh (the real-package tests need it)")

SCRIPT = r"""
import json, os, sys
import numpy as np
from hazard_sim.perception import make_backend, WeightsMismatchError, TextEncoderUnavailableError
out = {}
tmp = sys.argv[1]
from hazard_sim.perception.backends.ultralytics import import_ultralytics
YOLO, YOLOWorld = import_ultralytics()
out["offline"] = os.environ.get("YOLO_OFFLINE")
det = YOLO("yolov8n.yaml"); det.save(f"{tmp}/det.pt")
world = YOLO("yolov8s-worldv2.yaml"); world.save(f"{tmp}/world.pt")
rng = np.random.default_rng(0)
img = rng.integers(0, 255, (96, 128, 3), dtype=np.uint8)
y = make_backend("yolo", weights=f"{tmp}/det.pt", confidence=0.0, device="cpu")
a = y.detect(img)
b = y.detect(img.astype(np.float32) / 255.0)
c = y.detect(np.dstack([img, np.full((96, 128), 255, np.uint8)]))
out["yolo_n"] = [len(a), len(b), len(c)]
out["yolo_same_float"] = [(d.label, round(d.cx, 3)) for d in a] == [(d.label, round(d.cx, 3)) for d in b]
out["yolo_labels_known"] = all(d.label in y._names().values() for d in a)
out["yolo_unknown"] = y.set_classes([list(y._names().values())[0], "no_such_class"])
try:
    make_backend("yolo_world", weights=f"{tmp}/det.pt")
    out["world_on_plain"] = "accepted"
except WeightsMismatchError as exc:
    out["world_on_plain"] = str(exc)
w = make_backend("yolo_world", weights=f"{tmp}/world.pt", confidence=0.0, device="cpu")
try:
    w.set_classes(["person", "backpack"])
    out["world_no_embeddings"] = "accepted"
except TextEncoderUnavailableError as exc:
    out["world_no_embeddings"] = str(exc)
w2 = make_backend("yolo_world", weights=f"{tmp}/world.pt", confidence=0.0, device="cpu",
                  text_embeddings=f"{tmp}/emb.npz")
out["world_set"] = w2.set_classes(["person", "backpack"])
out["world_classes"] = w2.classes
dets = w2.detect(img)
out["world_labels"] = sorted({d.label for d in dets})
out["world_n"] = len(dets)
print("RESULT " + json.dumps(out))
"""


def test_yolo_and_yolo_world_backends_with_the_real_package(tmp_path):
    from hazard_sim.perception.text_embeddings import minilm, save
    names = ["person", "backpack"]
    save(tmp_path / "emb.npz", names, minilm(names))            # MiniLM here, zero-padded to 512
    env = dict(os.environ, PYTHONPATH=str(ROOT), YOLO_CONFIG_DIR=str(tmp_path / "cfg"))
    env.pop("YOLO_OFFLINE", None)
    r = subprocess.run([str(PY), "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
    assert r.returncode == 0 and line, r.stderr[-3000:]
    out = json.loads(line[0][7:])
    assert out["offline"] == "true"                               # set before ultralytics was imported
    assert out["yolo_n"][0] > 0 and out["yolo_n"][0] == out["yolo_n"][1] == out["yolo_n"][2]
    assert out["yolo_same_float"] and out["yolo_labels_known"]    # float 0..1 and rgba8 as rgb8
    assert out["yolo_unknown"] == ["no_such_class"]
    assert "not a YOLO-World model" in out["world_on_plain"] and "`yolo` backend" in out["world_on_plain"]
    assert out["world_no_embeddings"] != "accepted" and "text_embeddings=minilm" in out["world_no_embeddings"]
    assert out["world_set"] == [] and out["world_classes"] == names
    assert out["world_n"] > 0 and set(out["world_labels"]) <= set(names)


EXPORT = r"""
import json, sys
import numpy as np
from hazard_sim.perception.backends.ultralytics import import_ultralytics
YOLO, _ = import_ultralytics()
tmp = sys.argv[1]
m = YOLO("yolov8n.yaml")
m.save(f"{tmp}/det.pt")
m = YOLO(f"{tmp}/det.pt")
path = m.export(format="onnx", imgsz=128, simplify=False)
img = np.load(f"{tmp}/img.npy")
onnx_model = YOLO(path, task="detect")          # ultralytics' own pre- and post-processing on the same file
r = onnx_model.predict(np.ascontiguousarray(img[..., ::-1]), imgsz=128, conf=1e-5, iou=0.7, verbose=False,
                       device="cpu")[0]
print("RESULT " + json.dumps({"onnx": str(path), "xyxy": r.boxes.xyxy.numpy().tolist(),
                              "conf": r.boxes.conf.numpy().tolist(), "cls": r.boxes.cls.numpy().tolist()}))
"""


def test_onnx_backend_matches_ultralytics_on_an_exported_model(tmp_path):
    """A yaml-built YOLOv8n exported to ONNX by ultralytics: the onnx backend (onnxruntime,
    numpy letterbox / NMS, in this process, no torch) gives ultralytics' own detections."""
    rng = np.random.default_rng(1)
    img = rng.integers(0, 255, (96, 128, 3), dtype=np.uint8)
    np.save(tmp_path / "img.npy", img)
    env = dict(os.environ, PYTHONPATH=str(ROOT), YOLO_CONFIG_DIR=str(tmp_path / "cfg"))
    r = subprocess.run([str(PY), "-c", EXPORT, str(tmp_path)], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=600)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
    if r.returncode != 0 and "onnx" in r.stderr and "No module named" in r.stderr:
        pytest.skip("the ultralytics environment has no onnx package (export needs it)")
    assert r.returncode == 0 and line, r.stderr[-3000:]
    ref = json.loads(line[0][7:])
    from hazard_sim.perception import make_backend
    det = make_backend("onnx", weights=ref["onnx"], confidence=1e-5)
    got = det.detect(img)
    assert len(got) == len(ref["conf"]) > 0

    def key(label, s, cx, cy, w, h):
        return (label, round(s, 6), round(cx, 1), round(cy, 1), round(w, 1), round(h, 1))
    mine = sorted(key(d.label, d.score, d.cx, d.cy, d.w, d.h) for d in got)
    theirs = sorted(key(det.names[int(c)], s, (x1 + x2) / 2 - 0.5, (y1 + y2) / 2 - 0.5, x2 - x1, y2 - y1)
                    for s, c, (x1, y1, x2, y2) in zip(ref["conf"], ref["cls"], ref["xyxy"]))
    assert mine == theirs
