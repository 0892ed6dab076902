"""Retry facts shared by every mechanism: sleeps, clocks and random draws of hand-rolled loops,
deadlines, and what is transient.

What one library spells and defaults to lives in its adapter (:mod:`reslint.libraries`).
Facts come from ``research/retry-semantics.md`` (section 1, with the library source paths
and versions read); durations are seconds. ``tests/test_catalog_reality.py`` checks names
against the installed libraries.
"""

from __future__ import annotations

import builtins
from typing import Dict, FrozenSet, Tuple

#: Sleep primitives of hand-rolled retry loops (first positional argument: seconds).
SLEEPS: FrozenSet[str] = frozenset({
    "time.sleep", "asyncio.sleep", "anyio.sleep", "trio.sleep", "gevent.sleep", "eventlet.sleep",
})

#: Calls whose value is a random draw (jitter in a hand-rolled sleep).
RANDOM_DRAWS: FrozenSet[str] = frozenset({
    "random.random", "random.uniform", "random.randint", "random.randrange", "random.choice", "random.gauss",
    "random.triangular", "random.expovariate", "random.betavariate", "random.normalvariate",
    "secrets.randbelow", "numpy.random.random", "numpy.random.uniform", "numpy.random.rand",
    "backoff.full_jitter", "backoff.random_jitter",
})

#: Endless counters a hand-rolled loop can number its attempts with (``for attempt in
#: itertools.count(1):``): no attempt cap. Value: the default (start, step). Source:
#: https://docs.python.org/3/library/itertools.html#itertools.count (``count(start=0, step=1)``).
COUNTERS: Dict[str, Tuple[int, int]] = {"itertools.count": (0, 1)}

#: methods that put a task on its queue again: celery ``Task.delay`` / ``Task.apply_async``
#: (celery/app/task.py), dramatiq ``Actor.send`` / ``Actor.send_with_options`` (dramatiq/actor.py).
#: A task function that calls one on itself from an ``except`` handler, passing an attempt counter
#: plus one, retries by re-enqueueing (as a function that calls itself does)
REENQUEUE_METHODS: FrozenSet[str] = frozenset({"delay", "apply_async", "send", "send_with_options"})
#: those that take the task's arguments as ``args``/``kwargs`` (positionally or by keyword) and
#: options besides (celery ``apply_async(args=None, kwargs=None, ..., **options)``, dramatiq
#: ``send_with_options(*, args=(), kwargs=None, delay=None, **options)``); the others pass every
#: argument to the task itself (``delay(*args, **kwargs)``, ``send(*args, **kwargs)``)
REENQUEUE_OPTION_METHODS: FrozenSet[str] = frozenset({"apply_async", "send_with_options"})
#: the keywords of those calls that carry the task's own arguments (``apply_async(args=(...),
#: kwargs={...})``)
REENQUEUE_ARGUMENT_KEYWORDS: FrozenSet[str] = frozenset({"args", "kwargs"})
#: the options of those calls that set when the task runs again (celery ``countdown``, ``eta``;
#: dramatiq ``delay``, milliseconds); other options (``queue=``, ``priority=``) set no wait
REENQUEUE_DELAY_KEYWORDS: FrozenSet[str] = frozenset({"countdown", "eta", "delay"})

#: Calls that ask a person for input: a loop that goes round until the answer parses is a prompt,
#: not a retry of a fault. Sources: https://docs.python.org/3/library/functions.html#input,
#: https://docs.python.org/3/library/getpass.html#getpass.getpass
PROMPTS: FrozenSet[str] = frozenset({"input", "builtins.input", "getpass.getpass"})

#: Monotonic and wall clocks (a loop that compares one with a bound has a time cap).
CLOCKS: FrozenSet[str] = frozenset({
    "time.monotonic", "time.time", "time.perf_counter", "time.monotonic_ns", "time.time_ns",
    "datetime.datetime.now", "datetime.datetime.utcnow", "loop.time",
    # asyncio/events.py AbstractEventLoop.time(): the loop's monotonic clock, of the loop
    # asyncio.get_running_loop() / get_event_loop() return (names.FACTORIES)
    "asyncio.AbstractEventLoop.time",
})

#: Context managers and calls that bound the time of what they enclose (deadlines, RES104).
#: Value: (positional index, keyword) of the seconds argument.
DEADLINES: Dict[str, Tuple[int, str]] = {
    "asyncio.timeout": (0, "delay"),  # Python 3.11+
    "asyncio.wait_for": (1, "timeout"),
    "async_timeout.timeout": (0, "delay"),
    "anyio.fail_after": (0, "delay"),
    "anyio.move_on_after": (0, "delay"),
    "trio.fail_after": (0, "seconds"),
    "trio.move_on_after": (0, "seconds"),
    # green-thread timeouts (see GREEN_DEADLINES): Timeout(seconds=None, exception=None)
    # (eventlet/timeout.py, eventlet 0.41; gevent/timeout.py, gevent 26.9)
    "eventlet.Timeout": (0, "seconds"),
    "eventlet.timeout.Timeout": (0, "seconds"),
    "gevent.Timeout": (0, "seconds"),
    "gevent.timeout.Timeout": (0, "seconds"),
}

#: Deadlines that bound a *blocking* call made inside them, not only an awaited one: a green
#: thread's timeout fires in the hub while the call waits on a cooperative (monkey-patched)
#: socket and raises in the waiting green thread, so ``with eventlet.Timeout(5): requests.get(url)``
#: waits at most 5 s (https://eventlet.readthedocs.io/en/latest/modules/timeout.html,
#: https://www.gevent.org/api/gevent.timeout.html). An ``asyncio.timeout()`` cancels awaits only:
#: a blocking call inside it holds the event loop past the deadline.
GREEN_DEADLINES: FrozenSet[str] = frozenset({
    "eventlet.Timeout", "eventlet.timeout.Timeout", "gevent.Timeout", "gevent.timeout.Timeout",
})

# -- what a hand-rolled loop catches (reslint/analysis/loops.py) ------------------------------------
#: header names whose value is a server-directed wait (Retry-After, rate-limit resets)
SERVER_WAIT_HEADERS: Tuple[str, ...] = ("retry-after", "ratelimit-reset", "rate-limit-reset", "x-rate-limit-reset")
#: builtin errors no I/O retry catches: a loop that only handles these searches items
LOCAL_ERRORS: FrozenSet[str] = frozenset({
    "IndexError", "KeyError", "LookupError", "ValueError", "TypeError", "AttributeError", "StopIteration",
    "StopAsyncIteration", "ZeroDivisionError", "ArithmeticError", "UnicodeError", "UnicodeDecodeError",
    "UnicodeEncodeError", "AssertionError", "NotImplementedError", "NameError", "ImportError",
    "ModuleNotFoundError", "FileNotFoundError", "FileExistsError", "IsADirectoryError", "NotADirectoryError",
    "json.JSONDecodeError", "json.decoder.JSONDecodeError",
    "queue.Empty", "queue.Full", "asyncio.CancelledError", "BlockingIOError", "InterruptedError",
    "asyncio.QueueEmpty", "asyncio.QueueFull",
    # pydantic's ValidationError is a ValueError: data (a model's reply) that does not validate
    # (https://docs.pydantic.dev/latest/errors/validation_errors/; pydantic_core ValidationError(ValueError))
    "pydantic.ValidationError", "pydantic_core.ValidationError",
})
#: timeouts of a read that looks again (``except socket.timeout: continue`` in a receive loop): with
#: no sleep, such a loop waits for data, it does not retry a failure
READ_TIMEOUT_ERRORS: FrozenSet[str] = frozenset({
    "socket.timeout", "TimeoutError", "builtins.TimeoutError", "asyncio.TimeoutError", "ssl.SSLWantReadError",
    "ssl.SSLWantWriteError", "concurrent.futures.TimeoutError", "concurrent.futures._base.TimeoutError",
})
#: A timed wait for a local event: ``asyncio.wait_for(event.wait(), timeout=slice)`` whose
#: ``TimeoutError`` only says the slice is over (a poll of the process's own state, not a remote
#: fault). The awaited call is a method of these names taking no argument: asyncio's and
#: threading's synchronisation primitives and queues (Event.wait, Condition.wait, Lock.acquire,
#: Semaphore.acquire, Queue.get, Queue.join; https://docs.python.org/3/library/asyncio-sync.html,
#: https://docs.python.org/3/library/asyncio-queue.html).
TIMED_WAITS: FrozenSet[str] = frozenset({"asyncio.wait_for"})
#: Methods that ask a server whether it is up, or read without changing anything, as readiness
#: waits call them and drop the answer (``client.ping()``): a loop whose attempt only makes such a
#: call learns nothing but "it answered" (``LoopAnalyzer.probes``). redis-py ``Redis.ping``
#: (redis/commands/core.py), PyMongo ``MongoClient.server_info``
#: (https://pymongo.readthedocs.io/en/stable/api/pymongo/mongo_client.html), Elasticsearch and
#: OpenSearch ``ping``, ``search``, ``indices.exists``, ``cluster.health``
#: (https://elasticsearch-py.readthedocs.io/en/stable/api/elasticsearch.html,
#: https://opensearch.org/docs/latest/clients/python-low-level/), Chroma ``heartbeat``
#: (https://docs.trychroma.com/reference/python/client).
PROBE_METHODS: FrozenSet[str] = frozenset({"ping", "server_info", "search", "exists", "health", "heartbeat"})
LOCAL_WAIT_METHODS: FrozenSet[str] = frozenset({"wait", "get", "acquire", "join"})
#: ``wait()`` of an event or condition is a local wait whatever the object; ``get()``,
#: ``acquire()`` and ``join()`` are so only on these types (a database pool's ``acquire()`` may
#: connect, a message broker's queue ``get()`` is a remote call)
LOCAL_PRIMITIVES: FrozenSet[str] = frozenset({
    "asyncio.Queue", "asyncio.PriorityQueue", "asyncio.LifoQueue", "asyncio.Lock", "asyncio.Semaphore",
    "asyncio.BoundedSemaphore", "asyncio.Condition", "asyncio.Event",
    "threading.Lock", "threading.RLock", "threading.Semaphore", "threading.BoundedSemaphore",
    "threading.Condition", "threading.Event", "queue.Queue", "queue.SimpleQueue",
})
#: builtin errors of a connection (https://docs.python.org/3/library/exceptions.html#os-exceptions)
CONNECTION_ERRORS: FrozenSet[str] = frozenset({
    "ConnectionError", "ConnectionResetError", "ConnectionRefusedError", "ConnectionAbortedError",
    "BrokenPipeError", "socket.gaierror", "socket.herror",
})

# -- what is transient (RES204) ---------------------------------------------------------
#: Exception types that catch every error.
CATCH_ALL: FrozenSet[str] = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})
#: What ``except Exception`` leaves out: a catch of one of these also retries Ctrl-C, an exit, a
#: generator's close (https://docs.python.org/3/library/exceptions.html#exception-hierarchy).
BEYOND_EXCEPTION: FrozenSet[str] = frozenset(
    prefix + name for name in ("BaseException", "KeyboardInterrupt", "SystemExit", "GeneratorExit")
    for prefix in ("", "builtins."))

#: Broad HTTP error bases: RES204 only when a status check (raise_for_status) is reachable.
BROAD_HTTP_ERRORS: FrozenSet[str] = frozenset({
    "requests.RequestException", "requests.exceptions.RequestException", "requests.HTTPError",
    "requests.exceptions.HTTPError", "httpx.HTTPError", "httpx.HTTPStatusError", "aiohttp.ClientError",
    "aiohttp.ClientResponseError", "urllib.error.HTTPError",
})

#: Status errors that are non-transient unless the predicate checks the status code.
STATUS_ERRORS: FrozenSet[str] = frozenset({
    "httpx.HTTPStatusError", "requests.HTTPError", "requests.exceptions.HTTPError", "aiohttp.ClientResponseError",
    "urllib.error.HTTPError",
})

#: Errors a retry cannot fix (auth, bad request, not found) — openai/_exceptions.py,
#: anthropic/_exceptions.py (2.54.0 / 2.17.0), stripe/_error.py.
NON_TRANSIENT_ERRORS: FrozenSet[str] = frozenset({
    "openai.AuthenticationError", "openai.PermissionDeniedError", "openai.BadRequestError",
    "openai.NotFoundError", "openai.UnprocessableEntityError", "openai.ConflictError",
    "anthropic.AuthenticationError", "anthropic.PermissionDeniedError", "anthropic.BadRequestError",
    "anthropic.NotFoundError", "anthropic.UnprocessableEntityError",
    "stripe.AuthenticationError", "stripe.InvalidRequestError", "stripe.CardError", "stripe.PermissionError",
    # litellm/exceptions.py (1.110.2): subclasses of openai's; a too-long prompt or a refused one fails again
    "litellm.exceptions.AuthenticationError", "litellm.exceptions.PermissionDeniedError",
    "litellm.exceptions.BadRequestError", "litellm.exceptions.NotFoundError",
    "litellm.exceptions.UnprocessableEntityError", "litellm.exceptions.ContextWindowExceededError",
    "litellm.exceptions.ContentPolicyViolationError", "litellm.exceptions.UnsupportedParamsError",
    "ValueError", "TypeError", "KeyError",
})
# Not the builtin PermissionError: it is the OS's EACCES/EPERM on a local file or process, and on
# Windows a file another process holds open (ERROR_SHARING_VIOLATION) raises it too, which a short
# retry does fix (https://docs.python.org/3/library/exceptions.html#PermissionError: EACCES/EPERM;
# Windows maps ERROR_SHARING_VIOLATION, 32, into the EACCES range). Remote services report a
# denial as an HTTP status, which the entries above and STATUS_ERRORS cover.

#: HTTP statuses a retry can fix: 408 Request Timeout, 425 Too Early, 429 Too Many Requests, 5xx.
TRANSIENT_4XX: FrozenSet[int] = frozenset({408, 425, 429})

#: Statuses that send Retry-After (urllib3 RETRY_AFTER_STATUS_CODES: 413, 429, 503).
RATE_LIMIT_STATUSES: FrozenSet[int] = frozenset({429, 503})

#: Explicit rate-limit errors ("aimed at 429": DESIGN section 2).
RATE_LIMIT_ERRORS: FrozenSet[str] = frozenset({
    "openai.RateLimitError", "anthropic.RateLimitError", "stripe.RateLimitError", "litellm.exceptions.RateLimitError",
    "google.api_core.exceptions.TooManyRequests",
})

#: The transient errors of each HTTP library (the narrowing fix of RES204 uses these).
TRANSIENT_ERRORS: Dict[str, Tuple[str, ...]] = {
    "requests": ("requests.ConnectionError", "requests.Timeout"),
    "httpx": ("httpx.TransportError",),
    "aiohttp": ("aiohttp.ClientConnectionError", "asyncio.TimeoutError"),
    "urllib3": ("urllib3.exceptions.NewConnectionError", "urllib3.exceptions.TimeoutError"),
    # the model SDKs: openai/_exceptions.py, anthropic/_exceptions.py (connection errors and
    # timeouts, 5xx); litellm/exceptions.py (its own, re-exported by litellm/__init__.py). Not
    # RateLimitError: a 429 says when to come back (Retry-After), which a generic wait ignores (RES206)
    "openai": ("openai.APIConnectionError", "openai.InternalServerError"),
    "anthropic": ("anthropic.APIConnectionError", "anthropic.InternalServerError"),
    "litellm": ("litellm.APIConnectionError", "litellm.Timeout", "litellm.ServiceUnavailableError",
                "litellm.InternalServerError"),
}


#: The HTTP client libraries whose requests raise only transport errors (a refused or reset
#: connection, a timeout, a malformed URL) and hand back every status, 4xx and 5xx included, as
#: a response unless the code asks for an exception with ``raise_for_status()``: the one place
#: each raises its status error (requests/models.py ``Response.raise_for_status``, ``HTTPError``;
#: httpx/_models.py ``Response.raise_for_status``, ``HTTPStatusError``), and urllib3's
#: ``request``/``urlopen`` return a response of any status (urllib3/_request_methods.py). Not
#: ``urllib.request.urlopen`` (``HTTPError`` on any 4xx or 5xx), not the model SDKs (an exception per
#: status), not aiohttp (a session built with ``raise_for_status=True`` raises on every request).
STATUS_RETURNING_LIBRARIES: FrozenSet[str] = frozenset({"requests", "httpx", "urllib3"})

#: What turns a status into an exception in those libraries besides ``raise_for_status()``: a
#: keyword, attribute or option key of these names. requests' response hooks (``hooks=`` of a
#: request, ``session.hooks``: requests/hooks.py), httpx's ``event_hooks=`` and ``transport=``
#: (https://www.python-httpx.org/advanced/event-hooks/, .../transports/), an adapter mounted on a
#: session (requests/sessions.py ``Session.mount``), whose ``build_response`` may raise, and
#: urllib3's ``retries=`` (a ``Retry`` raises ``MaxRetryError`` once its redirect or status budget
#: is spent: ``raise_on_redirect``, ``raise_on_status``, urllib3/util/retry.py).
STATUS_RAISING_OPTIONS: FrozenSet[str] = frozenset({"hooks", "event_hooks", "mount", "transport", "retries"})

#: The errors of a resource on the caller's own host (https://docs.python.org/3/library/
#: exceptions.html#os-exceptions): a file another process holds (``PermissionError`` on Windows
#: while an editor or a virus scanner has it open; ``BlockingIOError`` from a non-blocking
#: ``fcntl.flock``), a lock file that exists or a file not written yet, and SQLite's "database
#: is locked" (``sqlite3.OperationalError``, https://docs.python.org/3/library/sqlite3.html: the
#: database is a local file). A retry of these alone waits for a neighbour to let go, not for a
#: shared service to recover: no crowd of clients comes back to it in lockstep (RES201).
LOCAL_RESOURCE_ERRORS: FrozenSet[str] = frozenset({
    "PermissionError", "BlockingIOError", "FileExistsError", "FileNotFoundError", "IsADirectoryError",
    "NotADirectoryError", "InterruptedError", "sqlite3.OperationalError",
})

#: The modules whose calls act on the caller's own host only (files, locks, a SQLite database, the
#: clock, logging; https://docs.python.org/3/library/filesys.html, .../sqlite3.html): a retry of a
#: local resource's errors is one only when the code it retries calls nothing else (a fsspec or
#: s3fs call raises ``FileNotFoundError`` and ``PermissionError`` for an object in a shared bucket).
LOCAL_CALL_MODULES: FrozenSet[str] = frozenset({
    "builtins", "os", "shutil", "pathlib", "io", "fcntl", "msvcrt", "sqlite3", "tempfile", "stat", "json", "time",
    "logging", "random", "math",
})
#: The calls of those modules that run another program, which may reach anything
#: (https://docs.python.org/3/library/os.html#process-management).
HOST_CALLS_NOT_LOCAL: Tuple[str, ...] = ("os.system", "os.popen", "os.exec", "os.spawn", "os.startfile", "os.posix_spawn")
#: The functions that open a local file, whose result's methods act on it.
FILE_OPENERS: FrozenSet[str] = frozenset({"builtins.open", "io.open"})
#: The builtins that call a function they are given (``map(f, xs)``, ``sorted(xs, key=f)``): what
#: they call is the code's work too (https://docs.python.org/3/library/functions.html).
CALLING_BUILTINS: FrozenSet[str] = frozenset(
    f"builtins.{name}" for name in ("map", "filter", "sorted", "min", "max", "iter"))
#: The builtins that turn any value into text and raise on none (``str(response.url)``: an object's
#: ``__str__``/``__repr__``, https://docs.python.org/3/library/functions.html#func-str).
TEXT_BUILTINS: FrozenSet[str] = frozenset({"builtins.str", "builtins.repr"})

#: The builtin exceptions of the operating system (``OSError`` and its subclasses: a refused or
#: reset connection, a timeout, a file another process holds), which code raises to ask for another
#: attempt as a library's transient error is; any other builtin (``ValueError``, ``RuntimeError``)
#: may as well report a bug (https://docs.python.org/3/library/exceptions.html#exception-hierarchy).
BUILTIN_OS_ERRORS: FrozenSet[str] = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, OSError))

#: Every transient error named in :data:`TRANSIENT_ERRORS` (a connection failure of a client
#: library: a loop that catches one retries a remote call).
TRANSIENT_ERROR_NAMES: FrozenSet[str] = frozenset(name for names in TRANSIENT_ERRORS.values() for name in names)


#: What a handler that catches only these gives up on is a transient failure, not a class of errors
#: no retry fixes: the library errors above, the rate-limit errors, the operating system's and a
#: read's timeouts (an ``except requests.Timeout: return None`` before ``except Exception:`` takes
#: no bug or 4xx out of the catch-all)
TRANSIENT_NAMES: FrozenSet[str] = TRANSIENT_ERROR_NAMES | RATE_LIMIT_ERRORS | BUILTIN_OS_ERRORS | CONNECTION_ERRORS | \
    READ_TIMEOUT_ERRORS | frozenset({"requests.Timeout", "requests.ConnectTimeout", "requests.ReadTimeout",
                                     "httpx.TimeoutException", "httpx.ConnectError", "httpx.ConnectTimeout",
                                     "httpx.ReadTimeout", "httpx.NetworkError"})



#: Error codes of a conditional write that lost a race to another writer, which a handler keeps while
#: it re-raises every other code (``if e.response["Error"]["Code"] != "ConditionalCheckFailedException":
#: raise``): read again and retry at once. Sources: DynamoDB's ``ConditionalCheckFailedException`` and
#: ``TransactionConflictException``
#: (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html); HTTP
#: 412 ``PreconditionFailed`` of a conditional request (S3's conditional writes,
#: https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-requests.html).
LOST_RACE_CODES: Tuple[str, ...] = ("ConditionalCheckFailed", "TransactionConflict", "PreconditionFailed")
