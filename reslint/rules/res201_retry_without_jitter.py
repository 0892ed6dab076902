"""RES201 retry-without-jitter: deterministic waits keep clients in lockstep."""

from __future__ import annotations

import libcst as cst

from reslint.diagnostics import Applicability
from reslint.model.policy import Jitter, LoopFacts, RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule

WHY = ("without jitter every client that failed together retries together, hitting the recovering service in "
       "synchronised waves")
ADVICE = "add a random component to the wait"


class RetryWithoutJitter(PolicyRule):
    code = "RES201"
    fix_applicability = Applicability.SAFE

    def check_library(self, policy: RetryPolicy) -> None:
        wait = policy.wait
        if wait.jitter is not Jitter.NO or wait.zero or not policy.retries:
            return
        adapter = policy.adapter
        self.report(policy.node, f"{adapter.label} waits a deterministic time ({policy.wait_name}): {WHY}; "
                                 f"{adapter.advice(Remedy.JITTER, policy) or ADVICE}",
                    fix=adapter.fix(Remedy.JITTER, policy, FixContext(self.ctx)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        """Each sleep on its own: deterministic, fully known and not server-directed."""
        if not policy.retries:
            return
        with self.ctx.bound_params(loop.bound or {}):  # a retry helper's loop: read with its defaults
            self._check_sleeps(policy, loop)

    def _check_sleeps(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        loops = self.ctx.retried.loops
        for sleep in loop.sleeps:
            arg = sleep.args[0].value if sleep.args and not sleep.args[0].star else None
            if arg is None or loops.jittered(arg, self.ctx.scope) or loops.reads_retry_after(arg, self.ctx.scope):
                continue
            value = loops.max_value(arg, self.ctx.scope, None, 1)
            if not isinstance(value, (int, float)) and not self._depends_on_loop(arg, policy):
                continue  # a delay from a parameter or call may already be random
            if value == 0:
                continue  # no wait at all is RES205's business
            self.report(sleep, f"hand-rolled retry sleeps a deterministic time: {WHY}; draw the sleep at random, "
                               f"e.g. `random.uniform(0, delay)` (full jitter)",
                        fix=policy.adapter.fix(Remedy.JITTER, policy, FixContext(self.ctx), sleep=sleep))

    def _depends_on_loop(self, arg, policy: RetryPolicy) -> bool:
        loop = policy.node
        var = loop.target.value if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) else \
            policy.loop.counter if policy.loop is not None else None
        loops = self.ctx.retried.loops
        return var is not None and isinstance(loops.max_value(arg, self.ctx.scope, var, 1), (int, float))
