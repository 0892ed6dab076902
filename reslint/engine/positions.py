"""Source positions of LibCST nodes, rendered only where a finding needs them.

LibCST computes positions by rendering the whole module with a recording codegen
state (``PositionProvider``); on files with findings that rendering cost more than
parsing them. :class:`Positions` renders one *unit* at a time instead: a top-level
statement, or a member of a top-level class body (recursively for nested classes),
starting at the line the :mod:`ast` of the same text gives for it. Each unit's
rendering is checked against the file text, and any doubt (a node outside every
rendered unit, a unit whose rendering does not match) falls back to rendering the
whole module, so the ranges are always exactly those of ``PositionProvider``.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState  # public module, since LibCST 0.3

#: per statement of a body: (line of its first token, the same for its class body or None)
UnitLines = List[Tuple[int, Optional["UnitLines"]]]


def unit_lines(body: List[ast.stmt]) -> UnitLines:
    """The first-token line of each statement of an ``ast`` body (a decorated definition
    starts at its first decorator), with the lines of class bodies nested."""
    out: UnitLines = []
    for stmt in body:
        decorators = getattr(stmt, "decorator_list", None)
        first = decorators[0].lineno if decorators else stmt.lineno
        out.append((first, unit_lines(stmt.body) if isinstance(stmt, ast.ClassDef) else None))
    return out


class _Sink:
    """Where :class:`PositionProvidingCodegenState` records ranges (a provider's ``_computed``)."""

    def __init__(self):
        self._computed: Dict[cst.CSTNode, object] = {}


def _state(module: cst.Module, sink: _Sink, line: int = 1, indent: Tuple[str, ...] = ()):
    """A recording state; ``None`` when LibCST changed the state's fields (callers then use
    ``MetadataWrapper``, the public and slower way)."""
    try:
        return PositionProvidingCodegenState(default_indent=module.default_indent,
                                             default_newline=module.default_newline, provider=sink,
                                             indent_tokens=list(indent), line=line)
    except TypeError:
        return None


class Positions:
    """node -> ``CodeRange`` (1-based lines, 0-based columns, as ``PositionProvider``), computed
    per unit on demand.

    ``lines``: :func:`unit_lines` of the same text's ``ast`` (``None``: render the whole
    module at the first lookup); ``starts``: the offset of each line of ``text``.
    """

    def __init__(self, module: cst.Module, text: str, starts: List[int], lines: Optional[UnitLines]):
        self.module, self.text, self.starts = module, text, starts
        self._sink = _Sink()
        self._whole = False
        #: id(unit statement) -> (statement, first-token line, indent tokens), unrendered units only
        self._units: Dict[int, Tuple[cst.CSTNode, int, Tuple[str, ...]]] = {}
        if lines is None or not self._index(module.body, lines, ()):
            self._units.clear()

    def _index(self, body, lines: UnitLines, indent: Tuple[str, ...]) -> bool:
        """Pair LibCST statements with ``ast`` lines (a ``a; b`` line is one LibCST statement
        and two ``ast`` ones); ``False`` when they do not pair up."""
        k = 0
        for stmt in body:
            if k >= len(lines):
                return False
            first, nested = lines[k]
            k += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock) and nested is not None:
                inner = indent + (stmt.body.indent if stmt.body.indent is not None else self.module.default_indent,)
                if not self._index(stmt.body.body, nested, inner):
                    return False
            self._units[id(stmt)] = (stmt, first, indent)
        return k == len(lines)

    def cover(self, units: Iterable[Optional[cst.CSTNode]]) -> None:
        """Render these units (statements the walk recorded as ``Context.unit``)."""
        for unit in units:
            if unit is not None and not self._whole and id(unit) in self._units:
                self._render(*self._units.pop(id(unit)))

    def get(self, node: cst.CSTNode, default=None):
        found = self._sink._computed.get(node)
        if found is None and not self._whole:
            unit = self._units.pop(id(node), None)
            if unit is not None:
                self._render(*unit)
            else:
                self._render_module()
            found = self._sink._computed.get(node)
        return default if found is None else found

    def __getitem__(self, node: cst.CSTNode):
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def _render(self, stmt: cst.CSTNode, first: int, indent: Tuple[str, ...]) -> None:
        self._drop_members(stmt)  # a class is rendered whole: its members are covered
        lead = len(getattr(stmt, "leading_lines", ()))
        decorators = getattr(stmt, "decorators", ())
        if decorators:
            lead += len(decorators[0].leading_lines)
        line = first - lead
        sink = _Sink()
        state = _state(self.module, sink, line, indent) if 1 <= line <= len(self.starts) else None
        if state is None:
            self._render_module()
            return
        stmt._codegen(state)
        if not self.text.startswith("".join(state.tokens), self.starts[line - 1]):
            self._render_module()  # the ast and LibCST disagree on where it is: trust one rendering
            return
        computed = self._sink._computed
        for node, span in sink._computed.items():
            computed.setdefault(node, span)

    def _drop_members(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            for member in stmt.body.body:
                self._units.pop(id(member), None)
                self._drop_members(member)

    def _render_module(self) -> None:
        if self._whole:
            return
        self._whole = True
        self._units.clear()
        state = _state(self.module, self._sink)
        if state is None:
            self._sink._computed.update(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
            return
        self.module._codegen(state)
