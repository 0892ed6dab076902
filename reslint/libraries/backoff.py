"""backoff: ``@backoff.on_exception(wait_gen, exception, ...)`` and ``@backoff.on_predicate``.

Facts from backoff/_decorator.py, _wait_gen.py and _jitter.py (2.2.1): no attempt or time cap
unless ``max_tries=``/``max_time=`` are given; ``jitter=`` defaults to ``full_jitter`` (since
1.2), which draws each wait from ``[0, value]``; ``random_jitter`` adds up to 1 s; the wait
generators' own arguments (``base``, ``factor``, ``max_value``, ``interval``) are passed to the
decorator as keywords.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.cstutil import add_keyword_arg, format_seconds
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan
from reslint.libraries.base import FixContext, Remedy, RetryAdapter, Site, add_keyword_fix, remove_keyword_fix, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, fibonacci, is_number, mul, scaled_power

#: jitter functions: qualified name -> (jitter, seconds added to the largest wait)
JITTERS = {"backoff.full_jitter": (Jitter.YES, 0.0), "backoff.random_jitter": (Jitter.YES, 1.0)}

#: wait generators and the defaults of the arguments read (backoff/_wait_gen.py); the decorators
#: pass their other keywords on to the generator (``**wait_gen_kwargs``)
EXPO_DEFAULTS = {"base": 2.0, "factor": 1.0, "max_value": None}
CONSTANT_DEFAULTS = {"interval": 1.0}
FIBO_DEFAULTS = {"max_value": None}
#: generator -> the defaults of the arguments the reader takes for it (``runtime``'s wait is unknown)
WAIT_GENERATORS = {"backoff.expo": EXPO_DEFAULTS, "backoff.constant": CONSTANT_DEFAULTS,
                   "backoff.fibo": FIBO_DEFAULTS, "backoff.runtime": {}}

#: the decorators' positional parameters (backoff/_decorator.py), the rest are keyword-only
POSITIONAL = ("wait_gen", "exception")
PREDICATE_POSITIONAL = ("wait_gen", "predicate")
#: what the reader takes from ``on_predicate(...)`` and, with ``exception`` and ``giveup``, from
#: ``on_exception(...)`` (``predicate`` is never read: a result predicate is all it needs)
KEYWORDS = ("wait_gen", "max_tries", "max_time", "jitter")
EXCEPTION_KEYWORDS = KEYWORDS + ("exception", "giveup")
#: the generators' arguments, passed through the decorators' ``**wait_gen_kwargs``
GENERATOR_KEYWORDS = tuple(dict.fromkeys(name for defaults in WAIT_GENERATORS.values() for name in defaults))


class Backoff(RetryAdapter):
    name = "backoff"
    #: backoff/_decorator.py: ``asyncio.iscoroutinefunction(target)`` picks the async retry, else the
    #: sync one, whose call returns a generator or async generator at once
    retries_generators = False
    spellings = roles("backoff.on_exception", "backoff.on_predicate", role=Role.DECORATOR)
    trigger_modules = ("backoff",)
    keywords = {"backoff.on_exception": EXCEPTION_KEYWORDS, "backoff.on_predicate": KEYWORDS}
    forwarded = {qualname: GENERATOR_KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        predicate = site.qualname.endswith("on_predicate")
        args = Args(call, PREDICATE_POSITIONAL if predicate else POSITIONAL)
        if call is None or args.star:
            return self.policy(site)
        max_delay_s = reader.number(args, "max_time", None, scope=scope)
        if "max_time" in args and not is_number(max_delay_s) and max_delay_s is not None:
            max_delay_s = UNKNOWN
        return self.policy(site, attempts=reader.count(args, "max_tries", None, scope), max_delay_s=max_delay_s,
                           wait=self._wait(reader, args, scope), retried=self._retried(reader, args, scope, predicate))

    def _wait(self, reader: PolicyReader, args: Args, scope) -> Wait:
        gen_expr = args.expr("wait_gen")
        gen = reader.qualname(gen_expr, scope) if gen_expr is not None else None
        if gen == "backoff.runtime":
            return Wait.unknown(gen_expr)  # the wait is computed from the result at run time
        jitter, extra = self._jitter(reader, args, scope)
        if gen == "backoff.expo":
            base = reader.number(args, "base", EXPO_DEFAULTS["base"], scope=scope)
            factor = reader.number(args, "factor", EXPO_DEFAULTS["factor"], scope=scope)
            cap = reader.number(args, "max_value", EXPO_DEFAULTS["max_value"], scope=scope)
            bound = _expo(base, factor, cap, extra)
        elif gen == "backoff.constant":
            bound = _constant(reader.number(args, "interval", CONSTANT_DEFAULTS["interval"], scope=scope), extra)
        elif gen == "backoff.fibo":
            bound = _fibo(reader.number(args, "max_value", FIBO_DEFAULTS["max_value"], scope=scope), extra)
        else:
            bound, jitter = (lambda k: UNKNOWN), Jitter.UNKNOWN
        return Wait(WaitShape.SCHEDULE, jitter, bound, args.expr("jitter"),
                    reads_retry_after=None if gen is None else False)

    def _jitter(self, reader: PolicyReader, args: Args, scope):
        """(jitter, seconds it adds to the largest wait) of ``jitter=``."""
        expr = args.expr("jitter")
        if "jitter" not in args:
            return Jitter.YES, 0.0  # full_jitter is the default since backoff 1.2
        if isinstance(expr, cst.Name) and expr.value == "None":
            return Jitter.NO, 0.0
        return JITTERS.get(reader.qualname(expr, scope) or "", (Jitter.UNKNOWN, UNKNOWN))

    def _retried(self, reader: PolicyReader, args: Args, scope, predicate: bool) -> Retried:
        if predicate:
            return Retried(RetriedKind.RESULT)
        exc = args.expr("exception")
        types = reader.exception_types(exc, scope) if "exception" in args else None
        filtered = "giveup" in args  # giveup(exc) -> True raises it at once: any type may be excluded
        return Retried(RetriedKind.TYPES, types, node=exc, filtered=filtered) if types is not None else \
            Retried(RetriedKind.UNKNOWN, node=exc)

    # -- fixes -------------------------------------------------------------------------------
    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        call = policy.call
        if remedy is Remedy.JITTER:
            return remove_keyword_fix(call, "jitter", "Remove `jitter=` (the library jitters by default)", fx)
        if remedy in (Remedy.TIME_CAP, Remedy.BOUNDS) and call is not None:
            seconds = format_seconds(params["limit_s"])
            return add_keyword_fix(call, "max_time", seconds, f"Add `max_time={seconds}`")
        if remedy is Remedy.EXCLUDE and call is not None and not any(a.star for a in call.args) and \
                not any(a.keyword is not None and a.keyword.value == "giveup" for a in call.args):
            error = params["error"]
            return FixPlan(f"Give up at once on `{error}`", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "giveup", cst.parse_expression(
                               f"lambda exc: isinstance(exc, {error})"))),), params["imports"])
        return super().fix(remedy, policy, fx, **params)

    advice_text = {
        Remedy.EXCLUDE: "add `giveup=` for that error",
        Remedy.JITTER: "drop `jitter=None` (backoff uses full jitter by default)",
        Remedy.TIME_CAP: "add `max_time={limit_s:g}`",
        Remedy.BOUNDS: "add `max_tries=` and `max_time=`",
    }


def _expo(base, factor, cap, extra):
    return lambda k: add(clamp(mul(factor, scaled_power(base, k - 1)), None, cap), extra)


def _constant(interval, extra):
    return lambda k: add(interval, extra)


def _fibo(cap, extra):
    return lambda k: add(clamp(float(fibonacci(k)), None, cap), extra)


ADAPTER = Backoff()
