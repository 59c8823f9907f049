"""The training curve file grows run by run: an earlier curve's points, logs and notes are carried
over, each row names the code it was measured at, and a call with no point is refused."""

from __future__ import annotations

import json

from bench.training_curve import main


def _results(path, commit: str, click_fused: float) -> str:
    modes = {m: {"all": {"mrr_at_10": v, "hits_at_10": 1.0, "leaks": 0, "wrong_version": 0}}
             for m, v in (("fused", click_fused), ("dense", 0.5), ("lexical", 0.4))}
    doc = {"meta": {"model": "m", "commit": commit}, "repos": {"click": {"modes": modes}, "cobra": {"modes": modes}}}
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_earlier_curve_is_carried_over_and_each_row_names_its_commit(tmp_path, capsys):
    log = tmp_path / "fit-log.json"
    log.write_text(json.dumps({"steps": 143, "seconds": 1330.0, "history": [{"step": 20, "loss": 0.7}]}))
    first = tmp_path / "first"
    assert main(["--point", f"run a:143:{_results(tmp_path / 'a.json', 'aaa1111', 0.75)}", "--log", f"run a:{log}",
                 "--note", "first round", "--out", str(first)]) == 0
    assert main(["--include", str(first.with_suffix(".json")),
                 "--point", f"run b:96:{_results(tmp_path / 'b.json', 'bbb2222', 0.7)}",
                 "--note", "second round", "--out", str(tmp_path / "both")]) == 0
    text = (tmp_path / "both.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith(("| run a", "| run b"))]
    assert rows == ["| run a | 143 | 0.750 | 0.500 | 0.750 | 0.500 | 0 | 0 | aaa1111 |",
                    "| run b | 96 | 0.700 | 0.500 | 0.700 | 0.500 | 0 | 0 | bbb2222 |"]
    assert "run a: 143 steps in 1330 s" in text and text.index("first round") < text.index("second round")
    doc = json.loads((tmp_path / "both.json").read_text())
    assert [p["run"] for p in doc["points"]] == ["run a", "run b"] and list(doc["fit_logs"]) == ["run a"]


def test_no_point_is_refused(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "empty")]) == 2
    assert "no point given" in capsys.readouterr().err
    assert not (tmp_path / "empty.md").exists()
