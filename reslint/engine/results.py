"""What the per-file pass hands on, and what a run decides without parsing anything.

Plain data and no LibCST: a re-run whose files are all in the cache imports only
this, the cache, the project pass over module summaries and the output formats.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pathspec

from reslint import profiling
from reslint.catalog.triggers import trigger_entries
from reslint.config import Settings
from reslint.diagnostics import Finding, Location
from reslint.engine.discovery import relative
from reslint.catalog.triggers import RETRY_TRIGGERS, settings_words
from reslint.semantics.prefilter import DEFAULT_BUDGET_PARAMETERS, Trigger, budget_cores, may_retry_by_recursion
from reslint.registry import BY_CODE
from reslint.engine.suppression import (Comment, blanket_not_counted, could_hold_directives, read_comments,
                                       unused_noqa)

SYNTAX = BY_CODE["RES000"]
UNUSED_NOQA = BY_CODE["RES900"]
#: rules decided by the project pass over module summaries, not by a per-file visitor
PROJECT_RULES = frozenset({"RES105", "RES301", "RES401", "RES402"})
_UNKNOWN = object()  # "not looked up yet", where None is an answer


#: an arq settings class's list of jobs, ``functions = [...]`` (a class attribute)
SETTINGS_LIST = re.compile(r"^[ \t]+functions[ \t]*(?::[^=\n]*)?=", re.MULTILINE)


@functools.lru_cache(maxsize=None)
def task_decorator_pattern() -> "re.Pattern[str]":
    """A decorator naming a task-queue decorator, bare or on an object: ``@app.task(...)`` after
    ``from .celery import app``, ``@shared_task``, ``@task`` after ``from app.tasks import task``
    (:data:`reslint.libraries.TASK_DECORATOR_NAMES`; imported when first asked: a run the cache
    answers never needs it)."""
    from reslint.libraries import TASK_DECORATOR_NAMES

    methods = "|".join(sorted(re.escape(m) for m in TASK_DECORATOR_NAMES))
    return re.compile(r"@\s*(?:\w+\s*\.\s*)?(?:" + methods + r")\b")


class TextMarks:
    """The bits of :attr:`FileResult.marks`: what the project pass's searches over the files the
    prefilter skipped look for, found in a file's text when it is skipped and kept with its cache
    entry, so that a re-run after an edit reads only the skipped files whose bit is set (thousands
    are not read again). ``UNKNOWN`` (every bit) when not worked out."""

    #: the text holds one of :func:`~reslint.semantics.prefilter.budget_cores` (RES105's callers
    #: given a budget)
    BUDGET = 1
    #: :func:`task_decorator_pattern` matches (a task built on another module's app or class)
    TASK_DECORATOR = 2
    #: :data:`SETTINGS_LIST` matches (an arq settings module that lists another module's jobs)
    SETTINGS_LIST = 4
    UNKNOWN = -1

    @staticmethod
    def of(text: str, cores: Sequence[str]) -> int:
        """The marks of ``text``; ``cores``: :func:`~reslint.semantics.prefilter.budget_cores` of
        the run's budget parameters."""
        lowered = text.lower()
        marks = TextMarks.BUDGET if any(core in lowered for core in cores) else 0
        if "@" in text and task_decorator_pattern().search(text) is not None:
            marks |= TextMarks.TASK_DECORATOR
        if "functions" in text and SETTINGS_LIST.search(text) is not None:
            marks |= TextMarks.SETTINGS_LIST
        return marks


@dataclass
class Source:
    """A decoded file: its text and how to write it back byte for byte."""

    text: str
    encoding: str = "utf-8"
    digest: str = ""


@dataclass
class FileResult:
    """What the per-file pass knows about one file (plain data).

    ``findings`` are sorted and already filtered by suppressions and
    per-file-ignores. ``internal_errors`` holds messages for exceptions raised
    inside reslint (exit status 2). ``suppressed`` are the findings a suppression
    comment silenced and ``comments`` the comments holding directives: the run
    judges them (RES900) or reports them (``--ignore-noqa``) in :meth:`Linter.complete`.
    """

    path: str
    display: str
    findings: List[Finding] = field(default_factory=list)
    internal_errors: List[str] = field(default_factory=list)
    source: Optional[Source] = None
    summary: Optional[object] = None  # ModuleSummary, when a project rule is enabled
    suppressed: List[Finding] = field(default_factory=list)
    comments: Tuple[Comment, ...] = ()
    #: the prefilter skipped the file: no per-file rule can report in it, and its module
    #: summary is made only when the project pass reaches it (``force=True``)
    skipped: bool = False
    #: the text prefilter skipped the file: redoing that costs less than reading a cache entry
    text_skipped: bool = False
    #: of a skipped file: what the project pass's searches over skipped files may find in its text
    #: (:class:`TextMarks` bits; ``UNKNOWN``: read it to know)
    marks: int = TextMarks.UNKNOWN


def decode(data: bytes) -> Source:
    """Decode source bytes per PEP 263 (coding cookie, UTF-8 BOM).

    Raises ``SyntaxError`` for an unknown or conflicting coding cookie and
    ``UnicodeDecodeError`` for bytes that do not decode.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise SyntaxError(f"unknown encoding {encoding!r}")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        raise
    except UnicodeError as exc:  # some codecs (punycode, idna) raise the base class
        raise SyntaxError(f"{encoding}: {exc}") from None
    return Source(text=text, encoding=encoding, digest=hashlib.blake2b(data, digest_size=16).hexdigest())


def internal_error(display: str, exc: BaseException, where: str = "") -> str:
    """The message of an exception inside reslint, contained to one file (exit status 2)."""
    return f"{display}: internal error{where}: {type(exc).__name__}: {exc}; please report this bug to the reslint project"


class Judge:
    """The part of a run's configuration that needs no parsing: display paths, per-file
    ignores, whether the project rules need module summaries, and the last step for each
    result (:meth:`complete`). :class:`reslint.engine.filepass.Linter` extends it."""

    def __init__(self, settings: Settings, ignore_noqa: bool = False):
        self.settings = settings
        #: report suppressed findings too (``--ignore-noqa``); RES900 is then not judged
        self.ignore_noqa = ignore_noqa
        self.enabled = settings.enabled
        self.per_file_ignores: List[Tuple[pathspec.GitIgnoreSpec, frozenset]] = [
            (pathspec.GitIgnoreSpec.from_lines([glob]), settings.codes(codes))
            for glob, codes in settings.per_file_ignores
        ]
        #: test code (``test-paths``) and the codes not reported in it (``test-ignore``)
        self.test_paths = pathspec.GitIgnoreSpec.from_lines(settings.test_paths)
        self.test_ignore = settings.codes(settings.test_ignore)
        #: project rules (RES105, RES301, RES401, RES402) need module summaries: every chain RES301,
        #: RES401 and RES402 report starts at a call in a retried scope (RES105's at a function given
        #: a budget: :meth:`reslint.engine.runner.Runner._budget_callers`), so files that can hold one
        #: are parsed up front and the others only when the call graph reaches them
        self.needs_summary = bool(self.enabled & PROJECT_RULES)
        #: RES105's ``budget-parameters`` (shell-style patterns), for the project pass's search of
        #: callers given a budget and the marks of skipped files
        self.budget_parameters: Sequence[str] = settings.rule_options.get("RES105", {}).get(
            "budget-parameters", DEFAULT_BUDGET_PARAMETERS)
        self._budget_cores = budget_cores(self.budget_parameters)
        self._root = os.path.abspath(settings.root)
        entries = trigger_entries(self.enabled, self.needs_summary)
        if entries is not None and settings.catalog:
            # the project's own catalog names: a file importing any module on their path (``from
            # .net import retrying`` imports ``net``, ``from myapp import net`` imports ``myapp``)
            entries = tuple(sorted(set(entries) | {part for name in settings.catalog.names
                                                   for part in name.split(".")[:-1]}))
        #: the text prefilter (``None``: every file is parsed)
        self.trigger = Trigger(entries) if entries is not None else None
        #: retries by recursion need no import: with the retry rules on, their shape passes too
        self.recursion = entries is not None and bool(set(entries) & set(RETRY_TRIGGERS))
        #: words that make a module worth reading with no import (a settings module's, a dotted path)
        self.settings_words = settings_words(self.enabled) if entries is not None else ()

    def decode(self, data: bytes, display: str) -> Tuple[Optional[Source], List[Finding]]:
        """(the decoded file, no findings), or (``None``, RES000) when it cannot be decoded."""
        try:
            return profiling.timed("decode", decode, data), []
        except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
            reason = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
            return None, self.syntax(display, f"cannot decode file: {reason}", Location(1, 1),
                                     self.ignored_codes(display))

    def spells_a_setting(self, text: str) -> bool:
        """Whether ``text`` spells one of the words an enabled rule reads with no import
        (:data:`reslint.catalog.triggers.SETTINGS_WORDS`), for both prefilters."""
        return any(word in text for word in self.settings_words)

    def prefilter_text(self, text: str, display: str, force: bool = False
                       ) -> Tuple[Tuple[Comment, ...], Optional[FileResult]]:
        """(the comments holding directives, the final result when the text prefilter skips the
        file, else ``None``); ``force``: never skip (the project pass wants a summary)."""
        comments = read_comments(text) if could_hold_directives(text, self.settings.allow_blanket_noqa) else ()
        if not force and self.enabled <= self.ignored_codes(display):
            # nothing can be reported here (test code, by default): skipped as the prefilter skips
            return comments, self.skipped_result(display, text, comments, text_skipped=True)
        if force or self.trigger is None or profiling.timed("prefilter (text)", self.trigger.search, text) or \
                (self.recursion and may_retry_by_recursion(text)) or self.spells_a_setting(text):
            return comments, None
        return comments, self.skipped_result(display, text, comments, text_skipped=True)

    def skipped_result(self, display: str, text: str, comments: Tuple[Comment, ...], text_skipped: bool = False
                ) -> FileResult:
        """The result of a file the prefilter skips (``text``: its source), with its text's marks
        when the project pass may search it (:attr:`FileResult.marks`)."""
        marks = TextMarks.of(text, self._budget_cores) if self.needs_summary else TextMarks.UNKNOWN
        return FileResult(display, display, comments=comments, skipped=self.needs_summary,
                          text_skipped=text_skipped, marks=marks)

    def stops_at_text(self, path: str, data: bytes) -> Optional[FileResult]:
        """The result, as a worker would send it, of a file that needs no parsing (it cannot be
        decoded, or the text prefilter skips it); ``None`` for a file that must be parsed."""
        display = self.display_path(Path(path))
        source, failed = self.decode(data, display)
        if source is None:
            return FileResult(path, display, failed)
        comments, result = self.prefilter_text(source.text, display)
        if result is not None:
            result.path = path
            result.source = source if comments else None  # the text is needed only to judge directives
        return result

    def syntax(self, display: str, message: str, at: Location, ignored: frozenset = frozenset()) -> List[Finding]:
        """A RES000 finding, unless RES000 is off for ``display``."""
        if SYNTAX.code not in self.enabled or SYNTAX.code in ignored:
            return []
        return [Finding(SYNTAX.code, SYNTAX.name, SYNTAX.severity, message, display, at, at, noqa_row=at.row)]

    def display_path(self, path: Path) -> str:
        """The project-relative ``/`` path used in output (absolute when outside the root)."""
        absolute = os.path.abspath(path)
        rel = relative(absolute, self._root)
        if rel is not None and rel != ".":
            return rel
        rel = os.path.relpath(absolute, self.settings.root)
        return Path(path).as_posix() if rel.startswith("..") else Path(rel).as_posix()

    def display_paths(self, paths: Sequence[Path]) -> List[str]:
        """:meth:`display_path` of each file of ``paths``, its directory made absolute and
        relative once for all the files in it (``os.path.abspath`` of every file was a
        twentieth of a cached re-run). A file whose directory is not below the root is given to
        :meth:`display_path`."""
        prefixes: Dict[str, Optional[str]] = {}  # directory as spelled -> "its/display/" ("" the root)
        displays = []
        for path in paths:
            text, name = os.fspath(path), path.name
            directory = text[:len(text) - len(name)]  # with its separator: "a/", "/", ""
            prefix = prefixes.get(directory, _UNKNOWN)
            if prefix is _UNKNOWN:
                rel = relative(os.path.abspath(directory or os.curdir), self._root)
                prefix = prefixes[directory] = None if rel is None else "" if rel == "." else rel + "/"
            displays.append(prefix + name if prefix is not None and name else self.display_path(path))
        return displays

    def complete(self, result: FileResult, project_pass: bool, text: Optional[str] = None) -> None:
        """The last step for a file, once every pass has run: with ``--ignore-noqa`` report
        the suppressed findings too, else judge the file's directives (RES900).

        ``project_pass`` says whether the project rules ran (their codes are judged only
        then). ``text``: the file's text when ``result.source`` does not hold it (a bare
        ``# noqa`` on a finding's line is looked for in it). Call it once per result; the
        runner calls it after its project pass.
        """
        if self.ignore_noqa:
            if result.suppressed:
                result.findings = sorted(result.findings + result.suppressed, key=Finding.sort_key)
            return
        if UNUSED_NOQA.code not in self.enabled or result.internal_errors:
            return
        ignored = self.ignored_codes(result.display)
        if UNUSED_NOQA.code in ignored:
            return
        if text is None and result.source is not None:
            text = result.source.text
        if not self.settings.allow_blanket_noqa and result.findings and text is not None:
            bare = blanket_not_counted(text, result.findings, result.display)
            if bare:
                result.findings = sorted(result.findings + bare, key=Finding.sort_key)
        if not result.comments:
            return
        judged = self.enabled - ignored - {UNUSED_NOQA.code} - (frozenset() if project_pass else PROJECT_RULES)
        unused = unused_noqa(result.comments, result.suppressed, judged, self.settings.allow_blanket_noqa,
                             result.display)
        if unused:
            result.findings = sorted(result.findings + unused, key=Finding.sort_key)

    def ignored_codes(self, display: str) -> frozenset:
        """The codes not reported in ``display``: its per-file-ignores, and test-ignore in test code.
        Both apply to files named on the command line too (unlike ``exclude``): pre-commit names
        every changed file, and a test file must not be reported there and not in a full run."""
        codes = set()
        for spec, ignored in self.per_file_ignores:
            if spec.match_file(display):
                codes.update(ignored)
        if self.test_ignore and self.is_test_code(display):
            codes.update(self.test_ignore)
        return frozenset(codes)

    def is_test_code(self, display: str) -> bool:
        """Whether ``display`` is test code (``test-paths``)."""
        return self.test_paths.match_file(display)

