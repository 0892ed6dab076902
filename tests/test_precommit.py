"""The pre-commit hooks, run by the real ``pre-commit try-repo`` against this repository.

Needs the network (pre-commit installs reslint and its dependencies from PyPI into an
isolated environment, a minute or so), so it runs only when ``pre-commit`` is
importable and ``RESLINT_NETWORK_TESTS=1`` is set:

    pip install pre-commit && RESLINT_NETWORK_TESTS=1 python -m pytest tests/test_precommit.py

``try-repo`` installs from a git commit. The test commits a snapshot of this working
tree (tracked and untracked files, less what ``.gitignore`` excludes) into a temporary
repository and points ``try-repo`` at that, so it tests the code as it is on disk and
never touches this repository's index or history.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def needs_network(test):
    for mark in (
        pytest.mark.network,
        pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed"),
        pytest.mark.skipif(os.environ.get("RESLINT_NETWORK_TESTS") != "1", reason="set RESLINT_NETWORK_TESTS=1"),
        pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    ):
        test = mark(test)
    return test


FAULTY = "import requests\n\n\ndef load(url):\n    return requests.get(url).json()\n"
FIXED = "import requests\n\n\ndef load(url):\n    return requests.get(url, timeout=5).json()\n"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "reslint tests", "GIT_AUTHOR_EMAIL": "tests@reslint.invalid",
    "GIT_COMMITTER_NAME": "reslint tests", "GIT_COMMITTER_EMAIL": "tests@reslint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _env(home: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "SKIP"))}
    env.update(GIT_ENV, HOME=str(home), PRE_COMMIT_COLOR="never", NO_COLOR="1")
    return env


def git(cwd: Path, env, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot(dest: Path, env) -> Path:
    """Commit this working tree (tracked + untracked, not ignored) into a new repository."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: pre-commit try-repo needs one")
    listed = git(REPO, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    dest.mkdir()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if not source.is_file():  # deleted in the working tree
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git(dest, env, "init", "-q")
    git(dest, env, "add", "-A")
    git(dest, env, "commit", "-q", "-m", "snapshot")
    return dest


def _try_repo(repo: Path, project: Path, env):
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), "reslint", "--all-files", "--color", "never"],
        cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_manifest_declares_both_hooks():
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    assert set(hooks) == {"reslint", "reslint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python" and "args" not in hook
        assert hook["types_or"] == ["python", "pyi"] and hook["require_serial"] is True
    # pre-commit names every staged file: --force-exclude makes `exclude` apply to them too
    assert hooks["reslint"]["entry"] == "reslint check --force-exclude"
    # --fix lives in `entry`, so a user's `args: [--unsafe-fixes]` adds to it instead of replacing it
    assert hooks["reslint-fix"]["entry"] == "reslint check --fix --force-exclude"


def test_fix_hook_with_user_args_applies_unsafe_fixes(tmp_path):
    """What pre-commit runs for `- id: reslint-fix` with `args: [--unsafe-fixes]`: the entry's
    words, then the args, then the staged file names."""
    yaml = pytest.importorskip("yaml")
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    (tmp_path / "fetch.py").write_text("import requests\n\nrequests.get('https://example.com')\n", "utf-8")
    entry = hooks["reslint-fix"]["entry"].split()
    command = [sys.executable, "-m", "reslint", *entry[1:], "--unsafe-fixes", "--no-cache", "fetch.py"]
    proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "fetch.py").read_text("utf-8") == \
        "import requests\n\nrequests.get('https://example.com', timeout=10)\n"


@needs_network
def test_hook_fails_on_a_fault_and_passes_after_the_fix(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    hooks = _snapshot(tmp_path / "reslint", env)

    project = tmp_path / "project"
    project.mkdir()
    git(project, env, "init", "-q")
    (project / "service.py").write_text(FAULTY, encoding="utf-8")
    git(project, env, "add", "service.py")
    git(project, env, "commit", "-q", "-m", "a service without a timeout")

    failed = _try_repo(hooks, project, env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "RES101" in output and "service.py:5:12" in output, output

    (project / "service.py").write_text(FIXED, encoding="utf-8")
    git(project, env, "commit", "-q", "-am", "add the timeout")
    passed = _try_repo(hooks, project, env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "Passed" in output, output
