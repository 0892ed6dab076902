"""Findings as LSP values: diagnostics, quick fixes, ``# noqa`` actions, hovers (lsprotocol).

Everything here is a pure function of a buffer's outcome (:class:`~reslint.server.project.Checked`)
and the client's abilities (:class:`Client`); positions go through
:class:`~reslint.server.text.TextLines` in the negotiated encoding.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from lsprotocol import types
from pygls.uris import from_fs_path

from reslint.diagnostics import Applicability, Finding
from reslint.registry import BY_CODE, docs_url
from reslint.engine.results import decode
from reslint.server.project import Checked
from reslint.server.text import UTF16, TextLines, diff_edit
from reslint.engine.suppression import add_noqa

SOURCE = "reslint"
FIX_ALL = "source.fixAll.reslint"
FIX_ALL_TITLE = "reslint: Fix all auto-fixable problems"
#: codes that take no ``# noqa`` action: a file that does not parse has no comments to read,
#: and an unused suppression is removed, not suppressed (as ``reslint --add-noqa`` does)
NO_NOQA = frozenset({"RES000", "RES900"})


@dataclass
class Client:
    """What the client can take: the position ``encoding``; ``related``, ``code_description``
    and ``tags`` in diagnostics; ``versioned_edits`` (``documentChanges``)."""

    encoding: str = UTF16
    related: bool = True
    code_description: bool = True
    tags: bool = True
    versioned_edits: bool = False


def kind_matches(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether a code action of ``kind`` is wanted by a request's ``only`` filter (LSP: a kind
    matches its own name and every prefix ending at a dot; no filter wants everything)."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)


def rule_help(code: str) -> str:
    """Markdown about a rule for a hover: the page's "What it does" and "Why is this bad?"
    sections (from the rule book in the package, no network), and where the rest is."""
    from reslint.rulebook import page_text

    info = BY_CODE.get(code)
    if info is None:
        return ""
    page = page_text(code) or ""
    sections = []
    for title in ("What it does", "Why is this bad?"):
        match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL)
        if match:
            sections.append(f"**{title}**\n\n{match.group(1).strip()}")
    head = f"**{info.code}** `{info.name}` ({info.severity})"
    tail = f"The whole page: `reslint rule {info.code}`, or [{info.code}]({docs_url(info.code)})."
    return "\n\n".join([head, *sections, tail])


def result_id(diagnostics: List[types.Diagnostic]) -> str:
    """A short hash of diagnostics, the ``resultId`` of a pulled report."""
    text = json.dumps([(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
                        d.code, d.message) for d in diagnostics])
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def digest(text: str) -> str:
    """A short hash of a buffer's text (to tell, later, whether it is still the same)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


# -- positions -------------------------------------------------------------------------------------------------------
def position_of(lines: Optional[TextLines], row: int, column: int) -> types.Position:
    """The LSP position of reslint's 1-based ``row``/``column``; ``lines=None`` (a file that
    cannot be read): the code points as they are."""
    if lines is None:
        return types.Position(line=max(row - 1, 0), character=max(column - 1, 0))
    line, character = lines.at(row, column)
    return types.Position(line=line, character=character)


def position_at(lines: TextLines, offset: int) -> types.Position:
    line, character = lines.position(offset)
    return types.Position(line=line, character=character)


def finding_range(lines: TextLines, finding: Finding) -> types.Range:
    return types.Range(start=position_of(lines, finding.location.row, finding.location.column),
                       end=position_of(lines, finding.end_location.row, finding.end_location.column))


def span(lines: TextLines, finding: Finding) -> tuple:
    """A finding's (start, end) offsets in its buffer, end inclusive of the end position."""
    return (lines.offset_of(finding.location.row, finding.location.column),
            lines.offset_of(finding.end_location.row, finding.end_location.column))


# -- diagnostics -----------------------------------------------------------------------------------------------------
class Diagnostics:
    """Turns one buffer's findings into diagnostics. ``text_of(path)`` gives the text of
    another file a related location is in (an open buffer's, else ``None`` to read it)."""

    def __init__(self, client: Client, checked: Checked, text_of: Callable[[str], Optional[str]] = lambda p: None):
        self.client = client
        self.checked = checked
        self.lines = TextLines(checked.text, client.encoding)
        self._text_of = text_of
        self._others: Dict[str, Optional[TextLines]] = {}

    def all(self) -> List[types.Diagnostic]:
        return [self.diagnostic(finding) for finding in self.checked.findings]

    def diagnostic(self, finding: Finding) -> types.Diagnostic:
        client = self.client
        severity = types.DiagnosticSeverity.Error if finding.severity == "error" else types.DiagnosticSeverity.Warning
        return types.Diagnostic(
            range=finding_range(self.lines, finding),
            message=finding.message,
            severity=severity,
            code=finding.code,
            code_description=types.CodeDescription(href=docs_url(finding.code)) if client.code_description else None,
            source=SOURCE,
            related_information=self._related(finding) if client.related and finding.related else None,
            tags=[types.DiagnosticTag.Unnecessary] if client.tags and finding.code == "RES900" else None,
        )

    def _related(self, finding: Finding) -> List[types.DiagnosticRelatedInformation]:
        """The other places of a finding (the layers of a nested retry, the retry of a write)."""
        out = []
        for hop in finding.related:
            path = self.checked.path_of(hop.filename)
            lines = self.lines if path == self.checked.path else self._lines_of(path)
            at = position_of(lines, hop.location.row, hop.location.column)
            out.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=from_fs_path(path), range=types.Range(start=at, end=at)),
                message=hop.message))
        return out

    def _lines_of(self, path: str) -> Optional[TextLines]:
        if path not in self._others:
            text = self._text_of(path)
            if text is None:
                try:
                    text = decode(Path(path).read_bytes()).text
                except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
                    text = None
            self._others[path] = TextLines(text, self.client.encoding) if text is not None else None
        return self._others[path]


# -- code actions ----------------------------------------------------------------------------------------------------
def workspace_edit(client: Client, uri: str, version: Optional[int], edits: List[types.TextEdit]) -> types.WorkspaceEdit:
    """Edits of one buffer, tied to its ``version`` when the client takes ``documentChanges``."""
    if client.versioned_edits:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])
    return types.WorkspaceEdit(changes={uri: edits})


def replacement(lines: TextLines, new_text: str) -> Optional[types.TextEdit]:
    """The one text edit that turns the buffer into ``new_text`` (``None``: no change)."""
    change = diff_edit(lines.text, new_text)
    if change is None:
        return None
    start, end, content = change
    return types.TextEdit(range=types.Range(start=position_at(lines, start), end=position_at(lines, end)),
                          new_text=content)


def quick_fix(client: Client, uri: str, version: Optional[int], lines: TextLines, finding: Finding,
              diagnostic: types.Diagnostic) -> types.CodeAction:
    """A finding's fix as a quick fix; an unsafe one says so in its title and is not preferred."""
    fix = finding.fix
    unsafe = fix.applicability is Applicability.UNSAFE
    edits = [types.TextEdit(range=types.Range(start=position_at(lines, e.start), end=position_at(lines, e.end)),
                            new_text=e.content) for e in fix.edits]
    title = f"reslint ({finding.code}): {fix.message}" + (" (unsafe fix)" if unsafe else "")
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                            is_preferred=not unsafe, edit=workspace_edit(client, uri, version, edits))


def noqa_action(client: Client, uri: str, version: Optional[int], lines: TextLines, finding: Finding,
                diagnostic: types.Diagnostic) -> Optional[types.CodeAction]:
    """"Suppress RESnnn with ``# noqa: RESnnn``" on the finding's ``noqa_row`` (merged into a
    directive already there, as ``reslint --add-noqa`` writes it); ``None`` where no comment
    can go (a line ending inside a multi-line string, a backslash continuation)."""
    if finding.code in NO_NOQA:
        return None
    row = finding.noqa_row or finding.location.row
    edit = replacement(lines, add_noqa(lines.text, {row: {finding.code}}).text)
    if edit is None:
        return None
    return types.CodeAction(title=f"Suppress {finding.code} with `# noqa: {finding.code}`",
                            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                            edit=workspace_edit(client, uri, version, [edit]))


def hover_text(checked: Checked, lines: TextLines, offset: int) -> Optional[str]:
    """Markdown for the findings at ``offset``: each one's message and its rule's text."""
    parts = [f"{finding.message}\n\n{rule_help(finding.code)}" for finding in checked.findings
             if span(lines, finding)[0] <= offset <= span(lines, finding)[1]]
    return "\n\n---\n\n".join(parts) if parts else None
