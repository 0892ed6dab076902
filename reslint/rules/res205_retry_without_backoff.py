"""RES205 retry-without-backoff: attempts with no wait between them."""

from __future__ import annotations

from typing import List

import libcst as cst

from reslint.catalog.retries import LOST_RACE_CODES
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
        advice = policy.adapter.advice(Remedy.BACKOFF, policy) or "sleep a jittered, growing delay before the next " \
            "attempt"
        self.report(policy.node, f"{policy.adapter.label} retries with no sleep between attempts: {WHY}; {advice}")


#: names of lost races (a concurrent insert, an optimistic-lock conflict, a conditional write whose
#: condition no longer holds), where an immediate retry is the right thing and backoff buys nothing
_RACE_WORDS = ("Duplicate", "Conflict", "Integrity", "Concurrent", "StaleData", "Deadlock")


def _races_only(loop: LoopFacts) -> bool:
    """Whether every handler of the loop catches only a lost race: by its exception's name
    (:data:`_RACE_WORDS`), or by the error codes it keeps (:data:`LOST_RACE_CODES`)."""
    if not loop.handlers:
        return False
    for handler in loop.handlers:
        if handler.type is None:
            return False
        kept = _codes_kept(handler)
        if kept:  # ``except ClientError as e: if e.code != "ConditionalCheckFailed": raise``
            if not all(any(code.startswith(race) for race in LOST_RACE_CODES) for code in kept):
                return False
            continue
        text = source(handler.type)
        names = [part.strip() for part in text.strip("()").split(",") if part.strip()]
        if not names or not all(any(word in n.rsplit(".", 1)[-1] for word in _RACE_WORDS) for n in names):
            return False
    return True


def _codes_kept(handler: cst.ExceptHandler) -> List[str]:
    """The error codes a handler keeps when it starts by re-raising every other one
    (``if code != "X": raise``, ``if code not in ("X", "Y"): raise``); empty otherwise."""
    body = handler.body.body
    first = body[0] if body else None
    if not isinstance(first, cst.If) or first.orelse is not None or not isinstance(first.test, cst.Comparison):
        return []
    inner = first.body.body
    smalls = inner if isinstance(first.body, cst.SimpleStatementSuite) else \
        (inner[0].body if len(inner) == 1 and isinstance(inner[0], cst.SimpleStatementLine) else ())
    if not smalls or not all(isinstance(s, cst.Raise) and s.exc is None for s in smalls):
        return []
    if len(first.test.comparisons) != 1 or not _names_an_error_code(first.test.left):
        return []
    target = first.test.comparisons[0]
    if not isinstance(target.operator, (cst.NotEqual, cst.NotIn)):
        return []
    values = target.comparator.elements if isinstance(target.comparator, (cst.Tuple, cst.List, cst.Set)) else None
    exprs = [e.value for e in values] if values is not None else [target.comparator]
    codes = [e.evaluated_value for e in exprs if isinstance(e, cst.SimpleString)]
    return codes if len(codes) == len(exprs) and all(isinstance(c, str) for c in codes) else []


def _names_an_error_code(expr) -> bool:
    """``e.response["Error"]["Code"]``, ``exc.code``, ``error_code``: an expression that reads an error
    code (a subscript by a ``"Code"`` key, or a name or attribute that ends in ``code``)."""
    if isinstance(expr, cst.Subscript):
        keys = [e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index)]
        return any(isinstance(k, cst.SimpleString) and k.evaluated_value.lower() == "code" for k in keys)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value.lower().endswith("code")
    if isinstance(expr, cst.Name):
        return expr.value.lower().endswith("code")
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get":
        return bool(expr.args) and isinstance(expr.args[0].value, cst.SimpleString) and \
            expr.args[0].value.evaluated_value.lower() == "code"
    return False
