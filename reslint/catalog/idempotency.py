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

from dataclasses import dataclass
from typing import Dict, FrozenSet, Tuple

from reslint.catalog import mcp


def normalise(name: str) -> str:
    """``Idempotency-Key``, ``idempotency_key`` and ``IdempotencyKey`` compare equal."""
    return name.lower().replace("-", "").replace("_", "")


#: Names (header, keyword or body field) that carry an idempotency or deduplication key.
KEY_NAMES: FrozenSet[str] = frozenset(normalise(n) for n in (
    "Idempotency-Key", "X-Idempotency-Key", "Idempotency-Token", "idempotency_key",
    "ClientToken", "ClientRequestToken", "IdempotencyToken", "MessageDeduplicationId", "dedup_id",
    "deduplication_id",
    # PagerDuty Events API: v2 ``dedup_key``, v1 ``incident_key``: an event with the key of an open alert
    # is merged into it (https://developer.pagerduty.com/docs/events-api-v2/overview/#deduplication,
    # https://developer.pagerduty.com/docs/events-api-v1/trigger-events/)
    "dedup_key", "incident_key",
))

#: Names that carry a deduplication key only in requests to one vendor's host: ``(host text, names)``.
#: Opsgenie ``alias``: "an alert with the same alias is not created again while it is open"
#: (https://docs.opsgenie.com/docs/alert-api#create-alert); ``alias`` elsewhere means anything.
HOST_KEY_NAMES: Tuple[Tuple[str, FrozenSet[str]], ...] = (
    ("opsgenie.com", frozenset({normalise("alias")})),
)

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

#: POSTs that read or compute and change nothing a replay could duplicate:
#: - a GraphQL query (a ``{"query": ...}`` body whose document is a query, not a mutation: an
#:   operation is ``query``, ``mutation`` or ``subscription``, and a document that starts with ``{``
#:   is a query, https://spec.graphql.org/October2021/#sec-Language.Operations);
#: - an OAuth 2.0 token request (a ``grant_type`` parameter, RFC 6749 section 4: it issues an access
#:   token, another one on a replay, and changes no resource);
#: - an embeddings request (``/embeddings``: OpenAI's and the compatible APIs'
#:   https://platform.openai.com/docs/api-reference/embeddings, a pure computation on the input),
#:   or a POST in a function named for embedding (``embed_with_hf``, ``_embed_litellm_proxy``),
#:   whose URL is a setting;
#: - a chat completion request (a URL whose path ends in ``/chat/completions``: OpenAI's and the
#:   compatible APIs' https://platform.openai.com/docs/api-reference/chat/create, the model's answer to
#:   the messages sent), unless its body asks to keep it (``"store": true``, which saves the completion);
#:   what the answer asks for (a tool call) is the caller's to run, not the request's;
#: - a speech synthesis or transcription request, which turns the text or audio it is sent into
#:   audio or text and keeps nothing (OpenAI's ``/audio/speech``, ``/audio/transcriptions``,
#:   ``/audio/translations``: https://platform.openai.com/docs/api-reference/audio; MiniMax's
#:   ``/t2a_v2``: https://platform.minimax.io/docs/api-reference/speech-t2a-http; a ``/tts``
#:   endpoint such as Volcengine's ``/api/v1/tts``), or a POST in a function named for it
#:   (``text_to_speech_minimax``, ``transcribe_audio``). Like a completion, a replay costs the
#:   computation again and duplicates nothing (DESIGN: writes with lasting side effects only).
GRAPHQL_QUERY_KEY = "query"
GRAPHQL_WRITE_OPERATIONS: Tuple[str, ...] = ("mutation", "subscription")
OAUTH_TOKEN_PARAMETER = "grant_type"
COMPLETION_PATHS: Tuple[str, ...] = ("/chat/completions",)
COMPLETION_STORE_KEY = "store"
READ_PATH_PARTS: Tuple[str, ...] = ("/embeddings", "/audio/speech", "/audio/transcriptions", "/audio/translations",
                                   "/t2a", "/tts")
#: substrings of a function's name that say it embeds, and words of its ``_``-separated name that
#: say it synthesises or transcribes speech
READ_FUNCTION_WORDS: Tuple[str, ...] = ("embed", "text_to_speech", "speech_to_text")
READ_FUNCTION_PARTS: FrozenSet[str] = frozenset({"tts", "transcribe", "transcription", "synthesize",
                                                  "synthesise", "stt"})

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

#: Tool calls (MCP ``ClientSession.call_tool``): qualified name -> position of the tool's name; a
#: write unless the tool is declared read-only (:mod:`reslint.catalog.mcp`)
TOOL_CALLS: Dict[str, int] = dict(mcp.TOOL_CALLS)
#: their method names (``.call_tool``), for a session known only by a parameter's annotation
TOOL_METHODS: FrozenSet[str] = frozenset("." + name.rsplit(".", 1)[1] for name in TOOL_CALLS)
#: the types a parameter's annotation is trusted for when a method stores the parameter
#: (``def __init__(self, session: ClientSession): self.session = session``): what matters about them,
#: that a tool call is a write, does not depend on how the object was built (a session's timeout does,
#: and stays unknown)
ANNOTATION_TYPES: FrozenSet[str] = frozenset(name.rsplit(".", 1)[0] for name in TOOL_CALLS)
#: how a finding names a tool call: by its tool when that is a constant (``{tool}``), else as
#: chosen at run time
NAMED_TOOL_CALL = "MCP tool call `{tool}` (not declared in `read-only-tools`)"
RUNTIME_TOOL_CALL = "an MCP tool call (the tool is chosen at run time)"

#: Other non-idempotent operations: qualified name -> the parameters that make them idempotent.
WRITES: Dict[str, Tuple[str, ...]] = {
    "smtplib.SMTP.sendmail": (), "smtplib.SMTP.send_message": (), "smtplib.SMTP_SSL.sendmail": (),
    "smtplib.SMTP_SSL.send_message": (), "django.core.mail.send_mail": (), "django.core.mail.send_mass_mail": (),
    "kafka.KafkaProducer.send": (), "confluent_kafka.Producer.produce": (),
    # Django: ``send()`` of a message object whose type is known (django/core/mail/message.py,
    # EmailMessage.send -> connection.send_messages; EmailMultiAlternatives subclasses it)
    "django.core.mail.EmailMessage.send": (), "django.core.mail.EmailMultiAlternatives.send": (),
    "django.core.mail.message.EmailMessage.send": (), "django.core.mail.message.EmailMultiAlternatives.send": (),
    # Twilio: each messages.create sends an SMS (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource;
    # twilio/rest/__init__.py Client, twilio/rest/api/v2010/account/message/__init__.py MessageList.create)
    "twilio.rest.Client.messages.create": (),
}

#: ``api_call("chat.postMessage", ...)`` on these Slack clients (slack_sdk/web/base_client.py api_call).
SLACK_CLIENTS: FrozenSet[str] = frozenset({
    "slack_sdk.WebClient", "slack_sdk.web.WebClient", "slack_sdk.web.client.WebClient",
    "slack_sdk.web.async_client.AsyncWebClient", "slack_sdk.web.AsyncWebClient", "slack.WebClient",
})
#: Slack Web API methods that post or create something new on each call and take no key to dedupe
#: a replay (https://api.slack.com/methods: chat.postMessage, chat.postEphemeral, chat.scheduleMessage,
#: chat.meMessage, canvases.create, bookmarks.add, reminders.add). ``conversations.create`` is not
#: one: a replay fails with ``name_taken`` instead of creating a second channel.
SLACK_WRITE_METHODS: FrozenSet[str] = frozenset({
    "chat.postMessage", "chat.postEphemeral", "chat.scheduleMessage", "chat.meMessage", "canvases.create",
    "bookmarks.add", "reminders.add",
})
#: ``api_call(method, http_verb="GET")``: a Slack read (slack_sdk/web/base_client.py api_call)
SLACK_READ_VERB = "GET"
# the same writes as the clients' methods, named after them (slack_sdk/web/client.py
# WebClient.chat_postMessage, chat_postEphemeral, reminders_add...)
WRITES.update({f"{client}.{method.replace('.', '_')}": () for client in SLACK_CLIENTS for method in SLACK_WRITE_METHODS})

#: Google API client (googleapiclient): ``service.<collection>().<method>(...).execute()`` sends the request
#: built by ``<method>``; these methods create or send (googleapiclient/discovery.py builds them from the
#: discovery document; Gmail ``users.messages.send``, Calendar ``events.insert``, Drive ``files.copy``...).
GOOGLE_API_BUILDERS: FrozenSet[str] = frozenset({"googleapiclient.discovery.build", "apiclient.discovery.build"})
GOOGLE_API_WRITES: FrozenSet[str] = frozenset({"insert", "create", "send", "copy", "patch"})

#: paypalrestsdk: ``Resource.http_headers`` sends ``PayPal-Request-Id``, minted once per resource object
#: (paypalrestsdk/resource.py ``generate_request_id``: ``uuid.uuid4()`` when ``request_id`` is None), so
#: ``Payment(...).create()`` is keyed per object: a new object per attempt is a new key.
PAYPAL_CREATES: FrozenSet[str] = frozenset({"paypalrestsdk.Payment.create", "paypalrestsdk.payments.Payment.create",
                                            "paypalrestsdk.Payout.create", "paypalrestsdk.payments.Payout.create"})

#: the type every boto3/botocore service client has (``boto3.client(...)`` returns one: catalog/names.py)
AWS_CLIENT = "botocore.client.BaseClient"
#: botocore client operations that create, publish or invoke (any AWS service), and their key parameters.
AWS_WRITE_PREFIXES: Tuple[str, ...] = ("create_", "run_", "start_", "put_record")
#: ...except operations that are idempotent by design (tagging, upserts).
AWS_IDEMPOTENT_MARKERS: Tuple[str, ...] = ("tags", "or_update", "_tag")
AWS_WRITES: FrozenSet[str] = frozenset({"publish", "publish_batch", "send_message", "send_message_batch", "invoke",
                                        "put_events", "send_email", "send_raw_email"})

#: botocore operations that the client's own retries send again with an effect a second run repeats,
#: by service name (``boto3.client("lambda")``): a synchronous Lambda ``invoke`` (the default
#: ``InvocationType="RequestResponse"``) whose read times out or whose answer is a 5xx or a throttle is
#: sent again by botocore, and Lambda runs the function again (AWS Lambda Developer Guide, "Understanding
#: retry behavior in Lambda": clients such as the AWS CLI and the AWS SDK retry on client timeouts,
#: throttling errors and service errors; botocore/retries/standard.py retries read timeouts)
SDK_REPLAYED_WRITES: Dict[str, FrozenSet[str]] = {"lambda": frozenset({"invoke"})}
#: the invocation type under which ``invoke`` runs the function while the caller waits
SYNCHRONOUS_INVOCATION = "RequestResponse"

#: Stripe: ``stripe.<Resource>.create`` and ``StripeClient(...).v1.<resource>.create`` mint a key per
#: call (stripe/_api_requestor.py); ``idempotency_key=`` or ``options={"idempotency_key": ...}`` fixes it.
#: Each has an ``_async`` twin that sends the same request (stripe/_payout.py ``Payout.create_async``,
#: stripe/_payment_intent.py ``capture_async``/``confirm_async``, stripe/_invoice.py ``pay_async``, and the
#: client's services, stripe 16.1.0).
STRIPE_SYNC_CREATE_METHODS: FrozenSet[str] = frozenset({"create", "capture", "confirm", "pay"})
STRIPE_CREATE_METHODS: FrozenSet[str] = STRIPE_SYNC_CREATE_METHODS | frozenset(
    f"{method}_async" for method in STRIPE_SYNC_CREATE_METHODS)
#: the module whose resources ``stripe.<Resource>.<create method>`` are (any resource), and the client
STRIPE_MODULE = "stripe"
STRIPE_CLIENT = "stripe.StripeClient"

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

#: aiohttp_retry's client: without ``retry_options`` it uses ``ExponentialRetry()`` (aiohttp_retry/client.py 2.9.1).
AIOHTTP_RETRY_CLIENT = "aiohttp_retry.RetryClient"
#: aiohttp_retry option classes: their ``methods`` default to every verb (aiohttp_retry/retry_options.py 2.9.1).
AIOHTTP_RETRY_OPTIONS: FrozenSet[str] = frozenset(
    f"{module}.{name}" for module in ("aiohttp_retry", "aiohttp_retry.retry_options")
    for name in ("ExponentialRetry", "JitterRetry", "RandomRetry", "ListRetry", "FibonacciRetry",
                 "RetryOptions")  # RetryOptions: a deprecated function returning ExponentialRetry
)
#: What an aiohttp_retry option replays (aiohttp_retry/client.py ``_RequestContext``, 2.9.1):
#: a response is retried when its method is in ``methods`` (default: every verb, POST and PATCH included)
#: and its status is >= 500 with ``retry_all_server_errors=True`` (the default), or in ``statuses``, or
#: ``evaluate_response_callback`` says so; an exception is retried when it is an instance of one of
#: ``exceptions`` (default: none), whatever the method. ``attempts`` counts the first call (default 3).
AIOHTTP_RETRY_DEFAULT_ATTEMPTS = 3


# -- deduplication records (RES404) ------------------------------------------------------------
@dataclass(frozen=True)
class DedupStore:
    """Where code keeps "already processed" records, and how it reads and writes them.

    - ``receivers``: canonical types (or qualified names, for module objects) of the client;
    - ``reads``: methods whose result says whether a key is recorded (a guard);
    - ``writes``: methods that record a key (the write after the effect);
    - ``claims``: methods that record a key and say whether it was new, in one atomic step: used
      as the guard they are the right way, not the fault; ``claim_keywords``: (method, keyword)
      pairs that make a write such a claim (``set(key, 1, nx=True)``);
    - ``member_keyed``: the key of a read or write is its first two arguments (a set and a member);
    - ``advice``: what the rule suggests instead.
    """

    name: str
    receivers: Tuple[str, ...]
    reads: FrozenSet[str]
    writes: FrozenSet[str]
    claims: FrozenSet[str]
    claim_keywords: Tuple[Tuple[str, str], ...]
    advice: str
    source: str
    member_keyed: FrozenSet[str] = frozenset()
    #: how a write or a claim sets the record's time to live: ``(method, keyword, position, seconds
    #: per unit)`` (``set(key, 1, ex=3600)``: ``("set", "ex", 2, 1.0)``); a TTL passed another way
    #: (an absolute expiry time, a later ``expire()``) is not read
    ttl_arguments: Tuple[Tuple[str, str, int, float], ...] = ()


DEDUP_STORES: Tuple[DedupStore, ...] = (
    DedupStore(
        "redis", ("redis.Redis", "redis.asyncio.Redis", "redis.asyncio.client.Redis", "redis.cluster.RedisCluster",
                  "redis.asyncio.cluster.RedisCluster"),
        reads=frozenset({"exists", "get", "sismember", "hexists", "hget"}),
        writes=frozenset({"set", "setex", "psetex", "sadd", "hset", "mset"}),
        claims=frozenset({"setnx", "hsetnx"}),
        claim_keywords=(("set", "nx"),),
        member_keyed=frozenset({"sismember", "sadd", "hexists", "hget", "hset", "hsetnx"}),
        # redis/commands/core.py (redis-py 5): set(name, value, ex=None, px=None, ...),
        # setex(name, time, value), psetex(name, time_ms, value)
        ttl_arguments=(("set", "ex", 2, 1.0), ("set", "px", 3, 0.001), ("setex", "time", 1, 1.0),
                       ("psetex", "time_ms", 1, 0.001)),
        advice="claim the key first with `set(key, ..., nx=True, ex=ttl)` (or `sadd`), act only when it returns "
               "true, and delete the claim if the effect fails",
        source="https://redis.io/docs/latest/commands/set/ (NX: only set the key if it does not exist; returns "
               "nil when not set); redis/commands/core.py set(name, value, ex, px, nx, ...), setnx, sadd (redis-py 5)",
    ),
    DedupStore(
        "Django cache", ("django.core.cache.cache",),
        reads=frozenset({"get", "has_key"}),
        writes=frozenset({"set", "set_many"}),
        claims=frozenset({"add"}),
        claim_keywords=(),
        advice="claim the key first with `cache.add(key, ...)`, which sets it only when absent and says so",
        # https://docs.djangoproject.com/en/stable/topics/cache/#basic-usage: set(key, value,
        # timeout=DEFAULT_TIMEOUT, version=None), add(key, value, timeout=DEFAULT_TIMEOUT, version=None);
        # timeout in seconds, None for ever
        ttl_arguments=(("set", "timeout", 2, 1.0), ("add", "timeout", 2, 1.0)),
        source="https://docs.djangoproject.com/en/stable/topics/cache/#cache-add (add: \"only adds the key if it "
               "doesn't already exist\"; returns True if it was stored)",
    ),
)

@dataclass(frozen=True)
class WebhookSender:
    """A provider that redelivers a webhook until its receiver acknowledges it (RES404's TTL shape):
    for ``redelivery_s`` seconds at most; a module receives its deliveries when it calls one of
    ``verifiers`` (the provider SDK's signature checks, qualified names) or spells one of
    ``headers`` (request headers only its deliveries carry, lowercase with ``_`` for ``-``, as
    Django's ``request.META`` keys end)."""

    name: str
    redelivery_s: float
    verifiers: Tuple[str, ...]
    headers: Tuple[str, ...]
    source: str


WEBHOOK_SENDERS: Tuple[WebhookSender, ...] = (
    WebhookSender(
        "Stripe", 3 * 86400.0, ("stripe.Webhook.construct_event", "stripe.WebhookSignature.verify_header"),
        ("stripe_signature",),
        source="https://docs.stripe.com/webhooks (automatic retries: in live mode Stripe attempts to deliver an "
               "event for up to three days, with exponential backoff; the Stripe-Signature header); "
               "stripe/_webhook.py Webhook.construct_event, WebhookSignature.verify_header (stripe 16)",
    ),
    WebhookSender(
        "Shopify", 4 * 3600.0, (), ("x_shopify_hmac_sha256",),
        source="https://shopify.dev/changelog/updates-to-webhook-retry-mechanism (from 2024-09-10: retried 8 "
               "times over 4 hours); https://shopify.dev/docs/apps/build/webhooks/subscribe/https "
               "(X-Shopify-Hmac-SHA256 header)",
    ),
)

#: ORM guards and writes of a model's rows (RES404): ``Model.objects.filter(k=v).exists()`` then
#: ``Model.objects.create(k=v)`` (Django, https://docs.djangoproject.com/en/stable/ref/models/querysets/),
#: ``session.query(Model).filter_by(k=v).first()`` then ``session.add(Model(k=v))`` (SQLAlchemy,
#: https://docs.sqlalchemy.org/en/20/orm/queryguide/query.html).
ORM_MANAGER = "objects"
ORM_FILTERS: FrozenSet[str] = frozenset({"filter", "filter_by"})
ORM_READS: FrozenSet[str] = frozenset({"exists", "first", "count", "one_or_none", "scalar"})
ORM_QUERY = "query"
ORM_CREATES: FrozenSet[str] = frozenset({"create"})
ORM_SAVES: FrozenSet[str] = frozenset({"save"})
ORM_ADDS: FrozenSet[str] = frozenset({"add"})
#: attribute names whose call makes a file worth parsing for RES404 (a model's manager, a session's query):
#: the model is the project's own class, so no import names it
DEDUP_ATTRIBUTES: FrozenSet[str] = frozenset({ORM_MANAGER, ORM_QUERY})
#: every call that writes a row (RES404's prefilter: a file with a row guard and none of these cannot hold one)
ORM_WRITES: FrozenSet[str] = ORM_CREATES | ORM_SAVES | ORM_ADDS
#: a create that claims the row when a unique constraint holds the key: the guard done right
ORM_CLAIMS: FrozenSet[str] = frozenset({"get_or_create", "update_or_create"})
#: what locks rows read under ``transaction.atomic()`` (Django ``select_for_update``, SQLAlchemy ``with_for_update``)
ORM_ROW_LOCKS: FrozenSet[str] = frozenset({"select_for_update", "with_for_update"})
ORM_ADVICE = "claim the row first: `create()` it on a unique field (or `get_or_create`) inside a transaction and " \
             "act only when it was created, or lock the row with `select_for_update()` in `transaction.atomic()`"

#: names that say a record is a deduplication record (RES404's context, from a survey of public code)
DEDUP_WORDS: Tuple[str, ...] = ("processed", "seen", "dedup", "duplicate", "idempot", "event_id", "delivery_id",
                                "message_id", "already")
#: function names (the function's own name only) and decorators that say the code handles deliveries (a
#: webhook view, a consumer, a task), which a sender may repeat: celery ``@shared_task``/``@app.task``, dramatiq ``@actor``, Django ``@csrf_exempt``
#: on a webhook endpoint (the last name of the decorator is compared)
DELIVERY_FUNCTION_WORDS: Tuple[str, ...] = ("webhook", "consume", "on_message", "handle_event", "handle_message",
                                            "callback", "subscriber", "listener")
DELIVERY_DECORATORS: FrozenSet[str] = frozenset({"task", "shared_task", "actor", "csrf_exempt"})
#: calls that are not a side effect between the guard and the write (logging and printing)
INERT_CALLS: Tuple[str, ...] = ("logging.", "print", "log.", "logger.", "_log.", "_logger.", "LOG.", "LOGGER.")
