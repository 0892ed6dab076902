"""The rule book: one Markdown page per rule (``rules/RES101-missing-timeout.md``).

Pages ship in the wheel as ``reslint/rulebook/``; in a source checkout they are
read from the top-level ``rules/`` folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional


def rulebook_dir() -> Optional[Path]:
    here = Path(__file__).resolve().parent
    for candidate in (here / "rulebook", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    return None


def pages() -> Dict[str, Path]:
    """Rule code -> page path, for every page found."""
    directory = rulebook_dir()
    if directory is None:
        return {}
    return {p.name.split("-", 1)[0]: p for p in sorted(directory.glob("RES[0-9][0-9][0-9]-*.md"))}


def page_text(code: str) -> Optional[str]:
    path = pages().get(code)
    return path.read_text(encoding="utf-8") if path else None
