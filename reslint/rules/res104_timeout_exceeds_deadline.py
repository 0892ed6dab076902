"""RES104 timeout-exceeds-deadline: an inner timeout longer than the budget around it."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.budget import call_time, fmt
from reslint.analysis.timeouts import MISSING, read_call_timeout
from reslint.rules.base import Rule
from reslint.values import is_number

WHY_RETRY = "one slow attempt spends the whole budget, so the time cap never gets to act and there is no time " \
            "left for a second attempt"
WHY_DEADLINE = "the deadline always fires first, so the call's own timeout is dead configuration and the caller " \
               "sees a bare cancellation instead of a timeout error"


class TimeoutExceedsDeadline(Rule):
    code = "RES104"
    needs_retries = True

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.ctx.qualname(node.func)
        if qual == "asyncio.wait_for":
            self._wait_for(node)
        seconds = call_time(node, self.ctx)
        if not is_number(seconds):
            return
        reading = read_call_timeout(node, self.ctx)
        if reading is not None and reading.state == MISSING:
            return  # one finding per fault: RES101 reports this call's missing timeout, and its fix sets one
        budgets = []
        for scope in self.ctx.retry_scopes:
            policy = scope.policy
            if is_number(policy.max_delay_s):
                budgets.append((policy.max_delay_s, f"the {fmt(policy.max_delay_s)} time cap of the "
                                                    f"{policy.adapter.cap_label} around it",
                                WHY_RETRY))
        for deadline in self.ctx.deadlines:
            if is_number(deadline.seconds) and not deadline.by_default:  # a caller may pass a longer one
                budgets.append((deadline.seconds, f"the enclosing `{deadline.what}` deadline", WHY_DEADLINE))
        if not budgets:
            return
        budget, what, why = min(budgets, key=lambda b: b[0])
        if seconds > budget:
            self._report(node, seconds, what, why)

    def _wait_for(self, node: cst.Call) -> None:
        inner = node.args[0].value if node.args and not node.args[0].keyword else None
        if isinstance(inner, cst.Await):
            inner = inner.expression
        if not isinstance(inner, cst.Call):
            return
        budget = None
        for index, arg in enumerate(node.args):
            if (arg.keyword is not None and arg.keyword.value == "timeout") or (arg.keyword is None and index == 1):
                budget = self.ctx.value_of(arg.value)
        seconds = call_time(inner, self.ctx)
        if is_number(budget) and is_number(seconds) and seconds > budget:
            self._report(inner, seconds, f"the `asyncio.wait_for(..., timeout={budget:g})` around it", WHY_DEADLINE)

    def _report(self, node: cst.Call, seconds: float, what: str, why: str) -> None:
        reading = read_call_timeout(node, self.ctx)
        name = reading.spec.qualname if reading is not None else (self.ctx.qualname(node.func) or "the call")
        self.report(node, f"`{name}` can take up to {fmt(seconds)} per attempt (its timeout phases added up), longer "
                          f"than {what}: {why}; make the call's timeout shorter than the budget")
