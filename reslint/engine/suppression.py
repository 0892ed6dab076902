"""Suppression comments: reading them, judging them (RES900), writing them (``--add-noqa``).

Forms (DESIGN section 3):

- ``# noqa: RES101`` or ``# reslint: ignore[RES101]`` at the end of the
  finding's line, or alone on the line above it;
- ``# reslint: noqa: RES101`` (or bare ``# reslint: noqa``) on its own line:
  the whole file;
- a bare ``# noqa`` counts only with ``allow-blanket-noqa = true``.

Codes of other tools in the same comment (``# noqa: E501, RES101``) are kept
and ignored here: only ``RESnnn`` codes are judged or rewritten.

Comments are read from the tokens (never from string contents), once per file,
and only when the text could hold a directive (:func:`could_hold_directives`).
A :class:`Comment` is plain data, so it is cached with the file's findings; the
verdict on unused directives (:func:`unused_noqa`) is made per run, after the
project pass, because a directive may be used by a finding of another pass.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from reslint.diagnostics import Applicability, Edit, Finding, Fix, Location
from reslint.registry import BY_CODE

_CODES = r"[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*"
NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
IGNORE = re.compile(r"#\s*reslint:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
FILE_NOQA = re.compile(rf"#\s*reslint:\s*noqa(?::\s*(?P<codes>{_CODES}))?\s*$", re.IGNORECASE)
RES_CODE = re.compile(r"RES[0-9]+")
#: a text without a match holds no directive reslint reads (bare ``# noqa`` aside)
_HINT = re.compile(r"reslint|noqa[ \t]*:[^\r\n]*res[0-9]", re.IGNORECASE)
_HINT_BLANKET = re.compile(r"reslint|noqa", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")

UNUSED = BY_CODE["RES900"]

#: ``None`` in a directive's codes means "every code" (a blanket directive).
ALL = None


@dataclass
class Directive:
    codes: Optional[FrozenSet[str]]
    own_line: bool


@dataclass
class Suppressions:
    """The directives of one file: per line, and for the whole file."""

    lines: Dict[int, Directive] = field(default_factory=dict)
    file_codes: Set[str] = field(default_factory=set)
    file_all: bool = False

    def suppresses(self, row: int, code: str, allow_blanket: bool) -> bool:
        if self.file_all or code in self.file_codes:
            return True
        for candidate, must_be_own_line in ((row, False), (row - 1, True)):
            directive = self.lines.get(candidate)
            if directive is None or (must_be_own_line and not directive.own_line):
                continue
            if directive.codes is ALL:
                if allow_blanket:
                    return True
            elif code in directive.codes:
                return True
        return False


@dataclass(frozen=True)
class Comment:
    """A comment holding a suppression directive, and where it is in the decoded text."""

    row: int
    column: int  # 0-based column of the ``#``
    offset: int  # offset of the ``#``
    text: str  # the comment, to the end of the line (no line ending)
    own_line: bool
    gap: int  # whitespace between the code and the ``#`` (the indentation on a line of its own)
    newline: int  # length of the line ending after the comment (0 at the end of the file)


@dataclass(frozen=True)
class Parsed:
    """The directive inside a comment: its kind, span and codes (spans are comment offsets)."""

    kind: str  # "noqa", "ignore" or "file"
    start: int
    end: int
    codes: Optional[Tuple[Tuple[str, int, int], ...]]  # (code as written, start, end); None: blanket
    codes_start: int
    codes_end: int

    @property
    def upper(self) -> Optional[FrozenSet[str]]:
        return None if self.codes is None else frozenset(code.upper() for code, _, _ in self.codes)


def parse_directive(text: str, own_line: bool) -> Optional[Parsed]:
    """The directive in one comment, or ``None``: a file directive needs a line of its own,
    ``# reslint: ignore[...]`` wins over a ``# noqa`` in the same comment."""
    kind, match = "file", FILE_NOQA.search(text) if own_line else None
    if match is None:
        kind, match = "ignore", IGNORE.search(text)
    if match is None:
        kind, match = "noqa", NOQA.search(text)
    if match is None:
        return None
    group = match.group("codes")
    if group is None:  # `# noqa` / `# reslint: noqa` with no codes
        return Parsed(kind, match.start(), match.end(), None, match.end(), match.end())
    base = match.start("codes")
    codes = tuple((m.group(0), base + m.start(), base + m.end()) for m in re.finditer(r"[^\s,]+", group))
    return Parsed(kind, match.start(), match.end(), codes, base, match.end("codes"))


def could_hold_directives(text: str, allow_blanket: bool) -> bool:
    """A cheap test before tokenizing: ``False`` means no directive reslint reads is in ``text``."""
    low = text.lower()  # substring tests first: a case-insensitive pattern scans slowly
    if "reslint" not in low and "noqa" not in low:
        return False
    return bool((_HINT_BLANKET if allow_blanket else _HINT).search(text))


def _line_starts(text: str) -> List[int]:
    """Offsets of the physical lines as Python splits them (``\\r\\n``, ``\\r``, ``\\n``; not form feeds)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def _tokens(text: str):
    return tokenize.generate_tokens(io.StringIO(text, newline="").readline)


def read_comments(text: str) -> Tuple[Comment, ...]:
    """Every comment of ``text`` that holds a directive (empty when ``text`` does not tokenize)."""
    starts = _line_starts(text)
    out = []
    try:
        for tok in _tokens(text):
            if tok.type != tokenize.COMMENT:
                continue
            row, column = tok.start
            line_start = starts[row - 1]
            offset = line_start + column
            before = text[line_start:offset]
            own_line = not before.strip()
            if parse_directive(tok.string, own_line) is None:
                continue
            end = offset + len(tok.string)
            newline = _NEWLINE.match(text, end)
            out.append(Comment(row, column, offset, tok.string, own_line, len(before) - len(before.rstrip()),
                               len(newline.group(0)) if newline else 0))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return ()
    return tuple(out)


def suppressions_from(comments: Iterable[Comment]) -> Suppressions:
    """The :class:`Suppressions` the comments make."""
    result = Suppressions()
    for comment in comments:
        parsed = parse_directive(comment.text, comment.own_line)
        if parsed is None:
            continue
        if parsed.kind == "file":
            if parsed.codes is None:
                result.file_all = True
            else:
                result.file_codes.update(parsed.upper)
            continue
        codes = parsed.upper if parsed.kind == "noqa" else (parsed.upper or frozenset())
        result.lines[comment.row] = Directive(codes, comment.own_line)
    return result


def parse_suppressions(text: str) -> Suppressions:
    """Read every suppression directive of a source text."""
    return suppressions_from(read_comments(text))


# -- RES900: directives that suppress nothing ------------------------------------------------
def _covers(parsed: Parsed, code: str, allow_blanket: bool) -> bool:
    return allow_blanket if parsed.codes is None else code in parsed.upper


def _uses(comments: Sequence[Tuple[Comment, Parsed]], suppressed: Iterable[Finding],
          allow_blanket: bool) -> Set[Tuple[int, Optional[str]]]:
    """(directive row, code) for every directive that suppressed a finding (code ``None``: a blanket one).

    A finding is credited to the narrowest directive that covers it: its own line, then a
    comment alone on the line above, then the first file directive naming its code; a
    broader directive that only repeats a narrower one is then reported as unused.
    """
    lines = {c.row: (c, p) for c, p in comments if p.kind != "file"}
    files = [(c, p) for c, p in comments if p.kind == "file"]
    used: Set[Tuple[int, Optional[str]]] = set()
    for finding in suppressed:
        row, code = finding.noqa_row or finding.location.row, finding.code
        for candidate, must_be_own_line in ((row, False), (row - 1, True)):
            entry = lines.get(candidate)
            if entry is None or (must_be_own_line and not entry[0].own_line):
                continue
            if _covers(entry[1], code, allow_blanket):
                used.add((candidate, code if entry[1].codes is not None else None))
                break
        else:
            for comment, parsed in files:
                if code in parsed.upper:
                    used.add((comment.row, code))
                    break
    return used


def unused_noqa(comments: Sequence[Comment], suppressed: Iterable[Finding], judged: FrozenSet[str],
                allow_blanket: bool, display: str) -> List[Finding]:
    """RES900 findings for the directives of one file.

    ``suppressed`` are the findings the directives suppressed in this run (every pass);
    ``judged`` the codes of the rules that ran on this file: a code of a rule that did
    not run is never called unused. Unknown ``RESnnn`` codes are always reported. A
    directive that names RES900 itself (or a file directive naming it) is not reported.
    """
    parsed = [(c, p) for c in comments for p in (parse_directive(c.text, c.own_line),) if p is not None]
    if any(p.kind == "file" and p.codes is None for _, p in parsed):
        return []  # `# reslint: noqa`: the file is not linted at all, RES900 included
    used = _uses(parsed, suppressed, allow_blanket)
    # RES900 is silenced by naming it: in the directive itself, alone on the line above, or file-wide
    silenced_rows = {c.row + (1 if c.own_line else 0) for c, p in parsed
                     if p.kind != "file" and p.codes is not None and UNUSED.code in p.upper}
    if any(p.kind == "file" and UNUSED.code in p.upper for _, p in parsed):
        return []
    findings = []
    for comment, directive in parsed:
        if comment.row in silenced_rows or (directive.codes is not None and UNUSED.code in directive.upper):
            continue
        verdict = _verdict(comment, directive, used, judged, allow_blanket)
        if verdict is not None:
            findings.append(_finding(comment, directive, verdict, display))
    return findings


def blanket_not_counted(text: str, findings: Sequence[Finding], display: str) -> List[Finding]:
    """RES900 for each bare ``# noqa`` on the line of a finding that is still reported because a
    bare ``# noqa`` does not count (``allow-blanket-noqa = false``): the author meant to silence
    it and would otherwise never learn that it is not. A bare ``# noqa`` on a line with no
    finding is left alone (it may be there for flake8 or Ruff); no fix, since naming reslint's
    codes in it would also narrow what those tools suppress."""
    if "noqa" not in text.lower():
        return []
    codes: Dict[int, Set[str]] = {}
    for finding in findings:
        if finding.code not in (UNUSED.code, "RES000"):
            codes.setdefault(finding.noqa_row or finding.location.row, set()).add(finding.code)
    if not codes:
        return []
    out = []
    for comment in read_comments(text):
        directive = parse_directive(comment.text, comment.own_line)
        if directive is None or directive.kind != "noqa" or directive.codes is not None:
            continue
        reported = sorted(codes.get(comment.row + 1 if comment.own_line else comment.row, ()))
        if not reported:
            continue
        where = "the next line" if comment.own_line else "this line"
        written = comment.text[directive.start:directive.end].rstrip()
        message = (f"`{written}` does not suppress {_names(reported)} on {where}: a bare `# noqa` counts for "
                   f"reslint only with `allow-blanket-noqa = true`; name the code (`# noqa: "
                   f"{', '.join(reported)}`) or fix the finding")
        start = Location(comment.row, comment.column + directive.start + 1)
        end = Location(comment.row, comment.column + directive.end + 1)
        out.append(Finding(UNUSED.code, UNUSED.name, UNUSED.severity, message, display, start, end,
                           noqa_row=comment.row))
    return out


@dataclass
class _Verdict:
    unused: List[str] = field(default_factory=list)
    unknown: List[str] = field(default_factory=list)
    duplicate: List[str] = field(default_factory=list)
    remove: Set[int] = field(default_factory=set)  # indexes into the directive's codes
    blanket: bool = False


def _verdict(comment: Comment, directive: Parsed, used, judged: FrozenSet[str],
             allow_blanket: bool) -> Optional[_Verdict]:
    verdict = _Verdict()
    if directive.codes is None:
        if directive.kind == "file" or not allow_blanket or (comment.row, None) in used:
            return None
        verdict.blanket = True
        return verdict
    seen: Set[str] = set()
    for index, (written, _, _) in enumerate(directive.codes):
        code = written.upper()
        if not RES_CODE.fullmatch(code):
            continue  # another tool's code
        if code in seen:
            verdict.duplicate.append(written)
            verdict.remove.add(index)
            continue
        seen.add(code)
        if code == UNUSED.code:
            continue
        if code not in BY_CODE:
            verdict.unknown.append(written)
        elif code in judged and (comment.row, code) not in used:
            verdict.unused.append(written)
        else:
            continue
        verdict.remove.add(index)
    return verdict if verdict.remove else None


def _names(codes: Sequence[str], conjunction: str = "and") -> str:
    quoted = [f"`{c}`" for c in codes]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" {conjunction} " + quoted[-1]


def _finding(comment: Comment, directive: Parsed, verdict: _Verdict, display: str) -> Finding:
    where = "in this file" if directive.kind == "file" else ("on the next line" if comment.own_line
                                                             else "on this line")
    written = comment.text[directive.start:directive.end].rstrip()
    parts = []
    if verdict.blanket:
        parts.append(f"nothing is reported {where}")
    if verdict.unused:
        parts.append(f"no {_names(verdict.unused, 'or')} finding {where}")
    if verdict.unknown:
        rules = "is not a reslint rule" if len(verdict.unknown) == 1 else "are not reslint rules"
        parts.append(f"{_names(verdict.unknown)} {rules}")
    if verdict.duplicate:
        parts.append(f"{_names(verdict.duplicate)} {'is' if len(verdict.duplicate) == 1 else 'are'} listed twice")
    everything = verdict.blanket or len(verdict.remove) == len(directive.codes or ())
    removed = [directive.codes[i][0] for i in sorted(verdict.remove)] if directive.codes else []
    what = "the comment" if everything and comment.text[:directive.start].strip() == "" and \
        comment.text[directive.end:].strip() == "" else ("the directive" if everything else _names(removed))
    message = (f"unused suppression `{written}`: {'; '.join(parts)}; remove {what}: a stale suppression would "
               f"hide the next real finding {where}")
    line_start = comment.offset - comment.column
    start = Location(comment.row, comment.column + directive.start + 1)
    end = Location(comment.row, comment.column + directive.end + 1)
    edit = _removal(comment, directive, verdict, line_start)
    # a bare `# noqa` may be there for another tool (flake8, Ruff): removing it is not safe
    applicability = Applicability.UNSAFE if verdict.blanket else Applicability.SAFE
    fix = Fix(f"Remove {what}" if everything else f"Remove {_names(removed)} from the directive", applicability,
              (edit,))
    return Finding(UNUSED.code, UNUSED.name, UNUSED.severity, message, display, start, end, fix, noqa_row=comment.row)


def _edit(comment: Comment, line_start: int, start: int, end: int, content: str, end_location=None) -> Edit:
    """An edit between two offsets of the comment's line (``end_location`` for an end past the line)."""
    def location(offset: int) -> Location:
        return Location(comment.row, offset - line_start + 1)

    return Edit(start, end, content, location(start), end_location or location(end))


def _removal(comment: Comment, directive: Parsed, verdict: _Verdict, line_start: int) -> Edit:
    """The edit that drops the unused codes, or the directive when none is left, keeping other text."""
    base = comment.offset
    if not verdict.blanket:
        kept = [written for i, (written, _, _) in enumerate(directive.codes) if i not in verdict.remove]
        if kept:
            return _edit(comment, line_start, base + directive.codes_start, base + directive.codes_end,
                         ", ".join(kept))
    text = comment.text
    before, after = text[:directive.start].rstrip(), text[directive.end:]
    if not before and not after.strip():
        if comment.own_line:  # the whole line goes, its line ending too
            end = base + len(text) + comment.newline
            end_location = Location(comment.row + 1, 1) if comment.newline else None
            return _edit(comment, line_start, line_start, end, "", end_location)
        return _edit(comment, line_start, base - comment.gap, base + len(text), "")
    if not before:  # a directive then `# why` (or just `why`) -> `# why`
        rest = after.lstrip()
        content = "" if rest.startswith("#") else "# "
        return _edit(comment, line_start, base, base + len(text) - len(rest), content)
    # `# why` then a directive -> `# why`: drop the directive and the space before it
    end = base + len(text) if not after.strip() else base + directive.end
    return _edit(comment, line_start, base + len(before), end, "")


# -- --add-noqa ---------------------------------------------------------------------------------
@dataclass
class AddedNoqa:
    """What :func:`add_noqa` did to one text."""

    text: str
    added: int = 0  # lines that got a directive or new codes in one
    skipped: List[Tuple[int, str]] = field(default_factory=list)  # (row, why)


def add_noqa(text: str, wanted: Dict[int, Set[str]]) -> AddedNoqa:
    """Write ``# noqa: CODES`` on each row of ``wanted`` (row -> codes).

    An existing ``# noqa: X`` or ``# reslint: ignore[X]`` on the row gets the codes added
    (kept, sorted, no duplicates); other comments are kept and the directive follows them.
    A row whose line ends inside a multi-line string, or with a backslash continuation,
    cannot take a comment and is skipped, as is one with a bare ``# noqa``.
    Applying it twice changes nothing the second time.
    """
    result = AddedNoqa(text)
    starts = _line_starts(text)
    comments: Dict[int, Tuple[int, str]] = {}
    open_rows: Set[int] = set()  # rows whose line ending is inside a token (a multi-line string)
    try:
        for tok in _tokens(text):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.start[0] < tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                open_rows.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        result.skipped.extend((row, "the file cannot be tokenized") for row in sorted(wanted))
        return result
    edits: List[Tuple[int, int, str]] = []
    for row in sorted(wanted):
        codes = {code.upper() for code in wanted[row]}
        if row in open_rows:
            result.skipped.append((row, "the line ends inside a multi-line string"))
            continue
        if not 1 <= row < len(starts) + (0 if text.endswith(("\n", "\r")) else 1):
            result.skipped.append((row, "no such line"))
            continue
        line_start = starts[row - 1]
        newline = _NEWLINE.search(text, line_start)
        line_end = newline.start() if newline else len(text)
        line = text[line_start:line_end]
        if row in comments:
            column, comment = comments[row]
            edit = _merge(comment, codes)
            if edit is None:
                continue  # the codes are already there
            if edit == "bare":
                result.skipped.append((row, "the line has a bare `# noqa` (set allow-blanket-noqa = true, or "
                                            "name the codes)"))
                continue
            start, end, content = edit
            edits.append((line_start + column + start, line_start + column + end, content))
        elif line.rstrip().endswith("\\"):
            result.skipped.append((row, "the line continues with a backslash"))
            continue
        else:
            code_end = line_start + len(line.rstrip())
            edits.append((code_end, line_end, f"  # noqa: {', '.join(sorted(codes))}"))
        result.added += 1
    out, last = [], 0
    for start, end, content in sorted(edits):
        out.append(text[last:start])
        out.append(content)
        last = end
    out.append(text[last:])
    result.text = "".join(out)
    return result


def _merge(comment: str, codes: Set[str]):
    """(start, end, content) within ``comment`` adding ``codes``; ``None`` when nothing is missing;
    ``"bare"`` for a blanket ``# noqa``."""
    directive = parse_directive(comment, own_line=False)
    if directive is None:
        return len(comment), len(comment), f"  # noqa: {', '.join(sorted(codes))}"
    if directive.codes is None:
        return "bare"
    present = {written.upper() for written, _, _ in directive.codes}
    if codes <= present:
        return None
    merged = sorted({written for written, _, _ in directive.codes if written.upper() not in codes} | codes)
    return directive.codes_start, directive.codes_end, ", ".join(merged)
