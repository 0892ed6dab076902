"""RES201 retry-without-jitter: deterministic waits keep clients in lockstep."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.analysis.retry import RetryPolicy
from reslint.cstutil import source
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import copyable, remove_arg, spell, with_callee
from reslint.rules.retry_base import PolicyRule, library_name, retries

WHY = ("without jitter every client that failed together retries together, hitting the recovering service in "
       "synchronised waves")


class RetryWithoutJitter(PolicyRule):
    code = "RES201"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        wait = policy.wait
        if policy.kind == "loop":
            if retries(policy):
                self._loop(policy)
            return
        if wait.jitter != "no" or wait.zero or not retries(policy):
            return
        self.report(policy.node, f"{library_name(policy)} waits a deterministic time ({wait.kind}): {WHY}; "
                                 f"{_advice(policy)}", fix=self._fix(policy))

    def _loop(self, policy: RetryPolicy) -> None:
        """Each sleep on its own: deterministic, fully known and not server-directed."""
        loops = self.ctx.retried.loops
        for sleep in policy.extra.get("sleeps", ()):
            arg = sleep.args[0].value if sleep.args and not sleep.args[0].star else None
            if arg is None or loops._jittered(arg, self.ctx.scope) or loops._reads_retry_after(arg, self.ctx.scope):
                continue
            value = loops._max_value(arg, self.ctx.scope, None, 1)
            if not isinstance(value, (int, float)) and not self._depends_on_loop(arg, policy):
                continue  # a delay from a parameter or call may already be random
            if value == 0:
                continue  # no wait at all is RES205's business
            self.report(sleep, f"hand-rolled retry sleeps a deterministic time: {WHY}; draw the sleep at random, "
                               f"e.g. `random.uniform(0, delay)` (full jitter)", fix=self._loop_fix(sleep))

    def _depends_on_loop(self, arg, policy: RetryPolicy) -> bool:
        loop = policy.node
        var = loop.target.value if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) else None
        loops = self.ctx.retried.loops
        return var is not None and isinstance(loops._max_value(arg, self.ctx.scope, var, 1), (int, float))

    def _fix(self, policy: RetryPolicy):
        wait = policy.wait
        call = policy.call
        if policy.library == "tenacity" and isinstance(wait.node, cst.Call):
            return self._tenacity_fix(wait.node)
        if policy.library in ("backoff", "stamina") and call is not None:
            name = "jitter" if policy.library == "backoff" else "wait_jitter"
            fixed = remove_arg(call, name)
            if fixed is not call:
                return FixPlan(f"Remove `{name}=` (the library jitters by default)", Applicability.SAFE,
                               ((call, fixed),))
        if policy.library == "celery" and call is not None:
            fixed = remove_arg(call, "retry_jitter")
            if fixed is not call:
                return FixPlan("Remove `retry_jitter=False` (celery jitters backoff by default)", Applicability.SAFE,
                               ((call, fixed),))
        if policy.library == "urllib3" and call is not None:
            from reslint.cstutil import add_keyword_arg
            from reslint.project import pinned_below

            if pinned_below(self.settings.root, "urllib3", 2):
                return None  # backoff_jitter exists from urllib3 2.0 on

            factor = _arg(call, "backoff_factor")
            if factor is not None and not copyable(factor):
                return None  # the jitter would evaluate the factor's expression a second time
            factor = source(factor) if factor is not None else "1"
            return FixPlan(f"Add `backoff_jitter={factor}` (urllib3 >= 2.0)", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "backoff_jitter", cst.parse_expression(factor))),))
        return None

    def _tenacity_fix(self, wait: cst.Call):
        qual = self.ctx.qualname(wait.func) or ""
        name = qual.rsplit(".", 1)[-1]
        if name == "wait_exponential":
            spelled, imports = spell(self.ctx, "tenacity.wait_random_exponential")
            new = with_callee(wait, spelled) if spelled else None
            if new is not None:
                return FixPlan("Use `wait_random_exponential` with the same bounds (full jitter)", Applicability.SAFE,
                               ((wait, new),), imports)
        if name in ("wait_fixed", "wait_incrementing") and wait.args:
            first = wait.args[0]
            if name == "wait_fixed" and (first.star or not copyable(first.value)):
                return None  # the random term would evaluate the wait's expression a second time
            spelled, imports = spell(self.ctx, "tenacity.wait_random")
            if spelled is None:
                return None
            span = source(first.value) if name == "wait_fixed" else "1"
            addition = cst.parse_expression(f"{spelled}(0, {span})")
            new = cst.BinaryOperation(left=wait, operator=cst.Add(), right=addition)
            return FixPlan(f"Add a random term: `+ {spelled}(0, {span})`", Applicability.SAFE, ((wait, new),), imports)
        return None

    def _loop_fix(self, sleep: cst.Call):
        if not sleep.args or sleep.args[0].keyword is not None:
            return None
        spelled, imports = spell(self.ctx, "random.uniform")
        if spelled is None:
            return None
        value = sleep.args[0].value
        drawn = cst.parse_expression(f"{spelled}(0, {source(value)})")
        new = sleep.with_changes(args=[sleep.args[0].with_changes(value=drawn), *sleep.args[1:]])
        return FixPlan("Sleep a random time up to the same bound (full jitter)", Applicability.SAFE, ((sleep, new),),
                       imports)


def _arg(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def _advice(policy: RetryPolicy) -> str:
    return {
        "tenacity": "use `wait_random_exponential` or add `+ wait_random(0, n)`",
        "backoff": "drop `jitter=None` (backoff uses full jitter by default)",
        "stamina": "keep `wait_jitter` above 0",
        "celery": "keep `retry_jitter=True` with `retry_backoff`",
        "urllib3": "add `backoff_jitter=` (urllib3 >= 2.0)",
        "retry": "pass `jitter=(0, n)` (a tuple draws at random; a number is added as is)",
        "retrying": "add `wait_jitter_max=` (milliseconds)",
        "redo": "keep `jitter` above 0",
    }.get(policy.library, "add a random component to the wait")
