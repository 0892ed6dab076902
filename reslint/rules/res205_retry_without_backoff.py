"""RES205 retry-without-backoff: attempts with no wait between them."""

from __future__ import annotations

from reslint.semantics.cstutil import source
from reslint.diagnostics import Applicability
from reslint.model.policy import LoopFacts, RetriedKind, RetryPolicy, Role
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule

WHY = "immediate retries hit a struggling service again at once and multiply its load exactly when it is " \
      "overloaded"
ADVICE = "wait a jittered, growing delay between attempts"


#: a poll with no wait: the same fault, said of a wait for a condition
POLL_WHY = "a poll with no pause between checks is a busy loop that sends its checks as fast as the server answers"


class RetryWithoutBackoff(PolicyRule):
    code = "RES205"
    fix_applicability = Applicability.SAFE
    applies_to_polls = True  # checking a condition with no pause is a busy loop against the server

    def check(self, policy: RetryPolicy) -> None:
        if not policy.wait.zero or not policy.retries or policy.connect_only:
            return
        super().check(policy)

    def check_library(self, policy: RetryPolicy) -> None:
        retried = policy.retried
        if policy.role is Role.OBJECT and retried.kind is RetriedKind.STATUS and not retried.retries_statuses:
            return  # immediate connect retries are a client's normal behaviour; status retries need backoff
        adapter = policy.adapter
        why = POLL_WHY if self.ctx.retried.is_poll(policy) else WHY
        self.report(policy.node, f"{adapter.label} has no wait between attempts: {why}; "
                                 f"{adapter.advice(Remedy.BACKOFF, policy) or ADVICE}",
                    fix=adapter.fix(Remedy.BACKOFF, policy, FixContext(self.ctx)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        if _races_only(loop):
            return  # a lost race (duplicate key, conflict) is retried at once on purpose
        self.report(policy.node, f"{policy.adapter.label} retries with no sleep between attempts: {WHY}; sleep a "
                                 f"jittered, growing delay before the next attempt")


#: exception names of lost races (a concurrent insert, an optimistic-lock conflict), where an immediate
#: retry is the right thing and backoff buys nothing
_RACE_WORDS = ("Duplicate", "Conflict", "Integrity", "Concurrent", "StaleData", "Deadlock")


def _races_only(loop: LoopFacts) -> bool:
    names = []
    for handler in loop.handlers:
        if handler.type is None:
            return False
        text = source(handler.type)
        names.extend(part.strip() for part in text.strip("()").split(",") if part.strip())
    return bool(names) and all(any(word in n.rsplit(".", 1)[-1] for word in _RACE_WORDS) for n in names)
