"""The base of project rules: rules that judge the whole project's call graph, not one file.

A per-file rule (:class:`reslint.rules.base.Rule`) visits one parsed module. A project rule
reads the :class:`reslint.analysis.callgraph.CallGraph` built from every module's summary and
yields its findings with the summary of the file each belongs to; the engine's project pass
applies suppressions, ignores and de-duplication. Project rules import no LibCST: the parent
process of a parallel run, which runs the project pass, never loads it.
"""

from __future__ import annotations

from typing import ClassVar, Iterator, Tuple

from reslint.diagnostics import Finding, Location, Related
from reslint.registry import BY_CODE


class ProjectRule:
    """Base class of project rules. Subclasses set ``code`` and define :meth:`check`."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[str] = "warning"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        info = BY_CODE[cls.code]  # identity comes from the registry, as for per-file rules
        cls.name, cls.severity = info.name, info.severity

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        """Yield ``(module summary of the file, finding)`` pairs. ``graph``: the project's
        :class:`~reslint.analysis.callgraph.CallGraph`; ``settings``: the run's
        :class:`~reslint.config.Settings`."""
        raise NotImplementedError

    def finding(self, message: str, path: str, start: Location, end: Location, noqa_row: int,
                related: Tuple[Related, ...] = ()) -> Finding:
        """A finding of this rule at ``start``..``end`` of ``path`` (rows 1-based, columns 0-based)."""
        return Finding(self.code, self.name, self.severity, message, path, start, end, noqa_row=noqa_row,
                       related=related)
