"""RES206 retry-after-ignored: a 429/503 retry that ignores Retry-After, or obeys it with no cap."""

from __future__ import annotations


from reslint.analysis.retry import RetryPolicy
from reslint.catalog import retries as cat
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import remove_arg
from reslint.rules.retry_base import PolicyRule, library_name, retries

WHY = "a rate-limited or overloaded server says when to come back; retrying earlier is refused again and keeps " \
      "the overload going"


class RetryAfterIgnored(PolicyRule):
    code = "RES206"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        if not retries(policy):
            return
        if policy.kind == "loop":
            self._loop(policy)
            return
        retried = policy.retried
        if policy.library == "urllib3":
            if policy.respects_retry_after is False and (retried.statuses & cat.RATE_LIMIT_STATUSES):
                call = policy.call
                fixed = remove_arg(call, "respect_retry_after_header") if call is not None else None
                self.report(policy.node, f"urllib3 Retry retries {sorted(retried.statuses & cat.RATE_LIMIT_STATUSES)} "
                                         f"with `respect_retry_after_header=False`: {WHY}; keep the default (True)",
                            fix=FixPlan("Remove `respect_retry_after_header=False`", Applicability.SAFE,
                                        ((call, fixed),)) if fixed is not None else None)
            return
        aimed = 429 in retried.statuses or bool(set(retried.types) & cat.RATE_LIMIT_ERRORS)
        if aimed and policy.wait.reads_retry_after is False:
            self.report(policy.node, f"{library_name(policy)} is aimed at rate limiting (429) but its wait never "
                                     f"reads `Retry-After`: {WHY}; wait for the server's Retry-After (capped), with "
                                     f"jitter")

    def _loop(self, policy: RetryPolicy) -> None:
        aimed = policy.extra.get("aimed_at_rate_limit")
        for sleep in policy.extra.get("sleeps", ()):
            arg = sleep.args[0].value if sleep.args else None
            if arg is None:
                continue
            reads = self.ctx.retried.loops._reads_retry_after(arg, self.ctx.scope)
            if reads and not self.ctx.retried.loops.retry_after_capped(arg, self.ctx.scope):
                self.report(sleep, "retry loop sleeps a server-sent `Retry-After` with no upper bound: a server (or "
                                   "a proxy) can say 3600 and hold this caller for an hour; wrap it in "
                                   "`min(value, MAX_WAIT_S)` and give up past your deadline")
            elif aimed and not reads and id(sleep) not in policy.extra.get("sleeps_in_handlers", ()):
                self.report(sleep, f"retry loop handles 429 but sleeps its own delay, ignoring `Retry-After`: {WHY}; "
                                   f"sleep `min(Retry-After, cap)` plus jitter")
