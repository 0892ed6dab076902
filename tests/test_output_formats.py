"""The machine output formats: SARIF (validated against the official 2.1.0 schema),
JUnit XML, JSON Lines, GitLab Code Quality, GitHub annotations; ``--output-file`` for
every format; colour from ``--color``, ``NO_COLOR`` and ``FORCE_COLOR``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reslint import registry
from reslint.cli import _use_color
from reslint.engine.filepass import apply_edits
from reslint.output import FORMATS
from tests.test_cli import MISSING, run

HERE = Path(__file__).resolve().parent
CASES = HERE / "fixtures" / "cases"
SCHEMA = HERE / "data" / "sarif-schema-2.1.0.json"
IMPLEMENTED = [r for r in registry.RULES if r.implemented]

#: Two faults of the same kind on identical lines (the occurrence counter), one other
#: fault, a multi-line call, and a warning-severity rule (RES103).
SERVICE = """\
import requests


def a(url):
    return requests.get(url).json()


def b(url):
    return requests.get(url).json()


def c(url):
    requests.post(
        url,
        json={},
    )
    return requests.get(url, timeout=600)
"""


@pytest.fixture(autouse=True)
def _no_cache_in_the_fixtures(tmp_path_factory, monkeypatch):
    """The command line caches in the project root by default: keep it out of tests/fixtures."""
    monkeypatch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def sarif_of(args, cwd):
    result = run(["-f", "sarif", *args], cwd)
    return json.loads(result.output)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[:line - 1]) + column - 1


# -- SARIF --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cases_sarif(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        result = run(["--isolated", "-f", "sarif", "."], CASES)
    assert result.exit_code == 1
    return json.loads(result.output)


def test_sarif_of_the_shared_cases_validates_against_the_schema(cases_sarif):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(cases_sarif), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    assert cases_sarif["version"] == "2.1.0"
    assert len(cases_sarif["runs"][0]["results"]) > 20
    # jsonschema checks the "uri" format only with an optional package: check URI characters here
    uris = list(_uris(cases_sarif))
    assert len(uris) > 20
    for uri in uris:
        assert URI_CHARS.match(uri), uri


URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")


def _uris(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("uri", "helpUri", "informationUri", "$schema") and isinstance(value, str):
                yield value
            else:
                yield from _uris(value)
    elif isinstance(node, list):
        for item in node:
            yield from _uris(item)


def test_sarif_driver_rules_carry_the_rule_book(cases_sarif):
    driver = cases_sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "reslint" and driver["version"] and driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == [r.code for r in IMPLEMENTED]
    for descriptor, info in zip(driver["rules"], IMPLEMENTED):
        assert descriptor["name"] == info.name
        assert descriptor["shortDescription"]["text"].startswith(info.summary)
        assert descriptor["helpUri"] == registry.docs_url(info.code)
        assert descriptor["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning"}[info.severity]
        assert 0 < len(descriptor["fullDescription"]["text"]) <= 1000
        if info.code == "RES101":  # a rule with a page: the page is the help
            assert descriptor["help"]["markdown"].startswith("# missing-timeout (RES101)")
            assert descriptor["help"]["text"] == descriptor["help"]["markdown"]
            assert descriptor["fullDescription"]["text"].startswith("Checks for blocking network")


def test_sarif_and_json_carry_the_new_rules(cases_sarif):
    """RES105, RES404 and RES501 are in the driver's rules and in the results of the cases that hold them,
    and JSON names them too."""
    run_ = cases_sarif["runs"][0]
    ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    cases = {"RES105": {"deadline_propagation.py", "deadline_cross_module/svc/handlers.py"},
             "RES404": {"dedup_check_then_act.py", "dedup_ttl_webhooks.py"},
             "RES501": {"breaker_retries.py"}}
    for code, files in cases.items():
        assert code in ids
        found = [r for r in run_["results"] if r["ruleId"] == code]
        assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in found} == files
        case = min(files)
        assert run_["tool"]["driver"]["rules"][found[0]["ruleIndex"]]["id"] == code
        result = run(["--isolated", "--no-cache", "-f", "json", "--select", code, case], CASES)
        records = json.loads(result.output)
        assert records and {r["code"] for r in records} == {code}
        assert records[0]["name"] == registry.BY_CODE[code].name and records[0]["url"] == registry.docs_url(code)


def test_sarif_results_locations_and_rule_index(cases_sarif):
    run_ = cases_sarif["runs"][0]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == CASES.as_uri() + "/"
    rules = run_["tool"]["driver"]["rules"]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning")
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        uri = location["artifactLocation"]["uri"]
        assert not uri.startswith(("/", "file:")) and (CASES / uri).is_file()
        region = location["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
    prints = [r["partialFingerprints"]["reslint/v1"] for r in run_["results"]]
    assert len(set(prints)) == len(prints)


def test_sarif_fixes_are_the_findings_edits(cases_sarif, monkeypatch):
    from reslint.api import lint_paths

    monkeypatch.chdir(CASES)
    findings = lint_paths(".", isolated=True)
    results = cases_sarif["runs"][0]["results"]
    assert len(findings) == len(results)
    with_fixes = 0
    for finding, result in zip(findings, results):
        assert (result["ruleId"], result["locations"][0]["physicalLocation"]["region"]["startLine"]) == \
            (finding.code, finding.location.row)
        if finding.fix is None:
            assert "fixes" not in result
            continue
        with_fixes += 1
        (fix,) = result["fixes"]
        assert fix["description"]["text"] == finding.fix.message
        assert fix["properties"]["applicability"] == finding.fix.applicability.value
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"] == result["locations"][0]["physicalLocation"]["artifactLocation"]
        # applying the SARIF replacements by line/column gives what reslint's own edits give
        text = (CASES / finding.filename).read_text(encoding="utf-8")
        out, last = [], 0
        for replacement in change["replacements"]:
            region = replacement["deletedRegion"]
            start = _offset(text, region["startLine"], region["startColumn"])
            end = _offset(text, region["endLine"], region["endColumn"])
            out += [text[last:start], replacement["insertedContent"]["text"]]
            last = end
        out.append(text[last:])
        assert "".join(out) == apply_edits(text, finding.fix.edits) != text
    assert with_fixes >= 5


def test_sarif_fingerprints_survive_lines_inserted_above(tmp_path):
    (tmp_path / "svc.py").write_text(SERVICE, encoding="utf-8")
    before = sarif_of(["--isolated", "svc.py"], tmp_path)["runs"][0]["results"]
    (tmp_path / "svc.py").write_text('"""Docstring."""\n\n# a comment\n' + SERVICE, encoding="utf-8")
    after = sarif_of(["--isolated", "svc.py"], tmp_path)["runs"][0]["results"]
    assert len(before) == len(after) == 4
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] + 3 for r in before] == \
        [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after]
    prints = [r["partialFingerprints"]["reslint/v1"] for r in before]
    assert prints == [r["partialFingerprints"]["reslint/v1"] for r in after]
    assert len(set(prints)) == 4  # the two identical `requests.get(url)` lines differ by their counter
    run2 = sarif_of(["--isolated", "svc.py"], tmp_path)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in run2] == [r["partialFingerprints"] for r in after]


def test_sarif_root_is_the_config_directory_and_paths_are_uris(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "src dir").mkdir()
    (tmp_path / "src dir" / "app.py").write_text(MISSING, encoding="utf-8")
    log = sarif_of(["app.py"], tmp_path / "src dir")
    run_ = log["runs"][0]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    location = run_["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src%20dir/app.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 29}


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="file names must be valid Unicode there")
def test_a_file_name_that_is_not_utf8_is_valid_text_in_every_format(tmp_path):
    """Its bytes percent-encoded in a SARIF URI; U+FFFD in place of each bad byte elsewhere."""
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.py"), "wb") as handle:
        handle.write(MISSING.encode())
    log = sarif_of(["--isolated", "."], tmp_path)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "caf%E9.py", "uriBaseId": "%SRCROOT%"}
    records = json.loads(run(["--isolated", "-f", "json", "."], tmp_path).output)
    assert [r["filename"] for r in records] == ["caf\ufffd.py"]
    for fmt in FORMATS:
        assert not re.search("[\ud800-\udfff]", run(["--isolated", "-f", fmt, "."], tmp_path).output), fmt


def test_sarif_of_a_clean_run_has_an_empty_results_array(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    log = sarif_of(["--isolated", "ok.py"], tmp_path)
    assert log["runs"][0]["results"] == []


# -- JUnit --------------------------------------------------------------------------------
def _project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "svc.py").write_text(SERVICE, encoding="utf-8")
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    return tmp_path


def test_junit_has_one_testsuite_per_file(tmp_path):
    project = _project(tmp_path)
    result = run(["--isolated", "-f", "junit", "."], project)
    assert result.exit_code == 1
    root = ET.fromstring(result.output.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("failures") == "5"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["app.py", "pkg/svc.py"]
    assert [len(s.findall("testcase")) for s in suites] == [1, 4]
    for suite in suites:
        assert suite.get("tests") == suite.get("failures") == str(len(suite.findall("testcase")))
        for case in suite.findall("testcase"):
            failure = case.find("failure")
            assert failure is not None and failure.get("type").startswith("RES") and failure.get("message")
            assert case.get("classname") == suite.get("name") and int(case.get("line")) >= 1


def test_junit_clean_run_is_one_passing_case(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    root = ET.fromstring(run(["--isolated", "-f", "junit", "."], tmp_path).output.encode("utf-8"))
    (suite,) = root.findall("testsuite")
    assert suite.get("failures") == "0" and len(suite.findall("testcase")) == 1
    assert suite.find("testcase/failure") is None


def test_junit_replaces_characters_xml_cannot_carry():
    from reslint.diagnostics import Finding, Location
    from reslint.output import Report, renderer

    finding = Finding("RES101", "missing-timeout", "error", "bad \x1b[31m <&> \"q\"", "a\x01.py", Location(1, 1),
                      Location(1, 2))
    root = ET.fromstring(renderer("junit")([finding], Report()).encode("utf-8"))
    assert root.find("testsuite/testcase/failure").get("message") == "bad \ufffd[31m <&> \"q\""


# -- JSON Lines ---------------------------------------------------------------------------
def test_json_lines_is_one_json_record_per_line(tmp_path):
    project = _project(tmp_path)
    lines = run(["--isolated", "-f", "json-lines", "."], project).output.splitlines()
    records = [json.loads(line) for line in lines]
    assert records == json.loads(run(["--isolated", "-f", "json", "."], project).output)
    assert len(records) == 5
    assert run(["--isolated", "-f", "json-lines", "ok.py"], project).output == ""


# -- GitLab -------------------------------------------------------------------------------
def test_gitlab_code_quality_report(tmp_path):
    project = _project(tmp_path)
    issues = json.loads(run(["--isolated", "-f", "gitlab", "."], project).output)
    assert len(issues) == 5
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["description"].startswith(issue["check_name"] + " ")
        assert issue["location"]["path"] in ("app.py", "pkg/svc.py") and issue["location"]["lines"]["begin"] >= 1
    assert {i["check_name"]: i["severity"] for i in issues} == {"RES101": "major", "RES103": "minor"}
    assert len({i["fingerprint"] for i in issues}) == 5


def test_gitlab_fingerprints_do_not_change_when_lines_move(tmp_path):
    project = _project(tmp_path)
    before = json.loads(run(["--isolated", "-f", "gitlab", "."], project).output)
    (project / "pkg" / "svc.py").write_text("import os\n\n\n" + SERVICE.replace("\n\n\ndef c", "\n\ndef c"),
                                            encoding="utf-8")
    after = json.loads(run(["--isolated", "-f", "gitlab", "."], project).output)
    assert [i["location"]["lines"]["begin"] for i in before] != [i["location"]["lines"]["begin"] for i in after]
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]


# -- GitHub -------------------------------------------------------------------------------
def _runner_parse(line: str):
    """Parse a workflow command as the Actions runner does (``ActionCommand.TryParseV2``)."""
    def unescape(value, mappings):
        for token, replacement in mappings:
            value = value.replace(replacement, token)
        return value

    data_map = [("\r", "%0D"), ("\n", "%0A"), ("%", "%25")]
    prop_map = [("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C"), ("%", "%25")]
    assert line.startswith("::")
    end = line.index("::", 2)
    name, _, props = line[2:end].partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = unescape(value, prop_map)
    return name, properties, unescape(line[end + 2:], data_map)


def test_github_escaping_round_trips_through_the_runner_parser():
    from reslint.output.github import escape_data, escape_property

    nasty = "50% done\r\n%0A: a, b::c"
    assert escape_data(nasty) == "50%25 done%0D%0A%250A: a, b::c"
    assert escape_property(nasty) == "50%25 done%0D%0A%250A%3A a%2C b%3A%3Ac"
    line = f"::error file={escape_property(nasty)},line=1::{escape_data(nasty)}"
    name, properties, data = _runner_parse(line)
    assert name == "error" and properties == {"file": nasty, "line": "1"} and data == nasty


def test_github_annotations(tmp_path):
    project = _project(tmp_path)
    (project / "odd, name: 100%.py").write_text(MISSING, encoding="utf-8")
    lines = run(["--isolated", "-f", "github", "."], project).output.splitlines()
    parsed = [_runner_parse(line) for line in lines]
    assert len(parsed) == 6
    by_file = {}
    for name, props, data in parsed:
        assert name in ("error", "warning") and props["title"].startswith("reslint (RES")
        assert data.startswith(props["title"][9:15] + " ")
        by_file.setdefault(props["file"], []).append((name, props))
    assert set(by_file) == {"app.py", "odd, name: 100%.py", "pkg/svc.py"}
    assert by_file["app.py"][0][1] == {"title": "reslint (RES101)", "file": "app.py", "line": "5", "col": "12",
                                       "endLine": "5", "endColumn": "29"}
    multi = [props for name, props in by_file["pkg/svc.py"] if props["line"] != props["endLine"]]
    assert multi and all("col" not in p and "endColumn" not in p for p in multi)  # the runner would drop them
    assert any(name == "warning" for name, _ in by_file["pkg/svc.py"])  # RES103 is a warning rule


# -- every format: --output-file, one list of formats -----------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_output_file_for_every_format(tmp_path, fmt):
    project = _project(tmp_path)
    stdout = run(["--isolated", "-f", fmt, "."], project)
    to_file = run(["--isolated", "-f", fmt, "-o", "reports/out.txt", "."], project)
    assert stdout.exit_code == to_file.exit_code == 1
    assert to_file.output == ""
    assert (project / "reports" / "out.txt").read_text(encoding="utf-8") == stdout.output != ""


def test_cli_and_output_share_one_list_of_formats_without_importing_libcst():
    code = ("import sys, reslint.cli, reslint.output; "
            "assert reslint.cli.FORMATS is reslint.output.FORMATS; "
            "assert 'libcst' not in sys.modules, 'libcst imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
    from reslint.cli import check

    option = next(p for p in check.params if p.name == "output_format")
    assert tuple(option.type.choices) == FORMATS
    assert {"sarif", "junit", "json-lines", "gitlab", "github", "json", "full", "concise", "rdjson"} == set(FORMATS)


# -- colour -------------------------------------------------------------------------------
@pytest.mark.parametrize("choice, env, tty, expected", [
    ("always", {"NO_COLOR": "1"}, False, True),
    ("never", {"FORCE_COLOR": "1"}, True, False),
    ("auto", {}, True, True),
    ("auto", {}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"NO_COLOR": ""}, True, True),  # an empty NO_COLOR does not count (no-color.org)
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("auto", {"FORCE_COLOR": ""}, False, False),
    ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
])
def test_use_color(monkeypatch, choice, env, tty, expected):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert _use_color(choice) is expected


def test_color_reaches_a_pipe_only_when_asked(tmp_path, monkeypatch):
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert "\x1b[" not in run(["--isolated", "app.py"], tmp_path).output
    assert "\x1b[" in run(["--isolated", "--color", "always", "app.py"], tmp_path).output
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run(["--isolated", "app.py"], tmp_path).output
    assert "\x1b[" not in run(["--isolated", "-f", "json", "app.py"], tmp_path).output
    run(["--isolated", "-o", "out.txt", "app.py"], tmp_path)
    assert "\x1b[" not in (tmp_path / "out.txt").read_text(encoding="utf-8")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(["--isolated", "app.py"], tmp_path).output
