"""Suppression comments, read from the tokens of a file that has findings.

Forms (DESIGN section 3):

- ``# noqa: RES101`` or ``# reslint: ignore[RES101]`` at the end of the
  finding's line, or alone on the line above it;
- ``# reslint: noqa: RES101`` (or bare ``# reslint: noqa``) on its own line:
  the whole file;
- a bare ``# noqa`` counts only with ``allow-blanket-noqa = true``.

Codes of other tools in the same comment (``# noqa: E501, RES101``) are kept
and ignored here.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Optional, Set

_CODES = r"[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*"
NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_CODES}))?", re.IGNORECASE)
IGNORE = re.compile(r"#\s*reslint:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
FILE_NOQA = re.compile(rf"#\s*reslint:\s*noqa(?::\s*(?P<codes>{_CODES}))?\s*$", re.IGNORECASE)

#: ``None`` in a directive's codes means "every code" (a blanket directive).
ALL = None


@dataclass
class Directive:
    codes: Optional[FrozenSet[str]]
    own_line: bool


@dataclass
class Suppressions:
    """The directives of one file: per line, and for the whole file."""

    lines: Dict[int, Directive] = field(default_factory=dict)
    file_codes: Set[str] = field(default_factory=set)
    file_all: bool = False

    def suppresses(self, row: int, code: str, allow_blanket: bool) -> bool:
        if self.file_all or code in self.file_codes:
            return True
        for candidate, must_be_own_line in ((row, False), (row - 1, True)):
            directive = self.lines.get(candidate)
            if directive is None or (must_be_own_line and not directive.own_line):
                continue
            if directive.codes is ALL:
                if allow_blanket:
                    return True
            elif code in directive.codes:
                return True
        return False


def _split(codes: Optional[str]) -> Optional[FrozenSet[str]]:
    if codes is None:
        return ALL
    return frozenset(c.upper() for c in re.split(r"[\s,]+", codes.strip()) if c)


def _comments(text: str):
    """Yield ``(row, comment text, own line)`` for every comment."""
    lines = text.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                line = lines[row - 1] if row - 1 < len(lines) else ""
                yield row, tok.string, not line[:col].strip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return


def parse_suppressions(text: str) -> Suppressions:
    """Read every suppression directive of a source text."""
    result = Suppressions()
    for row, comment, own_line in _comments(text):
        file_match = FILE_NOQA.search(comment) if own_line else None
        if file_match:
            codes = _split(file_match.group("codes"))
            if codes is ALL:
                result.file_all = True
            else:
                result.file_codes.update(codes)
            continue
        match = IGNORE.search(comment)
        if match:
            result.lines[row] = Directive(_split(match.group("codes")) or frozenset(), own_line)
            continue
        match = NOQA.search(comment)
        if match:
            result.lines[row] = Directive(_split(match.group("codes")), own_line)
    return result
