"""RES202 retry-without-time-cap: an attempt cap but no total-time cap, and a worst case
that is unknown or above ``max-retry-time``."""

from __future__ import annotations

from typing import Dict, List

import libcst as cst

from reslint.analysis.budget import call_time, describe, known_body_time, worst_case
from reslint.analysis.retry import RetryPolicy, _num
from reslint.context import UNKNOWN
from reslint.cstutil import add_keyword_arg, format_seconds
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import spell
from reslint.rules.retry_base import PolicyRule, library_name, retries


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
        if seconds is None:
            return
        for policy in self._adapter_policies(node):  # each request through the adapter is retried on its own
            key = id(policy)
            self._per_attempt[key] = _max(self._per_attempt.get(key), seconds)

    def _adapter_policies(self, node: cst.Call):
        func = node.func
        if not isinstance(func, cst.Attribute):
            return []
        out = []
        for adapter in self.ctx.mounts_of(func.value) or ():
            adapter_call = self.ctx.constructor_of(adapter)
            if adapter_call is None:
                continue
            for arg in adapter_call.args:
                if arg.keyword is not None and arg.keyword.value == "max_retries":
                    target = self.ctx.constructor_of(arg.value)
                    policy = self.ctx.retries.for_call(target) if target is not None else None
                    policy = policy or self.ctx.retries.for_call(adapter_call)
                    if policy is not None:
                        self.check(policy, here=False)
                        out.append(policy)
        return out

    def leave_Module(self, node: cst.Module) -> None:
        limit = self.settings.max_retry_time
        for policy in self._policies:
            if not _num(policy.attempts) or not retries(policy) or policy.has_time_cap or policy.connect_only \
                    or policy.max_delay_s is UNKNOWN:
                continue
            per_attempt = self._per_attempt.get(id(policy), 0.0)
            scope = self.ctx.retried.scope_of(policy)
            if scope is not None:  # one attempt runs the whole retried body
                per_attempt = known_body_time(scope.node, self.ctx, self.ctx.model.scopes.get(id(scope.node)))
            total = worst_case(policy, per_attempt)
            if not _num(per_attempt) and total is not None:
                waits_only = worst_case(policy, 0.0)  # the waits alone are a lower bound
                if _num(waits_only) and waits_only > limit:
                    total = waits_only
            if total is not None and not (_num(total) and total > limit):
                continue  # shown short, or not shown long: an unknown value is never the fault
            verdict = f"> max-retry-time ({limit:g} s)" if _num(total) else "(unbounded)"
            self.report(policy.node, f"{_name(policy)} caps attempts but not total time: worst case "
                                     f"{describe(policy, per_attempt)} {verdict}; a struggling dependency then holds "
                                     f"the caller that long; {_advice(policy, limit)}", fix=self._fix(policy, limit),
                        where=self._where.get(id(policy)))

    def _fix(self, policy: RetryPolicy, limit: float):
        seconds = format_seconds(limit)
        call = policy.call
        if policy.library == "tenacity" and policy.stop_node is not None:
            spelled, imports = spell(self.ctx, "tenacity.stop_after_delay", self._scopes.get(id(policy)))
            if spelled is None:
                return None
            new = cst.BinaryOperation(left=policy.stop_node, operator=cst.BitOr(),
                                      right=cst.parse_expression(f"{spelled}({seconds})"))
            return FixPlan(f"Add `| {spelled}({seconds})`", Applicability.SAFE, ((policy.stop_node, new),), imports)
        if call is None:
            return None
        if policy.library == "backoff":
            return FixPlan(f"Add `max_time={seconds}`", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "max_time", cst.parse_expression(seconds))),))
        if policy.library == "retrying":
            ms = str(int(limit * 1000))
            return FixPlan(f"Add `stop_max_delay={ms}` (milliseconds)", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "stop_max_delay", cst.parse_expression(ms))),))
        if policy.library == "stamina":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "timeout":
                    return FixPlan(f"Set `timeout={seconds}`", Applicability.SAFE,
                                   ((arg.value, cst.parse_expression(seconds)),))
        return None


def _name(policy: RetryPolicy) -> str:
    return "hand-rolled retry loop" if policy.kind == "loop" else library_name(policy)


def _advice(policy: RetryPolicy, limit: float) -> str:
    return {
        "tenacity": f"add `| stop_after_delay({limit:g})` to `stop=`",
        "backoff": f"add `max_time={limit:g}`",
        "stamina": f"set `timeout={limit:g}`",
        "retrying": f"add `stop_max_delay={int(limit * 1000)}` (milliseconds)",
        "loop": "compare `time.monotonic()` with a deadline computed before the loop",
        "urllib3": "lower `total`/`backoff_factor`/`backoff_max` (urllib3 has no total-time cap) or bound the calls "
                   "with a deadline",
        "celery": "lower `max_retries`/`retry_backoff_max` (celery has no total-time cap)",
    }.get(policy.library if policy.kind != "loop" else "loop", "add a total-time cap")


def _max(a, b):
    if a is None:
        return b
    if not _num(a) or not _num(b):
        return UNKNOWN
    return max(a, b)
