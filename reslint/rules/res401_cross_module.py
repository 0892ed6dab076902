"""RES401's cross-module half: a key minted by another module's helper that a retried write sends,
and a key minted for a write in a function (a method, a module function) that retried code calls.

The per-file half (:mod:`reslint.rules.res401_idempotency_key_in_retry`) sees keys minted in the
retried code itself; this one follows the call graph into helpers and reports at the minting call.
"""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class HelperMintedKey(ProjectRule):
    code = "RES401"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
        yield from self._minted_for_writes(graph)
        for summary in graph.summaries:
            for call in summary.key_calls:
                for helper, minted, path in graph.key_sources(call.callee, call.kind):
                    chain = " → ".join(f"`{name.rsplit('.', 1)[-1]}()`" for name in path)
                    message = (f"idempotency key minted by `{minted.name}()` in {chain}, which the retried code "
                               f"calls ({summary.path}:{call.row}): every attempt of the {call.write} sends a "
                               f"new key, so a replay after a timeout (when the first attempt did succeed) is "
                               f"not recognised and the write happens twice; mint the key once before the first "
                               f"attempt and pass it in, or derive it from stable business data")
                    related = (Related(summary.path, Location(call.row, call.column),
                                       f"the {call.write} in the retried code"),)
                    yield helper, self.finding(message, helper.path, Location(minted.row, minted.column),
                                               Location(minted.end_row, minted.end_column), minted.row, related)

    def _minted_for_writes(self, graph) -> Iterator[Tuple[object, Finding]]:
        """A function that mints a key and sends it in a write, called from retried code (a loop that
        calls ``self._send(order)``): every attempt mints a new key. One finding where it is minted,
        with each retried call that reaches it as a related location."""
        mints: Dict[Tuple[str, int, int], list] = {}
        for outer, summary, site, mint_summary, mint, path in graph.retried_keys():
            found = mints.setdefault((mint_summary.path, mint.row, mint.column), [mint_summary, mint, path, {}])
            found[3].setdefault((summary.path, site.row, site.column), outer)
        for mint_summary, mint, path, calls in mints.values():
            chain = " → ".join(f"`{name.rsplit('.', 1)[-1]}()`" for name in path)
            places = ", ".join(f"{file}:{row}" for file, row, _ in sorted(calls))
            message = (f"idempotency key minted by `{mint.name}()` in {chain}, which the retried code calls "
                       f"({places}): every attempt of the {mint.write} sends a new key, so a replay after a timeout "
                       f"(when the first attempt did succeed) is not recognised and the write happens twice; mint "
                       f"the key once before the first attempt and pass it in, or derive it from stable business "
                       f"data")
            related = tuple(Related(file, Location(row, column), f"the call in the {outer.retry}")
                            for (file, row, column), outer in sorted(calls.items(), key=lambda item: item[0]))
            yield mint_summary, self.finding(message, mint_summary.path, Location(mint.row, mint.column),
                                             Location(mint.end_row, mint.end_column), mint.row, related)
