"""Haystack generators: their timeouts and the retries inside them.

Read in haystack-ai 3.4.1 (haystack/components/generators/chat/openai.py): ``OpenAIChatGenerator(...,
timeout=None, max_retries=None, ...)`` builds its ``openai.OpenAI`` client with ``timeout`` (else the
``OPENAI_TIMEOUT`` environment variable, else 30 s) and ``max_retries`` (else ``OPENAI_MAX_RETRIES``,
else 5): 6 attempts per call by default. ``AzureOpenAIChatGenerator`` (chat/azure.py) subclasses it.
The component runs with ``run(...)``/``run_async(...)``.
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import MODEL, TimeoutParam, TimeoutSpec

SRC = ("haystack/components/generators/chat/openai.py OpenAIChatGenerator._client_kwargs: timeout else "
       "OPENAI_TIMEOUT else 30.0, max_retries else OPENAI_MAX_RETRIES else 5 (haystack-ai 3.4.1)")

#: (generator, the position of ``timeout`` in its ``__init__``)
_GENERATORS = (("haystack.components.generators.chat.OpenAIChatGenerator", 6),
               ("haystack.components.generators.chat.AzureOpenAIChatGenerator", 7))

TIMEOUTS: Tuple[TimeoutSpec, ...] = tuple(
    TimeoutSpec(name, (TimeoutParam("timeout", position),), 30.0, SRC, "Haystack's OpenAI generators default to 30 s",
                carrier=True, category=MODEL, disable_values=())  # None means "the default", not "none"
    for name, position in _GENERATORS)

_OPENAI_RAISES = ("openai.APIConnectionError", "openai.APITimeoutError", "openai.RateLimitError",
                  "openai.InternalServerError", "openai.APIStatusError", "openai.APIError")

#: (class, parameter, attempts by default, raises, off, source): as :data:`reslint.catalog.langchain.RETRYING`
RETRYING: Tuple[Tuple[str, str, int, Tuple[str, ...], str, str], ...] = tuple(
    (name, "max_retries", 6, _OPENAI_RAISES, "max_retries=0", SRC) for name, _ in _GENERATORS)

#: the methods of a component that run it
RUN_METHODS = frozenset({"run", "run_async"})
