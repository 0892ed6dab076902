"""The architecture's boundaries, checked on the source (DESIGN section 2, "One library, one module"):

- rules are library-agnostic: no rule module spells a library's name;
- outside the catalog, a retry library's name is spelled in one module only, its adapter;
- no module uses another module's underscore names;
- imports point down the layers, never up.

Names are looked for where knowledge lives in code: string literals (not docstrings or
comments, which may give examples) and imported module names.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "reslint"

#: the retry mechanisms with an adapter: name as spelled in code -> the adapter module that owns it
RETRY_LIBRARIES: Dict[str, str] = {
    "tenacity": "reslint.libraries.tenacity", "backoff": "reslint.libraries.backoff",
    "stamina": "reslint.libraries.stamina", "retrying": "reslint.libraries.retrying",
    "retry": "reslint.libraries.retry_package", "opnieuw": "reslint.libraries.opnieuw",
    "redo": "reslint.libraries.redo", "google": "reslint.libraries.google_api_core",
    "celery": "reslint.libraries.celery", "urllib3": "reslint.libraries.urllib3",
    "requests": "reslint.libraries.requests", "httpx": "reslint.libraries.httpx",
    "langchain_core": "reslint.libraries.langchain",
}
#: the circuit-breaker libraries (RES501): name -> the adapter module that owns it
BREAKER_LIBRARIES: Dict[str, str] = {
    "pybreaker": "reslint.libraries.pybreaker", "circuitbreaker": "reslint.libraries.circuitbreaker",
    "aiobreaker": "reslint.libraries.aiobreaker", "purgatory": "reslint.libraries.purgatory",
}
#: client libraries whose names no rule may spell either (their facts are catalog data for now)
CLIENT_LIBRARIES = ("boto3", "botocore", "openai", "anthropic", "stripe", "aiohttp", "aiohttp_retry", "litellm",
                    "langchain_openai", "langchain_anthropic", "llama_index", "haystack", "mcp")
#: the adapter that may spell a client library outside the catalog (``None``: the catalog only)
CLIENT_OWNERS: Dict[str, Optional[str]] = {
    "boto3": "reslint.libraries.botocore", "botocore": "reslint.libraries.botocore",
    "aiohttp": "reslint.libraries.aiohttp_retry", "aiohttp_retry": "reslint.libraries.aiohttp_retry",
    "openai": None, "anthropic": None, "stripe": None, "litellm": None,
    "langchain_openai": "reslint.libraries.langchain", "langchain_anthropic": "reslint.libraries.langchain",
    "llama_index": None, "haystack": None, "mcp": None,
}
#: names that are also English words or parameter names (``backoff=``, ``retry=``): they count only
#: as a module (``backoff.expo``, ``import redo``)
_WORDS = frozenset({"backoff", "retrying", "retry", "redo", "requests"})

#: Known exceptions, each with the reason it is not fixed here. Remove a row when it is fixed.
PRIVATE_USES: Dict[Tuple[str, str], str] = {
    ("reslint.output.full", "_marker"): "output/ belongs to the output work; concise._marker wants a public name",
}

#: The layers, lowest first; a module may import its own layer and those below. A module
#: belongs to the first layer with a prefix that names it (a prefix ending in "." names a
#: package's modules, otherwise the module itself). Imports under ``if TYPE_CHECKING:`` are
#: annotations only and do not count (the model names its adapter's type that way).
LAYERS: List[Tuple[str, Tuple[str, ...]]] = [
    ("values and utilities", ("reslint", "reslint.values", "reslint.diagnostics", "reslint.registry",
                              "reslint.project", "reslint.profiling", "reslint.semantics.cstutil", "reslint.engine.serial",
                              "reslint.engine.positions", "reslint.rulebook", "reslint.output.terminal", "reslint.engine.files")),
    ("catalog data", ("reslint.catalog", "reslint.catalog.clients", "reslint.catalog.idempotency",
                      "reslint.catalog.model", "reslint.catalog.names", "reslint.catalog.retries", "reslint.catalog.litellm",
                      "reslint.catalog.timeouts", "reslint.catalog.programs", "reslint.catalog.user",
                      "reslint.catalog.langchain", "reslint.catalog.mcp", "reslint.catalog.llama_index",
                      "reslint.catalog.haystack", "reslint.catalog.django_mail")),
    ("semantic model", ("reslint.semantics", "reslint.semantics.walk", "reslint.semantics.prefilter", "reslint.semantics.context", "reslint.semantics.edits",
                        "reslint.semantics.arguments")),
    ("policy model", ("reslint.model", "reslint.model.")),
    ("adapters", ("reslint.libraries.",)),
    ("registry and derived indices", ("reslint.libraries", "reslint.catalog.entries", "reslint.catalog.triggers")),
    ("analysis", ("reslint.analysis", "reslint.analysis.")),
    ("rules", ("reslint.rules", "reslint.rules.")),
    ("engine and interfaces", ("reslint.",)),
]


def _modules() -> Iterator[Tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


MODULES: Dict[str, Path] = dict(_modules())
TREES: Dict[str, ast.Module] = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _docstrings(tree: ast.Module) -> Set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _strings(tree: ast.Module) -> Iterator[str]:
    """String literals (f-string parts included), docstrings left out."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.value


def _imported(name: str, tree: ast.Module) -> Iterator[Tuple[str, int, bool]]:
    """(module imported, line, under TYPE_CHECKING) for every import, lazy ones included."""
    package = name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]
    typing_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            typing_only.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in typing_only
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            module = (base + ("." + node.module if node.module else "")) if node.level else (node.module or "")
            for alias in node.names:
                full = f"{module}.{alias.name}"
                yield (full if full in MODULES else module), node.lineno, id(node) in typing_only


def _pattern(library: str) -> "re.Pattern[str]":
    if library in _WORDS:  # a module reference: `backoff.expo`
        return re.compile(rf"(?<![\w.]){library}\.[A-Za-z_]")
    return re.compile(rf"(?<![\w.]){library}\b")  # not an attribute: `exc.response.requests`


def _spells(name: str, library: str) -> bool:
    pattern = _pattern(library)
    if any(pattern.search(text) for text in _strings(TREES[name])):
        return True
    return any(module.split(".")[0] == library for module, _, _ in _imported(name, TREES[name]))


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("reslint.rules")])
def test_rules_spell_no_library(module):
    spelled = [lib for lib in (*RETRY_LIBRARIES, *CLIENT_LIBRARIES, *BREAKER_LIBRARIES) if _spells(module, lib)]
    assert spelled == [], f"{module} spells {spelled}: ask the policy's adapter, or add a catalog entry"


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("reslint.rules")])
def test_rules_do_not_branch_on_a_library(module):
    source = MODULES[module].read_text(encoding="utf-8")
    # naming the library in a message is fine (RES301 names each layer's); comparing it is not
    assert not re.search(r"(\.library|adapter\.name)\s*(==|!=|in\b|not\s+in\b)|(==|!=)\s*\w+(\.\w+)*\.library\b",
                         source), \
        f"{module} branches on a policy's library: ask its adapter instead"


@pytest.mark.parametrize("library", sorted(RETRY_LIBRARIES))
def test_a_retry_library_is_spelled_by_its_adapter_only(library):
    owners = [m for m in MODULES if not m.startswith("reslint.catalog") and _spells(m, library)]
    others = [m for m in owners if m != RETRY_LIBRARIES[library]]
    assert others == [], f"{library} is spelled outside its adapter {RETRY_LIBRARIES[library]}: {others}"


@pytest.mark.parametrize("library", sorted(BREAKER_LIBRARIES))
def test_a_breaker_library_is_spelled_by_its_adapter_only(library):
    owners = [m for m in MODULES if not m.startswith("reslint.catalog") and _spells(m, library)]
    others = [m for m in owners if m != BREAKER_LIBRARIES[library]]
    assert others == [], f"{library} is spelled outside its adapter {BREAKER_LIBRARIES[library]}: {others}"


def test_the_registry_holds_every_breaker_adapter():
    from reslint import libraries

    registered = {type(b).__module__ for b in libraries.BREAKERS}
    declared = {m for m, tree in TREES.items() if m.startswith("reslint.libraries.") and any(
        isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BREAKER" for t in n.targets)
        for n in tree.body)}
    assert declared == registered == set(BREAKER_LIBRARIES.values())


def test_the_text_prefilter_s_breaker_triggers_are_the_registry_s():
    from reslint import libraries
    from reslint.catalog import triggers

    assert triggers.BREAKER_MODULES == libraries.BREAKER_TRIGGERS


def test_client_libraries_cover_the_rules_list():
    assert set(CLIENT_OWNERS) == set(CLIENT_LIBRARIES)


@pytest.mark.parametrize("library", sorted(CLIENT_OWNERS))
def test_a_client_library_is_spelled_by_the_catalog_or_its_adapter_only(library):
    owners = [m for m in MODULES if not m.startswith("reslint.catalog") and _spells(m, library)]
    others = [m for m in owners if m != CLIENT_OWNERS[library]]
    assert others == [], f"{library} is spelled outside the catalog and its adapter: {others}"


def test_the_registry_holds_every_adapter():
    from reslint import libraries

    registered = {type(a).__module__ for a in (*libraries.ADAPTERS, *libraries.CLIENT_ADAPTERS, libraries.HAND_ROLLED)}
    declared = {m for m, tree in TREES.items() if m.startswith("reslint.libraries.") and any(
        isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ADAPTER" for t in n.targets)
        for n in tree.body)}
    assert declared == registered, "an adapter module's ADAPTER is missing from reslint.libraries.ADAPTERS"
    assert set(RETRY_LIBRARIES.values()) <= registered


def test_every_spelling_is_in_the_prefilter_triggers():
    """A file that spells a policy imports its top-level module: that module must be a trigger,
    or the text prefilter skips the file without a word."""
    from reslint import libraries

    for adapter in libraries.ADAPTERS:
        for qualname in adapter.spellings:
            assert qualname.split(".")[0] in adapter.trigger_modules, f"{adapter.name}: {qualname}"
        assert set(adapter.trigger_modules) <= set(libraries.RETRY_TRIGGERS)


def _private_definitions() -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = {}
    for name, tree in TREES.items():
        found: Set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.add(target.id)
                    elif isinstance(target, ast.Attribute):
                        found.add(target.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, (ast.Name, ast.Attribute)):
                found.add(node.target.id if isinstance(node.target, ast.Name) else node.target.attr)
        out[name] = {n for n in found if _private(n)}
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(name: str, definitions: Dict[str, Set[str]]) -> Iterator[Tuple[int, str]]:
    """(line, name) of another module's underscore names used here: imported, or reached as an
    attribute (``loops._max_value``) of anything but ``self``/``cls``/``super()``."""
    tree = TREES[name]
    elsewhere = set().union(*(d for m, d in definitions.items() if m != name))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reslint"):
            for alias in node.names:
                if _private(alias.name):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                continue
            if node.attr not in definitions[name] and node.attr in elsewhere:
                yield node.lineno, node.attr


def test_no_module_uses_another_modules_private_names():
    definitions = _private_definitions()
    found = [f"{name}:{line} {attr}" for name in MODULES for line, attr in _private_uses(name, definitions)
             if (name, attr) not in PRIVATE_USES]
    assert found == [], "make these public, name them well and document them: " + ", ".join(found)


def _layer(module: str) -> Optional[int]:
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix.endswith(".") and module.startswith(prefix)):
                return index
    return None


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) is None] == []


def test_imports_never_point_up_a_layer():
    upward = []
    for name, tree in TREES.items():
        own = _layer(name)
        for module, line, typing_only in _imported(name, tree):
            if not module.startswith("reslint") or typing_only or module not in MODULES:
                continue
            if _layer(module) > own:
                upward.append(f"{name}:{line} ({LAYERS[own][0]}) imports {module} ({LAYERS[_layer(module)][0]})")
    assert upward == [], "\n".join(upward)


def test_adapters_do_not_import_the_registry_or_the_dispatcher():
    """Adapters import the model and the catalog; the registry imports them (no circle)."""
    found = [f"{name}:{line} imports {module}" for name, tree in TREES.items() if name.startswith("reslint.libraries.")
             for module, line, _ in _imported(name, tree)
             if module == "reslint.libraries" or module.startswith("reslint.analysis")]
    assert found == []


def test_the_text_prefilter_s_retry_triggers_are_the_registry_s():
    """``reslint.catalog.triggers`` spells the retry triggers as data (the processes that run
    the text prefilter load no LibCST, which the adapters import): they must be exactly what
    the registry derives from the adapters, so a new adapter's modules cannot be forgotten."""
    from reslint import libraries
    from reslint.catalog import triggers

    assert triggers.RETRY_TRIGGERS == libraries.RETRY_TRIGGERS
    # and the dotted paths a framework builds a policy from, which no import announces
    assert triggers.IMPORT_STRINGS == tuple(libraries.IMPORT_STRINGS)
    # and the beginnings of the findings another file can make moot, spelled as data
    from reslint.catalog import django_mail
    from reslint.libraries import dramatiq

    assert triggers.DJANGO_DRAMATIQ_LABEL == dramatiq.SETTINGS_MIDDLEWARE.label
    assert [prefix for _, prefix, _ in triggers.SET_ELSEWHERE] == [django_mail.FINDING_PREFIX,
                                                                   dramatiq.SETTINGS_MIDDLEWARE.label]
    assert dramatiq.SETTINGS_MIDDLEWARE.options_hook == triggers.SET_ELSEWHERE[1][2]


def test_a_cached_re_run_and_the_text_prefilter_load_no_libcst():
    import subprocess
    import sys

    code = ("import sys, reslint.engine.results, reslint.engine.runner, reslint.engine.cache, reslint.cli, "
            "reslint.rules.project; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'libcst'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


#: modules a re-run answered from the last run must not load: LibCST (a cached run never parses),
#: platformdirs (the key's directory is the XDG one on Linux, found without it), secrets (random
#: names come from os.urandom), and the module summaries' types (the last run holds findings only)
WARM_RUN_SPARES = ("libcst", "platformdirs", "secrets", "reslint.analysis.facts")

_WARM_RUN = """
import sys
from reslint.cli import main
try:
    main(["check", "-f", "concise", "--cache-dir", sys.argv[1], sys.argv[2]])
except SystemExit:
    pass
print("MODULES", " ".join(sorted(sys.modules)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the key's directory is found without platformdirs on Linux only")
def test_a_re_run_answered_from_the_last_run_loads_none_of_the_modules_it_spares(tmp_path):
    import os
    import subprocess

    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    app = project / "app.py"
    app.write_text("import requests\n\n\ndef fetch(url):\n    return requests.get(url)\n", encoding="utf-8")
    os.utime(app, (1_600_000_000, 1_600_000_000))  # old enough for the last run to be kept
    cache = tmp_path / "cache"

    def run() -> Tuple[str, List[str]]:
        proc = subprocess.run([sys.executable, "-c", _WARM_RUN, str(cache), str(project)], capture_output=True,
                              text=True, timeout=120, cwd=project)
        out, _, modules = proc.stdout.partition("MODULES ")
        return out, modules.split()

    first, cold = run()
    again, warm = run()
    assert "app.py:5:12: RES101" in first and again == first, first + again
    assert "libcst" in cold and "reslint.analysis.facts" in cold  # the first run parsed: the test can fail
    loaded = {name.split(".")[0] if not name.startswith("reslint.") else name for name in warm}
    assert [name for name in WARM_RUN_SPARES if name in loaded] == [], warm


def test_the_task_queues_of_example_services_are_the_queued_adapters():
    """``reslint.catalog.services`` spells the task queues as data (the operator-script decision
    runs where LibCST must not be loaded): they are the modules of the adapters whose retries are
    queued, no more and no fewer."""
    from reslint import libraries
    from reslint.catalog import services

    queued = tuple(dict.fromkeys(m for a in libraries.ADAPTERS if a.queued for m in a.trigger_modules))
    assert sorted(services.TASK_QUEUE_MODULES) == sorted(queued)
