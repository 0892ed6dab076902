"""Idempotency facts (RES401-RES403): key sinks, key generators, non-idempotent operations.

Sources: ``research/retry-semantics.md`` section 3 (Stripe ``stripe/_api_requestor.py``
sends ``Idempotency-Key`` and mints one per call; botocore ``handlers.py``
``generate_idempotent_uuid`` fills ``ClientToken`` per call; OpenAI/Anthropic send
none), the IETF draft "The Idempotency-Key HTTP Header Field"
(draft-ietf-httpapi-idempotency-key-header), RFC 9110 section 9.2.2 (idempotent
methods: GET, HEAD, OPTIONS, TRACE, PUT, DELETE), and urllib3
``Retry.DEFAULT_ALLOWED_METHODS``.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Tuple


def normalise(name: str) -> str:
    """``Idempotency-Key``, ``idempotency_key`` and ``IdempotencyKey`` compare equal."""
    return name.lower().replace("-", "").replace("_", "")


#: Names (header, keyword or body field) that carry an idempotency or deduplication key.
KEY_NAMES: FrozenSet[str] = frozenset(normalise(n) for n in (
    "Idempotency-Key", "X-Idempotency-Key", "Idempotency-Token", "idempotency_key",
    "ClientToken", "ClientRequestToken", "IdempotencyToken", "MessageDeduplicationId", "dedup_id",
    "deduplication_id",
))

#: Calls whose value differs on every call (a fresh key each attempt).
KEY_GENERATORS: FrozenSet[str] = frozenset({
    "uuid.uuid1", "uuid.uuid4", "secrets.token_hex", "secrets.token_urlsafe", "secrets.token_bytes",
    "os.urandom", "time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns", "time.perf_counter",
    "random.random", "random.randint", "random.getrandbits", "random.choice", "random.choices",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.now", "datetime.utcnow",
})

#: Deterministic key builders: a key from them is stable unless their input is generated.
STABLE_BUILDERS: FrozenSet[str] = frozenset({"uuid.uuid3", "uuid.uuid5", "hashlib.sha256", "hashlib.sha1",
                                             "hashlib.md5", "hashlib.blake2b"})

#: HTTP methods that are not idempotent (RFC 9110 section 9.2.2).
NON_IDEMPOTENT_METHODS: FrozenSet[str] = frozenset({"POST", "PATCH"})

#: Method calls that send an HTTP request, by canonical qualified name -> fixed method (None:
#: the method is the first argument, as in ``request("POST", url)``).
HTTP_CALLS: Dict[str, object] = {}
for _client in ("requests", "requests.Session", "httpx", "httpx.Client", "httpx.AsyncClient",
                "aiohttp.ClientSession"):
    for _verb in ("post", "patch", "put", "delete", "get", "head", "options"):
        HTTP_CALLS[f"{_client}.{_verb}"] = _verb.upper()
    HTTP_CALLS[f"{_client}.request"] = None
for _pool in ("urllib3.PoolManager", "urllib3.HTTPConnectionPool", "urllib3.HTTPSConnectionPool"):
    HTTP_CALLS[f"{_pool}.request"] = None
    HTTP_CALLS[f"{_pool}.urlopen"] = None
HTTP_CALLS["urllib3.request"] = None

#: Other non-idempotent operations: qualified name -> the parameters that make them idempotent.
WRITES: Dict[str, Tuple[str, ...]] = {
    "smtplib.SMTP.sendmail": (), "smtplib.SMTP.send_message": (), "smtplib.SMTP_SSL.sendmail": (),
    "smtplib.SMTP_SSL.send_message": (), "django.core.mail.send_mail": (), "django.core.mail.send_mass_mail": (),
    "kafka.KafkaProducer.send": (), "confluent_kafka.Producer.produce": (),
}

#: botocore client operations that create, publish or invoke (any AWS service), and their key parameters.
AWS_WRITE_PREFIXES: Tuple[str, ...] = ("create_", "run_", "start_", "put_record")
#: ...except operations that are idempotent by design (tagging, upserts).
AWS_IDEMPOTENT_MARKERS: Tuple[str, ...] = ("tags", "or_update", "_tag")
AWS_WRITES: FrozenSet[str] = frozenset({"publish", "publish_batch", "send_message", "send_message_batch", "invoke",
                                        "put_events", "send_email", "send_raw_email"})

#: Stripe: ``stripe.<Resource>.create`` and ``StripeClient(...).v1.<resource>.create`` mint a key per
#: call (stripe/_api_requestor.py); ``idempotency_key=`` or ``options={"idempotency_key": ...}`` fixes it.
STRIPE_CREATE_METHODS: FrozenSet[str] = frozenset({"create", "capture", "confirm", "pay"})

#: SQL that is safe to replay even as an INSERT or UPDATE.
SQL_CONFLICT_CLAUSES: Tuple[str, ...] = ("ON CONFLICT", "ON DUPLICATE KEY", "INSERT OR IGNORE", "INSERT OR REPLACE",
                                         "MERGE ")
SQL_EXECUTE_METHODS: FrozenSet[str] = frozenset({"execute", "executemany"})

#: Errors raised before a request was sent: a retry on these only cannot replay a write.
NOT_SENT_ERRORS: FrozenSet[str] = frozenset({
    "requests.ConnectTimeout", "requests.exceptions.ConnectTimeout", "httpx.ConnectError", "httpx.ConnectTimeout",
    "urllib3.exceptions.NewConnectionError", "urllib3.exceptions.ConnectTimeoutError",
    "botocore.exceptions.EndpointConnectionError", "botocore.exceptions.ConnectTimeoutError",
    "aiohttp.ClientConnectorError", "smtplib.SMTPConnectError",
})

#: urllib3 Retry's default allowed_methods (urllib3/util/retry.py DEFAULT_ALLOWED_METHODS, 2.8.0).
URLLIB3_DEFAULT_METHODS: FrozenSet[str] = frozenset({"HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE"})

#: aiohttp_retry option classes: their ``methods`` default to every verb (aiohttp_retry/retry_options.py 2.9.1).
AIOHTTP_RETRY_OPTIONS: FrozenSet[str] = frozenset({
    "aiohttp_retry.ExponentialRetry", "aiohttp_retry.JitterRetry", "aiohttp_retry.RandomRetry",
    "aiohttp_retry.ListRetry", "aiohttp_retry.FibonacciRetry",
})
