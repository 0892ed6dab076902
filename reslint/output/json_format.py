"""``json``: an array of Ruff-shaped records (DESIGN section 3), 1-based rows and columns."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from reslint.diagnostics import Finding, Location
from reslint.output import Report
from reslint.registry import docs_url


def _loc(location: Location) -> Dict[str, int]:
    return {"row": location.row, "column": location.column}


def record(f: Finding) -> Dict[str, Any]:
    """One finding as a JSON-ready dict with the documented field names."""
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.applicability.value,
            "message": f.fix.message,
            "edits": [
                {"content": e.content, "location": _loc(e.location), "end_location": _loc(e.end_location)}
                for e in f.fix.edits
            ],
        }
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity,
        "message": f.message,
        "filename": f.filename,
        "location": _loc(f.location),
        "end_location": _loc(f.end_location),
        "fix": fix,
        "noqa_row": f.noqa_row,
        "url": docs_url(f.code),
        "related": [
            {"filename": r.filename, "location": _loc(r.location), "message": r.message} for r in f.related
        ],
    }


def render(findings: List[Finding], report: Report) -> str:
    return json.dumps([record(f) for f in findings], indent=2, ensure_ascii=False) + "\n"
