"""Entry points: the catalog names a file must reach for a per-file rule to have anything to say.

The second prefilter stage (:mod:`reslint.semantics.prefilter`) keeps a file only when one of
its references resolves to one of these names, lies under one (a method of an
entry class) or is a prefix of one. Every rule starts from such a name: a call with
a timeout, a client or factory that builds one, a retry decorator, iterator,
caller or policy object, a deadline, a client that retries inside, or an
idempotency write (which also needs a retried scope, itself an entry point). gRPC
stubs (``*_pb2_grpc``) are matched by their module name, in the prefilter.
Retry spellings come from the library adapters' registry (so this module sits above
:mod:`reslint.libraries`). Exception classes are not entry points: they matter only inside a retried scope. Nor
are sleeps: they matter only in a loop shaped like a retry, which the prefilter keeps
whatever it calls.
"""

from __future__ import annotations

from typing import FrozenSet

from reslint import libraries
from reslint.catalog import clients, idempotency, retries
from reslint.catalog.names import FACTORIES, canonical
from reslint.catalog.timeouts import TIMEOUT_CALLS, TIMEOUT_INJECTION_HOOKS, TIMEOUT_OBJECTS

def entry_points() -> FrozenSet[str]:
    """Canonical qualified names (a set of dotted strings) that can start a finding."""
    # Stripe's resources are matched by prefix (``stripe.<Resource>.create``): the module covers them
    names = {idempotency.STRIPE_MODULE, idempotency.STRIPE_CLIENT, idempotency.AIOHTTP_RETRY_CLIENT}
    for table in (TIMEOUT_CALLS, TIMEOUT_OBJECTS, TIMEOUT_INJECTION_HOOKS, FACTORIES, libraries.BY_QUALNAME,
                  retries.DEADLINES,
                  clients.RETRYING_CLIENTS, idempotency.HTTP_CALLS, idempotency.WRITES, idempotency.TOOL_CALLS,
                  idempotency.SLACK_CLIENTS, idempotency.GOOGLE_API_BUILDERS, idempotency.PAYPAL_CREATES,
                  idempotency.AIOHTTP_RETRY_OPTIONS):
        names.update(table)
    names.update(FACTORIES.values())
    names.update(libraries.ENTRY_POINTS)
    names.update(r for store in idempotency.DEDUP_STORES for r in store.receivers)  # RES404's records
    return frozenset(canonical(name) for name in names)
