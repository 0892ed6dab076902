"""Positions in an editor buffer: reslint's code points, LSP's negotiated code units.

reslint counts in code points: findings have 1-based rows and columns, fix edits
0-based offsets into the decoded text. LSP counts ``character`` in UTF-16 code
units unless client and server agreed on ``utf-8`` or ``utf-32`` at
initialisation (LSP 3.17 ``positionEncoding``); lines are 0-based. Both split
lines at ``\\r\\n``, ``\\r`` and ``\\n`` only (not at the form feeds, ``\\x1c``-``\\x1e``,
``\\x85`` or U+2028 that :meth:`str.splitlines` also splits at).

No pygls here: positions are plain ``(line, character)`` tuples.
"""

from __future__ import annotations

import bisect
import re
from typing import List, Optional, Tuple

from reslint.engine.filepass import common_affixes

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)
_NEWLINE = re.compile(r"\r\n|\r|\n")

#: a position: (0-based line, character in the encoding's code units)
Position = Tuple[int, int]


def line_starts(text: str) -> List[int]:
    """Offsets (code points) where each line of ``text`` starts; always at least ``[0]``."""
    return [0] + [match.end() for match in _NEWLINE.finditer(text)]


def units(segment: str, encoding: str) -> int:
    """How many code units of ``encoding`` the string ``segment`` takes."""
    if encoding == UTF32 or segment.isascii():
        return len(segment)
    if encoding == UTF8:
        return len(segment.encode("utf-8", "surrogatepass"))
    return len(segment.encode("utf-16-le", "surrogatepass")) // 2


class TextLines:
    """One text's lines, to convert between code-point offsets and LSP positions.

    ``encoding`` is one of :data:`ENCODINGS` (anything else counts as UTF-16, LSP's
    default). Positions past the end of a line or of the text are clamped, as LSP
    asks ("if the character value is greater than the line length it defaults back
    to the line length").
    """

    def __init__(self, text: str, encoding: str = UTF16):
        self.text = text
        self.encoding = encoding if encoding in ENCODINGS else UTF16
        self.starts = line_starts(text)

    def line_end(self, line: int) -> int:
        """The offset where line ``line``'s content ends (before its line ending)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1]
            return end - (2 if self.text.startswith("\r\n", end - 2) else 1)
        return len(self.text)

    def position(self, offset: int) -> Position:
        """The LSP position of a code-point ``offset`` (0 <= offset <= len(text))."""
        offset = max(0, min(offset, len(self.text)))
        line = _bisect(self.starts, offset)
        start = self.starts[line]
        end = max(start, min(offset, self.line_end(line)))
        return line, units(self.text[start:end], self.encoding)

    def at(self, row: int, column: int) -> Position:
        """The LSP position of reslint's 1-based ``row`` and code-point ``column``."""
        return self.position(self.offset_of(row, column))

    def offset_of(self, row: int, column: int) -> int:
        """The offset of 1-based ``row``/``column`` (code points), clamped to the row's content."""
        line = max(0, min(row - 1, len(self.starts) - 1))
        start = self.starts[line]
        return min(start + max(column - 1, 0), self.line_end(line))

    def offset(self, position: Position) -> int:
        """The code-point offset of an LSP position (clamped to its line, and to the text)."""
        line, character = position
        if line >= len(self.starts):
            return len(self.text)
        start, end = self.starts[max(line, 0)], self.line_end(max(line, 0))
        content = self.text[start:end]
        if self.encoding == UTF32 or content.isascii():
            return start + max(0, min(character, len(content)))
        count = 0
        for index, char in enumerate(content):
            if count >= character:
                return start + index
            count += units(char, self.encoding)
        return end

    def row_column(self, position: Position) -> Tuple[int, int]:
        """reslint's 1-based (row, column) of an LSP position."""
        offset = self.offset(position)
        line = _bisect(self.starts, offset)
        return line + 1, offset - self.starts[line] + 1


def _bisect(starts: List[int], offset: int) -> int:
    """The index of the line holding ``offset`` (the last start <= offset)."""
    return max(0, bisect.bisect_right(starts, offset) - 1)


def diff_edit(old: str, new: str) -> Optional[Tuple[int, int, str]]:
    """The one replacement ``(start, end, text)`` (offsets into ``old``) that turns ``old``
    into ``new`` (the common prefix and suffix kept), or ``None`` when they are equal.

    The range never starts or ends between the ``\\r`` and ``\\n`` of a line ending, which
    has no LSP position.
    """
    if old == new:
        return None
    prefix, suffix = common_affixes(old, new)
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    end = len(old) - suffix
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n" and suffix > 0:
        suffix -= 1
        end += 1
    return prefix, end, new[prefix:len(new) - suffix]
