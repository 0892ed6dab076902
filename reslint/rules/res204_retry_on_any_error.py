"""RES204 retry-on-any-error: a retry on every exception, or on errors a retry cannot fix."""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Sequence, Tuple

import libcst as cst

from reslint.analysis.breakers import open_circuit_retry
from reslint.analysis.loops import gives_up_on_some, is_raise_for_status, own_nodes, separated_before, \
    unguarded_raise_for_status
from reslint.analysis.timeouts import read_call_timeout
from reslint.catalog import retries as cat
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, spell
from reslint.model.policy import LoopFacts, RetriedKind, RetryPolicy, Role
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule
from reslint.semantics.walk import children, expressions

WHY = "bugs and client errors (4xx, bad input, auth) fail the same way on every attempt, so retrying only adds load " \
      "and delays the real error"
#: what a narrowing to connection errors and timeouts stops retrying when the retried code raises for status
DROPPED = "; the HTTP errors `raise_for_status()` raises (429 and 5xx too) are then no longer retried: retry " \
          "those by status"


class RetryOnAnyError(PolicyRule):
    code = "RES204"
    fix_applicability = Applicability.UNSAFE

    def check(self, policy: RetryPolicy) -> None:
        if policy.retries and open_circuit_retry(policy, self.ctx) is None:  # else it is RES501's
            super().check(policy)

    def check_library(self, policy: RetryPolicy) -> None:
        problem = self.problem(policy)
        if problem:
            how = policy.adapter.advice(Remedy.NARROW, policy)
            self.report(policy.node, f"{policy.adapter.label} {problem}: {WHY}; retry only transient errors "
                                     f"(connection errors, timeouts, 429, 5xx)" + (f": {how}" if how else ""),
                        fix=self._narrow(policy))

    def problem(self, policy: RetryPolicy) -> Optional[str]:
        """Why what the policy retries is too broad, or ``None``."""
        retried = policy.retried
        if policy.role is Role.OBJECT and retried.kind is RetriedKind.STATUS:  # a client's status retries
            bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
            return f"retries client errors ({', '.join(map(str, bad))} in status_forcelist)" if bad else None
        if retried.reasks and (retried.kind is RetriedKind.ANY or set(retried.types) & cat.CATCH_ALL):
            return None  # re-asks after a reply that does not parse, which only a broad predicate catches
        if retried.classified and (retried.kind is RetriedKind.ANY or set(retried.types) & cat.CATCH_ALL):
            return None  # its handlers test each error and give up on those they do not retry
        if retried.kind is RetriedKind.ANY:
            return "retries every exception" + (" (the default predicate)" if retried.default else "")
        if retried.kind not in (RetriedKind.TYPES, RetriedKind.FUNCTION):
            return None
        found = classify(sorted(retried.types), retried.checks_status, lambda: self._raises_for_status(policy),
                         raised=self._raised_here(policy))
        kind, name = found or (None, "")
        if kind is CATCH_ALL:
            return f"retries `{name}`, that is every error"
        if kind is NEVER_TRANSIENT:
            return f"retries `{name}`, which no retry can fix"
        bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
        if bad and retried.checks_status:
            return f"retries HTTP {', '.join(map(str, bad))}"
        if kind is None:
            return None
        if kind is ANY_STATUS:
            return f"retries every `{name}` (4xx included) with no status check"
        return f"retries `{name}` while `raise_for_status()` turns every 4xx into one"

    def _transient(self, policy: RetryPolicy):
        """(the transient errors as new code spells them, imports) for the one HTTP client library
        the retried code calls (catalog ``TRANSIENT_ERRORS``), or None. A guess at what is
        transient, hence an unsafe fix."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return None
        called = set()  # the top-level modules of the timeout-bearing calls
        for node in expressions(scope.node):
            if isinstance(node, cst.Call):
                reading = read_call_timeout(node, self.ctx)
                if reading is not None:
                    called.add(reading.spec.qualname.split(".")[0])
        known = called & set(cat.TRANSIENT_ERRORS)
        if len(known) != 1 or called - known:
            return None
        names, imports = [], ()
        for dotted in cat.TRANSIENT_ERRORS[known.pop()]:
            spelled, needed = spell(self.ctx, dotted)
            if spelled is None:
                return None
            names.append(spelled)
            imports += tuple(i for i in needed if i not in imports)
        text = names[0] if len(names) == 1 else f"({', '.join(names)})"
        return text, imports

    def _narrow(self, policy: RetryPolicy):
        transient = self._transient(policy)
        if transient is None or policy.call is None:
            return None
        text, imports = transient
        plan = policy.adapter.fix(Remedy.NARROW, policy, FixContext(self.ctx), transient=text, imports=imports)
        return self._say_dropped(plan, policy)

    def _say_dropped(self, plan: Optional[FixPlan], policy: RetryPolicy) -> Optional[FixPlan]:
        """The narrowing keeps connection errors and timeouts only: when the retried code raises
        for status, the fix says which retries it drops (its statuses are not an exception type)."""
        scope = self.ctx.retried.scope_of(policy)
        if plan is None or scope is None or not any(is_raise_for_status(n) for n in expressions(scope.node)):
            return plan
        return dataclasses.replace(plan, message=plan.message + DROPPED)

    def _raised_here(self, policy: RetryPolicy) -> frozenset:
        """The exception types the retried code raises itself (``raise ValueError("empty reply,
        retry")``): its own signal to try again, which a retry is meant to catch."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return frozenset()
        inner = self.ctx.model.scopes.get(id(scope.node))
        out = set()
        for node in own_nodes(scope.node):
            if isinstance(node, cst.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
                out.update(self.ctx.retries.exception_types(raised, inner) or ())
        return frozenset(out)

    def _raises_for_status(self, policy: RetryPolicy) -> bool:
        """Whether the retried code reaches ``raise_for_status()`` with a 4xx no retry fixes
        (a status check in front of it may let only the retried statuses through)."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return False
        return unguarded_raise_for_status(scope.node, self.ctx, self.ctx.model.scopes.get(id(scope.node)))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        checks_status = policy.retried.checks_status
        layer = policy.adapter.layer_label  # "retry loop", "recursive retry"
        for handler in loop.handlers:
            if gives_up_on_some(handler):
                continue  # catches broadly, then re-raises what it does not retry: a filter
            if separated_before(handler, policy.node, self.ctx.retries.exception_types):
                continue  # an earlier handler took out the errors no retry fixes: the rest is retried
            if handler.type is None:
                self.report(handler, f"{layer} catches everything with a bare `except:` (KeyboardInterrupt and "
                                     f"SystemExit too): {WHY}; catch the transient errors only")
                continue
            types = self.ctx.retries.exception_types(handler.type) or ()
            found = classify(types, checks_status, lambda: loop.raise_for_status, status_errors=False,
                             raised=self._raised_here(policy))
            if found is None:
                continue
            kind, name = found
            if kind is CATCH_ALL:
                fix = None
                transient = self._transient(policy)
                if transient is not None and isinstance(handler.type, (cst.Name, cst.Attribute)):
                    fix = self._say_dropped(FixPlan(f"Catch only `{transient[0]}`", Applicability.UNSAFE,
                                                    ((handler.type, cst.parse_expression(transient[0])),),
                                                    transient[1]), policy)
                self.report(handler, f"{layer} catches `{name}`: {WHY}; catch the transient errors only", fix=fix)
            elif kind is NEVER_TRANSIENT:
                self.report(handler, f"{layer} retries `{name}`, which no retry can fix: {WHY}")
            else:
                self.report(handler, f"{layer} retries `{name}` while `raise_for_status()` turns every 4xx "
                                     f"into one: {WHY}; check the status code before retrying")

#: what :func:`classify` finds in a set of retried exception types
CATCH_ALL = "catch-all"  # Exception, BaseException
NEVER_TRANSIENT = "never transient"  # auth, bad request, ValueError...
ANY_STATUS = "any status"  # an HTTP status error retried whatever its status
FOR_STATUS = "raised for status"  # a broad HTTP base that raise_for_status() turns every 4xx into


def classify(types: Sequence[str], checks_status: bool, raises_for_status: Callable[[], bool],
             status_errors: bool = True, raised: frozenset = frozenset()) -> Optional[Tuple[str, str]]:
    """(kind, the first such type in ``types``) of the worst error a retry of ``types`` (canonical
    qualified names) retries that no retry can fix, or ``None``: a catch-all, then a never-transient
    error, then an HTTP status error retried whatever its status (``status_errors``: whether that
    counts; a loop's handler inspects the error itself where it must), then a broad HTTP base the
    retried code raises for every 4xx (``raises_for_status``, asked only then). ``checks_status``:
    the retry inspects a status code, which rules out the last two. ``raised``: types the retried
    code raises itself, its own signal to try again, never counted as never transient."""
    steps = ((CATCH_ALL, cat.CATCH_ALL, True), (NEVER_TRANSIENT, cat.NON_TRANSIENT_ERRORS, True),
             (ANY_STATUS, cat.STATUS_ERRORS, status_errors and not checks_status),
             (FOR_STATUS, cat.BROAD_HTTP_ERRORS, not checks_status))
    for kind, known, applies in steps:
        name = next((t for t in types if t in known and (kind is not NEVER_TRANSIENT or t not in raised)),
                    None) if applies else None
        if name is not None and (kind is not FOR_STATUS or raises_for_status()):
            return kind, name
    return None
