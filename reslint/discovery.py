"""File discovery: expand paths to Python files, honouring excludes and ``.gitignore``.

Directories are walked with :func:`os.scandir`, pruning excluded and ignored
directories before descending; directory symlinks are not followed (no loops).
Patterns use gitignore syntax through :mod:`pathspec`. Paths given explicitly
are always checked, as in Ruff; excludes apply to what a walk discovers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

import pathspec

PYTHON_SUFFIXES = (".py", ".pyi")


class DiscoveryError(Exception):
    """A path given on the command line that does not exist."""


def _spec(patterns: Sequence[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _read_gitignore(directory: Path) -> Optional[pathspec.GitIgnoreSpec]:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _spec(text.splitlines())


def _is_dir(entry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


class Walker:
    """Expands paths to files. Built once per run; ``exclude`` is compiled once."""

    def __init__(self, root: Path, exclude: Sequence[str], respect_gitignore: bool = True):
        self.root = Path(os.path.abspath(root))
        self.exclude = _spec(exclude)
        self.respect_gitignore = respect_gitignore

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

    def _excluded(self, path: Path, is_dir: bool, base: str) -> bool:
        suffix = "/" if is_dir else ""
        rel = Path(os.path.relpath(os.path.abspath(path), base)).as_posix() + suffix
        return self.exclude.match_file(rel)

    def expand(self, paths: Sequence[Path]) -> List[Path]:
        """Every file to lint, sorted, without duplicates. Raises :class:`DiscoveryError`."""
        found = {}
        for path in paths:
            if not os.path.lexists(path):
                raise DiscoveryError(f"{path}: no such file or directory")
            if path.is_dir():
                for file in self._walk(path):
                    found.setdefault(os.path.normpath(file), file)
            else:
                found.setdefault(os.path.normpath(path), path)
        return [found[k] for k in sorted(found)]

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
            spec = _read_gitignore(parent)
            if spec is not None:
                specs.append((parent, spec))
        return specs

    def _ignored(self, path: Path, is_dir: bool, ignores) -> bool:
        absolute = os.path.abspath(path)
        for base, spec in ignores:
            rel = os.path.relpath(absolute, base)
            if rel.startswith(".."):
                continue
            if spec.match_file(Path(rel).as_posix() + ("/" if is_dir else "")):
                return True
        return False

    def _walk(self, top: Path) -> Iterator[Path]:
        ignores = self._ignores_above(top)
        yield from self._walk_dir(top, ignores, self._base(top))

    def _walk_dir(self, directory: Path, ignores, base: str) -> Iterator[Path]:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        if self.respect_gitignore and any(e.name == ".gitignore" for e in entries):
            spec = _read_gitignore(directory)
            if spec is not None:
                ignores = [*ignores, (Path(os.path.abspath(directory)), spec)]
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                continue
            try:
                is_file = entry.is_file()
            except OSError:
                is_file = False
            # a dangling or looping symlink is still listed, so it is reported as unreadable
            is_file = is_file or (is_link and not is_dir and not _is_dir(entry))
            if is_dir:
                if self._excluded(path, True, base) or self._ignored(path, True, ignores):
                    continue
                yield from self._walk_dir(path, ignores, base)
            elif is_file and entry.name.endswith(PYTHON_SUFFIXES):
                if self._excluded(path, False, base) or self._ignored(path, False, ignores):
                    continue
                yield path
