"""File discovery: expand paths to Python files, honouring excludes and ``.gitignore``.

Directories are walked with :func:`os.scandir`, pruning excluded and ignored
directories before descending; directory symlinks are not followed (no loops).
Patterns use gitignore syntax through :mod:`pathspec`. Paths given explicitly
are always checked, as in Ruff; excludes apply to what a walk discovers.
Only regular files are listed (a symlink to a pipe or a device would block or
never end), except a dangling symlink, which is listed so it is reported as
unreadable; a pipe or a device named explicitly is skipped with a warning (and, with
``force_exclude``, a path named explicitly that ``exclude`` matches, silently). A
file named twice (``a.py`` and ``$PWD/a.py``, or a link and its target) is
listed once. What cannot be listed (a path given that does not exist, a
directory that cannot be read) is warned about and handed on (:class:`Unlisted`)
so the run reports it as a finding and goes on, as Ruff does (E902). Every
warning goes through the walker's one ``warn`` function.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import pathspec

from reslint.engine.files import NotRegularFile, read_regular, read_regular_text  # noqa: F401 - re-exported
from reslint.output.terminal import warn

PYTHON_SUFFIXES = (".py", ".pyi")


class DiscoveryError(Exception):
    """A path given that does not exist (raised by :meth:`Walker.expand` only)."""


@dataclass(frozen=True)
class Unlisted:
    """A path whose files cannot be listed. ``reason``: what the run reports for it (its
    RES000 message); ``missing``: a path given that does not exist."""

    path: Path
    reason: str
    missing: bool = False


class Discovery(NamedTuple):
    """What :meth:`Walker.discover` found: the files to lint (sorted) and what it could not list."""

    files: List[Path]
    unlisted: List[Unlisted]


def _spec(patterns: Sequence[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _gitignore_spec(path: Path, lines: List[str], warn: Callable[[str], None]) -> pathspec.GitIgnoreSpec:
    """The spec of a ``.gitignore``, without the lines pathspec cannot compile
    (``[z-a]``, a lone ``\\`` or ``!``): git ignores such lines, so do we."""
    try:
        return _spec(lines)
    except (ValueError, re.error):
        pass
    good = []
    for number, line in enumerate(lines, start=1):
        try:
            _spec([line])
        except (ValueError, re.error) as exc:
            warn(f"{path}:{number}: ignored a pattern that cannot be used ({line!r}: {exc})")
            continue
        good.append(line)
    return _spec(good)


def _regular_or_dangling(path) -> bool:
    """Whether ``path`` (a file, not a directory) should be listed: a regular file,
    or a symlink that cannot be followed (dangling or looping: reported as unreadable)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return os.path.islink(path)


def _identity(path) -> str:
    """What makes two spellings of a path the same file: the path resolved."""
    return os.path.realpath(path)


class Walker:
    """Expands paths to files. Built once per run; ``exclude`` is compiled once."""

    def __init__(self, root: Path, exclude: Sequence[str], respect_gitignore: bool = True,
                 warn: Callable[[str], None] = warn, force_exclude: bool = False):
        self.root = Path(os.path.abspath(root))
        self.exclude = _spec(exclude)
        self.respect_gitignore = respect_gitignore
        #: ``exclude`` applies to the paths given too (pre-commit names every staged file)
        self.force_exclude = force_exclude
        self.warn = warn
        self._warned: Set[Tuple[str, str]] = set()

    def warn_once(self, message: str, path=None, kind: str = "") -> None:
        """``self.warn(message)`` unless already said: once per ``(kind, path)`` when ``path`` is
        given (the same file is reached as ``sub/.gitignore`` and ``/abs/sub/.gitignore``),
        else once per message. The walker lives for a run, and a ``--fix`` run walks twice."""
        key = (kind, os.path.abspath(path)) if path is not None else ("", message)
        if key not in self._warned:
            self._warned.add(key)
            self.warn(message)

    def _read_gitignore(self, directory: Path) -> Optional[pathspec.GitIgnoreSpec]:
        """The spec of ``directory/.gitignore``; ``None`` when there is none or it cannot be used.

        Only a regular file is read (:func:`read_regular`: a named pipe called ``.gitignore``
        would hang the run). One that is not a regular file or cannot be read is ignored with
        a warning (git warns too); a missing one, or a dangling link, without a word.
        """
        path = directory / ".gitignore"
        try:
            text = read_regular_text(path, errors="replace")
        except NotRegularFile:
            self.warn_once(f"{path}: not a regular file, ignored", path, "gitignore")
            return None
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.warn_once(f"{path}: cannot read: {exc.strerror or exc}; its patterns are not applied", path,
                            "gitignore")
            return None
        return _gitignore_spec(path, text.splitlines(), self.warn_once)

    def _base(self, top: Path) -> str:
        """What exclude patterns are matched against: paths relative to the project
        root, or to the walk's top when the top lies outside the root or is itself
        excluded (a directory given explicitly is always checked, whatever its path,
        e.g. ``.../site-packages/requests``)."""
        top_abs = os.path.abspath(top)
        rel = os.path.relpath(top_abs, self.root)
        if rel.startswith("..") or (rel != "." and self.exclude.match_file(Path(rel).as_posix() + "/")):
            return top_abs
        return str(self.root)

    def _given_excluded(self, path: Path) -> bool:
        """With ``force_exclude``: whether a path given matches ``exclude``, relative to the root
        (a pattern naming a directory excludes the files under it). A path outside the root is
        matched by no pattern."""
        rel = relative(os.path.abspath(path), str(self.root))
        if rel is None or rel == ".":
            return False
        return self.exclude.match_file(rel + ("/" if path.is_dir() else ""))

    def _excluded(self, path: str, is_dir: bool, base: str) -> bool:
        """``path`` and ``base``: absolute."""
        rel = relative(path, base)
        return rel is not None and self.exclude.match_file(rel + ("/" if is_dir else ""))

    def discover(self, paths: Sequence[Path]) -> Discovery:
        """Every file to lint, sorted, without duplicates, and what could not be listed: a path
        that does not exist, a directory that cannot be read (each once, with a warning). A path
        given that is not a regular file or a directory (a named pipe, a device) is skipped with
        a warning and never opened: opening a pipe blocks. Never raises for a path.

        A file reached under two spellings is listed under the first one.
        """
        found = {}
        unlisted: Dict[str, Unlisted] = {}
        for path in paths:
            if not os.path.lexists(path):
                self._unlisted(unlisted, Unlisted(Path(path), "no such file or directory", missing=True))
            elif self.force_exclude and self._given_excluded(path):
                continue
            elif path.is_dir():
                for file, identity in self._walk(path, unlisted):
                    found.setdefault(identity, file)
            elif _regular_or_dangling(path):
                found.setdefault(_identity(path), path)
            else:
                self.warn_once(f"{path}: not a regular file, skipped", path, "skipped")
        return Discovery(sorted(found.values(), key=os.path.normpath), list(unlisted.values()))

    def expand(self, paths: Sequence[Path]) -> List[Path]:
        """The files of :meth:`discover`. Raises :class:`DiscoveryError` for the first path that
        does not exist, before walking anything (for callers that want files or an error)."""
        for path in paths:
            if not os.path.lexists(path):
                raise DiscoveryError(f"{path}: no such file or directory")
        return self.discover(paths).files

    def _unlisted(self, unlisted: Dict[str, Unlisted], item: Unlisted) -> None:
        """Record ``item`` in ``unlisted`` (keyed by absolute path: ``x`` and ``./x`` are one) and
        warn, once per path: stderr shows it whatever the output format."""
        key = os.path.abspath(item.path)
        if key not in unlisted:
            unlisted[key] = item
            self.warn_once(f"{item.path}: {item.reason}", item.path, "unlisted")

    def _ignores_above(self, directory: Path) -> List[Tuple[Path, pathspec.GitIgnoreSpec]]:
        """The ``.gitignore`` specs of the project root and every directory down to ``directory``."""
        if not self.respect_gitignore:
            return []
        absolute = Path(os.path.abspath(directory))
        if absolute != self.root and self.root not in absolute.parents:
            return []
        chain = [p for p in absolute.parents if p == self.root or self.root in p.parents]
        specs = []
        for parent in reversed(chain):
            spec = self._read_gitignore(parent)
            if spec is not None:
                specs.append((parent, spec))
        return specs

    def _ignored(self, path: str, is_dir: bool, ignores) -> bool:
        """``path``: absolute; ``ignores``: (absolute directory, spec) pairs."""
        for base, spec in ignores:
            rel = relative(path, base)
            if rel is None:
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False

    def _walk(self, top: Path, unlisted: Dict[str, Unlisted]) -> Iterator[Tuple[Path, str]]:
        """``(file, its identity)``: below the resolved top, a file that is not a link is where
        the walk found it (directory links are not followed), which saves a ``realpath`` each.
        Directories that cannot be read go to ``unlisted`` (:meth:`_unlisted`)."""
        ignores = [(os.fspath(base), spec) for base, spec in self._ignores_above(top)]
        real_top = _identity(top)
        prefix = os.path.join(os.fspath(top), "")  # every path found is os.path.join(top, ...)
        walked = self._walk_dir(os.fspath(top), os.path.abspath(top), ignores, self._base(top), unlisted)
        for path, is_link in walked:
            if is_link or not path.startswith(prefix):
                yield Path(path), _identity(path)
            else:
                yield Path(path), os.path.join(real_top, path[len(prefix):])

    def _walk_dir(self, directory: str, absolute: str, ignores, base: str,
                  unlisted: Dict[str, Unlisted]) -> Iterator[Tuple[str, bool]]:
        """``(path as found, is a link)`` of the files under ``directory`` (``absolute``: the same,
        absolute): paths stay strings, and each is matched relative to ``base`` by slicing. A
        directory that cannot be read goes to ``unlisted``: its files would be missed unseen."""
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError as exc:
            self._unlisted(unlisted, Unlisted(Path(directory), f"cannot read directory: {exc.strerror or exc}"))
            return
        if self.respect_gitignore and any(e.name == ".gitignore" for e in entries):
            spec = self._read_gitignore(Path(directory))
            if spec is not None:
                ignores = [*ignores, (absolute, spec)]
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            if not is_dir and not entry.name.endswith(PYTHON_SUFFIXES):
                continue
            if is_link:
                # a dangling or looping symlink is still listed, so it is reported as unreadable;
                # one to a directory is not followed, one to a pipe or a device is not read
                is_file = not is_dir and _regular_or_dangling(entry.path)
            else:
                try:
                    is_file = entry.is_file(follow_symlinks=False)
                except OSError:
                    is_file = False
            inner = os.path.join(absolute, entry.name)
            if is_dir:
                if self._excluded(inner, True, base) or self._ignored(inner, True, ignores):
                    continue
                yield from self._walk_dir(entry.path, inner, ignores, base, unlisted)
            elif is_file:
                if self._excluded(inner, False, base) or self._ignored(inner, False, ignores):
                    continue
                yield entry.path, is_link


def relative(path: str, base: str) -> Optional[str]:
    """``path`` relative to ``base`` (both absolute and normalised), ``/``-separated; ``None``
    when it is not below ``base``. String slicing: ``os.path.relpath`` normalises both
    paths again on every call, which cost a re-run a tenth of its time."""
    if path == base:
        return "."
    start = base if base.endswith(os.sep) else base + os.sep
    if not path.startswith(start):
        return None
    rel = path[len(start):]
    return rel if os.sep == "/" else rel.replace(os.sep, "/")
