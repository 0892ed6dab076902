"""Clients that retry inside: each call on them is already a retry layer (RES301).

Facts from ``research/retry-semantics.md`` section 2 ("Clients that retry
internally by default"), with the library sources named there. Attempts count
the first call. Where a default changed between versions, the least safe one
(more attempts) is assumed, as DESIGN section 2 decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple

from reslint.catalog import haystack, langchain, litellm, llama_index
from reslint.catalog.model import RetryingCall


@dataclass(frozen=True)
class RetryingClient:
    """A client constructor whose calls retry.

    - ``param``: the constructor parameter that sets retries (``max_retries``);
      ``counts``: how its value counts, :data:`COUNTS_RETRIES` (attempts = value + 1),
      :data:`COUNTS_CONFIG` (a botocore ``Config``), :data:`COUNTS_RETRY_OBJECT` (a number of
      retries, ``False`` or a urllib3 ``Retry``) or :data:`COUNTS_OWN_POLICY` (the constructor is
      itself a retry policy object its adapter reads).
    - ``default_attempts``: attempts when the parameter is absent.
    - ``raises``: what a call raises once the client gives up (what an outer
      retry would have to catch for attempts to multiply).
    - ``off``: how users turn the client's retries off (for messages).
    - ``per_request``: a request can set its own retries with ``param`` (a litellm Router's
      ``router.completion(num_retries=0)``), so a request passing ``**kwargs`` is unknown.
    """

    qualname: str
    param: Optional[str]
    counts: str
    default_attempts: int
    raises: Tuple[str, ...]
    off: str
    source: str
    per_request: bool = False


_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")
_ANTHROPIC_RAISES = ("anthropic.APIConnectionError", "anthropic.APITimeoutError", "anthropic.RateLimitError",
                     "anthropic.InternalServerError", "anthropic.APIStatusError", "anthropic.APIError")
_BOTO_RAISES = ("botocore.exceptions.ClientError", "botocore.exceptions.EndpointConnectionError",
                "botocore.exceptions.ConnectTimeoutError", "botocore.exceptions.ReadTimeoutError",
                "botocore.exceptions.ConnectionError", "botocore.exceptions.BotoCoreError")
_REQUESTS_RAISES = ("requests.ConnectionError", "requests.ConnectTimeout", "requests.exceptions.RetryError",
                    "requests.RequestException", "requests.exceptions.ConnectionError", "requests.Timeout")
_URLLIB3_RAISES = ("urllib3.exceptions.MaxRetryError", "urllib3.exceptions.HTTPError")

COUNTS_RETRIES, COUNTS_CONFIG, COUNTS_RETRY_OBJECT, COUNTS_OWN_POLICY = "retries", "config", "retry-object", \
    "own-policy"

RETRYING_CLIENTS: Dict[str, RetryingClient] = {c.qualname: c for c in (
    RetryingClient("openai.OpenAI", "max_retries", COUNTS_RETRIES, 3, _OPENAI_RAISES, "max_retries=0",
                   "openai/_constants.py DEFAULT_MAX_RETRIES = 2 (openai 2.54.0)"),
    RetryingClient("openai.AsyncOpenAI", "max_retries", COUNTS_RETRIES, 3, _OPENAI_RAISES, "max_retries=0",
                   "openai/_constants.py DEFAULT_MAX_RETRIES = 2"),
    RetryingClient("openai.AzureOpenAI", "max_retries", COUNTS_RETRIES, 3, _OPENAI_RAISES, "max_retries=0",
                   "openai/_constants.py DEFAULT_MAX_RETRIES = 2"),
    RetryingClient("openai.AsyncAzureOpenAI", "max_retries", COUNTS_RETRIES, 3, _OPENAI_RAISES, "max_retries=0",
                   "openai/_constants.py DEFAULT_MAX_RETRIES = 2"),
    RetryingClient("anthropic.Anthropic", "max_retries", COUNTS_RETRIES, 3, _ANTHROPIC_RAISES, "max_retries=0",
                   "anthropic/_constants.py DEFAULT_MAX_RETRIES = 2 (2.17.0)"),
    RetryingClient("anthropic.AsyncAnthropic", "max_retries", COUNTS_RETRIES, 3, _ANTHROPIC_RAISES, "max_retries=0",
                   "anthropic/_constants.py DEFAULT_MAX_RETRIES = 2"),
    # botocore: legacy mode (5 attempts, the default before 1.44) is assumed unless a mode is set
    RetryingClient("boto3.client", "config", COUNTS_CONFIG, 5, _BOTO_RAISES,
                   "Config(retries={'total_max_attempts': 1})",
                   "botocore/data/_retry.json (legacy max_attempts 5), botocore/retries/standard.py (3), "
                   "botocore/args.py _compute_retry_max_attempts (max_attempts counts retries)"),
    RetryingClient("boto3.resource", "config", COUNTS_CONFIG, 5, _BOTO_RAISES,
                   "Config(retries={'total_max_attempts': 1})", "as boto3.client"),
    RetryingClient("boto3.Session.client", "config", COUNTS_CONFIG, 5, _BOTO_RAISES,
                   "Config(retries={'total_max_attempts': 1})", "as boto3.client"),
    RetryingClient("boto3.Session.resource", "config", COUNTS_CONFIG, 5, _BOTO_RAISES,
                   "Config(retries={'total_max_attempts': 1})", "as boto3.client"),
    RetryingClient("urllib3.PoolManager", "retries", COUNTS_RETRY_OBJECT, 4, _URLLIB3_RAISES, "retries=False",
                   "urllib3/util/retry.py Retry.DEFAULT = Retry(3) (2.8.0)"),
    RetryingClient("stripe.StripeClient", "max_network_retries", COUNTS_RETRIES, 1,
                   ("stripe.APIConnectionError", "stripe.APIError", "stripe.StripeError"), "max_network_retries=0",
                   "stripe/_stripe_client.py: no retries unless max_network_retries is passed (16.1.0)"),
    RetryingClient(litellm.ROUTER, "num_retries", COUNTS_RETRIES, litellm.ROUTER_DEFAULT_RETRIES + 1, litellm.RAISES,
                   "num_retries=0", litellm.ROUTER_SOURCE, per_request=True),
    RetryingClient("httpx.HTTPTransport", "retries", COUNTS_OWN_POLICY, 1, ("httpx.ConnectError", "httpx.ConnectTimeout"),
                   "retries=0", "httpx/_transports/default.py retries=0; connect errors only"),
)}

#: model frameworks whose model objects retry inside (their SDK client's retries), one catalog module each
for _entry in langchain.RETRYING + llama_index.RETRYING + haystack.RETRYING:
    RETRYING_CLIENTS[_entry[0]] = RetryingClient(_entry[0], _entry[1], COUNTS_RETRIES, *_entry[2:])

#: Functions whose calls retry inside, as their arguments say (litellm's ``completion``).
RETRYING_CALLS: Dict[str, RetryingCall] = dict(litellm.RETRYING_CALLS)

#: requests sessions retry through mounted adapters: HTTPAdapter(max_retries=N or Retry(total=N)).
ADAPTER_RAISES = _REQUESTS_RAISES
#: The methods of a requests ``Session`` that send a request (requests/sessions.py): a call of
#: another method (``mount``, ``close``) on a session is no retry layer.
SESSION_VERBS: FrozenSet[str] = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request",
                                           "send"})
#: Layers (by ``Layer.library``) whose calls retry only when they send a request: method names.
REQUEST_METHODS: Dict[str, FrozenSet[str]] = {"requests": SESSION_VERBS}
#: a framework's model object sends a request only when it runs (``invoke``, ``complete``, ``run``); its
#: other methods build a new object (``bind_tools``, ``with_retry``) or read settings
for _entry in langchain.RETRYING:
    REQUEST_METHODS[_entry[0]] = langchain.RUN_METHODS
for _entry in llama_index.RETRYING:
    REQUEST_METHODS[_entry[0]] = llama_index.RUN_METHODS
for _entry in haystack.RETRYING:
    REQUEST_METHODS[_entry[0]] = haystack.RUN_METHODS

#: Known exception bases, so an outer retry on a base catches what an inner layer raises.
EXCEPTION_BASES = {
    "requests.ConnectTimeout": ("requests.ConnectionError", "requests.Timeout", "requests.RequestException"),
    "requests.ConnectionError": ("requests.RequestException", "OSError"),
    "requests.Timeout": ("requests.RequestException",),
    "requests.exceptions.RetryError": ("requests.RequestException",),
    "openai.APIConnectionError": ("openai.APIError",),
    "openai.APITimeoutError": ("openai.APIConnectionError", "openai.APIError"),
    "openai.RateLimitError": ("openai.APIStatusError", "openai.APIError"),
    "openai.InternalServerError": ("openai.APIStatusError", "openai.APIError"),
    "anthropic.APIConnectionError": ("anthropic.APIError",),
    "anthropic.APITimeoutError": ("anthropic.APIConnectionError", "anthropic.APIError"),
    "botocore.exceptions.EndpointConnectionError": ("botocore.exceptions.ConnectionError",
                                                    "botocore.exceptions.BotoCoreError"),
    "botocore.exceptions.ConnectTimeoutError": ("botocore.exceptions.ConnectionError",
                                                "botocore.exceptions.BotoCoreError"),
    "botocore.exceptions.ReadTimeoutError": ("botocore.exceptions.BotoCoreError",),
    "httpx.ConnectError": ("httpx.TransportError", "httpx.HTTPError"),
    "httpx.ConnectTimeout": ("httpx.TimeoutException", "httpx.TransportError", "httpx.HTTPError"),
    "httpx.ReadTimeout": ("httpx.TimeoutException", "httpx.TransportError", "httpx.HTTPError"),
    "tenacity.RetryError": (),
    # litellm/exceptions.py: litellm's errors subclass openai's (1.110.2)
    "litellm.exceptions.APIError": ("openai.APIError",),
    "litellm.exceptions.APIConnectionError": ("openai.APIConnectionError", "openai.APIError"),
    "litellm.exceptions.Timeout": ("openai.APITimeoutError", "openai.APIConnectionError", "openai.APIError"),
    "litellm.exceptions.RateLimitError": ("openai.RateLimitError", "openai.APIStatusError", "openai.APIError"),
    "litellm.exceptions.ServiceUnavailableError": ("openai.APIStatusError", "openai.APIError"),
    "litellm.exceptions.InternalServerError": ("openai.InternalServerError", "openai.APIStatusError",
                                               "openai.APIError"),
}
