"""LlamaIndex LLM classes: their timeouts and the retries inside them.

Read in llama-index-llms-openai 0.8.3 (llama_index/llms/openai/base.py): ``OpenAI(..., max_retries=3,
timeout=60.0, ...)`` passes both to its ``openai.OpenAI`` client (``_get_credential_kwargs``) and also
wraps each call in ``llm_retry_decorator`` (``stop_after_attempt(max_retries) |
stop_after_delay(60)``, llama_index/llms/openai/utils.py ``create_retry_decorator``), skipped when
``max_retries`` is 0. The attempts counted here are the SDK client's (``max_retries + 1``): a lower
bound, the decorator can multiply them. ``OpenAI(model, temperature, max_tokens, additional_kwargs,
max_retries, timeout, ...)``: ``timeout`` is positional 5.

``OpenAIResponses`` (llama_index/llms/openai/responses.py, the Responses API) is built the same way:
``max_retries: int = 3``, ``timeout: float = 60.0`` passed to its ``openai.OpenAI`` client
(``_get_credential_kwargs``), and its own ``llm_retry_decorator`` on the calls; ``timeout`` is
positional 16.
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import MODEL, TimeoutParam, TimeoutSpec

SRC = "llama_index/llms/openai/base.py OpenAI(max_retries=3, timeout=60.0) (llama-index-llms-openai 0.8.3)"
RESPONSES_SRC = ("llama_index/llms/openai/responses.py OpenAIResponses(max_retries=3, timeout=60.0) "
                 "(llama-index-llms-openai 0.8.3)")

#: (class, the position of ``timeout`` in its ``__init__``, source)
_LLMS = (("llama_index.llms.openai.OpenAI", 5, SRC),
         ("llama_index.llms.openai.OpenAIResponses", 16, RESPONSES_SRC))

TIMEOUTS: Tuple[TimeoutSpec, ...] = tuple(
    TimeoutSpec(name, (TimeoutParam("timeout", position),), 60.0, source,
                "LlamaIndex's OpenAI LLMs default to a 60 s timeout", carrier=True, category=MODEL)
    for name, position, source in _LLMS)

_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")

#: (class, parameter, attempts by default, raises, off, source): as :data:`reslint.catalog.langchain.RETRYING`
RETRYING: Tuple[Tuple[str, str, int, Tuple[str, ...], str, str], ...] = tuple(
    (name, "max_retries", 4, _OPENAI_RAISES, "max_retries=0", source) for name, _, source in _LLMS)

#: the methods of an LLM that send a request (llama_index/core/base/llms/base.py BaseLLM, llm.py LLM)
RUN_METHODS = frozenset({
    "complete", "acomplete", "chat", "achat", "stream_complete", "astream_complete", "stream_chat", "astream_chat",
    "predict", "apredict", "stream", "astream", "structured_predict", "astructured_predict", "predict_and_call",
    "apredict_and_call",
})
