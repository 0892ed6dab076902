"""stamina: ``@stamina.retry(on=..., ...)`` and ``for attempt in stamina.retry_context(...)``.

Facts from stamina/_core.py (unchanged since 22.1.0): 10 attempts and a 45 s time cap by
default; the wait after the k-th failure is ``min(wait_max, wait_initial * wait_exp_base **
(k - 1) + U(0, wait_jitter))`` (``wait_jitter`` only spreads the top of each wait: partial
jitter). stamina never reads ``Retry-After``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.cstutil import format_seconds
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan
from reslint.libraries.base import (
    FixContext, Remedy, RetryAdapter, Site, merge, remove_keyword_fix, replace_value_fix, roles,
)
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import add, clamp, is_number, mul, scaled_power

#: stamina/_core.py: 10 attempts, 45 s, waits min(5, 0.1*2^(n-1) + U(0, 1))
DEFAULTS = {"attempts": 10, "timeout": 45.0, "wait_initial": 0.1, "wait_max": 5.0, "wait_jitter": 1.0,
            "wait_exp_base": 2.0}
#: what the reader takes from ``retry(...)``/``retry_context(...)``
KEYWORDS = ("on", "attempts", "timeout", "wait_initial", "wait_max", "wait_jitter", "wait_exp_base")


class Stamina(RetryAdapter):
    name = "stamina"
    spellings = merge(roles("stamina.retry", role=Role.DECORATOR), roles("stamina.retry_context", role=Role.ITERATOR))
    trigger_modules = ("stamina",)
    keywords = {qualname: KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call)
        if call is None or args.star:
            return self.policy(site)
        d = DEFAULTS
        initial = reader.number(args, "wait_initial", d["wait_initial"], scope=scope)
        cap = reader.number(args, "wait_max", d["wait_max"], scope=scope)
        jitter = reader.number(args, "wait_jitter", d["wait_jitter"], scope=scope)
        base = reader.number(args, "wait_exp_base", d["wait_exp_base"], scope=scope)
        jitter_kind = Jitter.UNKNOWN if not is_number(jitter) else (Jitter.NO if jitter == 0 else Jitter.PARTIAL)
        wait = Wait(WaitShape.SCHEDULE, jitter_kind,
                    lambda k: clamp(add(mul(initial, scaled_power(base, k - 1)), jitter), None, cap),
                    args.expr("wait_jitter"))
        return self.policy(site, attempts=reader.count(args, "attempts", d["attempts"], scope),
                           max_delay_s=reader.number(args, "timeout", d["timeout"], scope=scope), wait=wait,
                           retried=self._retried(reader, args.expr("on"), scope))

    def _retried(self, reader: PolicyReader, on, scope) -> Retried:
        """``on=`` names exception types, or a predicate function of this module."""
        types = reader.exception_types(on, scope) if on is not None else None
        if types is None and on is not None:
            return reader.predicate_function(on, scope, on)
        return Retried(RetriedKind.TYPES, types or (), node=on) if types else Retried(RetriedKind.UNKNOWN, node=on)

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        if remedy is Remedy.JITTER:
            return remove_keyword_fix(policy.call, "wait_jitter",
                                      "Remove `wait_jitter=` (the library jitters by default)", fx)
        if remedy is Remedy.TIME_CAP and policy.call is not None:
            plan = _set_timeout(policy.call, format_seconds(params["limit_s"]))
            return replace_value_fix(plan, policy, plan.replacements[0][0], fx) if plan is not None else None
        return super().fix(remedy, policy, fx, **params)

    advice_text = {
        Remedy.JITTER: "keep `wait_jitter` above 0",
        Remedy.TIME_CAP: "set `timeout={limit_s:g}`",
        Remedy.BOUNDS: "keep `attempts=` or `timeout=` (stamina's defaults are 10 attempts and 45 s)",
    }


def _set_timeout(call: cst.Call, seconds: str) -> Optional[FixPlan]:
    """``timeout=None`` (or another value) → ``timeout=seconds``; nothing when it is not given."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "timeout":
            return FixPlan(f"Set `timeout={seconds}`", Applicability.SAFE,
                           ((arg.value, cst.parse_expression(seconds)),))
    return None


ADAPTER = Stamina()
