"""``full`` (the default): location, code, message, a code frame with carets, the fix hint.

Every file-derived text (the path, the message, the line of code, the fix message) is
printed through :func:`reslint.output.terminal.visible`, before any colour is added.
"""

from __future__ import annotations

import re
from typing import Dict, List

import click

from reslint.diagnostics import Applicability, Finding
from reslint.output import Report
from reslint.output.concise import _marker
from reslint.output.summary import summary
from reslint.output.terminal import visible

#: the line endings Python's tokenizer and LibCST count rows by (``str.splitlines`` also
#: breaks at form feeds, U+001C-U+001E, U+0085, U+2028 and U+2029, which would show the wrong line)
_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> List[str]:
    """The lines of ``text`` without their endings, numbered as the findings' rows are."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the text ends with a line ending: no line after it
    return lines


def _caret(line: str, start: int, end: int) -> str:
    """Carets under ``line[start:end]`` of the line as shown (``visible(line)``): an escaped
    character is wider than one column, so the carets start after the escaped prefix and
    span the escaped text. ``start``/``end`` are 0-based; past the line's end counts one
    column per position (a finding just after the last character)."""
    lead = len(visible(line[:start])) + max(0, start - len(line))
    return " " * lead + "^" * max(1, len(visible(line[start:end])))


def _frame(finding: Finding, lines: List[str], color: bool) -> List[str]:
    """``[gutter, numbered line, carets]`` for the finding's first row, ``[]`` when the row is not in ``lines``."""
    row = finding.location.row
    if not 1 <= row <= len(lines):
        return []
    gutter = len(str(row)) + 1
    line = lines[row - 1].expandtabs(1)  # one column per character, as the columns count
    start = finding.location.column - 1
    end = finding.end_location.column - 1 if finding.end_location.row == row else len(line.rstrip())
    caret = _caret(line, start, end)
    if color:
        caret = click.style(caret, fg="red", bold=True)
    pad = " " * gutter
    return [f"{pad}|", f"{row:>{gutter - 1}} | {visible(line)}", f"{pad}| {caret}"]


def render(findings: List[Finding], report: Report) -> str:
    out = []
    split: Dict[str, List[str]] = {}
    for f in findings:
        if f.filename not in split:
            split[f.filename] = _lines(report.sources.get(f.filename, ""))
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
        out.append(summary(findings, report.unsafe_fixes, report.fixed))
    return "\n".join(out) + "\n" if out else ""
