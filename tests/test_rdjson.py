"""``-f rdjson``: reviewdog's Diagnostic Format, validated against reviewdog's published JSON
schema, with byte columns, rule codes, related locations and fixes as suggestions.

``tests/data/reviewdog-DiagnosticResult.json`` is reviewdog's
``proto/rdf/jsonschema/DiagnosticResult.json`` (MIT licence), as published at
https://github.com/reviewdog/reviewdog/blob/6c307503194f0f32bf1956c7fcd2877636338db6/proto/rdf/jsonschema/DiagnosticResult.json
(the schema was last changed in commit 34a54e5b85daba36f973c910b1a6df937ebf37bc).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reslint.engine.filepass import apply_edits
from tests.test_cli import run

HERE = Path(__file__).resolve().parent
CASES = HERE / "fixtures" / "cases"
SCHEMA = HERE / "data" / "reviewdog-DiagnosticResult.json"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@pytest.fixture(autouse=True)
def _cache_outside(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        rdjson = run(["--isolated", "-f", "rdjson", "."], CASES)
        plain = run(["--isolated", "-f", "json", "."], CASES)
    assert rdjson.exit_code == 1
    return json.loads(rdjson.stdout), json.loads(plain.stdout)


def validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_the_shared_cases_validate_against_reviewdogs_schema(cases):
    result, plain = cases
    errors = sorted(validator().iter_errors(result), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    assert result["source"] == {"name": "reslint", "url": "https://github.com/reslint/reslint"}
    assert len(result["diagnostics"]) == len(plain) > 20
    # the schema is strict where it says something: it does reject a wrong severity or line
    bad = json.loads(json.dumps(result))
    bad["diagnostics"][0]["severity"] = "error"
    bad["diagnostics"][1]["location"]["range"]["start"]["line"] = "5"
    assert {e.validator for e in validator().iter_errors(bad)} >= {"enum", "type"}


def test_each_diagnostic_carries_the_finding(cases):
    result, plain = cases
    for diagnostic, finding in zip(result["diagnostics"], plain):
        assert diagnostic["message"] == finding["message"]
        assert diagnostic["location"]["path"] == finding["filename"]
        assert diagnostic["location"]["range"]["start"]["line"] == finding["location"]["row"]
        assert diagnostic["location"]["range"]["end"]["line"] == finding["end_location"]["row"]
        assert diagnostic["severity"] == {"error": "ERROR", "warning": "WARNING"}[finding["severity"]]
        assert diagnostic["code"] == {"value": finding["code"], "url": finding["url"]}
        assert len(diagnostic.get("related_locations", [])) == len(finding["related"])
    assert any(d.get("related_locations") for d in result["diagnostics"])


def test_suggestions_are_the_fixes_on_the_findings_lines(cases):
    """Replacing the suggestion's lines with its text gives what applying the fix gives."""
    result, plain = cases
    suggested = 0
    for diagnostic, finding in zip(result["diagnostics"], plain):
        if "suggestions" not in diagnostic:
            continue
        suggested += 1
        (suggestion,) = diagnostic["suggestions"]
        first, last = suggestion["range"]["start"]["line"], suggestion["range"]["end"]["line"]
        assert set(suggestion["range"]["start"]) == {"line"}  # line-wise: reviewdog's GitHub reporter
        assert first == finding["location"]["row"]
        text = (CASES / finding["filename"]).read_text(encoding="utf-8")
        lines = _LINE.findall(text)
        edits = [_edit(text, e) for e in finding["fix"]["edits"]]
        fixed = _LINE.findall(apply_edits(text, edits))
        ending = lines[last - 1][len(lines[last - 1].rstrip("\r\n")):]
        replaced = lines[:first - 1] + _LINE.findall(suggestion["text"] + ending) + lines[last:]
        assert "".join(replaced) == "".join(fixed), finding
    assert suggested > 10
    # a fix that edits another line (an import at the top) is not a suggestion
    elsewhere = [f for f in plain if f["fix"] and any(
        not f["location"]["row"] <= e["location"]["row"] <= f["end_location"]["row"] for e in f["fix"]["edits"])]
    assert elsewhere
    by_place = {(d["location"]["path"], d["location"]["range"]["start"]["line"], d["code"]["value"]): d
                for d in result["diagnostics"]}
    for finding in elsewhere:
        assert "suggestions" not in by_place[(finding["filename"], finding["location"]["row"], finding["code"])]


def _edit(text, edit):
    from reslint.diagnostics import Edit, Location

    lines = _LINE.findall(text)

    def offset(loc):
        return sum(len(x) for x in lines[:loc["row"] - 1]) + loc["column"] - 1

    return Edit(offset(edit["location"]), offset(edit["end_location"]), edit["content"],
                Location(edit["location"]["row"], edit["location"]["column"]),
                Location(edit["end_location"]["row"], edit["end_location"]["column"]))


def test_columns_are_utf8_bytes_and_related_locations_point_at_the_other_layer(tmp_path):
    (tmp_path / "app.py").write_text(
        "import requests\n\n\ndef load(url):\n    return requests.get(\"ünï\" + url)\n", encoding="utf-8")
    (tmp_path / "client.py").write_text(
        "import requests\nfrom tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, "
        "wait_random_exponential\n\nT = (requests.ConnectionError, requests.Timeout)\n\n\n"
        "@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30),\n"
        "       wait=wait_random_exponential(max=5), reraise=True)\ndef fetch(url):\n"
        "    return requests.get(url, timeout=5).json()\n", encoding="utf-8")
    (tmp_path / "service.py").write_text(
        "import backoff\n\nfrom client import T, fetch\n\n\n"
        "@backoff.on_exception(backoff.expo, T, max_tries=4, max_time=60)\ndef stock(sku):\n"
        "    return fetch(sku)\n", encoding="utf-8")
    result = json.loads(run(["--isolated", "-f", "rdjson", "."], tmp_path).stdout)
    assert not list(validator().iter_errors(result))
    timeout, nested = result["diagnostics"]
    # `    return requests.get("ünï" + url)`: the call starts at character and byte 12; its
    # exclusive end, character 37, is byte 39 (ü and ï take two bytes each)
    assert timeout["location"]["range"] == {"start": {"line": 5, "column": 12}, "end": {"line": 5, "column": 39}}
    assert timeout["severity"] == "ERROR" and timeout["code"]["value"] == "RES101"
    assert timeout["suggestions"] == [{"range": {"start": {"line": 5}, "end": {"line": 5}},
                                       "text": "    return requests.get(\"ünï\" + url, timeout=10)"}]
    assert nested["code"]["value"] == "RES301" and nested["location"]["path"] == "service.py"
    assert [(r["location"]["path"], r["location"]["range"]["start"]["line"])
            for r in nested["related_locations"]] == [("service.py", 6), ("client.py", 7)]


def test_rdjson_with_nothing_found(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    result = run(["--isolated", "-f", "rdjson", "ok.py"], tmp_path)
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"source": {"name": "reslint", "url": "https://github.com/reslint/reslint"},
                                         "diagnostics": []}
