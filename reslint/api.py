"""The Python API: lint files or source text without the command line (no click).

>>> from reslint.api import lint_source
>>> [f.code for f in lint_source("import requests\\nrequests.get(url)\\n", "app.py", isolated=True)]
['RES101']

Both functions return a list of :class:`reslint.diagnostics.Finding` (frozen
dataclasses of plain values: ``code``, ``name``, ``severity``, ``message``,
``filename`` (project-relative ``/`` path), ``location``/``end_location``
(1-based ``row``/``column``, end exclusive), ``fix`` (``None`` or a
:class:`~reslint.diagnostics.Fix` with ``message``, ``applicability`` and text
``edits``), ``noqa_row``, ``related``), sorted by (path, row, column, code), after
suppression comments and ``per-file-ignores``, exactly what ``reslint check`` reports.
A file that cannot be read, decoded or parsed is a ``RES000`` finding, not an exception;
so is a path that does not exist and a directory that cannot be read (at row 1, column 1).
:func:`reslint.output.renderer` turns findings into any output format's text.

Configuration is resolved as by the command line: from ``config`` when given, else
from the nearest ``pyproject.toml`` with a ``[tool.reslint]`` table at or above the
current working directory (none with ``isolated=True``); the project root (which
paths in findings are relative to) is that file's directory, else the current
directory. ``select`` replaces the configured selection, ``ignore`` adds to the
configured ignores; both take codes, prefixes (``"RES1"``) or names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Union

from reslint import registry
from reslint.config import ConfigError, Settings, load_settings, with_overrides
from reslint.diagnostics import Finding
from reslint.engine.discovery import DiscoveryError

__all__ = ["ConfigError", "DiscoveryError", "LintError", "Finding", "lint_paths", "lint_source", "load"]

PathLike = Union[str, "os.PathLike[str]"]


class LintError(RuntimeError):
    """An exception inside reslint itself (a bug: the command line exits with status 2).

    ``errors`` holds the messages; ``findings`` the findings of every rule and file
    that did not fail, so a caller can still use them.
    """

    def __init__(self, errors: List[str], findings: List[Finding]):
        super().__init__("; ".join(errors))
        self.errors = errors
        self.findings = findings


def _selectors(option: str, values: Optional[Union[str, Iterable[str]]]) -> Optional[tuple]:
    if values is None:
        return None
    values = (values,) if isinstance(values, str) else tuple(values)
    for selector in values:
        try:
            registry.expand(selector)
        except ValueError:
            raise ConfigError(f"{option}: {registry.unknown(selector)}") from None
    return values


def load(*, config: Optional[PathLike] = None, isolated: bool = False,
         select: Optional[Union[str, Iterable[str]]] = None,
         ignore: Optional[Union[str, Iterable[str]]] = None) -> Settings:
    """The :class:`~reslint.config.Settings` a run would use (see the module docstring).

    Raises :class:`ConfigError` for a configuration file that is missing, unreadable,
    invalid TOML, or has an unknown key or a bad value, and for an unknown rule in
    ``select``/``ignore``.
    """
    return _load(config, isolated, select, ignore)


def _load(config: Optional[PathLike], isolated: bool, select, ignore,
          paths: Optional[Sequence[Path]] = None) -> Settings:
    """:func:`load` for a run over ``paths`` (with no project marker, the project is theirs)."""
    select_t, ignore_t = _selectors("select", select), _selectors("ignore", ignore)
    settings = load_settings(Path.cwd(), Path(config) if config is not None else None, isolated, paths)
    return with_overrides(settings, select=select_t,
                          ignore=(settings.ignore + ignore_t) if ignore_t else None)


def lint_paths(paths: Union[PathLike, Sequence[PathLike]], *, config: Optional[PathLike] = None,
               isolated: bool = False, select: Optional[Union[str, Iterable[str]]] = None,
               ignore: Optional[Union[str, Iterable[str]]] = None, cache: bool = False) -> List[Finding]:
    """Lint files and directories as ``reslint check PATHS`` does: directories are walked
    for ``*.py``/``*.pyi`` (honouring ``exclude``, ``extend-exclude`` and ``.gitignore``),
    files named explicitly are always checked, and the project-wide pass (RES301) sees
    every module under the project root.

    ``paths`` is one path or a sequence of paths, relative to the current directory or
    absolute (an empty sequence checks nothing). ``cache=True`` reads and writes the
    cache in ``<root>/.reslint_cache`` as the command line does; by default nothing is
    written. Returns the sorted findings (an empty list when clean). A path that does not
    exist, or a directory that cannot be read, is a ``RES000`` finding at 1:1 (``message``
    ``"no such file or directory"``, ``"cannot read directory: ..."``), and a warning on
    stderr, as on the command line; the other paths are linted.

    Raises :class:`ConfigError` (bad configuration or selector) and :class:`LintError` (an
    internal error in a rule). :class:`DiscoveryError` is no longer raised here (it was,
    for a missing path); it stays importable from this module for code that catches it.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [Path(p) for p in paths]
    settings = _load(config, isolated, select, ignore, paths)
    if not paths:
        return []
    from reslint.engine.runner import Runner  # imports LibCST

    run = Runner(settings, use_cache=cache).run(paths)
    findings = sorted((f for result in run.results for f in result.findings), key=Finding.sort_key)
    if run.errors:
        raise LintError(list(run.errors), findings)
    return findings


def lint_source(source: str, filename: str = "<stdin>", *, settings: Optional[Settings] = None,
                config: Optional[PathLike] = None, isolated: bool = False,
                select: Optional[Union[str, Iterable[str]]] = None,
                ignore: Optional[Union[str, Iterable[str]]] = None) -> List[Finding]:
    """Lint Python source text as if it were the file ``filename``, as ``reslint -
    --stdin-filename FILENAME`` does (the per-file rules; the project-wide pass, RES301,
    needs the files on disk: use :func:`lint_paths`).

    ``filename`` decides the path shown in findings (made project-relative when it is a
    path inside the project root), which ``per-file-ignores`` apply and the module name
    rules see; the file need not exist and is never read. ``settings`` (from :func:`load`)
    skips configuration loading; otherwise ``config``/``isolated``/``select``/``ignore``
    work as in :func:`lint_paths`. Returns the sorted findings.

    Raises :class:`ConfigError` (bad configuration or selector), :class:`LintError`
    (an internal error in a rule) and ``TypeError`` when ``source`` is not a ``str``
    (decode bytes first, or write them to a file and use :func:`lint_paths`).
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    if settings is None:
        settings = load(config=config, isolated=isolated, select=select, ignore=ignore)
    elif select is not None or ignore is not None:
        settings = with_overrides(settings, select=_selectors("select", select),
                                  ignore=(settings.ignore + _selectors("ignore", ignore)) if ignore else None)
    from reslint.engine.filepass import Linter  # imports LibCST

    linter = Linter(settings)
    display = filename if filename.startswith("<") or filename == "-" else linter.display_path(Path(filename))
    findings, errors = linter.lint_text(source, display)
    findings = sorted(findings, key=Finding.sort_key)
    if errors:
        raise LintError(errors, findings)
    return findings
