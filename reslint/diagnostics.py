"""The plain data a lint run produces: findings, fixes, edits, applicability.

Everything here is a frozen dataclass of primitives so that it can cross process
boundaries and be cached; no LibCST node is ever stored in these types.
Rows and columns are 1-based (as in Ruff's JSON output); offsets are 0-based
character offsets into the decoded source text.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple


class Applicability(str, enum.Enum):
    """How safe a fix is to apply (Ruff's levels).

    - ``safe``: changes only what happens after an error was raised (adds jitter,
      a cap, narrows a retry); applied by ``--fix``.
    - ``unsafe``: can change the success path (a new timeout can fail a slow call
      that used to succeed); applied only with ``--unsafe-fixes``.
    - ``display-only``: shown, never applied.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based (row, column) position in a file."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two offsets (``start`` inclusive, ``end`` exclusive)."""

    start: int
    end: int
    content: str
    location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    """A set of non-overlapping edits that together repair one finding."""

    message: str
    applicability: Applicability
    edits: Tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """One hop of a chain shown with a finding (for example a nested retry)."""

    filename: str
    location: Location
    message: str


@dataclass(frozen=True)
class Finding:
    """One reported fault: rule code and name, where, why, and an optional fix.

    ``filename`` is the path as given to the engine; output formats make it
    project-relative. ``noqa_row`` is the row a ``# noqa`` comment must be on.
    """

    code: str
    name: str
    severity: str
    message: str
    filename: str
    location: Location
    end_location: Location
    fix: Optional[Fix] = None
    noqa_row: int = 0
    related: Tuple[Related, ...] = field(default_factory=tuple)

    def sort_key(self) -> tuple:
        return (self.filename, self.location.row, self.location.column, self.code)
