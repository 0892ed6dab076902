"""RES402's cross-module half: writes retried from another module, and keyless writes whose
request dicts come from another module.

The per-file half (:mod:`reslint.rules.res402_non_idempotent_retry`) sees writes inside a
retried scope of the same file; this one follows the call graph.
"""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from reslint.analysis.facts import WRITE_FIX, WRITE_WHY
from reslint.catalog.idempotency import NAMED_TOOL_CALL, NOT_SENT_ERRORS
from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class RetriedWriteAcrossModules(ProjectRule):
    code = "RES402"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        yield from self._retried_writes(graph, settings)
        yield from self._pending_writes(graph)

    def _retried_writes(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        """One finding at each keyless write a retry reaches through calls, naming every retry that
        reaches it (each a related location): removing one of them leaves the write replayed. A tool
        call whose tool is a parameter of the function a retried caller calls is judged by the
        constant that caller passes: a read-only tool is no write, another is named."""
        writes: Dict[Tuple[str, int, int, str], list] = {}
        for outer, summary, site, path, outer_file, caller in graph.retried_writes():
            if set(outer.catches) and set(outer.catches) <= NOT_SENT_ERRORS:
                continue  # retried only when the request was never sent
            write = site.write
            tool = caller.passed(site.target_param) if len(path) == 1 else None
            if tool is not None:
                if settings.catalog.read_only_tool(tool):
                    continue
                write = NAMED_TOOL_CALL.format(tool=tool)
            key = (summary.path, site.row, site.column, write)
            callers = writes.setdefault(key, [summary, site, {}])[2]
            callers.setdefault((outer_file, outer.row, outer.column), (outer, path))
        for (_, _, _, write), (summary, site, callers) in writes.items():
            found = sorted(callers.items(), key=lambda item: item[0])
            retries = " and ".join(_retry(outer, path) for _, (outer, path) in found)
            message = (f"{write} in `{_name(found[0][1][1][-1])}()` runs under {retries} with no idempotency "
                       f"key: {WRITE_WHY}; {WRITE_FIX}")
            related = tuple(Related(outer_file, Location(row, column), f"{outer.label}: {outer.attempts} attempts")
                            for (outer_file, row, column), (outer, _) in found)
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


def _name(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _retry(outer, path: Tuple[str, ...]) -> str:
    """One retry that reaches a write: ``the notify retry (3 attempts, through notify → send_mail)``."""
    attempts = f"{outer.attempts} attempts" if outer.attempts > 0 else \
        "unbounded attempts" if outer.attempts == 0 else "retried"
    return f"the {outer.retry} ({attempts}, through {' → '.join(_name(name) for name in path)})"
