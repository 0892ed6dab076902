"""RES402's cross-module half: writes retried from another module, and keyless writes whose
request dicts come from another module.

The per-file half (:mod:`reslint.rules.res402_non_idempotent_retry`) sees writes inside a
retried scope of the same file; this one follows the call graph.
"""

from __future__ import annotations

from typing import Iterator, Tuple

from reslint.analysis.facts import WRITE_FIX, WRITE_WHY
from reslint.catalog.idempotency import NOT_SENT_ERRORS
from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class RetriedWriteAcrossModules(ProjectRule):
    code = "RES402"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        yield from self._retried_writes(graph)
        yield from self._pending_writes(graph)

    def _retried_writes(self, graph) -> Iterator[Tuple[object, Finding]]:
        for outer, summary, site, path, outer_file in graph.retried_writes():
            if set(outer.catches) and set(outer.catches) <= NOT_SENT_ERRORS:
                continue  # retried only when the request was never sent
            chain = " → ".join(name.rsplit(".", 1)[-1] for name in path)
            attempts = f"{outer.attempts} attempts" if outer.attempts > 0 else \
                "unbounded attempts" if outer.attempts == 0 else "retried"
            message = (f"{site.write} in `{path[-1].rsplit('.', 1)[-1]}()` runs under the {outer.label} retry "
                       f"({attempts}, through {chain}) with no idempotency key: {WRITE_WHY}; {WRITE_FIX}")
            related = (Related(outer_file, Location(outer.row, outer.column),
                               f"{outer.label}: {outer.attempts} attempts"),)
            yield summary, self.finding(message, summary.path, Location(site.row, site.column),
                                        Location(site.end_row, site.end_column), site.row, related)

    def _pending_writes(self, graph) -> Iterator[Tuple[object, Finding]]:
        """Keyless writes the per-file pass left to the project pass: their dicts come from calls
        into other modules, which may return a key."""
        for summary in graph.summaries:
            for write in summary.pending_writes:
                if any(graph.returns_key_dict(callee) for callee in write.callees):
                    continue
                yield summary, self.finding(write.message, summary.path, Location(write.row, write.column),
                                            Location(write.end_row, write.end_column), write.row)
