"""retrying: ``@retrying.retry(stop_max_attempt_number=..., wait_...=...)``; every time is in
milliseconds.

Facts from retrying.py (1.3.4): ``retry(**kw)`` builds ``Retrying(**kw)``. No stop and no wait
unless given. Each wait strategy given is computed and the largest is slept, plus up to
``wait_jitter_max``: ``wait_exponential`` sleeps ``multiplier * 2 ** k`` after the k-th failure,
capped by ``wait_exponential_max``; ``wait_incrementing`` sleeps ``start + increment * (k - 1)``,
capped by ``wait_incrementing_max``. retrying never reads ``Retry-After``.
"""

from __future__ import annotations

from typing import List, Optional

from reslint.semantics.edits import FixPlan
from reslint.libraries.base import FixContext, Remedy, RetryAdapter, Site, add_keyword_fix, roles
from reslint.model.policy import Bound, Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, is_number, largest, mul, scaled_power

#: retrying's unit: every duration parameter is in milliseconds
MS = 0.001

#: defaults of the wait parameters, in seconds (retrying.py Retrying.__init__: random max 1000 ms,
#: exponential multiplier 1 ms, incrementing start 0 and increment 100 ms, jitter max 0)
DEFAULTS_S = {"wait_random_max": 1.0, "wait_exponential_multiplier": 0.001, "wait_incrementing_start": 0.0,
              "wait_incrementing_increment": 0.1, "wait_jitter_max": 0.0}
#: what the reader takes from ``retry(...)`` (``Retrying.__init__``'s parameters)
KEYWORDS = ("stop_max_attempt_number", "stop_max_delay", "wait_fixed", "wait_random_min", "wait_random_max",
            "wait_exponential_multiplier", "wait_exponential_max", "wait_incrementing_start",
            "wait_incrementing_increment", "wait_incrementing_max", "wait_jitter_max", "retry_on_exception")


class Retrying(RetryAdapter):
    name = "retrying"
    spellings = roles("retrying.retry", role=Role.DECORATOR)
    trigger_modules = ("retrying",)
    keywords = {qualname: KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call)
        if args.star:
            return self.policy(site)
        pred = args.expr("retry_on_exception")
        retried = Retried(RetriedKind.ANY, ("Exception",), default=True) if pred is None else \
            reader.predicate_function(pred, scope, pred)
        return self.policy(site, attempts=reader.count(args, "stop_max_attempt_number", None, scope),
                           max_delay_s=reader.number(args, "stop_max_delay", None, scale=MS, scope=scope),
                           wait=self._wait(reader, args, scope), retried=retried)

    def _wait(self, reader: PolicyReader, args: Args, scope) -> Wait:
        """The largest of the strategies given, plus up to ``wait_jitter_max``."""
        def ms(name: str, default):
            return reader.number(args, name, default, scale=MS, scope=scope)

        waits: List[Bound] = []
        jitter = Jitter.NO
        if "wait_fixed" in args:
            waits.append(_fixed(ms("wait_fixed", UNKNOWN)))
        if "wait_random_min" in args or "wait_random_max" in args:
            waits.append(_fixed(ms("wait_random_max", DEFAULTS_S["wait_random_max"])))
            jitter = Jitter.YES
        if "wait_exponential_multiplier" in args or "wait_exponential_max" in args:
            waits.append(_exponential(ms("wait_exponential_multiplier", DEFAULTS_S["wait_exponential_multiplier"]),
                                      ms("wait_exponential_max", None)))
        if "wait_incrementing_start" in args or "wait_incrementing_increment" in args:
            waits.append(_incrementing(ms("wait_incrementing_start", DEFAULTS_S["wait_incrementing_start"]),
                                       ms("wait_incrementing_increment", DEFAULTS_S["wait_incrementing_increment"]),
                                       ms("wait_incrementing_max", None)))
        extra = ms("wait_jitter_max", DEFAULTS_S["wait_jitter_max"])
        if waits:
            jitter = Jitter.YES if "wait_jitter_max" in args else jitter
            return Wait(WaitShape.SCHEDULE, jitter, lambda k: add(largest(*[w(k) for w in waits]), extra))
        if "wait_jitter_max" in args:
            return Wait(WaitShape.SCHEDULE, Jitter.YES, lambda k: extra)
        return Wait(WaitShape.NONE, Jitter.NO, lambda k: add(0.0, extra), zero=not is_number(extra) or extra == 0)

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        call = policy.call
        if remedy is Remedy.TIME_CAP and call is not None:
            ms = str(int(params["limit_s"] * 1000))
            return add_keyword_fix(call, "stop_max_delay", ms, f"Add `stop_max_delay={ms}` (milliseconds)")
        return super().fix(remedy, policy, fx, **params)

    advice_text = {
        Remedy.JITTER: "add `wait_jitter_max=` (milliseconds)",
        Remedy.TIME_CAP: "add `stop_max_delay={limit_ms}` (milliseconds)",
        Remedy.BOUNDS: "add `stop_max_attempt_number=` and `stop_max_delay=` (milliseconds)",
        Remedy.BACKOFF: "set `wait_exponential_multiplier=` and `wait_jitter_max=`",
    }


# Each strategy is its own closure over its own parameters, so that one strategy's cap can never
# bound another's waits (``wait_incrementing_max`` once clamped the exponential waits).
def _fixed(seconds) -> Bound:
    return lambda k: seconds


def _exponential(multiplier, cap) -> Bound:
    return lambda k: clamp(mul(multiplier, scaled_power(2.0, k)), None, cap)


def _incrementing(start, increment, cap) -> Bound:
    return lambda k: clamp(add(start, mul(increment, k - 1)), None, cap)


ADAPTER = Retrying()
