"""What the language server knows about one project: its settings, the summaries of its
modules on disk, and the editor's buffers (no pygls here).

A :class:`Project` serves one workspace folder as ``reslint check`` run in that
folder would: the same settings (:func:`reslint.config.load_settings` from the
folder), the same files (the :class:`~reslint.engine.discovery.Walker` over the project
root), the same cache (``.reslint_cache``, keyed by file content) and the same
project pass (RES105, RES301, RES401, RES402 over module summaries, in
:class:`reslint.engine.runner.Runner`). The difference: a file open in the editor is
linted from its buffer's text, which need not be saved.

The modules on disk are linted once (:meth:`Project.warm`, through the cache, in
worker processes when many need parsing) and kept in memory; :meth:`Project.forget`
drops the ones that changed on disk, which the next :meth:`Project.check` lints again.
A check lints only the buffers whose text changed since the last check, then runs
the project pass over every module, so that editing a helper shows the RES402 a
caller's retry causes in it.

Everything here runs on one thread (the server's lint thread): a
:class:`~reslint.engine.filepass.Linter` is not thread-safe.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from reslint.config import ConfigError, Settings, find_project_root, load_settings
from reslint.diagnostics import Finding
from reslint.engine.discovery import DiscoveryError
from reslint.engine.filepass import Linter
from reslint.engine.results import FileResult, Source, internal_error
from reslint.engine.runner import Runner

#: findings reported by the project pass, which a buffer with a syntax error keeps none of
SYNTAX = "RES000"


@dataclass
class Checked:
    """One buffer's outcome: the text it was linted from and what to show for it.

    ``findings`` are sorted, after suppressions, per-file ignores and the project pass,
    exactly what ``reslint check`` reports for that text; ``errors`` are internal errors
    (a bug in reslint), one message each.
    """

    path: str
    display: str
    text: str
    findings: List[Finding] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    root: str = ""  # the settings' root, which display paths are relative to

    def path_of(self, display: str) -> str:
        """The absolute path of a display path in a finding (its ``filename``, a related one)."""
        return os.path.normpath(os.path.join(self.root, display))


class BufferLinter(Linter):
    """A :class:`~reslint.engine.filepass.Linter` that lints an editor buffer as if it were the file.

    :meth:`lint_buffer` hands the buffer's text to the engine in place of the decoded
    bytes of the file (:meth:`decode`), so every stage after decoding (prefilters, syntax
    check, rules, summary, suppressions) is the engine's own.
    """

    def __init__(self, settings: Settings, ignore_noqa: bool = False):
        super().__init__(settings, ignore_noqa)
        self._buffer: Optional[str] = None

    def decode(self, data: bytes, display: str):
        """The buffer's text while :meth:`lint_buffer` runs, else the engine's decoding."""
        if self._buffer is not None:
            digest = hashlib.blake2b(self._buffer.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
            return Source(self._buffer, "utf-8", digest), []
        return super().decode(data, display)

    def lint_buffer(self, path: str, text: str, force: bool = False) -> FileResult:
        """Lint ``text`` as the file ``path`` (absolute; it need not exist), without the last
        step (suppressions are judged after the project pass). ``force``: parse it even when
        the prefilter would skip it (the project pass wants its summary). Never raises: an
        exception inside reslint becomes an internal error of this file."""
        display = self.display_path(Path(path))
        self._buffer = text
        try:
            return self.lint_bytes(b"", display, FileResult(path, display), complete=False, force=force)
        except Exception as exc:  # noqa: BLE001 - one buffer must not stop the server
            return FileResult(path, display, internal_errors=[internal_error(display, exc)])
        finally:
            self._buffer = None


class BufferRunner(Runner):
    """A :class:`~reslint.engine.runner.Runner` whose :meth:`lint` answers from memory: an open
    buffer from its text, a file on disk from what was linted before (until
    :meth:`forget` drops it), else through the cache as ``reslint check`` does.

    ``buffers`` maps absolute paths to the text of the open buffers; the project pass
    loads the modules it reaches through :meth:`lint`, so it sees the buffers too.
    """

    def __init__(self, settings: Settings, use_cache: bool = True, cache_dir: Optional[Path] = None):
        super().__init__(settings, use_cache=use_cache, cache_dir=cache_dir)
        self.buffers: Dict[str, str] = {}
        self._buffer_linter: Optional[BufferLinter] = None
        #: absolute path -> (force, result) of the files on disk
        self.disk: Dict[str, Tuple[bool, FileResult]] = {}
        #: absolute path -> (text, force, result) of the buffers
        self.linted: Dict[str, Tuple[str, bool, FileResult]] = {}

    @property
    def linter(self) -> BufferLinter:
        if self._buffer_linter is None:
            self._buffer_linter = BufferLinter(self.settings)
        return self._buffer_linter

    def _again(self, settings: Settings) -> "BufferRunner":
        """The project pass's second look reads the open buffers too, not the files on disk."""
        again = BufferRunner(settings, use_cache=self.cache is not None, cache_dir=self._cache_dir)
        again.buffers = self.buffers
        return again

    def lint(self, path: Path, force: bool = False) -> FileResult:
        key = os.path.abspath(path)
        text = self.buffers.get(key)
        if text is not None:
            return self._lint_buffer(key, text, force)
        known = self.disk.get(key)
        if known is not None and (known[0] or not force or not known[1].skipped):
            return known[1]
        result = super().lint(Path(key), force)
        self.disk[key] = (force, result)
        return result

    def _lint_buffer(self, path: str, text: str, force: bool) -> FileResult:
        known = self.linted.get(path)
        if known is not None and known[0] == text and (known[1] or not force or not known[2].skipped):
            return known[2]
        result = self.linter.lint_buffer(path, text, force)
        self.linted[path] = (text, force, result)
        return result

    def remember(self, results: Sequence[FileResult]) -> None:
        """Keep the results of a whole run (:meth:`Runner.run`) as the files' on disk."""
        for result in results:
            self.disk.setdefault(os.path.abspath(result.path), (False, result))

    def forget(self, paths: Sequence[str]) -> None:
        """Lint these files again the next time they are asked for (they changed on disk)."""
        for path in paths:
            self.disk.pop(os.path.abspath(path), None)


def _settings(folder: Path) -> Tuple[Settings, Optional[str]]:
    """The settings ``reslint check`` uses when run in ``folder``, and ``None``; or, for a
    configuration that cannot be used, the built-in defaults and the error message."""
    try:
        return load_settings(folder), None
    except ConfigError as exc:
        root = find_project_root(folder)
        return Settings(root=folder, project_root=root, project_scope=root or folder), str(exc)


class Project:
    """One workspace folder (see the module docstring). ``use_cache``/``cache_dir`` as for
    ``reslint check`` (``cache_dir=None``: ``.reslint_cache`` in the project root)."""

    def __init__(self, folder: Path, use_cache: bool = True, cache_dir: Optional[Path] = None,
                 walk: bool = True):
        self.folder = Path(os.path.abspath(folder))
        #: whether the project pass reads the modules on disk; ``False``: only the buffers
        #: (a file opened from outside the workspace)
        self.walk = walk
        self.use_cache = use_cache
        self.cache_dir = cache_dir
        self.settings, self.config_error = _settings(self.folder)
        self.runner = BufferRunner(self.settings, use_cache=use_cache, cache_dir=cache_dir)
        #: the project's files on disk (absolute paths), once :meth:`warm` has run
        self.files: Optional[List[str]] = None
        self._listed: set = set()  # the same, as a set
        self._rewalked: set = set()  # paths that made a walk again (see :meth:`excluded`)
        self.errors: List[str] = []  # internal errors of the files on disk, from the warm-up
        #: the last summary of each buffer that had one: a buffer with a syntax error keeps
        #: its module in the project pass (its callers' findings do not flicker while typing)
        self._last_summary: Dict[str, object] = {}
        self._last: Optional[Tuple[Dict[str, str], Dict[str, Checked]]] = None

    @property
    def scope(self) -> Path:
        """The directory whose modules the project pass reads (the CLI's project root)."""
        return self.settings.anchor

    def owns(self, path: str) -> bool:
        """Whether ``path`` (absolute) is inside this project's folder or the directory its
        project pass reads (:attr:`scope`, which can be above the folder)."""
        return any(path == str(top) or path.startswith(str(top).rstrip(os.sep) + os.sep)
                   for top in (self.folder, self.scope))

    def display(self, path: str) -> str:
        """The project-relative ``/`` path reslint shows for ``path``."""
        return self.runner.judge.display_path(Path(path))

    # -- the modules on disk -------------------------------------------------------------------------
    def warm(self) -> None:
        """Lint every module of the project once (through the cache) if not done yet."""
        if self.files is not None:
            return
        if not self.walk:
            self.files, self._listed = [], set()
            return
        scope = self.scope
        try:
            files = [os.path.abspath(p) for p in self.runner.walker.expand([scope])]
        except DiscoveryError:
            files = []
        if files:
            run = self.runner.run([scope])
            self.runner.remember(run.results)
            self.errors = list(run.errors)
        self.files, self._listed = files, set(files)

    def forget(self, paths: Sequence[str], created_or_deleted: bool = False) -> None:
        """Files that changed on disk: lint them again at the next :meth:`check`;
        ``created_or_deleted``: also walk the project again."""
        self.runner.forget(paths)
        if created_or_deleted:
            self.runner.forget_layout()
        if created_or_deleted and self.files is not None:
            self._rewalk()
        self._last = None

    def _rewalk(self) -> None:
        try:
            self.files = [os.path.abspath(p) for p in self.runner.walker.expand([self.scope])]
        except DiscoveryError:
            self.files = []
        self._listed = set(self.files)

    def excluded(self, path: str) -> bool:
        """Whether ``reslint check`` on the project leaves ``path`` out (``exclude``,
        ``extend-exclude``, .gitignore): a file on disk inside the project that its walk does
        not list (walked again once for a path not seen before: the file may be new). A buffer
        of such a file gets no findings, as in Ruff's editor integration; a file outside the
        project, or not saved yet, is linted."""
        if not self.walk or path in self._listed or not os.path.isfile(path) or not self.owns(path):
            return False
        if path not in self._rewalked:
            self._rewalked.add(path)
            self._rewalk()
        return path not in self._listed

    # -- the buffers -------------------------------------------------------------------------------
    def check(self, buffers: Dict[str, str]) -> Dict[str, Checked]:
        """The outcome of every buffer (absolute path -> text) of this project, after the
        project pass over the buffers and the other modules; the same mapping of texts
        as the last call (and nothing forgotten since) returns the last outcome."""
        if self._last is not None and self._last[0] == buffers:
            return self._last[1]
        self.warm()
        linted = {path: text for path, text in buffers.items() if not self.excluded(path)}
        own = self._lint_buffers(linted)
        judge = self.runner.judge
        if judge.needs_summary:
            self._project_pass(own, linted)
        root = str(self.settings.root)
        outcome = {path: Checked(path, self.display(path), text, root=root) for path, text in buffers.items()
                   if path not in linted}  # excluded: no findings
        for path, result in own.items():
            judge.complete(result, project_pass=judge.needs_summary, text=linted[path])
        self.runner.leave_out_after_cache(list(own.values()))  # as `reslint check` does
        for path, result in own.items():
            findings = list(self.runner.linted[path][2].findings) if self._stale(path, result) else result.findings
            outcome[path] = Checked(path, result.display, linted[path], findings, list(result.internal_errors), root)
        self._last = (dict(buffers), outcome)
        return outcome

    def _project_pass(self, own: Dict[str, FileResult], buffers: Dict[str, str]) -> None:
        """The CLI's project pass over the buffers and the modules on disk, adding its findings
        to the buffers' results; an exception in it becomes an internal error of each buffer
        (their per-file findings stay)."""
        try:
            self.runner.project_pass(list(own.values()) + self._others(buffers), others=False)
        except Exception as exc:  # noqa: BLE001 - the editor keeps the per-file findings
            for result in own.values():
                result.internal_errors.append(internal_error(result.display, exc, " in the project pass"))

    def _lint_buffers(self, buffers: Dict[str, str]) -> Dict[str, FileResult]:
        """Each buffer's result (linted when its text changed), copied for one project pass;
        the buffers no longer open are forgotten."""
        self.runner.buffers = dict(buffers)
        for path in [p for p in self.runner.linted if p not in buffers]:
            del self.runner.linted[path]
            self._last_summary.pop(path, None)
        return {path: self._pass_copy(path, self.runner.lint(Path(path))) for path in sorted(buffers)}

    def _others(self, buffers: Dict[str, str]) -> List[FileResult]:
        """The modules on disk that are not open, as the project pass needs them (summaries)."""
        out = []
        for path in self.files or ():
            if path not in buffers:
                other = self.runner.lint(Path(path))
                out.append(FileResult(other.path, other.display, summary=other.summary, skipped=other.skipped))
        return out

    def _pass_copy(self, path: str, result: FileResult) -> FileResult:
        """A copy of a buffer's result for one project pass (which adds findings to it),
        with the last good summary when this text has none because it does not parse."""
        copy = replace(result, findings=list(result.findings), suppressed=list(result.suppressed),
                       internal_errors=list(result.internal_errors))
        if result.summary is not None:
            self._last_summary[path] = result.summary
        elif not result.skipped and path in self._last_summary and \
                any(f.code == SYNTAX for f in result.findings):
            copy.summary = self._last_summary[path]
        return copy

    def _stale(self, path: str, result: FileResult) -> bool:
        """Whether a buffer went through the pass with its last good summary (it does not parse
        now): then none of the pass's findings belong in it, its positions are old."""
        raw = self.runner.linted.get(path)
        return raw is not None and raw[2].summary is None and result.summary is not None

    def fix_all(self, path: str, text: str, findings: List[Finding], unsafe: bool):
        """:func:`reslint.engine.fixer.fix_text` on a buffer: ``(fixed text or None, error or None)``.
        ``findings`` are the buffer's (from :meth:`check`), used for the first round."""
        from reslint.engine.fixer import fix_text

        outcome = fix_text(self.runner.linter, text, self.display(path), unsafe, findings)
        return outcome.text, outcome.error
