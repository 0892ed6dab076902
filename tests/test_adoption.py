"""Adopting reslint on code that already has findings: a baseline (``--write-baseline``,
``--baseline``, the ``baseline`` key) and the findings new since a git revision
(``--diff-base``), end to end through the command line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reslint.output import FORMATS
from tests.test_cli import run

LEGACY = """\
import requests


def load(url):
    return requests.get(url)
"""

#: LEGACY with lines inserted above its finding, and a new finding (an excessive timeout)
MOVED_AND_NEW = """\
import requests

# a comment and a helper added above the legacy call: its line moves down


def name(user):
    return user.name


def load(url):
    return requests.get(url)


def save(url):
    return requests.post(url, timeout=600)
"""

OTHER = """\
import requests


def ping(url):
    return requests.head(url)
"""


@pytest.fixture(autouse=True)
def _cache_outside_the_project(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture()
def legacy(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(LEGACY, encoding="utf-8")
    (tmp_path / "other.py").write_text(OTHER, encoding="utf-8")
    return tmp_path


def concise(result):
    return [line.split(": ", 1)[0] for line in result.stdout.splitlines() if ": RES" in line]


def codes_and_rows(result):
    return [(f["code"], f["filename"], f["location"]["row"]) for f in json.loads(result.stdout)]


# --- baseline -------------------------------------------------------------------------------------

def test_write_baseline_records_every_finding_and_exits_0(legacy):
    result = run(["--write-baseline", "reslint-baseline.json", "."], legacy)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == "Wrote 2 findings in 2 files to reslint-baseline.json.\n"
    data = json.loads((legacy / "reslint-baseline.json").read_text(encoding="utf-8"))
    assert data["reslint-baseline"] == 1 and data["fingerprint-version"] == 1
    assert {name: {code: len(prints) for code, prints in codes.items()} for name, codes in data["files"].items()} \
        == {"app.py": {"RES101": 1}, "other.py": {"RES101": 1}}
    # the fingerprints are those SARIF and GitLab report: one recipe
    sarif = json.loads(run(["-f", "sarif", "."], legacy).stdout)
    prints = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["partialFingerprints"]
              for r in sarif["runs"][0]["results"]}
    assert data["files"]["app.py"]["RES101"] == [prints["app.py"]["reslint/v1"]]


def test_baseline_reports_only_new_findings_after_lines_moved(legacy):
    assert run(["--write-baseline", "base.json", "."], legacy).exit_code == 0
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    result = run(["-f", "concise", "--baseline", "base.json", "."], legacy)
    assert result.exit_code == 1
    assert concise(result) == ["app.py:15:12"]  # the new RES103, not the moved RES101 (now on line 11)
    assert "RES103" in result.stdout
    assert result.stdout.splitlines()[-1] == "2 findings in the baseline not shown."
    assert result.stderr == ""
    # without the baseline both are there
    assert concise(run(["-f", "concise", "."], legacy)) == ["app.py:11:12", "app.py:15:12", "other.py:5:12"]


def test_baseline_clean_run_exits_0_and_says_what_it_hid(legacy):
    run(["--write-baseline", "base.json", "."], legacy)
    result = run(["--baseline", "base.json", "."], legacy)
    assert result.exit_code == 0
    assert result.stdout == "All checks passed!\n2 findings in the baseline not shown.\n"
    assert run(["-q", "--baseline", "base.json", "."], legacy).stdout == ""


def test_one_more_finding_on_a_line_like_a_known_one_is_new(legacy):
    """The occurrence counter: a second identical line is a new finding, and the fingerprint
    SARIF gives it is its own (counted with the known one), not the known one's."""
    run(["--write-baseline", "base.json", "app.py"], legacy)
    known = json.loads((legacy / "base.json").read_text(encoding="utf-8"))["files"]["app.py"]["RES101"]
    (legacy / "app.py").write_text(LEGACY + "\n\ndef again(url):\n    return requests.get(url)\n", encoding="utf-8")
    result = run(["-f", "sarif", "--baseline", "base.json", "app.py"], legacy)
    assert result.exit_code == 1
    (only,) = json.loads(result.stdout)["runs"][0]["results"]
    assert only["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    assert only["partialFingerprints"]["reslint/v1"] not in known
    every = json.loads(run(["-f", "sarif", "app.py"], legacy).stdout)["runs"][0]["results"]
    assert [r["partialFingerprints"]["reslint/v1"] for r in every][1] == only["partialFingerprints"]["reslint/v1"]


def test_stale_entries_are_reported_and_pruned_by_rewriting(legacy):
    run(["--write-baseline", "base.json", "."], legacy)
    (legacy / "app.py").write_text(LEGACY.replace("get(url)", "get(url, timeout=5)"), encoding="utf-8")
    result = run(["--baseline", "base.json", "."], legacy)
    assert result.exit_code == 0
    assert result.stderr == ("reslint: warning: base.json: 1 baseline entry no longer matches a finding (fixed, or "
                             "the line changed): app.py RES101 (1); prune with `reslint check --write-baseline "
                             "base.json`\n")
    rewrite = run(["--write-baseline", "base.json", "."], legacy)
    assert rewrite.stderr == "Wrote 1 finding in 1 file to base.json (1 stale entry pruned).\n"
    assert list(json.loads((legacy / "base.json").read_text(encoding="utf-8"))["files"]) == ["other.py"]
    assert run(["--baseline", "base.json", "."], legacy).stderr == ""


def test_a_deleted_file_makes_its_entries_stale(legacy):
    run(["--write-baseline", "base.json", "."], legacy)
    (legacy / "other.py").unlink()
    result = run(["--baseline", "base.json", "app.py"], legacy)  # not even named: it is gone
    assert "other.py RES101 (1)" in result.stderr


def test_subset_run_judges_and_rewrites_only_the_files_it_checks(legacy):
    """pre-commit names the changed files: the other files' entries are neither stale nor dropped."""
    run(["--write-baseline", "base.json", "."], legacy)
    before = json.loads((legacy / "base.json").read_text(encoding="utf-8"))["files"]
    (legacy / "other.py").write_text(OTHER.replace("head(url)", "head(url, timeout=5)"), encoding="utf-8")
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    result = run(["-f", "concise", "--baseline", "base.json", "app.py"], legacy)
    assert concise(result) == ["app.py:15:12"]
    assert result.stderr == ""  # other.py's fixed finding is not judged: other.py was not checked
    assert run(["--write-baseline", "base.json", "app.py"], legacy).exit_code == 0
    after = json.loads((legacy / "base.json").read_text(encoding="utf-8"))["files"]
    assert after["other.py"] == before["other.py"]
    assert sorted(after["app.py"]) == ["RES101", "RES103"]


def test_entries_of_rules_not_run_are_kept_and_not_stale(legacy):
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    run(["--write-baseline", "base.json", "."], legacy)
    result = run(["--select", "RES103", "--baseline", "base.json", "."], legacy)
    assert (result.exit_code, result.stderr) == (0, "")
    run(["--select", "RES103", "--write-baseline", "base.json", "."], legacy)
    files = json.loads((legacy / "base.json").read_text(encoding="utf-8"))["files"]
    assert {name: sorted(codes) for name, codes in files.items()} == {"app.py": ["RES101", "RES103"],
                                                                      "other.py": ["RES101"]}


def test_baseline_key_in_the_configuration_is_relative_to_it(legacy):
    (legacy / "pyproject.toml").write_text('[tool.reslint]\nbaseline = "ci/reslint-baseline.json"\n',
                                           encoding="utf-8")
    assert run(["--write-baseline", "ci/reslint-baseline.json", "."], legacy).exit_code == 0
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    sub = legacy / "ci"
    result = run(["-f", "concise", ".."], sub)  # from a subdirectory: the key is the config file's
    assert concise(result) == ["app.py:15:12"]
    assert concise(run(["-f", "concise", "--no-baseline", "."], legacy)) == [
        "app.py:11:12", "app.py:15:12", "other.py:5:12"]
    # a missing baseline named by the configuration is an error, not "no baseline"
    (legacy / "ci" / "reslint-baseline.json").unlink()
    missing = run(["."], legacy)
    assert missing.exit_code == 2
    assert "ci/reslint-baseline.json: baseline file not found (make it with `reslint check --write-baseline" \
        in missing.stderr


@pytest.mark.parametrize("text, why", [
    ("not json", "not JSON"),
    ('{"files": {}}', 'no "reslint-baseline" key'),
    ('{"reslint-baseline": 1, "fingerprint-version": 1, "files": {"a.py": {"RES101": [1]}}}',
     "expected a list of fingerprints"),
    ('{"reslint-baseline": 9, "fingerprint-version": 1, "files": {}}', "written by another version of reslint"),
])
def test_a_file_that_is_not_a_baseline_is_an_error(legacy, text, why):
    (legacy / "base.json").write_text(text, encoding="utf-8")
    result = run(["--baseline", "base.json", "."], legacy)
    assert result.exit_code == 2
    assert result.stderr.startswith("reslint: error: base.json: ") and why in result.stderr
    # and it is not overwritten by --write-baseline either
    assert run(["--write-baseline", "base.json", "."], legacy).exit_code == 2
    assert (legacy / "base.json").read_text(encoding="utf-8") == text


def test_write_baseline_refuses_what_it_cannot_record(legacy):
    for extra in (["--diff"], ["--add-noqa"], ["--baseline", "x.json"], ["--diff-base", "HEAD"]):
        result = run(["--write-baseline", "base.json", *extra, "."], legacy)
        assert result.exit_code == 2 and "--write-baseline" in result.stderr
    assert not (legacy / "base.json").exists()


def _reported_rows(fmt: str, text: str):
    """(file, line) of every finding in ``text``, an output of format ``fmt``."""
    if fmt in ("full", "concise"):
        rows = []
        for line in text.splitlines():
            head = line.strip().lstrip("-> ").split(" ")[0]
            parts = head.rstrip(":").split(":")
            if len(parts) == 3 and parts[1].isdigit() and parts[0].endswith(".py"):
                rows.append((parts[0], int(parts[1])))
        return rows
    if fmt == "github":
        return [(line.split("file=")[1].split(",")[0], int(line.split("line=")[1].split(",")[0]))
                for line in text.splitlines() if line.startswith("::")]
    if fmt == "json":
        return [(f["filename"], f["location"]["row"]) for f in json.loads(text)]
    if fmt == "json-lines":
        return [(f["filename"], f["location"]["row"]) for f in map(json.loads, text.splitlines())]
    if fmt == "sarif":
        return [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                 r["locations"][0]["physicalLocation"]["region"]["startLine"])
                for r in json.loads(text)["runs"][0]["results"]]
    if fmt == "gitlab":
        return [(i["location"]["path"], i["location"]["lines"]["begin"]) for i in json.loads(text)]
    if fmt == "junit":
        return [(case.get("file"), int(case.get("line"))) for case in ET.fromstring(text).iter("testcase")
                if case.find("failure") is not None]
    if fmt == "rdjson":
        return [(d["location"]["path"], d["location"]["range"]["start"]["line"])
                for d in json.loads(text)["diagnostics"]]
    raise AssertionError(f"no reader for {fmt}")


@pytest.mark.parametrize("fmt", FORMATS)
def test_baseline_filters_every_output_format(legacy, fmt):
    run(["--write-baseline", "base.json", "."], legacy)
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    every = run(["-f", fmt, "--no-cache", "."], legacy)
    new = run(["-f", fmt, "--baseline", "base.json", "."], legacy)
    assert sorted(_reported_rows(fmt, every.stdout)) == [("app.py", 11), ("app.py", 15), ("other.py", 5)]
    assert _reported_rows(fmt, new.stdout) == [("app.py", 15)]
    assert new.exit_code == 1


def test_statistics_count_only_new_findings(legacy):
    run(["--write-baseline", "base.json", "."], legacy)
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    result = run(["--statistics", "-f", "json", "--baseline", "base.json", "."], legacy)
    assert [(row["code"], row["count"]) for row in json.loads(result.stdout)] == [("RES103", 1)]


def test_baseline_with_stdin_uses_the_stdin_filename(legacy):
    run(["--write-baseline", "base.json", "."], legacy)
    result = run(["--baseline", "base.json", "--stdin-filename", "app.py", "-f", "concise", "-"], legacy,
                 stdin=MOVED_AND_NEW)
    assert concise(result) == ["app.py:15:12"]


# --- --diff-base ----------------------------------------------------------------------------------

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture()
def repo(legacy):
    git(legacy, "init", "-q", "-b", "main")
    git(legacy, "add", ".")
    git(legacy, "commit", "-q", "-m", "legacy")
    return legacy


@needs_git
def test_diff_base_reports_only_what_is_new_since_the_revision(repo):
    (repo / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")  # uncommitted: compared too
    (repo / "fresh.py").write_text(OTHER, encoding="utf-8")  # untracked: every finding is new
    result = run(["-f", "json", "--diff-base", "main", "."], repo)
    assert result.exit_code == 1, result.stderr
    assert codes_and_rows(result) == [("RES103", "app.py", 15), ("RES101", "fresh.py", 5)]
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "more")
    assert codes_and_rows(run(["-f", "json", "--diff-base", "HEAD~1", "."], repo)) == [
        ("RES103", "app.py", 15), ("RES101", "fresh.py", 5)]
    clean = run(["--diff-base", "HEAD", "."], repo)
    assert (clean.exit_code, clean.stdout) == (0, "All checks passed!\n")


@needs_git
def test_diff_base_reports_a_finding_on_a_changed_line_with_the_same_fingerprint(repo):
    """Trailing blanks do not change a fingerprint (whitespace is normalised), but the line changed."""
    (repo / "app.py").write_text(LEGACY.replace("get(url)\n", "get(url)   \n"), encoding="utf-8")
    assert codes_and_rows(run(["-f", "json", "--diff-base", "HEAD", "."], repo)) == [("RES101", "app.py", 5)]


@needs_git
def test_diff_base_reports_a_cross_module_finding_in_an_unchanged_file(repo):
    (repo / "helper.py").write_text("import requests\n\n\ndef save(url, data):\n"
                                    "    return requests.post(url, json=data, timeout=5)\n", encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "helper")
    (repo / "jobs.py").write_text(
        "import tenacity\nfrom helper import save\n\n\n"
        "@tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_random_exponential(max=5),\n"
        "                retry=tenacity.retry_if_exception_type(ConnectionError))\n"
        "def push(url):\n    save(url, {})\n", encoding="utf-8")
    result = run(["-f", "json", "--diff-base", "HEAD", "."], repo)
    assert codes_and_rows(result) == [("RES402", "helper.py", 5)]
    # a subset run, as pre-commit's: the project pass still reads the revision's whole tree
    assert codes_and_rows(run(["-f", "json", "--diff-base", "HEAD", "jobs.py", "helper.py"], repo)) == [
        ("RES402", "helper.py", 5)]


@needs_git
def test_diff_base_errors(repo, tmp_path_factory):
    unknown = run(["--diff-base", "no-such-branch", "."], repo)
    assert unknown.exit_code == 2
    assert unknown.stderr == "reslint: error: --diff-base: unknown revision 'no-such-branch'\n"
    option = run(["--diff-base", "--output=x", "."], repo)
    assert option.exit_code == 2 and "is not a revision" in option.stderr
    plain = tmp_path_factory.mktemp("plain")
    (plain / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (plain / "app.py").write_text(LEGACY, encoding="utf-8")
    outside = run(["--diff-base", "HEAD", "."], plain, env={"GIT_CEILING_DIRECTORIES": str(plain.parent)})
    assert outside.exit_code == 2
    assert outside.stderr.startswith(f"reslint: error: {plain} is not in a git repository")
    stdin = run(["--diff-base", "HEAD", "-"], repo, stdin=LEGACY)
    assert stdin.exit_code == 2 and "cannot read stdin" in stdin.stderr


def test_diff_base_without_git_is_a_clear_error(legacy, tmp_path_factory):
    empty = tmp_path_factory.mktemp("no-git-here")
    result = run(["--diff-base", "HEAD", "."], legacy, env={"PATH": str(empty)})
    assert result.exit_code == 2
    assert result.stderr == "reslint: error: --diff-base needs git, and git is not on PATH\n"


@needs_git
def test_diff_base_runs_no_program_the_repository_configures(repo):
    """A checkout is not trusted: its hooks, its file system monitor and its filters never run."""
    marker = repo.parent / f"{repo.name}-ran"
    script = repo.parent / f"{repo.name}-evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    hooks = repo / ".git" / "hooks"
    for hook in ("post-checkout", "pre-commit", "post-index-change", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        (hooks / hook).chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(script))
    git(repo, "config", "filter.evil.clean", str(script))
    git(repo, "config", "filter.evil.smudge", str(script))
    git(repo, "config", "diff.evil.textconv", str(script))
    (repo / ".gitattributes").write_text("*.py filter=evil diff=evil\n", encoding="utf-8")
    (repo / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    marker.unlink(missing_ok=True)
    result = run(["-f", "json", "--diff-base", "HEAD", "."], repo)
    assert codes_and_rows(result) == [("RES103", "app.py", 15)]
    assert not marker.exists()


@needs_git
def test_diff_base_skips_links_in_the_revision(repo):
    """A symbolic link committed in the revision is not followed (nor written) in its copy."""
    outside = repo.parent / f"{repo.name}-outside.py"
    outside.write_text(LEGACY, encoding="utf-8")
    (repo / "link.py").symlink_to(outside)
    git(repo, "add", "link.py")
    git(repo, "commit", "-q", "-m", "link")
    (repo / "link.py").unlink()
    (repo / "link.py").write_text(LEGACY, encoding="utf-8")
    assert codes_and_rows(run(["-f", "json", "--diff-base", "HEAD", "link.py"], repo)) == [("RES101", "link.py", 5)]


# --- papercuts seen in a trial --------------------------------------------------------------------

def test_diff_with_only_unsafe_fixes_says_what_unsafe_fixes_would_add(legacy):
    result = run(["--diff", "app.py"], legacy)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "No errors would be fixed (1 fix available with `--unsafe-fixes`).\n"
    unsafe = run(["--diff", "--unsafe-fixes", "app.py"], legacy)
    assert unsafe.exit_code == 1 and "+    return requests.get(url, timeout=10)" in unsafe.stdout
    assert unsafe.stderr == "Would fix 1 error.\n"
    (legacy / "jobs.py").write_text(
        "import tenacity\n\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_exponential(),\n"
        "                retry=tenacity.retry_if_exception_type(ConnectionError))\ndef push():\n    pass\n",
        encoding="utf-8")
    both = run(["--diff", "app.py", "jobs.py"], legacy)
    assert both.exit_code == 1 and "wait_random_exponential" in both.stdout
    assert both.stderr == "Would fix 1 error (1 more fix available with `--unsafe-fixes`).\n"
    clean = run(["--diff", "--unsafe-fixes", "jobs.py"], legacy)
    assert clean.stderr == "Would fix 1 error.\n"


@pytest.mark.parametrize("args, message", [
    (["--select", "missing-timout"], "--select: unknown rule 'missing-timout' (did you mean 'missing-timeout'? "
                                     "see `reslint rule --all`)"),
    (["--ignore", "RES1O1"], "--ignore: unknown rule 'RES1O1' (did you mean 'RES101'? see `reslint rule --all`)"),
    (["--extend-select", "nested_retry"], "did you mean 'nested-retry'?"),
    (["--select", "RES999"], "--select: unknown rule 'RES999' (see `reslint rule --all`)"),  # nothing close
])
def test_unknown_rule_names_get_a_did_you_mean(legacy, args, message):
    result = run([*args, "."], legacy)
    assert result.exit_code == 2 and message in result.stderr


def test_did_you_mean_in_the_configuration_and_for_reslint_rule(legacy):
    (legacy / "pyproject.toml").write_text('[tool.reslint]\nignore = ["retry-without-jiter"]\n', encoding="utf-8")
    result = run(["."], legacy)
    assert result.exit_code == 2
    assert "`tool.reslint.ignore` names an unknown rule 'retry-without-jiter' (did you mean " \
           "'retry-without-jitter'? see `reslint rule --all`)" in result.stderr
    rule = run(["rule", "unbounded-retyr"], legacy)
    assert rule.exit_code == 2 and "did you mean 'unbounded-retry'?" in rule.stderr


@pytest.fixture()
def with_migrations(legacy):
    (legacy / "pyproject.toml").write_text('[tool.reslint]\nextend-exclude = ["migrations"]\n', encoding="utf-8")
    (legacy / "migrations").mkdir()
    (legacy / "migrations" / "m1.py").write_text(LEGACY, encoding="utf-8")
    return legacy


def test_force_exclude_applies_the_excludes_to_files_named(with_migrations):
    """pre-commit names every staged file: without --force-exclude a file named is always checked."""
    named = ["migrations/m1.py", "app.py"]
    assert concise(run(["-f", "concise", *named], with_migrations)) == ["app.py:5:12", "migrations/m1.py:5:12"]
    assert concise(run(["-f", "concise", "--force-exclude", *named], with_migrations)) == ["app.py:5:12"]
    only = run(["--force-exclude", "migrations/m1.py"], with_migrations)
    assert (only.exit_code, only.stdout) == (0, "All checks passed!\n")
    assert run(["--force-exclude", "migrations"], with_migrations).exit_code == 0
    (with_migrations / "pyproject.toml").write_text('[tool.reslint]\nextend-exclude = ["migrations"]\n'
                                                    'force-exclude = true\n', encoding="utf-8")
    assert concise(run(["-f", "concise", *named], with_migrations)) == ["app.py:5:12"]


def test_exclude_and_extend_exclude_on_the_command_line(with_migrations):
    assert concise(run(["-f", "concise", "."], with_migrations)) == ["app.py:5:12", "other.py:5:12"]
    # --exclude replaces `exclude` (here the defaults); the configuration's extend-exclude stays
    assert concise(run(["-f", "concise", "--exclude", "other.py", "."], with_migrations)) == ["app.py:5:12"]
    assert concise(run(["-f", "concise", "--extend-exclude", "app.py,other.py", "."], with_migrations)) == []
    (with_migrations / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    assert concise(run(["-f", "concise", "--extend-exclude", "migrations", "--extend-exclude", "other.py", "."],
                       with_migrations)) == ["app.py:5:12"]


def test_statistics_show_what_is_fixable(legacy):
    (legacy / "jobs.py").write_text(
        "import tenacity\n\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_exponential(),\n"
        "                retry=tenacity.retry_if_exception_type(ConnectionError))\ndef push():\n    pass\n",
        encoding="utf-8")
    (legacy / "app.py").write_text(MOVED_AND_NEW, encoding="utf-8")
    result = run(["--statistics", "."], legacy)
    assert result.stdout == (
        "2\tRES101\tmissing-timeout\t(2 fixable with --unsafe-fixes)\n"
        "1\tRES103\texcessive-timeout\n"
        "1\tRES201\tretry-without-jitter\t(1 fixable)\n"
        "Found 4 errors.\n"
        "[*] 1 fixable with the `--fix` option.\n"
        "2 hidden fixes can be enabled with the `--unsafe-fixes` option.\n")
    rows = json.loads(run(["--statistics", "-f", "json", "--unsafe-fixes", "."], legacy).stdout)
    assert [(r["code"], r["count"], r["fixable"], r["hidden_fixes"]) for r in rows] == [
        ("RES101", 2, 2, 0), ("RES103", 1, 0, 0), ("RES201", 1, 1, 0)]
    rows = json.loads(run(["--statistics", "-f", "json", "."], legacy).stdout)
    assert [(r["code"], r["fixable"], r["hidden_fixes"]) for r in rows][0] == ("RES101", 0, 2)


def test_output_format_configuration_key(legacy):
    (legacy / "pyproject.toml").write_text('[tool.reslint]\noutput-format = "json-lines"\n', encoding="utf-8")
    result = run(["app.py"], legacy)
    assert [json.loads(line)["code"] for line in result.stdout.splitlines()] == ["RES101"]
    assert run(["-f", "concise", "app.py"], legacy).stdout.startswith("app.py:5:12: RES101 ")  # the option wins
    (legacy / "pyproject.toml").write_text('[tool.reslint]\noutput-format = "xml"\n', encoding="utf-8")
    bad = run(["app.py"], legacy)
    assert bad.exit_code == 2 and "`tool.reslint.output-format` must be one of full, concise, json" in bad.stderr


LAYERS = """\
import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

T = (requests.ConnectionError, requests.Timeout)


@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(20),
       wait=wait_random_exponential(max=2), reraise=True)
def fetch(url):
    return requests.get(url, timeout=5).json()


@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(60),
       wait=wait_random_exponential(max=2), reraise=True)
def sync(url):
    return fetch(url)


@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(200),
       wait=wait_random_exponential(max=2), reraise=True)
def nightly(url):
    return sync(url)


@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10), wait=wait_random_exponential(max=10))
def slow(url):
    return requests.get(url, timeout=10).json()
"""


@pytest.mark.parametrize("options, expected", [
    ("", [("RES301", 16), ("RES301", 22), ("RES202", 25)]),
    ("max-retry-layers = 2\n", [("RES301", 22), ("RES202", 25)]),  # two layers pass, three do not
    ("max-retry-time = 300\n", [("RES301", 16), ("RES301", 22)]),  # worst case 265 s
])
def test_max_retry_time_and_layers_work_as_the_readme_says(tmp_path, options, expected):
    (tmp_path / "pyproject.toml").write_text(f'[tool.reslint]\nselect = ["RES202", "RES301"]\n{options}',
                                             encoding="utf-8")
    (tmp_path / "svc.py").write_text(LAYERS, encoding="utf-8")
    result = run(["-f", "json", "."], tmp_path)
    assert [(f["code"], f["location"]["row"]) for f in json.loads(result.stdout)] == expected


# --- the first run ---------------------------------------------------------------------------------

def test_the_readmes_try_it_is_true():
    """README's "Try it": nine findings on demo/, three of them found across functions, and
    the finding quoted at the top of the README among them."""
    repo = Path(__file__).resolve().parent.parent
    readme = repo.joinpath("README.md").read_text(encoding="utf-8")
    result = run(["--isolated", "-f", "concise", "demo/"], repo)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if ": RES" in line]
    assert "It reports nine findings and exits with status 1" in readme and len(lines) == 9
    assert [line.split(" ")[1] for line in lines if line.startswith("demo/orders.py")] == [
        "RES401", "RES402", "RES301"]
    quoted = readme.split("```text\n", 1)[1].split("\n```", 1)[0].replace("\n", " ")
    assert quoted in lines
    assert "up to 12 calls per place_order call" in result.stdout
    graph = run(["graph", "--isolated", "demo/"], repo)
    assert "place_order" in graph.stdout and "-->|x12|" in graph.stdout
