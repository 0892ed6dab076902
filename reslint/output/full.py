"""``full`` (the default): location, code, message, a code frame with carets, the fix hint."""

from __future__ import annotations

from typing import List

import click

from reslint.diagnostics import Applicability, Finding
from reslint.output import Report
from reslint.output.concise import _marker
from reslint.output.summary import summary


def _frame(finding: Finding, text: str, color: bool) -> List[str]:
    lines = text.splitlines()
    row = finding.location.row
    if not 1 <= row <= len(lines):
        return []
    gutter = len(str(row)) + 1
    line = lines[row - 1].expandtabs(1)
    start = finding.location.column - 1
    end = finding.end_location.column - 1 if finding.end_location.row == row else len(line.rstrip())
    width = max(1, end - start)
    caret = " " * start + "^" * width
    if color:
        caret = click.style(caret, fg="red", bold=True)
    pad = " " * gutter
    return [f"{pad}|", f"{row:>{gutter - 1}} | {line}", f"{pad}| {caret}"]


def render(findings: List[Finding], report: Report) -> str:
    out = []
    for f in findings:
        code = click.style(f.code, fg="red", bold=True) if report.color else f.code
        where = click.style(f"{f.filename}:{f.location.row}:{f.location.column}", bold=True) if report.color else \
            f"{f.filename}:{f.location.row}:{f.location.column}"
        out.append(f"{where}: {code} {_marker(f, report.unsafe_fixes)}{f.message}")
        out.extend(_frame(f, report.sources.get(f.filename, ""), report.color))
        if f.fix is not None:
            kind = {Applicability.SAFE: "fix", Applicability.UNSAFE: "unsafe fix",
                    Applicability.DISPLAY_ONLY: "suggestion"}[f.fix.applicability]
            out.append(f"{' ' * (len(str(f.location.row)) + 1)}= help: {f.fix.message} ({kind})")
        out.append("")
    if report.summary:
        out.append(summary(findings, report.unsafe_fixes, report.fixed))
    return "\n".join(out) + "\n" if out else ""
