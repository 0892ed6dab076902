"""redo (Mozilla): ``redo.retry(action, ...)``, ``@redo.retriable(...)``, ``redo.retrier(...)``
iterators and ``@redo.retriable_async(retry_exceptions, sleeptime_kwargs)``.

Facts from redo/__init__.py (3.0.1): 5 attempts; the sleep after the k-th failure is
``min(sleeptime * sleepscale ** (k - 1) + jitter * sleepscale ** (k - 1), max_sleeptime)``
(60 s, 1.5, 1 s and 300 s by default; ``retrier`` sleeps 10 s first); every exception is
retried unless ``retry_exceptions`` says otherwise. There is no time cap.
"""

from __future__ import annotations

import libcst as cst

from reslint.libraries.base import Remedy, RetryAdapter, Site, merge, roles
from reslint.model.policy import Jitter, RetryPolicy, Role, Wait, WaitShape, types_or_unknown
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, mul, scaled_power

#: redo/__init__.py retry/retriable: attempts=5, sleeptime=60, max_sleeptime=300, sleepscale=1.5, jitter=1
DEFAULTS = {"attempts": 5, "sleeptime": 60.0, "max_sleeptime": 300.0, "sleepscale": 1.5, "jitter": 1.0}
#: redo/__init__.py retrier(attempts=5, sleeptime=10, ...): its first sleep is shorter
RETRIER_SLEEPTIME = 10.0
#: redo/__init__.py retriable_async -> retry_async (redo 3.0.1): always 5 attempts; the sleep before
#: attempt n is calculate_sleep_time(n, delay_factor=5, randomization_factor=0.5, max_delay=120)
#: = min(2 ** (n - 1) * delay_factor * (1 + randomization_factor * random()), max_delay);
#: only retry_exceptions and sleeptime_kwargs (those three names) can be given
ASYNC_DEFAULTS = {"attempts": 5, "delay_factor": 5.0, "randomization_factor": 0.5, "max_delay": 120.0}

POSITIONAL = ("attempts", "sleeptime", "max_sleeptime", "sleepscale", "jitter")
#: ``retry(action, ...)`` takes the function first; ``retriable_async`` takes only these two
CALLER_POSITIONAL = ("action",)
ASYNC_POSITIONAL = ("retry_exceptions", "sleeptime_kwargs")
#: what the reader takes from ``retry``/``retriable`` (``retrier`` has no ``retry_exceptions``)
KEYWORDS = POSITIONAL + ("retry_exceptions",)
RETRIER_KEYWORDS = POSITIONAL
ASYNC_KEYWORDS = ASYNC_POSITIONAL


class Redo(RetryAdapter):
    name = "redo"
    spellings = merge(roles("redo.retriable", "redo.retriable_async", role=Role.DECORATOR),
                      roles("redo.retrier", role=Role.ITERATOR), roles("redo.retry", role=Role.CALLER))
    trigger_modules = ("redo",)
    retries_callables = True
    keywords = {"redo.retriable": KEYWORDS, "redo.retry": KEYWORDS, "redo.retrier": RETRIER_KEYWORDS,
                "redo.retriable_async": ASYNC_KEYWORDS}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        if site.qualname == "redo.retriable_async":
            return self._read_async(site, reader)
        scope = site.scope
        names = CALLER_POSITIONAL if site.role is Role.CALLER else ()
        args = Args(site.call, names + POSITIONAL)
        if args.star:
            return self.policy(site)
        d = DEFAULTS
        first = RETRIER_SLEEPTIME if site.qualname == "redo.retrier" else d["sleeptime"]
        sleep = reader.number(args, "sleeptime", first, scope=scope)
        cap = reader.number(args, "max_sleeptime", d["max_sleeptime"], scope=scope)
        scale = reader.number(args, "sleepscale", d["sleepscale"], scope=scope)
        jitter = reader.number(args, "jitter", d["jitter"], scope=scope)
        jitter_kind = Jitter.UNKNOWN if jitter is UNKNOWN else (Jitter.NO if not jitter else Jitter.YES)
        wait = Wait(WaitShape.SCHEDULE, jitter_kind,
                    lambda k: clamp(add(mul(sleep, scaled_power(scale, k - 1)),
                                        mul(jitter or 0.0, scaled_power(scale, k - 1))), None, cap),
                    args.expr("jitter"))
        # retrier(...) takes no retry_exceptions (passing it is a TypeError): its default stands
        exc = args.expr("retry_exceptions") if site.qualname != "redo.retrier" else None
        return self.policy(site, attempts=reader.count(args, "attempts", d["attempts"], scope), max_delay_s=None,
                           wait=wait, retried=_retried(reader, exc, scope))

    def _read_async(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        """A fixed 5 attempts and redo's ``calculate_sleep_time`` (``ASYNC_DEFAULTS``)."""
        scope = site.scope
        args = Args(site.call, ASYNC_POSITIONAL)
        if args.star:
            return self.policy(site)
        given = args.expr("sleeptime_kwargs")
        options = _sleep_options(reader, given, scope)
        factor, spread, cap = options["delay_factor"], options["randomization_factor"], options["max_delay"]
        jitter = Jitter.UNKNOWN if spread is UNKNOWN else (Jitter.YES if spread else Jitter.NO)
        # the wait after the k-th failure precedes attempt k + 1: 2 ** k * factor, times up to (1 + spread)
        wait = Wait(WaitShape.SCHEDULE, jitter,
                    lambda k: clamp(mul(mul(factor, scaled_power(2.0, k)), add(1.0, spread)), None, cap), given)
        return self.policy(site, attempts=ASYNC_DEFAULTS["attempts"], max_delay_s=None, wait=wait,
                           retried=_retried(reader, args.expr("retry_exceptions"), scope))

    advice_text = {Remedy.JITTER: "keep `jitter` above 0"}


def _sleep_options(reader: PolicyReader, given, scope) -> dict:
    """The ``calculate_sleep_time`` options a ``sleeptime_kwargs`` dict sets (UNKNOWN for all of
    them when the dict cannot be read)."""
    names = ("delay_factor", "randomization_factor", "max_delay")
    options = {name: ASYNC_DEFAULTS[name] for name in names}
    ctx = reader.ctx
    target, where = ctx.resolve(given, scope) if given is not None else (None, scope)
    if isinstance(target, cst.Dict):
        for element in target.elements:
            key = ctx.value_of(element.key, where) if isinstance(element, cst.DictElement) else UNKNOWN
            if key not in options:  # `**other` or an unknown key: the sleeps cannot be known
                return {name: UNKNOWN for name in names}
            options[key] = ctx.value_of(element.value, where)
    elif given is not None and ctx.value_of(given, scope) is not None:
        return {name: UNKNOWN for name in names}
    return options


def _retried(reader: PolicyReader, exc, scope):
    """``retry_exceptions`` (every exception by default)."""
    types = reader.exception_types(exc, scope) if exc is not None else ("Exception",)
    return types_or_unknown(types, exc, default=exc is None)


ADAPTER = Redo()
