"""LlamaIndex LLM classes: their timeouts and the retries inside them.

Read in llama-index-llms-openai 0.8.3 (llama_index/llms/openai/base.py): ``OpenAI(..., max_retries=3,
timeout=60.0, ...)`` passes both to its ``openai.OpenAI`` client (``_get_credential_kwargs``) and also
wraps each call in ``llm_retry_decorator`` (``stop_after_attempt(max_retries) |
stop_after_delay(60)``, llama_index/llms/openai/utils.py ``create_retry_decorator``), skipped when
``max_retries`` is 0. The attempts counted here are the SDK client's (``max_retries + 1``): a lower
bound, the decorator can multiply them. ``OpenAI(model, temperature, max_tokens, additional_kwargs,
max_retries, timeout, ...)``: ``timeout`` is positional 5.
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import MODEL, TimeoutParam, TimeoutSpec

SRC = "llama_index/llms/openai/base.py OpenAI(max_retries=3, timeout=60.0) (llama-index-llms-openai 0.8.3)"

TIMEOUTS: Tuple[TimeoutSpec, ...] = (
    TimeoutSpec("llama_index.llms.openai.OpenAI", (TimeoutParam("timeout", 5),), 60.0, SRC,
                "LlamaIndex's OpenAI LLM defaults to a 60 s timeout", carrier=True, category=MODEL),
)

_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")

#: (class, parameter, attempts by default, raises, off, source): as :data:`reslint.catalog.langchain.RETRYING`
RETRYING: Tuple[Tuple[str, str, int, Tuple[str, ...], str, str], ...] = (
    ("llama_index.llms.openai.OpenAI", "max_retries", 4, _OPENAI_RAISES, "max_retries=0", SRC),
)

#: the methods of an LLM that send a request (llama_index/core/base/llms/base.py BaseLLM, llm.py LLM)
RUN_METHODS = frozenset({
    "complete", "acomplete", "chat", "achat", "stream_complete", "astream_complete", "stream_chat", "astream_chat",
    "predict", "apredict", "stream", "astream", "structured_predict", "astructured_predict", "predict_and_call",
    "apredict_and_call",
})
