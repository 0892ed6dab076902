"""Output formats, one module each. Every renderer takes the sorted findings and a
:class:`Report` and returns the text for stdout. Machine formats print nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping

from reslint.diagnostics import Finding


@dataclass
class Report:
    """Everything a renderer may need besides the findings."""

    sources: Mapping[str, str] = field(default_factory=dict)  # display path -> text (files with findings)
    color: bool = False
    unsafe_fixes: bool = False
    fixed: int = 0
    summary: bool = True  # the closing count and fix hints (human formats); off with -q


Renderer = Callable[[List[Finding], Report], str]


def renderer(name: str) -> Renderer:
    """The renderer for a format name (imported lazily)."""
    if name == "full":
        from reslint.output.full import render
    elif name == "concise":
        from reslint.output.concise import render
    elif name == "json":
        from reslint.output.json_format import render
    elif name == "github":
        from reslint.output.github import render
    else:
        raise ValueError(f"unknown output format {name!r}")
    return render


FORMATS = ("full", "concise", "json", "github")
