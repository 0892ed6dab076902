"""The per-file cache: findings and module summaries keyed by file content.

The cache is untrusted input. It lives in the checked repository by default, and CI caches
are restored across branches, so whoever writes the repository can write the cache. Hence:

- **Data only.** Entries are JSON, rebuilt into findings and summaries by :mod:`reslint.engine.serial`,
  which checks every value against its declared type: nothing in a cache file can construct an
  object or run code, and an entry of the wrong shape is a miss.
- **Authenticated.** Each file carries an HMAC-SHA256 over its name, its directory and its
  content, made with a per-user key kept outside every project (:func:`cache_key`). A planted,
  forged or foreign entry does not verify and is a miss, so it cannot hide a finding; nothing
  is parsed before it verifies. A CI job that shares its cache across runs provides the key in
  ``RESLINT_CACHE_KEY``.
- **Never written through a link.** Directories are opened with ``O_NOFOLLOW`` and files are
  created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to them, then renamed into place, so
  a symbolic link planted anywhere in the cache is never followed. A cache directory that is a
  symbolic link is refused with a warning, and the run goes on without a cache. Platforms
  without ``dir_fd`` support run without a cache.

Layout (as Ruff's): ``<cache dir>/CACHEDIR.TAG``, a ``.gitignore`` of ``*``, and
``<reslint version>-<settings hash>/<2 hex>/<key>.json`` per file, where the key hashes the
file's project-relative path and bytes (content, not mtime: a CI checkout gives every file a
new mtime), beside ``index.json`` (the stat index) and ``last-run.json``. Entries are written
to a temporary file and renamed, so concurrent runs never see half an entry.
"""

from __future__ import annotations

import errno
import functools
import gc
import hashlib
import hmac
import json
import marshal
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from reslint import __version__
from reslint.diagnostics import Finding
from reslint.output.terminal import warn
from reslint.engine.serial import Invalid, decoder, encode

CACHE_DIR_NAME = ".reslint_cache"
INDEX_NAME = "index.json"
RUN_NAME = "last-run.json"
TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by reslint.\n"
FORMAT = 3  # bump when the stored shapes change (3: a skipped file's text marks; 2: JSON with an HMAC; 1 was pickle)
#: the directory of one reslint version and settings: ``<version>-<16 hex digits>``
ENTRY_DIR = re.compile(r"[0-9][^/\\]*-[0-9a-f]{16}")
#: the first line of every cache file
MAGIC = b"reslint-cache 2\n"
#: the environment variable that provides the key (a CI cache shared across runs)
KEY_VARIABLE = "RESLINT_CACHE_KEY"
KEY_FILE_NAME = "cache-key"
MIN_KEY_CHARS = 16
#: cache files larger than these are not read (a planted sparse multi-GB file must not cost
#: seconds and memory): one file's entry, and the index or last run of a whole project
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_INDEX_BYTES = 1024 * 1024 * 1024

#: what one file's entry holds: findings, internal errors, module summary, suppressed findings,
#: directive comments, skipped by the prefilter, the text marks of a skipped file
#: (:class:`reslint.engine.results.TextMarks`)
#: ``Tuple[Tuple[Finding, ...], Tuple[str, ...], Optional[ModuleSummary], Tuple[Finding, ...],
#: Tuple[Comment, ...], bool, int]`` (built by :func:`_value_type`)
Value = tuple
Signature = Tuple[int, int, int, int, int, str]  # (size, mtime ns, inode, ctime ns, device, module)
_RUN = decoder(Tuple[str, Dict[str, Tuple[Finding, ...]]])


@functools.lru_cache(maxsize=None)
def _value_type():
    """The declared type of :data:`Value`. Imported on first use: a re-run answered from the
    last run reads findings only, and the summary and comment types (and building their
    decoders) cost a tenth of that run."""
    from reslint.analysis.facts import ModuleSummary
    from reslint.engine.suppression import Comment

    return Tuple[Tuple[Finding, ...], Tuple[str, ...], Optional[ModuleSummary], Tuple[Finding, ...],
                 Tuple[Comment, ...], bool, int]


def _value_decoder():
    return decoder(_value_type())


def _decode_index(data) -> Optional[Tuple[dict, dict]]:
    """(the decoded stat index, the JSON it was decoded from) (:meth:`Cache.store_index` writes
    the unchanged entries back as read); ``None`` for an empty or other JSON value."""
    if not isinstance(data, dict) or not data:
        return None
    return decoder(Dict[str, Tuple[Signature, str, _value_type()]])(data), data

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: the operations a link-safe cache needs (POSIX); elsewhere no cache is used
SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and all(
    call in os.supports_dir_fd for call in (os.open, os.mkdir, os.rename, os.unlink))


class CacheUnavailable(Exception):
    """No cache can be used this run; the message says why."""


def _code_fingerprint() -> str:
    """Size and mtime of reslint's own modules: a development checkout changes results without
    changing the version number, and a stale entry must not survive that."""
    package = Path(__file__).resolve().parent.parent  # the whole reslint package, not only reslint/engine/
    parts = []
    for path in sorted(package.rglob("*.py")):
        try:
            st = path.stat()
        except OSError:
            continue
        parts.append(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def settings_fingerprint(settings) -> str:
    """A short hash of everything that can change a result: settings, enabled rules, reslint's code,
    and the project facts rules read (pinned dependency versions decide whether a fix is offered;
    ``requires-python`` whether syntax this Python rejects is read with a newer grammar)."""
    from reslint.project import dependency_facts, requires_python

    # what is reported and how, not what is found: no reason to lint again
    fields = {k: v for k, v in vars(settings).items()
              if k not in ("root", "config_file", "project_root", "project_scope", "baseline", "output_format",
                           "force_exclude")}
    text = repr(sorted((k, repr(v)) for k, v in fields.items())) + repr(sorted(settings.enabled))
    text += repr(dependency_facts(settings.root))
    text += repr(requires_python(settings.anchor))
    return hashlib.blake2b(f"{__version__}:{FORMAT}:{_code_fingerprint()}:{text}".encode(),
                           digest_size=8).hexdigest()


def file_key(display: str, data: bytes, module: str = "") -> str:
    """The cache key of a file: a hash of its display path, its module name (a summary depends
    on the packages around the file) and its bytes (32 hex digits)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(display.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(module.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


def state_digest(files: tuple) -> str:
    """A hash of a run's ((display path, :data:`Signature`), ...): equal only for the same files
    with the same signatures, in the same order (32 hex digits).

    The tuple is serialised with :mod:`marshal` (format 2: no back-references, so the bytes
    depend on the values alone), a quarter of the cost of its ``repr``. Only our own tuple of
    strings and integers is ever marshalled, to be hashed; nothing is ever unmarshalled."""
    return hashlib.blake2b(marshal.dumps(files, 2), digest_size=16).hexdigest()


# -- the key ------------------------------------------------------------------------------
def key_path() -> Path:
    """Where the per-user key lives: ``cache-key`` in the user's configuration directory for
    reslint (``$XDG_CONFIG_HOME/reslint``, by default ``~/.config/reslint``, on Linux; the
    platform's equivalent elsewhere), never inside a project."""
    configured = _xdg_config_home()
    if configured is not None:
        return Path(configured) / "reslint" / KEY_FILE_NAME
    import platformdirs

    return Path(platformdirs.user_config_dir("reslint", appauthor=False)) / KEY_FILE_NAME


def _xdg_config_home() -> Optional[str]:
    """The user's configuration directory on Linux, as platformdirs gives it there (the XDG base
    directory specification), without importing platformdirs, which cost a cached re-run a
    hundredth: ``$XDG_CONFIG_HOME`` when that is an absolute path, else ``$HOME/.config`` when it
    is unset or empty and ``HOME`` is absolute. ``None`` (platformdirs decides) on other
    platforms, on Android, and for any other value."""
    if not sys.platform.startswith("linux") or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ:
        return None
    configured = os.environ.get("XDG_CONFIG_HOME", "")
    if configured:
        return configured if os.path.isabs(configured) else None
    home = os.environ.get("HOME", "")
    return os.path.join(home, ".config") if os.path.isabs(home) else None


_KEYS: Dict[tuple, bytes] = {}


def cache_key() -> bytes:
    """The key that authenticates cache entries: ``RESLINT_CACHE_KEY`` when set (at least
    16 characters), else the contents of :func:`key_path`, created with 256 random bits and mode
    0600 on first use. Raises :class:`CacheUnavailable` when neither can be had (the key file is
    not a regular file of this user's, readable by others, or cannot be created)."""
    variable = os.environ.get(KEY_VARIABLE)
    if variable is not None:
        if len(variable) < MIN_KEY_CHARS:
            raise CacheUnavailable(f"{KEY_VARIABLE} must be at least {MIN_KEY_CHARS} characters long")
        return b"env:" + variable.encode("utf-8", "surrogatepass")
    path = key_path()
    memo = (str(path),)
    if memo not in _KEYS:
        _KEYS[memo] = b"file:" + _read_or_create_key(path)
    return _KEYS[memo]


def _read_or_create_key(path: Path) -> bytes:
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(f".{KEY_FILE_NAME}-{os.urandom(8).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(os.urandom(32).hex() + "\n")
            try:
                os.link(tmp, path)  # never replaces a key another process made meanwhile
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        return _read_key(path)
    except FileNotFoundError as exc:
        raise CacheUnavailable(f"cannot create the cache key {path}: {exc.strerror}") from None
    except OSError as exc:
        raise CacheUnavailable(f"cannot create the cache key {path}: {exc.strerror or exc}") from None


def _read_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise CacheUnavailable(f"cannot read the cache key {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CacheUnavailable(f"the cache key {path} is not a regular file")
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            raise CacheUnavailable(f"the cache key {path} must belong to this user with mode 0600")
        text = os.read(fd, 4096).strip()
    finally:
        os.close(fd)
    if len(text) < MIN_KEY_CHARS:
        raise CacheUnavailable(f"the cache key {path} is too short: remove it to make a new one")
    return text


def seal(key: bytes, scope: str, name: str, payload: bytes) -> bytes:
    """A cache file's bytes: :data:`MAGIC`, the hex HMAC-SHA256 of (``scope``, ``name``,
    ``payload``) under ``key``, a newline, the payload. Binding the name and the scope (the
    settings directory) means a genuine entry moved to another key's place does not verify."""
    return MAGIC + _mac(key, scope, name, payload) + b"\n" + payload


def unseal(key: bytes, scope: str, name: str, data: bytes) -> Optional[bytes]:
    """The payload of a sealed file, or ``None`` when it does not verify."""
    if not data.startswith(MAGIC):
        return None
    newline = data.find(b"\n", len(MAGIC))
    if newline < 0:
        return None
    payload = data[newline + 1:]  # the one copy of a stat index of megabytes
    if not hmac.compare_digest(data[len(MAGIC):newline], _mac(key, scope, name, payload)):
        return None
    return payload


def _mac(key: bytes, scope: str, name: str, payload: bytes) -> bytes:
    mac = hmac.new(key, f"{scope}\0{name}\0".encode("utf-8", "surrogatepass"), hashlib.sha256)
    mac.update(payload)
    return mac.hexdigest().encode("ascii")


# -- link-safe file operations relative to directory descriptors ---------------------------
def _open_dir(name: str, parent: Optional[int], create: bool) -> int:
    """A descriptor of the directory ``name`` (relative to ``parent``'s descriptor, or a path
    when ``parent`` is None), never through a symbolic link in its last component. Raises
    ``OSError`` (``ELOOP`` or ``ENOTDIR`` for a link or a file; ``ENOENT`` when absent and not
    ``create``)."""
    flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
    try:
        return os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o755, dir_fd=parent)  # mkdir never follows a link at its last component
    except FileExistsError:
        pass
    return os.open(name, flags, dir_fd=parent)


def _read_file(directory: int, name: str, limit: int) -> Optional[bytes]:
    """The bytes of the regular file ``name`` in ``directory``, or ``None``: absent, a link, a
    FIFO or device (opened non-blocking, so none can hang the run), larger than ``limit``
    bytes, or not starting with :data:`MAGIC` (checked before the rest is read)."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=directory)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        head = os.read(fd, len(MAGIC))
        if head != MAGIC:
            return None
        chunks = [head]
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def _write_file(directory: int, name: str, data: bytes) -> None:
    """Write ``name`` in ``directory`` atomically: a new temporary file (``O_EXCL``, so never a
    planted link), renamed over ``name`` (a rename replaces a link, it does not follow it).
    Raises ``OSError``."""
    tmp = f".tmp-{os.urandom(8).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=directory)
        except OSError:
            pass
        raise


def _create_once(directory: int, name: str, text: str) -> None:
    """Create ``name`` with ``text`` unless something (anything, a link included) has that name."""
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=directory)
    except OSError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


class Cache:
    """One run's view of the cache directory (``directory`` need not exist yet).

    Every method is silent about a cache that cannot be read or written: a miss, or nothing
    stored. Only a cache directory that is a symbolic link, and a key that cannot be had, are
    told once on stderr (:func:`reslint.output.terminal.warn`); the run then goes on without a cache.
    """

    def __init__(self, directory: Path, settings):
        self.root = Path(directory)
        self.scope = f"{__version__}-{settings_fingerprint(settings)}"
        self.directory = self.root / self.scope
        self._key: Optional[bytes] = None
        self._disabled = not SUPPORTED
        self._fds: Dict[str, int] = {}  # "" the root, "." the scope, "ab" a bucket
        #: the index as decoded and as read (:meth:`store_index` reuses what did not change)
        self._loaded_index: Tuple[dict, dict] = ({}, {})

    # -- descriptors ---------------------------------------------------------------------
    def _usable(self) -> bool:
        if self._disabled:
            return False
        if self._key is None:
            try:
                self._key = cache_key()
            except CacheUnavailable as exc:
                warn(f"{exc}; running without a cache")
                self._disabled = True
                return False
        return True

    def _dir(self, which: str, create: bool) -> Optional[int]:
        """The descriptor of the root (``""``), the scope directory (``"."``) or a bucket, or
        ``None`` when it is absent (and not ``create``) or unusable."""
        if not self._usable():
            return None
        if which in self._fds:
            return self._fds[which]
        try:
            if which == "":
                fd = self._open_root(create)
            else:
                parent = self._dir("" if which == "." else ".", create)
                if parent is None:
                    return None
                fd = _open_dir(self.scope if which == "." else which, parent, create)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and which != "":
                inside = self.directory if which == "." else self.directory / which
                warn(f"{inside} is a symbolic link or not a directory: running without a cache")
                self._disabled = True
            return None
        self._fds[which] = fd
        return fd

    def _open_root(self, create: bool) -> int:
        if os.path.islink(self.root):
            warn(f"the cache directory {self.root} is a symbolic link: running without a cache")
            self._disabled = True
            raise OSError(errno.ELOOP, "symbolic link")
        if create:
            self.root.parent.mkdir(parents=True, exist_ok=True)
        fd = _open_dir(str(self.root), None, create)
        if create:
            for name, text in (("CACHEDIR.TAG", TAG), (".gitignore", "*\n")):
                _create_once(fd, name, text)
        return fd

    def close(self) -> None:
        """Close the directory descriptors (the cache stays usable: they are opened again)."""
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds.clear()

    def __del__(self):
        if "_fds" in self.__dict__:  # __init__ may have raised before setting it
            self.close()

    # -- sealed files ----------------------------------------------------------------------
    def _load(self, bucket: str, name: str, decode):
        directory = self._dir(bucket, create=False)
        if directory is None:
            return None
        data = _read_file(directory, name, MAX_ENTRY_BYTES if len(bucket) == 2 else MAX_INDEX_BYTES)
        payload = unseal(self._key, self.scope, f"{bucket}/{name}", data) if data is not None else None
        if payload is None:
            return None
        # a verified payload can be hundreds of thousands of objects and no garbage: a collection
        # while they are built only walks them (as in the engine's parse, see reslint.engine.filepass)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return decode(json.loads(payload))
        except (Invalid, ValueError, RecursionError):
            return None
        finally:
            if collecting:
                gc.enable()

    def _store(self, bucket: str, name: str, value, encoded: bool = False) -> None:
        try:
            directory = self._dir(bucket, create=True)
            if directory is None:
                return
            # ASCII with \u escapes: file names that are not valid UTF-8 (surrogates) survive
            payload = json.dumps(value if encoded else encode(value), separators=(",", ":"), check_circular=False).encode("ascii")
            _write_file(directory, name, seal(self._key, self.scope, f"{bucket}/{name}", payload))
        except OSError:
            pass

    # -- per-file entries ----------------------------------------------------------------
    def load(self, key: str) -> Optional[Value]:
        """The stored :data:`Value` of the file with this :func:`file_key`, or ``None`` when
        absent, unverified or of the wrong shape."""
        if not re.fullmatch(r"[0-9a-f]{32}", key):
            return None
        return self._load(key[:2], f"{key}.json", _value_decoder())

    def store(self, key: str, value: Value) -> None:
        """Write an entry atomically; a cache that cannot be written is silently skipped."""
        if re.fullmatch(r"[0-9a-f]{32}", key):
            self._store(key[:2], f"{key}.json", value)

    # -- the last run: a re-run over unchanged files reads nothing else ----------------------
    def load_run(self, files: tuple) -> Optional[Dict[str, Tuple[Finding, ...]]]:
        """The findings of the last run that stored some (see :meth:`store_run`) when it covered
        exactly ``files``, else ``None`` (also when absent, unverified or of the wrong shape)."""
        stored = self._load(".", RUN_NAME, _RUN)
        return stored[1] if stored is not None and stored[0] == state_digest(files) else None

    def store_run(self, files: tuple, findings: dict) -> None:
        """Remember a whole run: ``files`` is ((display path, :data:`Signature`), ...) of
        every file it covered (stored as its :func:`state_digest`: the re-run compares it
        without decoding four thousand signatures), ``findings`` display path -> the final
        findings (after the project pass and RES900) of each file that had some. Written atomically."""
        self._store(".", RUN_NAME, (state_digest(files), findings))

    # -- the stat index: unchanged files are found without reading them ----------------
    def load_index(self) -> Dict[str, tuple]:
        """display path -> (:data:`Signature`, key, value) from the last run with these
        settings; empty when absent, unverified or of the wrong shape. Lets a re-run skip reading
        and hashing files whose ``stat`` is unchanged (a CI checkout, with new mtimes, uses the keys)."""
        loaded = self._load(".", INDEX_NAME, _decode_index)
        if not loaded:
            return {}
        index, raw = loaded
        self._loaded_index = (dict(index), raw)  # a copy: the caller adds to the one it is given
        return index

    def store_index(self, index: Dict[str, tuple]) -> None:
        """Write the index atomically (the last writer wins; a lost update only costs reads).
        Entries unchanged since :meth:`load_index` are written as they were read, not encoded again."""
        loaded, raw = self._loaded_index
        data = {display: raw[display] if loaded.get(display) is entry else encode(entry)
                for display, entry in index.items()}
        self._store(".", INDEX_NAME, data, encoded=True)


def remove(directory: Path) -> List[str]:
    """Remove a cache directory made by reslint (``reslint clean``); return the names of the
    entries left alone because reslint did not make them (the directory then stays).

    Only reslint's own entries go: the ``<version>-<hash>`` directories, ``CACHEDIR.TAG`` and the
    ``.gitignore`` it wrote, so a ``--cache-dir`` pointing at the wrong place deletes nothing else.
    Nothing is followed through a link: a ``directory`` that is a symbolic link raises
    :class:`CacheUnavailable`, and links inside it are left alone (``shutil.rmtree`` does not
    follow them either). The two marker files are compared only when their size matches, so a
    planted giant file is not read. Raises ``OSError`` when something cannot be removed.
    """
    directory = Path(directory)
    if directory.is_symlink():
        raise CacheUnavailable(f"{directory} is a symbolic link: not removed")
    left = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        ours = {"CACHEDIR.TAG": TAG, ".gitignore": "*\n"}.get(entry.name)
        if ours is not None and entry.is_file(follow_symlinks=False) and _holds(entry, ours):
            os.unlink(entry.path)
        elif entry.is_dir(follow_symlinks=False) and ENTRY_DIR.fullmatch(entry.name):
            shutil.rmtree(entry.path)
        else:
            left.append(entry.name)
    if not left:
        directory.rmdir()
    return left


def _holds(entry: os.DirEntry, text: str) -> bool:
    """Whether the regular file ``entry`` holds exactly ``text`` (read only if the size fits)."""
    expected = text.encode("utf-8")
    if entry.stat(follow_symlinks=False).st_size != len(expected):
        return False
    fd = os.open(entry.path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    try:
        return os.read(fd, len(expected) + 1) == expected
    finally:
        os.close(fd)
