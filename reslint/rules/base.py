"""The rule base class: a batchable LibCST visitor that reports findings.

A rule is a small class with its code (name, severity and summary come from
:mod:`reslint.registry`) and ``visit_*`` methods that call :meth:`Rule.report`.
The engine runs every enabled rule in one read-only traversal
(:mod:`reslint.semantics.walk`) and keeps ``self.ctx`` (the :class:`reslint.semantics.context.Context`)
current; rules never track scopes themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, List, Optional, Tuple

import libcst as cst

from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan  # noqa: F401 (rules import it from here)
from reslint.registry import BY_CODE


@dataclass
class Report:
    """A finding before positions are known (the node is resolved only if needed)."""

    rule: "Rule"
    node: cst.CSTNode
    message: str
    fix: Optional[FixPlan] = None
    statement: Optional[cst.CSTNode] = None
    #: the statement whose rendering holds ``node`` (``Context.unit``), for its position
    unit: Optional[cst.CSTNode] = None


class Rule:
    """Base class of every rule. Subclasses set ``code`` and define ``visit_<NodeType>``/
    ``leave_<NodeType>`` methods, as in LibCST; see :mod:`reslint.semantics.walk`. Which files a rule
    sees (the text prefilter's entries) is data: :mod:`reslint.catalog.triggers`."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"
    summary: ClassVar[str] = ""
    #: whether the rule reads retry policies and retried scopes (built only if some rule does)
    needs_retries: ClassVar[bool] = False
    #: the highest applicability any fix of this rule has (None: no fix)
    fix_applicability: ClassVar[Optional[Applicability]] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.code:
            return  # an abstract base such as PolicyRule
        info = BY_CODE[cls.code]  # identity comes from the registry: one place for codes and names
        cls.name, cls.severity, cls.summary = info.name, info.severity, info.summary

    def __init__(self, ctx, reports: List[Report]):
        self.ctx = ctx
        self._reports = reports

    @property
    def settings(self):
        return self.ctx.settings

    def report(self, node: cst.CSTNode, message: str, fix: Optional[FixPlan] = None,
               where: Optional[Tuple[Optional[cst.CSTNode], Optional[cst.CSTNode]]] = None) -> None:
        """Report a finding at ``node`` with a message that says what, why and what to do.

        ``where``: (statement, unit) as :attr:`Context.statement` and :attr:`Context.unit` were
        when the node was seen, for a rule that reports later (from ``leave_Module``, where
        there is no statement: the fix's edit then had to be computed by rendering the whole
        module, once per finding)."""
        statement, unit = where if where is not None else (self.ctx.statement, self.ctx.unit)
        self._reports.append(Report(self, node, message, fix, statement, unit))


