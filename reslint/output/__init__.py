"""Output formats, one module each. Every renderer takes the sorted findings and a
:class:`Report` and returns the text for stdout. Machine formats print nothing else.

This package must not import LibCST (``reslint --help`` imports :data:`FORMATS`);
renderers are imported lazily by :func:`renderer`.

The text returned is always valid Unicode: a file name that is not valid UTF-8
(legal on Linux) reaches the renderers with surrogate escapes, which no encoder
accepts, so :func:`renderer` replaces every lone surrogate with U+FFFD, as Ruff
shows such names. (SARIF URIs keep the exact bytes, percent-encoded.)

Checked files are not trusted: the human formats and ``github`` print every file-derived
text (paths, messages, lines of code) through :func:`reslint.output.terminal.visible`,
so escape codes and bidi controls are shown, not obeyed; the machine formats keep the
exact text and leave the escaping to their serializers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Callable, List, Mapping, Optional

from reslint.diagnostics import Finding


@dataclass
class Report:
    """Everything a renderer may need besides the findings."""

    sources: Mapping[str, str] = field(default_factory=dict)  # display path -> text (files with findings)
    color: bool = False
    unsafe_fixes: bool = False
    fixed: int = 0
    summary: bool = True  # the closing count and fix hints (human formats); off with -q
    root: Optional[Path] = None  # the project root display paths are relative to (default: the cwd)
    #: each finding's fingerprint, when the run computed them before leaving some findings out
    #: (a baseline, ``--diff-base``): the counter of a fingerprint counts the findings left out too
    fingerprints: Optional[Mapping[Finding, str]] = None
    known: int = 0  # findings a baseline left out (the human formats' summary says so)


Renderer = Callable[[List[Finding], Report], str]

#: Format name -> module in this package that defines ``render(findings, report)``.
_MODULES = {
    "full": "full",
    "concise": "concise",
    "json": "json_format",
    "json-lines": "json_lines",
    "github": "github",
    "gitlab": "gitlab",
    "junit": "junit",
    "sarif": "sarif",
    "rdjson": "rdjson",
}

#: Every output format name, in the order ``--help`` lists them.
FORMATS = tuple(_MODULES)


#: Lone surrogates: what ``os.fsdecode`` makes of bytes that are not UTF-8.
_SURROGATES = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so that it can be encoded."""
    return _SURROGATES.sub("\ufffd", text)


def renderer(name: str) -> Renderer:
    """The renderer for a format name (imported lazily). Raises ``ValueError`` for an unknown name.

    Its text is valid Unicode (see the module docstring).
    """
    module = _MODULES.get(name)
    if module is None:
        raise ValueError(f"unknown output format {name!r}")
    render = import_module(f"reslint.output.{module}").render

    def render_valid_text(findings: List[Finding], report: Report) -> str:
        return valid_text(render(findings, report))

    from reslint import profiling

    profile = profiling.ACTIVE
    return profile.timed("output", render_valid_text) if profile is not None else render_valid_text
