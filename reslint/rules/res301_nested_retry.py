"""RES301 nested-retry: retry layers that multiply across the call graph."""

from __future__ import annotations

from typing import Iterator, Tuple

from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class NestedRetry(ProjectRule):
    code = "RES301"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        for nesting in graph.nestings():
            if len(nesting.chain) > settings.max_retry_layers:
                yield nesting.summary, self._finding(nesting)

    def _finding(self, nesting) -> Finding:
        site, chain = nesting.site, nesting.chain
        hops = " → ".join(f"{hop.layer.label} ({hop.layer.attempts})" for hop in chain)
        outer = chain[0].layer.label
        inner = chain[-1].layer
        off = f" (turn it off with `{inner.off}`)" if inner.off else ""
        message = (f"retry layers multiply: {hops}: up to {nesting.product} calls per {outer} call, so one "
                   f"failing dependency gets {nesting.product} times the load; keep one retry layer: remove the "
                   f"outer retry or the inner one{off}")
        related = tuple(Related(hop.path, Location(hop.layer.row, hop.layer.column),
                                f"{hop.layer.label}: {hop.layer.attempts} attempts ({hop.layer.library})")
                        for hop in chain)
        return self.finding(message, nesting.summary.path, Location(site.row, site.column),
                            Location(site.end_row, site.end_column), site.row, related)
