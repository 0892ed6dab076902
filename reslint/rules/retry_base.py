"""Base class of the retry-policy rules (RES201-RES206): one ``check(policy)`` per policy.

Policies are found where they are spelled: decorators, constructor calls
(``Retrying(...)``, ``Retry(...)``, ``retry_context(...)``, ``HTTPAdapter(...)``)
and hand-rolled loops; each is extracted once per file (memoised).
"""

from __future__ import annotations

import libcst as cst

from reslint.analysis.retry import RetryPolicy
from reslint.rules.base import Rule

class PolicyRule(Rule):
    needs_retries = True

    def check(self, policy: RetryPolicy) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def visit_Decorator(self, node: cst.Decorator) -> None:
        policy = self.ctx.retries.for_decorator(node.decorator, self.ctx.scope)
        if policy is not None:
            self.check(policy)

    def visit_Call(self, node: cst.Call) -> None:
        policy = self.ctx.retries.for_call(node, self.ctx.scope)
        if policy is not None and not policy.connect_only:
            self.check(policy)

    def visit_For(self, node: cst.For) -> None:
        policy = self.ctx.retried.loop_policies.get(id(node))
        if policy is not None:
            self.check(policy)

    def visit_While(self, node: cst.While) -> None:
        self.visit_For(node)  # same lookup


def retries(policy: RetryPolicy) -> bool:
    """Whether the policy can make more than one attempt."""
    return not (isinstance(policy.attempts, int) and policy.attempts <= 1)


def library_name(policy: RetryPolicy) -> str:
    """``tenacity retry``, ``the retry package's retry``, ``hand-rolled retry loop`` (for messages)."""
    if policy.kind == "loop":
        return "hand-rolled retry loop"
    if policy.library == "retry":
        return "the `retry` package's retry"
    return f"{policy.library} retry"
