"""LangChain: chat models (their timeouts and the SDK retries inside them) and the Runnable retry layer.

Read in langchain-core 1.8.3, langchain-openai 1.8.1 and langchain-anthropic 1.7.10:

- ``ChatOpenAI``/``AzureChatOpenAI``: ``request_timeout`` (alias ``timeout``) defaults to ``None`` and
  is passed as ``openai.OpenAI(timeout=None)``, which turns the SDK's 600 s default off: a call waits
  forever (langchain_openai/chat_models/base.py ``validate_environment``: ``"timeout":
  self.request_timeout``; ``ChatOpenAI().root_client.timeout is None``). ``max_retries`` defaults to
  ``None``, leaving the SDK's 2 retries (``openai/_constants.py DEFAULT_MAX_RETRIES = 2``).
- ``ChatAnthropic``: ``default_request_timeout`` (alias ``timeout``) defaults to ``None`` and is passed
  as ``anthropic.Client(timeout=None)``: no timeout; a value ``<= 0`` is dropped, leaving the SDK's
  600 s (langchain_anthropic/chat_models.py ``_client_params``); ``max_retries: int = 2``.
- ``Runnable.with_retry(*, retry_if_exception_type=(Exception,), wait_exponential_jitter=True,
  exponential_jitter_params=None, stop_after_attempt=3)`` (langchain_core/runnables/base.py) builds a
  ``RunnableRetry`` (langchain_core/runnables/retry.py: ``retry_exception_types=(Exception,)``,
  ``max_attempt_number=3``, ``wait_exponential_jitter=True``): a tenacity ``Retrying`` with
  ``stop_after_attempt(n)``, ``wait_exponential_jitter(**params)`` and ``reraise=True``; no time cap
  can be spelled.

The pydantic models take keyword arguments only (positions ``None``).
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import MODEL, TimeoutParam, TimeoutSpec

OPENAI_SRC = ("langchain_openai/chat_models/base.py request_timeout = Field(default=None, alias='timeout'), passed "
              "as openai.OpenAI(timeout=None): no timeout (langchain-openai 1.8.1)")
ANTHROPIC_SRC = ("langchain_anthropic/chat_models.py default_request_timeout = Field(None, alias='timeout'), passed "
                 "as anthropic.Client(timeout=None): no timeout (langchain-anthropic 1.7.10)")

#: (class, its timeout parameters (the alias first: what a fix adds), source)
_CHAT_MODELS = (
    ("langchain_openai.ChatOpenAI", ("timeout", "request_timeout"), OPENAI_SRC),
    ("langchain_openai.AzureChatOpenAI", ("timeout", "request_timeout"), OPENAI_SRC),
    ("langchain_anthropic.ChatAnthropic", ("timeout", "default_request_timeout"), ANTHROPIC_SRC),
)

TIMEOUTS: Tuple[TimeoutSpec, ...] = tuple(
    TimeoutSpec(name, tuple(TimeoutParam(p) for p in params), None, source,
                "a LangChain chat model built without `timeout=` passes `timeout=None` to its SDK client, "
                "which then waits forever", carrier=True, category=MODEL)
    for name, params, source in _CHAT_MODELS)

_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")
_ANTHROPIC_RAISES = ("anthropic.APIConnectionError", "anthropic.APITimeoutError", "anthropic.RateLimitError",
                     "anthropic.InternalServerError", "anthropic.APIStatusError", "anthropic.APIError")

#: chat models whose calls retry inside (their SDK client's retries):
#: (class, parameter, attempts by default, what it raises on giving up, how to turn it off, source)
RETRYING: Tuple[Tuple[str, str, int, Tuple[str, ...], str, str], ...] = (
    ("langchain_openai.ChatOpenAI", "max_retries", 3, _OPENAI_RAISES, "max_retries=0",
     "langchain_openai/chat_models/base.py max_retries: int | None = None -> the SDK's DEFAULT_MAX_RETRIES = 2"),
    ("langchain_openai.AzureChatOpenAI", "max_retries", 3, _OPENAI_RAISES, "max_retries=0",
     "as ChatOpenAI (a subclass)"),
    ("langchain_anthropic.ChatAnthropic", "max_retries", 3, _ANTHROPIC_RAISES, "max_retries=0",
     "langchain_anthropic/chat_models.py max_retries: int = 2"),
)

#: the methods of a Runnable that run it (and so send a model's request); others build a new
#: Runnable (``with_retry``, ``bind_tools``, ``with_structured_output``) or read settings
#: (langchain_core/runnables/base.py Runnable, langchain_core/language_models/chat_models.py)
CURRENT_RUN_METHODS = frozenset({
    "invoke", "ainvoke", "batch", "abatch", "batch_as_completed", "abatch_as_completed", "stream", "astream",
    "astream_log", "astream_events", "transform", "atransform", "generate", "agenerate", "generate_prompt",
    "agenerate_prompt",
})
#: the chat models' methods of langchain-core 0.x, removed in 1.0 (deprecated since 0.1.7): code pinned
#: to an older LangChain still calls them
LEGACY_RUN_METHODS = frozenset({"predict", "apredict", "predict_messages", "apredict_messages"})
RUN_METHODS = CURRENT_RUN_METHODS | LEGACY_RUN_METHODS

#: the Runnable methods whose result parses the model's reply into a schema; a reply that does not
#: parse or validate raises (``OutputParserException``, pydantic ``ValidationError``, ``ValueError``)
#: and depends on what the model wrote, so another attempt can succeed: the default predicate of a
#: ``with_retry`` on such a Runnable, every ``Exception``, is how LangChain code re-asks
#: (langchain_core/language_models/chat_models.py ``BaseChatModel.with_structured_output`` ->
#: ``PydanticToolsParser``; langchain_core/output_parsers/openai_tools.py ``parse_result``, "Raises:
#: ... ValidationError")
STRUCTURED_OUTPUT_METHODS = frozenset({"with_structured_output"})

#: the methods of a ``RunnableRetry`` that go through its retry: it overrides ``invoke``/``ainvoke``
#: (``Retrying(reraise=True)``: the last error is raised again when it gives up) and ``batch``/``abatch``
#: (the inputs that still fail get their last error); the others (``stream``, ``transform``,
#: ``batch_as_completed``...) are ``RunnableBindingBase``'s, which run the bound Runnable once
#: (langchain_core/runnables/retry.py ``_invoke``, ``_batch``; base.py ``RunnableBindingBase``, 1.8.3)
RETRIED_RUN_METHODS = frozenset({"invoke", "ainvoke", "batch", "abatch"})

#: ``with_retry``'s defaults (langchain_core/runnables/base.py, 1.8.3)
WITH_RETRY_DEFAULTS = {"stop_after_attempt": 3, "wait_exponential_jitter": True}
#: ``RunnableRetry``'s field names for the same settings (langchain_core/runnables/retry.py)
RUNNABLE_RETRY_FIELDS = {"stop_after_attempt": "max_attempt_number", "retry_if_exception_type": "retry_exception_types",
                         "wait_exponential_jitter": "wait_exponential_jitter",
                         "exponential_jitter_params": "exponential_jitter_params"}
#: tenacity's ``wait_exponential_jitter`` defaults, which ``exponential_jitter_params`` overrides
#: (tenacity/wait.py: initial=1, max=_utils.MAX_WAIT (no cap), exp_base=2, jitter=1)
JITTER_PARAMS = {"initial": 1.0, "max": None, "exp_base": 2.0, "jitter": 1.0}

#: runnables that run a function given as their first argument, ``func``
#: (langchain_core/runnables/base.py ``RunnableLambda(func, afunc=None, name=None)``)
FUNCTION_RUNNABLES = frozenset({"langchain_core.runnables.RunnableLambda"})
