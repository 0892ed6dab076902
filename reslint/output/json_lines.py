"""``json-lines``: one JSON object per line (https://jsonlines.org/), the same record as
the ``json`` format (:func:`reslint.output.json_format.record`); nothing for a clean run."""

from __future__ import annotations

import json
from typing import List

from reslint.diagnostics import Finding
from reslint.output import Report
from reslint.output.json_format import record


def render(findings: List[Finding], report: Report) -> str:
    # json.dumps escapes line breaks inside strings, so each record is exactly one line
    return "".join(json.dumps(record(f), ensure_ascii=False) + "\n" for f in findings)
