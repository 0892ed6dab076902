"""Configuration: ``[tool.reslint]`` in the nearest ``pyproject.toml``, read once per run.

Unknown keys and bad values raise :class:`ConfigError` naming the file, the key
and what was expected. Durations are seconds. CLI options override the file.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Optional, Sequence, Tuple

import pathspec

from reslint import registry
from reslint.catalog.model import CEILING_CATEGORIES, NETWORK
from reslint.catalog.user import EMPTY as EMPTY_CATALOG, CatalogError, UserCatalog, parse as parse_catalog
from reslint.engine.files import read_regular_text
from reslint.output import FORMATS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration file or option that cannot be used; the message names file and key."""


DEFAULT_EXCLUDE: Tuple[str, ...] = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox", ".pants.d", ".pytype",
    ".ruff_cache", ".reslint_cache", ".svn", ".tox", ".venv", "__pypackages__", "_build", "buck-out", "build",
    "dist", "node_modules", "venv", "site-packages",
)


#: What counts as test code (gitignore-style globs, matched like ``per-file-ignores``): pytest's and
#: unittest's default discovery patterns (``test_*.py``, ``*_test.py``; pytest's ``conftest.py``) and
#: the directories projects keep tests in, and ``.semgrep/``, where Semgrep keeps each rule's test
#: file (deliberately faulty code annotated ``# ruleid:``; https://semgrep.dev/docs/writing-rules/testing-rules):
#: a linter's rule fixtures, which a judged sample found reported by the dozen. ``/t/`` is the test
#: directory of celery and the libraries of its project (kombu, billiard, vine, py-amqp), whose test
#: tasks (``t/integration/tasks.py``) match no file pattern; every finding the judged sample had there
#: was false. It is anchored at the project root: a package's own module directory named ``t`` deeper
#: down is left alone.
DEFAULT_TEST_PATHS: Tuple[str, ...] = ("tests/", "test/", "/t/", "test_*.py", "*_test.py", "conftest.py",
                                       ".semgrep/")

#: Codes not reported in test code. All of them by default: in the judged sample of public
#: repositories (``benchmarks/judged/``) the findings in test code were mocked clients, local
#: servers and containers the tests start and poll, and the tests' own subprocesses, none a fault
#: that reaches production.
DEFAULT_TEST_IGNORE: Tuple[str, ...] = ("RES",)

#: Codes not reported in operator scripts (programs of the project run by hand: no package, not
#: named by CI or another automation file; ``reslint/engine/scripts.py``). The timeout and
#: retry-policy rules: a hang there is seen and interrupted by the person who started it, and a
#: retry has no fleet to synchronise; in the judged sample (``benchmarks/judged/``) such findings
#: in release, maintenance and documentation scripts were false, in a script CI runs true. The
#: idempotency rules still apply: a write sent twice by hand is sent twice.
DEFAULT_SCRIPT_IGNORE: Tuple[str, ...] = ("RES1", "RES2")

#: Codes not reported in the project's programs, whoever runs them (``reslint/engine/scripts.py``
#: :meth:`~reslint.engine.scripts.OperatorScripts.is_program`: a ``scripts/`` directory at any
#: depth, CI's ``.github/``, an agent skill, a main-guarded module shipped as a package's data). RES103: a finite timeout above ``max-timeout`` is a
#: capacity fault where a dependency that stops answering holds a worker that serves others (a web
#: server's, a task queue's); a program run to completion holds only its own run, so a long bound
#: there is a deliberate allowance (a daily feed download, a generated song). In the judged sample
#: all 19 such findings were false: CI-run downloads of 90 and 120 s, agent skills' 180 and 300 s
#: calls, a model judge's 120 s.
DEFAULT_PROGRAM_IGNORE: Tuple[str, ...] = ("RES103",)

#: The categories with timeouts of their own (``[tool.reslint.timeouts.<category>]``), as
#: ``(category, max-timeout s, default-timeout s)``; ``None`` takes the top-level value, which
#: network calls use. Model calls: a completion of a few thousand tokens takes tens of seconds
#: and a long reasoning answer minutes, so the 60 s of a web request would cut real work short
#: and a 10 s fix would break most calls; 120 s fits a completion, and a call that needs more
#: than 300 s should stream (the read timeout then bounds each gap between chunks, not the whole
#: answer) or run as background work. The SDKs' 600 s defaults (openai, anthropic) are above it:
#: ten minutes is how long one stuck call holds a worker of a service.
DEFAULT_CATEGORY_TIMEOUTS: Tuple[Tuple[str, Optional[float], Optional[float]], ...] = (
    ("database", None, None),
    ("model", 300.0, 120.0),
)


@dataclass(frozen=True)
class Settings:
    """The resolved configuration of one run.

    ``enabled`` is the set of rule codes that run. ``per_file_ignores`` pairs a
    gitignore-style glob (relative to ``root``) with the codes it silences;
    ``test_ignore`` are the codes silenced in the files ``test_paths`` match.
    Durations (``max_timeout``, ``default_timeout``, ``max_retry_time``, ``max_task_retry_time``)
    are seconds.
    """

    root: Path
    config_file: Optional[Path] = None
    select: Tuple[str, ...] = ("RES",)
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    test_paths: Tuple[str, ...] = DEFAULT_TEST_PATHS
    test_ignore: Tuple[str, ...] = DEFAULT_TEST_IGNORE
    #: codes not reported in operator scripts (``reslint.engine.scripts``)
    script_ignore: Tuple[str, ...] = DEFAULT_SCRIPT_IGNORE
    #: codes not reported in the project's programs (``reslint.engine.scripts``)
    program_ignore: Tuple[str, ...] = DEFAULT_PROGRAM_IGNORE
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    respect_gitignore: bool = True
    #: ``exclude`` and ``extend-exclude`` apply to the paths named on the command line too
    force_exclude: bool = False
    extend_safe_fixes: Tuple[str, ...] = ()
    extend_unsafe_fixes: Tuple[str, ...] = ()
    allow_blanket_noqa: bool = False
    max_timeout: float = 60.0
    default_timeout: float = 10.0
    #: ``[tool.reslint.timeouts]``: ``(category, max-timeout s, default-timeout s)`` of the
    #: categories that differ from the top-level values (``None``: the top-level value)
    category_timeouts: Tuple[Tuple[str, Optional[float], Optional[float]], ...] = DEFAULT_CATEGORY_TIMEOUTS
    max_retry_time: float = 60.0
    #: what RES202 accepts of a task queue's retries (celery, dramatiq, huey, RQ): the task is queued
    #: again and nobody waits for it, so its worst case is how late its work lands (20 min: in the
    #: judged sample, mail and sync tasks retried for up to 15.5 min were judged intended)
    max_task_retry_time: float = 1200.0
    max_retry_layers: int = 1
    #: the baseline file (``--baseline``), relative to ``root``; empty: none
    baseline: str = ""
    #: the output format when ``--output-format`` is not given
    output_format: str = "full"
    rule_options: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    #: ``[tool.reslint.catalog]``: the project's own retry helpers, timeout calls, writes, key
    #: parameters and retrying clients (:mod:`reslint.catalog.user`)
    catalog: UserCatalog = EMPTY_CATALOG
    #: the config file's directory, else the nearest directory with pyproject.toml, setup.py,
    #: setup.cfg or .git, else the directory holding the top-level package the run starts in;
    #: None when there is none (then :attr:`anchor` is the run's root)
    project_root: Optional[Path] = None
    #: the directory whose modules the project pass (RES301, RES401/RES402 across modules) reads
    #: whole, also when only some files are given, and that namespace packages are imported from:
    #: the config file's or marker's directory as for :attr:`project_root`, else the project of the
    #: paths the run names (:func:`project_of`), never the directory the run starts in; None: only
    #: the files given are read
    project_scope: Optional[Path] = None

    @property
    def anchor(self) -> Path:
        """The directory project-relative decisions start from (operator scripts, the automation
        files that name them, ``requires-python``): the project root, else the run's root."""
        return self.project_root or self.root

    @property
    def enabled(self) -> FrozenSet[str]:
        codes = set()
        for selector in self.select + self.extend_select:
            codes.update(registry.expand(selector))
        for selector in self.ignore:
            codes.difference_update(registry.expand(selector))
        return frozenset(codes)

    def max_timeout_for(self, category: str) -> float:
        """The ceiling, in seconds, a timeout of ``category`` (``reslint.catalog.model.CATEGORIES``) is judged
        against: its ``[tool.reslint.timeouts.<category>]`` value, else ``max-timeout``."""
        own = next((limit for name, limit, _ in self.category_timeouts if name == category), None)
        return self.max_timeout if own is None else own

    def default_timeout_for(self, category: str) -> float:
        """The timeout, in seconds, a fix inserts on a call of ``category``: its own ``default-timeout``,
        else the top-level one."""
        own = next((value for name, _, value in self.category_timeouts if name == category), None)
        return self.default_timeout if own is None else own

    def codes(self, selectors: Sequence[str]) -> FrozenSet[str]:
        out = set()
        for selector in selectors:
            out.update(registry.expand(selector))
        return frozenset(out)


def _codes(value: Any, key: str, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of rule codes, prefixes or names, got {value!r}")
    for selector in value:
        try:
            registry.expand(selector)
        except ValueError:
            raise ConfigError(f"{where}: `{key}` names an {registry.unknown(selector)}")
    return tuple(value)


def _strings(value: Any, key: str, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings, got {value!r}")
    return tuple(value)


def glob_error(glob: str) -> Optional[str]:
    """Why pathspec cannot compile ``glob`` (gitignore syntax), or ``None`` when it can."""
    try:
        pathspec.GitIgnoreSpec.from_lines([glob])
    except (ValueError, re.error) as exc:
        return str(exc)
    return None


def _globs(value: Any, key: str, where: str) -> Tuple[str, ...]:
    for glob in _strings(value, key, where):
        error = glob_error(glob)
        if error is not None:
            raise ConfigError(f"{where}: `{key}` has a glob that cannot be used, {glob!r}: {error}")
    return tuple(value)


def _seconds(value: Any, key: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"{where}: `{key}` must be a positive number of seconds, got {value!r}")
    if not math.isfinite(value):  # nan passes `value <= 0`; neither nan nor inf can be compared or added to
        raise ConfigError(f"{where}: `{key}` must be a positive number of seconds, got {value!r} (not finite)")
    return float(value)


def _bool(value: Any, key: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: `{key}` must be true or false, got {value!r}")
    return value


def _positive_int(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where}: `{key}` must be a whole number >= 1, got {value!r}")
    return value


def _file_name(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value or "\0" in value:
        raise ConfigError(f"{where}: `{key}` must be a file name, got {value!r}")
    return value


def _output_format(value: Any, key: str, where: str) -> str:
    if value not in FORMATS:
        raise ConfigError(f"{where}: `{key}` must be one of {', '.join(FORMATS)}, got {value!r}")
    return value


def _per_file_ignores(value: Any, key: str, where: str):
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of glob = [codes], got {value!r}")
    for glob in value:
        error = glob_error(glob)
        if error is not None:
            raise ConfigError(f"{where}: `{key}.{glob}` is a glob that cannot be used: {error}")
    return tuple((glob, _codes(codes, f"{key}.{glob}", where)) for glob, codes in value.items())


def _table(value: Any, key: str, where: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table, got {value!r}")
    return value


def _names(value: Any, key: str, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of non-empty strings, got {value!r}")
    return tuple(v.strip() for v in value)


#: the options each rule accepts in ``[tool.reslint.rules.RESnnn]``, with their checks
RULE_OPTIONS: Dict[str, Dict[str, Callable[[Any, str, str], Any]]] = {
    # shell-style patterns of parameter names that hold a time budget (reslint/analysis/deadlines.py;
    # the default is reslint.semantics.prefilter.DEFAULT_BUDGET_PARAMETERS)
    "RES105": {"budget-parameters": _names},
}


def _rule_options(value: Any, key: str, where: str) -> Dict[str, Dict[str, Any]]:
    """The rule options, keyed by rule code (a rule may be named by its name), values checked."""
    table = _table(value, key, where)
    out: Dict[str, Dict[str, Any]] = {}
    for code, options in table.items():
        info = registry.lookup(code)
        if info is None:
            raise ConfigError(f"{where}: `{key}.{code}` is not a rule code")
        known = RULE_OPTIONS.get(info.code, {})
        for option, given in _table(options, f"{key}.{code}", where).items():
            if option not in known:
                accepted = f"known keys: {', '.join(known)}" if known else f"{info.code} has no options"
                raise ConfigError(f"{where}: unknown key `{key}.{code}.{option}` ({accepted})")
            out.setdefault(info.code, {})[option] = known[option](given, f"{key}.{code}.{option}", where)
    return out


#: the keys of one ``[tool.reslint.timeouts.<category>]`` table
_CATEGORY_KEYS = ("max-timeout", "default-timeout")


def _category_timeouts(value: Any, key: str, where: str):
    """``[tool.reslint.timeouts]``: a table per category with a ceiling other than network (whose
    values are the top-level ``max-timeout``/``default-timeout``); the categories not given keep
    their defaults, and a key not given in a category's table keeps that category's default."""
    given = _table(value, key, where)
    own = [category for category in CEILING_CATEGORIES if category != NETWORK]
    out = {category: (limit, default) for category, limit, default in DEFAULT_CATEGORY_TIMEOUTS}
    for category, table in given.items():
        if category not in own:
            raise ConfigError(f"{where}: unknown key `{key}.{category}` (known keys: {', '.join(own)}; "
                              f"network calls use the top-level `max-timeout` and `default-timeout`)")
        entries = _table(table, f"{key}.{category}", where)
        limit, default = out.get(category, (None, None))
        for option, raw in entries.items():
            if option not in _CATEGORY_KEYS:
                raise ConfigError(f"{where}: unknown key `{key}.{category}.{option}` "
                                  f"(known keys: {', '.join(_CATEGORY_KEYS)})")
            seconds = _seconds(raw, f"{key}.{category}.{option}", where)
            if option == "max-timeout":
                limit = seconds
            else:
                default = seconds
        out[category] = (limit, default)
    return tuple((category, limit, default) for category, (limit, default) in sorted(out.items()))


def _catalog(value: Any, key: str, where: str) -> UserCatalog:
    try:
        return replace(parse_catalog(value, key), source=where)
    except CatalogError as exc:
        raise ConfigError(f"{where}: {exc}")


_KEYS = {
    "select": ("select", _codes),
    "extend-select": ("extend_select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "test-paths": ("test_paths", _globs),
    "test-ignore": ("test_ignore", _codes),
    "script-ignore": ("script_ignore", _codes),
    "program-ignore": ("program_ignore", _codes),
    "exclude": ("exclude", _globs),
    "extend-exclude": ("extend_exclude", _globs),
    "respect-gitignore": ("respect_gitignore", _bool),
    "force-exclude": ("force_exclude", _bool),
    "extend-safe-fixes": ("extend_safe_fixes", _codes),
    "extend-unsafe-fixes": ("extend_unsafe_fixes", _codes),
    "allow-blanket-noqa": ("allow_blanket_noqa", _bool),
    "max-timeout": ("max_timeout", _seconds),
    "default-timeout": ("default_timeout", _seconds),
    "timeouts": ("category_timeouts", _category_timeouts),
    "max-retry-time": ("max_retry_time", _seconds),
    "max-task-retry-time": ("max_task_retry_time", _seconds),
    "max-retry-layers": ("max_retry_layers", _positive_int),
    "baseline": ("baseline", _file_name),
    "output-format": ("output_format", _output_format),
    "rules": ("rule_options", _rule_options),
    "catalog": ("catalog", _catalog),
}


def keys() -> Tuple[Tuple[str, str], ...]:
    """Every configuration key and the :class:`Settings` field it sets (for ``reslint show-settings``)."""
    return tuple((key, attr) for key, (attr, _) in _KEYS.items())


def find_config(start: Path) -> Optional[Path]:
    """The nearest ``pyproject.toml`` with a ``[tool.reslint]`` table at or above ``start``."""
    start = start if start.is_dir() else start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(read_regular_text(candidate))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return candidate  # report the broken file rather than skip it
            tool = data.get("tool", {})
            if not isinstance(tool, dict) or "reslint" in tool:
                return candidate  # a `tool` that is not a table is reported, as a broken file is
    return None


def load_table(path: Path) -> Dict[str, Any]:
    """Read the reslint table of a TOML file (``[tool.reslint]``, or the top level of a ``reslint.toml``)."""
    try:
        data = tomllib.loads(read_regular_text(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8: {exc}")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}")
    tool = data.get("tool")
    if path.name == "pyproject.toml" and tool is not None and not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {tool!r}")
    if isinstance(tool, dict) and "reslint" in tool:
        table = tool["reslint"]
        prefix = "tool.reslint."
    elif path.name == "pyproject.toml":
        return {}
    else:
        table, prefix = data, ""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{prefix.rstrip('.')}` must be a table")
    return {"__prefix__": prefix, **table}


def settings_from_table(table: Dict[str, Any], root: Path, path: Optional[Path]) -> Settings:
    """Validate a reslint table into :class:`Settings`; raise :class:`ConfigError` on any bad key."""
    where = str(path) if path else "configuration"
    prefix = table.get("__prefix__", "")
    values: Dict[str, Any] = {}
    for key, value in table.items():
        if key == "__prefix__":
            continue
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(f"{where}: unknown key `{prefix}{key}` (known keys: {known})")
        attr, check = _KEYS[key]
        values[attr] = check(value, prefix + key, where)
    settings = Settings(root=root, config_file=path, **values)
    if settings.default_timeout > settings.max_timeout:
        raise ConfigError(f"{where}: `{prefix}default-timeout` ({settings.default_timeout:g} s) is above "
                          f"`{prefix}max-timeout` ({settings.max_timeout:g} s)")
    for category, _, _ in settings.category_timeouts:
        limit, default = settings.max_timeout_for(category), settings.default_timeout_for(category)
        if default > limit:
            raise ConfigError(f"{where}: the default timeout of {category} calls ({default:g} s) is above their "
                              f"max-timeout ({limit:g} s): set `{prefix}timeouts.{category}.default-timeout` or "
                              f"`{prefix}timeouts.{category}.max-timeout`")
    return settings


def load_settings(start: Path, config: Optional[Path] = None, isolated: bool = False,
                  paths: Optional[Sequence[Path]] = None) -> Settings:
    """Resolve the settings for a run started at ``start`` (a directory or file) over ``paths``
    (relative to the current directory; ``None``: ``start`` itself).

    ``config`` names a file explicitly; ``isolated`` ignores every file. The project root is
    the config file's directory, else :func:`find_project_root` from ``start``; the project scope
    the same when a file or marker sets it, else the project of ``paths`` (:func:`project_of`).
    """
    start = start.resolve()
    base = start if start.is_dir() else start.parent
    marked = marked_root(base)
    project = marked or _package_root(base)
    scope = marked or project_of([base] if paths is None else paths)
    if isolated:
        return Settings(root=base, project_root=project, project_scope=scope)
    path = config.resolve() if config is not None else find_config(base)
    if config is not None and not path.is_file():
        raise ConfigError(f"{config}: configuration file not found")
    if path is None:
        return Settings(root=base, project_root=project, project_scope=scope)
    return replace(settings_from_table(load_table(path), path.parent, path), project_root=path.parent,
                   project_scope=path.parent)


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def is_marked(directory: Path) -> bool:
    """Whether ``directory`` holds a project marker."""
    return any((directory / marker).exists() for marker in PROJECT_MARKERS)


def marked_root(start: Path) -> Optional[Path]:
    """The nearest directory at or above ``start`` (a directory) holding a project marker, or
    ``None``."""
    return next((directory for directory in (start, *start.parents) if is_marked(directory)), None)


def find_project_root(start: Path) -> Optional[Path]:
    """The nearest directory at or above ``start`` (a directory) holding a project marker; with
    none, the directory that holds ``start``'s top-level package (``start`` itself when packages
    are right in it); ``None`` when neither is found."""
    return marked_root(start) or _package_root(start)


def project_of(paths: Sequence[Path]) -> Optional[Path]:
    """The project of the files and directories ``paths`` when no marker says where it is: for
    each, the directory holding its top-level package (up through the directories with an
    ``__init__.py``), or for a loose module or a directory that is no package, the directory it is
    in or itself; so that ``reslint check mod.py``, from wherever it is run, and ``reslint check .``
    run in that directory see the same project, and a run on one file never reads the directory
    it is started in. The outermost of these when it holds the others, else ``None`` (paths in
    unrelated places: no project is read beyond them). Paths that do not exist are left out."""
    roots = []
    for path in paths:
        path = Path(os.path.abspath(path))
        if not path.exists():
            continue
        directory = path if path.is_dir() else path.parent
        while (directory / PACKAGE_MARKER).is_file() and directory.parent != directory:
            directory = directory.parent
        roots.append(directory)
    if not roots:
        return None
    outer = min(roots, key=lambda root: len(root.parts))
    return outer if all(root == outer or outer in root.parents for root in roots) else None


#: what makes a directory a regular package
PACKAGE_MARKER = "__init__.py"
#: how many entries of a directory are looked at for a package in it
MAX_ENTRIES_LOOKED_AT = 1000


def _package_root(start: Path) -> Optional[Path]:
    """The parent of the topmost package ``start`` is in; ``start`` when a directory right in it is
    a package; else ``None``."""
    top = None
    for directory in (start, *start.parents):
        if not (directory / PACKAGE_MARKER).is_file():
            break
        top = directory
    if top is not None:
        return top.parent
    try:  # a huge directory is not searched through: its first entries decide
        if any(child.is_dir() and (child / PACKAGE_MARKER).is_file()
               for child in itertools.islice(start.iterdir(), MAX_ENTRIES_LOOKED_AT)):
            return start
    except OSError:
        pass
    return None


def with_overrides(settings: Settings, **overrides: Any) -> Settings:
    """Apply command-line overrides (already validated) to loaded settings."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **clean)
