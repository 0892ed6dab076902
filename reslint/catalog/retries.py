"""Retry mechanisms as data: how each library spells a retry and what its defaults are.

Facts come from ``research/retry-semantics.md`` (section 1, with the library
source paths and versions read); durations are seconds unless a table says
milliseconds. ``tests/test_catalog_reality.py`` checks names and parameters
against the installed libraries.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Tuple

#: Decorators (called or bare) that retry the decorated function, by library.
RETRY_DECORATORS: Dict[str, str] = {
    "tenacity.retry": "tenacity",  # tenacity/__init__.py retry()
    "backoff.on_exception": "backoff",  # backoff/_decorator.py
    "backoff.on_predicate": "backoff",
    "stamina.retry": "stamina",  # stamina/_core.py
    "retrying.retry": "retrying",  # retrying.py (all times in milliseconds)
    "retry.retry": "retry",  # retry/api.py (invl/retry and retry2)
    "retry.api.retry": "retry",
    "opnieuw.retry": "opnieuw",  # opnieuw/retries.py
    "opnieuw.retry_async": "opnieuw",
    "redo.retriable": "redo",  # redo/__init__.py
    "redo.retriable_async": "redo",
    "google.api_core.retry.Retry": "google",  # google/api_core/retry/retry_unary.py
    "google.api_core.retry.AsyncRetry": "google",
    "celery.shared_task": "celery",  # celery/app/task.py, celery/app/autoretry.py
    "celery.Celery.task": "celery",
}

#: Objects iterated as ``for attempt in X: with attempt:`` (or ``async for``).
RETRY_ITERATORS: Dict[str, str] = {
    "tenacity.Retrying": "tenacity",
    "tenacity.AsyncRetrying": "tenacity",
    "tenacity.asyncio.AsyncRetrying": "tenacity",
    "stamina.retry_context": "stamina",
    "redo.retrier": "redo",
}

#: Functions that call a callable with retries: ``retry_call(fn, ...)``.
RETRY_CALLERS: Dict[str, str] = {
    "retry.api.retry_call": "retry",
    "retry.retry_call": "retry",
    "redo.retry": "redo",
}

#: Constructors of retry policies applied by a client (reported at the constructor).
POLICY_OBJECTS: Dict[str, str] = {
    "urllib3.Retry": "urllib3",  # urllib3/util/retry.py
    "requests.HTTPAdapter": "requests",  # requests/adapters.py max_retries
    "httpx.HTTPTransport": "httpx",  # httpx/_transports/default.py retries (connect only)
    "httpx.AsyncHTTPTransport": "httpx",
}

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

#: Monotonic and wall clocks (a loop that compares one with a bound has a time cap).
CLOCKS: FrozenSet[str] = frozenset({
    "time.monotonic", "time.time", "time.perf_counter", "time.monotonic_ns", "time.time_ns",
    "datetime.datetime.now", "datetime.datetime.utcnow", "loop.time",
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
}

# -- tenacity strategies (tenacity/stop.py, wait.py, retry.py, 9.2.1) -----------------
TENACITY_STOPS = {
    "tenacity.stop_after_attempt": ("attempts", ("max_attempt_number",)),
    "tenacity.stop.stop_after_attempt": ("attempts", ("max_attempt_number",)),
    "tenacity.stop_after_delay": ("delay", ("max_delay",)),
    "tenacity.stop.stop_after_delay": ("delay", ("max_delay",)),
    "tenacity.stop_before_delay": ("delay", ("max_delay",)),  # 8.3.0+, hard-ish
    "tenacity.stop.stop_before_delay": ("delay", ("max_delay",)),
    "tenacity.stop_never": ("never", ()),
    "tenacity.stop.stop_never": ("never", ()),
    "tenacity.stop_any": ("any", ()),
    "tenacity.stop.stop_any": ("any", ()),
    "tenacity.stop_all": ("all", ()),
    "tenacity.stop.stop_all": ("all", ()),
}

#: name -> (kind, positional parameter names, defaults)
TENACITY_WAITS = {
    "wait_none": ("none", (), {}),
    "wait_fixed": ("fixed", ("wait",), {}),
    "wait_random": ("random", ("min", "max"), {"min": 0, "max": 1}),
    "wait_incrementing": ("incrementing", ("start", "increment", "max"), {"start": 0, "increment": 100, "max": None}),
    "wait_exponential": ("exponential", ("multiplier", "max", "exp_base", "min"),
                         {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_random_exponential": ("random_exponential", ("multiplier", "max", "exp_base", "min"),
                                {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_full_jitter": ("random_exponential", ("multiplier", "max", "exp_base", "min"),
                         {"multiplier": 1, "max": None, "exp_base": 2, "min": 0}),
    "wait_exponential_jitter": ("exponential_jitter", ("initial", "max", "exp_base", "jitter"),
                                {"initial": 1, "max": None, "exp_base": 2, "jitter": 1}),
    "wait_chain": ("chain", (), {}),
    "wait_combine": ("sum", (), {}),
}

TENACITY_PREDICATES = {
    "retry_if_exception_type": "types",
    "retry_if_not_exception_type": "not_types",
    "retry_unless_exception_type": "not_types",
    "retry_if_exception_cause_type": "types",
    "retry_if_exception": "function",
    "retry_if_result": "result",
    "retry_if_not_result": "result",
    "retry_if_exception_message": "message",
    "retry_if_not_exception_message": "message",
    "retry_always": "any",
    "retry_never": "never",
    "retry_any": "union",
    "retry_all": "intersection",
}

# -- what is transient (RES204) ---------------------------------------------------------
#: Exception types that catch every error.
CATCH_ALL: FrozenSet[str] = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})

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
#: anthropic/_exceptions.py (3.57.0 / 2.14.0), stripe/_error.py.
NON_TRANSIENT_ERRORS: FrozenSet[str] = frozenset({
    "openai.AuthenticationError", "openai.PermissionDeniedError", "openai.BadRequestError",
    "openai.NotFoundError", "openai.UnprocessableEntityError", "openai.ConflictError",
    "anthropic.AuthenticationError", "anthropic.PermissionDeniedError", "anthropic.BadRequestError",
    "anthropic.NotFoundError", "anthropic.UnprocessableEntityError",
    "stripe.AuthenticationError", "stripe.InvalidRequestError", "stripe.CardError", "stripe.PermissionError",
    "ValueError", "TypeError", "KeyError", "PermissionError",
})

#: HTTP statuses a retry can fix: 408 Request Timeout, 425 Too Early, 429 Too Many Requests, 5xx.
TRANSIENT_4XX: FrozenSet[int] = frozenset({408, 425, 429})

#: Statuses that send Retry-After (urllib3 RETRY_AFTER_STATUS_CODES: 413, 429, 503).
RATE_LIMIT_STATUSES: FrozenSet[int] = frozenset({429, 503})

#: Explicit rate-limit errors ("aimed at 429": DESIGN section 2).
RATE_LIMIT_ERRORS: FrozenSet[str] = frozenset({
    "openai.RateLimitError", "anthropic.RateLimitError", "stripe.RateLimitError",
    "google.api_core.exceptions.TooManyRequests",
})

#: The transient errors of each HTTP library (the narrowing fix of RES204 uses these).
TRANSIENT_ERRORS: Dict[str, Tuple[str, ...]] = {
    "requests": ("requests.ConnectionError", "requests.Timeout"),
    "httpx": ("httpx.TransportError",),
    "aiohttp": ("aiohttp.ClientConnectionError", "asyncio.TimeoutError"),
    "urllib3": ("urllib3.exceptions.NewConnectionError", "urllib3.exceptions.TimeoutError"),
}

# -- library defaults --------------------------------------------------------------------
#: stamina/_core.py (unchanged since 22.1.0): 10 attempts, 45 s, waits min(5, 0.1*2^(n-1) + U(0, 1))
STAMINA_DEFAULTS = {"attempts": 10, "timeout": 45.0, "wait_initial": 0.1, "wait_max": 5.0, "wait_jitter": 1.0,
                    "wait_exp_base": 2.0}
#: urllib3/util/retry.py Retry (2.8.0)
URLLIB3_DEFAULTS = {"total": 10, "backoff_factor": 0.0, "backoff_max": 120.0, "backoff_jitter": 0.0,
                    "respect_retry_after_header": True}
#: celery/app/task.py: max_retries=3, default_retry_delay=180, retry_backoff_max=600, retry_jitter=True
CELERY_DEFAULTS = {"max_retries": 3, "default_retry_delay": 180.0, "retry_backoff_max": 600.0, "retry_jitter": True}
#: opnieuw/retries.py: 3 calls within a 60 s window, full jitter
OPNIEUW_DEFAULTS = {"max_calls_total": 3, "retry_window_after_first_call_in_seconds": 60.0}
#: redo/__init__.py retry/retriable: attempts=5, sleeptime=60, max_sleeptime=300, sleepscale=1.5, jitter=1
REDO_DEFAULTS = {"attempts": 5, "sleeptime": 60.0, "max_sleeptime": 300.0, "sleepscale": 1.5, "jitter": 1.0}
#: redo/__init__.py retriable_async -> retry_async (redo 3.0.1): always 5 attempts; the sleep before
#: attempt n is calculate_sleep_time(n, delay_factor=5, randomization_factor=0.5, max_delay=120)
#: = min(2 ** (n - 1) * delay_factor * (1 + randomization_factor * random()), max_delay);
#: only retry_exceptions and sleeptime_kwargs (those three names) can be given
REDO_ASYNC_DEFAULTS = {"attempts": 5, "delay_factor": 5.0, "randomization_factor": 0.5, "max_delay": 120.0}
#: google/api_core/retry: initial=1, maximum=60, multiplier=2, timeout=120 (full jitter, no attempt cap)
GOOGLE_DEFAULTS = {"initial": 1.0, "maximum": 60.0, "multiplier": 2.0, "timeout": 120.0}
