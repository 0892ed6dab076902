"""RES206 retry-after-ignored: a 429/503 retry that ignores Retry-After, or obeys it with no cap."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.analysis.loops import is_raise_for_status, own_nodes
from reslint.catalog import retries as cat
from reslint.diagnostics import Applicability
from reslint.model.policy import LoopFacts, RetriedKind, RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule

WHY = "a rate-limited or overloaded server says when to come back; retrying earlier is refused again and keeps " \
      "the overload going"
ADVICE = "wait for the server's Retry-After (capped), with jitter"


class RetryAfterIgnored(PolicyRule):
    code = "RES206"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        if policy.retries:
            super().check(policy)

    def check_library(self, policy: RetryPolicy) -> None:
        retried = policy.retried
        if retried.kind is RetriedKind.STATUS:
            self._status_retries(policy)
            return
        if policy.wait.reads_retry_after is not False:
            return
        aimed = 429 in retried.statuses or bool(set(retried.types) & cat.RATE_LIMIT_ERRORS)
        if aimed:
            self.report(policy.node, f"{policy.adapter.label} is aimed at rate limiting (429) but its wait never "
                                     f"reads `Retry-After`: {WHY}; {ADVICE}")
            return
        own = self._raised_on_429(policy)
        if own is not None:
            self.report(policy.node, f"{policy.adapter.label} retries `{own.rsplit('.', 1)[-1]}`, which the retried "
                                     f"code raises on a 429 response, but its wait never reads `Retry-After`: {WHY}; "
                                     f"carry the header's value in the error and {ADVICE}")

    def _raised_on_429(self, policy: RetryPolicy) -> Optional[str]:
        """The retried exception type that the retried code raises when a response says 429
        (``if r.status_code == 429: raise RateLimited()``, there or in a function of this module
        it calls), or ``None``."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None or policy.retried.kind not in (RetriedKind.TYPES, RetriedKind.FUNCTION):
            return None
        loops = self.ctx.retried.loops
        inner = self.ctx.opened_scope(scope.node, self.ctx.scope)
        return next((raised for raised in sorted(loops.rate_limit_errors(scope.node, inner))
                     if loops.catches(policy.retried.types, raised)), None)

    def _status_retries(self, policy: RetryPolicy) -> None:
        """A client policy that retries rate-limit statuses with its Retry-After switch turned off."""
        adapter = policy.adapter
        limited = policy.retried.statuses & cat.RATE_LIMIT_STATUSES
        if adapter.retry_after_switch is None or not limited or policy.wait.reads_retry_after is not False:
            return
        self.report(policy.node, f"{adapter.object_label} retries {sorted(limited)} with "
                                 f"`{adapter.retry_after_switch}=False`: {WHY}; "
                                 f"{adapter.advice(Remedy.RETRY_AFTER, policy)}",
                    fix=adapter.fix(Remedy.RETRY_AFTER, policy, FixContext(self.ctx)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        loops = self.ctx.retried.loops
        scope = self.ctx.scope
        for sleep in loop.sleeps:
            arg = sleep.args[0].value if sleep.args else None
            if arg is None:
                continue
            # the value that reaches the sleep, when one assignment on its way says it: not another
            # branch's (`wait = min(wait, cap)` after `wait = retry_after`)
            reaching = loops.reaching_value(arg, sleep, policy.node) if isinstance(arg, cst.Name) else None
            value = reaching if reaching is not None else arg
            reads = loops.reads_retry_after(value, scope)
            if reads and not loops.retry_after_capped(value, scope) and \
                    not loops.capped_before(policy.node, sleep, scope):
                self.report(sleep, "retry loop sleeps a server-sent `Retry-After` with no upper bound: a server (or "
                                   "a proxy) can say 3600 and hold this caller for an hour; wrap it in "
                                   "`min(value, MAX_WAIT_S)` and give up past your deadline")
            elif not reads and not _without_response(sleep, policy.node, self.ctx) and (
                    id(sleep) in loop.sleeps_after_rate_limit or
                    (loop.aimed_at_rate_limit and id(sleep) not in loop.sleeps_in_handlers)):
                self.report(sleep, f"retry loop handles 429 but sleeps its own delay, ignoring `Retry-After`: {WHY}; "
                                   f"sleep `min(Retry-After, cap)` plus jitter")


#: errors raised before any response exists: a wait after one has no Retry-After to read
_NO_RESPONSE_ERRORS = cat.CONNECTION_ERRORS | cat.READ_TIMEOUT_ERRORS | cat.TRANSIENT_ERROR_NAMES


def _without_response(sleep: cst.Call, loop, ctx) -> bool:
    """Whether ``sleep`` is in an ``except`` handler of the loop that catches only errors raised
    before a response exists (a connection error, a timeout), or broad HTTP errors around a try
    body that raises no status error (no ``raise_for_status()``): there is no Retry-After to read."""
    reader = ctx.retries.reader
    for node in own_nodes(getattr(loop, "body", loop)):
        if not isinstance(node, cst.Try):
            continue
        for handler in node.handlers:
            if handler.type is None or not any(n is sleep for n in own_nodes(handler.body)):
                continue
            types = reader.exception_types(handler.type, ctx.scope)
            if not types:
                return False
            if set(types) <= _NO_RESPONSE_ERRORS:
                return True
            return set(types) <= _NO_RESPONSE_ERRORS | cat.BROAD_HTTP_ERRORS and not any(
                is_raise_for_status(n) for n in own_nodes(node.body))
    return False
