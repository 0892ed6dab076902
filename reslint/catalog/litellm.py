"""litellm: the model-call layer's facts (timeouts and the retries it makes inside), as data.

Read in litellm 1.110.2 (``tests/test_catalog_reality.py`` checks names, parameters and defaults
against the installed package):

- ``litellm/litellm_core_utils/completion_timeout.py`` ``CompletionTimeout.resolve``: a completion
  waits ``timeout=``, else ``request_timeout=``, else ``litellm.request_timeout`` when the project
  set it, else ``COMPLETION_HTTP_FALLBACK_SECONDS`` (600 s, ``litellm/constants.py``); a live
  stream's reads are bounded by ``stream_timeout=`` instead when it is given. ``None`` asks for
  that default: it disables nothing.
- ``litellm/constants.py``: ``litellm.request_timeout`` holds ``DEFAULT_REQUEST_TIMEOUT_SECONDS``
  (6000 s) unless set, and a Router hands it to every request (below).
- ``litellm/main.py`` ``embedding(..., timeout=600, ...)``; ``aembedding(*args, **kwargs)`` forwards to it.
- ``litellm/utils.py`` ``client`` wrapper: a failed ``completion``/``acompletion`` is re-run by
  ``completion_with_retries`` (tenacity ``stop_after_attempt(num_retries)``) when ``num_retries=``
  (or the module-wide ``litellm.num_retries``) is set; ``max_retries=`` is handed to the provider's
  SDK client (``main.py``: ``num_retries`` wins when both are given). Either counts retries: N
  retries are N + 1 attempts. Without either, litellm itself does not re-run the call (the OpenAI
  provider's SDK client may still retry 2 times: the provider is chosen at run time by the model
  string, so that layer is not counted).
- ``litellm/router_rust/core.py`` ``Resolved``: a ``Router`` retries ``num_retries`` times
  (default 2, or ``litellm.num_retries``), and its ``timeout`` defaults to ``litellm.request_timeout``.
- ``fallbacks=`` sends the request to other models after the retries: other dependencies, not more
  load on the failing one, so fallbacks are not counted as attempts.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from reslint.catalog.model import MODEL, RetryingCall, TimeoutParam, TimeoutSpec

VERSION = "1.110.2"
#: litellm/constants.py DEFAULT_REQUEST_TIMEOUT_SECONDS: what ``litellm.request_timeout`` holds
REQUEST_TIMEOUT_S = 6000.0
#: litellm/constants.py COMPLETION_HTTP_FALLBACK_SECONDS: a completion's wait when nothing sets one
COMPLETION_TIMEOUT_S = 600.0
#: litellm/main.py embedding(timeout=600)
EMBEDDING_TIMEOUT_S = 600.0
#: the module-wide settings a project assigns (``litellm.request_timeout = 120``)
REQUEST_TIMEOUT_SETTING = "litellm.request_timeout"
NUM_RETRIES_SETTING = "litellm.num_retries"
#: a Router's deployments (``model_list=[{"model_name": ..., "litellm_params": {...}}]``, its first
#: parameter) can each set ``timeout``/``stream_timeout`` in their ``litellm_params``, which a request
#: to them uses first (completion_timeout.py: "model_timeout (call argument / merged litellm_params)")
ROUTER_DEPLOYMENTS = ("model_list", 0, "litellm_params")
#: litellm/router_rust/core.py Resolved: ``num_retries if not None else litellm.num_retries or 2``
ROUTER_DEFAULT_RETRIES = 2

_SRC = (f"litellm/litellm_core_utils/completion_timeout.py CompletionTimeout.resolve: timeout, request_timeout, "
        f"litellm.request_timeout if set, else COMPLETION_HTTP_FALLBACK_SECONDS = 600.0 ({VERSION})")
_NOTE = "litellm waits up to 600 s for a completion when neither the call nor litellm.request_timeout sets a timeout"
#: what a call raises once litellm's retries give up: its exceptions subclass openai's
#: (litellm/exceptions.py: ``class RateLimitError(openai.RateLimitError)``...)
RAISES = ("litellm.exceptions.APIError", "litellm.exceptions.APIConnectionError", "litellm.exceptions.Timeout",
          "litellm.exceptions.RateLimitError", "litellm.exceptions.ServiceUnavailableError",
          "litellm.exceptions.InternalServerError", "openai.APIError", "openai.APIConnectionError",
          "openai.APITimeoutError", "openai.RateLimitError", "openai.InternalServerError")

#: the module functions that call a model: (name, position of ``timeout``, default seconds)
_CALLS: Tuple[Tuple[str, Optional[int], float], ...] = (
    ("litellm.completion", 2, COMPLETION_TIMEOUT_S),
    ("litellm.acompletion", 4, COMPLETION_TIMEOUT_S),
    ("litellm.embedding", 4, EMBEDDING_TIMEOUT_S),
    ("litellm.aembedding", 4, EMBEDDING_TIMEOUT_S),
)
#: completion_timeout.py: ``request_timeout=`` stands for ``timeout=``; ``stream_timeout=`` bounds a stream's reads
_COMPLETION_ALIASES = (TimeoutParam("request_timeout"), TimeoutParam("stream_timeout"))


def timeout_specs():
    """The litellm rows of the timeout catalog (:data:`reslint.catalog.timeouts.TIMEOUT_CALLS`)."""
    specs = []
    for name, position, default in _CALLS:
        completion = "completion" in name
        params = (TimeoutParam("timeout", position),) + (_COMPLETION_ALIASES if completion else ())
        specs.append(TimeoutSpec(name, params, default,
                                 _SRC if completion else f"litellm/main.py embedding(timeout=600) ({VERSION})",
                                 _NOTE if completion else "litellm's embedding waits 600 s by default",
                                 disable_values=(), category=MODEL,
                                 module_default=REQUEST_TIMEOUT_SETTING if completion else None))
    specs.append(TimeoutSpec("litellm.Router", (TimeoutParam("timeout", 17),), REQUEST_TIMEOUT_S,
                             f"litellm/router_rust/core.py Resolved: timeout or litellm.request_timeout, "
                             f"DEFAULT_REQUEST_TIMEOUT_SECONDS = 6000.0 ({VERSION})",
                             "a litellm Router hands litellm.request_timeout, 6000 s by default, to every request",
                             carrier=True, disable_values=(), category=MODEL, module_default=REQUEST_TIMEOUT_SETTING,
                             item_timeouts=ROUTER_DEPLOYMENTS))
    # the Router's request methods (completion, acompletion...) are built at run time, taking
    # (*args, **kwargs): not listed, so a call on a Router inherits the Router's timeout
    return specs


#: calls that retry inside, by their own arguments (RES301); ``embedding`` reads ``max_retries``
#: only (handed to the provider's SDK client: litellm/main.py embedding), and only ``completion``
#: and ``acompletion`` are re-run by the ``client`` wrapper (litellm/utils.py)
RETRYING_CALLS: Dict[str, RetryingCall] = {c.qualname: c for c in (
    RetryingCall("litellm.completion", ("num_retries", "max_retries"), 1, RAISES, "num_retries=0",
                 f"litellm/utils.py client wrapper -> main.py completion_with_retries; main.py max_retries ({VERSION})",
                 module_default=NUM_RETRIES_SETTING),
    RetryingCall("litellm.acompletion", ("num_retries", "max_retries"), 1, RAISES, "num_retries=0",
                 f"litellm/utils.py client wrapper -> main.py acompletion_with_retries ({VERSION})",
                 module_default=NUM_RETRIES_SETTING),
    RetryingCall("litellm.embedding", ("max_retries",), 1, RAISES, "max_retries=0",
                 f"litellm/main.py embedding: max_retries to the provider's client ({VERSION})"),
    RetryingCall("litellm.aembedding", ("max_retries",), 1, RAISES, "max_retries=0",
                 f"litellm/main.py aembedding(*args, **kwargs) -> embedding ({VERSION})"),
)}
#: litellm/router_rust/core.py Resolved: a Router's requests retry ``num_retries`` times (default 2)
ROUTER = "litellm.Router"
ROUTER_SOURCE = f"litellm/router_rust/core.py Resolved: num_retries default 2 or litellm.num_retries ({VERSION})"
