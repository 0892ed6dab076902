"""The per-file cache: findings and module summaries keyed by file content.

Layout (as Ruff's): ``<cache dir>/CACHEDIR.TAG``, a ``.gitignore`` of ``*``, and
``<reslint version>-<settings hash>/<2 hex>/<key>.pickle`` per file, where the key
hashes the file's project-relative path and bytes (content, not mtime: a CI
checkout gives every file a new mtime). Entries are written to a temporary file
and renamed, so concurrent runs never see half an entry; an entry that cannot be
read (truncated, corrupted, from another version) is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from reslint import __version__

CACHE_DIR_NAME = ".reslint_cache"
INDEX_NAME = "index.pickle"
RUN_NAME = "last-run.pickle"
TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by reslint.\n"
FORMAT = 1  # bump when the pickled types change shape
#: the directory of one reslint version and settings: ``<version>-<16 hex digits>``
ENTRY_DIR = re.compile(r"[0-9][^/\\]*-[0-9a-f]{16}")


def _code_fingerprint() -> str:
    """Size and mtime of reslint's own modules: a development checkout changes results without
    changing the version number, and a stale entry must not survive that."""
    package = Path(__file__).resolve().parent
    parts = []
    for path in sorted(package.rglob("*.py")):
        try:
            stat = path.stat()
        except OSError:
            continue
        parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def settings_fingerprint(settings) -> str:
    """A short hash of everything that can change a result: settings, enabled rules, reslint's code,
    and the project facts rules read (pinned dependency versions decide whether a fix is offered)."""
    from reslint.project import dependency_facts

    fields = {k: v for k, v in vars(settings).items() if k not in ("root", "config_file", "project_root")}
    text = repr(sorted((k, repr(v)) for k, v in fields.items())) + repr(sorted(settings.enabled))
    text += repr(dependency_facts(settings.root))
    return hashlib.blake2b(f"{__version__}:{FORMAT}:{_code_fingerprint()}:{text}".encode(),
                           digest_size=8).hexdigest()


def file_key(display: str, data: bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(display.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


class Cache:
    """One run's view of the cache directory (``directory`` need not exist yet)."""

    def __init__(self, directory: Path, settings):
        self.root = Path(directory)
        self.directory = self.root / f"{__version__}-{settings_fingerprint(settings)}"
        self._ready = False

    def _prepare(self) -> None:
        if self._ready:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", TAG), (".gitignore", "*\n")):
            path = self.root / name
            if not path.exists():
                try:
                    path.write_text(text, encoding="utf-8")
                except OSError:
                    pass
        self._ready = True

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.pickle"

    def load(self, key: str) -> Optional[object]:
        """The stored value, or ``None`` when absent or unreadable."""
        try:
            with open(self._path(key), "rb") as handle:
                stored = pickle.load(handle)
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 - truncated, corrupted or foreign entries are rebuilt
            return None
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == (FORMAT, __version__)):
            return None
        return stored[1]

    def store(self, key: str, value: object) -> None:
        """Write atomically; a cache that cannot be written is silently skipped."""
        try:
            self._prepare()
            path = self._path(key)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(((FORMAT, __version__), value), handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:
            pass

    # -- the last run: a re-run over unchanged files reads nothing else ----------------------
    def load_run(self) -> Optional[tuple]:
        """``(files, findings)`` of the last run that stored one (see :meth:`store_run`), or
        ``None`` when absent or unreadable."""
        try:
            with open(self.directory / RUN_NAME, "rb") as handle:
                stored = pickle.load(handle)
        except Exception:  # noqa: BLE001 - missing, truncated, corrupted: no shortcut
            return None
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == (FORMAT, __version__)):
            return None
        return stored[1]

    def store_run(self, files: tuple, findings: dict) -> None:
        """Remember a whole run: ``files`` is ((display path, (size, mtime ns, inode)), ...) of
        every file it covered, ``findings`` display path -> the final findings (after the project
        pass and RES900) of each file that had some. Written atomically."""
        self._store_pickle(RUN_NAME, (files, findings))

    # -- the stat index: unchanged files are found without reading them ----------------
    def load_index(self) -> Dict[str, tuple]:
        """display path -> ((size, mtime ns, inode), key, value) from the last run with these
        settings; empty when absent or unreadable. Lets a re-run skip reading and hashing
        files whose ``stat`` is unchanged (a CI checkout, with new mtimes, uses the keys)."""
        try:
            with open(self.directory / INDEX_NAME, "rb") as handle:
                stored = pickle.load(handle)
        except Exception:  # noqa: BLE001 - missing, truncated, corrupted: start afresh
            return {}
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == (FORMAT, __version__)
                and isinstance(stored[1], dict)):
            return {}
        return stored[1]

    def store_index(self, index: Dict[str, tuple]) -> None:
        """Write the index atomically (the last writer wins; a lost update only costs reads)."""
        self._store_pickle(INDEX_NAME, index)

    def _store_pickle(self, name: str, value: object) -> None:
        try:
            self._prepare()
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(((FORMAT, __version__), value), handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.directory / name)
        except OSError:
            pass


def remove(directory: Path) -> List[str]:
    """Remove a cache directory made by reslint (``reslint clean``); return the names of the
    entries left alone because reslint did not make them (the directory then stays).

    Only reslint's own entries go: the ``<version>-<hash>`` directories, ``CACHEDIR.TAG`` and the
    ``.gitignore`` it wrote, so a ``--cache-dir`` pointing at the wrong place deletes nothing else.
    Raises ``OSError`` when something cannot be removed.
    """
    directory = Path(directory)
    left = []
    for entry in sorted(directory.iterdir()):
        ours = {"CACHEDIR.TAG": TAG, ".gitignore": "*\n"}.get(entry.name)
        if ours is not None and entry.is_file() and not entry.is_symlink() and \
                entry.read_text(encoding="utf-8", errors="replace") == ours:
            entry.unlink()
        elif entry.is_dir() and not entry.is_symlink() and ENTRY_DIR.fullmatch(entry.name):
            shutil.rmtree(entry)
        else:
            left.append(entry.name)
    if not left:
        directory.rmdir()
    return left
