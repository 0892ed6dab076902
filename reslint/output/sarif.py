"""``sarif``: a SARIF 2.1.0 log (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).

One run. ``tool.driver.rules`` lists every rule this version implements, with the help
text of its rule page (``reslint rule CODE``) and the page's URL; each result points
at its rule by ``ruleId`` and ``ruleIndex``.

- **Locations**: the finding's project-relative ``/`` path as a relative URI with
  ``uriBaseId`` ``%SRCROOT%``; ``run.originalUriBaseIds`` maps ``%SRCROOT%`` to the
  project root as a ``file://`` URI ending in ``/``. A file outside the project root
  gets an absolute ``file://`` URI instead. Regions are 1-based; columns count Unicode
  code points (``run.columnKind``) and ``endColumn`` is exclusive, as in the ``json``
  format.
- **Fixes**: every fix of a finding, as ``fixes[].artifactChanges[].replacements``
  (``deletedRegion`` from the edit's location/end location, ``insertedContent.text``
  the new text; an insertion is an empty region). ``fixes[].properties.applicability``
  says whether reslint applies it with ``--fix`` (``safe``), only with
  ``--unsafe-fixes`` (``unsafe``) or never (``display-only``).
- **Fingerprints**: ``partialFingerprints["reslint/v1"]``, stable across runs and when
  lines move; see :mod:`reslint.output.fingerprints` for the recipe.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional
from urllib.parse import quote

from reslint import __version__, registry
from reslint.diagnostics import Finding, Fix, Location
from reslint.output import Report
from reslint.output.fingerprints import VERSION, fingerprints
from reslint.rulebook import page_text

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/reslint/reslint"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = f"reslint/v{VERSION}"
LEVELS = {"error": "error", "warning": "warning"}
#: GitHub code scanning shows at most this many characters of ``fullDescription.text``.
FULL_DESCRIPTION_LIMIT = 1000

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def _what_it_does(page: str) -> Optional[str]:
    """The first paragraph under ``## What it does`` (with the list it introduces, when it
    ends with a colon), as one line of text with Markdown links unwrapped."""
    match = re.search(r"^## What it does[ \t]*\n(.*?)(?=^#|\Z)", page, re.M | re.S)
    if not match:
        return None
    blocks = [b for b in re.split(r"\n[ \t]*\n", match.group(1).strip()) if b.strip()]
    if not blocks:
        return None
    text = blocks[0]
    for block in blocks[1:]:
        if not text.rstrip().endswith(":") or not re.match(r"\s*(?:[-*+]|\d+[.)])\s", block):
            break
        text += "\n" + block
    text = _LINK.sub(r"\1", " ".join(text.split()))
    if text.endswith(":"):  # it introduces a table or an example: end the sentence instead
        text = text[:-1] + "."
    if len(text) > FULL_DESCRIPTION_LIMIT:
        text = text[:FULL_DESCRIPTION_LIMIT - 1].rsplit(" ", 1)[0] + "\u2026"
    return text


def rule_descriptor(info: registry.RuleInfo) -> Dict[str, Any]:
    """The ``reportingDescriptor`` of one rule."""
    url = registry.docs_url(info.code)
    page = page_text(info.code)
    summary = info.summary.rstrip(".") + "."
    if page:
        full = _what_it_does(page) or summary
        help_ = {"text": page, "markdown": page}
    else:
        full = summary
        help_ = {"text": f"{summary} See {url}", "markdown": f"{summary} See [{info.code}]({url})."}
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": full},
        "help": help_,
        "helpUri": url,
        "defaultConfiguration": {"level": LEVELS.get(info.severity, "note")},
        "properties": {"tags": ["resilience"]},
    }


def _root_uri(root: Optional[Path]) -> str:
    uri = Path(os.path.abspath(root if root is not None else Path.cwd())).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _artifact(filename: str) -> Dict[str, str]:
    """The ``artifactLocation`` of a display path (project-relative unless outside the root)."""
    if os.path.isabs(filename) or filename == ".." or filename.startswith("../"):
        return {"uri": Path(os.path.abspath(filename)).as_uri()}
    # the bytes of the name, so that a name that is not UTF-8 is percent-encoded exactly
    return {"uri": quote(os.fsencode(filename), safe="/"), "uriBaseId": SRCROOT}


def _region(start: Location, end: Optional[Location] = None) -> Dict[str, int]:
    region = {"startLine": start.row, "startColumn": start.column}
    if end is not None:
        region.update(endLine=end.row, endColumn=end.column)
    return region


def _fix(fix: Fix, artifact: Dict[str, str]) -> Dict[str, Any]:
    return {
        "description": {"text": fix.message},
        "artifactChanges": [{
            "artifactLocation": dict(artifact),
            "replacements": [
                {"deletedRegion": _region(e.location, e.end_location), "insertedContent": {"text": e.content}}
                for e in fix.edits
            ],
        }],
        "properties": {"applicability": fix.applicability.value},
    }


def _result(f: Finding, index: Optional[int], fingerprint: str) -> Dict[str, Any]:
    artifact = _artifact(f.filename)
    result: Dict[str, Any] = {"ruleId": f.code}
    if index is not None:
        result["ruleIndex"] = index
    result.update({
        "level": LEVELS.get(f.severity, "note"),
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact,
                                            "region": _region(f.location, f.end_location)}}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    })
    if f.related:
        result["relatedLocations"] = [
            {"id": i, "message": {"text": r.message},
             "physicalLocation": {"artifactLocation": _artifact(r.filename), "region": _region(r.location)}}
            for i, r in enumerate(f.related, 1)
        ]
    if f.fix is not None and f.fix.edits:
        result["fixes"] = [_fix(f.fix, artifact)]
    return result


def sarif_log(findings: List[Finding], report: Report) -> Dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    rules = [info for info in registry.RULES if info.implemented]
    index = {info.code: i for i, info in enumerate(rules)}
    prints = fingerprints(findings, report.sources, report.fingerprints)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "reslint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(info) for info in rules],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(report.root)}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(f, index.get(f.code), fp) for f, fp in zip(findings, prints)],
        }],
    }


def render(findings: List[Finding], report: Report) -> str:
    return json.dumps(sarif_log(findings, report), indent=2, ensure_ascii=False) + "\n"
