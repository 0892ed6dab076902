"""The command line as users and CI see it: exit codes, formats, fixes, config errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reslint import registry
from reslint.cli import main

MISSING = "import requests\n\n\ndef load(url):\n    return requests.get(url).json()\n"
CLEAN = "import requests\n\n\ndef load(url):\n    return requests.get(url, timeout=5).json()\n"


def run(args, cwd: Path, stdin=None, env=None):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, args, input=stdin, catch_exceptions=False, env=env)
    finally:
        os.chdir(old)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "ok.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def test_findings_exit_1_and_clean_exit_0(project):
    assert run(["app.py"], project).exit_code == 1
    assert run(["ok.py"], project).exit_code == 0
    assert run(["check", "ok.py"], project).exit_code == 0


def test_exit_zero_flag(project):
    assert run(["--exit-zero", "app.py"], project).exit_code == 0


def test_missing_path_is_a_finding_and_the_other_paths_are_checked(project):
    """As Ruff's E902: a RES000 finding at 1:1 (exit status 1, no longer 2), one warning line."""
    result = run(["-f", "concise", "nope.py", "app.py"], project)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("app.py:5:12: RES101 `requests.get` call has no timeout")
    assert lines[1:3] == ["nope.py:1:1: RES000 no such file or directory", "Found 2 errors."]
    assert result.stderr == "reslint: warning: nope.py: no such file or directory\n"
    alone = run(["-f", "json", "nope.py"], project)
    assert alone.exit_code == 1
    (finding,) = json.loads(alone.stdout)
    assert (finding["code"], finding["filename"], finding["location"], finding["message"]) == (
        "RES000", "nope.py", {"row": 1, "column": 1}, "no such file or directory")
    assert run(["--exit-zero", "nope.py"], project).exit_code == 0
    assert run(["--ignore", "RES000", "nope.py", "ok.py"], project).exit_code == 0  # the warning stays


def test_unknown_rule_selector_is_a_usage_error(project):
    result = run(["--select", "RES999", "app.py"], project)
    assert result.exit_code == 2
    assert "RES999" in result.output


def test_concise_output_and_summary(project):
    result = run(["-f", "concise", "."], project)
    lines = result.output.splitlines()
    assert lines[0].startswith("app.py:5:12: RES101 `requests.get` call has no timeout")
    assert lines[1] == "Found 1 error."
    assert lines[2] == "1 hidden fix can be enabled with the `--unsafe-fixes` option."


def test_full_output_has_code_frame(project):
    result = run(["app.py"], project)
    assert "5 |     return requests.get(url).json()" in result.output
    assert "  |            ^^^^^^^^^^^^^^^^^" in result.output
    assert "= help: Add `timeout=10` (unsafe fix)" in result.output


def test_json_output_shape(project):
    result = run(["-f", "json", "."], project)
    data = json.loads(result.output)
    assert len(data) == 1
    record = data[0]
    assert set(record) == {"code", "name", "severity", "message", "filename", "location", "end_location", "fix",
                           "noqa_row", "url", "related"}
    assert record["code"] == "RES101" and record["name"] == "missing-timeout" and record["severity"] == "error"
    assert record["filename"] == "app.py"
    assert record["location"] == {"row": 5, "column": 12}
    assert record["end_location"] == {"row": 5, "column": 29}
    assert record["noqa_row"] == 5
    assert record["fix"] == {
        "applicability": "unsafe",
        "message": "Add `timeout=10`",
        "edits": [{"content": ", timeout=10", "location": {"row": 5, "column": 28},
                   "end_location": {"row": 5, "column": 28}}],
    }
    assert record["url"].endswith("RES101-missing-timeout.md")


def test_github_format_escapes(tmp_path):
    (tmp_path / "a,b.py").write_text(MISSING, encoding="utf-8")
    result = run(["--isolated", "-f", "github", "a,b.py"], tmp_path)
    line = result.output.strip()
    assert line.startswith("::error title=reslint (RES101),file=a%2Cb.py,line=5,col=12,endLine=5,endColumn=29::")
    assert line.endswith("pass `timeout=`")
    from reslint.output.github import escape_data, escape_property

    assert escape_data("50%\r\nx") == "50%25%0D%0Ax"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_statistics(project):
    result = run(["--statistics", "."], project)
    assert result.output.splitlines()[0] == "1\tRES101\tmissing-timeout\t(1 fixable with --unsafe-fixes)"


def test_statistics_honours_json_and_output_file(project):
    result = run(["--statistics", "-f", "json", "-o", "st.json", "."], project)
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads((project / "st.json").read_text(encoding="utf-8")) == [
        {"code": "RES101", "name": "missing-timeout", "count": 1, "fixable": 0, "hidden_fixes": 1}]
    assert json.loads(run(["--statistics", "-f", "json", "ok.py"], project).stdout) == []


def test_select_and_ignore(project):
    assert run(["--ignore", "RES101", "app.py"], project).exit_code == 0
    assert run(["--select", "RES102,RES103", "app.py"], project).exit_code == 0
    assert run(["--select", "missing-timeout", "app.py"], project).exit_code == 1


def test_safe_fix_only_does_not_apply_unsafe(project):
    result = run(["--fix", "app.py"], project)
    assert result.exit_code == 1
    assert (project / "app.py").read_text(encoding="utf-8") == MISSING


def test_unsafe_fix_writes_and_reports_clean(project):
    result = run(["--fix", "--unsafe-fixes", "--show-fixes", "app.py"], project)
    assert result.exit_code == 0
    assert (project / "app.py").read_text(encoding="utf-8") == MISSING.replace("get(url)", "get(url, timeout=10)")
    assert "- app.py: 1 x RES101 (missing-timeout)" in result.output
    again = run(["--fix", "--unsafe-fixes", "app.py"], project)
    assert again.exit_code == 0


def test_diff_writes_nothing(project):
    result = run(["--diff", "--unsafe-fixes", "app.py"], project)
    assert result.exit_code == 1
    assert "-    return requests.get(url).json()" in result.output
    assert "+    return requests.get(url, timeout=10).json()" in result.output
    assert (project / "app.py").read_text(encoding="utf-8") == MISSING
    assert run(["--diff", "--unsafe-fixes", "ok.py"], project).exit_code == 0


def test_diff_goes_to_the_output_file_and_honours_exit_zero(project):
    result = run(["--diff", "--unsafe-fixes", "-o", "rep.diff", "app.py"], project)
    assert result.exit_code == 1 and result.stdout == ""
    assert (project / "rep.diff").read_text(encoding="utf-8") == (
        "--- a/app.py\n+++ b/app.py\n@@ -2,4 +2,4 @@\n \n \n def load(url):\n"
        "-    return requests.get(url).json()\n+    return requests.get(url, timeout=10).json()\n")
    assert run(["--diff", "--unsafe-fixes", "--exit-zero", "app.py"], project).exit_code == 0


@pytest.mark.parametrize("target, reason", [
    ("outdir", "Is a directory"),
    ("app.py/report.txt", "app.py is not a directory"),
])
def test_unwritable_output_file_is_one_line_and_exit_2(project, target, reason):
    (project / "outdir").mkdir()
    result = run(["-o", target, "app.py"], project)
    assert result.exit_code == 2
    assert result.stderr == f"reslint: error: cannot write {target}: {reason}\n"
    assert (project / "app.py").read_text(encoding="utf-8") == MISSING


def test_output_file_parent_directories_are_created(project):
    assert run(["-f", "concise", "-o", "a/b/out.txt", "app.py"], project).exit_code == 1
    assert (project / "a" / "b" / "out.txt").read_text(encoding="utf-8").startswith("app.py:5:12: RES101")


def test_config_error_names_file_and_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nmax-timout = 30\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    result = run(["app.py"], tmp_path)
    assert result.exit_code == 2
    assert "pyproject.toml: unknown key `tool.reslint.max-timout`" in result.output


def test_config_bad_value(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nmax-timeout = -5\n", encoding="utf-8")
    result = run(["."], tmp_path)
    assert result.exit_code == 2
    assert "`tool.reslint.max-timeout` must be a positive number of seconds, got -5" in result.output


def test_config_max_timeout_changes_verdict(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nmax-timeout = 400\n", encoding="utf-8")
    (tmp_path / "app.py").write_text("import requests\nrequests.get('u', timeout=300)\n", encoding="utf-8")
    assert run(["app.py"], tmp_path).exit_code == 0
    assert run(["--isolated", "app.py"], tmp_path).exit_code == 1


def test_per_file_ignores(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\nper-file-ignores = {"scripts/*" = ["RES101"]}\n',
                                             encoding="utf-8")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "tool.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    result = run(["-f", "concise", "."], tmp_path)
    assert "app.py:5:12" in result.output
    assert "scripts/tool.py" not in result.output


def test_test_code_is_not_reported_by_default_also_when_named(tmp_path):
    # pytest's discovery patterns and test directories: nothing reported there by default
    for name in ("tests/test_api.py", "tests/helpers.py", "pkg/test_util.py", "pkg/util_test.py", "conftest.py",
                 "test/smoke.py", ".semgrep/security/no-requests.py",  # a Semgrep rule's test file
                 "t/integration/tasks.py"):  # celery's and kombu's test directory, at the root
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(MISSING, encoding="utf-8")
    (tmp_path / "pkg" / "client.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "pkg" / "testing.py").write_text(MISSING, encoding="utf-8")  # not a test file by name
    (tmp_path / "pkg" / "t").mkdir()
    (tmp_path / "pkg" / "t" / "fetch.py").write_text(MISSING, encoding="utf-8")  # `t` below the root: a module
    result = run(["--isolated", "--no-cache", "-f", "concise", "."], tmp_path)
    assert [line.split(":")[0] for line in result.output.splitlines() if " RES" in line] == [
        "pkg/client.py", "pkg/t/fetch.py", "pkg/testing.py"]
    # as per-file-ignores, and unlike exclude, also for a file named on the command line (pre-commit)
    named = run(["--isolated", "--no-cache", "-f", "concise", "tests/test_api.py"], tmp_path)
    assert (named.exit_code, named.output) == (0, "All checks passed!\n")


def test_test_paths_and_test_ignore_are_configurable(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\ntest-paths = ["t/"]\ntest-ignore = ["RES101"]\n',
                                             encoding="utf-8")
    (tmp_path / "t").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "t" / "smoke.py").write_text(MISSING + "requests.get('u', timeout=None)\n", encoding="utf-8")
    (tmp_path / "tests" / "test_api.py").write_text(MISSING, encoding="utf-8")
    result = run(["--no-cache", "-f", "concise", "."], tmp_path)
    # t/ is test code now, where only RES101 is off; tests/ is not test code any more
    assert [line.split(" ")[:2] for line in result.output.splitlines() if " RES" in line] == [
        ["t/smoke.py:6:1:", "RES102"], ["tests/test_api.py:5:12:", "RES101"]]
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\ntest-ignore = []\n', encoding="utf-8")
    assert "tests/test_api.py:5:12: RES101" in run(["--no-cache", "-f", "concise", "."], tmp_path).output


def test_bad_test_settings_are_errors(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\ntest-ignore = ["RES999"]\n', encoding="utf-8")
    result = run(["."], tmp_path)
    assert result.exit_code == 2 and "`tool.reslint.test-ignore` names an unknown rule 'RES999'" in result.output
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\ntest-paths = "tests/"\n', encoding="utf-8")
    result = run(["."], tmp_path)
    assert result.exit_code == 2 and "`tool.reslint.test-paths` must be a list of strings" in result.output


def test_syntax_error_is_reported_and_run_goes_on(tmp_path):
    (tmp_path / "bad.py").write_text("print 'py2'\nimport requests\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(MISSING, encoding="utf-8")
    result = run(["--isolated", "-f", "concise", "."], tmp_path)
    assert result.exit_code == 1
    assert "app.py:5:12: RES101" in result.output
    assert "bad.py:1:" in result.output and "RES000" in result.output


def test_stdin(tmp_path):
    result = run(["--isolated", "-f", "concise", "--stdin-filename", "svc.py", "-"], tmp_path, stdin=MISSING)
    assert result.exit_code == 1
    assert result.output.startswith("svc.py:5:12: RES101")
    fixed = run(["--isolated", "--fix", "--unsafe-fixes", "-"], tmp_path, stdin=MISSING)
    assert fixed.stdout == MISSING.replace("get(url)", "get(url, timeout=10)")


def test_stdin_fix_reports_what_remains_on_stderr(tmp_path):
    result = run(["--isolated", "--fix", "--stdin-filename", "svc.py", "-"], tmp_path, stdin=MISSING)
    assert result.exit_code == 1
    assert result.stdout == MISSING  # the code, unchanged: the only fix is unsafe
    assert result.stderr.splitlines()[:2] == [
        "svc.py:5:12: RES101 `requests.get` call has no timeout: requests waits forever when no timeout is given, "
        "so one stuck server holds this call, and the worker running it, forever; pass `timeout=`",
        "Found 1 error."]
    broken = run(["--isolated", "--fix", "-q", "--stdin-filename", "b.py", "-"], tmp_path,
                 stdin="import requests\nf(\n")
    assert broken.exit_code == 1 and broken.stdout == "import requests\nf(\n"
    assert broken.stderr.startswith("b.py:2:2: RES000 cannot parse: '(' was never closed (rejected by Python ")
    clean = run(["--isolated", "--fix", "--unsafe-fixes", "-"], tmp_path, stdin=MISSING)
    assert clean.exit_code == 0 and clean.stderr == "Found 1 error (1 fixed, 0 remaining).\n"


def test_gitignore_line_that_cannot_be_used_is_a_warning_once(tmp_path):
    (tmp_path / ".gitignore").write_text("!\nskip.py\n", encoding="utf-8")
    (tmp_path / "skip.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "app.py").write_text(MISSING, encoding="utf-8")
    result = run(["--isolated", "--no-cache", "-f", "concise", "."], tmp_path)
    assert result.exit_code == 1
    assert "pkg/app.py:5:12: RES101" in result.output and "skip.py" not in result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("reslint: warning:")]
    assert len(warnings) == 1 and ".gitignore:1: ignored a pattern that cannot be used ('!'" in warnings[0], \
        result.stderr


def test_rule_command(tmp_path):
    result = run(["rule", "RES101"], tmp_path)
    assert result.output.startswith("# missing-timeout (RES101)")
    listing = run(["rule", "--all"], tmp_path)
    assert "RES102  disabled-timeout" in listing.output
    for code, name in (("RES105", "deadline-not-propagated"), ("RES404", "non-atomic-dedup"),
                       ("RES501", "retry-on-open-circuit")):
        assert f"{code}  {name}" in listing.output
        assert run(["rule", name], tmp_path).output.startswith(f"# {name} ({code})")
    assert run(["rule", "RES999"], tmp_path).exit_code == 2


def test_python_dash_m_and_version():
    out = subprocess.run([sys.executable, "-m", "reslint", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip().startswith("reslint ")


def test_quiet_prints_findings_only(project):
    result = run(["-q", "-f", "concise", "."], project)
    assert result.output.splitlines() == [line for line in result.output.splitlines() if line.startswith("app.py")]
    assert run(["-q", "ok.py"], project).output == ""


def test_show_settings(project):
    (project / "pyproject.toml").write_text(
        '[tool.reslint]\nignore = ["RES103"]\nmax-timeout = 30\nper-file-ignores = { "scripts/*" = ["RES1"] }\n',
        encoding="utf-8")
    result = run(["show-settings", "--extend-select", "RES103"], project)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == f"Configuration file: {project / 'pyproject.toml'}"
    assert lines[1] == f"Project root:       {project}"
    settings = {line.split(" = ")[0].strip(): line for line in lines if " = " in line and line.startswith("  ")}
    assert settings["max-timeout"].split("#")[0].strip() == "max-timeout = 30"
    assert settings["max-timeout"].endswith("# pyproject.toml")
    assert settings["default-timeout"].endswith("# default")
    assert settings["extend-select"].endswith("# command line")
    assert 'per-file-ignores = { "scripts/*" = ["RES1"] }' in settings["per-file-ignores"]
    rules = {line.split()[0]: line for line in lines if line.startswith("  RES")}
    assert len(rules) == len(registry.RULES)
    assert rules["RES101"].split()[2:] == ["on", "selected", "by", '"RES"', "(select)"]
    assert 'off  ignored by "RES103" (ignore), though selected by "RES" (select), "RES103" (extend-select)' \
        in rules["RES103"]
    assert " on " in rules["RES900"]


def test_show_settings_for_a_path_and_without_a_config_file(project):
    (project / "pyproject.toml").write_text('[tool.reslint]\nper-file-ignores = { "scripts/*" = ["RES1"] }\n',
                                            encoding="utf-8")
    (project / "scripts").mkdir()
    (project / "scripts" / "tool.py").write_text(MISSING, encoding="utf-8")
    result = run(["show-settings", "scripts/tool.py"], project)
    assert '  per-file-ignores "scripts/*" = ["RES1"] applies' in result.output
    assert 'RES101  missing-timeout            on   selected by "RES" (select); off in scripts/tool.py by ' \
           'per-file-ignores "scripts/*"' in result.output
    assert "Path: . (a directory: 3 Python files checked under it" in run(["show-settings", "."], project).output
    (project / "tests").mkdir()
    (project / "tests" / "test_app.py").write_text(MISSING, encoding="utf-8")
    whole = run(["show-settings", "."], project).output
    assert '  1 of them test code (test-paths), where test-ignore = ["RES"] applies' in whole
    assert 'test-paths = ["tests/", "test/", "/t/", "test_*.py", "*_test.py", "conftest.py", ".semgrep/"]  # default' \
        in whole
    test_file = run(["show-settings", "tests/test_app.py"], project).output
    assert '  test code (test-paths): test-ignore = ["RES"] applies, also when the file is named on the command ' \
           'line' in test_file
    assert 'RES101  missing-timeout            on   selected by "RES" (select); off in tests/test_app.py, test ' \
           'code, by test-ignore' in test_file
    assert "  not test code (test-paths)" in result.output
    isolated = run(["show-settings", "--isolated"], project)
    assert isolated.output.splitlines()[0] == "Configuration file: none (built-in defaults)"
    assert "  select = [\"RES\"]" in isolated.output


def test_clean_removes_the_cache(project):
    env = {"RESLINT_CACHE_DIR": None}  # the default place: .reslint_cache in the project root
    run(["app.py"], project, env=env)
    cache = project / ".reslint_cache"
    assert (cache / "CACHEDIR.TAG").is_file()
    result = run(["clean"], project, env=env)
    assert result.exit_code == 0
    assert result.output == f"Removed {cache}\n"
    assert not cache.exists()
    assert run(["clean"], project, env=env).output == f"No cache to remove at {cache}\n"


def test_clean_honours_cache_dir_and_keeps_what_it_did_not_write(project):
    other = project / "elsewhere"
    run(["--cache-dir", str(other), "app.py"], project)
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    result = run(["clean"], project, env={"RESLINT_CACHE_DIR": str(other)})
    assert "left alone what reslint did not write there: notes.txt" in result.output
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path):
    for i in range(210):
        (tmp_path / f"m{i}.py").write_text(CLEAN, encoding="utf-8")
    result = run(["--isolated", "--no-cache", "."], tmp_path)
    assert result.exit_code == 0
    assert result.stderr == ""


def test_progress_bar_only_on_a_terminal_and_for_long_runs():
    import io

    from reslint.cli import PROGRESS_MIN_FILES, _ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    short, long = Terminal(), Terminal()
    bar = _ProgressBar(short)
    for done in range(1, PROGRESS_MIN_FILES + 1):
        bar(done, PROGRESS_MIN_FILES)
    bar.close()
    assert short.getvalue() == ""
    bar = _ProgressBar(long)
    for done in range(1, PROGRESS_MIN_FILES + 2):
        bar(done, PROGRESS_MIN_FILES + 1)
    bar.close()
    assert "Checking" in long.getvalue() and f"{PROGRESS_MIN_FILES + 1}/{PROGRESS_MIN_FILES + 1}" in long.getvalue()


@pytest.mark.parametrize("error, said", [
    (RuntimeError("boom"), "internal error"),
    (ModuleNotFoundError("No module named 'pathspec'"), "a dependency is missing"),
])
def test_an_unexpected_error_exits_2_not_1(tmp_path, monkeypatch, error, said):
    """Exit status 1 means "findings remain": a crash (a bug, or reslint run by a Python it is not
    installed in) must not read as that in CI."""
    import reslint.cli as cli

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(cli, "_settings", broken)
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    result = run(["app.py"], tmp_path)
    assert result.exit_code == 2
    assert said in result.stderr and result.stdout == ""
