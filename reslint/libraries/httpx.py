"""httpx: ``HTTPTransport(retries=N)`` and ``AsyncHTTPTransport(retries=N)``.

Facts from httpx/_transports/default.py and httpcore/_sync/connection.py (0.28 / 1.0):
``retries=0`` by default; the retries cover failures to connect only (``ConnectError``,
``ConnectTimeout``), never a request that reached the server, with waits of 0 s and then
``0.5 * 2 ** (k - 2)`` s (httpcore's ``exponential_backoff(factor=0.5)``, first delay 0).
"""

from __future__ import annotations

from typing import Optional

from reslint.libraries.base import RetryAdapter, Site, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import is_number

#: what the transport retries: connection failures only
RETRIED_TYPES = ("httpx.ConnectError", "httpx.ConnectTimeout")
#: httpcore's backoff factor (seconds)
BACKOFF_FACTOR_S = 0.5
#: what the reader takes from the transports' constructors
KEYWORDS = ("retries",)


class Httpx(RetryAdapter):
    name = "httpx"
    spellings = roles("httpx.HTTPTransport", "httpx.AsyncHTTPTransport", role=Role.OBJECT)
    trigger_modules = ("httpx",)
    keywords = {qualname: KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        retries = reader.count(Args(site.call), "retries", 0, site.scope)
        if retries == 0:
            return None
        return self.policy(site, attempts=retries + 1 if is_number(retries) else retries, max_delay_s=None,
                           wait=Wait(WaitShape.SCHEDULE, Jitter.NO, _delay),
                           retried=Retried(RetriedKind.TYPES, RETRIED_TYPES), connect_only=True)


def _delay(k: int) -> float:
    """The wait after the k-th failed connect: httpcore sleeps 0 first, then doubles from 0.5 s."""
    return 0.0 if k == 1 else BACKOFF_FACTOR_S * 2 ** (k - 2)


ADAPTER = Httpx()
