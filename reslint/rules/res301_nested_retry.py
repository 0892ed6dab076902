"""RES301 nested-retry: retry layers that multiply across the call graph."""

from __future__ import annotations

from typing import Iterator, Tuple

from reslint.analysis.callgraph import UNBOUNDED_ATTEMPTS, UNKNOWN_ATTEMPTS
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
        hops = " → ".join(f"{hop.layer.label} ({_count(hop.layer.attempts)})" for hop in chain)
        outer = chain[0].layer.label
        inner = chain[-1].layer
        off = f" (turn it off with `{inner.off}`)" if inner.off else ""
        message = f"retry layers multiply: {hops}: {_load(nesting, outer)}; keep one retry layer: remove the " \
                  f"outer retry or the inner one{off}"
        related = tuple(Related(hop.path, Location(hop.layer.row, hop.layer.column),
                                f"{hop.layer.label}: {_count(hop.layer.attempts)} attempts ({hop.layer.library})")
                        for hop in chain)
        return self.finding(message, nesting.summary.path, Location(site.row, site.column),
                            Location(site.end_row, site.end_column), site.row, related)


def _count(attempts: int) -> str:
    """A layer's attempts as the message shows them."""
    if attempts == UNBOUNDED_ATTEMPTS:
        return "unbounded"
    return "unknown" if attempts == UNKNOWN_ATTEMPTS else str(attempts)


def _load(nesting, outer: str) -> str:
    """What the chain costs a failing dependency, with the numbers that are known."""
    product = nesting.product
    if product > 0:
        return f"up to {product} calls per {outer} call, so one failing dependency gets {product} times the load"
    known = nesting.known_product
    if product == UNBOUNDED_ATTEMPTS:
        endless = _listed(hop.layer.label for hop in nesting.chain if hop.layer.attempts == UNBOUNDED_ATTEMPTS)
        calls = f"up to {known} calls" if known > 1 else "its calls"
        return (f"{endless} retries without end, each attempt making {calls} to the innermost layer, so a failing "
                f"dependency gets them again and again until it recovers")
    unknown = _listed(hop.layer.label for hop in nesting.chain if hop.layer.attempts == UNKNOWN_ATTEMPTS)
    calls = f"up to {known} × the attempts of {unknown} (not known here) calls per {outer} call" if known > 1 else \
        f"as many calls per {outer} call as the attempts of {unknown} (not known here)"
    return f"{calls}, so a failing dependency gets that many times the load"


def _listed(labels) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(dict.fromkeys(labels))
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
