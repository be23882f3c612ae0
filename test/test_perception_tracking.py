"""Stable ids for detector instances (Tracker), the task in a detector's words (vocabulary) and
the ground-truth track's minimum-size rule (clear_small): hand-computed cases."""
import numpy as np
import pytest

from hazard_sim.perception.embedded import clear_small
from hazard_sim.perception.instances import Instance
from hazard_sim.perception.tracking import Tracker
from hazard_sim.perception.vocabulary import class_for, labels_in_vocabulary, task_in_vocabulary


def inst(label, x, y, extent=0.4):
    i = Instance(label=label, score=0.9, cx=0, cy=0, w=2, h=2)
    i.position, i.extent = np.array([x, y, 0.5]), np.array([extent, extent, extent])
    return i


def test_tracker_keeps_ids_by_label_and_position():
    t = Tracker(gate_m=0.75)
    assert t.assign([inst("valuable", 0, 0), inst("object", 0, 0), inst("valuable", 3, 0)], 1) == [1, 2, 3]
    # frame 2: the first moved 0.5 m (within the gate), the third 1.0 m (beyond: a new object),
    # a detection without a position gets no id
    far = Instance(label="object", score=0.5, cx=0, cy=0, w=2, h=2)
    assert t.assign([inst("valuable", 0.5, 0), inst("valuable", 4.0, 0), far], 2) == [1, 4, None]
    assert t.tracks[1].position[0] == 0.5 and t.tracks[1].hits == 2 and t.tracks[1].last_frame == 2
    assert t.labels() == {1: "valuable", 2: "object", 3: "valuable", 4: "valuable"}


def test_tracker_gate_grows_with_size_and_pairs_nearest_first():
    t = Tracker(gate_m=0.5)
    t.assign([inst("object", 0, 0, extent=3.0)], 0)          # a 3 m object: gate 1.5 m
    assert t.assign([inst("object", 1.4, 0, extent=3.0)], 1) == [1]
    t2 = Tracker(gate_m=1.0)
    t2.assign([inst("person", 0, 0), inst("person", 1.0, 0)], 0)
    # two detections near both tracks: nearest pairs first, each track once
    assert t2.assign([inst("person", 0.9, 0), inst("person", 0.1, 0)], 1) == [2, 1]
    with pytest.raises(ValueError):
        Tracker(gate_m=0)


def test_task_targets_in_the_detector_vocabulary():
    task = {"benchmark": "hazard/fire", "containers": {3: "cart_0"},
            "targets": [{"category": "laptop", "value": 5}, {"category": "purse", "value": 5},
                        {"category": "book", "value": 1}]}
    vocab = ["person", "fire", "valuable", "object", "clue"]
    assert class_for(task, "laptop") == "valuable" and class_for(task, "book") == "object"
    out, rep = task_in_vocabulary(task, vocab)
    assert out["targets"] == [{"category": "valuable", "value": 5}, {"category": "object", "value": 1}]
    assert rep["mapped"] == {"laptop": "valuable", "purse": "valuable", "book": "object"}
    assert rep["merged"] == {"valuable": ["laptop", "purse"]} and rep["unmapped"] == []
    assert task["targets"][0]["category"] == "laptop"                     # the input is untouched
    assert task_in_vocabulary(task, None)[0] is task
    # a declared map wins; a label with no class in the vocabulary stays and is reported
    declared = dict(task, detector_classes={"book": "fire"}, targets=[{"category": "book", "value": 1},
                                                                       {"category": "unicorn", "value": 1}])
    out, rep = task_in_vocabulary(declared, vocab)
    assert [t["category"] for t in out["targets"]] == ["fire", "unicorn"] and rep["unmapped"] == ["unicorn"]
    # the perception node's class list: cart has no class, DOZE's goal kind becomes "object"
    assert labels_in_vocabulary(["laptop", "book", "cart"], set(vocab), task) == ["valuable", "object", "cart"]
    assert labels_in_vocabulary(["watering can"], set(vocab), {"benchmark": "doze/level1"}) == ["object"]


def test_clear_small_clears_only_small_labelled_instances():
    seg = np.array([[1, 1, 1, 2],
                    [0, 3, 3, 900],
                    [0, 0, 0, 0]], np.int32)
    labels = {1: "a", 2: "b", 3: "c"}                     # 900 (a flame) is not labelled
    out = clear_small(seg, labels, 3)
    assert out.tolist() == [[1, 1, 1, 0], [0, 0, 0, 900], [0, 0, 0, 0]]
    assert clear_small(seg, labels, 1) is seg and clear_small(seg, {}, 3) is seg
    assert clear_small(seg, labels, 3, negate=True).tolist() == [[1, 1, 1, -2], [0, -3, -3, 900], [0, 0, 0, 0]]
    assert clear_small(seg, {"2": "b"}, 2).tolist() == [[1, 1, 1, 0], [0, 3, 3, 900], [0, 0, 0, 0]]
