"""``github``: workflow commands that GitHub Actions shows as annotations on the run and
on the pull request's changed files.

Syntax, per https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
("Setting an error message", "Setting a warning message")::

    ::error title=reslint (RES101),file=app.py,line=5,col=12,endLine=5,endColumn=29::RES101 message

Warning-severity rules use ``::warning``. ``col``/``endColumn`` are 1-based (``endColumn``
exclusive, as in the ``json`` format) and are written only for a finding on one line:
the runner drops both when ``line`` and ``endLine`` differ (``ValidateLinesAndColumns``
in actions/runner ``src/Runner.Worker/ActionCommandManager.cs``).

Escaping, as the runner unescapes (``ActionCommand.UnescapeData``/``UnescapeProperty``
in actions/runner ``src/Runner.Common/ActionCommand.cs``, mirrored by ``escapeData``/
``escapeProperty`` in actions/toolkit ``packages/core/src/command.ts``): the message
(data) escapes ``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``; property values escape
those and also ``:`` -> ``%3A`` and ``,`` -> ``%2C``. ``%`` is escaped first, so a
literal ``%0A`` in a message survives.

The runner decodes no other escape, so the remaining controls (ESC, BEL, U+009B, bidi
controls, ...) cannot reach it exactly; they would reach the log, which is rendered with
ANSI colours, and any terminal that shows this output. After the escaping above they are
written as :func:`reslint.output.terminal.visible` escapes (``\\x1b``), which contain no
``%``, ``:`` or ``,``. A path with such a character is then no longer the file's exact
name (GitHub may not place its annotation on the file); a newline in a path is ``%0A``, exact.
"""

from __future__ import annotations

from typing import List

from reslint.diagnostics import Finding
from reslint.output import Report
from reslint.output.terminal import visible


def escape_data(text: str) -> str:
    """Escape a command's data (the message after the second ``::``): the runner's escapes,
    then every other control character made visible (see the module docstring)."""
    return visible(_percent_data(text))


def escape_property(text: str) -> str:
    """Escape a property value (``title=``, ``file=``), as :func:`escape_data` does, with ``:`` and ``,`` too."""
    return visible(_percent_data(text).replace(":", "%3A").replace(",", "%2C"))


def _percent_data(text: str) -> str:
    """The runner's escapes of data: ``%`` first, so that a literal ``%0A`` survives."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command(f: Finding) -> str:
    """The workflow command line for one finding."""
    level = "error" if f.severity == "error" else "warning"
    props = [
        f"title={escape_property(f'reslint ({f.code})')}",
        f"file={escape_property(f.filename)}",
        f"line={f.location.row}",
    ]
    if f.end_location.row == f.location.row:
        props += [f"col={f.location.column}", f"endLine={f.end_location.row}", f"endColumn={f.end_location.column}"]
    else:
        props += [f"endLine={f.end_location.row}"]
    return f"::{level} {','.join(props)}::{escape_data(f'{f.code} {f.message}')}"


def render(findings: List[Finding], report: Report) -> str:
    return "".join(command(f) + "\n" for f in findings)
