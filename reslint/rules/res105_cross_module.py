"""RES105's cross-module half: a function given a time budget calls a helper of another module that
calls downstream with a fixed timeout.

The per-file half (:mod:`reslint.rules.res105_deadline_not_propagated`) follows helpers of the same
module; it records what it cannot follow (:class:`reslint.analysis.facts.BudgetCall`), and this rule
follows those calls through the call graph to a constant-timeout call
(:meth:`reslint.analysis.callgraph.CallGraph.fixed_timeout_below`). Reported at the call that leaves
the function, with the constant-timeout call as the related location.
"""

from __future__ import annotations

from typing import Iterator, Tuple

from reslint.analysis.facts import DEADLINE_WHY as WHY
from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class DeadlineAcrossModules(ProjectRule):
    code = "RES105"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        for summary in graph.summaries:
            for call in summary.budget_calls:
                target = graph.resolve(call.callee)
                if target is None or target == call.function:
                    continue
                found = graph.fixed_timeout_below(target)
                if found is None:
                    continue
                names, fixed_summary, fixed = found
                path = " → ".join(f"`{name.rsplit('.', 1)[-1]}`" for name in names)
                where = f" (in `{fixed_summary.path}`)" if fixed_summary.path != summary.path else ""
                message = (f"`{call.function.rsplit('.', 1)[-1]}` is given {call.budget} but calls {path}{where}, "
                           f"which calls `{fixed.call}` with a fixed `{fixed.argument}`: {WHY}; pass the budget down "
                           f"and bound that call by it")
                related = (Related(fixed_summary.path, Location(fixed.row, fixed.column),
                                   f"`{fixed.call}` with a fixed `{fixed.argument}`"),)
                yield summary, self.finding(message, summary.path, Location(call.row, call.column),
                                            Location(call.end_row, call.end_column), call.row, related)
