"""Every numeric flag of the perception subcommands is checked as ``run`` / ``bench`` check theirs:
a value no command can use (0 px frames, a negative or NaN scale, a limit of -1, a NaN size or
score) ends in argparse's one line naming the option, exit code 2, and nothing written."""
from __future__ import annotations

import pytest

from hazard_sim.cli import main

BAD = [
    ("dataset", "--imgsz", "0"), ("dataset", "--imgsz", "100000"), ("dataset", "--scale", "-1"),
    ("dataset", "--scale", "nan"), ("dataset", "--scale", "0"), ("dataset", "--workers", "0"),
    ("dataset", "--seed", "-3"),
    ("train", "--epochs", "0"), ("train", "--imgsz", "-32"), ("train", "--batch", "0"), ("train", "--patience", "-1"),
    ("export", "--imgsz", "0"), ("export", "--opset", "99"), ("ship", "--imgsz", "0"),
    ("eval", "--limit", "-1"), ("eval", "--limit", "0"), ("eval", "--min-size", "nan"), ("eval", "--min-size", "inf"),
    ("eval", "--min-pixels", "-5"),
    ("failures", "--score", "nan"), ("failures", "--score", "1.5"), ("failures", "--limit", "-1"),
    ("failures", "--scale", "0"), ("failures", "--small-px", "-1"), ("failures", "--per-condition", "0"),
    ("namer-dataset", "--imgsz", "0"), ("namer-dataset", "--per-kind", "0"), ("namer-dataset", "--houses", "-1"),
    ("namer-eval", "--score", "nan"), ("namer-eval", "--limit", "-1"), ("namer-eval", "--min-score", "-0.1"),
    ("namer-train", "--lr", "nan"), ("namer-train", "--lr", "0"), ("namer-train", "--size", "0"),
    ("namer-train", "--epochs", "-1"), ("namer-train", "--goal-min-score", "2"),
]


@pytest.mark.parametrize("sub,flag,value", BAD)
def test_a_bad_numeric_flag_is_one_line_and_exit_2(sub, flag, value, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["perception", sub, flag, value])
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert f"argument {flag}:" in err and ("must be in" in err or "expected" in err), err
    assert "Traceback" not in err
    assert not list(tmp_path.iterdir()), "something was written"          # no partial output folder
