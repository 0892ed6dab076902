"""google-api-core: ``google.api_core.retry.Retry(...)`` (and ``AsyncRetry``), used as a
decorator or handed to a client method as ``retry=``.

Facts from google/api_core/retry/retry_unary.py and retry_base.py (2.x): no attempt cap; a
120 s time cap (``timeout=``, formerly ``deadline=``, still taken by ``**kwargs``); waits of
``min(initial * multiplier ** (k - 1), maximum)`` with full jitter (1 s, 2, 60 s); the default
predicate is ``if_transient_error``. On giving up it raises ``RetryError``.
"""

from __future__ import annotations


from reslint.libraries.base import Remedy, RetryAdapter, Site, merge, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import clamp, mul, scaled_power

#: google/api_core/retry: initial=1, maximum=60, multiplier=2, timeout=120 (full jitter, no attempt cap)
DEFAULTS = {"initial": 1.0, "maximum": 60.0, "multiplier": 2.0, "timeout": 120.0}
#: the default predicate (google/api_core/retry/retry_base.py if_transient_error): InternalServerError,
#: TooManyRequests, ServiceUnavailable, ConnectionError, requests' ChunkedEncodingError
DEFAULT_PREDICATE = "google.api_core.retry.if_transient_error"
POSITIONAL = ("predicate", "initial", "maximum", "multiplier", "timeout")
#: what the reader takes from ``Retry(...)``/``AsyncRetry(...)``
KEYWORDS = POSITIONAL
#: ``timeout``'s name before 2.x, still accepted through ``**kwargs`` (read when ``timeout`` is not given)
OLD_TIMEOUT = "deadline"
_RETRY_OBJECTS = ("google.api_core.retry.Retry", "google.api_core.retry.AsyncRetry")


class GoogleApiCore(RetryAdapter):
    name = "google"
    spellings = merge(roles(*_RETRY_OBJECTS, role=Role.DECORATOR), roles(*_RETRY_OBJECTS, role=Role.OBJECT))
    trigger_modules = ("google",)
    give_up_error = "google.api_core.exceptions.RetryError"
    keywords = {qualname: KEYWORDS for qualname in spellings}
    forwarded = {qualname: (OLD_TIMEOUT,) for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call, POSITIONAL)
        if call is None or args.star:
            return self.policy(site)
        d = DEFAULTS
        timeout_name = OLD_TIMEOUT if OLD_TIMEOUT in args and "timeout" not in args else "timeout"
        initial = reader.number(args, "initial", d["initial"], scope=scope)
        maximum = reader.number(args, "maximum", d["maximum"], scope=scope)
        factor = reader.number(args, "multiplier", d["multiplier"], scope=scope)
        wait = Wait(WaitShape.SCHEDULE, Jitter.YES, lambda k: clamp(mul(initial, scaled_power(factor, k - 1)), None,
                                                                    maximum))
        pred = args.expr("predicate")
        retried = Retried(RetriedKind.TYPES, (DEFAULT_PREDICATE,)) if pred is None else \
            Retried(RetriedKind.UNKNOWN, node=pred)
        max_delay_s = reader.number(args, timeout_name, d["timeout"], scope=scope)
        return self.policy(site, attempts=None, max_delay_s=max_delay_s, wait=wait, retried=retried)

    advice_text = {Remedy.BOUNDS: "pass `timeout=` (None means forever)"}


ADAPTER = GoogleApiCore()
