"""RES501 retry-on-open-circuit: a retry that catches a circuit breaker's open-circuit error.

Two shapes (the breakers are :mod:`reslint.analysis.breakers`' answer):

- the retry names the error: ``retry_if_exception_type(CircuitBreakerError)``, backoff's
  exception tuple, an ``except CircuitBreakerError:`` in a retry loop that goes round again;
- a catch-all retry (every exception) whose attempts run through a breaker: ``@retry`` above
  ``@breaker``, a retried body calling ``breaker.call(...)``. That is this rule's, not also
  RES204's.

Quiet when the error is excluded (``retry_if_not_exception_type``, backoff ``giveup=``, an
earlier ``except`` clause that leaves the loop), and when the breaker guards the whole retry
(the outermost decorator).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.analysis.breakers import open_circuit_retry
from reslint.catalog.retries import CATCH_ALL
from reslint.diagnostics import Applicability
from reslint.model.policy import LoopFacts, RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule
from reslint.semantics.edits import spell

WHY = "an open breaker refuses every call at once, so each attempt fails the same way and the retry only sleeps " \
      "and retries until it gives up, delaying the caller by its whole budget instead of failing fast to a fallback"


class RetryOnOpenCircuit(PolicyRule):
    code = "RES501"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        found = open_circuit_retry(policy, self.ctx)
        if found is None:
            return
        error, guard = found
        label = policy.adapter.label
        if guard is None:
            what = f"{label} retries `{error}`, the error a circuit breaker raises when it is open"
        else:
            what = f"{label} retries every exception, and each attempt runs through a circuit breaker " \
                   f"({guard.text}): it retries `{error}`, the error the breaker raises when it is open"
        node = policy.node
        if policy.loop is not None:
            node = self._handler(policy.loop, error) or node
        fix = self._exclude(policy, error) if policy.loop is None else None
        advice = policy.adapter.advice(Remedy.EXCLUDE, policy) or "let the open-circuit error through"
        self.report(node, f"{what}: {WHY}; {advice} (and put the retry inside the breaker, or catch the error "
                          f"outside both for a fallback)", fix=fix)

    def _handler(self, loop: LoopFacts, error: str) -> Optional[cst.ExceptHandler]:
        """The ``except`` clause of the loop that catches ``error`` (by name, else a catch-all)."""
        for handler in loop.handlers:
            if handler.type is not None and error in (self.ctx.retries.exception_types(handler.type) or ()):
                return handler
        for handler in loop.handlers:
            if handler.type is None or set(self.ctx.retries.exception_types(handler.type) or ()) & CATCH_ALL:
                return handler
        return None

    def _exclude(self, policy: RetryPolicy, error: str):
        spelled, imports = spell(self.ctx, error)
        if spelled is None:
            return None
        return policy.adapter.fix(Remedy.EXCLUDE, policy, FixContext(self.ctx), error=spelled, imports=imports)
