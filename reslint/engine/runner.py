"""A whole run: discover, lint each file (through the cache), then the project pass.

The project pass (the project rules of :mod:`reslint.rules.project`: RES301, and RES401/RES402
across modules) needs every module of the project, also when only some files are given
(pre-commit passes the changed files): the others' summaries come from the cache, or are
computed for the project root's files when no cache exists yet. Findings are reported only
for the files that were given.
"""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from reslint import profiling
from reslint.catalog.user import TaskClassEntry
from reslint.engine.cache import CACHE_DIR_NAME, Cache, file_key
from reslint.config import Settings
from reslint.diagnostics import Finding, Location
from reslint.engine.discovery import Unlisted, Walker, relative
from reslint.engine.results import SETTINGS_LIST, FileResult, Judge, TextMarks, decode, internal_error, \
    task_decorator_pattern
from reslint.semantics.prefilter import module_name, namespace_prefix, package_depth
from reslint.engine.suppression import Directive, Suppressions

#: files modified this recently (ns) before the run are not put in the stat index
RECENT_NS = 2_000_000_000
#: below this many files to parse, starting worker processes costs more than it saves
PARALLEL_MIN_FILES = 64

_ASK = object()  # "look it up": no stat index entry is known yet


@dataclass
class RunResult:
    """The per-file results of the files that were given (then those of the paths that could not
    be listed: RES000), and internal error messages."""

    results: List[FileResult]
    errors: List[str] = field(default_factory=list)
    parsed: List[str] = field(default_factory=list)  # display paths linted (not from the cache)


class Runner:
    """Runs one configuration over paths. ``cache_dir=None`` uses ``<root>/.reslint_cache``.

    ``jobs``: worker processes for the files not in the cache (``None``: one per CPU);
    workers start only when at least :data:`PARALLEL_MIN_FILES` files need parsing, and
    the results are the same, in the same order, whatever ``jobs`` is (also when they cannot
    start: then the files are linted in this process, after one warning).
    """

    def __init__(self, settings: Settings, use_cache: bool = True, cache_dir: Optional[Path] = None,
                 ignore_noqa: bool = False, jobs: Optional[int] = None, reuse_last_run: bool = False):
        self.settings = settings
        #: answer from the cache's last run when no file changed (``reslint check``: the caller
        #: needs findings only, not module summaries)
        self.reuse_last_run = reuse_last_run
        self.ignore_noqa = ignore_noqa
        self.jobs = jobs if jobs is not None else (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                                   else os.cpu_count() or 1)
        #: what needs no parsing; the linter (and LibCST) is built only when a file needs linting
        self.judge = Judge(settings, ignore_noqa=ignore_noqa)
        self._linter = None
        self.walker = Walker(settings.root, settings.exclude + settings.extend_exclude, settings.respect_gitignore,
                             force_exclude=settings.force_exclude)
        directory = cache_dir if cache_dir is not None else settings.root / CACHE_DIR_NAME
        self._cache_dir = directory
        # --ignore-noqa gives suppressed findings their fixes, which cached entries do not hold
        self.cache = Cache(directory, settings) if use_cache and not ignore_noqa else None
        self.parsed: List[str] = []
        self._stat_index: Optional[dict] = None
        self._packages: Dict[str, tuple] = {}  # directory -> package chain (module names)
        self._file_names: Dict[str, Tuple[str, Tuple[str, ...]]] = {}  # path as given -> Runner._names
        self._marks: Dict[str, int] = {}  # skipped file (as given) -> FileResult.marks, in a project pass
        self._prefixes: Dict[Tuple[str, int], Tuple[str, ...]] = {}  # (directory as spelled, depth) -> prefixes
        self._roots: Optional[Tuple[str, ...]] = None  # :meth:`_namespace_roots`
        self._chains: Dict[str, str] = {}  # directory as spelled -> its dotted package chain
        self._pool = None  # the worker pool, while one runs (:meth:`_workers`)
        self._index_changed = False
        self._started_ns = time.time_ns()

    @property
    def linter(self):
        """The :class:`reslint.engine.filepass.Linter`, built on first use: a run served by the cache
        never imports LibCST."""
        if self._linter is None:
            from reslint.engine.filepass import Linter

            self._linter = Linter(self.settings, ignore_noqa=self.ignore_noqa)
        return self._linter

    def run(self, paths: Sequence[Path], progress: Optional[Callable[[int, int], None]] = None) -> RunResult:
        """Lint ``paths`` (none: the current directory). Never raises for a path: one that does
        not exist, or a directory that cannot be read, is a RES000 result of its own, after the
        files' results (discovery warns about it too), and the other paths are linted.

        ``progress(done, total)`` is called after each given file. Suppressions are judged
        (RES900) after the project pass, every run: a directive may be used by a finding
        of the project pass, which depends on other files, so that verdict is never cached.
        """
        profile = profiling.ACTIVE
        with profile.phase("discover") if profile is not None else nullcontext():
            found = self.walker.discover(list(paths) or [Path(".")])
        run = self._run_files(found.files, paths, progress)
        self.leave_out_after_cache(run.results)
        run.results.extend(self._unlisted_result(item) for item in found.unlisted)
        return run

    def leave_out_after_cache(self, results: List[FileResult]) -> None:
        """What depends on other files than the one linted, decided on every run after the cache
        (and by the language server, as ``reslint check`` does): operator scripts, shadowed modules,
        and findings another file makes moot."""
        self.leave_out_in_operator_scripts(results)
        self.leave_out_in_shadowed_modules(results)
        self.leave_out_set_elsewhere(results)

    def leave_out_in_operator_scripts(self, results: List[FileResult]) -> None:
        """Drop the ``script-ignore`` codes from the findings of operator scripts, and from the
        findings in the ``if __name__ == "__main__":`` block of other modules, which a person runs
        by hand too, and the ``program-ignore`` codes from the findings of the project's programs,
        whoever runs them (:mod:`reslint.engine.scripts`). Done after the cache and the last run's
        record, which keep every finding: whether a file is one depends on other files (its
        directory, the project's automation files, an agent skill's file). With no project marker,
        scripts are placed from the run's root (:attr:`reslint.config.Settings.anchor`)."""
        codes = self.settings.codes(self.settings.script_ignore)
        program_codes = self.settings.codes(self.settings.program_ignore)
        if not codes and not program_codes:
            return
        scripts = None
        for result in results:
            if not any(f.code in codes or f.code in program_codes for f in result.findings):
                continue
            if scripts is None:
                from reslint.engine.scripts import OperatorScripts
                scripts = OperatorScripts(self.settings.anchor)
            if result.source is None:
                self._with_source(result)
            text = result.source.text if result.source is not None else None
            if any(f.code in program_codes for f in result.findings) and scripts.is_program(result.path, text):
                result.findings = [f for f in result.findings if f.code not in program_codes]
            rows = scripts.hand_run_rows(result.path, text) if codes else None
            if rows is None:
                continue
            first, last = rows
            result.findings = [f for f in result.findings if f.code not in codes or f.location.row < first
                               or (last is not None and f.location.row > last)]

    def leave_out_in_shadowed_modules(self, results: List[FileResult]) -> None:
        """Drop the findings of module files that a package of the same name shadows and nothing
        loads by path or runs (:mod:`reslint.engine.shadowed`), warning once for each: no import
        can run their code. Done after the cache, like :meth:`leave_out_in_operator_scripts`:
        whether a file is one depends on other files. A syntax error (RES000) is still reported."""
        shadowed = [r for r in results if any(f.code != "RES000" for f in r.findings)
                    and os.path.basename(r.path) != "__init__.py" and r.path.endswith(".py")]
        if not shadowed:
            return
        from reslint.engine.scripts import OperatorScripts
        from reslint.engine.shadowed import ShadowedModules, shadowing_package

        shadowed = [r for r in shadowed if shadowing_package(r.path) is not None]
        if not shadowed:
            return
        for result in shadowed:
            if result.source is None:
                self._with_source(result)
        scripts = OperatorScripts(self.settings.anchor)
        left = ShadowedModules(self.settings.anchor, self.judge.test_paths.match_file).left_out(
            [(r.path, r.source.text if r.source is not None else None) for r in shadowed], scripts.named)
        for result in shadowed:
            package = left.get(result.path)
            if package is None:
                continue
            dropped = [f for f in result.findings if f.code != "RES000"]
            result.findings = [f for f in result.findings if f.code == "RES000"]
            self.walker.warn_once(f"{result.display}: {len(dropped)} finding(s) not reported: the package {package}/ "
                                   f"shadows this module, so no import loads it, and nothing loads it by path or runs it",
                                   result.path, kind="shadowed")

    def leave_out_set_elsewhere(self, results: List[FileResult]) -> None:
        """Drop the findings another file of the project makes moot
        (:data:`reslint.catalog.triggers.SET_ELSEWHERE`): RES101's on a Django settings module with no
        ``EMAIL_TIMEOUT`` when another Python file of the run spells it (a production module that
        sets it for the base one), and django_dramatiq's ``Retries`` read with its defaults when an app
        config spells ``middleware_retries_kwargs``. The files searched are the ones a run of the
        project root discovers (its excludes apply); a file that cannot be read drops nothing. Done
        after the cache: it depends on other files."""
        from reslint.catalog.triggers import SET_ELSEWHERE

        marked = [(r, f, word) for r in results for f in r.findings
                  for codes, prefix, word in SET_ELSEWHERE if f.code in codes and f.message.startswith(prefix)]
        if not marked:
            return
        from reslint.engine.project_text import Mentions

        anchor = self.settings.anchor
        try:
            files = [str(p) for p in self.walker.discover([Path(anchor)]).files] if anchor is not None else []
        except OSError:
            return
        mentions = Mentions(anchor, {word for _, _, word in marked}, files=files)
        for result, finding, word in marked:
            if mentions.elsewhere(word, result.path, unreadable_counts=False):
                result.findings = [f for f in result.findings if f is not finding]

    def _unlisted_result(self, item: Unlisted) -> FileResult:
        """The result of a path discovery could not list: RES000 at 1:1 (as Ruff's E902), so it
        shows in every output format and the exit status is 1; none when RES000 is off there."""
        display = self.judge.display_path(item.path)
        return FileResult(str(item.path), display,
                          self.judge.syntax(display, item.reason, Location(1, 1), self.judge.ignored_codes(display)))

    def _run_files(self, files: List[Path], paths: Sequence[Path], progress) -> RunResult:
        """:meth:`run` over the ``files`` discovered from ``paths``."""
        project = self.settings.project_scope
        # the whole project was given (`reslint .` at its root): no second walk for the others
        whole = project is not None and any(
            os.path.abspath(p) == os.path.abspath(project) for p in (list(paths) or [Path(".")]))
        others = self.judge.needs_summary and project is not None and not whole and self._in_project(files)
        displays = self.judge.display_paths(files)
        signatures = [self._signature(path) for path in files] if self.cache is not None else [None] * len(files)
        # what a re-run must find unchanged to reuse the last run's findings (not when a file was
        # modified too recently to tell, nor when the project pass reads files not given)
        state = tuple(zip(displays, signatures)) if self.reuse_last_run and self.cache is not None and not others \
            and None not in signatures else None
        if state is not None:
            last = self.cache.load_run(state)
            if last is not None:
                return RunResult([self._with_source(FileResult(str(path), display, list(last.get(display, ()))))
                                  for path, display in zip(files, displays)])
        entries = [self._indexed(display, signature) for display, signature in zip(displays, signatures)]
        with _spared_from_collection(bool(self._stat_index)):
            return self._finish_files(files, displays, entries, progress, others, state)

    def _in_project(self, files: List[Path]) -> bool:
        """Whether a file of ``files`` lies in the project (:attr:`Settings.project_scope
        <reslint.config.Settings.project_scope>`): only those can call into its other modules, so a
        run on files elsewhere does not walk the project."""
        project = os.path.abspath(self.settings.project_scope)
        return any(relative(os.path.abspath(path), project) is not None for path in files)

    def _finish_files(self, files: List[Path], displays: List[str], entries: list, progress, others: bool,
                      state: Optional[tuple]) -> RunResult:
        """The rest of :meth:`_run_files`, once the stat index has said which files are unchanged:
        lint (through the cache), the project pass, the suppressions, the cache's records."""
        profile = profiling.ACTIVE
        with self._workers(sum(entry is None for entry in entries)):
            results = self._lint_many(files, displays, entries, progress)
            if self.judge.needs_summary:
                with profile.phase("project pass") if profile is not None else nullcontext():
                    self.project_pass(results, others=others)
        for result in results:
            if result.findings and result.source is None:  # a project finding in a file without others
                self._with_source(result)
            self.judge.complete(result, project_pass=self.judge.needs_summary)
            if result.findings and result.source is None:  # RES900 in a file without others
                self._with_source(result)
        self.save_index()
        errors = [m for r in results for m in r.internal_errors]
        if state is not None and not errors:
            self.cache.store_run(state, {r.display: tuple(r.findings) for r in results if r.findings})
        return RunResult(results, errors, self.parsed)

    @staticmethod
    def _with_source(result: FileResult) -> FileResult:
        """Read the text of a file with findings (the output shows its lines)."""
        if result.findings and result.source is None:
            try:
                result.source = decode(Path(result.path).read_bytes())
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                pass
        return result

    @contextmanager
    def _workers(self, changed: int):
        """Hold the worker pool (``self._pool``) while the files are linted and the project pass
        loads modules: started when ``changed`` files (those the stat index does not vouch for,
        known before anything is read) are at least :data:`PARALLEL_MIN_FILES`, so that the
        workers import LibCST while this process reads the files, and this one never does."""
        pool = self._start_pool() if self.jobs > 1 and changed >= PARALLEL_MIN_FILES else None
        if pool is None:
            yield
            return
        with pool:
            self._pool = pool
            try:
                yield
            finally:
                self._pool = None

    def _start_pool(self):
        """A started :class:`reslint.engine.workers.Pool`, or ``None`` (with one warning) when it cannot
        start (no processes allowed, no ``forkserver`` socket, too many workers for the platform):
        the files are then linted in this process, slower but the same. This runner then stays
        in one process, so a ``--fix`` run's second pass does not try and warn again."""
        from reslint.engine import workers

        try:
            return workers.Pool(self.settings, self.ignore_noqa, self.jobs)
        except Exception as exc:  # noqa: BLE001 - whatever stops the workers must not stop the run
            self.jobs = 1
            self.walker.warn(f"could not start worker processes ({type(exc).__name__}: {exc}); "
                             f"linting in one process")
            return None

    def _lint_many(self, files: Sequence[Path], displays, entries, progress) -> List[FileResult]:
        """Lint files (through the cache), in parallel when many need parsing; results in ``files``
        order. ``displays`` and ``entries``: their display paths and stat index entries."""
        pool = self._pool
        results: List[Optional[FileResult]] = [None] * len(files)
        todo = []  # (index, path, data, cache key)
        done = 0
        from reslint.engine import workers

        for index, path in enumerate(files):
            cached, data, key = self._cached(path, display=displays[index], entry=entries[index])
            if cached is not None or data is None:
                results[index] = cached if cached is not None else self.lint(path)  # unreadable: RES000
                done += 1
                if progress is not None:
                    progress(done, len(files))
            else:
                todo.append((index, path, data, key))
        if pool is None:
            for index, path, data, key in todo:
                results[index] = self._store(key, workers.lint_one(str(path), data, self.linter))
                done += 1
                if progress is not None:
                    progress(done, len(files))
            return results

        heavy = []  # the files to parse: the others stop at the text prefilter, here
        for index, path, data, key in todo:
            result = self.judge.stops_at_text(str(path), data)
            if result is None:
                heavy.append(((index, key), str(path), data))
                continue
            results[index] = self._store(key, result)
            done += 1
            if progress is not None:
                progress(done, len(files))
        heavy.sort(key=lambda item: -len(item[2]))  # largest first: no long file left for the end
        for (index, key), result in pool.lint(heavy):
            results[index] = self._store(key, result)
            done += 1
            if progress is not None:
                progress(done, len(files))
        return results

    def lint(self, path: Path, force: bool = False) -> FileResult:
        """Lint one file, from the cache when its content is unchanged. Never raises: an
        unexpected exception becomes an internal error for this file (exit status 2).
        ``force=True``: also a file the prefilter skips (for its module summary)."""
        try:
            return self._lint(path, force)
        except Exception as exc:  # noqa: BLE001 - one file must not stop the run
            display = self.judge.display_path(path)
            return FileResult(str(path), display, internal_errors=[internal_error(display, exc)])

    def _cached(self, path: Path, force: bool = False, display: Optional[str] = None, entry=_ASK):
        """(cached result or None, the file's bytes or None when unreadable, cache key or None).
        ``display`` and ``entry`` (the stat index's, or ``None``): when already known."""
        if profiling.ACTIVE is not None:
            with profiling.ACTIVE.phase("read + hash + cache"):
                return self._read_cached(path, force, display, entry)
        return self._read_cached(path, force, display, entry)

    def _read_cached(self, path: Path, force: bool, display: Optional[str], entry):
        display = display if display is not None else self.judge.display_path(path)
        if entry is _ASK:
            entry = self._indexed(display, self._signature(path)) if self.cache is not None else None
        if entry is not None and not (force and entry[2][5]):
            return self._cached_result(path, display, entry[2], None), None, entry[1]
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None, None, None
        key = file_key(display, data, self._module(path)) if self.cache is not None else None
        stored = self.cache.load(key) if key is not None else None
        if not (isinstance(stored, tuple) and len(stored) == 7) or (force and stored[5]):
            return None, data, key
        self._remember(display, self._signature(path), key, stored)
        return self._cached_result(path, display, stored, data), data, key

    @staticmethod
    def _cached_result(path: Path, display: str, stored: tuple, data: Optional[bytes]) -> FileResult:
        findings, errors, summary, suppressed, comments, skipped, marks = stored
        result = FileResult(str(path), display, list(findings), list(errors), summary=summary,
                            suppressed=list(suppressed), comments=comments, skipped=skipped, marks=marks)
        if findings or comments:  # a frame for each finding, RES900's included
            try:
                result.source = decode(data if data is not None else Path(path).read_bytes())
            except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                pass
        return result

    # -- the stat index (reslint.engine.cache.Cache.load_index) ------------------------------------
    def _index(self) -> dict:
        if self._stat_index is None:
            self._stat_index = self.cache.load_index() if self.cache is not None else {}
        return self._stat_index

    def _indexed(self, display: str, signature: Optional[tuple]) -> Optional[tuple]:
        """The stat index's (signature, cache key, value) for a file whose stat ``signature``
        (:meth:`_signature`) is unchanged, else ``None``."""
        entry = self._index().get(display) if signature is not None else None
        return entry if entry is not None and entry[0] == signature else None

    def _signature(self, path: Path) -> Optional[tuple]:
        """(size, mtime ns, inode, ctime ns, device, :meth:`_module`); ``None`` when unreadable or
        modified in the last :data:`RECENT_NS` (it could change again within the same mtime tick).

        The mtime alone can be set by anyone (``tar -x``, ``cp -p`` restore the archive's), so a
        file rewritten in place with the same size and mtime would pass for unchanged; the ctime
        cannot be set back. The module name is part of it because a file's summary depends on
        the packages around it: adding an ``__init__.py`` changes it without touching the file."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        if st.st_mtime_ns >= self._started_ns - RECENT_NS:
            return None
        return st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_dev, self._module(path)

    def _module(self, path) -> str:
        """The file's dotted module name, ``/`` after it for a package (``__init__.py``).
        Computed for every file of every run (the stat index compares it): the package chain
        of each directory is looked up once per run, by the directory as spelled."""
        text = os.fspath(path)
        filename = path.name if isinstance(path, PurePath) else os.path.basename(text)
        directory = text[:len(text) - len(filename)]  # with its separator: "a/", "/", "" (no os.path.split per file)
        chain = self._chains.get(directory)
        if chain is None:
            name, _ = module_name(os.path.join(directory, "__x__.py"), self._packages)
            chain = self._chains[directory] = name.rpartition(".")[0] if name != "__x__" else ""
        stem = filename.rsplit(".", 1)[0]
        if stem == "__init__":
            return (chain or "__main__") + "/"
        return f"{chain}.{stem}" if chain else stem

    def _remember(self, display: str, signature: Optional[tuple], key: Optional[str], value: tuple) -> None:
        if signature is not None and key is not None:
            self._index()[display] = (signature, key, value)
            self._index_changed = True

    def save_index(self) -> None:
        """Write the stat index if this run added to it (called at the end of :meth:`run`)."""
        if self._index_changed and self.cache is not None:
            self.cache.store_index(self._index())
            self._index_changed = False

    def _lint(self, path: Path, force: bool) -> FileResult:
        cached, data, key = self._cached(path, force)
        if cached is not None:
            return cached
        if self._pool is not None and data is not None:  # a worker has LibCST loaded already
            return self._store(key, self._pool.lint_one(str(path), data, force))
        return self._store(key, self.linter.lint_path(path, complete=False, force=force))

    def _store(self, key: Optional[str], result: FileResult) -> FileResult:
        """Record a freshly linted result (``parsed``, the cache)."""
        if not result.skipped:
            self.parsed.append(result.display)
        if key is not None and not result.internal_errors:
            value = (tuple(result.findings), tuple(result.internal_errors), result.summary,
                     tuple(result.suppressed), result.comments, result.skipped, result.marks)
            if not result.text_skipped:  # the stat index still has it; a changed stat redoes the cheap test
                self.cache.store(key, value)
            self._remember(result.display, self._signature(Path(result.path)), key, value)
        return result

    # -- the project pass ----------------------------------------------------------------
    def project_pass(self, results: List[FileResult], others: bool = True) -> None:
        """The project rules (:mod:`reslint.rules.project`) over the call graph: adds their findings to ``results`` (each
        :class:`FileResult` with a module summary; the language server passes its buffers' too).
        ``others``: the project has files that were not given (pre-commit names a few), whose
        summaries come from the cache or a parse."""
        from reslint.analysis.callgraph import CallGraph  # the project pass only: a cached re-run needs neither
        from reslint.rules.project import PROJECT_RULES

        given: Dict[str, FileResult] = {r.display: r for r in results}
        summaries = [r.summary for r in results if r.summary is not None]
        skipped = [Path(r.path) for r in results if r.skipped]
        self._marks = {os.fspath(path): r.marks for path, r in zip(skipped, filter(lambda r: r.skipped, results))}
        if others and self.settings.project_scope is not None:
            # a file named outside the run's root (`../mail/mailer.py`) is shown as named, and walked
            # as an absolute path: one module all the same
            named = {os.path.abspath(r.path) for r in results}
            for path in self.walker.expand([self.settings.project_scope]):
                if self.judge.display_path(path) not in given and os.path.abspath(path) not in named:
                    other = self.lint(path)
                    if other.summary is not None:
                        summaries.append(other.summary)
                    elif other.skipped:
                        skipped.append(path)
                        self._marks[os.fspath(path)] = other.marks
        self._budget_callers(summaries, skipped)
        self._inferred_helpers(given, summaries, skipped)
        graph = CallGraph(summaries, self._loader(skipped), self.other_names)
        for rule in PROJECT_RULES:
            if rule.code in self.judge.enabled:
                seen: set = set()
                for summary, finding in rule().check(graph, self.settings):
                    self._add(given, seen, summary, finding)

    def _budget_callers(self, summaries: list, skipped: List[Path]) -> None:
        """RES105 across modules starts at a function given a time budget, which may sit in a module
        that imports no library the prefilter knows (it calls the project's own client). Such
        modules are parsed here when their text spells a budget parameter and the name of a
        function with a constant-timeout call, or of a function that calls one. A chain through a
        helper module the prefilter skipped is not seen. ``summaries`` and ``skipped`` are updated
        in place."""
        if "RES105" not in self.judge.enabled or not skipped:
            return
        from reslint.semantics.prefilter import BudgetCallers

        names = {fixed.function for summary in summaries for fixed in summary.fixed_timeouts}
        if not names:
            return
        last = {name.rsplit(".", 1)[-1] for name in names}
        callers = {site.function for summary in summaries for site in summary.calls
                   if site.function and site.callee and site.callee.rsplit(".", 1)[-1] in last}
        modules = {summary.module.rsplit(".", 1)[-1] for summary in summaries
                   if summary.fixed_timeouts or any(site.function in callers for site in summary.calls)}
        shape = BudgetCallers(self.judge.budget_parameters, modules,
                              last | {name.rsplit(".", 1)[-1] for name in callers})
        self._lint_skipped(summaries, skipped, shape.search, TextMarks.BUDGET)

    def _lint_skipped(self, summaries: list, skipped: List[Path], wanted, mark: int = TextMarks.UNKNOWN) -> None:
        """Lint, past the prefilter, the skipped files whose text ``wanted(text)`` accepts: their
        summaries join ``summaries`` and they leave ``skipped`` (both updated in place). An
        unreadable file is left skipped. ``mark``: a :class:`TextMarks` bit every text ``wanted``
        accepts has; a file whose marks lack it is not read."""
        for path in list(skipped):
            if mark != TextMarks.UNKNOWN and not self._marks.get(os.fspath(path), TextMarks.UNKNOWN) & mark:
                continue
            try:
                with open(path, "rb") as handle:  # bytes, decoded at once: a text stream costs twice the time
                    text = handle.read().decode("utf-8", errors="replace")
            except OSError:
                continue
            if "\r" in text:  # the line ends a text stream gives
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            if wanted(text):
                found = self.lint(path, force=True).summary
                if found is not None:
                    summaries.append(found)
                    skipped.remove(path)

    def _inferred_helpers(self, given: Dict[str, FileResult], summaries: list, skipped: List[Path]) -> None:
        """What one module defines and others use, which a per-file pass cannot see: retry helpers
        (``from .util import retrying``), module-level numbers (``from .settings import
        BASE_DELAY``), celery task classes (``from .base import RetryingTask``, then
        ``base=RetryingTask``) and the runs of arq jobs another module's settings class lists. The
        modules that use one are linted again with them as catalog entries (helpers inferred, so
        their faults stay the helper's; constants, task classes and job runs by qualified name), so
        that a function they decorate, or a callable passed to them, or a task built on the class,
        is a retried scope for every rule, and a wait or an attempt count read from another module
        is known; their summaries replace the first ones. ``summaries`` and ``skipped`` are updated
        in place; so are the
        results in ``given``."""
        import re
        from dataclasses import replace

        from reslint.analysis.callgraph import CallGraph

        helpers = {h.name: h for summary in summaries for h in summary.helpers}
        if any(summary.instances for summary in summaries):
            # ``@app.task(...)`` after ``from .celery import app`` needs no import of the library, nor
            # ``@task(...)`` after ``from app.tasks import task`` (a project function standing for it)
            self._lint_skipped(summaries, skipped, task_decorator_pattern().search, TextMarks.TASK_DECORATOR)
        if not helpers and not any(summary.wanted for summary in summaries):
            return
        if any(set(summary.wanted).intersection(f.qualname for f in summary.functions) for summary in summaries):
            # a module wants one of its own functions: an arq job, for the runs another module's
            # settings class gives it (arq.runs_elsewhere); the prefilter skips a settings module
            # that calls nothing it knows
            self._lint_skipped(summaries, skipped, SETTINGS_LIST.search, TextMarks.SETTINGS_LIST)
        if helpers:
            # a module the prefilter skipped may use one (it needs nothing else): those naming one are read
            words = re.compile(r"\b(?:" + "|".join(sorted({re.escape(n.rsplit(".", 1)[-1]) for n in helpers})) +
                               r")\b")
            self._lint_skipped(summaries, skipped, words.search)
        # names only; a module of constants the prefilter skipped is summarised when one is asked for
        graph = CallGraph(summaries, self._loader(list(skipped)), self.other_names)
        entries = {name: helper for name, helper in helpers.items()}
        constants: Dict[str, float] = {}
        instances: Dict[str, str] = {}
        job_runs: Dict[str, int] = {}
        task_classes: Dict[str, TaskClassEntry] = {}
        users = []
        for summary in summaries:
            uses = False
            for _, qual in summary.imports if helpers else ():
                target = graph.resolve(qual)
                helper = helpers.get(target) if target is not None else None
                if helper is not None and not helper.name.startswith(summary.module + "."):
                    entries.setdefault(qual, replace(helper, name=qual))
                    uses = True
                elif any(name.startswith(qual + ".") for name in helpers):  # ``from myapp import net``
                    uses = True
            uses = self._known_constants(summary, graph, constants, instances, job_runs, task_classes) or uses
            if uses:
                users.append(summary)
        catalog = self.settings.catalog.with_helpers(tuple(entries.values()))
        # a module read again with some constants known may ask for more (the attempt cap known,
        # the loop's waits are read next): up to MAX_CONSTANT_ROUNDS rounds, until none is new
        for _ in range(self.MAX_CONSTANT_ROUNDS):
            if not users:
                break
            known = catalog.with_constants(constants).with_instances(instances).with_job_runs(job_runs) \
                .with_task_classes(task_classes)
            listed = {summary.path: summary.job_runs for summary in users}
            self._lint_again(replace(self.settings, catalog=known), users, given, summaries)
            if any(summary.path in listed and summary.job_runs != listed[summary.path] for summary in summaries):
                # an arq settings module read with its constants known lists runs it could not read
                # before (``max_tries = MAX_TRIES``): the jobs' modules ask a graph that has them
                graph = CallGraph(summaries, self._loader(list(skipped)), self.other_names)
            users = [summary for summary in summaries
                     if self._known_constants(summary, graph, constants, instances, job_runs,
                                              task_classes)]

    #: how many times a module may be linted again as the constants it reads become known
    MAX_CONSTANT_ROUNDS = 3

    @staticmethod
    def _known_constants(summary, graph, constants: Dict[str, float], instances: Dict[str, str],
                         job_runs: Dict[str, int], task_classes: Dict[str, TaskClassEntry]) -> bool:
        """Add to ``constants`` the project constants, to ``instances`` the types of the project
        instances, to ``job_runs`` the runs of arq jobs another module's settings list, and to
        ``task_classes`` the project's celery task classes, ``summary`` asked for that are not in
        them yet; whether the project knows any name it asked for (then it is linted again: a
        module read with a name known no longer asks for it, so this ends; another module asking
        for the same name is linted again too)."""
        known = False
        for name in summary.wanted:
            if name not in task_classes:
                entry = graph.task_class(name)
                if entry is not None:
                    task_classes[name] = entry
            if name not in constants:
                value = graph.number(name)
                if value is not None:
                    constants[name] = value
            if name not in instances:
                kind = graph.instance(name)
                if kind is not None:
                    instances[name] = kind
            if name not in job_runs:
                runs = graph.job_runs(name)
                if runs is not None:
                    job_runs[name] = runs
            known = known or name in constants or name in instances or name in job_runs \
                or name in task_classes
        return known

    def _lint_again(self, settings, users: list, given: Dict[str, FileResult], summaries: list) -> None:
        """Lint the modules of ``users`` (summaries) again with ``settings``; their new summaries
        replace the old ones in ``summaries`` and their results those in ``given``."""
        again = self._again(settings)
        by_path = {id(summary): index for index, summary in enumerate(summaries)}
        for summary in users:
            result = given.get(summary.path)
            path = Path(result.path) if result is not None else \
                (Path(summary.path) if os.path.isabs(summary.path) else Path(self.settings.root) / summary.path)
            fresh = again.lint(path, force=True)
            if fresh.summary is None:
                continue
            summaries[by_path[id(summary)]] = fresh.summary
            if result is not None:
                result.findings, result.suppressed, result.summary = fresh.findings, fresh.suppressed, fresh.summary
                result.internal_errors = fresh.internal_errors
                result.comments, result.skipped = fresh.comments, False
                if fresh.source is not None:
                    result.source = fresh.source
        again.save_index()

    def _again(self, settings) -> "Runner":
        """A run of its own with ``settings``: its cache entries are those of these settings."""
        return Runner(settings, use_cache=self.cache is not None, cache_dir=self._cache_dir,
                      ignore_noqa=self.ignore_noqa, jobs=1)

    def other_names(self, summary) -> Tuple[str, ...]:
        """The other names the module of ``summary`` is imported by through namespace packages
        (:func:`reslint.semantics.prefilter.namespace_name`), from each of :meth:`_namespace_roots`."""
        return self._names(os.path.join(self.settings.root, summary.path))[1]

    def _names(self, path: str) -> Tuple[str, Tuple[str, ...]]:
        """(the :func:`~reslint.semantics.prefilter.module_name` of the file at ``path``, the other
        names it is imported by through namespace packages). Each file's once per run, and the
        namespace part once per directory: the call graphs of one project pass ask for every
        module's, and the loader for every skipped file's (thousands)."""
        found = self._file_names.get(path)
        if found is None:
            module = self._module(path)  # the stat signature's: its package chain is known per directory
            is_package = module.endswith("/")
            name = module[:-1] if is_package else module
            others: Tuple[str, ...] = ()
            if name != "__main__":
                place = (os.path.dirname(path), package_depth(name, is_package))
                prefixes = self._prefixes.get(place)
                if prefixes is None:
                    directory = os.path.abspath(place[0])
                    prefixes = self._prefixes[place] = tuple(
                        prefix for prefix in (namespace_prefix(directory, place[1], root)
                                              for root in self._namespace_roots())
                        if prefix is not None)
                others = tuple(f"{prefix}.{name}" for prefix in prefixes)
            found = self._file_names[path] = (name, others)
        return found

    def forget_layout(self) -> None:
        """Forget the package layout read so far (each directory's package chain, each file's
        module names), for a runner that outlives one run (the language server's) when a file was
        created or deleted: an ``__init__.py`` makes its directory a package."""
        for memo in (self._packages, self._chains, self._file_names, self._prefixes):
            memo.clear()

    def _namespace_roots(self) -> Tuple[str, ...]:
        """The directories dotted names through namespace packages (PEP 420) start from: the
        project's (:attr:`Settings.project_scope <reslint.config.Settings.project_scope>`, else the
        run's root); when it holds no project marker (loose modules side by side), the one above
        too, from which it is a namespace package itself: ``from app.client import ...`` in
        ``app/jobs.py`` finds ``app/client.py`` whether the run named ``app/jobs.py`` or the
        directory above."""
        if self._roots is None:
            from reslint.config import is_marked

            scope = self.settings.project_scope
            top = Path(os.path.abspath(scope if scope is not None else self.settings.root))
            above = scope is not None and top.parent != top and not is_marked(top)
            self._roots = (str(top), str(top.parent)) if above else (str(top),)
        return self._roots

    def _loader(self, paths: List[Path]) -> Callable[[str], Optional[object]]:
        """``load(module name) -> ModuleSummary or None`` over the files the prefilter skipped (by
        their name, or the names they are imported by through namespace packages): the call graph
        asks for a module only when a chain reaches it, so most are never parsed. A name two of
        these files have (``scripts/utils.py`` and ``tools/utils.py``) loads neither: which one an
        import finds depends on how the importing code is run."""
        index: Dict[str, Optional[Path]] = {}

        def load(module: str):
            if not index and paths:  # built on the first request: a cached re-run seldom makes one
                for path in paths:
                    name, others = self._names(str(path))
                    for name in (name, *others):
                        index[name] = path if index.get(name, path) == path else None
                paths.clear()
            path = index.pop(module, None)
            return self.lint(path, force=True).summary if path is not None else None

        return load

    def _add(self, given: Dict[str, FileResult], seen, summary, finding: Finding) -> None:
        """Add a project-pass finding to its file's result (once; suppressions and ignores applied)."""
        result = given.get(summary.path)
        key = (finding.filename, finding.location.row, finding.location.column, finding.code)
        if result is None or key in seen or finding.code in self.judge.ignored_codes(result.display):
            return
        seen.add(key)
        if any((f.code, f.location) == (finding.code, finding.location) for f in result.findings):
            return  # the per-file pass found it too
        if _suppressed(summary, finding, self.settings.allow_blanket_noqa):
            result.suppressed.append(finding)  # for RES900 and --ignore-noqa
            return
        result.findings.append(finding)
        result.findings.sort(key=Finding.sort_key)


@contextmanager
def _spared_from_collection(spare: bool):
    """Keep the objects that exist now out of the cyclic garbage collector's walks until the
    block ends (``gc.freeze``), when ``spare``: the decoded stat index is hundreds of thousands
    of objects that live for the whole run, and every collection of the oldest generation walked
    them all again (a tenth of a re-run with one file changed). They are still freed by
    reference counting, and the block's end gives them back to the collector (``gc.unfreeze``).
    Nothing is done when objects are frozen already: a caller's own ``gc.freeze`` stays as it was."""
    if not spare or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _suppressed(summary, finding: Finding, allow_blanket: bool) -> bool:
    suppressions = Suppressions(
        lines={row: Directive(frozenset(codes) if codes is not None else None, own) for row, codes, own in
               summary.suppressions},
        file_codes=set(summary.file_codes), file_all=summary.file_all)
    return suppressions.suppresses(finding.location.row, finding.code, allow_blanket)
