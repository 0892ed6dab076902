"""requests: ``HTTPAdapter(max_retries=N)`` mounted on a ``Session``.

Facts from requests/adapters.py (2.32): ``max_retries=0`` by default (no retries); an int N
becomes ``Retry(N, read=False)``: N retries of connection errors, no waits, no status
retries; a ``Retry`` object is its own policy (read by the urllib3 adapter at its constructor).
A session's requests go through the adapter mounted for their URL prefix.
"""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from reslint.catalog.clients import SESSION_VERBS
from reslint.libraries.urllib3 import retries_attempts
from reslint.libraries.base import RetryAdapter, Site, roles
from reslint.model.policy import Retried, RetriedKind, RetryPolicy, Role, Wait
from reslint.model.reader import Args, PolicyReader
from reslint.values import is_number, plus_one, whole

POSITIONAL = ("pool_connections", "pool_maxsize", "max_retries", "pool_block")
#: what the reader takes from ``HTTPAdapter(...)``
KEYWORDS = ("max_retries",)


class Requests(RetryAdapter):
    name = "requests"
    spellings = roles("requests.HTTPAdapter", role=Role.OBJECT)
    trigger_modules = ("requests",)
    session_types = ("requests.Session",)
    keywords = {qualname: KEYWORDS for qualname in spellings}
    #: how users turn a session's retries off (for RES301's message)
    mount_off = "no max_retries on the adapter"

    def sends_request(self, method: str) -> bool:
        """Whether calling ``method`` on a session sends a request (``get``; not ``mount``)."""
        return method in SESSION_VERBS

    def mounted_attempts(self, retry_expr, ctx):
        """Attempts of the requests through an adapter mounted with ``max_retries=retry_expr``."""
        return retries_attempts(retry_expr, ctx)

    def mounted_label(self, attempts: int) -> str:
        """The layer of a session whose adapter makes ``attempts`` attempts."""
        return f"Session Retry(total={attempts - 1})"

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        args = Args(site.call, POSITIONAL)
        if "max_retries" not in args:
            return None  # the default adapter does not retry
        value = reader.value(args.expr("max_retries"), site.scope)
        if not is_number(value):
            return None  # a Retry object is its own policy (reported at its constructor)
        return self.policy(site, attempts=plus_one(whole(value)), max_delay_s=None, wait=Wait.none(),
                           retried=Retried(RetriedKind.STATUS, (), frozenset(), True))

    def mounted(self, ctx, obj) -> Tuple[Tuple[cst.Call, cst.BaseExpression], ...]:
        """``(HTTPAdapter(...), its max_retries value)`` for each adapter mounted on the session."""
        out = []
        for adapter in ctx.mounts_of(obj) or ():
            adapter_call = ctx.constructor_of(adapter)
            if adapter_call is None:
                continue
            for arg in adapter_call.args:
                if arg.keyword is not None and arg.keyword.value == "max_retries":
                    out.append((adapter_call, arg.value))
        return tuple(out)


ADAPTER = Requests()
