"""Dataset files: counts, splits, deterministic generation, validation errors."""
import json

import pytest

from hazard_sim.tasks.hazard.dataset import (
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


def _probe_episodes():
    """The implausible episodes of the robustness issue, each with the words its error must hold."""
    import copy
    import math

    from hazard_sim.tasks.hazard.scenes import build_scene
    fire = json.loads((DATA_DIR / "fire_test.json").read_text())["episodes"][0]
    wind = json.loads((DATA_DIR / "wind_test.json").read_text())["episodes"][0]
    scene = build_scene(fire["scene"])
    wall = next(p for p in scene.solids() if p.kind == "wall")
    furniture = next(p for p in scene.solids() if p.kind == "furniture")
    k = next(i for i, o in enumerate(fire["objects"]) if o["support"] == "floor")
    x, y, z = fire["objects"][k]["position"]

    def m(ep, change):
        ep = copy.deepcopy(ep)
        change(ep)
        return ep

    def obj(**kw):
        return lambda e: e["objects"][k].update(kw)
    in_wall, in_furniture = [float(v) for v in wall.box.center[:2]], [float(v) for v in furniture.box.center[:2]]
    return [
        (m(wind, lambda e: e["wind"].update(speed=math.nan)), "wind.speed is nan"),
        (m(wind, lambda e: e["wind"].update(speed=math.inf)), "wind.speed is inf"),
        (m(wind, lambda e: e["wind"].update(direction=math.nan)), "wind.direction is nan"),
        (m(wind, lambda e: e["wind"].update(speed=500.0)), "wind.speed 500.0"),
        (m(fire, lambda e: e["agent"].update(yaw=math.nan)), "agent.yaw is nan"),
        (m(fire, lambda e: e["fire"]["sources"][0].__setitem__(0, math.nan)), r"fire.sources\[0\]\[0\] is nan"),
        (m(fire, obj(position=[x, y, math.nan])), r"objects\[\d+\].position\[2\] is nan"),
        (m(fire, obj(id=2 ** 31)), "out of range 1000..2147483647"),
        (m(fire, obj(id=2 ** 40)), "out of range"),
        (m(fire, obj(id=1234.0)), "is not an integer"),
        (m(wind, lambda e: e.update(scene=fire["scene"])), "a wind episode needs an outdoor scene"),
        (m(fire, lambda e: e["agent"].update(position=in_wall)), f"agent.position .* inside wall '{wall.name}'"),
        (m(fire, lambda e: e["agent"].update(position=in_furniture)), f"inside furniture '{furniture.name}'"),
        (m(fire, obj(position=[*in_wall, z])), f"inside wall '{wall.name}'"),
        (m(fire, obj(position=[x, y, -1.0])), "below the floor"),
        (m(fire, obj(position=[x, y, 50.0])), r"49.\d\d m above what is under it"),
        (m(fire, lambda e: e["objects"].append(dict(copy.deepcopy(e["objects"][k]), id=5000))), "overlap"),
        (m(fire, lambda e: e["fire"].update(sources=[[100.0, 100.0]])), r"fire.sources\[0\] .* outside scene"),
        (m(fire, lambda e: e["objects"].extend(dict(copy.deepcopy(e["objects"][k]), id=6000 + i)
                                                for i in range(10_000))), "at most 300"),
    ]


def test_implausible_episodes_are_rejected_naming_the_field():
    for ep, words in _probe_episodes():
        with pytest.raises(DatasetError, match=f"^probe: .*{words}"):
            validate_episode(ep, "probe")


def test_every_shipped_episode_is_plausible():
    from hazard_sim.tasks.hazard import episode_checks
    from hazard_sim.tasks.hazard.scenes import build_scene
    for task in ("fire", "flood", "wind"):
        for split in ("train", "test"):
            for i, ep in enumerate(load_dataset(task, split)):   # the loader validates them
                episode_checks.check_plausible(ep, build_scene(ep["scene"]), f"{task}/{split} {i}")


def test_file_structure_errors(tmp_path):
    good = json.loads((DATA_DIR / "fire_test.json").read_text())
    flood = json.loads((DATA_DIR / "flood_test.json").read_text())
    cases = {
        "bare episode": (good["episodes"][0], "a bare episode record"),
        "bad header": (dict(good, format="x"), "unsupported file"),
        "top-level list": ([good["episodes"][0]], "a top-level list"),
        "a number": (42, "a JSON int"),
        "deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        "flood episodes in a fire file": (dict(flood, task="fire"), "task is 'flood' but the file holds fire"),
        "header and name disagree": (dict(good, split="train"), "the header says fire/train, the file name fire/test"),
        "index not its place": ({**good, "episodes": good["episodes"][1:]}, "index is 1, expected 0"),
    }
    for name, (doc, words) in cases.items():
        d = tmp_path / name.replace(" ", "_")
        d.mkdir()
        with pytest.raises(DatasetError, match=words):
            load_dataset("fire", "test", _write(d, doc))


def test_cli_validate_reports_structure_errors_with_exit_1(tmp_path, capsys):
    from hazard_sim.cli import main
    good = json.loads((DATA_DIR / "fire_test.json").read_text())
    files = []
    for name, doc in (("bare.json", good["episodes"][0]), ("header.json", dict(good, version=7)),
                      ("list.json", [1]), ("number.json", 3), ("deep.json", "[" * 50_000 + "]" * 50_000)):
        (tmp_path / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
        files.append(str(tmp_path / name))
        assert main(["dataset", "validate", files[-1]]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"hazard: error: {files[-1]}: ") and "Traceback" not in err
        assert "episodes ok" not in err
    assert main(["dataset", "validate", str(DATA_DIR / "wind_test.json")]) == 0
    assert "25 wind/test episodes ok" in capsys.readouterr().out
    assert main(["dataset", "validate", str(DATA_DIR / "fire_test.json"), *files]) == 1   # every file reported
    captured = capsys.readouterr()
    assert "25 fire/test episodes ok" in captured.out and captured.err.count("hazard: error:") == len(files)
    assert main(["dataset", "validate"]) == 2
