"""The retry policy model and its extractors, one per retry mechanism.

:class:`RetryPolicy` is the one model every retry rule reads: how many attempts
(``attempts``: an int, ``None`` for unbounded, or :data:`UNKNOWN`), the time cap
(``max_delay_s``: seconds, ``None`` for none, or :data:`UNKNOWN`), the waits
(:class:`Wait`: per-wait upper bound in seconds and whether they are jittered),
what is retried (:class:`Retried`) and whether ``Retry-After`` is honoured.
Unknown parts stay unknown; rules never report an unknown value as the fault.

Library facts (defaults, units, formulas) come from :mod:`reslint.catalog.retries`
and ``research/retry-semantics.md`` section 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from reslint.catalog import retries as cat
from reslint.context import UNKNOWN, Context

Number = object  # float | None | UNKNOWN


def _num(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plus_one(retries):
    """Attempts from a number of retries (``None``, no bound, and UNKNOWN stay as they are)."""
    return retries + 1 if _num(retries) else retries


def _whole(value):
    """A count (attempts, retries) read from a constant: an int (``10 ** 100`` stays exact),
    ``None`` (no bound) for ``inf``, UNKNOWN for NaN; ``-inf`` is 0."""
    if isinstance(value, float):
        if math.isnan(value):
            return UNKNOWN
        if math.isinf(value):
            return None if value > 0 else 0
        return int(value)
    return value


@dataclass
class Wait:
    """The waits between attempts.

    ``bound(k)`` is the largest wait (seconds) after the k-th failed attempt
    (k = 1, 2, ...), or :data:`UNKNOWN`. ``jitter`` is ``yes``, ``no``,
    ``partial`` (random, but collapses to a fixed cap) or ``unknown``.
    ``node`` is the expression a fix rewrites (``wait=...`` value), if any.
    """

    kind: str
    jitter: str
    bound: Callable[[int], Number]
    node: Optional[cst.CSTNode] = None
    zero: bool = False
    reads_retry_after: Optional[bool] = False

    @staticmethod
    def none(node=None) -> "Wait":
        return Wait("none", "no", lambda k: 0.0, node, zero=True)

    @staticmethod
    def unknown(node=None) -> "Wait":
        return Wait("unknown", "unknown", lambda k: UNKNOWN, node, reads_retry_after=None)


@dataclass
class Retried:
    """What a retry retries.

    ``kind``: ``any`` (every exception), ``types``, ``function`` (a predicate
    function we read), ``result`` (retry on a returned value), ``unknown``.
    ``types`` are canonical qualified names; ``statuses`` HTTP codes the
    predicate retries; ``checks_status`` whether it inspects a status code.
    """

    kind: str
    types: Tuple[str, ...] = ()
    statuses: frozenset = frozenset()
    checks_status: bool = False
    node: Optional[cst.CSTNode] = None
    default: bool = False


@dataclass
class RetryPolicy:
    """One retry mechanism instance, anchored at ``node`` (where its findings go)."""

    library: str
    kind: str  # decorator, iterator, caller, object, loop
    node: cst.CSTNode
    attempts: Number = UNKNOWN
    max_delay_s: Number = UNKNOWN
    wait: Wait = field(default_factory=Wait.unknown)
    retried: Retried = field(default_factory=lambda: Retried("unknown"))
    stop_all: bool = False
    respects_retry_after: Optional[bool] = None
    reraise: bool = True
    connect_only: bool = False
    status_retries: bool = False
    call: Optional[cst.Call] = None  # the constructor or decorator call, for fixes
    stop_node: Optional[cst.CSTNode] = None
    extra: Dict[str, object] = field(default_factory=dict)

    @property
    def has_attempt_cap(self) -> bool:
        return _num(self.attempts)

    @property
    def has_time_cap(self) -> bool:
        """A total-time cap exists (its size may be unknown for hand-rolled deadlines)."""
        return _num(self.max_delay_s) or bool(self.extra.get("time_capped"))


class Args:
    """A call's arguments by name, with positional names mapped; ``star`` if ``*``/``**`` used."""

    def __init__(self, call: Optional[cst.Call], positional: Sequence[str] = ()):
        self.call = call
        self.by_name: Dict[str, cst.Arg] = {}
        self.extra_positional: List[cst.Arg] = []
        self.star = False
        if call is None:
            return
        index = 0
        for arg in call.args:
            if arg.star:
                self.star = True
                continue
            if arg.keyword is not None:
                self.by_name[arg.keyword.value] = arg
            elif index < len(positional):
                self.by_name[positional[index]] = arg
                index += 1
            else:
                self.extra_positional.append(arg)
                index += 1

    def __contains__(self, name: str) -> bool:
        return name in self.by_name

    def expr(self, name: str) -> Optional[cst.BaseExpression]:
        arg = self.by_name.get(name)
        return arg.value if arg is not None else None

    def arg(self, name: str) -> Optional[cst.Arg]:
        return self.by_name.get(name)


class Extractor:
    """Builds :class:`RetryPolicy` objects for one file (memoised per node)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._memo: Dict[int, Optional[RetryPolicy]] = {}

    # -- helpers ---------------------------------------------------------------------
    def value(self, expr, scope=None):
        return UNKNOWN if expr is None else self.ctx.value_of(expr, scope)

    def number(self, args: Args, name: str, default, scale: float = 1.0, scope=None):
        """A numeric parameter (seconds after ``scale``), its default when absent, UNKNOWN if unreadable."""
        if name not in args:
            return UNKNOWN if args.star else default
        value = self.value(args.expr(name), scope)
        if value is None:
            return None
        if _num(value):
            return float(value) * scale
        return UNKNOWN

    def qualname(self, expr, scope=None) -> Optional[str]:
        return self.ctx.qualname(expr, scope)

    def _callee(self, expr, scope) -> Tuple[Optional[str], Optional[cst.Call]]:
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, cst.Call):
            return self.qualname(expr.func, scope), expr
        return self.qualname(expr, scope), None

    def exception_types(self, expr, scope=None) -> Optional[Tuple[str, ...]]:
        """Qualified names of the exception classes an expression names (a class, a tuple,
        or a constant bound to one), or ``None`` when unknown."""
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, (cst.Tuple, cst.List)):
            out: List[str] = []
            for element in expr.elements:
                inner = self.exception_types(element.value, scope)
                if inner is None:
                    return None
                out.extend(inner)
            return tuple(out)
        if isinstance(expr, cst.Name) and expr.value in ("Exception", "BaseException") and \
                self.ctx.lookup(expr.value, scope) is None:
            return (expr.value,)
        qual = self.qualname(expr, scope)
        if qual is None:
            if isinstance(expr, cst.Name) and self.ctx.lookup(expr.value, scope) is None:
                return (expr.value,)  # a builtin exception
            return None
        return (qual,)

    # -- entry points ----------------------------------------------------------------
    def for_decorator(self, decorator: cst.BaseExpression, scope=None) -> Optional[RetryPolicy]:
        """The policy of a decorator: ``@retry``, ``@retry(...)``, or ``@api_retry`` where
        ``api_retry = retry(...)`` is bound once (the policy is anchored at that call)."""
        if isinstance(decorator, cst.Name):
            target, target_scope = self.ctx.resolve(decorator, scope)
            if isinstance(target, cst.Call):
                decorator, scope = target, target_scope
        key = id(decorator)
        if key in self._memo:
            return self._memo[key]
        call = decorator if isinstance(decorator, cst.Call) else None
        func = call.func if call is not None else decorator
        qual = self.qualname(func, scope)
        policy = None
        if qual is not None:
            library = cat.RETRY_DECORATORS.get(qual)  # `app.task` resolves to celery.Celery.task
            if library is not None:
                policy = getattr(self, f"_{library}")(call, decorator, scope, "decorator", qual)
        self._memo[key] = policy
        return policy

    def for_call(self, call: cst.Call, scope=None) -> Optional[RetryPolicy]:
        """A policy built by a constructor call (``Retrying(...)``, ``Retry(...)``,
        ``retry_context(...)``, ``HTTPAdapter(max_retries=...)``, ``retry_call(fn, ...)``)."""
        key = id(call)
        if key in self._memo:
            return self._memo[key]
        qual = self.qualname(call.func, scope)
        policy = None
        if qual is not None:
            if qual in cat.RETRY_ITERATORS:
                library = cat.RETRY_ITERATORS[qual]
                policy = getattr(self, f"_{library}")(call, call, scope, "iterator", qual)
            elif qual in cat.POLICY_OBJECTS:
                library = cat.POLICY_OBJECTS[qual]
                policy = getattr(self, f"_{library}")(call, call, scope, "object", qual)
            elif qual in cat.RETRY_CALLERS:
                library = cat.RETRY_CALLERS[qual]
                policy = getattr(self, f"_{library}")(call, call, scope, "caller", qual)
            elif qual in ("google.api_core.retry.Retry", "google.api_core.retry.AsyncRetry"):
                policy = self._google(call, call, scope, "object", qual)
        self._memo[key] = policy
        return policy

    # -- tenacity --------------------------------------------------------------------
    def _tenacity(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call, ("sleep", "stop", "wait") if kind != "decorator" else ())
        policy = RetryPolicy("tenacity", kind, anchor, call=call)
        if call is not None and (args.star or args.extra_positional):
            return policy  # positional use of retry(...) is a bug and **kwargs is unknown
        stop = args.expr("stop")
        policy.stop_node = stop
        policy.attempts, policy.max_delay_s, policy.stop_all = self._tenacity_stop(stop, scope)
        policy.wait = self._tenacity_wait(args.expr("wait"), scope)
        policy.retried = self._tenacity_retried(args.expr("retry"), scope)
        reraise = self.value(args.expr("reraise"), scope) if "reraise" in args else False
        policy.reraise = bool(reraise) if reraise is not UNKNOWN else True
        policy.respects_retry_after = policy.wait.reads_retry_after
        return policy

    def _tenacity_stop(self, expr, scope, depth: int = 0):
        """(attempts, max delay seconds, stop_all trap) of a tenacity stop expression."""
        if expr is None:
            return None, None, False  # stop_never
        if depth > 8:
            return UNKNOWN, UNKNOWN, False
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitOr, cst.BitAnd)):
            left = self._tenacity_stop(expr.left, scope, depth + 1)
            right = self._tenacity_stop(expr.right, scope, depth + 1)
            if isinstance(expr.operator, cst.BitOr):
                return _cap_min(left[0], right[0]), _cap_min(left[1], right[1]), left[2] or right[2]
            return _cap_max(left[0], right[0]), _cap_max(left[1], right[1]), True
        qual = self.qualname(expr.func if isinstance(expr, cst.Call) else expr, scope)
        known = cat.TENACITY_STOPS.get(_tenacity_name(qual))
        if known is None:
            return UNKNOWN, UNKNOWN, False
        what, params = known
        if what == "never":
            return None, None, False
        if not isinstance(expr, cst.Call):
            return UNKNOWN, UNKNOWN, False
        if what in ("any", "all"):
            parts = [self._tenacity_stop(a.value, scope, depth + 1) for a in expr.args if not a.star]
            if not parts or any(a.star for a in expr.args):
                return UNKNOWN, UNKNOWN, False
            combine = _cap_min if what == "any" else _cap_max
            attempts, delay = parts[0][0], parts[0][1]
            for part in parts[1:]:
                attempts, delay = combine(attempts, part[0]), combine(delay, part[1])
            return attempts, delay, what == "all" or any(p[2] for p in parts)
        if what == "attempts":
            return self._count(Args(expr, params), params[0], UNKNOWN, scope), None, False
        return None, self.number(Args(expr, params), params[0], UNKNOWN, scope=scope), False

    def _tenacity_wait(self, expr, scope, depth: int = 0) -> Wait:
        if expr is None:
            return Wait.none()
        if depth > 8:
            return Wait.unknown(expr)
        node = expr
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            return _wait_sum([self._tenacity_wait(expr.left, scope, depth + 1),
                              self._tenacity_wait(expr.right, scope, depth + 1)], node)
        if not isinstance(expr, cst.Call):
            return Wait.unknown(node)
        name = _tenacity_name(self.qualname(expr.func, scope))
        short = name.rsplit(".", 1)[-1] if name else None
        known = cat.TENACITY_WAITS.get(short) if name and name.startswith("tenacity.") else None
        if known is None:
            return Wait.unknown(node)
        kind, positional, defaults = known
        if kind in ("sum", "chain"):
            parts = [self._tenacity_wait(a.value, scope, depth + 1) for a in expr.args]
            if not parts or any(a.star for a in expr.args):
                return Wait.unknown(node)
            if kind == "sum":
                return _wait_sum(parts, node)
            return _wait_chain(parts, node)
        args = Args(expr, positional)
        if args.star:
            return Wait.unknown(node)
        p = {k: self.number(args, k, defaults.get(k, UNKNOWN), scope=scope) for k in positional}
        if kind == "none":
            return Wait.none(node)
        if kind == "fixed":
            w = p["wait"]
            return Wait("fixed", "no", lambda k: w, node, zero=(w == 0))
        if kind == "random":
            lo, hi = p["min"], p["max"]
            jitter = "no" if _num(lo) and _num(hi) and lo == hi else "yes"
            return Wait("random", jitter, lambda k: hi, node, zero=(hi == 0))
        if kind == "incrementing":
            return Wait("incrementing", "no",
                        lambda k: _clamp(_add(p["start"], _mul(p["increment"], k - 1)), None, p["max"]), node)
        if kind in ("exponential", "random_exponential"):
            jitter = "no" if kind == "exponential" else "yes"
            return Wait(kind, jitter,
                        lambda k: _clamp(_mul(p["multiplier"], _pow(p["exp_base"], k - 1)), p["min"], p["max"]), node)
        if kind == "exponential_jitter":
            return Wait(kind, "partial",
                        lambda k: _clamp(_add(_mul(p["initial"], _pow(p["exp_base"], k - 1)), p["jitter"]), None,
                                         p["max"]), node)
        return Wait.unknown(node)

    def _tenacity_retried(self, expr, scope, depth: int = 0) -> Retried:
        if expr is None:
            return Retried("any", ("Exception",), default=True)
        if depth > 8:
            return Retried("unknown", node=expr)
        node = expr
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitOr, cst.BitAnd)):
            return _retried_union([self._tenacity_retried(expr.left, scope, depth + 1),
                                   self._tenacity_retried(expr.right, scope, depth + 1)], node)
        func = expr.func if isinstance(expr, cst.Call) else expr
        name = _tenacity_name(self.qualname(func, scope))
        short = name.rsplit(".", 1)[-1] if name else None
        kind = cat.TENACITY_PREDICATES.get(short) if name and name.startswith("tenacity.") else None
        call = expr if isinstance(expr, cst.Call) else None
        if kind is None:
            return Retried("unknown", node=node)
        if kind in ("any", "not_types"):
            return Retried("any", ("Exception",), node=node)
        if kind in ("result", "never", "message"):
            return Retried("result" if kind != "message" else "unknown", node=node)
        if kind in ("union", "intersection"):
            if call is None:
                return Retried("unknown", node=node)
            return _retried_union([self._tenacity_retried(a.value, scope, depth + 1) for a in call.args], node)
        if kind == "types":
            if call is None or not call.args:
                return Retried("any", ("Exception",), node=node)
            types = self.exception_types(call.args[0].value, scope)
            return Retried("types", types, node=node) if types is not None else Retried("unknown", node=node)
        if kind == "function":
            if call is None or not call.args:
                return Retried("unknown", node=node)
            return self.predicate_function(call.args[0].value, scope, node)
        return Retried("unknown", node=node)

    def predicate_function(self, expr, scope, node) -> Retried:
        """Read a local predicate ``def f(exc): return isinstance(exc, T) and exc.status in S``."""
        found = self.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
        if not found or len(found) != 1 or found[0].kind != "def":
            return Retried("unknown", node=node)
        func: cst.FunctionDef = found[0].node
        fscope = self.ctx.model.scopes.get(id(func.body))
        types: List[str] = []
        statuses: set = set()
        checks = False
        for sub in _expressions(func.body):
            if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Name) and sub.func.value == "isinstance" \
                    and len(sub.args) == 2:
                found_types = self.exception_types(sub.args[1].value, fscope)
                if found_types:
                    types.extend(found_types)
            elif isinstance(sub, cst.Comparison) and _mentions_status(sub):
                checks = True
                for target in sub.comparisons:
                    value = self.ctx.value_of(target.comparator, fscope)
                    if _num(value):
                        statuses.add(int(value))
                    elif isinstance(value, tuple) and all(_num(v) for v in value):
                        statuses.update(int(v) for v in value)
                    else:
                        resolved = self._status_set(target.comparator, fscope)
                        statuses.update(resolved)
        return Retried("function", tuple(types), frozenset(statuses), checks, node=node)

    def _status_set(self, expr, scope) -> set:
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, (cst.Set, cst.Tuple, cst.List)):
            values = [self.ctx.value_of(e.value, scope) for e in expr.elements if isinstance(e, cst.Element)]
            return {int(v) for v in values if _num(v)}
        return set()

    # -- backoff ---------------------------------------------------------------------
    def _backoff(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        predicate = qual.endswith("on_predicate")
        args = Args(call, ("wait_gen", "predicate") if predicate else ("wait_gen", "exception"))
        policy = RetryPolicy("backoff", kind, anchor, call=call)
        if call is None or args.star:
            return policy
        policy.attempts = self._count(args, "max_tries", None, scope)
        policy.max_delay_s = self.number(args, "max_time", None, scope=scope)
        if "max_time" in args and not _num(policy.max_delay_s) and policy.max_delay_s is not None:
            policy.max_delay_s = UNKNOWN
        gen = self.qualname(args.expr("wait_gen"), scope) if args.expr("wait_gen") is not None else None
        jitter_expr = args.expr("jitter")
        if "jitter" not in args:
            jitter, extra = "yes", 0.0  # full_jitter is the default since backoff 1.2
        elif isinstance(jitter_expr, cst.Name) and jitter_expr.value == "None":
            jitter, extra = "no", 0.0
        else:
            jq = self.qualname(jitter_expr, scope)
            jitter, extra = {"backoff.full_jitter": ("yes", 0.0), "backoff.random_jitter": ("yes", 1.0)}.get(
                jq or "", ("unknown", UNKNOWN))
        if gen == "backoff.expo":
            base = self.number(args, "base", 2.0, scope=scope)
            factor = self.number(args, "factor", 1.0, scope=scope)
            cap = self.number(args, "max_value", None, scope=scope)
            bound = lambda k: _add(_clamp(_mul(factor, _pow(base, k - 1)), None, cap), extra)  # noqa: E731
        elif gen == "backoff.constant":
            interval = self.number(args, "interval", 1.0, scope=scope)
            bound = lambda k: _add(interval, extra)  # noqa: E731
        elif gen == "backoff.fibo":
            cap = self.number(args, "max_value", None, scope=scope)
            bound = lambda k: _add(_clamp(float(_fib(k)), None, cap), extra)  # noqa: E731
        else:
            bound, jitter = (lambda k: UNKNOWN), "unknown"
        policy.wait = Wait("backoff", jitter, bound, jitter_expr, reads_retry_after=None if gen is None else
                           (None if gen == "backoff.runtime" else False))
        if gen == "backoff.runtime":
            policy.wait = Wait.unknown(args.expr("wait_gen"))
        if predicate:
            policy.retried = Retried("result")
        else:
            types = self.exception_types(args.expr("exception"), scope) if "exception" in args else None
            policy.retried = Retried("types", types, node=args.expr("exception")) if types is not None else \
                Retried("unknown", node=args.expr("exception"))
        policy.respects_retry_after = policy.wait.reads_retry_after
        return policy

    def _count(self, args: Args, name: str, default, scope):
        """A count parameter, exact (not through a float: ``int(float(10 ** 100))`` has the digits
        10000000000000000159...), its default when absent, UNKNOWN if unreadable."""
        if name not in args:
            return UNKNOWN if args.star else default
        value = self.value(args.expr(name), scope)
        if value is None:
            return None
        return _whole(value) if _num(value) else UNKNOWN

    # -- stamina ---------------------------------------------------------------------
    def _stamina(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call)
        policy = RetryPolicy("stamina", kind, anchor, call=call)
        if call is None or args.star:
            return policy
        d = cat.STAMINA_DEFAULTS
        policy.attempts = self._count(args, "attempts", d["attempts"], scope)
        policy.max_delay_s = self.number(args, "timeout", d["timeout"], scope=scope)
        initial = self.number(args, "wait_initial", d["wait_initial"], scope=scope)
        cap = self.number(args, "wait_max", d["wait_max"], scope=scope)
        jitter = self.number(args, "wait_jitter", d["wait_jitter"], scope=scope)
        base = self.number(args, "wait_exp_base", d["wait_exp_base"], scope=scope)
        jitter_kind = "unknown" if not _num(jitter) else ("no" if jitter == 0 else "partial")
        policy.wait = Wait("stamina", jitter_kind,
                           lambda k: _clamp(_add(_mul(initial, _pow(base, k - 1)), jitter), None, cap),
                           args.expr("wait_jitter"))
        on = args.expr("on")
        types = self.exception_types(on, scope) if on is not None else None
        if types is None and on is not None:
            policy.retried = self.predicate_function(on, scope, on)
        else:
            policy.retried = Retried("types", types or (), node=on) if types else Retried("unknown", node=on)
        policy.respects_retry_after = False
        return policy

    # -- retrying (milliseconds) -------------------------------------------------------
    def _retrying(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call)
        policy = RetryPolicy("retrying", kind, anchor, call=call)
        if args.star:
            return policy
        ms = 0.001
        policy.attempts = self._count(args, "stop_max_attempt_number", None, scope)
        policy.max_delay_s = self.number(args, "stop_max_delay", None, scale=ms, scope=scope)
        waits: List[Callable[[int], Number]] = []
        jitter = "no"
        if "wait_fixed" in args:
            fixed = self.number(args, "wait_fixed", UNKNOWN, scale=ms, scope=scope)
            waits.append(lambda k: fixed)
        if "wait_random_min" in args or "wait_random_max" in args:
            hi = self.number(args, "wait_random_max", 1.0, scale=ms, scope=scope)
            waits.append(lambda k: hi)
            jitter = "yes"
        if "wait_exponential_multiplier" in args or "wait_exponential_max" in args:
            mult = self.number(args, "wait_exponential_multiplier", 0.001, scale=ms, scope=scope)
            cap = self.number(args, "wait_exponential_max", None, scale=ms, scope=scope)
            waits.append(lambda k: _clamp(_mul(mult, _pow(2.0, k)), None, cap))
        if "wait_incrementing_start" in args or "wait_incrementing_increment" in args:
            start = self.number(args, "wait_incrementing_start", 0.0, scale=ms, scope=scope)
            inc = self.number(args, "wait_incrementing_increment", 0.1, scale=ms, scope=scope)
            cap = self.number(args, "wait_incrementing_max", None, scale=ms, scope=scope)
            waits.append(lambda k: _clamp(_add(start, _mul(inc, k - 1)), None, cap))
        extra = self.number(args, "wait_jitter_max", 0.0, scale=ms, scope=scope)
        if "wait_jitter_max" in args:
            jitter = "yes"
        if not waits:
            policy.wait = Wait("none", "no", lambda k: _add(0.0, extra), zero=not _num(extra) or extra == 0)
            if "wait_jitter_max" in args:
                policy.wait = Wait("retrying", "yes", lambda k: extra)
        else:
            policy.wait = Wait("retrying", jitter, lambda k: _add(_max(*[w(k) for w in waits]), extra))
        pred = args.expr("retry_on_exception")
        policy.retried = Retried("any", ("Exception",), default=True) if pred is None else \
            self.predicate_function(pred, scope, pred)
        policy.respects_retry_after = False
        return policy

    # -- retry / retry2 --------------------------------------------------------------------
    def _retry(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        names = ("exceptions", "tries", "delay", "max_delay", "backoff", "jitter")
        if kind == "caller":
            names = ("f", "fargs", "fkwargs") + names
        args = Args(call, names)
        policy = RetryPolicy("retry", kind, anchor, call=call)
        if args.star:
            return policy
        tries = self._count(args, "tries", -1, scope)
        policy.attempts = None if tries == -1 else tries
        policy.max_delay_s = None
        delay = self.number(args, "delay", 0.0, scope=scope)
        cap = self.number(args, "max_delay", None, scope=scope)
        factor = self.number(args, "backoff", 1.0, scope=scope)
        jitter_expr = args.expr("jitter")
        jitter_value = self.value(jitter_expr, scope) if jitter_expr is not None else 0
        if isinstance(jitter_value, tuple):
            jitter, jmax = "yes", jitter_value[1] if len(jitter_value) == 2 and _num(jitter_value[1]) else UNKNOWN
        elif _num(jitter_value):
            jitter, jmax = "no", float(jitter_value)
        else:
            jitter, jmax = "unknown", UNKNOWN
        policy.wait = Wait("retry", jitter,
                           lambda k: _clamp(_add(_mul(delay, _pow(factor, k - 1)), _mul(jmax, k)), None, cap),
                           jitter_expr, zero=(delay == 0 and (jmax == 0)))
        exc = args.expr("exceptions")
        types = self.exception_types(exc, scope) if exc is not None else ("Exception",)
        policy.retried = Retried("types", types, node=exc, default=exc is None) if types else \
            Retried("unknown", node=exc)
        policy.respects_retry_after = False
        return policy

    # -- opnieuw, redo, google ---------------------------------------------------------------
    def _opnieuw(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call)
        d = cat.OPNIEUW_DEFAULTS
        policy = RetryPolicy("opnieuw", kind, anchor, call=call)
        if args.star:
            return policy
        policy.attempts = self._count(args, "max_calls_total", d["max_calls_total"], scope)
        window = self.number(args, "retry_window_after_first_call_in_seconds",
                             d["retry_window_after_first_call_in_seconds"], scope=scope)
        policy.max_delay_s = window
        policy.wait = Wait("opnieuw", "yes", lambda k: window)
        exc = args.expr("retry_on_exceptions")
        types = self.exception_types(exc, scope) if exc is not None else None
        policy.retried = Retried("types", types, node=exc) if types else Retried("unknown", node=exc)
        policy.respects_retry_after = False
        return policy

    def _redo(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        if qual == "redo.retriable_async":
            return self._redo_async(call, anchor, scope, kind)
        names = ("action",) if kind == "caller" else ()
        args = Args(call, names + ("attempts", "sleeptime", "max_sleeptime", "sleepscale", "jitter"))
        d = cat.REDO_DEFAULTS
        policy = RetryPolicy("redo", kind, anchor, call=call)
        if args.star:
            return policy
        policy.attempts = self._count(args, "attempts", d["attempts"], scope)
        policy.max_delay_s = None
        sleep = self.number(args, "sleeptime", 10.0 if qual == "redo.retrier" else d["sleeptime"], scope=scope)
        cap = self.number(args, "max_sleeptime", d["max_sleeptime"], scope=scope)
        scale = self.number(args, "sleepscale", d["sleepscale"], scope=scope)
        jitter = self.number(args, "jitter", d["jitter"], scope=scope)
        kind_j = "unknown" if jitter is UNKNOWN else ("no" if not jitter else "yes")
        policy.wait = Wait("redo", kind_j, lambda k: _clamp(_add(_mul(sleep, _pow(scale, k - 1)),
                                                                 _mul(jitter or 0.0, _pow(scale, k - 1))), None, cap),
                           args.expr("jitter"))
        exc = args.expr("retry_exceptions")
        types = self.exception_types(exc, scope) if exc is not None else ("Exception",)
        policy.retried = Retried("types", types, node=exc, default=exc is None) if types else \
            Retried("unknown", node=exc)
        return policy

    def _redo_async(self, call, anchor, scope, kind) -> RetryPolicy:
        """``redo.retriable_async(retry_exceptions, sleeptime_kwargs)``: a fixed 5 attempts and
        redo's ``calculate_sleep_time`` (catalog ``REDO_ASYNC_DEFAULTS``)."""
        args = Args(call, ("retry_exceptions", "sleeptime_kwargs"))
        d = cat.REDO_ASYNC_DEFAULTS
        policy = RetryPolicy("redo", kind, anchor, call=call)
        if args.star:
            return policy
        policy.attempts = d["attempts"]
        policy.max_delay_s = None
        options = {name: d[name] for name in ("delay_factor", "randomization_factor", "max_delay")}
        given = args.expr("sleeptime_kwargs")
        target, where = self.ctx.resolve(given, scope) if given is not None else (None, scope)
        if isinstance(target, cst.Dict):
            for element in target.elements:
                key = self.ctx.value_of(element.key, where) if isinstance(element, cst.DictElement) else UNKNOWN
                if key in options:
                    options[key] = self.ctx.value_of(element.value, where)
                else:  # `**other` or an unknown key: the sleeps cannot be known
                    options = {name: UNKNOWN for name in options}
                    break
        elif given is not None and self.ctx.value_of(given, scope) is not None:
            options = {name: UNKNOWN for name in options}
        factor, spread, cap = options["delay_factor"], options["randomization_factor"], options["max_delay"]
        jitter = "unknown" if spread is UNKNOWN else ("yes" if spread else "no")
        # the wait after the k-th failure precedes attempt k + 1: 2 ** k * factor, times up to (1 + spread)
        policy.wait = Wait("redo", jitter, lambda k: _clamp(_mul(_mul(factor, _pow(2.0, k)), _add(1.0, spread)),
                                                           None, cap), given)
        exc = args.expr("retry_exceptions")
        types = self.exception_types(exc, scope) if exc is not None else ("Exception",)
        policy.retried = Retried("types", types, node=exc, default=exc is None) if types else \
            Retried("unknown", node=exc)
        return policy

    def _google(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call, ("predicate", "initial", "maximum", "multiplier", "timeout"))
        d = cat.GOOGLE_DEFAULTS
        policy = RetryPolicy("google", kind, anchor, call=call)
        if call is None or args.star:
            return policy
        policy.attempts = None
        timeout_name = "deadline" if "deadline" in args and "timeout" not in args else "timeout"
        policy.max_delay_s = self.number(args, timeout_name, d["timeout"], scope=scope)
        initial = self.number(args, "initial", d["initial"], scope=scope)
        maximum = self.number(args, "maximum", d["maximum"], scope=scope)
        mult = self.number(args, "multiplier", d["multiplier"], scope=scope)
        policy.wait = Wait("google", "yes", lambda k: _clamp(_mul(initial, _pow(mult, k - 1)), None, maximum))
        pred = args.expr("predicate")
        policy.retried = Retried("types", ("google.api_core.retry.if_transient_error",)) if pred is None else \
            Retried("unknown", node=pred)
        policy.respects_retry_after = False
        return policy

    # -- celery ----------------------------------------------------------------------------
    def _celery(self, call, anchor, scope, kind, qual) -> Optional[RetryPolicy]:
        args = Args(call)
        if call is None or "autoretry_for" not in args:
            return None  # a task without autoretry_for runs once
        d = cat.CELERY_DEFAULTS
        policy = RetryPolicy("celery", kind, anchor, call=call)
        if args.star:
            return policy
        retries = self._count(args, "max_retries", d["max_retries"], scope)
        policy.attempts = retries + 1 if _num(retries) else retries
        policy.max_delay_s = None
        backoff = self.value(args.expr("retry_backoff"), scope) if "retry_backoff" in args else False
        cap = self.number(args, "retry_backoff_max", d["retry_backoff_max"], scope=scope)
        jitter_on = self.value(args.expr("retry_jitter"), scope) if "retry_jitter" in args else True
        if backoff is False or backoff is None or backoff == 0:
            delay = self.number(args, "default_retry_delay", d["default_retry_delay"], scope=scope)
            policy.wait = Wait("celery", "no", lambda k: delay, args.arg("retry_backoff"))
        elif backoff is UNKNOWN or jitter_on is UNKNOWN:
            policy.wait = Wait.unknown(args.arg("retry_backoff"))
        else:
            factor = 1.0 if backoff is True else float(max(1, int(backoff)))
            policy.wait = Wait("celery", "yes" if jitter_on else "no",
                               lambda k: _clamp(_mul(factor, _pow(2.0, k - 1)), None, cap),
                               args.arg("retry_jitter") or args.arg("retry_backoff"))
        types = self.exception_types(args.expr("autoretry_for"), scope)
        policy.retried = Retried("types", types, node=args.expr("autoretry_for")) if types else \
            Retried("unknown", node=args.expr("autoretry_for"))
        policy.respects_retry_after = False
        return policy

    # -- urllib3 Retry, requests HTTPAdapter, httpx transports -------------------------------
    def _urllib3(self, call, anchor, scope, kind, qual) -> RetryPolicy:
        args = Args(call, ("total", "connect", "read", "redirect", "status", "other", "allowed_methods",
                           "status_forcelist", "backoff_factor", "backoff_max", "raise_on_redirect",
                           "raise_on_status", "history", "respect_retry_after_header", "remove_headers_on_redirect",
                           "backoff_jitter"))
        d = cat.URLLIB3_DEFAULTS
        policy = RetryPolicy("urllib3", kind, anchor, call=call)
        if args.star:
            return policy
        total = self.value(args.expr("total"), scope) if "total" in args else d["total"]
        if total is False:
            policy.attempts = 1
        elif _num(total):
            policy.attempts = _plus_one(_whole(total))
        else:
            policy.attempts = UNKNOWN
        policy.max_delay_s = None
        factor = self.number(args, "backoff_factor", d["backoff_factor"], scope=scope)
        cap = self.number(args, "backoff_max", d["backoff_max"], scope=scope)
        jitter = self.number(args, "backoff_jitter", d["backoff_jitter"], scope=scope)
        jitter_kind = "unknown" if not _num(jitter) else ("no" if jitter == 0 else "partial")
        policy.wait = Wait("urllib3", jitter_kind,
                           lambda k: 0.0 if k == 1 else _clamp(_add(_mul(factor, _pow(2.0, k - 1)), jitter), None, cap),
                           args.arg("backoff_factor"), zero=(factor == 0))
        forcelist = self.value(args.expr("status_forcelist"), scope) if "status_forcelist" in args else ()
        statuses = frozenset(int(v) for v in forcelist if _num(v)) if isinstance(forcelist, tuple) else frozenset()
        if "status_forcelist" in args and not isinstance(forcelist, tuple):
            forcelist_expr, fscope = self.ctx.resolve(args.expr("status_forcelist"), scope)
            statuses = frozenset(self._status_set(forcelist_expr, fscope))
        policy.status_retries = bool(statuses)
        policy.retried = Retried("status", (), statuses, True, node=args.expr("status_forcelist"))
        respect = self.value(args.expr("respect_retry_after_header"), scope) \
            if "respect_retry_after_header" in args else True
        policy.respects_retry_after = None if respect is UNKNOWN else bool(respect)
        policy.extra["statuses_known"] = "status_forcelist" not in args or isinstance(forcelist, tuple) or \
            bool(statuses)
        return policy

    def _requests(self, call, anchor, scope, kind, qual) -> Optional[RetryPolicy]:
        args = Args(call, ("pool_connections", "pool_maxsize", "max_retries", "pool_block"))
        if "max_retries" not in args:
            return None  # the default adapter does not retry
        value = self.value(args.expr("max_retries"), scope)
        if not _num(value):
            return None  # a Retry object is its own policy (reported at its constructor)
        policy = RetryPolicy("requests", kind, anchor, call=call, attempts=_plus_one(_whole(value)), max_delay_s=None,
                             wait=Wait.none(), retried=Retried("status", (), frozenset(), True))
        policy.respects_retry_after = True
        return policy

    def _httpx(self, call, anchor, scope, kind, qual) -> Optional[RetryPolicy]:
        args = Args(call)
        retries = self._count(args, "retries", 0, scope)
        if retries == 0:
            return None
        return RetryPolicy("httpx", kind, anchor, call=call,
                           attempts=retries + 1 if _num(retries) else retries, max_delay_s=None,
                           wait=Wait("httpx", "no", lambda k: 0.0 if k == 1 else 0.5 * 2 ** (k - 2)),
                           retried=Retried("types", ("httpx.ConnectError", "httpx.ConnectTimeout")),
                           connect_only=True, respects_retry_after=None)


# -- arithmetic on possibly-unknown numbers (None = unbounded) --------------------------------
def _add(a, b):
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return a + b


def _mul(a, b):
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return a * b


def _pow(base, exponent):
    if base is UNKNOWN or base is None:
        return base
    try:
        return float(base) ** min(exponent, 200)
    except OverflowError:
        return float("inf")


def _clamp(value, low, high):
    if value is UNKNOWN or low is UNKNOWN or high is UNKNOWN:
        return UNKNOWN
    if value is None:
        return high
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    return value


def _max(*values):
    if any(v is UNKNOWN for v in values):
        return UNKNOWN
    if any(v is None for v in values):
        return None
    return max(values)


def _fib(k: int) -> int:
    a, b = 1, 1
    for _ in range(k - 1):
        a, b = b, a + b
    return a


def _cap_min(a, b):
    """The tighter of two caps, for ``stop_a | stop_b`` (None = no cap)."""
    if _num(a) and _num(b):
        return min(a, b)
    if _num(a):
        return a
    if _num(b):
        return b
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return None


def _cap_max(a, b):
    """The looser of two caps, for ``stop_a & stop_b``: both must hold to stop."""
    if a is None or b is None:
        return None
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return max(a, b)


def _wait_sum(parts: List[Wait], node) -> Wait:
    jitters = {p.jitter for p in parts}
    if "yes" in jitters:
        jitter = "yes"
    elif "unknown" in jitters:
        jitter = "unknown"
    elif "partial" in jitters:
        jitter = "partial"
    else:
        jitter = "no"
    reads = None if any(p.reads_retry_after is None for p in parts) else any(p.reads_retry_after for p in parts)
    return Wait("sum", jitter, lambda k: _sum_bounds([p.bound(k) for p in parts]), node,
                zero=all(p.zero for p in parts), reads_retry_after=reads)


def _sum_bounds(values):
    total = 0.0
    for v in values:
        total = _add(total, v)
    return total


def _wait_chain(parts: List[Wait], node) -> Wait:
    jitters = {p.jitter for p in parts}
    jitter = jitters.pop() if len(jitters) == 1 else ("unknown" if "unknown" in jitters else "partial")
    return Wait("chain", jitter, lambda k: parts[min(k, len(parts)) - 1].bound(k), node,
                zero=all(p.zero for p in parts))


def _retried_union(parts: List[Retried], node) -> Retried:
    if any(p.kind == "unknown" for p in parts):
        return Retried("unknown", node=node)
    if any(p.kind == "any" for p in parts):
        return Retried("any", ("Exception",), node=node)
    types = tuple(t for p in parts for t in p.types)
    statuses = frozenset(s for p in parts for s in p.statuses)
    return Retried("function", types, statuses, any(p.checks_status for p in parts), node=node)


def _tenacity_name(qual: Optional[str]) -> Optional[str]:
    """``tenacity.stop.stop_after_attempt`` and ``tenacity.stop_after_attempt`` alike."""
    if not qual or not qual.startswith("tenacity."):
        return qual
    parts = qual.split(".")
    if len(parts) == 3 and parts[1] in ("stop", "wait", "retry", "asyncio"):
        return f"tenacity.{parts[2]}"
    return qual


def _mentions_status(node: cst.Comparison) -> bool:
    for sub in _expressions(node):
        if isinstance(sub, cst.Attribute) and sub.attr.value in ("status_code", "status", "code"):
            return True
    return False


def _expressions(node):
    """Every node under ``node`` (iterative)."""
    from reslint.walk import children

    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))
