"""The per-file pass: read, decode, parse once, visit once, report.

:class:`Linter` is built once per run (rule set, compiled per-file ignores) and
lints one file at a time:

1. read bytes and decode with the file's declared encoding (PEP 263 cookie,
   BOM); a file that cannot be read, decoded or parsed is ``RES000``;
2. the text prefilter (:class:`reslint.semantics.prefilter.Trigger`): most files stop here;
3. the syntax check, which builds the file's :mod:`ast`, and the ast prefilter
   (:class:`reslint.semantics.prefilter.Relevance`);
4. ``libcst.parse_module`` once (the garbage collector is paused from the syntax check on);
5. build the semantic model (:mod:`reslint.semantics.context`) with a statement walk;
6. one batched visit of all enabled rules, the context kept current by the
   visit's ``before_visit``/``after_leave`` hooks;
7. only when something was reported: positions (:class:`reslint.engine.positions.Positions`,
   for the statements that hold findings), suppressions, and fixes turned into text edits.

The result, :class:`FileResult`, is plain data (no CST nodes).
"""

from __future__ import annotations

import bisect
import ast
import gc
import re
import sys
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState  # stable since LibCST 0.3; renders one statement

from reslint import profiling
from reslint.catalog import canonical
from reslint.catalog.entries import entry_points
from reslint.catalog.idempotency import (
    DEDUP_ATTRIBUTES, DEDUP_WORDS, DELIVERY_DECORATORS, DELIVERY_FUNCTION_WORDS, ORM_READS, ORM_WRITES,
)
from reslint.config import Settings
from reslint.semantics.context import Context, SemanticModel, dotted_name
from reslint.diagnostics import Applicability, Edit, Finding, Fix, Location
from reslint.semantics.edits import (
    add_import_name, drops_comment, import_binding, import_placement, leading_comment_lines, name_reads,
    without_import_names,
)
from reslint.engine.positions import Positions, UnitLines, unit_lines
from reslint.project import python_ceiling, requires_python
from reslint.semantics.prefilter import CheckThenAct, Relevance, module_name
from reslint.engine.results import FileResult, Judge, internal_error
from reslint.rules.visitors import ALL_RULES
from reslint.rules.base import Report
from reslint.engine.suppression import Comment, parse_directive, suppressions_from
from reslint.semantics.walk import dead_definitions, expressions, walk

#: LibCST visits and renders recursively (long implicit string concatenations, long ``and``
#: chains nest deeply); safe because that work runs on a thread with a large stack
RECURSION_LIMIT = 200000


def _line_starts(text: str) -> List[int]:
    """Offsets where lines start, splitting only at the line endings Python's tokenizer and
    LibCST use (``\r\n``, ``\r``, ``\n``): ``str.splitlines`` also splits at form feeds."""
    starts = [0]
    starts.extend(match.end() for match in re.finditer(r"\r\n|\r|\n", text))
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _location(starts: List[int], offset: int) -> Location:
    line = max(0, bisect.bisect_right(starts, offset) - 1)  # the last start <= offset
    return Location(line + 1, offset - starts[line] + 1)


def common_affixes(old: str, new: str) -> Tuple[int, int]:
    """(prefix, suffix): the lengths of the longest common prefix of ``old`` and ``new`` and of
    their longest common suffix in what remains (the two never overlap)."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return prefix, suffix


def _diff_edit(old: str, new: str, starts: List[int]) -> Optional[Edit]:
    """The single edit that turns ``old`` into ``new`` (common prefix/suffix trimmed)."""
    if old == new:
        return None
    prefix, suffix = common_affixes(old, new)
    start, end = prefix, len(old) - suffix
    return Edit(start, end, new[prefix:len(new) - suffix], _location(starts, start), _location(starts, end))


#: the C stack of the thread that parses and visits: LibCST's native parser recurses once
#: per operand of a long ``and`` chain and overflowed the 8 MB main stack (SIGSEGV, upstream
#: Instagram/LibCST#619, #1000); the memory is reserved, and used only as deep as a file needs
PARSE_STACK_BYTES = 256 * 1024 * 1024
_parse_thread: Optional[ThreadPoolExecutor] = None


def _on_large_stack(function, *args):
    """``function(*args)`` on a long-lived thread with a :data:`PARSE_STACK_BYTES` stack."""
    global _parse_thread
    if _parse_thread is None:
        previous = threading.stack_size(PARSE_STACK_BYTES)
        try:
            _parse_thread = ThreadPoolExecutor(1, thread_name_prefix="reslint-parse")
            _parse_thread.submit(int).result()  # start the thread now, while the stack size is set
        finally:
            threading.stack_size(previous)
    return _parse_thread.submit(function, *args).result()


def _unvalidated_parse(text: str) -> cst.Module:
    """``libcst.parse_module`` without each new node's ``_validate()``: the parser only builds
    valid trees, and validation was a sixth of the parse (LibCST's own note in
    ``libcst/_nodes/base.py`` ``CSTNode.__post_init__`` suggests dropping it when parsing).
    Only while this thread parses (the others wait for it); with validation when
    ``__post_init__`` does anything else in the installed LibCST."""
    hook = cst.CSTNode.__post_init__
    if getattr(hook, "__code__", None) is None or hook.__code__.co_names != ("_validate",):
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _no_validation
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = hook


def _no_validation(self) -> None:
    pass


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module`` on the large-stack thread; raises what LibCST raises."""
    return _on_large_stack(_unvalidated_parse, text)


_RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"
_UNREAD = object()


def _too_deep() -> str:
    """Why a file too deep to parse or render is RES000. reslint raises the recursion limit
    (:data:`RECURSION_LIMIT`) and runs on a large stack, which is all Python 3.11 and earlier
    need; from 3.12 on, calls made through C (LibCST's code generator makes two per level of
    nesting: positions and fixes render the tree) also count against a C recursion limit fixed
    when the interpreter was built (``Py_C_RECURSION_LIMIT``: 10,000 on 3.13 and 1,500 on 3.12.1
    on Linux), which ``sys.setrecursionlimit`` does not raise."""
    if sys.version_info >= (3, 12):
        return (f"too deeply nested (for Python {_RUNNING}'s fixed C recursion limit; reslint on "
                "Python 3.11 or earlier checks deeper nesting)")
    return "too deeply nested"


_TOO_DEEP = _too_deep()


def _libcst_grammars() -> str:
    """Which Python versions' syntax the installed LibCST reads (its native parser reads them all)."""
    known = getattr(cst, "KNOWN_PYTHON_VERSION_STRINGS", None)
    return f"which reads Python {known[0]} to {known[-1]}" if known else "which reads newer syntax"


_LIBCST_GRAMMARS = _libcst_grammars()


@dataclass(frozen=True)
class Rejection:
    """Why the grammar of the Python running reslint rejected a file: the message and where,
    and whether a newer grammar may accept it (a ``SyntaxError``; not a null byte or a nesting
    too deep for the interpreter's parser)."""

    message: str
    at: Location
    newer_may_accept: bool


def syntax_accepted(text: str) -> bool:
    """Whether a grammar reslint reads accepts ``text``: this Python's, else LibCST's (newer syntax)."""
    try:
        compile(text, "<file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        parse_module(text)
        return True
    except Exception:  # noqa: BLE001 - the native parser raises assorted errors
        return False


def _live(reports: list, dead: Sequence[cst.FunctionDef]) -> list:
    """The reports outside code that never runs: ``dead``, the functions a body defines again further
    down (:func:`reslint.semantics.walk.dead_definitions`; Ruff's F811 reports the redefinition)."""
    if not reports or not dead:
        return reports
    inside = {id(node) for function in dead for node in expressions(function)}
    return [report for report in reports if id(report.node) not in inside]


def _outside(comments: Tuple[Comment, ...], dead: Sequence[cst.FunctionDef], module: cst.Module,
             text: str) -> Tuple[Comment, ...]:
    """``comments`` less those for the lines of the ``dead`` functions (their decorators included):
    reslint reports nothing there, so a directive there would always be called unused (RES900)."""
    positions = Positions(module, text, _line_starts(text), None)  # renders the module once: rare
    spans = []
    for function in dead:
        first = positions.get(function.decorators[0] if function.decorators else function)
        last = positions.get(function)
        if first is not None and last is not None:
            spans.append((first.start.line, last.end.line))
    def dead_row(comment: Comment) -> bool:
        directive = parse_directive(comment.text, comment.own_line)
        if directive is not None and directive.kind == "file":
            return False  # a file directive is for every line
        row = comment.row + (1 if comment.own_line else 0)  # a comment alone on its line is for the next
        return any(start <= row <= end for start, end in spans)

    return tuple(c for c in comments if not dead_row(c))


class Linter(Judge):
    """Lints files with one configuration. Build once per run; not thread-safe."""

    def __init__(self, settings: Settings, ignore_noqa: bool = False):
        super().__init__(settings, ignore_noqa)
        self.rule_classes = [rule for rule in ALL_RULES if rule.code in self.enabled]
        self._path: Optional[str] = None  # the file being linted, for its module name
        self._packages: Dict[str, Tuple[str, ...]] = {}  # directory -> its package chain
        self.needs_retries = self.needs_summary or any(rule.needs_retries for rule in self.rule_classes)
        rows = CheckThenAct(DEDUP_ATTRIBUTES, ORM_READS, ORM_WRITES, DEDUP_WORDS, DELIVERY_DECORATORS,
                            DELIVERY_FUNCTION_WORDS) if "RES404" in self.enabled else None
        self.relevance = Relevance(entry_points() | settings.catalog.names, canonical, loops=self.needs_retries,
                                   check_then_act=rows) \
            if self.trigger is not None else None
        self._ceiling = _UNREAD  # the newest Python the project's requires-python allows, read on first need
        self._requires_python: Optional[str] = None
        self.safe_codes = settings.codes(settings.extend_safe_fixes)
        self.unsafe_codes = settings.codes(settings.extend_unsafe_fixes)

    # -- entry points -------------------------------------------------------------------
    def lint_path(self, path: Path, complete: bool = True, force: bool = False,
                  data: Optional[bytes] = None) -> FileResult:
        """Lint one file on disk. Never raises for bad input: that becomes RES000.

        ``complete=False`` leaves out the last step (:meth:`complete`), for a run that
        judges suppressions after its project pass; ``force=True`` parses the file even
        when the prefilter would skip it (the project pass wants its summary). ``data``: the
        file's bytes when already read."""
        display = self.display_path(path)
        result = FileResult(str(path), display)
        try:
            data = Path(path).read_bytes() if data is None else data
        except OSError as exc:
            result.findings = self.syntax(display, f"cannot read file: {exc.strerror or exc}", Location(1, 1),
                                           self.ignored_codes(display))
            return result
        self._path = str(path)
        try:
            return self.lint_bytes(data, display, result, complete, force)
        finally:
            self._path = None

    def lint_bytes(self, data: bytes, display: str, result: Optional[FileResult] = None,
                   complete: bool = True, force: bool = False) -> FileResult:
        result = result or FileResult(display, display)
        source, failed = self.decode(data, display)
        if source is None:
            result.findings = failed
            return result
        result.source = source
        linted = self._lint(source.text, display, force)
        result.findings, result.internal_errors, result.summary = linted.findings, linted.internal_errors, \
            linted.summary
        result.suppressed, result.comments, result.skipped = linted.suppressed, linted.comments, linted.skipped
        result.text_skipped, result.marks = linted.text_skipped, linted.marks
        if complete:
            self.complete(result, project_pass=False)
        return result

    def lint_text(self, text: str, display: str) -> Tuple[List[Finding], List[str]]:
        """Lint decoded source text; return (findings, internal error messages).

        A file that imports nothing any enabled rule looks for (the text prefilter) is
        not parsed at all; the others are checked for syntax errors with
        :func:`compile` (the grammar of the Python reslint runs on), and only those the
        ``ast`` prefilter keeps are parsed with LibCST.
        """
        result = self._lint(text, display)
        self.complete(result, project_pass=False, text=text)
        return result.findings, result.internal_errors

    def _lint(self, text: str, display: str, force: bool = False) -> FileResult:
        """The per-file pass over decoded text (``path`` is ``display``; no :meth:`complete`)."""
        ignored = self.ignored_codes(display)
        comments, skipped = self.prefilter_text(text, display, force)
        if skipped is not None:
            return skipped
        # the ast and the LibCST tree are millions of objects and no garbage: a collection
        # while they are built only walks them (a quarter of the syntax check's time)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._lint_parsed(text, display, force, ignored, comments)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _lint_parsed(self, text: str, display: str, force: bool, ignored: frozenset,
                     comments: Tuple[Comment, ...]) -> FileResult:
        tree, rejected = profiling.timed("syntax check (ast)", self._check_syntax, text)
        if tree is None and (not rejected.newer_may_accept or self._no_later_python()):
            return FileResult(display, display, self.syntax(display, self._rejected_message(rejected), rejected.at,
                                                            ignored))
        module = self._module_name(display)
        lines = None
        if tree is not None:
            if not force and self.relevance is not None and \
                    not profiling.timed("prefilter (ast)", self.relevance.wanted, tree, *module) and \
                    not self.spells_a_setting(text):
                return self.skipped_result(display, text, comments)
            lines = unit_lines(tree.body)
            del tree
        # else: syntax newer than this interpreter (PEP 695, PEP 701...): LibCST's grammar may accept
        # it; without an ``ast`` the file is not prefiltered, only parsed and checked
        findings, errors, summary, suppressed, comments = _on_large_stack(
            self._lint_module, text, display, ignored, comments, module, lines, rejected)
        return FileResult(display, display, findings, errors, summary=summary, suppressed=suppressed,
                          comments=comments)

    def _lint_module(self, text: str, display: str, ignored: frozenset, comments: Tuple[Comment, ...],
                     name: Tuple[str, bool], lines: Optional[UnitLines] = None,
                     rejected: Optional["Rejection"] = None):
        """Parse and visit: (findings, internal errors, module summary, suppressed findings, the comments
        whose directives are to be judged: ``comments`` less those in code that never runs).
        ``name``: (dotted module name, is package); ``lines``: :func:`reslint.engine.positions.unit_lines`
        of the file's ``ast``; ``rejected``: why this interpreter's grammar rejected the file, when
        it did (then LibCST's grammar decides). Runs with the garbage collector paused (:meth:`_lint`)."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
        try:
            try:
                module = profiling.timed("parse (LibCST)", _unvalidated_parse, text)
            except cst.ParserSyntaxError as exc:
                if rejected is not None:  # no grammar reslint has accepts it: CPython's message is the clearer
                    return self.syntax(display, self._rejected_message(rejected, libcst_too=True), rejected.at,
                                       ignored), [], None, [], comments
                message = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
                return self.syntax(display, f"cannot parse: {message} (Python {_RUNNING} accepts this file, but "
                                    f"LibCST cannot parse it: new syntax or very deep nesting)",
                                    Location(exc.raw_line, exc.raw_column + 1), ignored), [], None, [], comments
            except RecursionError:
                return self.syntax(display, f"cannot parse: {_TOO_DEEP}", Location(1, 1), ignored), [], None, [], comments
            except Exception as exc:  # noqa: BLE001 - the native parser raises assorted errors
                return self.syntax(display, f"cannot parse: {type(exc).__name__}: {exc}", Location(1, 1),
                                    ignored), [], None, [], comments
            reports, errors, collector = self._visit(module, display, name)
            dead = dead_definitions(module) if reports or comments else ()
            reports = _live(reports, dead)
            judged = _outside(comments, dead, module, text) if dead and comments else comments  # for RES900
            profile = profiling.ACTIVE
            started = time.perf_counter() if profile is not None else 0.0
            try:
                positions = None
                if reports or (collector is not None and collector.needs_positions):
                    positions = Positions(module, text, _line_starts(text), lines)
                    positions.cover(report.unit for report in reports)
                suppressions = suppressions_from(comments) if positions is not None else None
                summary = collector.summary(display, positions, suppressions) if collector is not None else None
                if not reports:
                    return [], errors, summary, [], judged
                findings, suppressed = self._findings(module, positions, suppressions, text, display, reports, ignored)
                return findings, errors, summary, suppressed, judged
            except RecursionError:
                return self.syntax(display, f"cannot analyse: {_TOO_DEEP}", Location(1, 1), ignored), errors, \
                    None, [], comments
            finally:
                if profile is not None:
                    profile.add("positions + findings + fixes", time.perf_counter() - started)
        finally:
            sys.setrecursionlimit(limit)

    # -- internals ----------------------------------------------------------------------
    def _check_syntax(self, text: str) -> Tuple[Optional[ast.Module], Optional["Rejection"]]:
        """(the file's :mod:`ast`, ``None``), or (``None``, why) when the grammar of the Python
        reslint runs on rejects it."""
        try:
            return compile(text, "<file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True), None
        except SyntaxError as exc:
            return None, Rejection(exc.msg, Location(exc.lineno or 1, (exc.offset or 1)), newer_may_accept=True)
        except (ValueError, RecursionError, MemoryError) as exc:
            reason = str(exc) or {"MemoryError": "too deeply nested for the Python parser"}.get(
                type(exc).__name__, type(exc).__name__)
            return None, Rejection(reason, Location(1, 1), newer_may_accept=False)

    def _no_later_python(self) -> bool:
        """Whether the project's ``requires-python`` allows no Python newer than the one running
        reslint: then this interpreter's grammar is the newest the project is written for."""
        if self._ceiling is _UNREAD:
            root = self.settings.anchor
            self._requires_python = requires_python(root)
            self._ceiling = python_ceiling(self._requires_python)
        return self._ceiling is not None and self._ceiling <= sys.version_info[:2]

    def _rejected_message(self, rejected: "Rejection", libcst_too: bool = False) -> str:
        """The RES000 message for a file this interpreter's grammar rejected: which grammars
        were tried (this Python's; LibCST's, which covers newer syntax, unless the project's
        ``requires-python`` rules newer Pythons out)."""
        if libcst_too:
            return f"cannot parse: {rejected.message} (rejected by Python {_RUNNING}'s grammar and by LibCST's, " \
                   f"{_LIBCST_GRAMMARS})"
        if rejected.newer_may_accept:
            return (f"cannot parse: {rejected.message} (rejected by Python {_RUNNING}'s grammar; the project's "
                    f"requires-python = \"{self._requires_python}\" allows no later Python)")
        return f"cannot parse: {rejected.message}"

    def _module_name(self, display: str) -> Tuple[str, bool]:
        return module_name(self._path or os.path.join(str(self.settings.root), display), self._packages)

    def _visit(self, module: cst.Module, display: str, name: Tuple[str, bool]):
        model = SemanticModel(module, *name)
        try:
            ctx = profiling.timed("semantic model + retried scopes", self._context, model)
        except Exception as exc:  # noqa: BLE001 - contained: this file gets an internal error, the run goes on
            return [], [internal_error(display, exc, " in the retry analysis")], None
        reports: List[Report] = []
        rules = [rule_class(ctx, reports) for rule_class in self.rule_classes]
        collector = None
        if self.needs_summary:
            from reslint.analysis.summary import SummaryCollector

            collector = SummaryCollector(ctx)
            rules.append(collector)
        errors: List[str] = []
        try:
            profiling.timed("visit", walk, module, rules, ctx.enter, ctx.leave)
        except Exception:  # noqa: BLE001 - find the faulty rule, keep the others
            reports.clear()
            for rule_class in self.rule_classes:
                ctx = self._context(model)
                mine: List[Report] = []
                try:
                    walk(module, [rule_class(ctx, mine)], ctx.enter, ctx.leave)
                except Exception as exc:  # noqa: BLE001
                    errors.append(internal_error(display, exc, f" in {rule_class.code} ({rule_class.name})"))
                    continue
                reports.extend(mine)
            collector = None  # a summary from a failed walk would be wrong
        return reports, errors, collector

    def _context(self, model: SemanticModel) -> Context:
        ctx = Context(model, self.settings)
        if self.needs_retries:
            from reslint.analysis.retried import RetriedScopes
            from reslint.analysis.retry import Extractor

            ctx.retries = Extractor(ctx)
            ctx.retried = RetriedScopes(ctx, ctx.retries)
        return ctx

    def _findings(self, module, positions, suppressions, text, display, reports: List[Report], ignored):
        allow_blanket = self.settings.allow_blanket_noqa
        findings = []
        suppressed = []
        seen = set()
        #: import spec -> its edit (or None): the same for every finding of the file that needs it,
        #: and each costs a scan of the module's leading statements and a rendering of an import
        import_edits: Dict[str, Optional[Edit]] = {}
        for report in reports:
            code = report.rule.code
            span = positions.get(report.node)
            if span is None or code in ignored:
                continue
            start = Location(span.start.line, span.start.column + 1)
            end = Location(span.end.line, span.end.column + 1)
            if (code, start) in seen:
                continue  # one finding per fault
            seen.add((code, start))
            silenced = suppressions.suppresses(start.row, code, allow_blanket)
            if silenced and not self.ignore_noqa:
                # kept (without a fix) so that the run knows which directives were used
                suppressed.append(Finding(code, report.rule.name, report.rule.severity, report.message, display,
                                          start, end, noqa_row=start.row))
                continue
            fix = None
            if report.fix is not None:
                fix = self._fix(module, text, positions.starts, positions, report, code, import_edits)
            finding = Finding(code, report.rule.name, report.rule.severity, report.message, display, start, end,
                              fix, noqa_row=start.row)
            (suppressed if silenced else findings).append(finding)
        findings.sort(key=Finding.sort_key)
        return findings, suppressed

    def _fix(self, module: cst.Module, text: str, starts, positions, report: Report, code: str,
             import_edits: Dict[str, Optional[Edit]]) -> Optional[Fix]:
        """The fix of one report; ``import_edits``: the file's import edits made so far (spec -> edit)."""
        plan = report.fix
        edits: List[Edit] = []
        try:
            for old, new in plan.replacements:
                edit = _replacement_edit(module, text, starts, positions, report.statement, old, new)
                if edit is not None:
                    edits.append(edit)
            if plan.unused:
                changed = _import_changes(module, text, starts, positions, plan, report.rule.ctx)
                if changed is None:
                    return None
                edits.extend(changed[0])
            for name in plan.imports:
                if plan.unused and name in changed[1]:
                    continue  # made in the same edit as the removal
                if name not in import_edits:
                    import_edits[name] = _from_import_edit(module, text, starts, positions, name, report.rule.ctx) \
                        if name.startswith("from ") else _import_edit(module, text, positions, starts, name,
                                                                      report.rule.ctx)
                edit = import_edits[name]
                if edit is None:
                    return None
                edits.append(edit)
        except Exception:  # noqa: BLE001 - a fix that cannot be built is simply not offered
            return None
        if not edits:
            return None
        applicability = plan.applicability
        if applicability is Applicability.SAFE and any(drops_comment(old, new) for old, new in plan.replacements):
            applicability = Applicability.UNSAFE  # a safe fix never deletes a comment (Ruff's rule too)
        if code in self.safe_codes and applicability is Applicability.UNSAFE:
            applicability = Applicability.SAFE
        if code in self.unsafe_codes and applicability is Applicability.SAFE:
            applicability = Applicability.UNSAFE
        return Fix(plan.message, applicability, tuple(sorted(edits, key=lambda e: (e.start, e.end))))


def _render(node: cst.CSTNode, module: cst.Module, indent: str) -> str:
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=[indent] if indent else [])
    node._codegen(state)
    return "".join(state.tokens)


#: the indentation at the start of a line (a match, not a slice of the line: one line may be
#: the whole file, and slicing it per finding made a one-line file quadratic)
_INDENT = re.compile(r"[ \t]*")
#: what :func:`_expression_edit` returns when the node alone cannot give the edit
_WIDER = object()


def _replacement_edit(module: cst.Module, text: str, starts: List[int], positions, statement, old, new) -> Optional[Edit]:
    """The text edit for replacing ``old`` by ``new``.

    Rendered at the scale of the node itself when it is an expression whose
    rendering matches the file text at its position, else of the enclosing
    statement (with its block indentation), else of the module: rendering a whole
    statement or module per finding made statements and files with many findings
    quadratic (1,000 calls in one list literal took minutes; so did 1,000
    parenthesised calls on one line, and calls continued over lines inside a
    function, until the node alone was also rendered with its parentheses and its
    statement's indentation).
    """
    own = positions.get(old) if isinstance(old, cst.BaseExpression) else None
    head = None
    if own is not None:  # the node alone: expressions keep their whitespace
        parenthesised = bool(getattr(old, "lpar", ()) or getattr(old, "rpar", ()))
        if not parenthesised:
            edit = _expression_edit(module, text, starts, own, old, new, "", strict=False)
            if edit is not _WIDER:
                return edit
        head = _statement_head(text, starts, positions, statement)
        if head is not None and (parenthesised or head[1]):
            line_start, indent, stmt_end = head
            edit = _expression_edit(module, text, starts, own, old, new, indent, strict=True,
                                    within=(line_start, stmt_end))
            if edit is not _WIDER:
                return edit
    head = head or _statement_head(text, starts, positions, statement)
    if head is not None:
        line_start, indent, _ = head
        bare = statement.with_changes(leading_lines=()) if hasattr(statement, "leading_lines") else statement
        before = _render(bare, module, indent)
        if text.startswith(before, line_start):
            after = _render(bare.deep_replace(old, new), module, indent)
            edit = _diff_edit(before, after, [0])
            if edit is None:
                return None
            start, end = line_start + edit.start, line_start + edit.end
            return Edit(start, end, edit.content, _location(starts, start), _location(starts, end))
    return _diff_edit(text, module.deep_replace(old, new).code, starts)


def _statement_head(text: str, starts: List[int], positions, statement) -> Optional[Tuple[int, str, int]]:
    """(offset of the line ``statement`` starts on, that line's indentation, offset where the
    statement ends), or ``None`` when its position is unknown. A definition's position starts
    at ``def``/``class``: its line is that of its first decorator."""
    span = positions.get(statement) if statement is not None else None
    decorators = getattr(statement, "decorators", ())
    if decorators:
        span_start = positions.get(decorators[0]) if span is not None else None
    else:
        span_start = span
    if span is None or span_start is None:
        return None
    line_start = starts[span_start.start.line - 1]
    end = starts[span.end.line - 1] + span.end.column if span.end.line <= len(starts) else len(text)
    return line_start, _INDENT.match(text, line_start).group(0), end


def _expression_edit(module: cst.Module, text: str, starts: List[int], own, old: cst.BaseExpression,
                     new: cst.CSTNode, indent: str, strict: bool, within: Tuple[int, int] = (0, 0)):
    """The edit from rendering ``old`` and ``new`` alone (with ``indent`` as the block
    indentation its continuation lines may need), or :data:`_WIDER` when the rendering of
    ``old`` is not the file text at its position (``own``, which leaves out the node's own
    parentheses: they are rendered and matched too).

    ``strict``: also :data:`_WIDER` when the node is outside ``within`` (the statement's
    offsets) or when one rendering is a prefix of the other, where the statement's
    rendering could trim the edit differently; in every other case the edit is the one the
    statement's or the module's rendering gives, so that matching more nodes here changes
    no output."""
    lead = "".join(_render(paren, module, indent) for paren in old.lpar)
    trail = "".join(_render(paren, module, indent) for paren in old.rpar)
    start = starts[own.start.line - 1] + own.start.column - len(lead)
    end = starts[own.end.line - 1] + own.end.column + len(trail)
    if strict and not (within[0] <= start and end <= within[1]):
        return _WIDER
    before = _render(old, module, indent)
    if start < 0 or len(before) != end - start or not text.startswith(before, start):
        return _WIDER
    after = _render(new, module, indent)
    if strict and before != after and (after.startswith(before) or before.startswith(after)):
        return _WIDER
    edit = _diff_edit(before, after, [0])
    if edit is None:
        return None
    first, last = start + edit.start, start + edit.end
    return Edit(first, last, edit.content, _location(starts, first), _location(starts, last))


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )


def _is_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _from_import_edit(module: cst.Module, text: str, starts, positions, spec: str, ctx=None) -> Optional[Edit]:
    """Add a name to the existing ``from m import ...`` (``spec`` is ``from m import name``);
    ``ctx``: the file's context (its cache holds the index of the module's from-imports)."""
    from reslint.semantics.edits import add_import_name, find_from_import

    _, dotted, _, name = spec.split(" ", 3)
    found = find_from_import(module, dotted, ctx)
    if found is None:
        return None
    line, node = found
    positions.cover([line])
    return _statement_edit(module, text, starts, positions, line, node, add_import_name(node, name))


def _statement_edit(module: cst.Module, text: str, starts, positions, line, node, new) -> Optional[Edit]:
    """An edit that rewrites the whole import statement ``line`` (``node`` replaced by ``new``), not
    the smallest difference: two fixes that change the same import then overlap, and the second
    waits for the next round, which sees the first one's import (two adjacent small edits, one
    dropping a name and one adding another, would each keep the names in order but not together)."""
    span = positions.get(line)
    if span is None:
        return None
    line_start = starts[span.start.line - 1]
    bare = line.with_changes(leading_lines=())
    before = _render(bare, module, "")
    if not text.startswith(before, line_start):
        return _replacement_edit(module, text, starts, positions, line, node, new)
    after = _render(bare.deep_replace(node, new), module, "")
    end = line_start + len(before)
    return Edit(line_start, end, after, _location(starts, line_start), _location(starts, end))


def _import_changes(module: cst.Module, text: str, starts, positions, plan, ctx):
    """(edits, the ``from`` specs they made) that drop the imports of ``plan.unused`` whose one
    read the fix rewrites, together with the names the fix adds to the same statements (one
    edit per statement); ``None`` when an edit cannot be built. A name still read elsewhere
    keeps its import."""
    reads = name_reads(ctx, module)
    drops: Dict[int, tuple] = {}
    for name in plan.unused:
        found = import_binding(module, name)
        if found is None or reads.get(name, 0) != 1:
            continue
        line, node = found
        drops.setdefault(id(node), (line, node, set()))[2].add(name)
    made, edits = set(), []
    for line, node, names in drops.values():
        module_name = dotted_name(node.module) if node.module is not None else None
        added = [spec for spec in plan.imports if spec.startswith(f"from {module_name} import ")]
        new = without_import_names(node, names)
        for spec in added:
            extra = spec.rsplit(" ", 1)[1]
            new = add_import_name(new, extra) if new is not None else \
                node.with_changes(names=[cst.ImportAlias(name=cst.Name(extra))])
            made.add(spec)
        positions.cover([line])
        if new is None:
            span = positions[line]
            first = span.start.line - 1 - leading_comment_lines(line)
            start, end = starts[first], starts[span.end.line] if span.end.line < len(starts) else len(text)
            edits.append(Edit(start, end, "", _location(starts, start), _location(starts, end)))
            continue
        edit = _statement_edit(module, text, starts, positions, line, node, new)
        if edit is None:
            return None
        edits.append(edit)
    return edits, made


def _import_edit(module: cst.Module, source: str, positions, starts: List[int], name: str, ctx=None) -> Edit:
    """Insert ``import name`` into its isort section of the module's leading imports
    (:func:`reslint.semantics.edits.import_placement`), or at the top (after the docstring) when there
    are none. ``source`` is the file's text, which ``module.code`` would render again; ``ctx``
    the file's context (where the project's own packages are)."""
    placement = import_placement(module, name, _first_party(ctx))
    newline = module.default_newline
    if placement is not None:
        stmt, where, text = placement
        span = positions[stmt]
        if where == "before":
            offset = starts[span.start.line - 1 - leading_comment_lines(stmt)]
        else:
            line = span.end.line
            offset = starts[line] if line < len(starts) else len(source)
            if offset == len(source) and source and not source.endswith(("\n", "\r")):
                text = newline + text
    else:
        first = module.body[0] if module.body else None
        anchor = first if first is not None and _is_docstring(first) else None
        if anchor is not None:
            line = positions[anchor].end.line
            offset = starts[line] if line < len(starts) else len(source)
            if offset == len(source) and not source.endswith(("\n", "\r")):
                text = newline + f"import {name}{newline}"
            else:
                text = f"import {name}{newline}"
        else:
            offset = starts[positions[first].start.line - 1] if first is not None else len(source)
            text = f"import {name}{newline}"
    location = _location(starts, offset)
    return Edit(offset, offset, text, location, location)


def _first_party(ctx):
    """Whether a top-level module name is one of the project's own packages (isort's first
    party): the package of the file being fixed, or a package or module at the project's root
    or in its ``src/`` directory."""
    module = getattr(getattr(ctx, "model", None), "module_scope", None)
    own = (getattr(module, "name", "") or "").split(".")[0]
    settings = getattr(ctx, "settings", None)
    root = Path(settings.root) if settings is not None and getattr(settings, "root", None) else None
    known: Dict[str, bool] = {}

    def check(top: str) -> bool:
        if top == own:
            return True
        if root is None:
            return False
        if top not in known:
            known[top] = any((base / top).is_dir() or (base / f"{top}.py").is_file() for base in (root, root / "src"))
        return known[top]

    return check


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (sorted by start) to ``text``."""
    out = []
    last = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[last:edit.start])
        out.append(edit.content)
        last = edit.end
    out.append(text[last:])
    return "".join(out)
