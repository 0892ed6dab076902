"""RES203 unbounded-retry: neither an attempt cap nor a time cap."""

from __future__ import annotations

from reslint.diagnostics import Applicability
from reslint.model.policy import RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule

WHY = "when the dependency stays down it retries forever, holding the caller and adding load to the outage"
ADVICE = "add an attempt cap and a time cap"
#: a task queue's task that retries forever holds no caller: it is queued again and again
QUEUED_WHY = "when the dependency stays down the task is queued again forever, adding load to the outage and " \
             "never reporting its failure"


#: a poll that never gives up: the same fault, said of a wait for a condition
POLL_WHY = "when the condition never holds (the job failed, the resource never appears) it waits forever, " \
           "holding the caller"


class UnboundedRetry(PolicyRule):
    code = "RES203"
    fix_applicability = Applicability.SAFE
    applies_to_polls = True  # an endless poll with no deadline hangs its caller as an endless retry does

    def check(self, policy: RetryPolicy) -> None:
        if policy.adapter.judged_where_spelled:
            return  # reported where it is spelled (a task class), not at each use
        if policy.attempts is not None or policy.max_delay_s is not None or policy.has_time_cap or policy.connect_only:
            return  # a cap exists, or one may exist (unknown is never the fault)
        adapter, fx = policy.adapter, FixContext(self.ctx)
        if policy.stop_all:
            self.report(policy.node, f"{adapter.name} `stop=a & b` stops only when both conditions hold, so "
                                     f"neither caps the retry: {WHY}; combine stops with `|`",
                        fix=adapter.fix(Remedy.COMBINE_STOPS, policy, fx))
            return
        limit_s = self.settings.max_retry_time
        if self.ctx.retried.is_poll(policy):
            self.report(policy.node, f"{adapter.label} polls for a condition with neither an attempt cap nor a "
                                     f"deadline: {POLL_WHY}; "
                                     f"{adapter.advice(Remedy.BOUNDS, policy, limit_s) or ADVICE}",
                        fix=adapter.fix(Remedy.BOUNDS, policy, fx, limit_s=limit_s))
            return
        why = QUEUED_WHY if adapter.queued else WHY
        self.report(policy.node, f"{adapter.label} has neither an attempt cap nor a time cap: {why}; "
                                 f"{adapter.advice(Remedy.BOUNDS, policy, limit_s) or ADVICE}",
                    fix=adapter.fix(Remedy.BOUNDS, policy, fx, limit_s=limit_s))
