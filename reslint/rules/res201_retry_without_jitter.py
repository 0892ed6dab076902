"""RES201 retry-without-jitter: deterministic waits keep clients in lockstep."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.loops import own_nodes
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
#: builtins a wait may be computed with that draw nothing at random
_PURE_BUILTINS = frozenset({"min", "max", "abs", "round", "int", "float", "pow"})
#: in-place steps that grow a delay (``delay *= 2``, ``delay += step``)
_GROWTH = (cst.MultiplyAssign, cst.AddAssign, cst.PowerAssign, cst.LeftShiftAssign)


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
        if wait.jitter is not Jitter.NO or wait.zero or not policy.retries or short_waits(policy):
            return
        adapter = policy.adapter
        self.report(policy.node, f"{adapter.label} waits a deterministic time ({policy.wait_name}): {WHY}; "
                                 f"{adapter.advice(Remedy.JITTER, policy) or ADVICE}",
                    fix=adapter.fix(Remedy.JITTER, policy, FixContext(self.ctx)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        """Each sleep on its own: deterministic, fully known and not server-directed."""
        if not policy.retries:
            return
        if not loop.bound and short_waits(policy):
            return  # (a retry helper's defaults are only its callers' starting point)
        with self.ctx.bound_params(loop.bound or {}):  # a retry helper's loop: read with its defaults
            self._check_sleeps(policy, loop)

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
        """A wait of unknown length that grows with the attempts by arithmetic alone: it reads the
        attempt number (``self.retry_delay * 2 ** attempt``) or a delay the loop steps itself
        (``delay *= 2``, ``delay = min(delay * 2, cap)``), and nothing in it, nor in the names it
        reads, comes from a call that could draw at random (only ``min``, ``max`` and the like).
        Its base is a parameter or an attribute, but every client sleeps the same schedule."""
        loop = policy.node
        if not _pure(arg) or not isinstance(loop, (cst.For, cst.While)):
            return False  # (a retry by recursion passes its delay on: not read here)
        reads = {n.value for n in _expression_nodes(arg) if isinstance(n, cst.Name)}
        counter = loop.target.value if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) else \
            policy.loop.counter if policy.loop is not None else None
        stepped = set()
        for node in own_nodes(loop.body):
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and not _pure(node.value) and \
                    node.target.value in reads:
                return False  # ``delay += random.uniform(0, 1)``: drawn in the loop
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and \
                    isinstance(node.operator, _GROWTH) and _pure(node.value):
                stepped.add(node.target.value)
            elif isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                name = node.targets[0].target.value
                if _pure(node.value) and name in {n.value for n in _expression_nodes(node.value) if isinstance(n, cst.Name)}:
                    stepped.add(name)  # ``delay = min(delay * 2, cap)``
        if not ((counter is not None and counter in reads) or reads & stepped):
            return False
        if reads <= stepped and self._short_growth(arg, loop, policy):
            return False
        for name in reads - {counter}:
            for binding in self.ctx.lookup(name, self.ctx.scope) or ():
                if binding.kind in ("assign", "aug") and binding.value is not None and not _pure(binding.value):
                    return False  # ``delay = random.uniform(1, 2)`` before the loop: drawn per client
                if binding.kind in ("for", "with", "unpack", "other", "import"):
                    return False  # (an imported name the project pass could not read: nothing is guessed)
        return True

    def _short_growth(self, arg, loop, policy: RetryPolicy) -> bool:
        """``sleep(delay)`` where ``delay = 0.1`` before the loop and ``delay *= 2`` (or ``+=``) in
        it, with numbers: whether every wait the attempts reach stays below :data:`SHORT_WAIT_S`
        (the largest is the start stepped once per wait but the first)."""
        if not isinstance(arg, cst.Name) or not isinstance(policy.attempts, int):
            return False
        steps = [n for n in own_nodes(loop.body) if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)
                 and n.target.value == arg.value]
        start = [b for b in self.ctx.lookup(arg.value, self.ctx.scope) or () if b.kind == "assign"]
        if len(steps) != 1 or len(start) != 1 or not isinstance(steps[0].value, (cst.Integer, cst.Float)) or \
                not isinstance(start[0].value, (cst.Integer, cst.Float)):
            return False
        value, step = float(start[0].value.evaluated_value), float(steps[0].value.evaluated_value)
        for _ in range(max(policy.attempts - 2, 0)):
            if isinstance(steps[0].operator, cst.MultiplyAssign):
                value *= step
            elif isinstance(steps[0].operator, cst.AddAssign):
                value += step
            else:
                return False
            if value >= SHORT_WAIT_S:
                return False
        return value < SHORT_WAIT_S

    def _depends_on_loop(self, arg, policy: RetryPolicy) -> bool:
        loop = policy.node
        var = loop.target.value if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) else \
            policy.loop.counter if policy.loop is not None else None
        loops = self.ctx.retried.loops
        return var is not None and isinstance(loops.max_value(arg, self.ctx.scope, var, 1), (int, float))


def _expression_nodes(expr):
    from reslint.semantics.walk import expressions
    return expressions(expr)


def _pure(expr) -> bool:
    """Whether ``expr`` calls nothing but builtins that draw nothing (``min(delay * 2, cap)``)."""
    return all(not isinstance(n, cst.Call) or (isinstance(n.func, cst.Name) and n.func.value in _PURE_BUILTINS)
               for n in _expression_nodes(expr))
