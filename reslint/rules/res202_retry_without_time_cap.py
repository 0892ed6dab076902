"""RES202 retry-without-time-cap: an attempt cap but no total-time cap, and a worst case
that is unknown or above ``max-retry-time``."""

from __future__ import annotations

from typing import Dict, List

import libcst as cst

import math

from reslint.analysis.budget import call_time, caps_attempts_only, describe, fitted_timeout_s, known_body_time, \
    retry_time_limit_s, retry_time_setting, worst_case
from reslint.diagnostics import Applicability
from reslint.model.policy import RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule
from reslint.values import UNKNOWN, is_number

ADVICE = "add a total-time cap"
#: what a task queue's long worst case costs: the task is queued again, no caller waits
QUEUED_WHY = ("the task's work then lands that late, long after whoever queued it stopped waiting, and each "
              "retry adds load to the struggling dependency")


class RetryWithoutTimeCap(PolicyRule):
    code = "RES202"
    fix_applicability = Applicability.SAFE

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        self._policies: List[RetryPolicy] = []
        self._seen = set()
        self._per_attempt: Dict[int, object] = {}  # id(policy) -> seconds per attempt (or UNKNOWN)
        self._scopes: Dict[int, object] = {}  # id(policy) -> the scope it was seen in (where its fix goes)
        #: id(policy) -> (statement, unit) where it was seen: reported from leave_Module, its fix's edit
        #: is computed from that statement, not from a rendering of the whole module per finding
        self._where: Dict[int, tuple] = {}

    def check(self, policy: RetryPolicy, here: bool = True) -> None:
        """Remember a policy; ``here``: it is written in the statement being visited (not a
        policy reached through a mounted adapter)."""
        if id(policy) not in self._seen:
            self._seen.add(id(policy))
            self._policies.append(policy)
            self._scopes[id(policy)] = self.ctx.scope
            if here:
                self._where[id(policy)] = (self.ctx.statement, self.ctx.unit)

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        seconds = call_time(node, self.ctx)
        if seconds is None or not isinstance(node.func, cst.Attribute):
            return
        # each request through a client's mounted policies is retried on its own
        for policy in self.ctx.retries.mounted_policies(node.func.value):
            self.check(policy, here=False)
            key = id(policy)
            self._per_attempt[key] = _larger(self._per_attempt.get(key), seconds)

    def leave_Module(self, node: cst.Module) -> None:
        for policy in self._policies:
            queued = policy.adapter.queued
            limit = retry_time_limit_s(policy, self.settings)
            if not caps_attempts_only(policy):
                continue
            if not policy.adapter.reports_faults and _exceeds(worst_case(policy, 0.0), limit):
                continue  # its waits alone are too long where it is spelled (a task's base class), reported there
            per_attempt = self._per_attempt.get(id(policy), 0.0)
            scope = self.ctx.retried.scope_of(policy)
            if scope is not None:  # one attempt runs the whole retried body
                per_attempt = known_body_time(scope.node, self.ctx, self.ctx.opened_scope(scope.node))
            total = worst_case(policy, per_attempt)
            forever = ""
            if not is_number(per_attempt) and scope is not None:
                # a call that waits forever (RES101): judged with the timeout its fix gives it, so
                # that fixing RES101 does not bring this finding up only then; the fix gives it
                # what the retry leaves each attempt when that is shorter than its default-timeout
                if fitted_timeout_s(policy, self.ctx) is not None:
                    continue
                fixed = known_body_time(scope.node, self.ctx, self.ctx.opened_scope(scope.node),
                                        fixed_s=math.inf)
                fixed_total = worst_case(policy, fixed)
                if is_number(fixed) and is_number(fixed_total) and fixed_total > limit:
                    per_attempt, total = fixed, fixed_total
                    forever = " (counting each call that has no timeout, RES101, at its category's default-timeout)"
            if not is_number(per_attempt) and total is not None:
                waits_only = worst_case(policy, 0.0)  # the waits alone are a lower bound
                if is_number(waits_only) and waits_only > limit:
                    total = waits_only
            if total is not None and not (is_number(total) and total > limit):
                continue  # shown short, or not shown long: an unknown value is never the fault
            setting = retry_time_setting(policy)
            verdict = f"> {setting} ({limit:g} s){forever}" if is_number(total) else "(unbounded)"
            adapter = policy.adapter
            advice = adapter.advice(Remedy.TIME_CAP, policy, limit) or ADVICE
            where = self._where.get(id(policy))
            fix = adapter.fix(Remedy.TIME_CAP, policy, FixContext(self.ctx, self._scopes.get(id(policy)),
                                                                  where[0] if where else None), limit_s=limit)
            self.report(policy.node, f"{adapter.label} caps attempts but not total time: worst case "
                                     f"{describe(policy, per_attempt)} {verdict}; "
                                     f"{QUEUED_WHY if queued else adapter.time_cap_why}; "
                                     f"{advice}", fix=fix, where=where)


def _exceeds(total, limit: float) -> bool:
    """Whether a worst case ``total`` (seconds, UNKNOWN, or None: unbounded) is known to pass ``limit``."""
    return total is None or (is_number(total) and total > limit)


def _larger(a, b):
    """The larger of two per-attempt times (``a`` None: none seen yet); UNKNOWN if one is unknown."""
    if a is None:
        return b
    if not is_number(a) or not is_number(b):
        return UNKNOWN
    return max(a, b)
