"""RES402 non-idempotent-retry: a write that a replay duplicates, retried with no stable key."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from reslint.analysis.facts import WRITE_FIX as FIX, WRITE_WHY as WHY
from reslint.analysis.idempotency import analysis
from reslint.catalog import idempotency as cat
from reslint.model.policy import RetriedKind
from reslint.rules.base import Rule




def message(kind: str, policy) -> Optional[str]:
    """The finding's message for a keyless ``kind`` write under ``policy``; ``None`` when the policy
    retries only errors raised before the request was sent."""
    types = set(policy.retried.types) if policy.retried.kind is RetriedKind.TYPES else set()
    if types and types <= cat.NOT_SENT_ERRORS:
        return None  # retried only when the request was never sent
    return f"{kind} runs inside {policy.adapter.write_label} with no idempotency key: {WHY}; {FIX}"


def deferred(idempotency, node: cst.Call, uses) -> List[Tuple[cst.Call, str]]:
    """A keyless write whose header/body dicts are built by functions of other modules: whether it
    sends a key is decided in the project pass (the module summary's ``pending_writes``)."""
    if uses:
        return []
    return idempotency.external_dict_calls(node)


class NonIdempotentRetry(Rule):
    code = "RES402"
    needs_retries = True

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.retry_scopes:
            return
        idempotency = analysis(self.ctx)
        kind = idempotency.write_kind(node)
        if kind is None:
            return
        uses = idempotency.keys(node)
        if uses:
            return  # a key is sent: stable (fine) or minted per attempt (RES401 reports that)
        if deferred(idempotency, node, uses):
            return  # the dict comes from another module: the project pass decides
        text = message(kind, self.ctx.retry_scopes[-1].policy)
        if text is not None:
            self.report(node, text)
