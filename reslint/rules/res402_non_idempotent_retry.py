"""RES402 non-idempotent-retry: a write that a replay duplicates, retried with no stable key."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.idempotency import analysis, deferred_dict_calls, forwarded_write_message, \
    keyless_write_message, sdk_replay_message
from reslint.rules.base import Rule


class NonIdempotentRetry(Rule):
    code = "RES402"
    needs_retries = True

    def visit_Call(self, node: cst.Call) -> None:
        scopes = [s for s in self.ctx.retry_scopes if not s.poll]  # a poll's pass is a new request by design
        idempotency = analysis(self.ctx)
        passed = self.ctx.retried.passed_call(node) if self.ctx.retried is not None else None
        if passed is not None and not passed.scope.poll:  # a library's callable handed to a retry helper
            self._write(passed.call, node, idempotency, scopes + [passed.scope])
        if not scopes:
            replayed = idempotency.sdk_replayed_write(node)
            if replayed is not None:  # the client's own retries are the retry
                self.report(node, sdk_replay_message(*replayed))
            return
        self._write(node, node, idempotency, scopes)

    def _write(self, call: cst.Call, at: cst.Call, idempotency, scopes) -> None:
        """Report ``call``, retried by the innermost of ``scopes``, at ``at`` when it is a write with
        no idempotency key."""
        kind = idempotency.write_kind(call)
        if kind is None:
            self._forwarded(call, at, idempotency, scopes[-1].policy)
            return
        uses = idempotency.keys(call)
        if uses:
            return  # a key is sent: stable (fine) or minted per attempt (RES401 reports that)
        if deferred_dict_calls(idempotency, call, uses):
            return  # the dict comes from another module: the project pass decides
        text = keyless_write_message(kind, scopes[-1].policy)
        if text is not None:
            self.report(at, text)

    def _forwarded(self, node: cst.Call, at: cst.Call, idempotency, policy) -> None:
        """A retried request whose method the function's callers give (``self._request("POST",
        ...)``): one finding at the request (``at``), naming the writes that go through it."""
        writes = idempotency.forwarded_writes(node)
        text = forwarded_write_message(self.ctx.scope.name, writes, policy) if writes else None
        if text is not None:
            self.report(at, text)
