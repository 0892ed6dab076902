"""``concise``: ``path:line:col: CODE message`` per finding, then a count line.

The path and the message are printed through :func:`reslint.output.terminal.visible`:
a newline in either would otherwise forge a line of its own.
"""

from __future__ import annotations

from typing import List

from reslint.diagnostics import Applicability, Finding
from reslint.output import Report
from reslint.output.summary import summary
from reslint.output.terminal import visible


def _marker(finding: Finding, unsafe_fixes: bool) -> str:
    fix = finding.fix
    if fix is None:
        return ""
    if fix.applicability is Applicability.SAFE or (unsafe_fixes and fix.applicability is Applicability.UNSAFE):
        return "[*] "
    return ""


def render(findings: List[Finding], report: Report) -> str:
    lines = [
        f"{visible(f.filename)}:{f.location.row}:{f.location.column}: {f.code} {_marker(f, report.unsafe_fixes)}"
        f"{visible(f.message)}"
        for f in findings
    ]
    if report.summary:
        lines.append(summary(findings, report.unsafe_fixes, report.fixed, report.known))
    return "\n".join(lines) + "\n" if lines else ""
