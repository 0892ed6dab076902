"""Paths a stranger's repository can hold, or a command line can name, that must neither hang the
run, hide files without a word, nor stop the other files from being checked: a named pipe called
``.gitignore`` or ``requirements.txt``, a directory that cannot be read, a pipe or a device named
on the command line, a path that does not exist, and worker processes that cannot start.

Runs that could hang run in a subprocess with a timeout.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import List, Tuple

import pytest
from click.testing import CliRunner

from reslint.cli import main
from reslint.config import Settings
from reslint.output import FORMATS

WITNESS_NAME = "zz_witness.py"
WITNESS = 'import requests\nrequests.get("http://x")\n'  # RES101 at 2:1: the run went on
WITNESS_ROW = (WITNESS_NAME, "RES101", 2, 1)
DENIED = os.strerror(errno.EACCES)

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")


def project_with(tmp_path: Path, *dirs: str) -> Path:
    """A project (``pyproject.toml`` with ``[tool.reslint]``) holding the witness file and ``dirs``."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (project / WITNESS_NAME).write_text(WITNESS, encoding="utf-8")
    for name in dirs:
        (project / name).mkdir(parents=True)
    return project


def run_proc(project: Path, *args: str, cache: bool = False) -> subprocess.CompletedProcess:
    """``python -m reslint ARGS`` in ``project``, killed after 60 s (a hang fails the test)."""
    argv = [sys.executable, "-m", "reslint", *args]
    env = dict(os.environ, NO_COLOR="1", RESLINT_CACHE_DIR=str(project.parent / "cache"))
    if not cache:
        argv.insert(3, "--no-cache")
    return subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=60)


def run_cli(project: Path, *args: str, command: str = "check"):
    """``reslint COMMAND --no-cache ARGS`` in-process in ``project``: (exit code, stdout, stderr)."""
    old = os.getcwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(main, [command, "--no-cache", *args], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def rows(stdout: str) -> List[Tuple[str, str, int, int]]:
    """(filename, code, row, column) of ``-f json`` output."""
    return [(r["filename"], r["code"], r["location"]["row"], r["location"]["column"]) for r in json.loads(stdout)]


def messages(stdout: str) -> dict:
    """filename -> message of the RES000 findings of ``-f json`` output."""
    return {r["filename"]: r["message"] for r in json.loads(stdout) if r["code"] == "RES000"}


def warnings(stderr: str) -> List[str]:
    return [line for line in stderr.splitlines() if line.startswith("reslint: warning: ")]


# -- 1. a named pipe called .gitignore (or requirements.txt) ------------------------------------
@needs_fifo
@pytest.mark.parametrize("target", [".", "sub"])
def test_fifo_gitignore_at_the_top_and_in_a_subdirectory_does_not_hang(tmp_path, target):
    """Reading a pipe blocks until a writer comes: forever. Each is skipped with one warning;
    a walk of ``sub`` reads the top one too (the root's ignores apply below it)."""
    project = project_with(tmp_path, "sub")
    os.mkfifo(project / ".gitignore")
    os.mkfifo(project / "sub" / ".gitignore")
    (project / "sub" / WITNESS_NAME).write_text(WITNESS, encoding="utf-8")
    proc = run_proc(project, "-f", "json", target)
    found = rows(proc.stdout)
    witness = WITNESS_ROW if target == "." else (f"sub/{WITNESS_NAME}", *WITNESS_ROW[1:])
    assert witness in found, proc.stderr
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    said = warnings(proc.stderr)
    assert len([w for w in said if w.endswith("sub/.gitignore: not a regular file, ignored")]) == 1, said
    assert len([w for w in said if w.endswith(".gitignore: not a regular file, ignored")]) == 2, said


@needs_fifo
def test_fifo_requirements_txt_does_not_hang_a_cached_run(tmp_path):
    """The cache key reads the project's requirements files: a pipe among them is not read."""
    project = project_with(tmp_path)
    os.mkfifo(project / "requirements.txt")
    (project / "requirements-dev.txt").write_text("urllib3<2\n", encoding="utf-8")
    proc = run_proc(project, "-f", "json", ".", cache=True)
    assert WITNESS_ROW in rows(proc.stdout), proc.stderr
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_a_gitignore_that_is_a_directory_is_ignored_with_a_warning(tmp_path):
    project = project_with(tmp_path, ".gitignore")
    code, out, err = run_cli(project, "--isolated", "-f", "json", ".")
    assert (code, rows(out)) == (1, [WITNESS_ROW])
    assert warnings(err) == ["reslint: warning: .gitignore: not a regular file, ignored"]


@needs_fifo
def test_read_regular_does_not_block_on_a_pipe_swapped_in_after_the_check(tmp_path):
    """The race: ``stat`` saw a regular file, a pipe took its place before ``open``. The open is
    non-blocking and the open file is checked again, so nothing waits for a writer."""
    os.mkfifo(tmp_path / "pipe")
    code = (
        "import os, stat, sys\n"
        "from reslint.engine import discovery\n"
        "real = os.stat\n"
        "class Regular:\n"
        "    st_mode = stat.S_IFREG | 0o644\n"
        "discovery.os.stat = lambda path, *a, **k: Regular() if str(path).endswith('pipe') else real(path, *a, **k)\n"
        "try:\n"
        "    discovery.read_regular(sys.argv[1])\n"
        "except discovery.NotRegularFile:\n"
        "    print('not regular')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "pipe")], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout == "not regular\n", proc.stderr


# -- 2. a directory that cannot be read -----------------------------------------------------------
def _deny(monkeypatch, *names: str) -> None:
    """``os.scandir`` of a directory called one of ``names`` raises EACCES, as ``chmod 000`` does
    for a user who is not root (root reads any directory, so the tests cannot use the mode)."""
    real = os.scandir

    def scandir(path="."):
        if os.path.basename(os.path.normpath(os.fspath(path))) in names:
            raise PermissionError(errno.EACCES, DENIED, os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_unreadable_directory_is_a_finding_and_a_warning(tmp_path, monkeypatch):
    project = project_with(tmp_path, "locked", "pkg/deep")
    (project / "locked" / "hidden.py").write_text(WITNESS, encoding="utf-8")
    (project / "pkg" / "deep" / "hidden.py").write_text(WITNESS, encoding="utf-8")
    _deny(monkeypatch, "locked", "deep")
    code, out, err = run_cli(project, "-f", "json", ".")
    assert sorted(rows(out)) == [("locked", "RES000", 1, 1), ("pkg/deep", "RES000", 1, 1), WITNESS_ROW]
    assert messages(out) == {"locked": f"cannot read directory: {DENIED}",
                             "pkg/deep": f"cannot read directory: {DENIED}"}
    assert code == 1
    assert warnings(err) == [f"reslint: warning: locked: cannot read directory: {DENIED}",
                             f"reslint: warning: pkg/deep: cannot read directory: {DENIED}"]


def test_unreadable_directory_named_explicitly_and_twice_is_reported_once(tmp_path, monkeypatch):
    project = project_with(tmp_path, "locked")
    _deny(monkeypatch, "locked")
    code, out, err = run_cli(project, "-f", "json", "locked", "./locked", WITNESS_NAME)
    assert (code, sorted(rows(out))) == (1, [("locked", "RES000", 1, 1), WITNESS_ROW])
    assert warnings(err) == [f"reslint: warning: locked: cannot read directory: {DENIED}"]


def test_unreadable_directory_with_res000_off_is_still_warned_about(tmp_path, monkeypatch):
    project = project_with(tmp_path, "locked")
    _deny(monkeypatch, "locked")
    code, out, err = run_cli(project, "--ignore", "RES000", "-f", "json", ".")
    assert (code, rows(out)) == (1, [WITNESS_ROW])
    assert warnings(err) == [f"reslint: warning: locked: cannot read directory: {DENIED}"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads a directory whatever its mode: the simulated tests cover this")
def test_unreadable_directory_by_its_mode(tmp_path):
    project = project_with(tmp_path, "locked")
    (project / "locked" / "hidden.py").write_text(WITNESS, encoding="utf-8")
    os.chmod(project / "locked", 0)
    try:
        code, out, err = run_cli(project, "-f", "json", ".")
    finally:
        os.chmod(project / "locked", 0o755)
    assert (code, sorted(rows(out))) == (1, [("locked", "RES000", 1, 1), WITNESS_ROW])
    assert warnings(err) == [f"reslint: warning: locked: cannot read directory: {DENIED}"]


# -- 3. a pipe or a device named on the command line ----------------------------------------------
@needs_fifo
def test_pipe_and_device_named_explicitly_are_skipped_with_a_warning(tmp_path):
    project = project_with(tmp_path)
    os.mkfifo(project / "pipe.py")
    (project / "link.py").symlink_to("pipe.py")
    argv = ["pipe.py", "link.py", WITNESS_NAME]
    if os.path.exists("/dev/null"):
        argv.insert(2, "/dev/null")
    proc = run_proc(project, "-f", "json", *argv)
    assert rows(proc.stdout) == [WITNESS_ROW], proc.stderr
    assert proc.returncode == 1
    expected = [f"reslint: warning: {name}: not a regular file, skipped" for name in argv[:-1]]
    assert warnings(proc.stderr) == expected


# -- 4. a path that does not exist ----------------------------------------------------------------
def test_missing_paths_are_findings_and_the_others_are_linted(tmp_path):
    project = project_with(tmp_path)
    code, out, err = run_cli(project, "-f", "json", "nope.py", "gone/", WITNESS_NAME, "nope.py")
    assert (code, sorted(rows(out))) == (1, [("gone", "RES000", 1, 1), ("nope.py", "RES000", 1, 1), WITNESS_ROW])
    assert messages(out) == {"gone": "no such file or directory", "nope.py": "no such file or directory"}
    assert warnings(err) == ["reslint: warning: nope.py: no such file or directory",
                             "reslint: warning: gone: no such file or directory"]  # click drops the /


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_shows_what_could_not_be_listed(tmp_path, monkeypatch, fmt):
    project = project_with(tmp_path, "locked")
    _deny(monkeypatch, "locked")
    code, out, err = run_cli(project, "-f", fmt, "nope.py", ".")
    assert code == 1, err
    assert "nope.py" in out and "locked" in out and WITNESS_NAME in out
    assert "no such file or directory" in out and f"cannot read directory: {DENIED}" in out
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(out)
    elif fmt == "json-lines":
        assert len([json.loads(line) for line in out.splitlines()]) == 3


def test_fix_with_a_missing_path_fixes_the_others_and_warns_once(tmp_path):
    project = project_with(tmp_path)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", "nope.py", WITNESS_NAME)
    assert (code, rows(out)) == (1, [("nope.py", "RES000", 1, 1)])
    assert "timeout=" in (project / WITNESS_NAME).read_text(encoding="utf-8")
    assert warnings(err) == ["reslint: warning: nope.py: no such file or directory"]  # two runs, one warning


def test_graph_of_a_missing_path_is_still_an_error(tmp_path):
    """``reslint graph`` prints a graph, where a finding has no place."""
    project = project_with(tmp_path)
    code, out, err = run_cli(project, "nope.py", command="graph")
    assert code == 2 and "reslint: error: nope.py: no such file or directory" in err


# -- 5. worker processes that cannot start --------------------------------------------------------
class _FailsToStart(ProcessPoolExecutor):
    """Starts one worker (a real process), then fails as a forkserver that cannot start does."""

    started: list = []

    def submit(self, fn, *args, **kwargs):
        if type(self).started:
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        future = super().submit(fn, *args, **kwargs)
        type(self).started.extend((self._processes or {}).values())
        return future


def _many(tmp_path: Path, count: int = 70) -> Path:
    from reslint.engine.runner import PARALLEL_MIN_FILES

    assert count >= PARALLEL_MIN_FILES
    for index in range(count):
        (tmp_path / f"m{index:03}.py").write_text(WITNESS if index % 2 else f"{WITNESS}\nx = {index}\n",
                                                  encoding="utf-8")
    return tmp_path


def test_a_pool_that_cannot_start_falls_back_to_one_process(tmp_path, monkeypatch, capsys):
    from reslint.engine import workers
    from reslint.engine.runner import Runner

    root = _many(tmp_path)
    serial = Runner(Settings(root=root), use_cache=False, jobs=1).run([root])
    monkeypatch.setattr(_FailsToStart, "started", [])
    monkeypatch.setattr(workers, "ProcessPoolExecutor", _FailsToStart)
    runner = Runner(Settings(root=root), use_cache=False, jobs=2)
    fallback = runner.run([root])
    assert [r.findings for r in fallback.results] == [r.findings for r in serial.results]
    assert len([f for r in fallback.results for f in r.findings]) == 70
    assert not fallback.errors
    failure = OSError(errno.EAGAIN, "Resource temporarily unavailable")  # a BlockingIOError
    assert capsys.readouterr().err == (f"reslint: warning: could not start worker processes ({type(failure).__name__}: "
                                       f"{failure}); linting in one process\n")
    assert _FailsToStart.started and not any(p.is_alive() for p in _FailsToStart.started)  # none left behind
    runner.run([root])  # the same runner does not try again (a --fix run runs twice)
    assert capsys.readouterr().err == ""


def test_a_pool_that_cannot_start_on_the_command_line(tmp_path, monkeypatch):
    from reslint.engine import workers

    def cannot_start(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    root = _many(tmp_path)
    monkeypatch.setattr(workers, "_context", cannot_start)
    code, out, err = run_cli(root, "--isolated", "-j", "2", "-f", "json", ".")
    assert (code, len(rows(out))) == (1, 70)
    assert err.splitlines() == ["reslint: warning: could not start worker processes (PermissionError: [Errno "
                                f"{errno.EPERM}] Operation not permitted); linting in one process"]
