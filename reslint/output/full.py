"""``full`` (the default): location, code, message, a code frame with carets, the fix hint.

Every file-derived text (the path, the message, the line of code, the fix message) is
printed through :func:`reslint.output.terminal.visible`, before any colour is added.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

import click

from reslint.diagnostics import Applicability, Finding
from reslint.output import Report
from reslint.output.concise import _marker
from reslint.output.summary import summary
from reslint.output.terminal import visible

#: the line endings Python's tokenizer and LibCST count rows by (``str.splitlines`` also
#: breaks at form feeds, U+001C-U+001E, U+0085, U+2028 and U+2029, which would show the wrong line)
_LINE_END = re.compile(r"\r\n|\r|\n")
#: the most characters of a source line a frame shows; a longer line is clipped around the
#: caret: one line may be a whole megabyte file, and its frame was printed once per finding
FRAME_WIDTH = 300
#: how many characters before the caret a clipped line keeps
FRAME_LEAD = 100
#: what stands for the clipped part at either end of a clipped line
ELLIPSIS = "..."


def _lines(text: str) -> List[str]:
    """The lines of ``text`` without their endings, numbered as the findings' rows are."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the text ends with a line ending: no line after it
    return lines


class _Lines:
    """The lines of one file (:func:`_lines`), split once per render (not once per finding), with
    the length of each line without its trailing whitespace, computed once per row."""

    def __init__(self, text: str):
        self.lines = _lines(text)
        self._stripped: Dict[int, int] = {}

    def stripped_length(self, row: int) -> int:
        """``len(line.rstrip())`` of line ``row`` (1-based)."""
        if row not in self._stripped:
            self._stripped[row] = len(self.lines[row - 1].rstrip())
        return self._stripped[row]


def clip(line: str, start: int, end: int) -> Tuple[str, int, int]:
    """``(shown, start, end)``: ``line`` as the frame shows it, with the caret's columns
    ``[start, end)`` (0-based) moved to match. A line of at most :data:`FRAME_WIDTH`
    characters is shown whole; a longer one is cut to :data:`FRAME_WIDTH` characters around
    ``start``, with :data:`ELLIPSIS` for each part cut off, and the caret ends at the cut."""
    if len(line) <= FRAME_WIDTH:
        return line, start, end
    first = max(0, min(start - FRAME_LEAD, len(line) - FRAME_WIDTH))
    last = min(len(line), first + FRAME_WIDTH)
    lead = ELLIPSIS if first > 0 else ""
    shown = lead + line[first:last] + (ELLIPSIS if last < len(line) else "")
    shift = len(lead) - first
    return shown, start + shift, min(end, last) + shift


def _caret(line: str, start: int, end: int) -> str:
    """Carets under ``line[start:end]`` of the line as shown (``visible(line)``): an escaped
    character is wider than one column, so the carets start after the escaped prefix and
    span the escaped text. ``start``/``end`` are 0-based; past the line's end counts one
    column per position (a finding just after the last character)."""
    lead = len(visible(line[:start])) + max(0, start - len(line))
    return " " * lead + "^" * max(1, len(visible(line[start:end])))


def _frame(finding: Finding, lines: _Lines, color: bool) -> List[str]:
    """``[gutter, numbered line, carets]`` for the finding's first row, ``[]`` when the row is not in ``lines``."""
    row = finding.location.row
    if not 1 <= row <= len(lines.lines):
        return []
    gutter = len(str(row)) + 1
    start = finding.location.column - 1
    end = finding.end_location.column - 1 if finding.end_location.row == row else lines.stripped_length(row)
    # clipped first (work per finding must not grow with the line), then one column per
    # character as the columns count: expandtabs(1) turns each tab into one space
    shown, start, end = clip(lines.lines[row - 1], start, end)
    line = shown.expandtabs(1)
    caret = _caret(line, start, end)
    if color:
        caret = click.style(caret, fg="red", bold=True)
    pad = " " * gutter
    return [f"{pad}|", f"{row:>{gutter - 1}} | {visible(line)}", f"{pad}| {caret}"]


def render(findings: List[Finding], report: Report) -> str:
    out = []
    split: Dict[str, _Lines] = {}  # display path -> its lines
    for f in findings:
        if f.filename not in split:
            split[f.filename] = _Lines(report.sources.get(f.filename, ""))
        code = click.style(f.code, fg="red", bold=True) if report.color else f.code
        where = f"{visible(f.filename)}:{f.location.row}:{f.location.column}"
        if report.color:
            where = click.style(where, bold=True)
        out.append(f"{where}: {code} {_marker(f, report.unsafe_fixes)}{visible(f.message)}")
        out.extend(_frame(f, split[f.filename], report.color))
        if f.fix is not None:
            kind = {Applicability.SAFE: "fix", Applicability.UNSAFE: "unsafe fix",
                    Applicability.DISPLAY_ONLY: "suggestion"}[f.fix.applicability]
            out.append(f"{' ' * (len(str(f.location.row)) + 1)}= help: {visible(f.fix.message)} ({kind})")
        out.append("")
    if report.summary:
        out.append(summary(findings, report.unsafe_fixes, report.fixed, report.known))
    return "\n".join(out) + "\n" if out else ""
