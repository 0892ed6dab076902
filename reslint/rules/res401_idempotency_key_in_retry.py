"""RES401 idempotency-key-in-retry: a key minted inside the retried code is new on every attempt."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.idempotency import analysis
from reslint.rules.base import Rule
from reslint.rules.retry_base import RETRY_TRIGGERS


class IdempotencyKeyInRetry(Rule):
    code = "RES401"
    needs_retries = True
    #: a key minted per attempt needs a retry (or an SDK that retries): a key generator alone is no trigger
    triggers = RETRY_TRIGGERS + ("stripe", "boto3")

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        self._seen = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.retry_scopes:
            return
        idempotency = analysis(self.ctx)
        kind = idempotency.write_kind(node)
        if kind is None:
            return
        scope = self.ctx.retry_scopes[-1]
        for key, key_scope, helper in idempotency.keys(node):
            for minted, via in idempotency.fresh_keys(key, scope, key_scope, via=helper):
                if id(minted) in self._seen:
                    continue
                self._seen.add(id(minted))
                name = self.ctx.qualname(minted.func) or "this call"
                where = f"in `{via}()`, which the retried code calls" if via else "inside the retried code"
                self.report(minted, f"idempotency key minted by `{name}()` {where}: every attempt "
                                    f"of the {kind} sends a new key, so a replay after a timeout (when the first "
                                    f"attempt did succeed) is not recognised and the write happens twice; mint the "
                                    f"key once before the first attempt and pass it in, or derive it from stable "
                                    f"business data")
