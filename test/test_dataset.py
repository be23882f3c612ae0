"""Dataset files: counts, splits, deterministic generation, validation errors."""
import json

import pytest

from hazard_sim.dataset import (
    DATA_DIR,
    DatasetError,
    generate_dataset,
    load_dataset,
    load_episode,
    scenes_for,
    validate_episode,
)


@pytest.mark.parametrize("task", ["fire", "flood", "wind"])
def test_25_scenes_per_room_split_3_to_1(task):
    train, test = load_dataset(task, "train"), load_dataset(task, "test")
    assert len(train) == 75 and len(test) == 25
    assert {e["scene"] for e in train} == set(scenes_for(task, "train"))
    assert {e["scene"] for e in test} == set(scenes_for(task, "test"))
    assert not {e["scene"] for e in train} & {e["scene"] for e in test}


def test_paper_episode_statistics():
    fire = load_dataset("fire", "train") + load_dataset("fire", "test")
    counts = [sum(o["category"] in e["target_categories"] for o in e["objects"]) for e in fire]
    assert all(len(e["target_categories"]) == 4 for e in fire)
    assert min(counts) >= 4 and max(counts) <= 29 and 8 <= sum(counts) / len(counts) <= 12
    assert all(1 <= len(e["fire"]["sources"]) <= 3 for e in fire)
    wind = load_dataset("wind", "test")
    assert all(sum(o["category"] in e["target_categories"] for o in e["objects"]) == 15 for e in wind)


@pytest.mark.parametrize("task,split", [("fire", "test"), ("wind", "train")])
def test_generation_is_deterministic_and_matches_committed_files(task, split):
    doc = generate_dataset(task, split)
    committed = json.loads((DATA_DIR / f"{task}_{split}.json").read_text())
    assert doc == committed


def _write(tmp_path, doc, name="fire_test.json"):
    (tmp_path / name).write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return tmp_path


def test_malformed_files_give_clear_errors(tmp_path):
    with pytest.raises(DatasetError, match="missing"):
        load_dataset("fire", "test", tmp_path)
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_dataset("fire", "test", _write(tmp_path, "{oops"))
    good = json.loads((DATA_DIR / "fire_test.json").read_text())
    bad = dict(good, version=99)
    with pytest.raises(DatasetError, match="99"):
        load_dataset("fire", "test", _write(tmp_path, bad))
    ep = json.loads(json.dumps(good["episodes"][0]))
    ep["objects"][0]["category"] = "unicorn"
    with pytest.raises(DatasetError, match="unknown object category 'unicorn'"):
        validate_episode(ep)
    ep = json.loads(json.dumps(good["episodes"][0]))
    ep["objects"][0]["position"] = [100.0, 0.0, 0.1]
    with pytest.raises(DatasetError, match="outside scene"):
        validate_episode(ep)
    ep = json.loads(json.dumps(good["episodes"][0]))
    del ep["fire"]
    with pytest.raises(DatasetError, match="needs a 'fire' section"):
        validate_episode(ep)
    ep = json.loads(json.dumps(good["episodes"][0]))
    ep["objects"][0]["position"] = [1.0, 2.0]
    with pytest.raises(DatasetError, match="position"):
        validate_episode(ep)


def test_episode_out_of_range_and_unknown_task():
    with pytest.raises(IndexError, match="out of range"):
        load_episode("fire", "test", 25)
    with pytest.raises(ValueError, match="unknown task"):
        load_dataset("lava", "test")
    with pytest.raises(ValueError, match="unknown split"):
        load_dataset("fire", "val")
