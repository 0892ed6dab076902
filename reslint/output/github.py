"""``github``: workflow commands that GitHub Actions shows as pull-request annotations.

Syntax and escaping per
https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions#setting-an-error-message
(data: ``%``, CR, LF; property values additionally ``:`` and ``,``).
"""

from __future__ import annotations

from typing import List

from reslint.diagnostics import Finding
from reslint.output import Report


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: List[Finding], report: Report) -> str:
    lines = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        props = ",".join([
            f"title={escape_property(f'reslint ({f.code})')}",
            f"file={escape_property(f.filename)}",
            f"line={f.location.row}",
            f"col={f.location.column}",
            f"endLine={f.end_location.row}",
            f"endColumn={f.end_location.column}",
        ])
        lines.append(f"::{level} {props}::{escape_data(f'{f.code} {f.message}')}")
    return "\n".join(lines) + ("\n" if lines else "")
