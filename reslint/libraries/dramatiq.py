"""dramatiq: every actor (``@dramatiq.actor``, ``@actor(...)``) is retried by the ``Retries``
middleware, which every broker installs by default.

Facts from dramatiq/middleware/retries.py and dramatiq/common.py (2.x): on any exception an
actor's message is retried up to ``max_retries`` times (20 by default, ``None``: forever), unless
the exception is one of ``throws`` (the message fails) or ``retry_when(retries, exception)`` is
given, which then decides alone. The wait after the k-th failure is
``compute_backoff(k - 1, factor=min_backoff, max_backoff=max_backoff)``: ``min_backoff * 2 **
(k - 1)`` milliseconds times a random ``uniform(1, 2)`` (always jittered), capped at ``max_backoff``
(15 s and 7 days by default; ``max_backoff`` is clamped to 7 days). A ``dramatiq.Retry(delay=ms)``
raised by the actor sets that one wait. There is no time cap, and ``Retry-After`` is not read.
The options are read from the actor's decorator. The defaults are the broker's ``Retries``
middleware's, which a project often builds with its own (``Retries(max_retries=settings.X,
min_backoff=...)``, in the module that sets up the broker): an actor that does not give
``max_retries`` retries an unknown number of times, one that does not give ``min_backoff`` waits
an unknown time, and the 7-day clamp of ``max_backoff`` bounds every wait whatever is configured.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from reslint.libraries.base import Remedy, RetryAdapter, Site, merge, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, clamp, is_number, mul, scaled_power

#: dramatiq/middleware/retries.py: Retries(max_retries=20), DEFAULT_MIN_BACKOFF = 15000 ms,
#: DEFAULT_MAX_BACKOFF = 86400000 * 7 ms (also the most ``max_backoff`` can be)
DEFAULTS = {"max_retries": 20, "min_backoff_ms": 15000, "max_backoff_ms": 86400000 * 7}
#: the Retries middleware (dramatiq/middleware/retries.py, exported by dramatiq.middleware)
MIDDLEWARE = ("dramatiq.middleware.Retries", "dramatiq.middleware.retries.Retries")
#: brokers whose default middleware holds ``Retries()`` (dramatiq/brokers/redis.py, rabbitmq.py)
BROKERS = ("dramatiq.brokers.redis.RedisBroker", "dramatiq.brokers.rabbitmq.RabbitmqBroker")
#: the actor options the reader takes (``Retries.actor_options``), passed through ``**options``
OPTIONS = ("max_retries", "min_backoff", "max_backoff", "retry_when", "throws")
#: the exponent of compute_backoff is capped (dramatiq/common.py ``max_exponent=32``)
MAX_EXPONENT = 32
#: compute_backoff's jitter multiplies the wait by ``uniform(1, 2)``: at most twice the base
JITTER_FACTOR = 2.0
_MS = 0.001


def _schedule(low, high, node) -> Wait:
    """compute_backoff's waits, ``low`` doubling up to ``high`` (seconds), each drawn up to twice."""
    return Wait(WaitShape.SCHEDULE, Jitter.YES,
                lambda k: clamp(mul(mul(low, JITTER_FACTOR), scaled_power(2.0, min(k - 1, MAX_EXPONENT))), None, high),
                node)


class Dramatiq(RetryAdapter):
    name = "dramatiq"
    label = "dramatiq actor retry"
    cap_label = "dramatiq actor retry"
    write_label = "a dramatiq actor (retried by the Retries middleware)"
    layer_label = "dramatiq actor retry"
    queued = True
    spellings = roles("dramatiq.actor", role=Role.DECORATOR)
    trigger_modules = ("dramatiq",)
    forwarded = {"dramatiq.actor": OPTIONS}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        scope = site.scope
        args = Args(site.call)
        if args.star:
            return self.policy(site)
        # not given: the middleware's (20 unless the project builds its own Retries)
        retries = reader.count(args, "max_retries", UNKNOWN, scope)
        # an actor that gives no predicate of its own (``throws=``, ``retry_when=``) retries what the
        # middleware says: that catch-all is the middleware's, reported where the project builds it
        # (one finding, not one per actor; a count the actor sets does not make the predicate its own)
        retried = Retried(RetriedKind.ANY, ("Exception",), node=site.anchor, default=True,
                          inherited="throws" not in args and "retry_when" not in args)
        excluded = reader.exception_types(args.expr("throws"), scope) if "throws" in args else ()
        if "throws" in args:  # these fail the message at once: no longer the default predicate
            retried = dataclasses.replace(retried, excluded=excluded, default=False) if excluded else \
                dataclasses.replace(retried, filtered=True, default=False)
        wait = self._wait(reader, args, scope)
        if "retry_when" in args:  # the predicate decides alone, max_retries is ignored
            return self.policy(site, max_delay_s=None, wait=wait,
                               retried=Retried(RetriedKind.UNKNOWN, node=args.expr("retry_when")))
        return self.policy(site, attempts=retries + 1 if is_number(retries) else retries, max_delay_s=None,
                           wait=wait, retried=retried)

    def _wait(self, reader: PolicyReader, args: Args, scope, default: bool = False) -> Wait:
        """The waits; ``default``: what is not given is dramatiq's default (the middleware itself),
        not the middleware's, which the project may have set (an actor)."""
        given = "min_backoff" in args
        low = reader.number(args, "min_backoff", None, scale=_MS, scope=scope)
        high = reader.number(args, "max_backoff", None, scale=_MS, scope=scope)
        # ``min_backoff or DEFAULT``: None and 0 are the middleware's (Retries.__init__, the message
        # options), which the project may have set; max_backoff is clamped to 7 days whatever it is
        if default and (not given or low is None or low == 0):
            low = DEFAULTS["min_backoff_ms"] * _MS
        low = UNKNOWN if low is None or low == 0 or (not given and not default) else low
        high = DEFAULTS["max_backoff_ms"] * _MS if high is None or high == 0 else high
        if is_number(high):
            high = min(high, DEFAULTS["max_backoff_ms"] * _MS)
        return _schedule(low, high, args.expr("min_backoff") or args.expr("max_backoff"))

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        if remedy is Remedy.NARROW and (policy.retried.excluded or policy.retried.filtered):
            # the actor already gives ``throws=``: only a predicate that accepts errors narrows it further
            return "give the actor `retry_when=` a predicate that accepts only those (`throws=` fails only the " \
                   "errors it lists; every error nobody listed is still retried)"
        return super().advice(remedy, policy, limit_s)

    advice_text = {
        Remedy.TIME_CAP: "lower `max_retries` or `max_backoff` (dramatiq has no total-time cap)",
        Remedy.BOUNDS: "set `max_retries=` to a number (None means forever)",
        Remedy.NARROW: "give the actor `retry_when=` a predicate that accepts only those, or `throws=` the errors "
                       "no retry fixes",
    }


class DramatiqMiddleware(Dramatiq):
    """The ``Retries`` middleware a project builds for its broker (``Retries(max_retries=20,
    min_backoff=2000)``), and a broker built with no ``middleware=`` (its default list holds
    ``Retries()``: dramatiq/middleware/__init__.py ``default_middleware``, dramatiq/broker.py
    ``Broker.__init__``): the policy every actor that gives none of its own is retried with. Its
    options are the actor options of the same names, in milliseconds; without ``retry_when`` it
    retries every exception (the fault of every such actor, reported once, here)."""

    name = "dramatiq-middleware"
    label = "dramatiq's Retries middleware"
    cap_label = "dramatiq's Retries middleware"
    write_label = "dramatiq's Retries middleware"
    layer_label = "dramatiq Retries middleware"
    spellings = merge(roles(*MIDDLEWARE, role=Role.OBJECT), roles(*BROKERS, role=Role.OBJECT))
    keywords = {**{name: ("max_retries", "min_backoff", "max_backoff", "retry_when") for name in MIDDLEWARE},
                **{name: ("middleware",) for name in BROKERS}}
    forwarded = {}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        qual = site.qualname
        args = Args(site.call)
        if qual in BROKERS:
            given = args.expr("middleware")
            if args.star or (given is not None and not (isinstance(given, cst.Name) and given.value == "None")):
                return None  # its own list: a Retries in it is read where it is built
            return self._defaults(site)
        if args.star:
            return self.policy(site)
        scope = site.scope
        retries = reader.count(args, "max_retries", DEFAULTS["max_retries"], scope)
        wait = self._wait(reader, args, scope, default=True)
        if "retry_when" in args:
            return self.policy(site, max_delay_s=None, wait=wait,
                               retried=Retried(RetriedKind.UNKNOWN, node=args.expr("retry_when")))
        return self.policy(site, attempts=retries + 1 if is_number(retries) else retries, max_delay_s=None, wait=wait,
                           retried=Retried(RetriedKind.ANY, ("Exception",), node=site.anchor, default=True))

    def _defaults(self, site: Site) -> RetryPolicy:
        """``Retries()``: 20 retries of every exception, 15 s doubling (jittered) up to 7 days apart."""
        return self.policy(site, attempts=DEFAULTS["max_retries"] + 1, max_delay_s=None,
                           wait=_schedule(DEFAULTS["min_backoff_ms"] * _MS, DEFAULTS["max_backoff_ms"] * _MS, None),
                           retried=Retried(RetriedKind.ANY, ("Exception",), node=site.anchor, default=True))

    advice_text = {
        Remedy.TIME_CAP: "lower `max_retries` or `max_backoff` (dramatiq has no total-time cap)",
        Remedy.BOUNDS: "set `max_retries=` to a number (None means forever)",
        Remedy.NARROW: "give the middleware `retry_when=` a predicate that accepts only those (or each actor "
                       "`retry_when=`, or `throws=` the errors no retry fixes)",
    }


class DjangoDramatiqMiddleware(DramatiqMiddleware):
    """The ``Retries`` middleware django_dramatiq builds from its dotted path in the Django setting
    ``DRAMATIQ_BROKER["MIDDLEWARE"]`` (django_dramatiq/apps.py ``load_middleware(path,
    **cls.get_middleware_kwargs(path))``: no options, unless an app config subclass defines
    ``middleware_retries_kwargs``, which the run asks about after the cache), passed as the broker's
    ``middleware=``; its default settings (no ``DRAMATIQ_BROKER``) list ``Retries`` too, unseen."""

    name = "django-dramatiq-middleware"
    label = "django_dramatiq's Retries middleware"
    cap_label = label
    write_label = label
    layer_label = "django_dramatiq Retries middleware"
    spellings = {}
    keywords = {}
    import_strings = MIDDLEWARE
    #: the app config hook that gives the path's ``Retries`` options (django_dramatiq/apps.py
    #: ``get_middleware_kwargs``: ``middleware_{name}_kwargs``)
    options_hook = "middleware_retries_kwargs"

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        return self._defaults(site)

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        text = self.advice_text.get(remedy)
        if text is None:
            return None
        # django_dramatiq/utils.py ``load_middleware`` takes a middleware object as it is
        return (f"list a `Retries(...)` object in the path's place (django_dramatiq takes middleware objects) "
                f"or return its options from an app config's `{self.options_hook}`, and {text}")


ADAPTER = Dramatiq()
MIDDLEWARE = DramatiqMiddleware()
SETTINGS_MIDDLEWARE = DjangoDramatiqMiddleware()
