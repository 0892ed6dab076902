"""RES203 unbounded-retry: neither an attempt cap nor a time cap."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.retry import RetryPolicy
from reslint.cstutil import add_keyword_arg, format_seconds
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import spell
from reslint.rules.retry_base import PolicyRule, library_name

WHY = "when the dependency stays down it retries forever, holding the caller and adding load to the outage"


class UnboundedRetry(PolicyRule):
    code = "RES203"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        if policy.attempts is not None or policy.max_delay_s is not None or policy.has_time_cap or policy.connect_only:
            return  # a cap exists, or one may exist (unknown is never the fault)
        if policy.stop_all:
            self.report(policy.node, f"{policy.library} `stop=a & b` stops only when both conditions hold, so "
                                     f"neither caps the retry: {WHY}; combine stops with `|`", fix=self._and_fix(policy))
            return
        what = "hand-rolled retry loop" if policy.kind == "loop" else library_name(policy)
        self.report(policy.node, f"{what} has neither an attempt cap nor a time cap: {WHY}; {_advice(policy)}",
                    fix=self._fix(policy))

    def _and_fix(self, policy: RetryPolicy):
        node = policy.stop_node
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
            return FixPlan("Combine the stops with `|`", Applicability.SAFE,
                           ((node, node.with_changes(operator=cst.BitOr(whitespace_before=node.operator.whitespace_before,
                                                                          whitespace_after=node.operator.whitespace_after))),))
        return None

    def _fix(self, policy: RetryPolicy):
        limit = format_seconds(self.settings.max_retry_time)
        call = policy.call
        if policy.library == "tenacity" and policy.stop_node is None:
            attempt, imports = spell(self.ctx, "tenacity.stop_after_attempt")
            delay, more = spell(self.ctx, "tenacity.stop_after_delay")
            if call is None or attempt is None or delay is None:
                return None
            value = cst.parse_expression(f"{attempt}(5) | {delay}({limit})")
            return FixPlan(f"Add `stop={attempt}(5) | {delay}({limit})`", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "stop", value)),), tuple(dict.fromkeys(imports + more)))
        if policy.library == "backoff" and call is not None:
            return FixPlan(f"Add `max_time={limit}`", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "max_time", cst.parse_expression(limit))),))
        return None


def _advice(policy: RetryPolicy) -> str:
    return {
        "tenacity": "pass `stop=stop_after_attempt(N) | stop_after_delay(T)`",
        "backoff": "add `max_tries=` and `max_time=`",
        "stamina": "keep `attempts=` or `timeout=` (stamina's defaults are 10 attempts and 45 s)",
        "retrying": "add `stop_max_attempt_number=` and `stop_max_delay=` (milliseconds)",
        "retry": "pass `tries=N` (-1 means forever)",
        "celery": "set `max_retries=` to a number (None means forever)",
        "google": "pass `timeout=` (None means forever)",
        "loop": "count attempts or compare `time.monotonic()` with a deadline",
    }.get(policy.library, "add an attempt cap and a time cap")
