"""Canonical names: import paths that name the same object, and factories.

``ALIASES`` maps a dotted prefix to its canonical spelling, so that
``requests.sessions.Session.get`` and ``requests.api.get`` are looked up as
``requests.Session.get`` and ``requests.get``. ``FACTORIES`` maps a callable to
the canonical type of the object it returns (``requests.session()`` builds a
``requests.Session``). Sources: each library's ``__init__`` re-exports, read in
the versions named in ``research/retry-semantics.md`` section 0.
"""

from __future__ import annotations

from typing import Dict

ALIASES: Dict[str, str] = {
    # requests/__init__.py re-exports api functions and Session
    "requests.api": "requests",
    "requests.sessions.Session": "requests.Session",
    "requests.sessions.session": "requests.session",
    "requests.adapters.HTTPAdapter": "requests.HTTPAdapter",
    "requests.adapters.Retry": "urllib3.Retry",
    "requests.packages.urllib3": "urllib3",
    # requests_oauthlib/__init__.py re-exports its sessions
    "requests_oauthlib.oauth1_session.OAuth1Session": "requests_oauthlib.OAuth1Session",
    "requests_oauthlib.oauth2_session.OAuth2Session": "requests_oauthlib.OAuth2Session",
    # urllib3/__init__.py re-exports
    "urllib3.poolmanager.PoolManager": "urllib3.PoolManager",
    "urllib3.connectionpool.HTTPConnectionPool": "urllib3.HTTPConnectionPool",
    "urllib3.connectionpool.HTTPSConnectionPool": "urllib3.HTTPSConnectionPool",
    "urllib3.util.retry.Retry": "urllib3.Retry",
    "urllib3.util.Retry": "urllib3.Retry",
    "urllib3.util.timeout.Timeout": "urllib3.Timeout",
    "urllib3.util.Timeout": "urllib3.Timeout",
    # httpx/__init__.py
    "httpx._client.Client": "httpx.Client",
    "httpx._client.AsyncClient": "httpx.AsyncClient",
    "httpx._config.Timeout": "httpx.Timeout",
    # aiohttp/__init__.py
    "aiohttp.client.ClientSession": "aiohttp.ClientSession",
    "aiohttp.client.ClientTimeout": "aiohttp.ClientTimeout",
    # redis/__init__.py: StrictRedis is Redis since redis-py 3.0
    "redis.StrictRedis": "redis.Redis",
    "redis.client.Redis": "redis.Redis",
    "redis.client.StrictRedis": "redis.Redis",
    "redis.connection.ConnectionPool": "redis.ConnectionPool",
    "redis.connection.BlockingConnectionPool": "redis.BlockingConnectionPool",
    "redis.RedisCluster": "redis.cluster.RedisCluster",
    # redis/asyncio/__init__.py: the asyncio clients, StrictRedis is Redis
    "redis.asyncio.client.Redis": "redis.asyncio.Redis",
    "redis.asyncio.StrictRedis": "redis.asyncio.Redis",
    "redis.asyncio.client.StrictRedis": "redis.asyncio.Redis",
    "redis.asyncio.connection.ConnectionPool": "redis.asyncio.ConnectionPool",
    "redis.asyncio.connection.BlockingConnectionPool": "redis.asyncio.BlockingConnectionPool",
    "redis.asyncio.utils.from_url": "redis.asyncio.from_url",
    "redis.asyncio.RedisCluster": "redis.asyncio.cluster.RedisCluster",
    # pymongo/__init__.py
    "pymongo.mongo_client.MongoClient": "pymongo.MongoClient",
    # boto3/__init__.py, boto3/session.py
    "boto3.session.Session": "boto3.Session",
    "botocore.config.Config": "botocore.Config",
    # openai/__init__.py, anthropic/__init__.py: Timeout is httpx.Timeout (httpx2.Timeout in openai 3.x and
    # anthropic 2.x: a fork with the same parameters)
    "httpx2.Timeout": "httpx.Timeout",
    "openai.Timeout": "httpx.Timeout",
    "anthropic.Timeout": "httpx.Timeout",
    "openai.Client": "openai.OpenAI",
    "openai.AsyncClient": "openai.AsyncOpenAI",
    "anthropic.Client": "anthropic.Anthropic",
    "anthropic.AsyncClient": "anthropic.AsyncAnthropic",
    # litellm/__init__.py re-exports its exceptions and the Router (1.110.2)
    "litellm.router.Router": "litellm.Router",
    "litellm.APIError": "litellm.exceptions.APIError",
    "litellm.APIConnectionError": "litellm.exceptions.APIConnectionError",
    "litellm.Timeout": "litellm.exceptions.Timeout",
    "litellm.RateLimitError": "litellm.exceptions.RateLimitError",
    "litellm.ServiceUnavailableError": "litellm.exceptions.ServiceUnavailableError",
    "litellm.InternalServerError": "litellm.exceptions.InternalServerError",
    "litellm.AuthenticationError": "litellm.exceptions.AuthenticationError",
    "litellm.PermissionDeniedError": "litellm.exceptions.PermissionDeniedError",
    "litellm.BadRequestError": "litellm.exceptions.BadRequestError",
    "litellm.NotFoundError": "litellm.exceptions.NotFoundError",
    "litellm.UnprocessableEntityError": "litellm.exceptions.UnprocessableEntityError",
    "litellm.ContextWindowExceededError": "litellm.exceptions.ContextWindowExceededError",
    "litellm.ContentPolicyViolationError": "litellm.exceptions.ContentPolicyViolationError",
    "litellm.UnsupportedParamsError": "litellm.exceptions.UnsupportedParamsError",
    # psycopg 3
    "psycopg.connection.Connection": "psycopg.Connection",
    "psycopg.Connection.connect": "psycopg.connect",
    "psycopg.AsyncConnection.connect": "psycopg.AsyncConnection.connect",
    # pymysql: connect is Connection
    "pymysql.connections.Connection": "pymysql.connect",
    "pymysql.Connect": "pymysql.connect",
    "pymysql.Connection": "pymysql.connect",
    # langchain_openai/__init__.py, langchain_anthropic/__init__.py, langchain_core/runnables/__init__.py
    "langchain_openai.chat_models.base.ChatOpenAI": "langchain_openai.ChatOpenAI",
    "langchain_openai.chat_models.ChatOpenAI": "langchain_openai.ChatOpenAI",
    "langchain_openai.chat_models.azure.AzureChatOpenAI": "langchain_openai.AzureChatOpenAI",
    "langchain_openai.chat_models.AzureChatOpenAI": "langchain_openai.AzureChatOpenAI",
    "langchain_anthropic.chat_models.ChatAnthropic": "langchain_anthropic.ChatAnthropic",
    "langchain_core.runnables.retry.RunnableRetry": "langchain_core.runnables.RunnableRetry",
    "langchain_core.runnables.base.RunnableLambda": "langchain_core.runnables.RunnableLambda",
    # mcp/__init__.py
    "mcp.client.session.ClientSession": "mcp.ClientSession",
    "mcp.client.stdio.stdio_client": "mcp.stdio_client",
    # llama_index/llms/openai/__init__.py; haystack/components/generators/chat/__init__.py
    "llama_index.llms.openai.base.OpenAI": "llama_index.llms.openai.OpenAI",
    "haystack.components.generators.chat.openai.OpenAIChatGenerator":
        "haystack.components.generators.chat.OpenAIChatGenerator",
    "haystack.components.generators.chat.azure.AzureOpenAIChatGenerator":
        "haystack.components.generators.chat.AzureOpenAIChatGenerator",
    "llama_index.llms.openai.responses.OpenAIResponses": "llama_index.llms.openai.OpenAIResponses",
    "haystack.components.generators.chat.openai_responses.OpenAIResponsesChatGenerator":
        "haystack.components.generators.chat.OpenAIResponsesChatGenerator",
    # haystack/components/embedders/__init__.py
    "haystack.components.embedders.openai_text_embedder.OpenAITextEmbedder":
        "haystack.components.embedders.OpenAITextEmbedder",
    "haystack.components.embedders.openai_document_embedder.OpenAIDocumentEmbedder":
        "haystack.components.embedders.OpenAIDocumentEmbedder",
    "haystack.components.embedders.azure_text_embedder.AzureOpenAITextEmbedder":
        "haystack.components.embedders.AzureOpenAITextEmbedder",
    "haystack.components.embedders.azure_document_embedder.AzureOpenAIDocumentEmbedder":
        "haystack.components.embedders.AzureOpenAIDocumentEmbedder",
    "haystack.components.generators.chat.azure_responses.AzureOpenAIResponsesChatGenerator":
        "haystack.components.generators.chat.AzureOpenAIResponsesChatGenerator",
}

FACTORIES: Dict[str, str] = {
    "requests.session": "requests.Session",
    # asyncio/events.py: the running (or current) event loop, an AbstractEventLoop
    "asyncio.get_running_loop": "asyncio.AbstractEventLoop",
    "asyncio.get_event_loop": "asyncio.AbstractEventLoop",
    "asyncio.new_event_loop": "asyncio.AbstractEventLoop",
    "redis.Redis.from_url": "redis.Redis",
    "redis.from_url": "redis.Redis",
    "redis.asyncio.Redis.from_url": "redis.asyncio.Redis",
    "redis.asyncio.from_url": "redis.asyncio.Redis",
    "redis.cluster.RedisCluster.from_url": "redis.cluster.RedisCluster",
    "redis.asyncio.cluster.RedisCluster.from_url": "redis.asyncio.cluster.RedisCluster",
    "boto3.client": "botocore.client.BaseClient",
    "boto3.Session.client": "botocore.client.BaseClient",
    "psycopg2.connect": "psycopg2.extensions.connection",
    "psycopg.connect": "psycopg.Connection",
    "pymysql.connect": "pymysql.connections.Connection",
    "asyncpg.connect": "asyncpg.Connection",
    "asyncpg.create_pool": "asyncpg.Pool",
    "urllib.request.urlopen": "http.client.HTTPResponse",
    # django_rq/queues.py get_queue(name="default", ...): an instance of its queue class, DjangoRQ
    # (a subclass of rq.Queue) unless QUEUE_CLASS names another rq.Queue
    "django_rq.get_queue": "rq.Queue",
    "django_rq.queues.get_queue": "rq.Queue",
    # openai/_client.py, anthropic/_client.py: with_options = copy returns a client of the same class
    "openai.OpenAI.with_options": "openai.OpenAI",
    "openai.AsyncOpenAI.with_options": "openai.AsyncOpenAI",
    "openai.AzureOpenAI.with_options": "openai.AzureOpenAI",
    "openai.AsyncAzureOpenAI.with_options": "openai.AsyncAzureOpenAI",
    "anthropic.Anthropic.with_options": "anthropic.Anthropic",
    "anthropic.AsyncAnthropic.with_options": "anthropic.AsyncAnthropic",
}


_CANONICAL: Dict[str, str] = {}


def canonical(qualname: str) -> str:
    """Return the canonical spelling of a dotted name (longest alias prefix wins)."""
    known = _CANONICAL.get(qualname)
    if known is None:
        known = _CANONICAL[qualname] = _canonical(qualname)
    return known


def _canonical(qualname: str) -> str:
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        target = ALIASES.get(prefix)
        if target is not None:
            rest = parts[cut:]
            return ".".join([target, *rest]) if rest else target
    return qualname


def instance_type(callee: str) -> str:
    """The canonical type of the object returned by calling ``callee`` (a class or factory)."""
    name = canonical(callee)
    return FACTORIES.get(name, name)
