"""The cached re-run's shortcuts answer exactly as the longer ways they replace (issue 13's speed
item): the key's directory without platformdirs, the run's digest, display paths and module
names per directory, the decoders' fast cases, and the collector kept off the stat index."""

from __future__ import annotations

import dataclasses
import enum
import gc
import os
import sys
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

import platformdirs
import pytest

import reslint.engine.cache as cache_module
from reslint.config import load_settings
from reslint.diagnostics import Applicability, Edit, Finding, Fix, Location
from reslint.semantics.prefilter import module_name
from reslint.engine.results import Judge
from reslint.engine.runner import Runner
from reslint.engine.serial import Invalid, decoder, encode


# -- the key's directory ---------------------------------------------------------------------
@pytest.mark.parametrize("xdg, home", [
    ("/somewhere/config", "/home/someone"),
    ("/somewhere/config/", "/home/someone"),
    (None, "/home/someone"),
    ("", "/home/someone/"),
    (None, "/"),
    ("relative/config", "/home/someone"),  # not absolute: platformdirs decides
    ("   ", "/home/someone"),
    (None, "relative-home"),
])
def test_the_key_is_where_platformdirs_puts_it(monkeypatch, xdg, home):
    for name, value in (("XDG_CONFIG_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = Path(platformdirs.user_config_dir("reslint", appauthor=False)) / cache_module.KEY_FILE_NAME
    assert cache_module.key_path() == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG directory is read directly on Linux only")
def test_on_linux_the_key_s_directory_is_read_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert cache_module.key_path() == tmp_path / "config" / "reslint" / "cache-key"
    monkeypatch.setenv("XDG_CONFIG_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_module.key_path() == tmp_path / "home" / ".config" / "reslint" / "cache-key"


def test_a_new_key_is_256_random_bits_written_privately(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(cache_module.KEY_VARIABLE, raising=False)
    cache_module._KEYS.clear()
    try:
        key = cache_module.cache_key()
    finally:
        cache_module._KEYS.clear()
    path = tmp_path / "config" / "reslint" / "cache-key"
    text = path.read_text(encoding="ascii")
    assert key == b"file:" + text.strip().encode() and len(text.strip()) == 64
    int(text, 16)  # hex digits
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["cache-key"]  # the temporary file is gone


# -- the digest of a run's files -----------------------------------------------------------------
def test_the_run_digest_depends_on_the_values_only():
    """marshal's format 2 has no back-references: a string shared by two signatures, or
    interned, gives the same bytes as equal strings that are distinct objects."""
    shared = "pkg.mod" + "ule"
    one = (("a.py", (1, 2, 3, 4, 5, shared)), ("b.py", (1, 2, 3, 4, 5, shared)))
    two = (("a.py", (1, 2, 3, 4, 5, sys.intern("pkg.module"))), ("b.py", (1, 2, 3, 4, 5, "pkg.mod" "ule")))
    assert cache_module.state_digest(one) == cache_module.state_digest(two)


@pytest.mark.parametrize("changed", [
    (("a.py", (1, 2, 3, 4, 5, "pkg.other")),),  # another module name (a new __init__.py)
    (("a.py", (1, 2, 3, 9, 5, "pkg.module")),),  # another ctime
    (("b.py", (1, 2, 3, 4, 5, "pkg.module")),),  # another file
    (("a.py", (1, 2, 3, 4, 5, "pkg.module")), ("a.py", (1, 2, 3, 4, 5, "pkg.module"))),
    (("a.py", (1, 2, 3, 4, 2 ** 64 - 1, "pkg.module")),),  # a device number past 63 bits
    (("a\udcff.py", (1, 2, 3, 4, 5, "pkg.module")),),  # a file name that is not UTF-8
])
def test_the_run_digest_changes_with_any_signature(changed):
    base = (("a.py", (1, 2, 3, 4, 5, "pkg.module")),)
    digest = cache_module.state_digest(changed)
    assert len(digest) == 32 and digest != cache_module.state_digest(base)


# -- display paths and module names, per directory -------------------------------------------
@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path / "root"
    for name in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py", "pkg/n.py", "top.py",
                 "plain/x.py", "plain/deeper/y.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "outside.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _spellings(root: Path):
    files = sorted(p.relative_to(root) for p in root.rglob("*.py"))
    return [
        files,
        [root / p for p in files],
        [Path(".") / p for p in files],
        [Path("..") / "root" / p for p in files],
        [root.parent / "outside.py", Path("../outside.py"), root / "top.py", Path("top.py")],
    ]


def test_display_paths_per_directory_are_display_path_per_file(tree):
    judge = Judge(load_settings(tree))
    for paths in _spellings(tree):
        assert judge.display_paths(paths) == [judge.display_path(p) for p in paths]
    assert judge.display_paths([Path("pkg/sub/m.py"), tree.parent / "outside.py"]) == \
        ["pkg/sub/m.py", (tree.parent / "outside.py").as_posix()]


def test_module_names_per_directory_are_the_prefilter_s(tree):
    runner = Runner(load_settings(tree), use_cache=False, jobs=1)
    for paths in _spellings(tree):
        for path in paths:
            name, package = module_name(str(path))
            assert runner._module(path) == (name + "/" if package else name), path
    assert runner._module(Path("pkg/sub/m.py")) == "pkg.sub.m"
    assert runner._module(Path("pkg/sub/__init__.py")) == "pkg.sub/"
    assert runner._module(Path("plain/deeper/y.py")) == "y"


# -- the decoders' fast cases reject what the slow ones rejected -------------------------------
class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True)
class Leaf:
    name: str
    weight: float = 0.0


@dataclasses.dataclass(frozen=True)
class Node:
    label: Optional[str]
    colour: Colour
    leaf: Optional[Leaf]
    ids: Tuple[int, ...]
    pair: Tuple[int, str]
    tags: FrozenSet[str] = frozenset()
    children: Tuple[Leaf, ...] = ()
    named: Dict[str, Leaf] = dataclasses.field(default_factory=dict)


SAMPLE = Node("n", Colour.BLUE, Leaf("l", 1.5), (1, 2), (3, "x"), frozenset({"b", "a"}),
              (Leaf("c"), Leaf("d", 2.0)), {"k": Leaf("v")})


def test_a_round_trip_gives_equal_values():
    data = encode(SAMPLE)
    decoded = decoder(Node)(data)
    assert decoded == SAMPLE and type(decoded.ids) is tuple and type(decoded.tags) is frozenset
    assert decoded.colour is Colour.BLUE and encode(decoded) == data
    empty = decoder(Node)(["n", "red", None, [], [0, ""], [], [], {}])
    assert empty.leaf is None and empty.ids == () and empty.tags == frozenset() and empty.children == ()


def test_decoding_leaves_the_parsed_json_as_it_was():
    data = encode(SAMPLE)
    before = repr(data)
    decoder(Node)(data)
    assert repr(data) == before


@pytest.mark.parametrize("index, value", [
    (0, 5),  # an int where Optional[str] is declared
    (1, "green"),  # no such member
    (1, ["red"]),  # unhashable: not a member either
    (1, None),
    (2, "leaf"),  # neither None nor a Leaf
    (2, ["l", "heavy"]),  # a Leaf whose weight is not a number
    (2, ["l", 1.0, "extra"]),
    (3, [1, True]),  # a bool is not an int
    (3, [1, None]),
    (3, {"a": 1}),
    (4, [3]),  # a fixed tuple of the wrong length
    (4, [True, "x"]),
    (4, ["x", 3]),
    (5, [1]),
    (6, [None]),
    (6, [["c", 0.0], "d"]),
    (7, {"k": None}),
    (7, [["v", 0.0]]),
])
def test_a_value_of_another_shape_is_invalid(index, value):
    data = encode(SAMPLE)
    data[index] = value
    with pytest.raises(Invalid):
        decoder(Node)(data)


@pytest.mark.parametrize("data", [None, {}, "x", [], ["n"], encode(SAMPLE) + [None]])
def test_a_dataclass_of_another_arity_or_kind_is_invalid(data):
    with pytest.raises(Invalid):
        decoder(Node)(data)


def test_a_finding_with_a_fix_round_trips_and_a_wrong_applicability_is_invalid():
    at, end = Location(3, 5), Location(3, 9)
    finding = Finding("RES101", "missing-timeout", "error", "m", "a.py", at, end,
                      Fix("Add `timeout=10`", Applicability.UNSAFE, (Edit(10, 10, ", timeout=10", end, end),)), 3)
    data = encode(finding)
    assert decoder(Finding)(data) == finding and decoder(Finding)(encode(finding)).fix.applicability is \
        Applicability.UNSAFE
    data[7][1] = "sometimes"
    with pytest.raises(Invalid):
        decoder(Finding)(data)


@dataclasses.dataclass(frozen=True)
class Wide:
    name: str
    count: int = 0
    ratio: float = 0.5
    tags: Tuple[str, ...] = ()
    extra: Dict[str, int] = dataclasses.field(default_factory=dict)


@pytest.mark.parametrize("value, encoded", [
    (Wide("w"), ["w"]),  # every trailing default left out
    (Wide("w", 3), ["w", 3]),
    (Wide("w", 0, 0.5, ("t",)), ["w", 0, 0.5, ["t"], {}]),  # one trailing default alone is kept
    (Wide("w", 0, 0.5, (), {"k": 1}), ["w", 0, 0.5, [], {"k": 1}]),
    (Leaf("l"), ["l", 0.0]),
])
def test_trailing_defaults_are_left_out_and_restored(value, encoded):
    assert encode(value) == encoded
    assert decoder(type(value))(encode(value)) == value


def test_a_value_equal_to_its_default_but_of_another_type_is_written():
    assert encode(Wide("w", False)) == ["w", False]  # not taken for the default 0 (and invalid to read)


def test_a_restored_default_made_by_a_factory_is_not_shared():
    one, two = decoder(Wide)(["a"]), decoder(Wide)(["b"])
    assert one.extra == two.extra == {} and one.extra is not two.extra
    assert decoder(Wide)(["a", 1, 0.25, ["x"], {}]) == Wide("a", 1, 0.25, ("x",))


@pytest.mark.parametrize("data", [[], ["w", 1, 0.5, [], {}, None], [None], ["w", True]])
def test_a_list_shorter_than_the_required_fields_or_longer_than_all_is_invalid(data):
    with pytest.raises(Invalid):
        decoder(Wide)(data)


def test_a_module_summary_s_plain_call_site_is_a_callee_and_a_caller():
    from reslint.analysis.facts import CallSite

    site = CallSite("requests.get", "app.fetch")
    assert encode(site) == ["requests.get", "app.fetch"] and decoder(CallSite)(encode(site)) == site
    retried = CallSite("requests.get", "app.fetch", (1,), None, 4, 8)
    assert encode(retried) == ["requests.get", "app.fetch", [1], None, 4, 8]
    assert decoder(CallSite)(encode(retried)) == retried


# -- the collector and the stat index --------------------------------------------------------------
@pytest.fixture
def project(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    for i in range(3):
        path = root / f"m{i}.py"
        path.write_text("import requests\n\n\ndef fetch(url):\n    return requests.get(url)\n", encoding="utf-8")
        os.utime(path, (1_600_000_000, 1_600_000_000))  # old enough for the stat index
    return root


def _frozen_during_the_project_pass(project: Path, monkeypatch) -> list:
    seen = []
    original = Runner.project_pass

    def spy(self, results, others=True):
        seen.append(gc.get_freeze_count())
        return original(self, results, others)

    monkeypatch.setattr(Runner, "project_pass", spy)
    run = Runner(load_settings(project), jobs=1, cache_dir=project.parent / "cache").run([project])
    assert sorted(f.code for r in run.results for f in r.findings) == ["RES101"] * 3
    return seen


def test_the_stat_index_is_kept_from_the_collector_for_the_run_only(project, monkeypatch):
    assert gc.get_freeze_count() == 0
    assert _frozen_during_the_project_pass(project, monkeypatch) == [0]  # no index yet: nothing frozen
    assert _frozen_during_the_project_pass(project, monkeypatch)[0] > 0  # the index was read
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_caller_s_own_freeze_is_left_alone(project, monkeypatch):
    _frozen_during_the_project_pass(project, monkeypatch)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        _frozen_during_the_project_pass(project, monkeypatch)
        assert gc.get_freeze_count() > 0  # not unfrozen by the run
    finally:
        gc.unfreeze()


def test_the_collector_is_on_again_after_a_cache_file_that_does_not_decode(project):
    runner = Runner(load_settings(project), jobs=1, cache_dir=project.parent / "cache")
    runner.run([project])
    scope = runner.cache.directory
    key = cache_module.cache_key()
    (scope / "index.json").write_bytes(cache_module.seal(key, scope.name, "./index.json", b'{"m0.py": [1]}'))
    (scope / "last-run.json").write_bytes(cache_module.seal(key, scope.name, "./last-run.json", b"[" * 5000))
    again = Runner(load_settings(project), jobs=1, cache_dir=project.parent / "cache", reuse_last_run=True)
    assert again.cache.load_index() == {} and again.cache.load_run(()) is None
    assert gc.isenabled()
    assert len(again.run([project]).results) == 3

