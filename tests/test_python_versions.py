"""The supported Pythons are stated once per place and agree: ``requires-python``, the
classifiers, the README and the versions ``.ci/run`` tests (its oldest is requires-python's
floor, its newest the newest classifier)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")


def _version(text: str):
    return tuple(int(part) for part in text.split("."))


def _classified():
    prefix = "Programming Language :: Python :: "
    return sorted(_version(c[len(prefix):]) for c in PROJECT["classifiers"]
                  if re.fullmatch(re.escape(prefix) + r"3\.\d+", c))


def _ci(name: str):
    found = re.search(rf"^{name}=(3\.\d+)$", CI, re.M)
    assert found, f".ci/run sets no {name}"
    return _version(found.group(1))


def test_requires_python_floor_is_the_oldest_classifier_and_what_ci_tests():
    floor = re.fullmatch(r">=(3\.\d+)", PROJECT["requires-python"])
    assert floor, PROJECT["requires-python"]
    assert _version(floor.group(1)) == _classified()[0] == _ci("OLDEST") == (3, 10)


def test_classifiers_list_every_version_from_the_oldest_to_the_newest_ci_tests():
    oldest, newest = _ci("OLDEST"), _ci("NEWEST")
    assert _classified() == [(3, minor) for minor in range(oldest[1], newest[1] + 1)]
    assert "Programming Language :: Python :: 3 :: Only" in PROJECT["classifiers"]


def test_readme_states_the_range():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    oldest, newest = (".".join(map(str, _ci(name))) for name in ("OLDEST", "NEWEST"))
    assert f"**Python {oldest} to {newest}**" in readme
    assert f'`requires-python = ">={oldest}"`' in readme
    assert f"## Try it (fresh machine, Python {oldest} or later)" in readme
    assert "3.9+" not in readme and "≥ 3.9" not in readme


def test_ci_runs_the_suite_without_slow_tests_on_oldest_and_newest_and_skips_a_missing_one():
    assert '.venv/bin/python -m pytest\n' in CI  # the whole suite on the default python3 first
    assert CI.index(".venv/bin/python -m pytest\n") < CI.index('for version in "$OLDEST" "$NEWEST"; do')
    assert '-m pytest -m "not slow"' in CI
    assert "skipping its run" in CI
