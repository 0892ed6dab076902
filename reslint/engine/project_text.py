"""Words the project's Python files spell: what a finding that depends on other files asks after
the cache (a shadowed module's loader by path, a setting another settings module sets).

The files are read as text, never run or imported: every ``.py`` file under the project root,
hidden directories, caches and virtual environments left out (a virtual environment is also
recognised by its ``pyvenv.cfg``), symbolic links to directories not followed. A file that
cannot be read may spell anything: the answer then says so, and the caller keeps its findings.
"""

from __future__ import annotations

import errno
import os
import re
from typing import Dict, Iterable, Iterator, Optional, Set, Tuple

from reslint.engine.files import NotRegularFile, read_regular

#: directories never searched: caches and packaging tools' trees
_SKIPPED_DIRECTORIES = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})
#: the largest Python file read (bytes): a generated file beyond it spells nothing that matters
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def project_sources(root) -> Iterator[Tuple[str, Optional[str]]]:
    """(real path, text) of every Python file under ``root`` (text ``None``: it cannot be read; a
    file larger than :data:`MAX_SOURCE_BYTES` is read as empty), in a stable order."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            d for d in subdirectories
            if not d.startswith(".") and d not in _SKIPPED_DIRECTORIES
            and not os.path.isfile(os.path.join(directory, d, "pyvenv.cfg")))
        yield from _read(os.path.join(directory, name) for name in sorted(files) if name.endswith(".py"))


class Mentions:
    """Which of the project's Python files spell each of ``words`` as a whole word (not a part of a
    longer name: ``providers.py`` is not in ``test_providers.py``, ``EMAIL_TIMEOUT`` not in
    ``MY_EMAIL_TIMEOUT``; ``util.spec_from_file_location`` spells ``spec_from_file_location``),
    searched once for all of them; ``unreadable``: a file could not be read, so any word may be
    spelled in it (:meth:`elsewhere` answers as its caller says is safe)."""

    def __init__(self, root, words: Iterable[str], files: Optional[Iterable[str]] = None):
        """``files``: the Python files to search (the run's own discovery: its excludes apply);
        ``None``: every one under ``root`` (:func:`project_sources`)."""
        self.files: Dict[str, Set[str]] = {}
        self.unreadable = False
        words = sorted(set(words))
        if not words or root is None:
            return
        # a file name stands apart from a longer path part (``test_providers.py``, ``x.providers.py``);
        # a name from a longer name (``MY_EMAIL_TIMEOUT``), though an attribute (``util.run_path``) counts
        names = [w for w in words if w.isidentifier()]
        paths = [w for w in words if not w.isidentifier()]
        patterns = [re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in names) + r")(?!\w)")] if names else []
        if paths:
            patterns.append(re.compile(r"(?<![\w.-])(" + "|".join(re.escape(w) for w in paths) + r")(?![\w.])"))
        sources = project_sources(root) if files is None else _read(files)
        for real, text in sources:
            if text is None:
                self.unreadable = True
                return
            for pattern in patterns:
                for match in pattern.finditer(text):
                    self.files.setdefault(match.group(1), set()).add(real)

    def elsewhere(self, word: str, path: str, unreadable_counts: bool = True) -> bool:
        """Whether a file other than ``path`` spells ``word``; when a file could not be read, the
        answer is ``unreadable_counts`` (the caller's safe side: keep its findings either way)."""
        if self.unreadable:
            return unreadable_counts
        return bool(self.files.get(word, set()) - {os.path.realpath(path)})


def _read(files: Iterable[str]) -> Iterator[Tuple[str, Optional[str]]]:
    """(real path, text) of each of ``files``: ``None`` when it cannot be read, empty when it is
    larger than :data:`MAX_SOURCE_BYTES`; a pipe or a device named like a module is skipped."""
    for path in files:
        try:
            text: Optional[str] = read_regular(path, limit=MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
        except NotRegularFile:
            continue
        except OSError as error:
            text = None if error.errno != errno.EFBIG else ""
        yield os.path.realpath(path), text
