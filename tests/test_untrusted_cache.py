"""The cache is untrusted input (issue 13): it lives in the checked repository, so a pull
request can plant anything there. Nothing planted may run code, hide a finding, crash the
run or make reslint write outside the cache.

Each project holds one file with one real finding (RES101); every test asserts that the
finding is still reported, so a test cannot pass by reslint reporting nothing.
"""

from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import reslint.engine.cache as cache_module
from reslint.engine.cache import CACHE_DIR_NAME, Cache, cache_key, file_key, seal
from reslint.cli import main
from reslint.config import load_settings
from reslint.engine.runner import Runner

WITNESS = 'import requests\n\n\ndef fetch(url):\n    return requests.get(url)\n'

pytestmark = pytest.mark.skipif(not cache_module.SUPPORTED, reason="no link-safe cache on this platform")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    path = root / "app.py"
    path.write_text(WITNESS, encoding="utf-8")
    old = 1_600_000_000
    os.utime(path, (old, old))  # old enough for the stat index and the last-run record
    return root


def check(project: Path, *args: str):
    """``reslint check`` in ``project`` with its default cache; (exit code, stdout, stderr)."""
    old = os.getcwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(main, ["-f", "concise", *args, "."], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def assert_reported(code: int, out: str) -> None:
    assert code == 1, out
    assert "app.py:5:12: RES101" in out, out


def scope_dir(project: Path) -> Path:
    return project / CACHE_DIR_NAME / Cache(project / CACHE_DIR_NAME, load_settings(project)).scope


def entry_key(project: Path) -> str:
    return file_key("app.py", (project / "app.py").read_bytes(), "app")


def run_state(project: Path) -> list:
    st = os.stat(project / "app.py")
    return [["app.py", [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_dev, "app"]]]


class Payload:
    """Unpickling this creates the marker file: what a crafted pickle would do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


def plant_everywhere(project: Path, data: bytes) -> None:
    """``data`` as every cache file reslint reads, under the old pickle names and the new ones."""
    scope = scope_dir(project)
    key = entry_key(project)
    (scope / key[:2]).mkdir(parents=True, exist_ok=True)
    for name in ("last-run.pickle", "index.pickle", "last-run.json", "index.json",
                 f"{key[:2]}/{key}.pickle", f"{key[:2]}/{key}.json"):
        (scope / name).write_bytes(data)


def test_a_planted_pickle_never_runs(project, tmp_path):
    marker = tmp_path / "marker"
    payload = pickle.dumps(Payload(marker))
    plant_everywhere(project, payload)
    assert_reported(*check(project)[:2])
    plant_everywhere(project, cache_module.MAGIC + b"0" * 64 + b"\n" + payload)
    assert_reported(*check(project)[:2])
    assert not marker.exists()


def test_a_forged_clean_entry_never_hides_a_finding(project):
    """Entries that say "no findings", sealed with a key that is not this user's: a cache copied
    from another machine, or one an attacker made with a key of their own."""
    foreign = b"file:" + b"a" * 64
    scope = scope_dir(project)
    key = entry_key(project)
    clean_value = [[], [], None, [], [], False]
    files = {
        f"{key[:2]}/{key}.json": clean_value,
        "./index.json": {"app.py": [run_state(project)[0][1], key, clean_value]},
        "./last-run.json": [cache_module.state_digest(tuple((d, tuple(sig)) for d, sig in run_state(project))), {}],
    }
    for name, value in files.items():
        path = scope / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(seal(foreign, scope.name, name, json.dumps(value).encode()))
    assert_reported(*check(project)[:2])
    # the same entries sealed with this user's key would be believed: the test is not vacuous
    for name, value in files.items():
        (scope / name).write_bytes(seal(cache_key(), scope.name, name, json.dumps(value).encode()))
    code, out, _ = check(project)
    assert code == 0 and "RES101" not in out


def test_a_genuine_entry_moved_to_another_place_does_not_verify(project, tmp_path):
    """An entry this user's reslint wrote for a clean file, copied into the place of the file
    with a finding: the HMAC covers the entry's name, so it is a miss."""
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (clean / "app.py").write_text("import requests\n\n\ndef fetch(url):\n    return requests.get(url, timeout=5)\n",
                                  encoding="utf-8")
    assert check(clean)[0] == 0
    clean_entry = next((clean / CACHE_DIR_NAME).glob("*/??/*.json"))
    assert scope_dir(clean).name == scope_dir(project).name  # same settings, same scope
    key = entry_key(project)
    target = scope_dir(project) / key[:2] / f"{key}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(clean_entry.read_bytes())
    assert_reported(*check(project)[:2])


@pytest.mark.parametrize("value", [
    ["findings"],
    [[], [], None, [], [], "no"],  # a string where a bool belongs
    [[["RES101"]], [], None, [], [], False],  # a finding of the wrong arity
    [[["RES101", "n", "error", "m", "app.py", [True, 1], [1, 2], None, 0, []]], [], None, [], [], False],
    [[["RES101", "n", "error", "m", "app.py", [1, 1], [1, 2], ["fix", "sometimes", []], 0, []]],
     [], None, [], [], False],  # an applicability that does not exist
    [[], [], ["module"], [], [], False],  # a summary of the wrong shape
    {"findings": []},
    None,
    7,
])
def test_an_authentic_entry_of_the_wrong_shape_is_a_miss(project, value):
    scope = scope_dir(project)
    key = entry_key(project)
    name = f"{key[:2]}/{key}.json"
    (scope / key[:2]).mkdir(parents=True)
    (scope / name).write_bytes(seal(cache_key(), scope.name, name, json.dumps(value).encode()))
    for other in ("index.json", "last-run.json"):
        (scope / other).write_bytes(seal(cache_key(), scope.name, f"./{other}", json.dumps(value).encode()))
    code, out, err = check(project)
    assert_reported(code, out)
    assert "Traceback" not in err


def test_a_symlinked_cache_directory_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / CACHE_DIR_NAME).symlink_to(outside, target_is_directory=True)
    code, out, err = check(project)
    assert_reported(code, out)
    assert err.count("symbolic link") == 1 and "running without a cache" in err, err
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", [".gitignore", "CACHEDIR.TAG"])
def test_dangling_links_in_the_cache_are_never_written_through(project, tmp_path, name):
    target = tmp_path / "created-through-a-link"
    cache = project / CACHE_DIR_NAME
    cache.mkdir()
    (cache / name).symlink_to(target)
    assert_reported(*check(project)[:2])
    assert not target.exists()


def test_links_inside_the_scope_are_never_written_through(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    scope = scope_dir(project)
    key = entry_key(project)
    scope.mkdir(parents=True)
    (scope / "index.json").symlink_to(victim)
    (scope / "last-run.json").symlink_to(outside / "new-file")
    (scope / key[:2]).symlink_to(outside, target_is_directory=True)
    code, out, err = check(project)
    assert_reported(code, out)
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
    assert "symbolic link" in err


def test_a_symlinked_scope_directory_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    scope = scope_dir(project)
    scope.parent.mkdir()
    scope.symlink_to(outside, target_is_directory=True)
    code, out, err = check(project)
    assert_reported(code, out)
    assert list(outside.iterdir()) == []
    assert "symbolic link" in err


def test_a_fifo_in_the_cache_does_not_hang(project):
    scope = scope_dir(project)
    scope.mkdir(parents=True)
    os.mkfifo(scope / "index.json")
    os.mkfifo(scope / "last-run.json")
    proc = subprocess.run([sys.executable, "-m", "reslint", "-f", "concise", "."], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert_reported(proc.returncode, proc.stdout)


def test_the_key_is_made_once_private_and_outside_the_project(project):
    check(project)
    path = cache_module.key_path()
    assert project not in path.parents
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    before = path.read_bytes()
    check(project)
    assert path.read_bytes() == before


def test_a_key_others_can_read_is_not_used(project, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cache_module._KEYS.clear()
    path = cache_module.key_path()
    path.parent.mkdir(parents=True)
    path.write_text("b" * 64 + "\n", encoding="utf-8")
    path.chmod(0o644)
    try:
        code, out, err = check(project)
    finally:
        cache_module._KEYS.clear()
    assert_reported(code, out)
    assert "mode 0600" in err and "running without a cache" in err
    assert not (project / CACHE_DIR_NAME).exists()


def parsed(project: Path) -> list:
    return Runner(load_settings(project), jobs=1).run([project]).parsed


def test_a_shared_ci_key_lets_another_machine_use_the_cache(project, tmp_path, monkeypatch):
    """Two "machines" (two configuration directories) share a cache: with the same
    RESLINT_CACHE_KEY the second uses the first's entries; without it, it trusts none."""
    cache_module._KEYS.clear()
    try:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "machine-1"))
        monkeypatch.setenv("RESLINT_CACHE_KEY", "a shared secret of the CI job")
        assert parsed(project) == ["app.py"]
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "machine-2"))
        assert parsed(project) == []  # served from the cache
        monkeypatch.delenv("RESLINT_CACHE_KEY")
        assert parsed(project) == ["app.py"]  # machine-2's own key: the shared entries do not verify
    finally:
        cache_module._KEYS.clear()


def test_a_short_shared_key_is_refused(project, monkeypatch):
    monkeypatch.setenv("RESLINT_CACHE_KEY", "short")
    code, out, err = check(project)
    assert_reported(code, out)
    assert "RESLINT_CACHE_KEY must be at least 16 characters" in err


def test_a_file_rewritten_with_its_old_size_and_mtime_is_linted_again(project):
    """``tar -x`` or ``cp -p`` over a checked file restores the archive's mtime: the stat index
    must not take a changed file for the one it linted (the ctime changes)."""
    assert check(project)[0] == 1
    path = project / "app.py"
    st = path.stat()
    clean = WITNESS.replace("requests.get(url)", "requests_get(url)")  # same size, no finding
    assert len(clean) == len(WITNESS)
    path.write_text(clean, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    code, out, _ = check(project)
    assert code == 0, out
    path.write_text(WITNESS, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert_reported(*check(project)[:2])


def test_a_new_package_around_a_file_is_seen_with_the_cache(tmp_path):
    """A summary depends on the packages around a file (its module name): adding an
    ``__init__.py`` changes what the project pass sees without changing the file (under ``src/``,
    ``pkg`` is imported as a package of its own only once it has one: without, its modules are
    ``src.pkg.a`` from the project root)."""
    root = tmp_path / "p"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (root / "src" / "pkg" / "a.py").write_text(
        "import tenacity\nfrom pkg.b import inner\n\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(3), "
        "wait=tenacity.wait_random_exponential(max=5))\ndef outer():\n    return inner()\n", encoding="utf-8")
    (root / "src" / "pkg" / "b.py").write_text(
        "import tenacity\n\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(3), "
        "wait=tenacity.wait_random_exponential(max=5))\ndef inner():\n    return 1\n", encoding="utf-8")
    old = 1_600_000_000
    for path in root.rglob("*.py"):
        os.utime(path, (old, old))

    def nested():
        return sorted(f.code for r in Runner(load_settings(root), jobs=1).run([root]).results for f in r.findings)

    without = nested()
    (root / "src" / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    os.utime(root / "src" / "pkg" / "__init__.py", (old, old))
    uncached = sorted(f.code for r in Runner(load_settings(root), use_cache=False, jobs=1).run([root]).results
                      for f in r.findings)
    assert "RES301" in uncached and "RES301" not in without
    assert nested() == uncached


def clean(project: Path):
    old = os.getcwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(main, ["clean"], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def test_clean_never_follows_a_planted_cache_link(project, tmp_path):
    """``reslint clean`` with `.reslint_cache` a link to a directory of the user's that looks
    like a cache: nothing there may go."""
    victim = tmp_path / "victim"
    (victim / "1-0123456789abcdef").mkdir(parents=True)
    (victim / "1-0123456789abcdef" / "precious.txt").write_text("mine\n", encoding="utf-8")
    (victim / ".gitignore").write_text("*\n", encoding="utf-8")
    (project / CACHE_DIR_NAME).symlink_to(victim, target_is_directory=True)
    code, out, err = clean(project)
    assert code == 0 and "symbolic link: nothing removed" in err
    assert (victim / "1-0123456789abcdef" / "precious.txt").read_text(encoding="utf-8") == "mine\n"
    assert (victim / ".gitignore").exists() and (project / CACHE_DIR_NAME).is_symlink()


def test_clean_does_not_read_a_planted_giant_marker(project):
    cache = project / CACHE_DIR_NAME
    cache.mkdir()
    with open(cache / ".gitignore", "wb") as handle:
        handle.truncate(8 * 1024 ** 3)  # sparse: 8 GiB that would fill memory if read
    code, out, err = clean(project)
    assert code == 0 and ".gitignore" in out  # left alone, named
    assert (cache / ".gitignore").stat().st_size == 8 * 1024 ** 3


def test_clean_removes_what_reslint_wrote(project):
    assert check(project)[0] == 1
    assert (project / CACHE_DIR_NAME / "CACHEDIR.TAG").exists()
    code, out, _ = clean(project)
    assert code == 0 and not (project / CACHE_DIR_NAME).exists(), out


def test_a_giant_planted_entry_is_not_read(project):
    """A sparse multi-GB file in an entry's place costs nothing: it does not start like a cache
    file, and entries have a size cap."""
    scope = scope_dir(project)
    key = entry_key(project)
    (scope / key[:2]).mkdir(parents=True)
    for path in (scope / key[:2] / f"{key}.json", scope / "index.json"):
        with open(path, "wb") as handle:
            handle.write(cache_module.MAGIC)
            handle.truncate(4 * 1024 ** 3)
    proc = subprocess.run([sys.executable, "-m", "reslint", "-f", "concise", "."], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert_reported(proc.returncode, proc.stdout)


@pytest.mark.parametrize("pyproject", [
    "[project]\ndependencies = 5\n",
    "[project]\ndependencies = true\n",
    "[project]\noptional-dependencies = { a = 5 }\n",
    "[project]\noptional-dependencies = 3\n",
    "project = 'x'\n",
    "[project]\ndependencies = [1, 'requests', {a = 1}]\n",
])
def test_wrong_types_in_the_project_table_do_not_crash(project, pyproject):
    (project / "pyproject.toml").write_text(pyproject + "[tool.reslint]\n", encoding="utf-8")
    code, out, err = check(project)
    assert_reported(code, out)
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["pyproject.toml", "requirements-dev.txt", ".gitignore"])
def test_giant_or_device_text_files_of_the_checkout_are_not_read(tmp_path, name):
    root = tmp_path / "p"
    root.mkdir()
    (root / "app.py").write_text(WITNESS, encoding="utf-8")
    (root / name).symlink_to("/dev/zero")
    proc = subprocess.run([sys.executable, "-m", "reslint", "-f", "concise", "."], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "app.py:5:12: RES101" in proc.stdout, proc.stderr
    (root / name).unlink()
    with open(root / name, "wb") as handle:
        handle.truncate(4 * 1024 ** 3)  # a sparse regular file of 4 GiB
    proc = subprocess.run([sys.executable, "-m", "reslint", "-f", "concise", "."], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    if name == "pyproject.toml":  # a configuration that cannot be read is an error naming it
        assert proc.returncode == 2 and proc.stderr.strip().endswith("pyproject.toml: cannot read: larger than 16 MiB")
    else:  # a .gitignore is warned about; requirement pins only key the cache
        assert "app.py:5:12: RES101" in proc.stdout, proc.stderr
        assert ("larger than 16 MiB" in proc.stderr) == (name == ".gitignore"), proc.stderr


def test_the_code_fingerprint_covers_every_module_of_reslint(monkeypatch):
    """A changed rule or analysis module (a development checkout, the same version number) must not
    leave a stale entry valid: the fingerprint reads every module of the package, not only the
    engine's (a move of the cache into reslint/engine/ once narrowed it to that directory)."""
    import reslint

    package = Path(reslint.__file__).resolve().parent
    listed = []

    def recording(path, *args, **kwargs):
        listed.append(os.fspath(path))
        return os.stat(os.fspath(path))

    monkeypatch.setattr(Path, "stat", recording)
    cache_module._code_fingerprint()
    for module in ("rules/res101_missing_timeout.py", "analysis/loops.py", "catalog/timeouts.py",
                   "libraries/tenacity.py", "engine/cache.py"):
        assert os.fspath(package / module) in listed, module
