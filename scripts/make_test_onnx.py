"""Writes the onnx backend's test graphs: small ONNX files with the output layouts of
ultralytics YOLO exports (no trained model, no torch), committed under test/data/.

``tiny_yolo_detect.onnx``: input ``images`` (1, 3, 64, 64) float in 0..1; output ``output0``
(1, 4 + 3, 4): four anchors with fixed boxes (centre x, centre y, w, h in input pixels;
``BOXES``) and three class scores ``score[c, n] = mean of input channel c * WEIGHTS[n]``
(class 0 "red thing", 1 "green thing", 2 "blue thing"); metadata as ultralytics writes it
(names, stride, imgsz, task, batch).

``tiny_yolo_segment.onnx``: the same plus ``NM`` = 2 mask coefficients per anchor (constants
``COEF``) in ``output0`` (1, 4 + 3 + 2, 4) and prototypes ``output1`` (1, 2, 16, 16)
(``PROTOS``: the left half of the image, the top half), task ``segment``.

Needs the onnx package (in the ultralytics environment of scripts/setup_yolo.sh, or any
venv with ``pip install onnx``): ``python scripts/make_test_onnx.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BOXES = [[16.0, 16.0, 8.0, 8.0], [17.0, 16.0, 8.0, 8.0], [48.0, 40.0, 16.0, 12.0], [32.0, 32.0, 16.0, 16.0]]
WEIGHTS = [0.9, 0.8, 0.7, 0.1]
NAMES = {0: "red thing", 1: "green thing", 2: "blue thing"}
NM = 2
COEF = [[8.0, 0.0]] * 4          # anchor -> weights of (left half, top half): every mask is "the left half"


def protos() -> np.ndarray:
    p = np.zeros((1, NM, 16, 16), np.float32)
    p[0, 0, :, :8] = 1.0        # prototype 0: the left half
    p[0, 1, :8, :] = 1.0        # prototype 1: the top half
    return p


def build(segment: bool):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    boxes = np.asarray(BOXES, np.float32).T.reshape(1, 4, 4)
    inits = [numpy_helper.from_array(boxes, "boxes"),
             numpy_helper.from_array(np.asarray(WEIGHTS, np.float32).reshape(1, 1, 4), "w"),
             numpy_helper.from_array(np.asarray([1, 3, 1], np.int64), "shape3")]
    nodes = [helper.make_node("ReduceMean", ["images"], ["means"], axes=[2, 3], keepdims=0),
             helper.make_node("Reshape", ["means", "shape3"], ["m3"]),
             helper.make_node("Mul", ["m3", "w"], ["scores"])]
    parts = ["boxes", "scores"]
    outputs = []
    if segment:
        inits += [numpy_helper.from_array(np.asarray(COEF, np.float32).T.reshape(1, NM, 4), "coef"),
                  numpy_helper.from_array(protos(), "protos")]
        parts.append("coef")
        nodes.append(helper.make_node("Identity", ["protos"], ["output1"]))
        outputs.append(helper.make_tensor_value_info("output1", TensorProto.FLOAT, [1, NM, 16, 16]))
    nodes.append(helper.make_node("Concat", parts, ["output0"], axis=1))
    outputs.insert(0, helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 7 + (NM if segment else 0), 4]))
    graph = helper.make_graph(nodes, "tiny_yolo", [helper.make_tensor_value_info("images", TensorProto.FLOAT,
                                                                                 [1, 3, 64, 64])],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hazard_stack")
    model.ir_version = 8
    meta = {"description": "hazard_stack onnx backend test graph", "stride": "32", "batch": "1",
            "task": "segment" if segment else "detect", "imgsz": "[64, 64]", "names": repr(NAMES)}
    for k, v in meta.items():
        model.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(model)
    return model


def main() -> int:
    import onnx
    out = Path(__file__).resolve().parent.parent / "test" / "data"
    out.mkdir(parents=True, exist_ok=True)
    for seg, name in ((False, "tiny_yolo_detect.onnx"), (True, "tiny_yolo_segment.onnx")):
        onnx.save(build(seg), str(out / name))
        print(f"wrote {out / name} ({(out / name).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
