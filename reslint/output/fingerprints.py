"""Fingerprints that identify a finding across runs, for tools that track findings over
time (SARIF ``partialFingerprints``, the GitLab Code Quality ``fingerprint``).

A fingerprint is the SHA-256 (hex, first 32 digits) of, joined by NUL characters:

1. the rule code;
2. the finding's project-relative path;
3. the text of the line the finding starts on, stripped, with every run of whitespace
   collapsed to one space (so re-indenting or re-spacing the line does not change it);
4. an occurrence counter: 0 for the first finding with the same code, path and line
   text, 1 for the second, ... in output order (path, line, column, code).

Neither the line number nor the column is part of it, so lines inserted or removed
above a finding keep its fingerprint; the message is not part of it either, so a
reworded message in a new reslint version keeps it too. Editing the reported line
itself, or renaming the file, gives the finding a new fingerprint. When the source
text is not available (an unreadable file) the line text is empty.
"""

from __future__ import annotations

import hashlib
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from reslint.diagnostics import Finding

#: Bumped when the recipe above changes, so old and new fingerprints are never compared.
VERSION = 1


def line_text(lines: Sequence[str], row: int) -> str:
    """Line ``row`` (1-based) of ``lines``, whitespace-normalised; empty when out of range."""
    if 1 <= row <= len(lines):
        return " ".join(lines[row - 1].split())
    return ""


def fingerprints(findings: Sequence[Finding], sources: Mapping[str, str],
                 known: Optional[Mapping[Finding, str]] = None) -> List[str]:
    """One fingerprint per finding, in the order given (the sorted output order).

    ``known``: the fingerprints computed over all of a run's findings, before a baseline or
    ``--diff-base`` left some out; they are used as they are, since the occurrence counter
    counts the findings left out too."""
    if known is not None:
        return [known[f] for f in findings]
    split: Dict[str, List[str]] = {}
    #: (path, row) -> the normalised line: once per line, not per finding (a one-line file
    #: with thousands of findings normalised its megabyte line thousands of times)
    normalised: Dict[Tuple[str, int], str] = {}
    seen: Dict[Tuple[str, str, str], int] = {}
    out = []
    for f in findings:
        if f.filename not in split:
            split[f.filename] = sources.get(f.filename, "").splitlines()
        where = (f.filename, f.location.row)
        if where not in normalised:
            normalised[where] = line_text(split[f.filename], f.location.row)
        text = normalised[where]
        key = (f.code, f.filename, text)
        counter = seen.get(key, 0)
        seen[key] = counter + 1
        digest = hashlib.sha256("\0".join((f.code, f.filename, text, str(counter))).encode("utf-8", "surrogatepass"))
        out.append(digest.hexdigest()[:32])
    return out
