"""tenacity: ``@retry(...)``, ``Retrying(...)``/``AsyncRetrying(...)`` iterators and callables.

Facts from tenacity/stop.py, wait.py, retry.py and __init__.py (9.2.1); see
``research/retry-semantics.md`` section 1. ``retry(**kw)`` builds ``Retrying(**kw)``: the
positional parameters of the iterator are ``sleep, stop, wait``. With no ``stop=`` it never
stops; with no ``wait=`` it retries at once; with no ``retry=`` it retries every exception;
without ``reraise=True`` a caller sees ``tenacity.RetryError`` after the last attempt.
"""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from reslint.semantics.cstutil import add_keyword_arg, format_seconds, source
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, copyable, spell, with_callee
from reslint.libraries.base import (
    FixContext, Remedy, RetryAdapter, Site, narrow_catch_all, replace_value_fix, roles, merge,
)
from reslint.model.policy import (
    Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape, retried_union, wait_chain, wait_sum,
)
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, is_number, looser_cap, mul, scaled_power, tighter_cap

#: stop strategies (tenacity/stop.py): name -> (what it bounds, positional parameter names)
STOPS = {
    "tenacity.stop_after_attempt": ("attempts", ("max_attempt_number",)),
    "tenacity.stop.stop_after_attempt": ("attempts", ("max_attempt_number",)),
    "tenacity.stop_after_delay": ("delay", ("max_delay",)),
    "tenacity.stop.stop_after_delay": ("delay", ("max_delay",)),
    "tenacity.stop_before_delay": ("delay", ("max_delay",)),  # 8.3.0+, hard-ish
    "tenacity.stop.stop_before_delay": ("delay", ("max_delay",)),
    "tenacity.stop_never": ("never", ()),
    "tenacity.stop.stop_never": ("never", ()),
    "tenacity.stop_any": ("any", ()),
    "tenacity.stop.stop_any": ("any", ()),
    "tenacity.stop_all": ("all", ()),
    "tenacity.stop.stop_all": ("all", ()),
}

#: wait strategies (tenacity/wait.py): name -> (shape, positional parameter names, defaults)
WAITS = {
    "wait_none": ("none", (), {}),
    "wait_fixed": ("fixed", ("wait",), {}),
    "wait_random": ("random", ("min", "max"), {"min": 0, "max": 1}),
    "wait_incrementing": ("incrementing", ("start", "increment", "max"), {"start": 0, "increment": 100, "max": None}),
    "wait_exponential": ("exponential", ("multiplier", "max", "exp_base", "min"),
                         {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_random_exponential": ("random_exponential", ("multiplier", "max", "exp_base", "min"),
                                {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_full_jitter": ("random_exponential", ("multiplier", "max", "exp_base", "min"),
                         {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_exponential_jitter": ("exponential_jitter", ("initial", "max", "exp_base", "jitter"),
                                {"initial": 1, "max": None, "exp_base": 2, "jitter": 1}),
    "wait_chain": ("chain", (), {}),
    "wait_combine": ("sum", (), {}),
}

#: retry predicates (tenacity/retry.py): name -> what they retry
PREDICATES = {
    "retry_if_exception_type": "types",
    "retry_if_not_exception_type": "not_types",
    "retry_unless_exception_type": "not_types",
    "retry_if_exception_cause_type": "types",
    "retry_if_exception": "function",
    "retry_if_result": "result",
    "retry_if_not_result": "result",
    "retry_if_exception_message": "message",
    "retry_if_not_exception_message": "message",
    "retry_always": "any",
    "retry_never": "never",
    "retry_any": "union",
    "retry_all": "intersection",
}

#: composed stops, waits and predicates are read this deep (deeper is unknown): real code nests
#: two or three levels, and a bound keeps a pathological expression from costing time
MAX_DEPTH = 8

#: the iterator's positional parameters (``Retrying(sleep, stop, wait, ...)``)
ITERATOR_POSITIONAL = ("sleep", "stop", "wait")
#: what the reader takes from ``retry(...)`` and the iterators (``Retrying.__init__``'s parameters)
KEYWORDS = ("stop", "wait", "retry", "reraise")


def canonical_name(qual: Optional[str]) -> Optional[str]:
    """``tenacity.stop.stop_after_attempt`` and ``tenacity.stop_after_attempt`` alike."""
    if not qual or not qual.startswith("tenacity."):
        return qual
    parts = qual.split(".")
    if len(parts) == 3 and parts[1] in ("stop", "wait", "retry", "asyncio"):
        return f"tenacity.{parts[2]}"
    return qual


def _short(reader: PolicyReader, func, scope) -> Optional[str]:
    """The strategy's short name (``wait_fixed``) when ``func`` names one of tenacity's."""
    name = canonical_name(reader.qualname(func, scope))
    return name.rsplit(".", 1)[-1] if name and name.startswith("tenacity.") else None


class Tenacity(RetryAdapter):
    name = "tenacity"
    #: tenacity/__init__.py ``retry``: a coroutine function gets AsyncRetrying, any other callable (a
    #: generator or async generator function too) the sync Retrying, whose call returns the generator
    retries_generators = False
    spellings = merge(roles("tenacity.retry", role=Role.DECORATOR),
                      roles("tenacity.Retrying", "tenacity.AsyncRetrying", "tenacity.asyncio.AsyncRetrying",
                            role=Role.ITERATOR))
    trigger_modules = ("tenacity",)
    give_up_error = "tenacity.RetryError"
    retries_callables = True
    callable_policies = ("tenacity.Retrying", "tenacity.AsyncRetrying")
    keywords = {qualname: KEYWORDS for qualname in spellings}

    # -- reading -----------------------------------------------------------------------------
    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call, ITERATOR_POSITIONAL if site.role is not Role.DECORATOR else ())
        if call is not None and (args.star or args.extra_positional):
            return self.policy(site)  # positional use of retry(...) is a bug and **kwargs is unknown
        stop = args.expr("stop")
        attempts, max_delay_s, stop_all = self._stop(reader, stop, scope)
        reraise = reader.given(args, "reraise", False, scope)
        return self.policy(site, attempts=attempts, max_delay_s=max_delay_s, stop_all=stop_all, stop_node=stop,
                           wait=self._wait(reader, args.expr("wait"), scope),
                           retried=self._retried(reader, args.expr("retry"), scope),
                           reraise=bool(reraise) if reraise is not UNKNOWN else True)

    def _stop(self, reader: PolicyReader, expr, scope, depth: int = 0):
        """(attempts, max delay seconds, stop_all trap) of a stop expression."""
        if expr is None:
            return None, None, False  # stop_never
        if depth > MAX_DEPTH:
            return UNKNOWN, UNKNOWN, False
        expr, scope = reader.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitOr, cst.BitAnd)):
            left = self._stop(reader, expr.left, scope, depth + 1)
            right = self._stop(reader, expr.right, scope, depth + 1)
            if isinstance(expr.operator, cst.BitOr):
                return tighter_cap(left[0], right[0]), tighter_cap(left[1], right[1]), left[2] or right[2]
            return looser_cap(left[0], right[0]), looser_cap(left[1], right[1]), True
        qual = reader.qualname(expr.func if isinstance(expr, cst.Call) else expr, scope)
        known = STOPS.get(canonical_name(qual))
        if known is None:
            return UNKNOWN, UNKNOWN, False
        what, params = known
        if what == "never":
            return None, None, False
        if not isinstance(expr, cst.Call):
            return UNKNOWN, UNKNOWN, False
        if what in ("any", "all"):
            return self._stops(reader, expr, scope, depth, what)
        if what == "attempts":
            return reader.count(Args(expr, params), params[0], UNKNOWN, scope), None, False
        return None, reader.number(Args(expr, params), params[0], UNKNOWN, scope=scope), False

    def _stops(self, reader: PolicyReader, expr: cst.Call, scope, depth: int, what: str):
        """``stop_any(a, b, ...)`` (the tightest caps) or ``stop_all(...)`` (the loosest)."""
        parts = [self._stop(reader, a.value, scope, depth + 1) for a in expr.args if not a.star]
        if not parts or any(a.star for a in expr.args):
            return UNKNOWN, UNKNOWN, False
        combine = tighter_cap if what == "any" else looser_cap
        attempts, delay = parts[0][0], parts[0][1]
        for part in parts[1:]:
            attempts, delay = combine(attempts, part[0]), combine(delay, part[1])
        return attempts, delay, what == "all" or any(p[2] for p in parts)

    def _wait(self, reader: PolicyReader, expr, scope, depth: int = 0) -> Wait:
        if expr is None:
            return Wait.none()
        if depth > MAX_DEPTH:
            return Wait.unknown(expr)
        node = expr
        expr, scope = reader.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            return wait_sum([self._wait(reader, expr.left, scope, depth + 1),
                             self._wait(reader, expr.right, scope, depth + 1)], node)
        if not isinstance(expr, cst.Call):
            return Wait.unknown(node)
        known = WAITS.get(_short(reader, expr.func, scope) or "")
        if known is None:
            return Wait.unknown(node)
        shape, positional, defaults = known
        if shape in ("sum", "chain"):
            parts = [self._wait(reader, a.value, scope, depth + 1) for a in expr.args]
            if not parts or any(a.star for a in expr.args):
                return Wait.unknown(node)
            return wait_sum(parts, node) if shape == "sum" else wait_chain(parts, node)
        args = Args(expr, positional)
        if args.star:
            return Wait.unknown(node)
        p = {k: reader.number(args, k, defaults.get(k, UNKNOWN), scope=scope) for k in positional}
        return _strategy(shape, p, node)

    def _retried(self, reader: PolicyReader, expr, scope, depth: int = 0) -> Retried:
        if expr is None:
            return Retried(RetriedKind.ANY, ("Exception",), default=True)
        if depth > MAX_DEPTH:
            return Retried(RetriedKind.UNKNOWN, node=expr)
        node = expr
        expr, scope = reader.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitOr, cst.BitAnd)):
            return retried_union([self._retried(reader, expr.left, scope, depth + 1),
                                  self._retried(reader, expr.right, scope, depth + 1)], node)
        func = expr.func if isinstance(expr, cst.Call) else expr
        kind = PREDICATES.get(_short(reader, func, scope) or "")
        call = expr if isinstance(expr, cst.Call) else None
        if kind is None:
            return Retried(RetriedKind.UNKNOWN, node=node)
        if kind == "not_types":  # every exception but these
            excluded = reader.exception_types(call.args[0].value, scope) if call is not None and call.args else None
            if excluded is None:
                return Retried(RetriedKind.ANY, ("Exception",), node=node, filtered=True)
            return Retried(RetriedKind.ANY, ("Exception",), node=node, excluded=excluded)
        if kind == "any":
            return Retried(RetriedKind.ANY, ("Exception",), node=node)
        if kind in ("result", "never"):
            return Retried(RetriedKind.RESULT, node=node)
        if kind == "message":
            return Retried(RetriedKind.UNKNOWN, node=node)
        if kind in ("union", "intersection"):
            if call is None:
                return Retried(RetriedKind.UNKNOWN, node=node)
            return retried_union([self._retried(reader, a.value, scope, depth + 1) for a in call.args], node)
        if kind == "types":
            if call is None or not call.args:
                return Retried(RetriedKind.ANY, ("Exception",), node=node)
            types = reader.exception_types(call.args[0].value, scope)
            return Retried(RetriedKind.TYPES, types, node=node) if types is not None else \
                Retried(RetriedKind.UNKNOWN, node=node)
        if call is None or not call.args:  # "function"
            return Retried(RetriedKind.UNKNOWN, node=node)
        return reader.predicate_function(call.args[0].value, scope, node)

    # -- fixes -------------------------------------------------------------------------------
    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        if remedy is Remedy.JITTER:
            return replace_value_fix(self._jitter(policy, fx), policy, policy.wait.node, fx)
        if remedy is Remedy.TIME_CAP:
            return replace_value_fix(self._time_cap(policy, fx, params["limit_s"]), policy, policy.stop_node, fx)
        if remedy is Remedy.BOUNDS:
            return self._bounds(policy, fx, params["limit_s"])
        if remedy is Remedy.COMBINE_STOPS:
            return replace_value_fix(_combine_stops(policy.stop_node), policy, policy.stop_node, fx)
        if remedy is Remedy.NARROW:
            return self._narrow(policy, fx, params["transient"], params["imports"])
        if remedy is Remedy.BACKOFF:
            return self._backoff(policy, fx)
        if remedy is Remedy.EXCLUDE:
            return self._exclude(policy, fx, params["error"], params["imports"])
        return None

    def _jitter(self, policy: RetryPolicy, fx: FixContext) -> Optional[FixPlan]:
        """``wait_exponential`` → ``wait_random_exponential``; ``wait_fixed(n)`` → ``+ wait_random(0, n)``."""
        wait = policy.wait.node
        if not isinstance(wait, cst.Call):
            return None
        name = (fx.ctx.qualname(wait.func) or "").rsplit(".", 1)[-1]
        if name == "wait_exponential":
            spelled, imports = spell(fx.ctx, "tenacity.wait_random_exponential", fx.scope)
            new = with_callee(wait, spelled) if spelled else None
            if new is not None:
                unused = (wait.func.value,) if isinstance(wait.func, cst.Name) else ()
                return FixPlan("Use `wait_random_exponential` with the same bounds (full jitter)", Applicability.SAFE,
                               ((wait, new),), imports, unused=unused)
        if name in ("wait_fixed", "wait_incrementing") and wait.args:
            first = wait.args[0]
            if name == "wait_fixed" and (first.star or not copyable(first.value)):
                return None  # the random term would evaluate the wait's expression a second time
            spelled, imports = spell(fx.ctx, "tenacity.wait_random", fx.scope)
            if spelled is None:
                return None
            span = source(first.value) if name == "wait_fixed" else "1"
            addition = cst.parse_expression(f"{spelled}(0, {span})")
            new = cst.BinaryOperation(left=wait, operator=cst.Add(), right=addition)
            return FixPlan(f"Add a random term: `+ {spelled}(0, {span})`", Applicability.SAFE, ((wait, new),), imports)
        return None

    def _time_cap(self, policy: RetryPolicy, fx: FixContext, limit_s: float) -> Optional[FixPlan]:
        """``stop=X`` → ``stop=X | stop_after_delay(limit)``."""
        if policy.stop_node is None:
            return None
        seconds = format_seconds(limit_s)
        spelled, imports = spell(fx.ctx, "tenacity.stop_after_delay", fx.scope)
        if spelled is None:
            return None
        new = cst.BinaryOperation(left=policy.stop_node, operator=cst.BitOr(),
                                  right=cst.parse_expression(f"{spelled}({seconds})"))
        return FixPlan(f"Add `| {spelled}({seconds})`", Applicability.SAFE, ((policy.stop_node, new),), imports)

    def _bounds(self, policy: RetryPolicy, fx: FixContext, limit_s: float) -> Optional[FixPlan]:
        """No ``stop=``: add ``stop=stop_after_attempt(5) | stop_after_delay(limit)``."""
        if policy.stop_node is not None:
            return None
        limit = format_seconds(limit_s)
        call = policy.call
        attempt, imports = spell(fx.ctx, "tenacity.stop_after_attempt", fx.scope)
        delay, more = spell(fx.ctx, "tenacity.stop_after_delay", fx.scope)
        if call is None or attempt is None or delay is None:
            return None
        value = cst.parse_expression(f"{attempt}(5) | {delay}({limit})")
        return FixPlan(f"Add `stop={attempt}(5) | {delay}({limit})`", Applicability.SAFE,
                       ((call, add_keyword_arg(call, "stop", value)),), tuple(dict.fromkeys(imports + more)))

    def _narrow(self, policy: RetryPolicy, fx: FixContext, transient: str, imports: Tuple[str, ...]):
        """The default predicate gets ``retry=retry_if_exception_type(...)``; a catch-all type in
        ``retry_if_exception_type(Exception)`` is replaced."""
        call, retried = policy.call, policy.retried
        if retried.default:
            predicate, more = spell(fx.ctx, "tenacity.retry_if_exception_type", fx.scope)
            if predicate is None:
                return None
            value = cst.parse_expression(f"{predicate}({transient})")
            return FixPlan(f"Retry only `{transient}`", Applicability.UNSAFE,
                           ((call, add_keyword_arg(call, "retry", value)),), imports + more)
        node = retried.node
        if isinstance(node, cst.Call) and len(node.args) == 1:
            node = node.args[0].value
        return narrow_catch_all(node, policy, transient, imports, fx)

    def _exclude(self, policy: RetryPolicy, fx: FixContext, error: str, imports: Tuple[str, ...]):
        """``retry=P`` becomes ``retry=P & retry_if_not_exception_type(error)`` (both must hold to
        retry); with no ``retry=``, ``retry=retry_if_not_exception_type(error)``."""
        call = policy.call
        if call is None or any(a.star for a in call.args):
            return None
        predicate, more = spell(fx.ctx, "tenacity.retry_if_not_exception_type", fx.scope)
        if predicate is None:
            return None
        exclusion = f"{predicate}({error})"
        given = next((a for a in call.args if a.keyword is not None and a.keyword.value == "retry"), None)
        if given is None:
            edit = (call, add_keyword_arg(call, "retry", cst.parse_expression(exclusion)))
        else:
            value = cst.BinaryOperation(left=given.value, operator=cst.BitAnd(),
                                        right=cst.parse_expression(exclusion))
            edit = (given.value, value)
        return replace_value_fix(FixPlan(f"Do not retry `{error}`", Applicability.SAFE, (edit,), imports + more),
                                 policy, edit[0], fx)

    def _backoff(self, policy: RetryPolicy, fx: FixContext) -> Optional[FixPlan]:
        """No ``wait=``: add ``wait=wait_random_exponential(multiplier=0.5, max=10)``."""
        call = policy.call
        if call is None or any(a.keyword is not None and a.keyword.value == "wait" for a in call.args):
            return None
        spelled, imports = spell(fx.ctx, "tenacity.wait_random_exponential", fx.scope)
        if spelled is None:
            return None
        value = cst.parse_expression(f"{spelled}(multiplier=0.5, max=10)")
        return FixPlan(f"Add `wait={spelled}(multiplier=0.5, max=10)`", Applicability.SAFE,
                       ((call, add_keyword_arg(call, "wait", value)),), imports)

    advice_text = {
        Remedy.EXCLUDE: "add `retry_if_not_exception_type(...)` of that error to `retry=`",
        Remedy.JITTER: "use `wait_random_exponential` or add `+ wait_random(0, n)`",
        Remedy.TIME_CAP: "add `| stop_after_delay({limit_s:g})` to `stop=`",
        Remedy.BOUNDS: "pass `stop=stop_after_attempt(N) | stop_after_delay(T)`",
        Remedy.BACKOFF: "pass `wait=wait_random_exponential(...)` (tenacity's default is `wait_none`)",
    }


def _strategy(shape: str, p: dict, node) -> Wait:
    """The wait of one strategy call, from its parameters ``p`` (seconds)."""
    if shape == "none":
        return Wait.none(node)
    if shape == "fixed":
        fixed = p["wait"]
        return Wait(WaitShape.FIXED, Jitter.NO, lambda k: fixed, node, zero=(fixed == 0))
    if shape == "random":
        low, high = p["min"], p["max"]
        jitter = Jitter.NO if is_number(low) and is_number(high) and low == high else Jitter.YES
        return Wait(WaitShape.RANDOM, jitter, lambda k: high, node, zero=(high == 0))
    if shape == "incrementing":
        return Wait(WaitShape.INCREMENTING, Jitter.NO,
                    lambda k: clamp(add(p["start"], mul(p["increment"], k - 1)), None, p["max"]), node)
    if shape in ("exponential", "random_exponential"):
        jitter = Jitter.NO if shape == "exponential" else Jitter.YES
        return Wait(WaitShape(shape), jitter,
                    lambda k: clamp(mul(p["multiplier"], scaled_power(p["exp_base"], k - 1)), p["min"], p["max"]),
                    node)
    if shape == "exponential_jitter":
        return Wait(WaitShape.EXPONENTIAL_JITTER, Jitter.PARTIAL,
                    lambda k: clamp(add(mul(p["initial"], scaled_power(p["exp_base"], k - 1)), p["jitter"]), None,
                                    p["max"]), node)
    return Wait.unknown(node)


def _combine_stops(node) -> Optional[FixPlan]:
    """``stop=a & b`` → ``stop=a | b`` (same spacing)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
        operator = cst.BitOr(whitespace_before=node.operator.whitespace_before,
                             whitespace_after=node.operator.whitespace_after)
        return FixPlan("Combine the stops with `|`", Applicability.SAFE,
                       ((node, node.with_changes(operator=operator)),))
    return None


ADAPTER = Tenacity()
