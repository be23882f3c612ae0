"""Issue 18, episode files: the DOZE and ESAR probes that passed validation and then broke a run
(cases 6-11), one ``hazard dataset validate`` for every benchmark's files (12), and the dataset
fingerprint in every benchmark's sweep key (2)."""
from __future__ import annotations

import copy
import gzip
import json
import shutil
from pathlib import Path

import pytest

from hazard_sim.core.env import EmbodiedEnv
from hazard_sim.core.spec import get_spec
from hazard_sim.render.camera import CameraSpec
from hazard_sim.tasks.doze import dataset as doze_ds
from hazard_sim.tasks.esar import scenario
from hazard_sim.validation import DatasetError

CAM = CameraSpec(width=16, height=16)
NAN, INF = float("nan"), float("inf")
ESAR_FILE = scenario.DATA_DIR / scenario.FILE_NAME
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "hazard" / "v1"     # HAZARD's episode files


def _doze_episode():
    return doze_ds.load(2, "test", 0)


@pytest.mark.parametrize("field, value, words", [
    ("initial_horizon", NAN, "initial_horizon is nan, not a finite number"),
    ("initial_horizon", INF, "initial_horizon is inf"),
    ("initial_horizon", 500.0, r"initial_horizon 500 is out of range \[-90, 90\]"),
    ("initial_orientation", NAN, "initial_orientation is nan"),
    ("initial_orientation", -INF, "initial_orientation is -inf"),
    ("index", -1, r"index -1 is out of range 0..2147483647"),
    ("index", 1.5, "index must be an integer"),
    ("shortest_path_length", INF, "shortest_path_length is inf"),
    ("shortest_path_length", 0.0, "shortest_path_length must be > 0"),
    ("people", 10_000, r"people 10000 is out of range 0..50"),
    ("people", 1e9, "people must be an integer"),
    ("level", 1, "level is 1: a level 1 episode given to doze/level2"),
    ("initial_position", [3.75, 2.15, 1e308], r"initial_position\[2\] \(height\) 1e\+308 is out of range"),
    ("goal_ids", [True], r"goal_ids\[0\] must be an integer"),
    ("shortest_path", [[1e308, 0.0]], r"shortest_path\[0\] .* lies outside scene"),
])
def test_doze_episode_probes_are_rejected_naming_the_field(field, value, words):
    spec = get_spec("doze/level2")
    ep = _doze_episode() | {field: value}
    with pytest.raises(DatasetError, match=f"^episode_spec: {words}"):
        EmbodiedEnv(spec, episode_spec=ep, camera=CAM).reset()


def test_a_doze_file_of_another_level_is_refused(tmp_path):
    """Case 7: a level-1 file saved under the level-2 name, and a level-1 episode in a level-2 file."""
    shutil.copy(doze_ds.file_for(1, "test"), tmp_path / "level2_test.json.gz")
    with pytest.raises(DatasetError, match="the header says doze/level1, but it is loaded as doze/level2"):
        EmbodiedEnv("doze/level2", dataset_root=tmp_path, camera=CAM).reset()
    doc = json.loads(gzip.decompress(doze_ds.file_for(2, "test").read_bytes()))
    doc["episodes"][3]["level"] = 1
    (tmp_path / "level2_test.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    with pytest.raises(DatasetError, match="level2_test.json.gz episode 3: level is 1: a level 1 episode"):
        EmbodiedEnv("doze/level2", dataset_root=tmp_path, camera=CAM).reset()


def _esar(mutate):
    data = json.loads(ESAR_FILE.read_text())
    mutate(data)
    return data


def _snap(d):
    return d["events"][0]["snapshots"][0]


ESAR_PROBES = {   # case: (mutation, words of the message)
    "no event key": (lambda d: d["events"][0].pop("event"), "event 0: missing field 'event'"),
    "no snapshots": (lambda d: d["events"][0].pop("snapshots"), "event 0: missing field 'snapshots'"),
    "victim a list": (lambda d: _snap(d)["victims"].__setitem__(0, [1, 2, 3]), r"victims\[0\] must be a JSON object"),
    "clue a string": (lambda d: _snap(d)["clues"].__setitem__(0, "tent"), r"clues\[0\] must be a JSON object"),
    "snapshot a string": (lambda d: d["events"][0]["snapshots"].__setitem__(0, "s"), "a snapshot must be a JSON"),
    "no clues": (lambda d: _snap(d).pop("clues"), "snapshot 0: missing field 'clues'"),
    "no lkp": (lambda d: d["events"][0].pop("lkp"), "event 0: missing field 'lkp'"),
    "no story": (lambda d: d["events"][0].pop("story"), "event 0: missing field 'story'"),
    "start at -5000": (lambda d: d["tasks"][0].__setitem__("start", [-5000, -5000, 100, 0]), "lies outside"),
    "start x 1e308": (lambda d: d["tasks"][0]["start"].__setitem__(0, 1e308), "lies outside the alpine map"),
    "start x -1e308": (lambda d: d["tasks"][0]["start"].__setitem__(0, -1e308), "lies outside the alpine map"),
    "start z 1e308": (lambda d: d["tasks"][0]["start"].__setitem__(2, 1e308), "above the alpine map's ceiling"),
    "start 1000 km up": (lambda d: d["tasks"][0]["start"].__setitem__(2, 1e6), "above the alpine map's ceiling"),
    "start below the terrain": (lambda d: d["tasks"][0]["start"].__setitem__(2, 0.0), "not clear of the ground"),
    "wind 1e308": (lambda d: d["tasks"][0].__setitem__("wind_speed", 1e308), r"wind_speed 1e\+308 is out of range"),
    "victim outside": (lambda d: _snap(d)["victims"][0].__setitem__("position", [-100, 5, 1000]), "lies outside"),
    "clue 5 km under": (lambda d: _snap(d)["clues"][0]["position"].__setitem__(2, -5000), "m off the ground"),
    "clue at 1e308": (lambda d: _snap(d)["clues"][0]["position"].__setitem__(1, 1e308), "lies outside"),
    "clue class a list": (lambda d: _snap(d)["clues"][0].__setitem__("class", ["tent"]), r"clues\[0\].class must be"),
}


@pytest.mark.parametrize("case", sorted(ESAR_PROBES))
def test_esar_probes_are_reported_naming_event_task_and_field(case, tmp_path, capsys):
    from hazard_sim.tasks.esar.make_dataset import main
    mutate, words = ESAR_PROBES[case]
    path = tmp_path / scenario.FILE_NAME
    path.write_text(json.dumps(_esar(mutate)))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err
    with pytest.raises(DatasetError, match=words):
        EmbodiedEnv("esar", dataset_root=tmp_path, camera=CAM).reset()


def test_esar_validator_reports_files_it_cannot_read(tmp_path, capsys):
    from hazard_sim.tasks.esar.make_dataset import main
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "esar.json.gz").write_bytes(gzip.compress(ESAR_FILE.read_bytes()))    # a gzip is read as one
    (tmp_path / "list.json").write_text("[1]")
    files = [str(tmp_path / n) for n in ("deep.json", "esar.json.gz", "list.json", "missing.json")] + ["/dev/null"]
    assert main(["validate", *files]) == 1
    out, err = capsys.readouterr()
    assert "esar.json.gz: ESAR dataset ok: 12 events, 600 tasks" in out
    lines = err.strip().splitlines()
    assert len(lines) == 4 and "Traceback" not in err
    assert "nested too deeply" in lines[0] and "top-level list" in lines[1]
    assert "cannot read" in lines[2] and "not a regular file" in lines[3]


def test_one_validate_command_for_every_benchmarks_files(tmp_path, capsys):
    from hazard_sim.cli import main
    good = [str(doze_ds.file_for(2, "test")), str(ESAR_FILE), str(DATA_DIR / "fire_test.json")]
    assert main(["dataset", "validate", *good]) == 0
    out = capsys.readouterr().out
    assert "624 doze/level2/test episodes ok" in out and "ESAR dataset ok" in out and "25 fire/test episodes ok" in out
    doc = json.loads(gzip.decompress(doze_ds.file_for(2, "test").read_bytes()))
    doc["episodes"][5]["initial_horizon"] = 1e308
    (tmp_path / "level2_test.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    (tmp_path / scenario.FILE_NAME).write_text(json.dumps(_esar(lambda d: d["tasks"][4].pop("start"))))
    bad = [str(tmp_path / "level2_test.json.gz"), str(tmp_path / scenario.FILE_NAME)]
    assert main(["dataset", "validate", *bad, *good]) == 1
    out, err = capsys.readouterr()
    assert err.count("hazard: error:") == 2 and "Traceback" not in err
    assert "level2_test.json.gz episode 5: initial_horizon 1e+308 is out of range" in err
    assert "esar_v1.json task 4: missing field 'start'" in err
    assert out.count(" ok") == 3


def test_doze_dataset_validate_reports_a_bad_directory_in_one_line(tmp_path, capsys):
    assert doze_ds.main(["validate", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("no DOZE episode file") == 6 and "Traceback" not in err


def _copy_dataset(benchmark, root, change: bool):
    """The benchmark's test file copied under ``root`` (one number changed if ``change``)."""
    root.mkdir()
    if benchmark.startswith("doze"):
        doc = json.loads(gzip.decompress(doze_ds.file_for(2, "test").read_bytes()))
        doc["episodes"][0]["shortest_path_length"] += 0.5 * change
        (root / "level2_test.json.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    elif benchmark == "esar":
        doc = json.loads(ESAR_FILE.read_text())
        doc["tasks"][0]["time_of_day"] = 12.0 if change else doc["tasks"][0]["time_of_day"]
        (root / scenario.FILE_NAME).write_text(json.dumps(doc))
    else:
        doc = json.loads((DATA_DIR / "fire_test.json").read_text())
        doc["episodes"][0]["agent"]["yaw"] += 0.1 * change
        (root / "fire_test.json").write_text(json.dumps(doc, indent=1))


@pytest.mark.parametrize("benchmark", ["hazard/fire", "doze/level2", "esar"])
def test_every_benchmarks_sweep_key_has_the_dataset_fingerprint(benchmark, tmp_path):
    """Case 2: results of dataset_root A are never reused for dataset_root B."""
    from hazard_sim.runner import sweep_config
    _copy_dataset(benchmark, tmp_path / "a", False)
    _copy_dataset(benchmark, tmp_path / "b", True)
    keys = [sweep_config(benchmark, "test", 0, "random", dataset_root=tmp_path / r)["dataset"] for r in "ab"]
    assert keys[0] and keys[1] and keys[0] != keys[1]
    assert keys[0] == sweep_config(benchmark, "test", 0, "random", dataset_root=tmp_path / "a")["dataset"]


def test_shipped_doze_and_esar_files_validate():
    for level in (1, 2, 3):          # (the train splits: `hazard dataset validate data/doze/v1/*`)
        assert doze_ds.count(level, "test") == 624
    data = scenario.check_file(ESAR_FILE)
    assert len(data["tasks"]) == 600 and copy.deepcopy(data) == json.loads(ESAR_FILE.read_text())
