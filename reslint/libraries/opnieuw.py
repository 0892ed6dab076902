"""opnieuw: ``@opnieuw.retry(retry_on_exceptions, max_calls_total=3,
retry_window_after_first_call_in_seconds=60)`` and ``retry_async``.

Facts from opnieuw/retries.py (3.1.0): at most ``max_calls_total`` calls within the window after
the first; each wait is drawn with full jitter from an exponential schedule that fits the window,
so no wait exceeds the window. ``Retry-After`` is never read.
"""

from __future__ import annotations

from reslint.libraries.base import RetryAdapter, Site, roles
from reslint.model.policy import Jitter, RetryPolicy, Role, Wait, WaitShape, types_or_unknown
from reslint.model.reader import Args, PolicyReader

#: opnieuw/retries.py: 3 calls within a 60 s window, full jitter
DEFAULTS = {"max_calls_total": 3, "retry_window_after_first_call_in_seconds": 60.0}
#: what the reader takes from ``retry(...)``/``retry_async(...)``
KEYWORDS = ("retry_on_exceptions", "max_calls_total", "retry_window_after_first_call_in_seconds")


class Opnieuw(RetryAdapter):
    name = "opnieuw"
    spellings = roles("opnieuw.retry", "opnieuw.retry_async", role=Role.DECORATOR)
    trigger_modules = ("opnieuw",)
    keywords = {qualname: KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call)
        if args.star:
            return self.policy(site)
        window = reader.number(args, "retry_window_after_first_call_in_seconds",
                               DEFAULTS["retry_window_after_first_call_in_seconds"], scope=scope)
        exc = args.expr("retry_on_exceptions")
        types = reader.exception_types(exc, scope) if exc is not None else None
        return self.policy(site, attempts=reader.count(args, "max_calls_total", DEFAULTS["max_calls_total"], scope),
                           max_delay_s=window, wait=Wait(WaitShape.SCHEDULE, Jitter.YES, lambda k: window),
                           retried=types_or_unknown(types, exc))


ADAPTER = Opnieuw()
