"""RES401's cross-module half: a key minted by another module's helper that a retried write sends.

The per-file half (:mod:`reslint.rules.res401_idempotency_key_in_retry`) sees keys minted in the
retried code itself; this one follows the call graph into helpers and reports at the minting call.
"""

from __future__ import annotations

from typing import Iterator, Tuple

from reslint.diagnostics import Finding, Location, Related
from reslint.rules.project_base import ProjectRule


class HelperMintedKey(ProjectRule):
    code = "RES401"

    def check(self, graph, settings) -> Iterator[Tuple[object, Finding]]:
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
