"""The Python API (:mod:`reslint.api`): findings without click, errors as exceptions."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reslint.api import ConfigError, DiscoveryError, LintError, lint_paths, lint_source, load
from reslint.diagnostics import Finding
from tests.test_cli import CLEAN, MISSING


@pytest.fixture()
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.reslint]\nper-file-ignores = { "jobs/*" = ["RES101"] }\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(MISSING, encoding="utf-8")
    (tmp_path / "src" / "ok.py").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "tool.py").write_text(MISSING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_lint_paths_returns_what_the_cli_reports(project):
    findings = lint_paths(["."])
    assert [(f.filename, f.location.row, f.location.column, f.code) for f in findings] == [("src/app.py", 5, 12,
                                                                                           "RES101")]
    (finding,) = findings
    assert isinstance(finding, Finding) and finding.fix is not None and finding.fix.edits[0].content == ", timeout=10"
    assert lint_paths("src/app.py") == findings == lint_paths([project / "src"])
    assert lint_paths([]) == []
    assert not (project / ".reslint_cache").exists()  # the API writes no cache unless asked


def test_lint_paths_config_select_ignore(project):
    assert lint_paths(".", ignore=["RES101"]) == []
    assert lint_paths(".", select="RES102") == []
    assert {f.filename for f in lint_paths(".", isolated=True)} == {"src/app.py", "jobs/tool.py"}
    other = project / "other.toml"
    other.write_text("max-timeout = 30\n", encoding="utf-8")
    assert len(lint_paths(".", config=other)) == 2  # a reslint.toml-style file: no per-file-ignores
    assert load(config=other).max_timeout == 30


def test_lint_paths_missing_path_is_a_finding(project, capsys):
    """A missing path was a DiscoveryError; now it is RES000, as on the command line, and the
    other paths are linted (DiscoveryError stays importable for old callers)."""
    findings = lint_paths(["nope.py", "src"])
    assert [(f.filename, f.code, f.location.row, f.location.column, f.message) for f in findings] == [
        ("nope.py", "RES000", 1, 1, "no such file or directory"),
        ("src/app.py", "RES101", 5, 12, findings[1].message)]
    assert capsys.readouterr().err == "reslint: warning: nope.py: no such file or directory\n"
    assert issubclass(DiscoveryError, Exception)


def test_lint_paths_errors(project):
    with pytest.raises(ConfigError, match="RES999"):
        lint_paths(".", select=["RES999"])
    (project / "pyproject.toml").write_text("[tool.reslint]\nmax-timout = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown key `tool.reslint.max-timout`"):
        lint_paths(".")
    with pytest.raises(ConfigError, match="configuration file not found"):
        lint_paths(".", config=project / "missing.toml", isolated=False)


def test_lint_source(project):
    (finding,) = lint_source(MISSING, "src/service.py")
    assert finding.filename == "src/service.py" and finding.code == "RES101"
    assert lint_source(MISSING, "jobs/x.py") == []  # per-file-ignores follow the filename
    assert lint_source(CLEAN) == []
    assert [f.filename for f in lint_source(MISSING)] == ["<stdin>"]
    (syntax,) = lint_source("import requests\ndef broken(:\n", "bad.py")
    assert syntax.code == "RES000" and syntax.location.row == 2
    settings = load(isolated=True)
    assert len(lint_source(MISSING, "jobs/x.py", settings=settings)) == 1
    assert lint_source(MISSING, "jobs/x.py", settings=settings, ignore="missing-timeout") == []
    with pytest.raises(TypeError):
        lint_source(MISSING.encode(), "a.py")
    with pytest.raises(ConfigError):
        lint_source(MISSING, select=["nope"])


def test_lint_error_keeps_the_findings():
    error = LintError(["a.py: internal error in RES101"], [])
    assert error.errors == ["a.py: internal error in RES101"] and error.findings == []
    assert isinstance(error, RuntimeError)


def test_api_does_not_import_click():
    code = ("import sys; from reslint.api import lint_source; "
            "assert lint_source('import requests\\nrequests.get(u)\\n', isolated=True); "
            "assert 'click' not in sys.modules, 'click imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
