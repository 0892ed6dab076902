"""Shadowed modules (a module file beside a package of the same name): no import loads them, so
their findings are not reported, with a warning; a file loaded by path or run is checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reslint.engine.shadowed import ShadowedModules, shadowing_package
from tests.test_cli import run
from tests.test_operator_scripts import project

CALL = "import requests\n\n\ndef stars():\n    return requests.get('https://api.example.invalid/stars')\n"
PACKAGE_INIT = "from .core import stars\n"
PACKAGE_CORE = "import requests\n\n\ndef stars():\n    return requests.get('https://api.example.invalid/stars', timeout=5)\n"


SHADOWED = {"app/providers.py": CALL, "app/__init__.py": "", "app/providers/__init__.py": PACKAGE_INIT,
            "app/providers/core.py": PACKAGE_CORE}


def check(tmp_path: Path, *paths: str):
    result = run(["-f", "concise", "--no-cache", *(paths or (".",))], tmp_path)
    assert result.exit_code in (0, 1), result.output
    return result


def test_a_module_a_package_shadows_is_not_reported_and_the_run_says_so(tmp_path):
    project(tmp_path, SHADOWED)
    result = check(tmp_path)
    assert result.exit_code == 0 and "RES101" not in result.stdout
    assert "app/providers.py: 1 finding(s) not reported: the package app/providers/ shadows this module" \
        in result.stderr


def test_named_alone_it_is_left_out_too(tmp_path):
    project(tmp_path, SHADOWED)
    result = check(tmp_path, "app/providers.py")
    assert result.exit_code == 0 and "not reported" in result.stderr


@pytest.mark.parametrize("loader", [
    # the package loads the old module by its path
    ("app/providers/__init__.py",
     "import importlib.util\nimport os\n\n_spec = importlib.util.spec_from_file_location(\n"
     "    'app._legacy', os.path.join(os.path.dirname(__file__), '..', 'providers.py'))\n"),
    # any other file spelling its path
    ("tools/load.py", "LEGACY = 'app/providers.py'\n"),
    # an automation file runs it
    ("Makefile", "legacy:\n\tpython app/providers.py\n"),
])
def test_a_module_loaded_by_path_or_run_is_reported(tmp_path, loader):
    name, text = loader
    project(tmp_path, {**SHADOWED, name: text})
    result = check(tmp_path)
    assert "app/providers.py:5:12: RES101" in result.stdout and "not reported" not in result.stderr


def test_a_module_that_runs_as_a_program_is_reported(tmp_path):
    project(tmp_path, {**SHADOWED, "app/providers.py": CALL + "\n\nif __name__ == '__main__':\n    stars()\n"})
    assert "app/providers.py:5:12: RES101" in check(tmp_path).stdout


@pytest.mark.parametrize("text", [
    "# test_providers.py covers the package\n",       # another file's name ending with it
    "PATH = 'app/providers.pyc'\n",                     # another suffix
    "MODULE = 'providers.py_old'\n",
])
def test_a_name_that_only_contains_the_file_name_loads_nothing(tmp_path, text):
    project(tmp_path, {**SHADOWED, "tests/notes.py": text})
    assert "RES101" not in check(tmp_path).stdout


def test_its_own_mention_of_its_name_loads_nothing(tmp_path):
    project(tmp_path, {**SHADOWED, "app/providers.py": "# app/providers.py: the old providers\n" + CALL})
    assert "RES101" not in check(tmp_path).stdout


def test_a_directory_without_init_does_not_shadow_and_neither_does_a_non_module(tmp_path):
    project(tmp_path, {"app/__init__.py": "", "app/providers.py": CALL, "app/providers/data.txt": "x\n",
                       "app/my-tool.py": CALL, "app/my-tool/__init__.py": ""})
    assert shadowing_package(str(tmp_path / "app" / "providers.py")) is None
    assert shadowing_package(str(tmp_path / "app" / "my-tool.py")) is None
    output = check(tmp_path).stdout
    assert "app/providers.py:5:12: RES101" in output and "app/my-tool.py:5:12: RES101" in output


def test_a_python_file_that_cannot_be_read_may_be_the_loader(tmp_path, monkeypatch):
    project(tmp_path, {**SHADOWED, "tools/load.py": "print('loads something')\n"})
    import reslint.engine.project_text as shadowed

    real = shadowed.read_regular

    def denied(path, *args, **kwargs):
        if os.fspath(path).endswith("load.py"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(shadowed, "read_regular", denied)
    module = str(tmp_path / "app" / "providers.py")
    assert ShadowedModules(tmp_path).left_out([(module, CALL)], lambda path: False) == {}
    monkeypatch.setattr(shadowed, "read_regular", real)
    assert ShadowedModules(tmp_path).left_out([(module, CALL)], lambda path: False) == {module: "app/providers"}


def test_virtual_environments_and_hidden_directories_are_not_searched(tmp_path):
    project(tmp_path, {**SHADOWED, ".venv/pyvenv.cfg": "home = /usr\n",
                       ".venv/lib/loader.py": "LEGACY = 'providers.py'\n",
                       "env/pyvenv.cfg": "home = /usr\n", "env/lib/loader.py": "LEGACY = 'providers.py'\n"})
    assert "RES101" not in check(tmp_path).stdout


def test_the_cache_does_not_keep_a_module_hidden_once_something_loads_it(tmp_path):
    project(tmp_path, SHADOWED)
    first = run(["-f", "concise", "."], tmp_path)
    assert first.exit_code == 0
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "load.py").write_text("LEGACY = 'app/providers.py'\n", encoding="utf-8")
    second = run(["-f", "concise", "."], tmp_path)
    assert second.exit_code == 1 and "app/providers.py:5:12: RES101" in second.stdout


def test_a_syntax_error_in_a_shadowed_module_is_still_reported(tmp_path):
    project(tmp_path, {**SHADOWED, "app/providers.py": "import requests\n\ndef broken(:\n"})
    assert "app/providers.py:3:12: RES000" in check(tmp_path).stdout


def test_show_settings_says_a_module_is_shadowed_and_loaded_by_nothing(tmp_path):
    project(tmp_path, SHADOWED)
    shown = run(["show-settings", "app/providers.py"], tmp_path).stdout
    assert "shadowed by the package app/providers/ and loaded or run by nothing" in shown
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "load.py").write_text("LEGACY = 'app/providers.py'\n", encoding="utf-8")
    assert "shadowed" not in run(["show-settings", "app/providers.py"], tmp_path).stdout


def test_the_language_server_leaves_out_what_reslint_check_leaves_out(tmp_path):
    from reslint.server.project import Project

    project(tmp_path, SHADOWED)
    path = str(tmp_path / "app" / "providers.py")
    checked = Project(tmp_path, use_cache=False).check({path: CALL})
    assert checked[path].findings == []


def test_a_project_that_loads_files_by_a_pattern_keeps_every_shadowed_module_checked(tmp_path):
    loader = ("import importlib.util\nfrom pathlib import Path\n\nfor path in Path('app').glob('*.py'):\n"
              "    spec = importlib.util.spec_from_file_location(path.stem, path)\n")
    project(tmp_path, {**SHADOWED, "loader.py": loader})
    assert "app/providers.py:5:12: RES101" in check(tmp_path).stdout


def test_a_test_that_loads_its_fixtures_by_path_loads_no_shadowed_module(tmp_path):
    loader = "import importlib.util\n\nSPEC = importlib.util.spec_from_file_location('fixture', 'fixture.py')\n"
    project(tmp_path, {**SHADOWED, "tests/test_loader.py": loader})
    assert "RES101" not in check(tmp_path).stdout
