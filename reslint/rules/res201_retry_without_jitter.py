"""RES201 retry-without-jitter: deterministic waits keep clients in lockstep."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.loops import try_of
from reslint.analysis.retry import local_resource_only
from reslint.diagnostics import Applicability
from reslint.model.policy import Jitter, LoopFacts, RetryPolicy
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule

WHY = ("without jitter every client that failed together retries together, hitting the recovering service in "
       "synchronised waves")
ADVICE = "add a random component to the wait"
#: waits shorter than this (seconds) are not judged: clients that failed together are already
#: spread over more than that by their own latency and scheduling, so a random draw within it buys
#: little; in the judged sample every sub-second deterministic wait was judged false (a local
#: lock's 10 ms poll, 0.1-0.4 s pauses after a conflict or a one-off 5xx)
SHORT_WAIT_S = 1.0
#: how many waits are looked at when the attempts are unknown
_WAITS_SEEN = 8


def short_waits(policy: RetryPolicy) -> bool:
    """Whether every wait of ``policy`` is known and below :data:`SHORT_WAIT_S`."""
    attempts = policy.attempts
    if isinstance(attempts, int):  # the last failed attempt waits too when the loop sleeps at its end
        count = min(attempts if policy.wait.trailing else attempts - 1, _WAITS_SEEN)
    else:
        count = _WAITS_SEEN
    waits = [policy.wait.bound(k) for k in range(1, max(count, 1) + 1)]
    return all(isinstance(w, (int, float)) and w < SHORT_WAIT_S for w in waits)


class RetryWithoutJitter(PolicyRule):
    code = "RES201"
    fix_applicability = Applicability.SAFE

    def check_library(self, policy: RetryPolicy) -> None:
        wait = policy.wait
        if wait.jitter is not Jitter.NO or wait.zero or not policy.retries or short_waits(policy) or \
                self._local(policy):
            return
        adapter = policy.adapter
        self.report(policy.node, f"{adapter.label} waits a deterministic time ({policy.wait_name}): {WHY}; "
                                 f"{adapter.advice(Remedy.JITTER, policy) or ADVICE}",
                    fix=adapter.fix(Remedy.JITTER, policy, FixContext(self.ctx)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        """Each sleep on its own: deterministic, fully known and not server-directed."""
        if not policy.retries:
            return
        tried = {id(t): t.body for t in (try_of(h, policy.node) for h in loop.handlers) if t is not None}
        if loop.sleeps and all(id(s) in loop.sleeps_in_handlers for s in loop.sleeps) and \
                local_resource_only(policy, list(tried.values()), self.ctx, self.ctx.scope):
            return  # every wait follows a local resource's error in local work: a wait for a neighbour
        if not loop.bound and short_waits(policy):
            return  # (a retry helper's defaults are only its callers' starting point)
        with self.ctx.bound_params(loop.bound or {}):  # a retry helper's loop: read with its defaults
            self._check_sleeps(policy, loop)

    def _local(self, policy: RetryPolicy) -> bool:
        """:func:`local_resource_only` for a library's retry, read on the function it retries."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return False
        inner = self.ctx.opened_scope(scope.node)
        return inner is not None and local_resource_only(policy, [scope.node], self.ctx, inner)

    def _check_sleeps(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        loops = self.ctx.retried.loops
        for sleep in loop.sleeps:
            arg = sleep.args[0].value if sleep.args and not sleep.args[0].star else None
            if arg is None or loops.jittered(arg, self.ctx.scope) or loops.reads_retry_after(arg, self.ctx.scope):
                continue
            value = loops.max_value(arg, self.ctx.scope, None, 1)
            if not isinstance(value, (int, float)) and not self._depends_on_loop(arg, policy) and \
                    not self._grows_without_chance(arg, policy):
                continue  # a delay from a parameter or call may already be random
            if value == 0:
                continue  # no wait at all is RES205's business
            self.report(sleep, f"hand-rolled retry sleeps a deterministic time: {WHY}; draw the sleep at random, "
                               f"e.g. `random.uniform(0, delay)` (full jitter)",
                        fix=policy.adapter.fix(Remedy.JITTER, policy, FixContext(self.ctx), sleep=sleep))

    def _grows_without_chance(self, arg, policy: RetryPolicy) -> bool:
        """A wait of unknown length grown by arithmetic alone (:meth:`LoopAnalyzer.grows_without_chance`)."""
        loop = policy.node
        if not isinstance(loop, (cst.For, cst.While)):
            return False  # (a retry by recursion passes its delay on: not read here)
        return self.ctx.retried.loops.grows_without_chance(arg, loop, _counter(policy), policy.attempts,
                                                           self.ctx.scope, SHORT_WAIT_S)

    def _depends_on_loop(self, arg, policy: RetryPolicy) -> bool:
        var = _counter(policy)
        loops = self.ctx.retried.loops
        return var is not None and isinstance(loops.max_value(arg, self.ctx.scope, var, 1), (int, float))



def _counter(policy: RetryPolicy):
    """The name that numbers a loop's attempts: its ``for`` target, or a counter kept by hand."""
    loop = policy.node
    if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name):
        return loop.target.value
    return policy.loop.counter if policy.loop is not None else None
