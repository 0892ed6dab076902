"""``rdjson``: reviewdog's Diagnostic Format, a ``DiagnosticResult`` object
(https://github.com/reviewdog/reviewdog/tree/master/proto/rdf), for
``reviewdog -f=rdjson``.

Each finding is a diagnostic with its ``message``, ``location`` (the project-relative
``path`` and a ``range`` whose end is exclusive), ``severity`` (``ERROR`` or
``WARNING``), ``code`` (the rule code and its page) and ``related_locations`` (the other
end of a call chain). reviewdog counts columns in UTF-8 bytes, so each column is
converted from reslint's characters with the text of the file.

A fix becomes a ``suggestion`` that replaces the finding's own lines (a line-wise range,
so reviewdog's GitHub reporter shows it as a suggested change: it needs a suggestion to
cover exactly the lines of the comment). A fix that also edits other lines (an import
added at the top) is left out, as is a display-only fix; safe and unsafe fixes are both
suggested, since a reviewer applies a suggestion by hand.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

from reslint.diagnostics import Applicability, Finding, Fix, Location
from reslint.output import Report
from reslint.registry import docs_url

SOURCE = {"name": "reslint", "url": "https://github.com/reslint/reslint"}
SEVERITIES = {"error": "ERROR", "warning": "WARNING"}
#: a line and its ending, split where Python counts lines (as reslint's rows)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class _Text:
    """One file's text: its lines (with their endings) and where each starts."""

    def __init__(self, text: str):
        self.text = text
        self.lines = _LINE.findall(text)
        self.starts: List[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line)

    def line(self, row: int) -> Optional[str]:
        return self.lines[row - 1] if 1 <= row <= len(self.lines) else None

    def column(self, location: Location) -> int:
        """The 1-based UTF-8 byte column of a 1-based character column."""
        line = self.line(location.row)
        if line is None:
            return location.column
        return len(line[:location.column - 1].encode("utf-8", "surrogatepass")) + 1

    def body_end(self, row: int) -> int:
        """The offset where line ``row``'s ending starts."""
        line = self.lines[row - 1]
        return self.starts[row - 1] + len(line.rstrip("\r\n"))


def _position(location: Location, text: Optional[_Text]) -> Dict[str, int]:
    return {"line": location.row, "column": text.column(location) if text else location.column}


def _last_row(f: Finding) -> int:
    """The last line of a finding (an end at column 1 of a later line does not reach into it)."""
    end = f.end_location
    return end.row - 1 if end.row > f.location.row and end.column == 1 else end.row


def _suggestion(f: Finding, fix: Fix, text: Optional[_Text]) -> Optional[Dict[str, Any]]:
    """``fix`` as a line-wise suggestion over the finding's lines; ``None`` when it edits other lines."""
    if text is None or fix.applicability is Applicability.DISPLAY_ONLY or not fix.edits:
        return None
    first, last = f.location.row, _last_row(f)
    if text.line(first) is None or text.line(last) is None:
        return None
    start, end = text.starts[first - 1], text.body_end(last)
    edits = sorted(fix.edits, key=lambda e: (e.start, e.end))
    if edits[0].start < start or any(e.end > end for e in edits):
        return None
    out, at = [], start
    for edit in edits:
        if edit.start < at:
            return None  # overlapping edits: not one replacement
        out.append(text.text[at:edit.start])
        out.append(edit.content)
        at = edit.end
    out.append(text.text[at:end])
    return {"range": {"start": {"line": first}, "end": {"line": last}}, "text": "".join(out)}


def diagnostic(f: Finding, texts: Dict[str, Optional[_Text]]) -> Dict[str, Any]:
    text = texts.get(f.filename)
    out: Dict[str, Any] = {
        "message": f.message,
        "location": {"path": f.filename,
                     "range": {"start": _position(f.location, text), "end": _position(f.end_location, text)}},
        "severity": SEVERITIES.get(f.severity, "INFO"),
        "source": SOURCE,
        "code": {"value": f.code, "url": docs_url(f.code)},
    }
    suggestion = _suggestion(f, f.fix, text) if f.fix is not None else None
    if suggestion is not None:
        out["suggestions"] = [suggestion]
    if f.related:
        out["related_locations"] = [
            {"message": r.message,
             "location": {"path": r.filename, "range": {"start": _position(r.location, texts.get(r.filename))}}}
            for r in f.related
        ]
    return out


def render(findings: List[Finding], report: Report) -> str:
    texts: Dict[str, Optional[_Text]] = {}
    wanted: List[Tuple[str, ...]] = [(f.filename, *(r.filename for r in f.related)) for f in findings]
    for names in wanted:
        for name in names:
            if name not in texts:
                source = report.sources.get(name)
                texts[name] = _Text(source) if source is not None else None
    result = {"source": SOURCE, "diagnostics": [diagnostic(f, texts) for f in findings]}
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"
