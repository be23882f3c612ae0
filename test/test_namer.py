"""The instance namer (hazard_sim.perception.namer): the crop geometry by hand, a namer trained
by ``hazard perception namer-train`` on a synthetic three-kind dataset in the ultralytics
environment (torch + onnx; skipped without it) and then run with onnxruntime here, its
wrapping of a detector backend, its errors, and the shipped namer on crops of a held-out DOZE
house."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hazard_sim.perception.backends import make_backend
from hazard_sim.perception.backends.base import Backend
from hazard_sim.perception.errors import DetectorError, WeightsMismatchError, WeightsNotFoundError
from hazard_sim.perception.instances import Instance
from hazard_sim.perception.namer import NamedBackend, Namer, crop_square
from hazard_sim.perception.namer_dataset import CONTEXT, save_split

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "data" / "perception" / "namer" / "namer.onnx"


from test_perception_train import PY  # noqa: E402  (the ultralytics environment's python, or None)


def test_crop_square_is_the_box_with_its_margin_by_hand():
    img = np.zeros((100, 100, 3), np.uint8)
    img[30:50, 40:60] = 255                        # a 20 x 20 box: columns 40..59, rows 30..49
    c = crop_square(img, (40, 30, 60, 50), 26, margin=0.15)   # side 20 * 1.3 = 26: one pixel per pixel
    assert c.shape == (26, 26, 3)
    white = c[..., 0] == 255
    assert white[3:23, 3:23].all() and white.sum() == 400    # 3 px of margin each side
    # a box at the corner: outside the image is grey 114
    c = crop_square(img, (0, 0, 10, 10), 13, margin=0.15)
    assert (c[0, 0] == 114).all() and (c[5, 5] == 0).all()
    # a doubled scale halves the object in the crop
    c = crop_square(img, (40, 30, 60, 50), 26, margin=0.15, scale=2.0)
    assert abs(int((c[..., 0] > 128).sum()) - 100) <= 12


def _shapes_dataset(path: Path, n: int, seed: int) -> None:
    """Three kinds drawn at random places, sizes and colours: a filled square ("box"), a
    ring ("ring") and a horizontal bar ("bar"), stored like namer-dataset's contexts."""
    rng = np.random.default_rng(seed)
    crops, boxes, labels = [], [], []
    yy, xx = np.mgrid[0:CONTEXT, 0:CONTEXT]
    for k in range(n):
        kind = ("box", "ring", "bar")[k % 3]
        img = np.full((CONTEXT, CONTEXT, 3), rng.integers(60, 200), np.uint8)
        col = rng.integers(0, 256, 3)
        r = CONTEXT / 4                            # the box's larger side spans half the context
        cx, cy = CONTEXT / 2 + rng.uniform(-3, 3), CONTEXT / 2 + rng.uniform(-3, 3)
        if kind == "box":
            m = (abs(xx - cx) < r * 0.8) & (abs(yy - cy) < r * 0.8)
        elif kind == "ring":
            d = np.hypot(xx - cx, yy - cy)
            m = (d < r) & (d > r * 0.6)
        else:
            m = (abs(xx - cx) < r) & (abs(yy - cy) < r * 0.25)
        img[m] = col
        ys, xs = np.nonzero(m)
        crops.append(img)
        boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
        labels.append(kind)
    save_split({"crops": np.stack(crops), "boxes": np.asarray(boxes, np.float32), "labels": labels,
                "house": ["h0"] * n, "pixels": np.full(n, 100, np.int32)}, path)


@pytest.fixture(scope="module")
def tiny_namer(tmp_path_factory):
    if PY is None:
        pytest.skip("no torch + onnx environment: set VENV_YOLO or run `make setup-yolo`")
    d = tmp_path_factory.mktemp("namer")
    _shapes_dataset(d / "train.npz", 90, 0)
    _shapes_dataset(d / "val.npz", 30, 1)
    out = d / "out"
    # one thread: two torch threads on a loaded 2-core machine spin against each other (30 s an epoch
    # instead of 2)
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    r = subprocess.run([PY, "-m", "hazard_sim.cli", "perception", "namer-train", "--data", str(d), "--out", str(out),
                        "--epochs", "8", "--size", "32", "--batch", "16", "--lr", "0.005", "--threads", "1"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "held-out top-1" in r.stdout
    return out


def test_namer_train_writes_model_description_and_history(tiny_namer):
    desc = json.loads((tiny_namer / "namer.json").read_text())
    assert desc["classes"] == ["bar", "box", "ring"] and desc["crop_size"] == 32
    assert desc["renames"] == ["object"] and desc["train_crops"] == 90
    assert (tiny_namer / "namer_curve.png").is_file()
    rows = (tiny_namer / "history.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,train_loss,val_top1") and len(rows) == 9
    assert (tiny_namer / "last.pt").is_file() and (tiny_namer / "best.pt").is_file()
    # three shapes this plain are learnt (chance is 1/3)
    assert desc["heldout"]["top1"] >= 0.6, desc["heldout"]


def test_namer_train_writes_the_renames_and_goal_threshold_it_is_given(tiny_namer, tmp_path):
    data = tiny_namer.parent
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    r = subprocess.run([PY, "-m", "hazard_sim.cli", "perception", "namer-train", "--data", str(data), "--out",
                        str(tmp_path), "--epochs", "1", "--size", "32", "--batch", "16", "--threads", "1",
                        "--renames", "person,clue", "--goal-min-score", "0.5"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    desc = json.loads((tmp_path / "namer.json").read_text())
    assert desc["renames"] == ["person", "clue"] and desc["goal_min_score"] == 0.5
    namer = Namer(tmp_path / "namer.onnx")
    assert namer.renames == ("person", "clue") and namer.goal_min_score == 0.5 and namer.min_score == 0.5


def test_namer_runs_with_onnxruntime_and_renames_only_objects(tiny_namer, tmp_path):
    namer = Namer(tiny_namer / "namer.onnx")
    p = namer.probabilities(np.zeros((4, 32, 32, 3), np.uint8))
    assert p.shape == (4, 3) and np.allclose(p.sum(1), 1.0, atol=1e-5)

    class Fixed(Backend):
        name = "onnx"
        names = {0: "person", 1: "object"}

        def detect(self, rgb, extra=None):
            return [Instance("object", 0.9, 32.0, 32.0, 20.0, 20.0), Instance("person", 0.8, 10.0, 10.0, 6.0, 6.0)]

    rgb = np.zeros((64, 64, 3), np.uint8)
    always = NamedBackend(Fixed(), Namer(tiny_namer, min_score=0.0))     # a folder finds namer.onnx
    out = always.detect(rgb)
    assert out[0].label in ("bar", "box", "ring") and out[0].score == 0.9
    assert out[1].label == "person"
    assert sorted(always.names.values()) == ["bar", "box", "object", "person", "ring"]
    never = NamedBackend(Fixed(), Namer(tiny_namer, min_score=1.01))
    assert [i.label for i in never.detect(rgb)] == ["object", "person"]
    # classes: a kind asks the detector for objects; unknown names are reported
    assert always.set_classes(["ring", "person", "unicorn"]) == ["unicorn"]
    assert always.classes == ["ring", "person"]
    assert {i.label for i in always.detect(rgb)} <= {"ring", "person"}
    assert always.set_classes(None) == [] and always.classes is None
    assert always.describe()["namer"] == "namer.onnx"



def test_a_prompted_goal_kind_is_named_from_the_lower_threshold_by_hand(tiny_namer, monkeypatch):
    namer = Namer(tiny_namer, min_score=0.5, goal_min_score=0.2)          # kinds: bar, box, ring
    probs = np.array([[0.45, 0.30, 0.25],     # unsure, the goal at 0.25: the goal
                      [0.60, 0.10, 0.30],     # sure of another kind: that kind
                      [0.10, 0.10, 0.80],     # sure of the goal
                      [0.42, 0.43, 0.15]],    # unsure, the goal below 0.2: the unsure top kind
                     np.float32)
    monkeypatch.setattr(namer, "probabilities", lambda crops: probs[: len(crops)])
    boxes = [(0, 0, 8, 8)] * 4
    rgb = np.zeros((16, 16, 3), np.uint8)
    got = namer.name(rgb, boxes, goals=["ring"])
    assert [k for k, _ in got] == ["ring", "bar", "ring", "box"]
    assert [round(q, 2) for _, q in got] == [0.5, 0.6, 0.8, 0.43]     # a prompted name counts as sure
    assert [k for k, _ in namer.name(rgb, boxes)] == ["bar", "bar", "ring", "box"]    # no prompt
    assert namer.describe()["namer_goal_min_score"] == 0.2

    class Fixed(Backend):
        name = "onnx"
        names = {0: "object"}

        def detect(self, rgb, extra=None):
            return [Instance("object", 0.9, 4.0, 4.0, 8.0, 8.0) for _ in range(4)]

    b = NamedBackend(Fixed(), namer)
    assert [i.label for i in b.detect(rgb)] == ["object", "bar", "ring", "object"]
    assert b.prompt(["ring", "unicorn"]) == ["ring"]                        # kinds it does not know: dropped
    assert [i.label for i in b.detect(rgb)] == ["ring", "bar", "ring", "object"]
    assert b.stats["named_goal"] == 2                                      # the prompted run's two rings
    assert b.prompt(None) == [] and [i.label for i in b.detect(rgb)][0] == "object"


def test_namer_errors(tiny_namer, tmp_path):
    with pytest.raises(WeightsNotFoundError, match="namer-train"):
        Namer(tmp_path / "nothing.onnx")
    with pytest.raises(WeightsNotFoundError):
        Namer("")
    lone = tmp_path / "lone.onnx"
    lone.write_bytes((tiny_namer / "namer.onnx").read_bytes())
    with pytest.raises(WeightsMismatchError, match="lone.json"):
        Namer(lone)
    desc = json.loads((tiny_namer / "namer.json").read_text())
    (tmp_path / "lone.json").write_text(json.dumps(dict(desc, classes=["a", "b"])))
    with pytest.raises(WeightsMismatchError, match="3 scores but lone.json lists 2"):
        Namer(lone)
    (tmp_path / "lone.json").write_text(json.dumps(dict(desc, crop_size=48)))
    with pytest.raises(WeightsMismatchError, match="48 px"):
        Namer(lone)
    (tmp_path / "lone.json").write_text("{")
    with pytest.raises(WeightsMismatchError, match="not JSON"):
        Namer(lone)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    (tmp_path / "junk.json").write_text(json.dumps(desc))
    with pytest.raises(WeightsMismatchError, match="onnxruntime cannot load"):
        Namer(junk)
    with pytest.raises(DetectorError, match="groundtruth backend already"):
        make_backend("groundtruth", namer=str(tiny_namer))


def test_namer_train_without_torch_says_where_to_run_it(tmp_path):
    code = ("import sys, builtins; real = builtins.__import__\n"
            "def imp(n, *a, **k):\n"
            "    if n == 'torch': raise ImportError('No module named torch')\n"
            "    return real(n, *a, **k)\n"
            "builtins.__import__ = imp\n"
            "from hazard_sim.cli import main; sys.exit(main())")
    r = subprocess.run([sys.executable, "-c", code, "perception", "namer-train", "--data", str(tmp_path),
                        "--out", str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert ".venv-yolo/bin/python -m hazard_sim.cli perception namer-train" in r.stderr + r.stdout


def test_appearance_items_show_kinds_in_other_looks_and_leave_the_house_as_it_was():
    from hazard_sim.runner import make_env
    from hazard_sim.tasks.doze.library import KINDS
    from hazard_sim.tasks.doze.namer_crops import STUDIO_ID, appearance_items
    env = make_env("doze/level1", "train", 0, seed=0).unwrapped
    env.reset()
    try:
        n_proc = len(env.world.processes)
        got = list(appearance_items(env, 6, 2, np.random.default_rng(1), 24))
        again = list(appearance_items(env, 6, 2, np.random.default_rng(1), 24))
        assert 6 <= len(got) <= 12                                  # up to two views of six items
        cats = {k.category for k in KINDS.values()}
        assert all(label in cats for _, _, label, _ in got)
        assert all(px >= 24 and b[2] > b[0] and b[3] > b[1] for _, b, _, px in got)
        assert [(lab, b, px) for _, b, lab, px in got] == [(lab, b, px) for _, b, lab, px in again]   # seeded
        assert len(env.world.processes) == n_proc                   # the extra item is taken away
        assert not (env.observe(update_map=False)["seg"] == STUDIO_ID).any()
    finally:
        env.close()


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped namer")
def test_shipped_namer_names_most_items_of_a_held_out_house():
    """Crops of the first test house (level 1, other houses and colours than training), cut
    with the simulator's boxes: the shipped namer's top-1 is well above chance (1/150)."""
    from hazard_sim.tasks.doze.namer_crops import crops
    namer = Namer(SHIPPED)
    d = crops("doze/level1", "test", per_kind=2, min_views=1, max_views=1, houses=1, log=lambda *a: None).as_dict()
    known = [i for i, lab in enumerate(d["labels"]) if lab in namer.classes]
    assert len(known) >= 60
    crops = np.stack([crop_square(d["crops"][i], d["boxes"][i], namer.crop_size, namer.margin) for i in known])
    p = namer.probabilities(crops)
    top1 = np.mean([namer.classes[int(k)] == d["labels"][i] for k, i in zip(p.argmax(1), known)])
    assert top1 >= 0.5, top1


def test_namer_dataset_command_renders_held_out_crops_and_refuses_a_benchmark_without_them(tmp_path):
    from hazard_sim.cli import main
    from hazard_sim.perception.namer_dataset import load_split
    assert main(["perception", "namer-dataset", "--benchmark", "doze/level1", "--out", str(tmp_path),
                 "--houses", "1", "--per-kind", "1", "--splits", "val"]) == 0
    d = load_split(tmp_path / "val.npz")
    assert d["crops"].shape[1:] == (CONTEXT, CONTEXT, 3) and len(d["labels"]) == len(d["boxes"]) >= 60
    assert len(set(d["house"])) == 1 and min(d["pixels"]) >= 24
    # the stored box spans half the context along its larger side, centred
    b = d["boxes"]
    side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    assert np.allclose(side, CONTEXT / 2, atol=1e-3)
    assert np.allclose((b[:, 0] + b[:, 2]) / 2, CONTEXT / 2, atol=1e-3)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["val"]["scenes"] == 1 and summary["renames"] == ["object"]
    assert main(["perception", "namer-dataset", "--benchmark", "hazard/fire", "--out", str(tmp_path)]) == 2
    with pytest.raises(FileNotFoundError, match="namer-dataset"):
        load_split(tmp_path / "train.npz")


def test_namer_eval_matching_by_hand():
    from hazard_sim.perception.namer_eval import _match, summarise
    gt = np.array([[0, 0, 10, 10], [20, 20, 30, 30]], float)
    det = np.array([[1, 1, 10, 10], [0, 0, 9, 9], [50, 50, 60, 60]], float)   # IoU 0.81, 0.81, 0
    # the higher score takes the first object; the other one finds no free match
    assert _match(det, [0.5, 0.9, 0.8], gt).tolist() == [1, -1]
    assert _match(det[2:], [0.9], gt).tolist() == [-1, -1]
    assert _match(np.zeros((0, 4)), [], gt).tolist() == [-1, -1]
    rows = [{"label": "mug", "size": 5.0, "detected": False, "named": False, "named_wrong": False,
             "gt_box_named": True, "known_kind": True},
            {"label": "mug", "size": 40.0, "detected": True, "named": True, "named_wrong": False,
             "gt_box_named": True, "known_kind": True}]
    rep = summarise(rows, "doze/level1", 1)
    assert rep["all"] == {"objects": 2, "detected": 1, "named": 1, "named_wrong": 0, "gt_box_named": 2,
                          "known_kind": 2}
    assert [b["objects"] for b in rep["by_size"]] == [1, 0, 0, 1, 0]


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped namer")
def test_namer_eval_command_on_rendered_held_out_frames(tmp_path):
    from hazard_sim.cli import main
    from hazard_sim.perception.dataset_render import Plan, render_episode
    for sub in ("images", "labels", "done"):
        (tmp_path / sub / "val").mkdir(parents=True)
    assert render_episode(tmp_path, "val", "doze/level1", "test", 0, Plan(ground_shots=4), 256, 0, False) == 4
    out = tmp_path / "rep"
    assert main(["perception", "namer-eval", "--data", str(tmp_path), "--benchmark", "doze/level1",
                 "--weights", str(ROOT / "data" / "perception" / "detector.onnx"), "--namer", str(SHIPPED),
                 "--out", str(out)]) == 0
    rep = json.loads(out.with_suffix(".json").read_text())
    a = rep["all"]
    assert rep["frames"] == 4 and a["objects"] >= 4
    assert a["named"] + a["named_wrong"] <= a["detected"] <= a["objects"]
    assert sum(b["objects"] for b in rep["by_size"]) == a["objects"]
    assert "named right from the true box" in out.with_suffix(".md").read_text()
    assert main(["perception", "namer-eval", "--data", str(tmp_path), "--benchmark", "esar"]) == 2


def test_esar_crops_name_victims_clues_and_bare_ground_and_say_what_they_rename(tmp_path):
    from hazard_sim.cli import main
    from hazard_sim.perception.namer_dataset import load_split
    from hazard_sim.perception.namer_training import renames_of
    from hazard_sim.tasks.esar.catalog import CLUES
    from hazard_sim.tasks.esar.namer_crops import _ground_patch, kind_of, split_tasks
    assert kind_of("victim") == "victim" and kind_of("clue:water_bottle") == "clue:water_bottle"
    assert kind_of("terrain") is None and kind_of("tree") is None
    # the held-out crops come from events 4 and 9 only, as the detector's held-out frames
    from hazard_sim.core.spec import get_spec
    ds = get_spec("esar").dataset
    held = split_tasks("test")
    assert len(held) == 100 and {ds.load("test", i)["event"] % 5 for i in held} == {4}
    assert not set(held) & set(split_tasks("train"))
    assert main(["perception", "namer-dataset", "--benchmark", "esar", "--out", str(tmp_path),
                 "--houses", "1", "--per-kind", "6", "--splits", "val"]) == 0
    d = load_split(tmp_path / "val.npz")
    kinds = {"victim", "nothing"} | {f"clue:{c}" for c in CLUES}
    assert set(d["labels"]) <= kinds and len(set(d["labels"]) - {"nothing"}) >= 1
    assert min(p for p, lab in zip(d["pixels"], d["labels"]) if lab != "nothing") >= 16
    assert json.loads((tmp_path / "summary.json").read_text())["renames"] == ["person", "clue"]
    assert renames_of(tmp_path) == ["person", "clue"] and renames_of(tmp_path / "none") == ["object"]
    # a bare-ground patch lies on scene pixels only (ids 1-4 here; 1000 a victim)
    seg = np.full((40, 40), 1000, np.int32)
    seg[20:, :] = 3
    box = _ground_patch(seg, {1000: "victim", 3: "tree"}, np.random.default_rng(0))
    assert box is not None and (seg[box[1]:box[3], box[0]:box[2]] == 3).all() and 4 <= box[2] - box[0] <= 16
    assert _ground_patch(np.full((40, 40), 1000, np.int32), {1000: "victim"}, np.random.default_rng(0)) is None


DOZE_DETECTOR = ROOT / "data" / "perception" / "doze" / "doze.onnx"


@pytest.mark.skipif(not (SHIPPED.is_file() and DOZE_DETECTOR.is_file()), reason="no shipped DOZE detector")
def test_the_doze_detector_lets_an_agent_confirm_a_spatial_goal_on_perception():
    """"a potted plant in the bookshelf" (level-1 test episode 188): the relation is checked against
    the furniture the agent has seen, which only a detector with furniture classes gives (the
    six-class one has none: every spatial goal fails on it). On the DOZE detector and the namer,
    frontier finds it in 12 steps, as on ground truth."""
    import ast

    import onnxruntime as ort

    from hazard_sim.perception.embedded import PerceptionSettings
    from hazard_sim.runner import run_episode
    def names(path):
        meta = ort.InferenceSession(str(path)).get_modelmeta().custom_metadata_map
        return set(ast.literal_eval(meta["names"]).values())

    assert "bookshelf" in names(DOZE_DETECTOR)
    assert "bookshelf" not in names(ROOT / "data" / "perception" / "detector.onnx")
    p = PerceptionSettings(backend="onnx", weights=str(DOZE_DETECTOR), namer=str(SHIPPED))
    m = run_episode("doze/level1", "test", 188, "frontier", perception=p)
    assert m["goal"] == "a potted plant in the bookshelf" and m["goal_type"] == "spatial"
    assert m["success"] and m["steps"] <= 20, m
    assert m["perception"]["weights"] == "doze.onnx" and m["perception"]["grounded"] > 0
