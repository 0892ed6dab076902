"""Haystack's OpenAI components (generators and embedders): their timeouts and the retries inside them.

Read in haystack-ai 3.4.1 (haystack/components/generators/chat/openai.py): ``OpenAIChatGenerator(...,
timeout=None, max_retries=None, ...)`` builds its ``openai.OpenAI`` client with ``timeout`` (else the
``OPENAI_TIMEOUT`` environment variable, else 30 s) and ``max_retries`` (else ``OPENAI_MAX_RETRIES``,
else 5): 6 attempts per call by default. ``AzureOpenAIChatGenerator`` (chat/azure.py) subclasses it; so do the Azure variants of the
others: ``AzureOpenAIResponsesChatGenerator`` (chat/azure_responses.py, ``timeout`` keyword-only),
``AzureOpenAITextEmbedder`` (embedders/azure_text_embedder.py) and ``AzureOpenAIDocumentEmbedder``
(embedders/azure_document_embedder.py), whose ``_client_kwargs`` read the same variables and defaults.
``OpenAIResponsesChatGenerator`` (chat/openai_responses.py, ``timeout`` keyword-only),
``OpenAITextEmbedder`` (embedders/openai_text_embedder.py) and ``OpenAIDocumentEmbedder``
(embedders/openai_document_embedder.py) read both the same way in their ``_client_kwargs``.
The component runs with ``run(...)``/``run_async(...)``.
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import MODEL, TimeoutParam, TimeoutSpec

#: what each component's ``_client_kwargs`` does with ``timeout=None`` and ``max_retries=None``
_DEFAULTS = ("._client_kwargs: timeout else OPENAI_TIMEOUT else 30.0, max_retries else OPENAI_MAX_RETRIES else 5 "
             "(haystack-ai 3.4.1)")
SRC = "haystack/components/generators/chat/openai.py OpenAIChatGenerator" + _DEFAULTS

#: (component, the position of ``timeout`` in its ``__init__`` (``None``: keyword-only), source)
_COMPONENTS = (
    ("haystack.components.generators.chat.OpenAIChatGenerator", 6, SRC),
    ("haystack.components.generators.chat.AzureOpenAIChatGenerator", 7, SRC),
    ("haystack.components.generators.chat.OpenAIResponsesChatGenerator", None,
     "haystack/components/generators/chat/openai_responses.py OpenAIResponsesChatGenerator" + _DEFAULTS),
    ("haystack.components.embedders.OpenAITextEmbedder", 7,
     "haystack/components/embedders/openai_text_embedder.py OpenAITextEmbedder" + _DEFAULTS),
    ("haystack.components.embedders.OpenAIDocumentEmbedder", 11,
     "haystack/components/embedders/openai_document_embedder.py OpenAIDocumentEmbedder" + _DEFAULTS),
    ("haystack.components.generators.chat.AzureOpenAIResponsesChatGenerator", None,
     "haystack/components/generators/chat/azure_responses.py AzureOpenAIResponsesChatGenerator" + _DEFAULTS),
    ("haystack.components.embedders.AzureOpenAITextEmbedder", 7,
     "haystack/components/embedders/azure_text_embedder.py AzureOpenAITextEmbedder" + _DEFAULTS),
    ("haystack.components.embedders.AzureOpenAIDocumentEmbedder", 13,
     "haystack/components/embedders/azure_document_embedder.py AzureOpenAIDocumentEmbedder" + _DEFAULTS),
)

TIMEOUTS: Tuple[TimeoutSpec, ...] = tuple(
    TimeoutSpec(name, (TimeoutParam("timeout", position),), 30.0, source,
                "Haystack's OpenAI components default to 30 s", carrier=True, category=MODEL,
                disable_values=())  # None means "the default", not "none"
    for name, position, source in _COMPONENTS)

_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")

#: (class, parameter, attempts by default, raises, off, source): as :data:`reslint.catalog.langchain.RETRYING`
RETRYING: Tuple[Tuple[str, str, int, Tuple[str, ...], str, str], ...] = tuple(
    (name, "max_retries", 6, _OPENAI_RAISES, "max_retries=0", source) for name, _, source in _COMPONENTS)

#: the methods of a component that run it
RUN_METHODS = frozenset({"run", "run_async"})
