"""The judged-sample tool: finding identities survive moved lines, verdicts carry over, the table counts."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "judged_sample.py"


@pytest.fixture
def tool(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("judged_sample", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path / "judged")
    return module


def _repo(tmp_path: Path, text: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "app.py").write_text(text, encoding="utf-8")
    return repo


def test_verdicts_survive_a_moved_line_and_the_table_counts_them(tool, tmp_path, capsys):
    repo = _repo(tmp_path, "import requests\n\nrequests.get('https://a')\nrequests.get('https://b')\n")
    tool.main(["collect", str(repo), "--name", "o/r", "--commit", "c" * 40])
    path = tmp_path / "judged" / "o+r.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["file"], r["row"], r["code"]) for r in rows] == [("app.py", 3, "RES101"), ("app.py", 4, "RES101")]
    rows[0]["verdict"], rows[0]["reason"] = "true", "a real call without a timeout"
    rows[1]["verdict"], rows[1]["reason"] = "false", "for the test"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    _repo(tmp_path, "import requests\n\n\n\nrequests.get('https://a')\nrequests.get('https://c')\n")
    tool.main(["collect", str(repo), "--name", "o/r", "--commit", "d" * 40])
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["row"], r["verdict"], r["reported"]) for r in rows] == [
        (5, "true", True), (6, None, True), (4, "false", False)]  # moved: kept; new: open; gone: kept, marked
    assert "1 with earlier verdicts, 1 to judge, 1 judged findings no longer reported" in capsys.readouterr().out

    tool.main(["score"])
    readme = (tmp_path / "judged" / "README.md").read_text()
    assert "| RES101 | 2 | 1 | 0 | 1 | 1.00 |" in readme
    assert "no longer reported (1: 1 false, 0 true)" in readme and "app.py:4` RES101 (false): for the test" in readme
    tool.main(["score"])  # the generated section is replaced, not appended
    assert (tmp_path / "judged" / "README.md").read_text().count("judged-table: begin") == 1


def test_apply_merges_a_reviewers_verdicts_and_refuses_unknown_ids(tool, tmp_path, capsys):
    repo = _repo(tmp_path, "import requests\n\nrequests.get('https://a')\nrequests.get('https://b')\n")
    tool.main(["collect", str(repo), "--name", "o/r", "--commit", "c" * 40])
    path = tmp_path / "judged" / "o+r.jsonl"
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"id": ids[1], "verdict": "false", "reason": "a local stub"}) + "\n")
    tool.main(["apply", str(verdicts), "--name", "o/r"])
    assert "1 verdicts applied, 1 findings left to judge" in capsys.readouterr().out
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r.get("verdict"), r.get("reason")) for r in rows] == [(None, None), ("false", "a local stub")]
    verdicts.write_text(json.dumps({"id": "nope", "verdict": "true", "reason": "x"}) + "\n")
    with pytest.raises(SystemExit, match="bad or unknown verdict line"):
        tool.main(["apply", str(verdicts), "--name", "o/r"])
    verdicts.write_text(json.dumps({"id": ids[0], "verdict": "maybe", "reason": "x"}) + "\n")
    with pytest.raises(SystemExit, match="bad or unknown verdict line"):
        tool.main(["apply", str(verdicts), "--name", "o/r"])


def test_a_repeated_line_keeps_the_verdict_of_its_own_row_when_an_earlier_copy_goes(tool, tmp_path):
    line = "requests.get(URL)\n"
    repo = _repo(tmp_path, "import requests\n\nURL = 'https://a'\n" + line + line)
    tool.main(["collect", str(repo), "--name", "o/r", "--commit", "c" * 40])
    path = tmp_path / "judged" / "o+r.jsonl"
    rows = [json.loads(text) for text in path.read_text().splitlines()]
    assert [r["row"] for r in rows] == [4, 5]
    rows[0]["verdict"], rows[0]["reason"] = "false", "the first copy"
    rows[1]["verdict"], rows[1]["reason"] = "true", "the second copy"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    _repo(tmp_path, "import requests\n\nURL = 'https://a'\nrequests.get(URL, timeout=5)\n" + line)
    tool.main(["collect", str(repo), "--name", "o/r", "--commit", "c" * 40])
    rows = [json.loads(text) for text in path.read_text().splitlines()]
    assert [(r["row"], r["verdict"], r["reported"]) for r in rows] == [(5, "true", True), (4, "false", False)]


def test_apply_gives_a_verdict_to_the_reported_finding_not_to_a_gone_copy_of_its_identity(tool, tmp_path):
    # a judged finding that stopped being reported keeps its record; a later finding on the same
    # line text may take its identity (seen in the sample: five such pairs)
    path = tmp_path / "judged" / "o+r.jsonl"
    path.parent.mkdir()
    same = "app.py::RES101::requests.get(URL)::1"
    path.write_text(json.dumps({"id": same, "file": "app.py", "row": 5, "code": "RES101", "reported": True}) + "\n" +
                    json.dumps({"id": same, "file": "app.py", "row": 4, "code": "RES101", "reported": False,
                                "verdict": "false", "reason": "the first copy"}) + "\n")
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"id": same, "verdict": "true", "reason": "the second copy"}) + "\n")
    tool.main(["apply", str(verdicts), "--name", "o/r"])
    rows = [json.loads(text) for text in path.read_text().splitlines()]
    assert [(r["row"], r["verdict"], r["reported"]) for r in rows] == [(5, "true", True), (4, "false", False)]
