"""Applying fixes: choose edits, relint until stable, verify, write atomically.

Per file: take the applicable fixes (safe; unsafe too with ``--unsafe-fixes``),
apply the non-overlapping ones, lint the result again and repeat, at most
:data:`MAX_ROUNDS` times (Ruff's relint loop). If any round produces code that
does not parse, every change to that file is reverted. Files are written
through a temporary file in the same directory and :func:`os.replace`, keeping
the encoding, BOM, line endings and mode, and only if the file on disk still
holds the bytes that were read.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from reslint.diagnostics import Applicability, Edit, Finding
from reslint.engine.filepass import Linter, apply_edits, parse_module
from reslint.engine.results import FileResult

MAX_ROUNDS = 10


@dataclass
class FixOutcome:
    """What fixing one file did. ``text`` is the fixed text (``None``: unchanged)."""

    applied: List[Finding] = field(default_factory=list)
    text: Optional[str] = None
    error: Optional[str] = None


def applicable(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    if fix is None or fix.applicability is Applicability.DISPLAY_ONLY:
        return False
    return fix.applicability is Applicability.SAFE or unsafe


def _choose(findings: List[Finding], unsafe: bool):
    """(the edits to apply, the findings they fix): each applicable fix in output order whose
    edits conflict with no edit already taken (:func:`_overlaps`)."""
    chosen: List[Edit] = []
    applied: List[Finding] = []
    taken = _Taken()
    for finding in sorted(findings, key=Finding.sort_key):
        if not applicable(finding, unsafe):
            continue
        edits = finding.fix.edits
        if any(taken.conflicts(e.start, e.end) for e in edits):
            continue
        for e in edits:
            taken.add(e.start, e.end)
        chosen.extend(edits)
        applied.append(finding)
    return chosen, applied


def _overlaps(a, b) -> bool:
    """Two edits conflict when their ranges intersect, when both insert at one point,
    or when one inserts strictly inside the other's range."""
    (s1, e1, _), (s2, e2, _) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return s1 < e2 and s2 < e1


class _Taken:
    """The edits taken so far, answering :func:`_overlaps` against all of them with a binary
    search (an insertion moves the sorted lists in C): comparing each fix with every taken
    edit made ``--fix`` on a file with 13,000 fixes quadratic (85 million comparisons).

    Insertions are kept as sorted points; replaced ranges as sorted, pairwise disjoint open
    intervals, ranges that overlap (the edits of one fix are not checked against each
    other) merged into one. Touching ranges stay apart: an insertion where one ends and the
    next starts is strictly inside neither. Offsets are 0-based character offsets."""

    def __init__(self):
        self.points: List[int] = []
        self.starts: List[int] = []
        self.ends: List[int] = []

    def conflicts(self, start: int, end: int) -> bool:
        """Whether an edit of ``[start, end)`` overlaps a taken one."""
        if start == end:
            i = bisect.bisect_left(self.points, start)
            if i < len(self.points) and self.points[i] == start:
                return True  # both insert at one point
            return self._range_around(start, start)
        i = bisect.bisect_right(self.points, start)
        if i < len(self.points) and self.points[i] < end:
            return True  # a taken insertion strictly inside
        return self._range_around(start, end)

    def _range_around(self, start: int, end: int) -> bool:
        """Whether a taken range ``(s, e)`` has ``s < end`` and ``start < e`` (for a point,
        ``start == end``: strictly inside). Being disjoint and sorted, the last range that
        starts before ``end`` has the largest end of those."""
        j = bisect.bisect_left(self.starts, end) - 1
        return j >= 0 and self.ends[j] > start

    def add(self, start: int, end: int) -> None:
        if start == end:
            bisect.insort(self.points, start)
            return
        lo = bisect.bisect_left(self.ends, start + 1)  # first range ending after start
        hi = bisect.bisect_left(self.starts, end)  # ranges from lo to hi - 1 start before end
        if lo < hi:
            start, end = min(start, self.starts[lo]), max(end, self.ends[hi - 1])
        self.starts[lo:hi] = [start]
        self.ends[lo:hi] = [end]


def fix_text(linter: Linter, text: str, display: str, unsafe: bool,
             findings: Optional[List[Finding]] = None) -> FixOutcome:
    """Fix decoded text in memory. Never raises for bad input; never returns unparseable text.

    ``findings`` (of ``text``, from a whole run) are used for the first round instead of
    linting again: they include what only the run knows, such as a RES900 verdict on a
    directive used by a project-pass finding. Later rounds lint the file alone.
    """
    outcome = FixOutcome()
    current = text
    for round_ in range(MAX_ROUNDS):
        if round_ == 0 and findings is not None:
            errors = []
        else:
            findings, errors = linter.lint_text(current, display)
        if errors:
            break
        edits, applied = _choose(findings, unsafe)
        if not edits:
            break
        candidate = apply_edits(current, edits)
        try:
            parse_module(candidate)
        except Exception as exc:  # noqa: BLE001 - revert everything, as Ruff does
            outcome.error = f"{display}: a fix produced invalid code ({type(exc).__name__}); reverted every fix " \
                            f"to this file; please report this bug"
            outcome.applied = []
            return outcome
        if candidate == current:
            break
        current = candidate
        outcome.applied.extend(applied)
    if current != text:
        outcome.text = current
    return outcome


def write_atomically(path: Path, text: str, encoding: str, expected_digest: str) -> Optional[str]:
    """Write ``text`` to ``path`` via a temporary file and rename; return an error message or ``None``.

    Refuses (and returns a message) when the file changed since it was read,
    so a concurrent edit is never overwritten. Keeps the file's mode. A symlink
    is written through: its target is replaced and the link stays a link.
    """
    # the rename replaces the target, not the link (as Ruff and Black do)
    target = os.path.realpath(path)
    try:
        current = path.read_bytes()
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError as exc:
        return f"{path}: cannot re-read before writing the fix: {exc.strerror or exc}"
    if hashlib.blake2b(current, digest_size=16).hexdigest() != expected_digest:
        return f"{path}: changed on disk since it was read; fixes not written"
    try:
        faithful = current.decode(encoding).encode(encoding) == current
    except (UnicodeError, LookupError):
        faithful = False
    if not faithful:  # e.g. unicode_escape: re-encoding would rewrite the whole file
        return f"{path}: the {encoding} codec does not give back this file byte for byte; fixes not written"
    data = text.encode(encoding)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".reslint-", suffix=".tmp", dir=os.path.dirname(target))
    except OSError as exc:
        return f"{path}: cannot write the fix: {exc.strerror or exc}"
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        # also on Ctrl-C: no temporary file is left in the user's source directory
        _remove_quietly(tmp)
        if not isinstance(exc, OSError):
            raise
        return f"{path}: cannot write the fix: {exc.strerror or exc}"
    return None


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def fix_file(linter: Linter, result: FileResult, unsafe: bool, write: bool) -> FixOutcome:
    """Fix one linted file; write it when ``write`` (else the caller shows a diff)."""
    source = result.source
    if source is None or not any(applicable(f, unsafe) for f in result.findings):
        return FixOutcome()
    outcome = fix_text(linter, source.text, result.display, unsafe,
                       None if result.internal_errors else result.findings)
    if outcome.text is not None and write:
        error = write_atomically(Path(result.path), outcome.text, source.encoding, source.digest)
        if error is not None:
            outcome.error, outcome.text, outcome.applied = error, None, []
    return outcome
