"""The ``retry`` package (invl/retry, and its fork retry2): ``@retry(exceptions, tries, delay,
max_delay, backoff, jitter)`` and ``retry_call(f, fargs, fkwargs, ...)``.

Facts from retry/api.py (0.9.2): ``tries=-1`` (the default) retries forever; the first wait is
``delay`` (0), multiplied by ``backoff`` (1) after each failure and increased by ``jitter``: a
number is added as is (deterministic), a ``(low, high)`` tuple draws at random; ``max_delay``
caps the wait. There is no time cap, and ``Retry-After`` is never read.
"""

from __future__ import annotations

from reslint.libraries.base import Remedy, RetryAdapter, Site, merge, roles
from reslint.model.policy import Jitter, RetryPolicy, Role, Wait, WaitShape, types_or_unknown
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, is_number, mul, scaled_power

#: the decorator's parameters in order; ``retry_call`` takes ``f, fargs, fkwargs`` first
POSITIONAL = ("exceptions", "tries", "delay", "max_delay", "backoff", "jitter")
CALLER_POSITIONAL = ("f", "fargs", "fkwargs")
#: tries=-1 means forever (retry/api.py __retry_internal: `while _tries:` counting down from -1)
FOREVER = -1
DEFAULTS = {"delay": 0.0, "max_delay": None, "backoff": 1.0, "jitter": 0}
#: what the reader takes from the decorator and from ``retry_call`` (whose ``f`` the retried-scope
#: analysis reads as the function retried)
KEYWORDS = POSITIONAL


class RetryPackage(RetryAdapter):
    name = "retry"
    spellings = merge(roles("retry.retry", "retry.api.retry", role=Role.DECORATOR),
                      roles("retry.api.retry_call", "retry.retry_call", role=Role.CALLER))
    trigger_modules = ("retry",)
    retries_callables = True
    keywords = {qualname: KEYWORDS for qualname in spellings}

    @property
    def label(self) -> str:
        return "the `retry` package's retry"  # "retry retry" would read as a typo

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        names = CALLER_POSITIONAL + POSITIONAL if site.role is Role.CALLER else POSITIONAL
        args = Args(call, names)
        if args.star:
            return self.policy(site)
        tries = reader.count(args, "tries", FOREVER, scope)
        exc = args.expr("exceptions")
        types = reader.exception_types(exc, scope) if exc is not None else ("Exception",)
        return self.policy(site, attempts=None if tries == FOREVER else tries, max_delay_s=None,
                           wait=self._wait(reader, args, scope),
                           retried=types_or_unknown(types, exc, default=exc is None))

    def _wait(self, reader: PolicyReader, args: Args, scope) -> Wait:
        delay = reader.number(args, "delay", DEFAULTS["delay"], scope=scope)
        cap = reader.number(args, "max_delay", DEFAULTS["max_delay"], scope=scope)
        factor = reader.number(args, "backoff", DEFAULTS["backoff"], scope=scope)
        jitter_expr = args.expr("jitter")
        value = reader.value(jitter_expr, scope) if jitter_expr is not None else DEFAULTS["jitter"]
        if isinstance(value, tuple):
            jitter, most = Jitter.YES, value[1] if len(value) == 2 and is_number(value[1]) else UNKNOWN
        elif is_number(value):
            jitter, most = Jitter.NO, float(value)
        else:
            jitter, most = Jitter.UNKNOWN, UNKNOWN
        # the jitter is added after every failure, so after the k-th it has grown k times
        return Wait(WaitShape.SCHEDULE, jitter,
                    lambda k: clamp(add(mul(delay, scaled_power(factor, k - 1)), mul(most, k)), None, cap),
                    jitter_expr, zero=(delay == 0 and (most == 0)))

    advice_text = {
        Remedy.JITTER: "pass `jitter=(0, n)` (a tuple draws at random; a number is added as is)",
        Remedy.BOUNDS: "pass `tries=N` (-1 means forever)",
        Remedy.BACKOFF: "set `delay=` and `backoff=`",
    }


ADAPTER = RetryPackage()
