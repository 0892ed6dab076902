"""``gitlab``: a GitLab Code Quality report
(https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format).

A JSON array with one object per finding: ``description`` (code and message),
``check_name`` (the rule code), ``fingerprint``, ``severity`` (``major`` for
error rules, ``minor`` for warning rules) and ``location`` (``path``, project-relative,
and ``lines.begin``). The fingerprint contains no line number, so a finding keeps it
when lines above it are added or removed and GitLab does not report it as fixed and
new again; see :mod:`reslint.output.fingerprints`.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

from reslint.diagnostics import Finding
from reslint.output import Report
from reslint.output.fingerprints import fingerprints

SEVERITIES = {"error": "major", "warning": "minor"}


def issue(f: Finding, fingerprint: str) -> Dict[str, Any]:
    return {
        "description": f"{f.code} {f.message}",
        "check_name": f.code,
        "fingerprint": fingerprint,
        "severity": SEVERITIES.get(f.severity, "info"),
        "location": {"path": f.filename, "lines": {"begin": f.location.row, "end": f.end_location.row}},
    }


def render(findings: List[Finding], report: Report) -> str:
    issues = [issue(f, fp) for f, fp in zip(findings, fingerprints(findings, report.sources, report.fingerprints))]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
