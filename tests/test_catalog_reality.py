"""The catalog against the real libraries: a library rename fails these tests, not our users.

``reslint/catalog/`` holds what reslint knows about third-party APIs as data. This
file imports the installed libraries and checks that data with
:func:`inspect.signature` and :func:`getattr`:

- every ``TIMEOUT_CALLS`` entry resolves (through ``names.ALIASES`` for canonical
  spellings such as ``botocore.Config``), each ``TimeoutParam`` is a parameter (or
  reaches ``**kwargs``, which is then followed to where it lands) at the declared
  position, and the ``dsn``/``connects_with``/``configured_by``/``url`` arguments exist;
- ``socket_default`` is checked end to end against a silent loopback server;
- ``TIMEOUT_OBJECTS`` parameters and phases, and the defaults the catalog states;
- ``names.ALIASES`` name the same object, ``FACTORIES`` resolve;
- the retry catalog: decorators, iterators, callers and policy objects resolve,
  tenacity strategies exist with the parameters and defaults the catalog lists, the
  keyword and positional parameters the extractors in ``reslint/analysis/retry.py``
  read exist, and ``STAMINA/URLLIB3/CELERY/OPNIEUW/REDO/GOOGLE_DEFAULTS`` hold.

A library that is not installed is skipped with its name (``pip install -e '.[test]'``
installs them all). A catalog entry found wrong against the real library is marked
``xfail(strict=True)`` with the reason in :data:`CATALOG_MISTAKES`: fixing the catalog
turns it into an XPASS failure, so the mark is removed with the fix.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.metadata
import inspect
from pathlib import Path
import os
import re
import socket
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import pytest

from reslint import libraries
from reslint.catalog import langchain as langchain_catalog, names, retries, timeouts
from reslint.libraries import (
    arq as arq_adapter, backoff as backoff_adapter, celery as celery_adapter, dramatiq as dramatiq_adapter,
    django_rq as django_rq_adapter, google_api_core as google_adapter, huey as huey_adapter, opnieuw as opnieuw_adapter,
    rq as rq_adapter, redo as redo_adapter, requests as requests_adapter,
    retry_package as retry_package_adapter, stamina as stamina_adapter, tenacity as tenacity_adapter,
    urllib3 as urllib3_adapter,
)
from reslint.model.policy import Role
from reslint.catalog.model import INHERITED, TimeoutSpec
from reslint.catalog.timeouts import (
    NO_OP_ATTRIBUTES,
    OBJECT_KEYWORDS,
    ONCE_DONE_METHODS,
    TIMEOUT_CALLS,
    TIMEOUT_INJECTION_HOOKS,
    TIMEOUT_OBJECTS,
)

# litellm fetches its model price map over the network on import unless told to use its own copy
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

P = inspect.Parameter
POSITIONAL_KINDS = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)

# -- catalog entries found wrong against the real library ------------------------------------
#: ``"check:entry"`` -> why the catalog is wrong. Each case is ``xfail(strict=True)``.
CATALOG_MISTAKES: Dict[str, str] = {
}
#: Aliases whose target is another class with the same parameters, in the library versions where
#: that is so (a condition, so an older library that still re-exports httpx's class does not XPASS).
HTTPX2_ALIASES = {"openai.Timeout": "openai", "anthropic.Timeout": "anthropic"}


def _uses_httpx2(package: str) -> bool:
    try:
        module = _quiet_import(package)
    except ImportError:
        return False
    return "httpx2" in sys.modules and module.Timeout is sys.modules["httpx2"].Timeout


_HTTPX2_REASON = (
    "the SDK re-exports httpx2.Timeout (anthropic 2.17; openai 2.54 re-exports httpx.Timeout), a different class "
    "from httpx.Timeout (same parameters: see test_httpx2_timeout_aliases_have_httpx_timeout_parameters)"
)

def _case(check: str, key: str, *values, condition: Optional[str] = None, id: Optional[str] = None):
    """A ``pytest.param`` with id ``key``, marked xfail(strict) when the catalog is known wrong there."""
    reason = CATALOG_MISTAKES.get(f"{check}:{key}")
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    if condition is not None:
        marks = [pytest.mark.xfail(condition, strict=True, reason=f"{key}: " + _HTTPX2_REASON)]
    return pytest.param(*values, id=id or key, marks=marks)


# -- resolving dotted names ----------------------------------------------------------------------
#: The module to try importing for a top-level name, where the name alone does not tell.
IMPORT_FOR = {"google": "google.api_core"}
#: Major versions the catalog describes, where an older one differs (pip installs urllib3 1.26 next
#: to botocore on Python < 3.10): its checks are skipped there, with the differences named.
MIN_MAJOR = {
    "urllib3": (2, "the catalog describes urllib3 2.x; 1.26 has HTTPConnectionPool(host, port, strict, timeout), "
                   "no urllib3.request(), no Retry(backoff_max=, backoff_jitter=), and a different DEFAULT_TIMEOUT"),
}
#: Pseudo names in the catalog that stand for a real object.
PSEUDO = {"loop.time": "asyncio.AbstractEventLoop.time"}


#: Packages whose import reads Django's settings (django_rq/settings.py reads ``RQ_SHOW_ADMIN_LINK``
#: on import): Django is configured with these settings, once, before the first import of one.
DJANGO_PACKAGES = ("django_rq",)
#: one queue on a local Redis (redis-py connects on the first command: nothing here sends one)
DJANGO_SETTINGS = {"RQ_QUEUES": {"default": {"HOST": "localhost", "PORT": 6379, "DB": 0}}}


def _quiet_import(module: str):
    if module.split(".")[0] in DJANGO_PACKAGES:
        from django.conf import settings

        if not settings.configured:
            settings.configure(**DJANGO_SETTINGS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # telnetlib and nntplib warn on import (PEP 594)
        return importlib.import_module(module)


def require(qualname: str) -> None:
    """Skip the test when the package of ``qualname`` is not installed."""
    qualname = PSEUDO.get(qualname, qualname)
    if "." not in qualname and hasattr(builtins, qualname):
        return  # ValueError, Exception...
    top = qualname.split(".")[0]
    module = IMPORT_FOR.get(top, top)
    try:
        _quiet_import(module)
    except ImportError as exc:
        pytest.skip(f"{module} is not installed ({exc}): its catalog entries are not checked here (the test "
                    f"extra installs the retry, HTTP and SDK libraries, not every library a catalog entry names; "
                    f"`pip install {module}` to check these)")
    if top in MIN_MAJOR:
        major, reason = MIN_MAJOR[top]
        version = importlib.metadata.version(top)
        if int(version.split(".")[0]) < major:
            pytest.skip(f"{top} {version} is installed: {reason}")


def _walk_attributes(dotted: str):
    """``from a.b import c`` semantics: an attribute first, else a submodule (``tenacity.retry`` is the
    decorator, though ``tenacity/retry.py`` exists)."""
    parts = dotted.split(".")
    obj, owner, attr = _quiet_import(parts[0]), None, parts[0]
    for part in parts[1:]:
        owner, attr = obj, part
        if hasattr(obj, part):
            obj = getattr(obj, part)
        elif inspect.ismodule(obj):
            obj = _quiet_import(f"{obj.__name__}.{part}")
        else:
            raise AttributeError(f"{owner!r} has no attribute {part!r}")
    return obj, owner, attr


def _walk(dotted: str):
    """(object, owner, attribute) of a dotted name: attribute semantics, else the longest importable
    module prefix and getattr the rest (``tenacity.retry.retry_if_result``)."""
    if "." not in dotted:
        return getattr(builtins, dotted), builtins, dotted
    try:
        return _walk_attributes(dotted)
    except (AttributeError, ModuleNotFoundError):
        pass
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = _quiet_import(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
                continue
            raise
        owner, attr = None, parts[cut - 1]
        for attr in parts[cut:]:
            owner, obj = obj, getattr(obj, attr)
        return obj, owner, attr
    raise ModuleNotFoundError(dotted)


def _spellings(qualname: str) -> Iterable[str]:
    """The canonical name first, then the import paths ``ALIASES`` maps onto it."""
    yield qualname
    for alias, target in names.ALIASES.items():
        if qualname == target:
            yield alias
        elif qualname.startswith(target + "."):
            yield alias + qualname[len(target):]


#: SDK clients whose resources are instance attributes (``OpenAI().chat.completions`` is a cached
#: property): a catalog name under one is resolved on a client built offline with a dummy key
SDK_INSTANCES: Dict[str, Callable[[], object]] = {
    "openai.OpenAI": lambda: _quiet_import("openai").OpenAI(api_key="test"),
    "openai.AsyncOpenAI": lambda: _quiet_import("openai").AsyncOpenAI(api_key="test"),
    "openai.AzureOpenAI": lambda: _quiet_import("openai").AzureOpenAI(
        api_key="test", api_version="2024-06-01", azure_endpoint="https://example.invalid"),
    "openai.AsyncAzureOpenAI": lambda: _quiet_import("openai").AsyncAzureOpenAI(
        api_key="test", api_version="2024-06-01", azure_endpoint="https://example.invalid"),
    "anthropic.Anthropic": lambda: _quiet_import("anthropic").Anthropic(api_key="test"),
    "anthropic.AsyncAnthropic": lambda: _quiet_import("anthropic").AsyncAnthropic(api_key="test"),
}


def _walk_instance(qualname: str):
    """(object, owner, attribute) of a resource method under an SDK client (:data:`SDK_INSTANCES`:
    ``openai.OpenAI.chat.completions.create``), or ``None`` for other names (a method of the client
    class itself, ``openai.OpenAI.with_options``, resolves on the class)."""
    for client, build in SDK_INSTANCES.items():
        rest = qualname[len(client) + 1:].split(".") if qualname.startswith(client + ".") else []
        if len(rest) > 1:
            obj, owner, attr = build(), None, client
            for part in rest:
                owner, attr, obj = obj, part, getattr(obj, part)
            return obj, owner, attr
    return None


def resolve(qualname: str):
    """(object, owner, attribute) of a catalog name; skip if its package is missing, fail if no spelling resolves."""
    qualname = PSEUDO.get(qualname, qualname)
    require(qualname)
    on_instance = _walk_instance(qualname)
    if on_instance is not None:
        return on_instance
    errors = []
    for spelling in _spellings(qualname):
        try:
            return _walk(spelling)
        except (AttributeError, ModuleNotFoundError) as exc:
            errors.append(f"{spelling}: {exc!r}")
    pytest.fail(f"catalog name {qualname} does not resolve in the installed library: {'; '.join(errors)}")


def _same(a, b) -> bool:
    """Identity, also for bound methods rebuilt on each attribute access (classmethods)."""
    if a is b:
        return True
    return inspect.ismethod(a) and inspect.ismethod(b) and a.__func__ is b.__func__ and a.__self__ is b.__self__


# -- signatures ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Params:
    """The parameters of a callable, ``self``/``cls`` excluded."""

    qualname: str
    parameters: Tuple[inspect.Parameter, ...]
    from_docstring: bool = False

    @property
    def positional(self) -> List[inspect.Parameter]:
        return [p for p in self.parameters if p.kind in POSITIONAL_KINDS]

    @property
    def var_keyword(self) -> bool:
        return any(p.kind is P.VAR_KEYWORD for p in self.parameters)

    def get(self, name: str) -> Optional[inspect.Parameter]:
        for p in self.parameters:
            if p.name == name and p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
                return p
        return None

    def __str__(self) -> str:
        return f"{self.qualname}({', '.join(str(p.replace(annotation=P.empty)) for p in self.parameters)})"


def _docstring_parameters(obj) -> List[inspect.Parameter]:
    """C functions without a text signature (``settimeout(timeout)``): positional-only, from the docstring."""
    first = (obj.__doc__ or "").strip().splitlines()[0] if obj.__doc__ else ""
    match = re.match(r"\w+\((.*)\)", first)
    if match is None:
        raise AssertionError(f"{obj!r} has neither a signature nor a docstring signature")
    return [P(n, P.POSITIONAL_ONLY) for n in re.findall(r"\w+", match.group(1))]


def params_of(qualname: str) -> Params:
    obj, owner, attr = resolve(qualname)
    try:
        parameters = list(inspect.signature(obj).parameters.values())
        from_doc = False
    except (TypeError, ValueError):
        parameters, from_doc = _docstring_parameters(obj), True
    if not from_doc and inspect.isclass(owner) and not inspect.isclass(obj):
        static = inspect.getattr_static(owner, attr)
        if not isinstance(static, (staticmethod, classmethod)) and parameters and \
                parameters[0].kind in POSITIONAL_KINDS:
            parameters = parameters[1:]  # self
    if inspect.isclass(obj) and parameters and all(p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD) for p in parameters) \
            and "__init__" in vars(obj):
        # a metaclass __call__(*args, **kwargs) hides the constructor (Haystack's @component): read __init__
        parameters = list(inspect.signature(obj.__init__).parameters.values())[1:]
    parameters += _pydantic_field_names(obj, parameters)
    return Params(qualname, tuple(parameters), from_doc)


def _pydantic_field_names(obj, parameters) -> List[inspect.Parameter]:
    """A pydantic model's signature names its fields by alias (``timeout``); with
    ``populate_by_name`` the field names are accepted too (``request_timeout``): keyword-only."""
    fields = getattr(obj, "model_fields", None) if inspect.isclass(obj) else None
    config = getattr(obj, "model_config", None) or {}
    if not isinstance(fields, dict) or not (config.get("populate_by_name") or config.get("validate_by_name")):
        return []
    known = {p.name for p in parameters}
    return [P(name, P.KEYWORD_ONLY) for name in fields if name not in known and name.isidentifier()]


#: Constructors whose timeout became keyword-only in Python 3.12 (key_file/keyfile... removed).
KEYWORD_ONLY_SINCE_312 = frozenset({
    "http.client.HTTPSConnection", "smtplib.SMTP_SSL", "ftplib.FTP_TLS", "imaplib.IMAP4_SSL", "poplib.POP3_SSL",
})


def check_param(params: Params, name: str, position: Optional[int]) -> str:
    """Assert that ``name`` is accepted at ``position``; return how it is accepted."""
    allowed = {position}
    if params.qualname in KEYWORD_ONLY_SINCE_312 and sys.version_info >= (3, 12):
        allowed.add(None)
    where = f"{params.qualname}: parameter {name!r}"
    param = params.get(name)
    if param is None and position is not None and position < len(params.positional) and \
            params.positional[position].kind is P.POSITIONAL_ONLY:
        return f"positional-only argument {position} (the library names it {params.positional[position].name!r})"
    if param is None and isinstance(FORWARDS.get(params.qualname), str) and \
            any(p.kind is P.VAR_POSITIONAL for p in params.parameters) and not params.positional:
        # f(*args, **kwargs) passing both on (boto3.client -> boto3.Session.client)
        return check_param(params_of(FORWARDS[params.qualname]), name, position)
    if param is None:
        assert params.var_keyword, f"{where} does not exist and there is no **kwargs: {params}"
        assert position is None, f"{where} only reaches **kwargs, so it cannot be positional {position}: {params}"
        return "**kwargs"
    if param.kind is P.KEYWORD_ONLY:
        assert None in allowed, f"{where} is keyword-only, the catalog declares position {position}: {params}"
        return "keyword-only"
    actual = params.positional.index(param)
    if position is not None:
        assert actual in allowed, f"{where} is positional argument {actual}, the catalog declares {position}: {params}"
    return f"positional {actual}"


# -- where **kwargs land -------------------------------------------------------------------------
def _libpq_keyword(package: str):
    """A check that libpq (through psycopg2 or psycopg) knows a connection keyword."""
    def check(name: str) -> None:
        if package == "psycopg2":
            parse = _quiet_import("psycopg2.extensions").parse_dsn
            build = lambda key: parse(f"{key}=5")  # noqa: E731
        else:
            make = _quiet_import("psycopg.conninfo").make_conninfo
            build = lambda key: make("", **{key: 5})  # noqa: E731
        try:
            build(name)
        except Exception as exc:  # ProgrammingError: invalid connection option
            pytest.fail(f"libpq ({package}) does not take {name!r}: {exc}")
        with pytest.raises(Exception, match="invalid"):
            build(f"{name}_not_an_option")  # the check can fail
    return check


def _pymongo_option(name: str) -> None:
    common = _quiet_import("pymongo.common")
    assert name.lower() in common.VALIDATORS, f"pymongo has no client option {name!r}"
    assert name.lower() in common.URI_OPTIONS_VALIDATOR_MAP, f"pymongo has no URI option {name!r}"


def _redis_url_query(name: str, module: str = "redis.connection") -> None:
    assert name in _quiet_import(module).URL_QUERY_ARGUMENT_PARSERS, \
        f"redis-py ({module}) does not read {name!r} from a URL query"


def _redis_asyncio_url_query(name: str) -> None:
    _redis_url_query(name, "redis.asyncio.connection")


#: For entries whose parameter reaches ``**kwargs``: the callable that receives it (its parameter
#: is then checked as explicit), or a function that checks the keyword where the library reads it.
FORWARDS: Dict[str, object] = {}
for _verb in ("get", "options", "head", "post", "put", "patch", "delete", "request"):
    FORWARDS[f"requests.{_verb}"] = "requests.Session.request"  # requests/api.py -> Session.request
    FORWARDS[f"requests.Session.{_verb}"] = "requests.Session.request"
    FORWARDS[f"aiohttp.ClientSession.{_verb}"] = "aiohttp.ClientSession._request"  # aiohttp/client.py
FORWARDS["requests.Session.send"] = "requests.adapters.HTTPAdapter.send"  # requests/sessions.py adapter.send(request, **kwargs)
for _pool in ("urllib3.PoolManager", "urllib3.HTTPConnectionPool", "urllib3.HTTPSConnectionPool"):
    for _method in ("request", "urlopen", "request_encode_url", "request_encode_body"):
        FORWARDS[f"{_pool}.{_method}"] = "urllib3.HTTPConnectionPool.urlopen"  # urllib3/_request_methods.py
FORWARDS.update({
    "litellm.aembedding": "litellm.embedding",  # litellm/main.py aembedding(*args, **kwargs) -> embedding
    "urllib3.PoolManager": "urllib3.HTTPConnectionPool",  # connection_pool_kw -> the pool class
    "subprocess.check_call": "subprocess.call",
    "psycopg2.connect": _libpq_keyword("psycopg2"),  # psycopg2/__init__.py connect -> make_dsn
    "psycopg.connect": _libpq_keyword("psycopg"),
    "psycopg.AsyncConnection.connect": _libpq_keyword("psycopg"),
    "asyncpg.create_pool": "asyncpg.connect",  # asyncpg/pool.py connect_kwargs -> connection.connect
    "redis.Redis.from_url": "redis.Redis",  # redis/client.py from_url -> cls(connection_pool=...(**kwargs))
    "redis.from_url": "redis.Redis",
    # redis/connection.py ConnectionPool(**connection_kwargs) -> connection_class(**connection_kwargs)
    "redis.ConnectionPool": "redis.connection.AbstractConnection",
    "redis.BlockingConnectionPool": "redis.connection.AbstractConnection",
    "redis.asyncio.Redis.from_url": "redis.asyncio.Redis",  # redis/asyncio/client.py from_url -> ConnectionPool
    "redis.asyncio.from_url": "redis.asyncio.Redis",
    "redis.asyncio.ConnectionPool": "redis.asyncio.connection.AbstractConnection",
    "redis.asyncio.BlockingConnectionPool": "redis.asyncio.connection.AbstractConnection",
    # redis/cluster.py RedisCluster(**kwargs) -> NodesManager -> Redis(host=, port=, **kwargs)
    "redis.cluster.RedisCluster": "redis.Redis",
    "redis.cluster.RedisCluster.from_url": "redis.Redis",
    "redis.asyncio.cluster.RedisCluster.from_url": "redis.asyncio.cluster.RedisCluster",  # cls(**kwargs)
    "pymongo.MongoClient": _pymongo_option,  # pymongo/common.py option validators
    "boto3.client": "boto3.Session.client",  # boto3/__init__.py -> _get_default_session().client
    "boto3.resource": "boto3.Session.resource",
})


# -- TIMEOUT_CALLS: names, parameters and positions ------------------------------------------------
def _timeout_cases(check: str = "params"):
    return [_case(check, q, q, spec) for q, spec in TIMEOUT_CALLS.items()]


@pytest.mark.parametrize(("qualname", "spec"), _timeout_cases())
def test_timeout_call_parameters_exist_at_their_positions(qualname: str, spec: TimeoutSpec, record_property):
    params = params_of(qualname)
    for param in spec.params:
        how = check_param(params, param.name, param.position)
        record_property(param.name, how)
        if param is spec.params[0] and how.startswith("positional-only"):
            assert "{param}=" not in (spec.fix or ""), f"{qualname}: the fix passes a positional-only parameter by name"
        if how == "**kwargs":
            follow_kwargs(qualname, param.name, record_property)


def follow_kwargs(qualname: str, name: str, record_property) -> None:
    """A parameter that only reaches ``**kwargs`` is accepted and recorded; where FORWARDS says where it
    lands, it must be a real parameter (or option) there."""
    target = FORWARDS.get(qualname)
    if target is None:
        record_property("via_kwargs_not_followed", name)
        return
    if callable(target):
        target(name)
        record_property("via_kwargs_checked_by", target.__qualname__)
    else:
        how = check_param(params_of(target), name, None)
        assert how != "**kwargs", f"{qualname} -> {target}: {name!r} still only reaches **kwargs"
        record_property("via_kwargs_lands_in", f"{target} ({how})")


def test_forwards_rows_are_catalog_entries_taking_kwargs():
    assert set(FORWARDS) <= set(TIMEOUT_CALLS), sorted(set(FORWARDS) - set(TIMEOUT_CALLS))


def _argument_refs():
    out = []
    for q, spec in TIMEOUT_CALLS.items():
        for field_name in ("dsn", "connects_with", "configured_by", "url"):
            ref = getattr(spec, field_name)
            if ref is not None:
                out.append(_case(field_name, q, q, field_name, ref[0], ref[1], id=f"{q}:{field_name}"))
    return out


@pytest.mark.parametrize(("qualname", "field_name", "name", "position"), _argument_refs())
def test_timeout_call_dsn_host_and_url_arguments_exist(qualname, field_name, name, position):
    """``dsn``, ``connects_with``, ``configured_by`` and ``url`` name a real argument at its position."""
    assert check_param(params_of(qualname), name, position) != "**kwargs", \
        f"{qualname}.{field_name}: {name!r} is not an explicit parameter"


@pytest.mark.parametrize(("qualname", "spec"), _timeout_cases("keyword_only"))
def test_timeout_params_declared_keyword_only_are_not_positional(qualname: str, spec: TimeoutSpec):
    """``position=None`` means keyword-only (model.py): a parameter that is positional must say where."""
    params = params_of(qualname)
    for param in spec.params:
        if param.position is not None:
            continue
        real, where = params.get(param.name), params
        if real is None and isinstance(FORWARDS.get(qualname), str) and \
                any(p.kind is P.VAR_POSITIONAL for p in params.parameters) and not params.positional:
            where = params_of(FORWARDS[qualname])  # f(*args, **kwargs) passing both on (boto3.client)
            real = where.get(param.name)
        if real is not None and real.kind in POSITIONAL_KINDS:
            actual = where.positional.index(real)
            pytest.fail(f"{qualname}: {param.name!r} is positional argument {actual}, declared keyword-only")


def test_dsn_keys_are_read_by_the_library():
    """The keys looked for in a DSN or URL are the library's own option names."""
    checkers = {"psycopg2.connect": _libpq_keyword("psycopg2"), "psycopg.connect": _libpq_keyword("psycopg"),
                "psycopg.AsyncConnection.connect": _libpq_keyword("psycopg"),
                "redis.Redis.from_url": _redis_url_query, "redis.from_url": _redis_url_query,
                "redis.cluster.RedisCluster.from_url": _redis_url_query, "redis.cluster.RedisCluster": _redis_url_query,
                "redis.asyncio.Redis.from_url": _redis_asyncio_url_query,
                "redis.asyncio.from_url": _redis_asyncio_url_query,
                "redis.asyncio.cluster.RedisCluster.from_url": _redis_asyncio_url_query,
                "pymongo.MongoClient": _pymongo_option}
    with_dsn = {q for q, spec in TIMEOUT_CALLS.items() if spec.dsn is not None}
    assert with_dsn == set(checkers), "a new dsn entry needs a key checker here"
    checked = 0
    for qualname, check in checkers.items():
        top = qualname.split(".")[0]
        try:
            _quiet_import(top)
        except ImportError:
            continue
        for key in TIMEOUT_CALLS[qualname].dsn[2]:
            check(key)
            checked += 1
    if not checked:
        pytest.skip("none of psycopg2, psycopg, redis, pymongo is installed")


# -- socket_default, end to end ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def silent_server():
    """A loopback port whose kernel completes the TCP handshake (listen backlog) but that never answers."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    yield server.getsockname()
    server.close()  # resets the connections still waiting in the backlog


def _http_connection(module_name: str):
    def trigger(host: str, port: int):
        conn = getattr(_quiet_import("http.client"), module_name)(host, port)
        if module_name == "HTTPSConnection":
            conn.connect()  # the TLS handshake waits for the server
        else:
            conn.request("GET", "/")
            conn.getresponse()
    return trigger


def _mod(dotted: str):
    module, _, attr = dotted.rpartition(".")
    return getattr(_quiet_import(module), attr)


#: How to make each client do its first blocking read without passing a timeout.
SOCKET_TRIGGERS: Dict[str, Callable[[str, int], object]] = {
    "urllib.request.urlopen": lambda h, p: _mod("urllib.request.urlopen")(f"http://{h}:{p}/"),
    "http.client.HTTPConnection": _http_connection("HTTPConnection"),
    "http.client.HTTPSConnection": _http_connection("HTTPSConnection"),
    "socket.create_connection": lambda h, p: socket.create_connection((h, p)).recv(1),
    "telnetlib.Telnet": lambda h, p: _mod("telnetlib.Telnet")(h, p).read_some(),
    "nntplib.NNTP": lambda h, p: _mod("nntplib.NNTP")(h, p),
    "smtplib.SMTP": lambda h, p: _mod("smtplib.SMTP")(h, p),
    "smtplib.SMTP_SSL": lambda h, p: _mod("smtplib.SMTP_SSL")(h, p),
    "smtplib.LMTP": lambda h, p: _mod("smtplib.LMTP")(h, p),
    "ftplib.FTP": lambda h, p: _mod("ftplib.FTP")().connect(h, p),  # FTP(host) has no port argument
    "ftplib.FTP_TLS": lambda h, p: _mod("ftplib.FTP_TLS")().connect(h, p),
    "imaplib.IMAP4": lambda h, p: _mod("imaplib.IMAP4")(h, p),
    "imaplib.IMAP4_SSL": lambda h, p: _mod("imaplib.IMAP4_SSL")(h, p),
    "poplib.POP3": lambda h, p: _mod("poplib.POP3")(h, p),
    "poplib.POP3_SSL": lambda h, p: _mod("poplib.POP3_SSL")(h, p),
    "urllib3.PoolManager": lambda h, p: _mod("urllib3.PoolManager")().request("GET", f"http://{h}:{p}/", retries=False),
    "urllib3.HTTPConnectionPool": lambda h, p: _mod("urllib3.HTTPConnectionPool")(h, p).request("GET", "/", retries=False),
    "urllib3.HTTPSConnectionPool": lambda h, p: _mod("urllib3.HTTPSConnectionPool")(h, p).request("GET", "/", retries=False),
    # The contrast: requests passes an explicit None read timeout, so the socket default does not apply.
    "requests.get": lambda h, p: _mod("requests.get")(f"http://{h}:{p}/"),
}


def _is_timeout(exc: Optional[BaseException]) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (TimeoutError, socket.timeout)) or "timed out" in str(exc):
            return True
        exc = getattr(exc, "reason", None) if isinstance(getattr(exc, "reason", None), BaseException) \
            else (exc.__cause__ or exc.__context__)
    return False


def test_socket_triggers_cover_every_socket_default_entry():
    claimed = {q for q, spec in TIMEOUT_CALLS.items() if spec.socket_default}
    assert claimed <= set(SOCKET_TRIGGERS), f"no trigger for {sorted(claimed - set(SOCKET_TRIGGERS))}"


@pytest.mark.parametrize("qualname", [_case("socket_default", q, q) for q in SOCKET_TRIGGERS])
def test_socket_default_claim_matches_the_library(qualname: str, silent_server, monkeypatch):
    """``socket_default=True`` iff ``socket.setdefaulttimeout()`` bounds a call that passes no timeout."""
    require(qualname)  # skips telnetlib and nntplib where removed (3.13)
    monkeypatch.setenv("no_proxy", "*")  # urlopen must not go through a proxy from the environment
    monkeypatch.setenv("NO_PROXY", "*")
    host, port = silent_server
    outcome: Dict[str, Optional[BaseException]] = {}

    def run():
        try:
            SOCKET_TRIGGERS[qualname](host, port)
            outcome["exc"] = None
        except BaseException as exc:  # noqa: BLE001 - the outcome is inspected below
            outcome["exc"] = exc

    spec = TIMEOUT_CALLS[qualname]
    # A call the catalog says is bounded gets 60x the socket default before it counts as hanging; one it
    # says is unbounded (the requests contrast) has to hang for 10x, which is all this test waits.
    guard = 3.0 if spec.socket_default else 0.5
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(0.05)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            thread.join(guard)
    finally:
        socket.setdefaulttimeout(previous)
    if "exc" in outcome:
        assert outcome["exc"] is not None, f"{qualname}: the trigger returned without waiting on the server"
        assert _is_timeout(outcome["exc"]), f"{qualname}: failed for another reason: {outcome['exc']!r}"
    bounded = "exc" in outcome
    assert bounded == spec.socket_default, (
        f"{qualname}: socket.setdefaulttimeout() {'bounds' if bounded else 'does not bound'} a call without "
        f"timeout, the catalog says socket_default={spec.socket_default}"
    )


@pytest.mark.parametrize("qualname", sorted(q for q, s in TIMEOUT_CALLS.items() if s.connects_with))
def test_clients_with_connects_with_do_no_io_without_a_host(qualname: str, monkeypatch):
    """``connects_with``: built without a host, the client opens no connection."""
    cls, _, _ = resolve(qualname)

    def no_connection(*args, **kwargs):
        raise AssertionError(f"{qualname}() connected without a host")

    monkeypatch.setattr(socket, "create_connection", no_connection)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = cls()
    assert getattr(client, "sock", None) is None


# -- defaults the timeout catalog states ------------------------------------------------------------
def _phases(timeout) -> Tuple[float, ...]:
    return tuple(getattr(timeout, phase) for phase in ("connect", "read", "write", "pool"))


def test_httpx_defaults_to_5_seconds_per_phase():
    require("httpx")
    config = _quiet_import("httpx._config").DEFAULT_TIMEOUT_CONFIG
    assert _phases(config) == (5.0, 5.0, 5.0, 5.0)
    for qualname, spec in TIMEOUT_CALLS.items():
        if not qualname.startswith("httpx."):
            continue
        if spec.default_s == INHERITED:
            continue
        assert spec.default_s == 5.0 and spec.number_phases == 4, qualname
        assert spec.default_per_attempt_s == sum(_phases(config)), qualname
        default = params_of(qualname).get("timeout").default
        assert default == config or default is config or _quiet_import("httpx").Timeout(default) == config, qualname


def test_urllib3_request_defaults_to_3_seconds():
    assert params_of("urllib3.request").get("timeout").default == TIMEOUT_CALLS["urllib3.request"].default_s == 3


def test_aiohttp_session_default_total_is_300_seconds():
    require("aiohttp")
    default = _quiet_import("aiohttp.client").DEFAULT_TIMEOUT
    assert default.total == TIMEOUT_CALLS["aiohttp.ClientSession"].default_s == 300


def test_psycopg3_default_connect_timeout_is_130_seconds():
    require("psycopg")
    assert _quiet_import("psycopg.conninfo")._DEFAULT_CONNECT_TIMEOUT == TIMEOUT_CALLS["psycopg.connect"].default_s
    assert TIMEOUT_CALLS["psycopg.AsyncConnection.connect"].default_s == 130


def test_botocore_defaults_to_60_and_60_seconds():
    require("botocore")
    defaults = _quiet_import("botocore.config").Config.OPTION_DEFAULTS
    obj = TIMEOUT_OBJECTS["botocore.Config"]
    for keyword, phase in OBJECT_KEYWORDS["botocore.Config"].items():
        assert defaults[keyword] == obj.defaults_s[phase]
    for qualname in ("boto3.client", "boto3.resource", "boto3.Session.client", "boto3.Session.resource",
                     "botocore.session.Session.create_client"):
        # the longest single wait is judged against the ceiling; the sum is the per-attempt estimate
        assert TIMEOUT_CALLS[qualname].default_s == max(defaults["connect_timeout"], defaults["read_timeout"])
        assert TIMEOUT_CALLS[qualname].default_per_attempt_s == defaults["connect_timeout"] + defaults["read_timeout"]


def test_botocore_local_methods_are_the_presigners_botocore_adds():
    """``local_methods`` of the boto3 clients: the methods botocore's signers add to a client
    (``botocore/signers.py``), which sign locally and send no request."""
    botocore_session = pytest.importorskip("botocore.session")
    session = botocore_session.get_session()
    added = set()
    for service in ("s3", "rds", "dsql"):  # dsql: generate_db_connect_(admin_)auth_token
        client = session.create_client(service, region_name="us-east-1", aws_access_key_id="k",
                                       aws_secret_access_key="s")
        added |= {name for name in dir(client) if name.startswith("generate_")}
    local = TIMEOUT_CALLS["boto3.client"].local_methods
    assert set(local) == added, (set(local), added)


def test_boto_model_services_are_botocore_services():
    """``BOTO_MODEL_SERVICES``: the service names a boto3 client is built with, as botocore's own
    data names them (a typo would silently leave a model client on the network ceiling)."""
    botocore_session = pytest.importorskip("botocore.session")
    from reslint.catalog.timeouts import BOTO_MODEL_SERVICES

    available = set(botocore_session.get_session().get_available_services())
    for service, category in BOTO_MODEL_SERVICES:
        assert service in available, service
        assert category == "model"
    for qualname in ("boto3.Session.client", "botocore.session.Session.create_client"):
        name, position, _ = TIMEOUT_CALLS[qualname].category_by_argument
        assert params_of(qualname).positional[position].name == name == "service_name", qualname


def test_sdk_replayed_writes_are_operations_botocore_retries_after_a_read_timeout():
    """``SDK_REPLAYED_WRITES``: each service and operation exists in botocore's data, its
    invocation-type parameter takes the synchronous value, and botocore's standard retry mode
    retries a read timeout and a 5xx (the replays the rule speaks of)."""
    botocore_session = pytest.importorskip("botocore.session")
    standard = pytest.importorskip("botocore.retries.standard")
    exceptions = pytest.importorskip("botocore.exceptions")
    from reslint.catalog.idempotency import SDK_REPLAYED_WRITES, SYNCHRONOUS_INVOCATION

    session = botocore_session.get_session()
    for service, operations in SDK_REPLAYED_WRITES.items():
        model = session.get_service_model(service)
        names = {model.operation_model(name).name: name for name in model.operation_names}
        for operation in operations:
            wire = "".join(part.capitalize() for part in operation.split("_"))
            assert wire in names, (service, operation)
            shape = model.operation_model(wire).input_shape.members["InvocationType"]
            assert SYNCHRONOUS_INVOCATION in shape.enum, shape.enum
    checker = standard.TransientRetryableChecker()

    class Context:
        def __init__(self, exception=None, status=None):
            self.caught_exception = exception
            self.http_response = type("Response", (), {"status_code": status})() if status else None

        def get_error_code(self):
            return None

    assert checker.is_retryable(Context(exceptions.ReadTimeoutError(endpoint_url="https://lambda.example")))
    assert checker.is_retryable(Context(status=502))


@pytest.mark.parametrize("package", ["openai", "anthropic"])
def test_llm_client_default_timeout(package: str):
    require(package)
    default = _quiet_import(f"{package}._constants").DEFAULT_TIMEOUT
    for qualname, spec in TIMEOUT_CALLS.items():
        if qualname.startswith(package + ".") and spec.default_s != INHERITED:  # the clients, not their requests
            assert default.read == spec.default_s, qualname
            assert sum(_phases(default)) == spec.default_per_attempt_s, qualname
            assert spec.number_phases == 4


@pytest.mark.parametrize("package", ["redis", "redis.asyncio"])
def test_redis_client_given_a_pool_does_not_read_its_own_socket_timeout(package: str):
    """``configured_by=connection_pool``: redis-py builds no pool of its own from the connection
    keywords when one is passed, so the pool's connections (and their timeouts) are used."""
    pytest.importorskip("redis")
    redis = _quiet_import(package)
    pool = redis.ConnectionPool(socket_timeout=3)
    client = redis.Redis(connection_pool=pool, socket_timeout=99)
    assert client.connection_pool is pool
    assert client.connection_pool.connection_kwargs["socket_timeout"] == 3


#: redis-py clients whose own ``socket_timeout`` parameter changed its default in 8.0
REDIS_EXPLICIT = ("redis.Redis", "redis.asyncio.Redis", "redis.asyncio.cluster.RedisCluster")


@pytest.mark.parametrize("qualname", REDIS_EXPLICIT)
def test_redis_socket_timeout_default_is_one_the_catalog_names(qualname: str):
    """The catalog assumes the least safe default (None, before 8.0); 8.0+ uses 5 s."""
    pytest.importorskip("redis")
    default = params_of(qualname).get("socket_timeout").default
    assert default in (None, 5), default
    assert TIMEOUT_CALLS[qualname].default_s is None


def test_redis_cluster_nodes_take_the_cluster_keywords():
    """The sync ``RedisCluster`` hands ``**kwargs`` to each node's ``Redis``: the catalog's
    ``socket_timeout`` reaches the node clients (redis/cluster.py ``NodesManager.create_redis_node``)."""
    pytest.importorskip("redis")
    source = inspect.getsource(_quiet_import("redis.cluster").NodesManager.create_redis_node)
    assert "**kwargs" in source and "Redis(" in source


@pytest.mark.parametrize(("qualname", "spec"), [pytest.param(q, s, id=q) for q, s in TIMEOUT_CALLS.items()
                                                if s.default_s is None])
def test_no_default_timeout_claims(qualname: str, spec: TimeoutSpec):
    """``default_s=None``: an explicit parameter defaults to None or to the socket's global default."""
    if qualname in REDIS_EXPLICIT:
        pytest.skip("the least safe default by design: test_redis_socket_timeout_default_is_one_the_catalog_names")
    params = params_of(qualname)
    real = params.get(spec.params[0].name)
    if real is None or params.from_docstring:
        pytest.skip("the parameter reaches **kwargs or has no signature: no default to read here")
    # Sentinels meaning "the socket's global default" (None unless setdefaulttimeout() is called).
    sentinels = [socket._GLOBAL_DEFAULT_TIMEOUT]  # type: ignore[attr-defined]
    if qualname.startswith("urllib3."):
        sentinels.append(_quiet_import("urllib3").Timeout.DEFAULT_TIMEOUT)
    socket_default = any(real.default is s for s in sentinels)
    if qualname.startswith("imaplib."):
        # IMAP4(timeout=None): _create_socket then calls socket.create_connection(address) with no
        # timeout, so None here also means the socket's global default (Lib/imaplib.py).
        socket_default = socket_default or real.default is None
    if spec.socket_default:
        assert socket_default, f"{qualname}: {real} does not default to the socket's global default"
    else:
        assert real.default is None or socket_default, f"{qualname}: {real} is a finite default"


# -- TIMEOUT_OBJECTS ------------------------------------------------------------------------------
@pytest.mark.parametrize("qualname", sorted(TIMEOUT_OBJECTS))
def test_timeout_object_parameters(qualname: str):
    spec = TIMEOUT_OBJECTS[qualname]
    params = params_of(qualname)
    if qualname == "botocore.Config":
        # Config(*args, **kwargs): options are the keys of OPTION_DEFAULTS.
        options = resolve(qualname)[0].OPTION_DEFAULTS
        assert params.var_keyword
        for keyword in OBJECT_KEYWORDS[qualname]:
            assert keyword in options, f"botocore Config has no option {keyword!r}"
        assert set(OBJECT_KEYWORDS[qualname].values()) == set(spec.phases)
        assert spec.positional == ()
        return
    assert [p.name for p in params.positional[:len(spec.positional)]] == list(spec.positional), str(params)
    for phase in spec.phases + spec.essential:
        assert params.get(phase) is not None, f"{qualname} has no parameter {phase!r}: {params}"
    for name in (spec.all_phases_param, spec.total_param):
        if name is not None:
            assert params.get(name) is not None, f"{qualname} has no parameter {name!r}"
    for phase, default in spec.defaults_s.items():
        real = params.get(phase).default
        if qualname == "urllib3.Timeout" and real is resolve(qualname)[0].DEFAULT_TIMEOUT:
            real = None  # the socket's global default: None unless setdefaulttimeout() is called
        assert real == default, f"{qualname}.{phase} defaults to {real!r}, the catalog says {default!r}"


def test_urllib3_timeout_object_default_leaves_phases_unbounded():
    require("urllib3")
    urllib3 = _quiet_import("urllib3")
    timeout = urllib3.Timeout()
    assert timeout.read_timeout is None
    assert timeout.connect_timeout in (None, urllib3.Timeout.DEFAULT_TIMEOUT)


# -- names.py -----------------------------------------------------------------------------------
def _alias_case(alias: str, target: str):
    if alias == "httpx2.Timeout":
        # deliberately not the same class: read as httpx.Timeout because it takes the same
        # parameters (test_httpx2_timeout_aliases_have_httpx_timeout_parameters)
        return pytest.param(alias, target, id=alias, marks=pytest.mark.skip(reason="a same-parameter fork"))
    if alias in HTTPX2_ALIASES:
        return _case("alias", alias, alias, target, condition=f"_uses_httpx2({HTTPX2_ALIASES[alias]!r})")
    return _case("alias", alias, alias, target)


@pytest.mark.parametrize(("alias", "target"), [_alias_case(a, t) for a, t in names.ALIASES.items()])
def test_aliases_name_the_same_object(alias: str, target: str, record_property):
    require(alias)
    try:
        obj, _, _ = _walk(alias)
    except (AttributeError, ModuleNotFoundError) as exc:
        pytest.fail(f"alias {alias} does not resolve: {exc!r}")
    try:
        canonical, _, _ = _walk(target)
    except (AttributeError, ModuleNotFoundError):
        record_property("canonical_only", target)  # a spelling the library does not export (botocore.Config)
        return
    if inspect.ismodule(obj) and inspect.ismodule(canonical) and obj is not canonical:
        # requests.api -> requests: every public name of the alias module that the target has is the same object
        shared = [n for n in dir(obj) if not n.startswith("_") and hasattr(canonical, n)]
        assert shared, f"{alias} and {target} share no names"
        for n in shared:
            assert _same(getattr(obj, n), getattr(canonical, n)), f"{alias}.{n} is not {target}.{n}"
        return
    assert _same(obj, canonical), f"{alias} is {obj!r}, not {target} ({canonical!r})"


def test_httpx2_timeout_aliases_have_httpx_timeout_parameters():
    """What the openai/anthropic Timeout aliases need: the same parameters as httpx.Timeout."""
    require("httpx")
    expected = [(p.name, p.kind) for p in params_of("httpx.Timeout").parameters]
    checked = 0
    for alias in HTTPX2_ALIASES:
        try:
            _quiet_import(alias.split(".")[0])
        except ImportError:
            continue
        obj, _, _ = _walk(alias)
        assert [(p.name, p.kind) for p in inspect.signature(obj).parameters.values()] == expected, alias
        checked += 1
    if not checked:
        pytest.skip("openai and anthropic are not installed")


@pytest.mark.parametrize(("factory", "product"), [pytest.param(f, t, id=f) for f, t in names.FACTORIES.items()])
def test_factories_and_their_products_resolve(factory: str, product: str):
    assert callable(resolve(factory)[0])
    assert inspect.isclass(resolve(product)[0]), f"{product} is not a class"


# -- other names in the timeout catalog --------------------------------------------------------------
def test_fix_imports_resolve_and_take_the_fix_keywords():
    for qualname, spec in TIMEOUT_CALLS.items():
        for i, dotted in enumerate(spec.fix_imports):
            try:
                _quiet_import(dotted.split(".")[0])
            except ImportError:
                continue
            obj, _, _ = _walk(dotted)
            inner = re.search(r"\{obj%d\}\(([^)]*)\)" % i, spec.fix or "")
            for keyword in re.findall(r"(\w+)=", inner.group(1) if inner else ""):
                accepted = getattr(obj, "OPTION_DEFAULTS", None) or inspect.signature(obj).parameters
                assert keyword in accepted, f"{qualname}: the fix passes {keyword}= to {dotted}"


def _redis_store_receivers():
    from reslint.catalog.idempotency import DEDUP_STORES
    return [pytest.param(store, receiver, id=receiver) for store in DEDUP_STORES if store.name == "redis"
            for receiver in store.receivers]


@pytest.mark.parametrize(("store", "receiver"), _redis_store_receivers())
def test_redis_dedup_store_methods_exist_on_each_client(store, receiver: str):
    """RES404's redis record methods and claim keywords are real methods of every client listed."""
    cls, _, _ = resolve(receiver)
    for method in sorted(store.reads | store.writes | store.claims):
        assert callable(getattr(cls, method, None)), f"{receiver} has no {method}()"
    for method, keyword in store.claim_keywords:
        assert keyword in inspect.signature(getattr(cls, method)).parameters, f"{receiver}.{method}({keyword}=)"


@pytest.mark.parametrize(("store", "receiver"), _redis_store_receivers())
def test_redis_dedup_ttl_arguments_are_where_the_catalog_says(store, receiver: str):
    """RES404's TTL shape reads ``ex=``/``px=``/``time``/``time_ms`` by keyword or position: both
    match every client's signature (positions count from after ``self``)."""
    cls, _, _ = resolve(receiver)
    assert store.ttl_arguments
    for method, keyword, position, _ in store.ttl_arguments:
        names = [n for n in inspect.signature(getattr(cls, method)).parameters if n != "self"]
        assert names.index(keyword) == position, f"{receiver}.{method}: {keyword} is at {names.index(keyword)}"


def _webhook_verifiers():
    from reslint.catalog.idempotency import WEBHOOK_SENDERS
    return [verifier for sender in WEBHOOK_SENDERS for verifier in sender.verifiers]


@pytest.mark.parametrize("verifier", _webhook_verifiers())
def test_webhook_verifiers_exist(verifier: str):
    """The provider SDK functions that mark a module as receiving its webhooks are real."""
    obj, _, _ = resolve(verifier)
    assert callable(obj)


@pytest.mark.parametrize("attribute", NO_OP_ATTRIBUTES, ids=lambda a: f"{a.type_qualname}.{a.attribute}")
def test_no_op_attributes_are_not_attributes(attribute):
    cls, _, _ = resolve(attribute.type_qualname)
    assert not hasattr(cls, attribute.attribute)
    assert attribute.attribute not in vars(cls())
    assert attribute.attribute not in getattr(cls, "__attrs__", ())


@pytest.mark.parametrize(("owner", "methods"), list(TIMEOUT_INJECTION_HOOKS.items()) + list(ONCE_DONE_METHODS.items()))
def test_hook_and_once_done_methods_exist(owner: str, methods: Tuple[str, ...]):
    cls, _, _ = resolve(owner)
    for method in methods:
        assert callable(getattr(cls, method, None)), f"{owner} has no method {method}"


# -- the retry catalog: names -------------------------------------------------------------------------
#: the adapters' spellings by role (reslint/libraries/)
RETRY_TABLES = {
    "RETRY_DECORATORS": libraries.qualnames(Role.DECORATOR), "RETRY_ITERATORS": libraries.qualnames(Role.ITERATOR),
    "RETRY_CALLERS": libraries.qualnames(Role.CALLER), "POLICY_OBJECTS": libraries.qualnames(Role.OBJECT),
}


def _retry_distribution_has(qualname: str) -> Optional[str]:
    """Known differences between distributions that install the same module."""
    if qualname in huey_adapter.DJANGO_DECORATORS:
        return "huey.contrib.djhuey imports Django's configured settings; test_huey_task_retries reads its source"
    if qualname == "retry.retry_call":
        try:
            importlib.metadata.distribution("retry2")
        except importlib.metadata.PackageNotFoundError:
            return "only retry2 exports retry.retry_call; the installed `retry` has retry.api.retry_call (checked)"
    return None


@pytest.mark.parametrize("qualname", [pytest.param(q, id=f"{t}:{q}") for t, table in RETRY_TABLES.items()
                                      for q in table])
def test_retry_mechanisms_resolve(qualname: str):
    require(qualname)
    reason = _retry_distribution_has(qualname)
    if reason:
        pytest.skip(reason)
    obj, _, _ = resolve(qualname)
    assert callable(obj)


# -- tenacity strategies ---------------------------------------------------------------------------
def _unbounded(value) -> bool:
    """tenacity spells "no cap" as _utils.MAX_WAIT (sys.maxsize / 2)."""
    max_wait = getattr(_quiet_import("tenacity._utils"), "MAX_WAIT", sys.maxsize / 2)
    return value is None or value == max_wait or (isinstance(value, (int, float)) and value >= sys.maxsize / 2)


@pytest.mark.parametrize("qualname", list(tenacity_adapter.STOPS))
def test_tenacity_stops(qualname: str):
    _, params_named = tenacity_adapter.STOPS[qualname]
    obj, _, _ = resolve(qualname)
    if not params_named:
        return  # stop_never (an instance), stop_any/stop_all(*stops)
    positional = [p.name for p in params_of(qualname).positional]
    assert positional[:len(params_named)] == list(params_named), f"{qualname}{inspect.signature(obj)}"


@pytest.mark.parametrize("short", list(tenacity_adapter.WAITS))
def test_tenacity_waits(short: str):
    kind, positional, defaults = tenacity_adapter.WAITS[short]
    resolve(f"tenacity.{short}")  # the extractor maps tenacity.wait.X to tenacity.X (wait_full_jitter is only there)
    params = params_of(f"tenacity.{short}")
    assert [p.name for p in params.positional[:len(positional)]] == list(positional), str(params)
    for name, default in defaults.items():
        real = params.get(name).default
        if default is None:
            assert _unbounded(real), f"tenacity.{short}({name}) defaults to {real!r}, the catalog says unbounded"
        else:
            assert real == default, f"tenacity.{short}({name}) defaults to {real!r}, the catalog says {default!r}"


@pytest.mark.parametrize("short", list(tenacity_adapter.PREDICATES))
def test_tenacity_predicates(short: str):
    kind = tenacity_adapter.PREDICATES[short]
    for module in ("tenacity", "tenacity.retry"):
        resolve(f"{module}.{short}")
    # The extractor reads the first argument of these as exception types / a predicate function.
    first = {"types": "exception_types", "function": "predicate", "result": "predicate"}.get(kind)
    if first is not None:
        positional = params_of(f"tenacity.{short}").positional
        assert positional and positional[0].name == first, f"tenacity.{short}: first parameter is not {first}"


# -- parameters the adapters read (reslint/libraries/) ----------------------------------
@dataclass(frozen=True)
class Reads:
    """What an extractor reads from a call of ``entry``: ``keywords`` (received by ``receiver``),
    ``positional`` names in order (``offset``: leading receiver parameters the library fills itself),
    and ``defaults`` it assumes when an argument is absent."""

    receiver: str
    keywords: Tuple[str, ...]
    positional: Tuple[str, ...] = ()
    offset: int = 0
    defaults: Tuple[Tuple[str, object], ...] = ()


# The keyword names, positional orders and defaults come from the adapters themselves, so that what
# is checked is what the readers use (tests/test_adapter_reads.py checks that each reader asks
# exactly the keywords its adapter declares).
def _keywords(entry: str) -> Tuple[str, ...]:
    """The parameters the adapter's reader takes from a call of ``entry`` (``RetryAdapter.keywords``)."""
    return libraries.BY_QUALNAME[entry][0].keywords[entry]


_TENACITY_ITERATOR = tenacity_adapter.ITERATOR_POSITIONAL
_RETRY = retry_package_adapter.POSITIONAL
_RETRY_CALLER = retry_package_adapter.CALLER_POSITIONAL + _RETRY
_RETRY_DEFAULTS = (("tries", retry_package_adapter.FOREVER), *retry_package_adapter.DEFAULTS.items())
_REDO = redo_adapter.POSITIONAL
_GOOGLE = google_adapter.POSITIONAL
_BACKOFF_DEFAULTS = (("max_tries", None), ("max_time", None))

#: entry -> what its reader reads: the keywords (``_keywords``), the ``Args(call, ...)`` positional
#: tuples, and the defaults the reader assumes.
EXTRACTOR_READS: Dict[str, Reads] = {
    "tenacity.retry": Reads("tenacity.Retrying", _keywords("tenacity.retry")),  # retry(**dkw) -> Retrying(**dkw)
    **{q: Reads(q, _keywords(q), _TENACITY_ITERATOR)
       for q in ("tenacity.Retrying", "tenacity.AsyncRetrying", "tenacity.asyncio.AsyncRetrying")},
    "backoff.on_exception": Reads("backoff.on_exception", _keywords("backoff.on_exception"),
                                  backoff_adapter.POSITIONAL, defaults=_BACKOFF_DEFAULTS),
    "backoff.on_predicate": Reads("backoff.on_predicate", _keywords("backoff.on_predicate"),
                                  backoff_adapter.PREDICATE_POSITIONAL, defaults=_BACKOFF_DEFAULTS),
    "stamina.retry": Reads("stamina.retry", _keywords("stamina.retry")),
    "stamina.retry_context": Reads("stamina.retry_context", _keywords("stamina.retry_context")),
    "retrying.retry": Reads("retrying.Retrying", _keywords("retrying.retry")),  # retry(**dkw) -> Retrying(**dkw)
    "retry.retry": Reads("retry.api.retry", _keywords("retry.retry"), _RETRY, defaults=_RETRY_DEFAULTS),
    "retry.api.retry": Reads("retry.api.retry", _keywords("retry.api.retry"), _RETRY, defaults=_RETRY_DEFAULTS),
    "retry.retry_call": Reads("retry.api.retry_call", _keywords("retry.retry_call"), _RETRY_CALLER,
                              defaults=_RETRY_DEFAULTS),
    "retry.api.retry_call": Reads("retry.api.retry_call", _keywords("retry.api.retry_call"), _RETRY_CALLER,
                                  defaults=_RETRY_DEFAULTS),
    "opnieuw.retry": Reads("opnieuw.retry", _keywords("opnieuw.retry")),
    "opnieuw.retry_async": Reads("opnieuw.retry_async", _keywords("opnieuw.retry_async")),
    # retriable(*a, **kw) calls retry(func, *a, **kw): its positionals start after `action`.
    "redo.retriable": Reads("redo.retry", _keywords("redo.retriable"), _REDO, offset=1),
    "redo.retriable_async": Reads("redo.retriable_async", _keywords("redo.retriable_async"),
                                  redo_adapter.ASYNC_POSITIONAL),
    "redo.retrier": Reads("redo.retrier", _keywords("redo.retrier"), _REDO,
                          defaults=(("sleeptime", redo_adapter.RETRIER_SLEEPTIME),)),
    "redo.retry": Reads("redo.retry", _keywords("redo.retry"), redo_adapter.CALLER_POSITIONAL + _REDO),
    "google.api_core.retry.Retry": Reads("google.api_core.retry.Retry", _keywords("google.api_core.retry.Retry"),
                                         _GOOGLE),
    "google.api_core.retry.AsyncRetry": Reads("google.api_core.retry.AsyncRetry",
                                              _keywords("google.api_core.retry.AsyncRetry"), _GOOGLE),
    # unsafe_replay reads the methods retried from the same call
    "urllib3.Retry": Reads("urllib3.Retry", _keywords("urllib3.Retry") + urllib3_adapter.REPLAY_KEYWORDS,
                           urllib3_adapter.POSITIONAL),
    "requests.HTTPAdapter": Reads("requests.HTTPAdapter", _keywords("requests.HTTPAdapter"),
                                  requests_adapter.POSITIONAL, defaults=(("max_retries", 0),)),
    "httpx.HTTPTransport": Reads("httpx.HTTPTransport", _keywords("httpx.HTTPTransport"),
                                 defaults=(("retries", 0),)),
    "httpx.AsyncHTTPTransport": Reads("httpx.AsyncHTTPTransport", _keywords("httpx.AsyncHTTPTransport"),
                                      defaults=(("retries", 0),)),
    "langchain_core.runnables.Runnable.with_retry": Reads(
        "langchain_core.runnables.Runnable.with_retry", _keywords("langchain_core.runnables.Runnable.with_retry"),
        defaults=(*langchain_catalog.WITH_RETRY_DEFAULTS.items(), ("retry_if_exception_type", (Exception,)),
                  ("exponential_jitter_params", None))),
    "langchain_core.runnables.RunnableRetry": Reads(
        "langchain_core.runnables.RunnableRetry", _keywords("langchain_core.runnables.RunnableRetry"),
        defaults=(("max_attempt_number", langchain_catalog.WITH_RETRY_DEFAULTS["stop_after_attempt"]),
                  ("wait_exponential_jitter", langchain_catalog.WITH_RETRY_DEFAULTS["wait_exponential_jitter"]),
                  ("retry_exception_types", (Exception,)), ("exponential_jitter_params", None))),
}
#: huey's decorators on each of its Huey classes, and RQ's callers and job decorator, which name
#: ``retry`` as a parameter
EXTRACTOR_READS.update({
    **{q: Reads(q, _keywords(q), defaults=tuple(huey_adapter.DEFAULTS.items()))
       for q in huey_adapter.SPELLINGS if q not in huey_adapter.DJANGO_DECORATORS},
    **{q: Reads(q, _keywords(q), defaults=((rq_adapter.RETRY_OPTION, None),))
       for q in ("rq.Queue.enqueue_call", rq_adapter.JOB_DECORATOR)},
})
#: Entries checked by tests of their own: celery's task options (they become task class attributes,
#: test_celery_task_options); dramatiq's actor options (test_dramatiq_retries_middleware), RQ's
#: methods that take ``retry`` through ``**kwargs`` (test_rq_retry_and_enqueue), django-rq's
#: ``enqueue`` and ``job``, which hand it to RQ the same way (test_django_rq_hands_retry_to_rq), and
#: huey's Django decorators, whose module needs configured Django settings to import
#: (test_huey_task_retries).
CELERY_ENTRIES = ("celery.shared_task", "celery.Celery.task")
OWN_TESTS = ("dramatiq.actor", *dramatiq_adapter.DramatiqMiddleware.spellings, *rq_adapter.FORWARDING, *django_rq_adapter.ADAPTER.spellings,
             *huey_adapter.DJANGO_DECORATORS)
#: backoff wait generators the extractor reads: name -> {parameter: default it assumes}.
BACKOFF_GENERATORS = backoff_adapter.WAIT_GENERATORS


def test_every_retry_entry_has_extractor_reads():
    entries = {q for table in RETRY_TABLES.values() for q in table}
    assert entries == set(EXTRACTOR_READS) | set(CELERY_ENTRIES) | set(OWN_TESTS), "a new retry entry needs a row here"


def _reads_params(entry: str) -> Params:
    require(entry)
    reason = _retry_distribution_has(entry)
    if reason:
        pytest.skip(reason)
    return params_of(EXTRACTOR_READS[entry].receiver)


@pytest.mark.parametrize("entry", [_case("keywords", e, e) for e in EXTRACTOR_READS])
def test_extractor_keywords_exist(entry: str, record_property):
    params = _reads_params(entry)
    reads = EXTRACTOR_READS[entry]
    for keyword in reads.keywords:
        assert params.get(keyword) is not None, f"{entry}: {reads.receiver} has no parameter {keyword!r}: {params}"
        assert params.get(keyword).kind is not P.POSITIONAL_ONLY, f"{entry}: {keyword!r} is positional-only"
    for name, default in reads.defaults:
        real = params.get(name).default
        assert real == default, f"{entry}: {name} defaults to {real!r}, the extractor assumes {default!r}"


@pytest.mark.parametrize("entry", [_case("positional", e, e) for e, r in EXTRACTOR_READS.items() if r.positional])
def test_extractor_positional_order(entry: str):
    params = _reads_params(entry)
    reads = EXTRACTOR_READS[entry]
    real = [p.name for p in params.positional][reads.offset:reads.offset + len(reads.positional)]
    assert real == list(reads.positional), f"{entry}: positional parameters are {real}, the extractor reads {reads.positional}"


#: where each adapter's forwarded names (taken by the callee's ``**kwargs``) are checked: backoff's by
#: test_backoff_wait_generators, google's by test_google_retry_reads_deadline_as_timeout, celery's by
#: test_celery_task_options, dramatiq's by test_dramatiq_retries_middleware, RQ's by test_rq_retry_and_enqueue,
#: django-rq's by test_django_rq_hands_retry_to_rq
FORWARDED_CHECKS = {
    "backoff": backoff_adapter.GENERATOR_KEYWORDS,
    "google": (google_adapter.OLD_TIMEOUT,),
    "celery": celery_adapter.TASK_ATTRIBUTES + celery_adapter.AUTORETRY_OPTIONS + (celery_adapter.BASE_OPTION,),
    "dramatiq": dramatiq_adapter.OPTIONS,
    "rq": (rq_adapter.RETRY_OPTION,),
    "django_rq": (rq_adapter.RETRY_OPTION,),
}


@pytest.mark.parametrize("entry", [q for a in libraries.ADAPTERS for q in a.forwarded])
def test_forwarded_names_reach_kwargs_and_are_checked(entry: str):
    adapter = libraries.BY_QUALNAME[entry][0]
    assert adapter.forwarded[entry] == FORWARDED_CHECKS.get(adapter.name), \
        f"{entry}: a forwarded name needs a check of where the library takes it"
    require(entry)
    params = params_of(EXTRACTOR_READS[entry].receiver if entry in EXTRACTOR_READS else entry)
    assert params.var_keyword, f"{entry} takes no **kwargs: its forwarded names {adapter.forwarded[entry]} are errors"
    assert not any(params.get(name) for name in adapter.forwarded[entry]), \
        f"{entry}: a forwarded name became a parameter: declare it in the adapter's keywords"


def test_google_retry_reads_deadline_as_timeout():
    """The google extractor reads ``deadline=`` (the old name of ``timeout``, taken by **kwargs)."""
    require("google.api_core.retry")
    Retry = _quiet_import("google.api_core.retry").Retry
    assert Retry(**{google_adapter.OLD_TIMEOUT: 7}).timeout == 7


@pytest.mark.parametrize("qualname", list(BACKOFF_GENERATORS))
def test_backoff_wait_generators(qualname: str):
    params = params_of(qualname)
    assert params_of("backoff.on_exception").var_keyword, "backoff passes generator arguments by **wait_gen_kwargs"
    for name, default in BACKOFF_GENERATORS[qualname].items():
        assert params.get(name) is not None, f"{qualname} has no parameter {name!r}: {params}"
        assert params.get(name).default == default, f"{qualname}({name}) default"
    # The extractor reads an absent jitter= as full jitter.
    assert params_of("backoff.on_exception").get("jitter").default is resolve("backoff.full_jitter")[0]


# -- celery ---------------------------------------------------------------------------------------
def _autoretry_option_defaults() -> Dict[str, object]:
    """``{option: default}`` from ``options.get('x', getattr(task, 'x', default))`` in celery/app/autoretry.py."""
    source = inspect.getsource(_quiet_import("celery.app.autoretry"))
    found: Dict[str, object] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "options" and len(node.args) == 2:
            key, fallback = node.args
            if isinstance(key, ast.Constant) and isinstance(fallback, ast.Call) and \
                    getattr(fallback.func, "id", None) == "getattr" and len(fallback.args) == 3:
                try:
                    found[key.value] = ast.literal_eval(fallback.args[2])
                except ValueError:
                    found[key.value] = ...
    return found


def test_celery_task_options():
    """autoretry_for, max_retries, retry_backoff, retry_backoff_max, retry_jitter and
    default_retry_delay are task options: max_retries and default_retry_delay are attributes
    of celery.app.task.Task; the autoretry ones are read from the options (or the task) in
    celery/app/autoretry.py, with their own defaults."""
    require("celery")
    for entry in CELERY_ENTRIES:
        assert params_of(entry).var_keyword, f"{entry} takes task options by **kwargs"
    Task = _quiet_import("celery.app.task").Task
    for name in celery_adapter.TASK_ATTRIBUTES:
        assert hasattr(Task, name), f"celery Task has no attribute {name}"
        assert getattr(Task, name) == celery_adapter.DEFAULTS[name]
    options = _autoretry_option_defaults()
    for name in celery_adapter.AUTORETRY_OPTIONS:
        assert name in options, f"celery/app/autoretry.py does not read {name!r}: {sorted(options)}"
        assert not hasattr(Task, name), f"{name} became a Task attribute: check its default there"
    assert options["retry_backoff"] is False  # the extractor's default: no backoff
    assert options["retry_backoff_max"] == celery_adapter.DEFAULTS["retry_backoff_max"]
    assert options["retry_jitter"] is celery_adapter.DEFAULTS["retry_jitter"]

    # The options land on the task: a task built with them carries them and gets the autoretry wrapper.
    app = _quiet_import("celery").Celery("reality", set_as_current=False)

    @app.task(autoretry_for=(ValueError,), max_retries=5, retry_backoff=2, retry_backoff_max=30,
              retry_jitter=False, default_retry_delay=7)
    def task():
        return None

    assert (task.autoretry_for, task.max_retries, task.retry_backoff, task.retry_backoff_max, task.retry_jitter,
            task.default_retry_delay) == ((ValueError,), 5, 2, 30, False, 7)
    assert hasattr(task, "_orig_run"), "autoretry_for did not install celery's autoretry wrapper"



def _runs_of(task_options: dict, retry_kwargs: dict = None, manual: bool = False) -> List[int]:
    """The ``request.retries`` of each run of an eager celery task that always fails with a
    ConnectionError, built with ``task_options`` (retrying by ``autoretry_for`` or, ``manual``, by
    ``raise self.retry(exc=exc, **retry_kwargs)``)."""
    app = _quiet_import("celery").Celery("reality", set_as_current=False)
    runs: List[int] = []

    def body(task):
        runs.append(task.request.retries)
        try:
            raise ConnectionError("down")
        except ConnectionError as exc:
            if manual:
                raise task.retry(exc=exc, **(retry_kwargs or {}))
            raise

    if manual:
        def bound(self):
            body(self)

        app.task(bind=True, **task_options)(bound).apply()
    else:
        holder = {}

        def auto():
            body(holder["task"])

        # a base task class brings its own autoretry options
        retrying = {} if "base" in task_options else {"autoretry_for": (ConnectionError,),
                                                       "retry_kwargs": retry_kwargs or {}}
        holder["task"] = app.task(**retrying, **task_options)(auto)
        holder["task"].apply()
    return runs


def test_celery_retry_method_and_retry_kwargs():
    """``Task.retry`` takes the parameters the task-retry reader maps positions to; its
    ``max_retries=None`` is the task's own, a number overrides it (also through ``retry_kwargs``);
    no countdown is ``default_retry_delay``; ``bind=True`` passes the task first."""
    require("celery")
    Task = _quiet_import("celery.app.task").Task
    names = tuple(inspect.signature(Task.retry).parameters)[1:]
    assert names[:len(celery_adapter.RETRY_PARAMETERS)] == celery_adapter.RETRY_PARAMETERS
    assert celery_adapter.RETRY_METHOD == Task.retry.__name__
    source = inspect.getsource(Task.retry)
    assert "max_retries = self.max_retries if max_retries is None else max_retries" in source
    assert "countdown = self.default_retry_delay" in source
    zero = {"countdown": 0}
    assert _runs_of({"max_retries": 2}, zero, manual=True) == [0, 1, 2]
    assert _runs_of({"max_retries": 2}, {**zero, "max_retries": None}, manual=True) == [0, 1, 2]
    assert _runs_of({"max_retries": 2}, {**zero, "max_retries": 4}, manual=True) == [0, 1, 2, 3, 4]
    assert _runs_of({}, {**zero, "max_retries": 4}) == [0, 1, 2, 3, 4]
    assert _runs_of({"max_retries": 1}, {**zero, "max_retries": None}) == [0, 1]
    from_fun = inspect.signature(_quiet_import("celery.app.base").Celery._task_from_fun).parameters
    assert celery_adapter.BIND_OPTION in from_fun and celery_adapter.BASE_OPTION in from_fun
    # a base task class's attributes are the options' defaults; the decorator's win
    celery = _quiet_import("celery")
    app = celery.Celery("reality", set_as_current=False)
    for name in celery_adapter.TASK_CLASSES:
        module, _, attr = name.rpartition(".")
        if module == "celery.Celery":  # an app's task base: a subclass with the same defaults
            assert issubclass(getattr(app, attr), celery.Task) and getattr(app, attr) is not celery.Task
            assert all(getattr(getattr(app, attr), n) == celery_adapter.DEFAULTS[n]
                       for n in celery_adapter.TASK_ATTRIBUTES)
        else:
            assert getattr(_quiet_import(module), attr) is celery.Task

    class Base(celery.Task):
        autoretry_for = (ConnectionError,)
        max_retries = 1
        retry_kwargs = {"countdown": 0}

    assert _runs_of({"base": Base}) == [0, 1]  # autoretry_for and max_retries from the class
    assert _runs_of({"base": Base, "max_retries": 2}) == [0, 1, 2]


# registering finalizes the app, which registers the shared tasks other tests' apps left, some twice
@pytest.mark.filterwarnings("ignore:Task name")
def test_celery_task_classes():
    """A registered task class runs its ``run`` method as the task, bound to it: its class
    attributes are the autoretry options (``register_task`` installs the wrapper), and
    ``self.retry`` in ``run`` retries it, also on a subclass of ``app.Task``."""
    require("celery")
    celery = _quiet_import("celery")
    assert celery_adapter.RUN_METHOD == celery.Task.run.__name__
    assert "add_autoretry_behaviour(task" in inspect.getsource(celery.Celery.register_task)
    app = celery.Celery("reality", set_as_current=False)
    runs: List[int] = []

    class Auto(celery.Task):
        name = "reality.auto"
        autoretry_for = (ConnectionError,)
        max_retries = 2
        retry_kwargs = {"countdown": 0}

        def run(self):
            runs.append(self.request.retries)
            raise ConnectionError("down")

    class Manual(app.Task):
        name = "reality.manual"
        max_retries = 1

        def run(self):
            runs.append(self.request.retries)
            try:
                raise ConnectionError("down")
            except ConnectionError as exc:
                raise self.retry(exc=exc, countdown=0)

    app.register_task(Auto()).apply()
    assert runs == [0, 1, 2]
    runs.clear()
    app.register_task(Manual()).apply()
    assert runs == [0, 1]

# -- retry defaults --------------------------------------------------------------------------------
def _signature_defaults(qualname: str) -> Dict[str, object]:
    return {p.name: p.default for p in params_of(qualname).parameters if p.default is not P.empty}


@pytest.mark.parametrize("qualname", ["stamina.retry", "stamina.retry_context"])
def test_stamina_defaults(qualname: str):
    real = _signature_defaults(qualname)
    for name, value in stamina_adapter.DEFAULTS.items():
        assert real[name] == value, f"{qualname}({name}) defaults to {real[name]!r}, the catalog says {value!r}"


def test_urllib3_retry_defaults():
    real = _signature_defaults("urllib3.Retry")
    for name, value in urllib3_adapter.DEFAULTS.items():
        assert real[name] == value, f"urllib3.Retry({name}) defaults to {real[name]!r}, the catalog says {value!r}"
    Retry = resolve("urllib3.Retry")[0]
    assert Retry.DEFAULT_BACKOFF_MAX == urllib3_adapter.DEFAULTS["backoff_max"] == 120
    assert retries.RATE_LIMIT_STATUSES <= Retry.RETRY_AFTER_STATUS_CODES


def test_opnieuw_redo_google_defaults():
    checked = 0
    for qualnames, defaults in (
        (("opnieuw.retry", "opnieuw.retry_async"), opnieuw_adapter.DEFAULTS),
        (("redo.retry",), redo_adapter.DEFAULTS),
        (("redo.retry_async",), {"attempts": redo_adapter.ASYNC_DEFAULTS["attempts"]}),
        (("redo.calculate_sleep_time",), {k: v for k, v in redo_adapter.ASYNC_DEFAULTS.items() if k != "attempts"}),
        (("google.api_core.retry.Retry", "google.api_core.retry.AsyncRetry"), google_adapter.DEFAULTS),
    ):
        try:
            _quiet_import(IMPORT_FOR.get(qualnames[0].split(".")[0], qualnames[0].split(".")[0]))
        except ImportError:
            continue
        for qualname in qualnames:
            real = _signature_defaults(qualname)
            for name, value in defaults.items():
                assert real[name] == value, f"{qualname}({name}) defaults to {real[name]!r}, the catalog says {value!r}"
                checked += 1
    if not checked:
        pytest.skip("opnieuw, redo and google-api-core are not installed")


# -- other names in the retry catalog --------------------------------------------------------------
@pytest.mark.parametrize(("qualname", "spec"), [pytest.param(q, s, id=q) for q, s in retries.DEADLINES.items()])
def test_deadline_seconds_argument(qualname: str, spec: Tuple[int, str]):
    if qualname == "asyncio.timeout" and sys.version_info < (3, 11):
        pytest.skip("asyncio.timeout is new in Python 3.11")
    position, keyword = spec
    assert check_param(params_of(qualname), keyword, position).startswith("positional")


def _names(*tables) -> List[str]:
    out: List[str] = []
    for table in tables:
        for item in table.values() if isinstance(table, dict) else table:
            out.extend(item if isinstance(item, tuple) else (item,))
    return sorted(set(out))


_EXCEPTION_NAMES = _names(retries.CATCH_ALL, retries.BROAD_HTTP_ERRORS, retries.STATUS_ERRORS,
                          retries.NON_TRANSIENT_ERRORS, retries.RATE_LIMIT_ERRORS, retries.TRANSIENT_ERRORS,
                          retries.LOCAL_ERRORS, retries.READ_TIMEOUT_ERRORS, retries.CONNECTION_ERRORS)


@pytest.mark.parametrize("qualname", _EXCEPTION_NAMES)
def test_exception_names_are_exceptions(qualname: str):
    obj, _, _ = resolve(qualname)
    assert inspect.isclass(obj) and issubclass(obj, BaseException), f"{qualname} is not an exception class"


@pytest.mark.parametrize("qualname", _names(retries.SLEEPS, retries.RANDOM_DRAWS, retries.CLOCKS, retries.TIMED_WAITS))
def test_sleep_random_and_clock_names_resolve(qualname: str):
    obj, _, _ = resolve(qualname)
    assert callable(obj)


@pytest.mark.parametrize("qualname", sorted(retries.LOCAL_PRIMITIVES))
def test_local_primitives_have_the_wait_methods_the_catalog_names(qualname: str):
    make, _, _ = resolve(qualname)
    made = make()  # threading.Lock is a factory function; each builds its primitive with no argument
    assert any(callable(getattr(made, method, None)) for method in retries.LOCAL_WAIT_METHODS), qualname


@pytest.mark.parametrize("owner, methods", [
    ("redis.Redis", {"ping"}),  # redis/commands/core.py
    ("pymongo.MongoClient", {"server_info"}),  # pymongo/synchronous/mongo_client.py
])
def test_readiness_probe_methods_are_methods_of_the_installed_clients(owner: str, methods):
    """``PROBE_METHODS`` names methods that ask a server whether it is up: the installed clients have them."""
    cls, _, _ = resolve(owner)
    assert methods <= retries.PROBE_METHODS
    assert all(callable(getattr(cls, method, None)) for method in methods), owner


@pytest.mark.parametrize("package, resource, path", [
    ("openai", "resources/chat/completions/completions.py", "/chat/completions"),
    ("openai", "resources/completions.py", "/v1/completions"),
    ("openai", "resources/responses/responses.py", "/v1/responses"),
    ("anthropic", "resources/messages/messages.py", "/v1/messages"),
    ("openai", "resources/embeddings.py", "/v1/embeddings"),
])
def test_model_endpoint_paths_are_the_paths_the_installed_sdks_post_to(package, resource, path):
    """``MODEL_ENDPOINT_PATHS``: the SDKs' generating resources send their requests to these paths."""
    from reslint.catalog.timeouts import MODEL_ENDPOINT_PATHS

    module = importlib.import_module(package)
    text = (Path(module.__file__).parent / resource).read_text(encoding="utf-8")
    # the OpenAI SDK's paths are relative to its base URL, which ends with /v1
    relative = path[len("/v1"):] if package == "openai" and path.startswith("/v1/") else path
    assert f'"{relative}"' in text
    assert path in MODEL_ENDPOINT_PATHS


def test_requests_oauthlib_sessions_are_requests_sessions_whose_token_exchanges_take_a_timeout():
    """``OAuth1Session``/``OAuth2Session`` subclass ``requests.Session``; ``fetch_token`` and
    ``refresh_token`` default ``timeout`` to ``None`` and pass it to ``self.request``; OAuth 1's
    exchanges pass their keywords to ``self.post``. Every method the catalog lists exists."""
    require("requests_oauthlib")
    import requests

    from reslint.catalog.timeouts import TIMEOUT_CALLS

    oauthlib = _quiet_import("requests_oauthlib")
    for cls in (oauthlib.OAuth1Session, oauthlib.OAuth2Session):
        assert issubclass(cls, requests.Session)
    listed = [q for q in TIMEOUT_CALLS if q.startswith("requests_oauthlib.")]
    assert len(listed) == 20
    for qualname in listed:
        _, cls, method = qualname.split(".")
        assert callable(getattr(getattr(oauthlib, cls), method)), qualname
    for method in ("fetch_token", "refresh_token"):
        function = getattr(oauthlib.OAuth2Session, method)
        assert inspect.signature(function).parameters["timeout"].default is None
        assert "timeout=timeout" in inspect.getsource(function)
    for method in ("fetch_request_token", "fetch_access_token"):
        function = getattr(oauthlib.OAuth1Session, method)
        assert inspect.signature(function).parameters["request_kwargs"].kind is P.VAR_KEYWORD
        assert "**request_kwargs" in inspect.getsource(function)


def test_the_jira_client_has_no_timeout_unless_given_one():
    """``JIRA(timeout=None)`` builds its session with that timeout, which every request of it uses."""
    require("jira")
    jira = _quiet_import("jira")
    assert inspect.signature(jira.JIRA).parameters["timeout"].default is None
    assert "ResilientSession(timeout=timeout)" in inspect.getsource(jira.JIRA.__init__)
    session = _quiet_import("jira.resilientsession").ResilientSession
    assert "timeout" in inspect.signature(session).parameters


# -- programs a subprocess runs (reslint/catalog/programs.py), checked against the installed ones ------
def _program_help(name: str) -> Optional[str]:
    """What the installed program says about its options (``None`` when it is not installed):
    its help, or for git the configuration variables it knows (``git help --config``)."""
    import os
    import shutil
    import subprocess

    if shutil.which(name) is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CURL_", "WGET"))}  # defaults, not overrides
    argv = {"curl": ["curl", "--help", "all"], "git": ["git", "help", "--config"],
            "ssh": None, "scp": None}.get(name, [name, "--help"])
    if argv is None:  # ssh and scp print no option list; `ssh -G` prints the options it read, offline
        argv = ["ssh", "-G", "-o", "ConnectTimeout=5", "-o", "ServerAliveInterval=7", "example.invalid"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    return done.stdout + done.stderr


@pytest.mark.parametrize("name", sorted(__import__("reslint.catalog.programs", fromlist=["PROGRAMS"]).PROGRAMS))
def test_program_timeout_options_exist(name: str):
    from reslint.catalog.programs import PROGRAMS

    spec = PROGRAMS[name]
    if name == "pip":  # the option object itself: its help hides the `--default-timeout` alias
        option = _quiet_import("pip._internal.cli.cmdoptions").timeout()
        assert sorted(option._long_opts) == sorted(o for (o,) in spec.timeout_options)
        assert option.default == spec.default_s == 15
        return
    text = _program_help(name)
    if text is None:
        pytest.skip(f"{name} is not installed")
    for alternative in spec.timeout_options:
        for option in alternative:
            flag, _, key = option.partition(" ")
            if name in ("ssh", "scp"):  # `ssh -G` echoes each option it accepted, lowercased
                assert re.search(rf"^{key.lower()} \d", text, re.M), (name, option)
            elif name == "git":
                assert re.search(rf"^{re.escape(key)}$", text, re.M | re.I), (name, option)
            else:
                assert re.search(rf"(^|[\s,]){re.escape(flag)}([\s=,]|$)", text, re.M), (name, option)


# -- gRPC: what RES105 and RES101 read of a servicer and a stub --------------------------------------------------
@pytest.mark.parametrize("context_type", timeouts.GRPC_CONTEXT_TYPES)
def test_grpc_servicer_context_reads_the_time_remaining(context_type: str):
    require(context_type)
    obj, _, _ = resolve(context_type)
    method = getattr(obj, timeouts.GRPC_TIME_REMAINING)
    assert list(inspect.signature(method).parameters) == ["self"]
    if context_type == "grpc.ServicerContext":  # None when the client set no deadline: no min() on it
        assert "None if no deadline was specified" in " ".join((inspect.getdoc(method) or "").split())


def test_grpc_stub_calls_take_the_timeout_the_catalog_names():
    require("grpc")
    import grpc

    param = timeouts.GRPC_STUB_SPEC.params[0]
    for callable_type in (grpc.UnaryUnaryMultiCallable, grpc.UnaryStreamMultiCallable,
                          grpc.StreamUnaryMultiCallable, grpc.StreamStreamMultiCallable):
        signature = inspect.signature(callable_type.__call__)
        names = [n for n in signature.parameters if n != "self"]
        assert names[param.position] == param.name and signature.parameters[param.name].default is None


def test_grpc_generated_servicers_are_named_as_the_catalog_says():
    """grpc_tools' generator (grpc_tools/_protoc_compiler) writes ``class <Service>Servicer(object)`` with
    ``def <Rpc>(self, request, context)`` into ``<file>_pb2_grpc.py``; grpcio's own generated health
    service is such a module."""
    require("grpc")
    try:
        from grpc_health.v1 import health_pb2_grpc  # grpcio-health-checking, when installed
    except ImportError:
        pytest.skip("grpcio-health-checking is not installed: no generated module to read")
    assert health_pb2_grpc.__name__.endswith(timeouts.GRPC_STUBS_MODULE_SUFFIX)
    servicer = health_pb2_grpc.HealthServicer
    assert servicer.__name__.endswith(timeouts.GRPC_SERVICER_SUFFIX)
    params = list(inspect.signature(servicer.Check).parameters)
    assert params[timeouts.GRPC_CONTEXT_POSITION] in timeouts.GRPC_CONTEXT_NAMES


# -- circuit breakers (RES501): each adapter's names against the installed library ---------------------------------
BREAKER_PARAMS = [pytest.param(b, id=b.name) for b in libraries.BREAKERS]


@pytest.mark.parametrize("breaker", BREAKER_PARAMS)
def test_breaker_open_errors_are_exceptions_the_library_raises(breaker):
    require(breaker.trigger_modules[0])
    objects = {id(resolve(error)[0]) for error in breaker.open_errors}
    assert len(objects) == 1, f"{breaker.name}: its open-circuit error spellings name different objects"
    error, _, _ = resolve(breaker.open_error)
    assert inspect.isclass(error) and issubclass(error, Exception)
    module = _quiet_import(breaker.trigger_modules[0])
    files = [module.__file__] + [m.__file__ for name, m in sorted(sys.modules.items())
                                 if name.startswith(module.__name__ + ".") and getattr(m, "__file__", None)]
    raised = f"raise {error.__name__}("
    assert any(raised in open(path, encoding="utf-8").read() or f"= {error.__name__}(" in
               open(path, encoding="utf-8").read() for path in files), f"{breaker.name} never raises {error.__name__}"


@pytest.mark.parametrize("breaker", BREAKER_PARAMS)
def test_breaker_types_methods_and_decorators_exist(breaker):
    require(breaker.trigger_modules[0])
    for qualname in breaker.breaker_types + breaker.decorator_classes + breaker.decorator_factories:
        cls, _, _ = resolve(qualname)
        assert inspect.isclass(cls), qualname
        assert callable(getattr(cls, "__call__", None)), f"{qualname} instances are not decorators"
        for method in breaker.call_methods if qualname in breaker.breaker_types else ():
            assert list(inspect.signature(getattr(cls, method)).parameters)[1] == "func", f"{qualname}.{method}"
    owners = breaker.breaker_types + breaker.decorator_factories
    for method in breaker.context_methods:
        assert any(hasattr(resolve(owner)[0], method) for owner in owners), f"{breaker.name}: no {method}()"
    for qualname in breaker.decorator_functions:
        assert callable(resolve(qualname)[0]), qualname


@pytest.mark.parametrize("breaker", [b for b in BREAKER_PARAMS if b.values[0].fallback_keyword])
def test_breaker_fallbacks_are_what_the_library_takes(breaker):
    require(breaker.trigger_modules[0])
    for qualname in breaker.decorator_functions + breaker.decorator_classes:
        assert breaker.fallback_keyword in inspect.signature(resolve(qualname)[0]).parameters, qualname
    for qualname in breaker.decorator_classes:
        assert hasattr(resolve(qualname)[0], breaker.fallback_attribute), qualname


# -- model and agent frameworks (reslint/catalog/langchain.py, mcp.py, llama_index.py, haystack.py) ------------
def test_langchain_chat_models_wait_forever_and_retry_twice_by_default():
    """A chat model built without ``timeout=`` hands its SDK client ``timeout=None`` (no timeout, not
    the SDK's 600 s), and leaves the SDK's 2 retries: the catalog's ``default_s=None`` and 3 attempts."""
    from reslint.catalog.clients import RETRYING_CLIENTS

    openai_chat = pytest.importorskip("langchain_openai").ChatOpenAI(api_key="sk-test")
    assert openai_chat.root_client.timeout is None and openai_chat.root_client.max_retries == 2
    assert TIMEOUT_CALLS["langchain_openai.ChatOpenAI"].default_s is None
    assert RETRYING_CLIENTS["langchain_openai.ChatOpenAI"].default_attempts == 2 + 1
    anthropic_chat = pytest.importorskip("langchain_anthropic").ChatAnthropic(model="claude-test", api_key="sk-test")
    assert anthropic_chat._client.timeout is None and anthropic_chat._client.max_retries == 2
    assert TIMEOUT_CALLS["langchain_anthropic.ChatAnthropic"].default_s is None
    assert RETRYING_CLIENTS["langchain_anthropic.ChatAnthropic"].default_attempts == 2 + 1


def test_langchain_chat_model_timeout_and_retries_reach_the_sdk_client():
    """Both spellings the catalog reads (the alias and the field name) set the client's timeout, and
    ``max_retries=0`` (the clean counterpart under an outer retry) turns the SDK's retries off."""
    langchain_openai = pytest.importorskip("langchain_openai")
    for param in (p.name for p in TIMEOUT_CALLS["langchain_openai.ChatOpenAI"].params):
        chat = langchain_openai.ChatOpenAI(api_key="sk-test", max_retries=0, **{param: 7})
        assert chat.root_client.timeout == 7 and chat.root_client.max_retries == 0, param


def test_langchain_with_retry_builds_the_tenacity_policy_the_adapter_reads():
    """``with_retry()``: 3 attempts, every Exception, ``wait_exponential_jitter`` with tenacity's
    defaults (the catalog's ``JITTER_PARAMS``), re-raising the last error."""
    runnables = pytest.importorskip("langchain_core.runnables")
    tenacity = pytest.importorskip("tenacity")
    retry = runnables.RunnableLambda(lambda x: x).with_retry()
    kwargs = retry._kwargs_retrying
    assert kwargs["stop"].max_attempt_number == langchain_catalog.WITH_RETRY_DEFAULTS["stop_after_attempt"]
    assert kwargs["retry"].exception_types == (Exception,)
    wait = kwargs["wait"]
    assert isinstance(wait, tenacity.wait_exponential_jitter)
    params = langchain_catalog.JITTER_PARAMS
    initial = getattr(wait, "multiplier", None) or wait.initial  # tenacity 9.1 renamed it `multiplier`
    assert (initial, wait.exp_base, wait.jitter) == (params["initial"], params["exp_base"], params["jitter"])
    assert params["max"] is None and wait.max >= 10 ** 9  # tenacity's MAX_WAIT: no cap
    assert "wait" not in runnables.RunnableLambda(lambda x: x).with_retry(wait_exponential_jitter=False)._kwargs_retrying


def test_langchain_run_methods_exist_on_runnables_and_chat_models():
    from reslint.catalog.clients import REQUEST_METHODS

    runnables = pytest.importorskip("langchain_core.runnables")
    chat = pytest.importorskip("langchain_core.language_models").BaseChatModel
    for method in langchain_catalog.CURRENT_RUN_METHODS:
        assert callable(getattr(runnables.Runnable, method, None) or getattr(chat, method, None)), method
    assert REQUEST_METHODS["langchain_openai.ChatOpenAI"] == langchain_catalog.RUN_METHODS


def test_langchain_structured_output_raises_on_a_reply_that_does_not_validate():
    """``with_structured_output`` parses the reply with ``PydanticToolsParser``: a reply whose
    arguments do not validate raises, and the same parser accepts a valid one (a re-ask)."""
    chat = pytest.importorskip("langchain_core.language_models").BaseChatModel
    for method in langchain_catalog.STRUCTURED_OUTPUT_METHODS:
        assert callable(getattr(chat, method, None)), method
    pydantic = pytest.importorskip("pydantic")
    from langchain_core.messages import AIMessage
    from langchain_core.output_parsers.openai_tools import PydanticToolsParser
    from langchain_core.outputs import ChatGeneration

    class Answer(pydantic.BaseModel):
        score: int

    parser = PydanticToolsParser(tools=[Answer], first_tool_only=True)

    def reply(args):
        return [ChatGeneration(message=AIMessage(content="", tool_calls=[{"name": "Answer", "args": args, "id": "1"}]))]

    with pytest.raises(Exception) as raised:
        parser.parse_result(reply({"score": "high"}))
    assert isinstance(raised.value, (pydantic.ValidationError, ValueError)), type(raised.value)
    assert parser.parse_result(reply({"score": 3})) == Answer(score=3)


def test_mcp_client_session_has_no_read_timeout_by_default():
    from reslint.catalog import mcp as mcp_catalog

    session = pytest.importorskip("mcp").ClientSession
    assert params_of("mcp.ClientSession").get("read_timeout_seconds").default is None
    call_tool = params_of("mcp.ClientSession.call_tool")
    assert [p.name for p in call_tool.positional[:3]] == ["name", "arguments", "read_timeout_seconds"]
    assert call_tool.positional[mcp_catalog.TOOL_CALLS["mcp.ClientSession.call_tool"]].name == "name"
    assert session.__module__ == "mcp.client.session"


@pytest.mark.parametrize("name", ["OpenAI", "OpenAIResponses"])
def test_llama_index_openai_defaults(name):
    """The SDK client each LLM builds gets its ``timeout`` (60 s) and ``max_retries`` (3, so 4 attempts)."""
    from reslint.catalog.clients import RETRYING_CLIENTS

    llm = getattr(pytest.importorskip("llama_index.llms.openai"), name)(api_key="sk-test")
    qualname = f"llama_index.llms.openai.{name}"
    kwargs = llm._get_credential_kwargs()
    assert llm.timeout == kwargs["timeout"] == TIMEOUT_CALLS[qualname].default_s == 60.0
    assert kwargs["max_retries"] + 1 == RETRYING_CLIENTS[qualname].default_attempts == 4
    assert names.canonical(f"{type(llm).__module__}.{name}") == qualname


@pytest.mark.parametrize("qualname", [
    "haystack.components.generators.chat.OpenAIChatGenerator",
    "haystack.components.generators.chat.AzureOpenAIChatGenerator",
    "haystack.components.generators.chat.OpenAIResponsesChatGenerator",
    "haystack.components.embedders.OpenAITextEmbedder",
    "haystack.components.embedders.OpenAIDocumentEmbedder",
    "haystack.components.generators.chat.AzureOpenAIResponsesChatGenerator",
    "haystack.components.embedders.AzureOpenAITextEmbedder",
    "haystack.components.embedders.AzureOpenAIDocumentEmbedder",
])
def test_haystack_openai_component_defaults(monkeypatch, qualname):
    """With neither ``timeout`` nor ``max_retries`` (nor their environment variables), each
    component's SDK client waits 30 s and retries 5 times (6 attempts)."""
    from reslint.catalog.clients import RETRYING_CLIENTS

    pytest.importorskip("haystack")
    secret = pytest.importorskip("haystack.utils").Secret.from_token("sk-test")
    monkeypatch.delenv("OPENAI_TIMEOUT", raising=False)
    monkeypatch.delenv("OPENAI_MAX_RETRIES", raising=False)
    component, _, _ = resolve(qualname)
    extra = {"azure_endpoint": "https://example.invalid"} if "Azure" in qualname else {}
    kwargs = component(api_key=secret, **extra)._client_kwargs()
    assert kwargs["timeout"] == TIMEOUT_CALLS[qualname].default_s == 30.0
    assert kwargs["max_retries"] + 1 == RETRYING_CLIENTS[qualname].default_attempts == 6
    assert names.canonical(f"{component.__module__}.{component.__name__}") == qualname


def test_mcp_transports_bound_reads_except_stdio():
    """``streams_from``: a session over ``stdio_client`` has nothing else bounding a read; the HTTP
    transports' own read timeouts (300 s) are within the model-call ceiling."""
    from reslint.catalog import mcp as mcp_catalog
    from pathlib import Path

    from reslint.config import Settings

    spec = TIMEOUT_CALLS["mcp.ClientSession"]
    name, position, transports = spec.streams_from
    assert params_of("mcp.ClientSession").positional[position].name == name
    assert transports == mcp_catalog.UNBOUNDED_TRANSPORTS
    for transport in transports:
        resolve(transport)
    assert "timeout" not in str(params_of("mcp.stdio_client"))
    ceiling = Settings(root=Path(".")).max_timeout_for("model")
    assert params_of("mcp.client.sse.sse_client").get("sse_read_timeout").default == 300.0 <= ceiling
    assert _quiet_import("mcp.shared._httpx_utils").MCP_DEFAULT_SSE_READ_TIMEOUT == 300.0 <= ceiling


# -- litellm and the model SDKs' retries (reslint/catalog/litellm.py, clients.py) -----------------
def test_litellm_default_request_timeout_is_the_catalogs(monkeypatch):
    """``litellm.request_timeout`` (what completion waits when given no timeout) defaults to
    ``DEFAULT_REQUEST_TIMEOUT_SECONDS``; embedding's own default is 600 s."""
    from reslint.catalog import litellm as facts

    require("litellm")
    constants = _quiet_import("litellm.constants")
    assert constants.DEFAULT_REQUEST_TIMEOUT_SECONDS == facts.REQUEST_TIMEOUT_S
    assert constants.COMPLETION_HTTP_FALLBACK_SECONDS == facts.COMPLETION_TIMEOUT_S
    resolver = _quiet_import("litellm.litellm_core_utils.completion_timeout").CompletionTimeout
    assert resolver._fallback_when_no_explicit_timeout(None) == facts.COMPLETION_TIMEOUT_S
    source = inspect.getsource(resolver.resolve)
    for alias in ("request_timeout", "stream_timeout"):
        assert f'kwargs.get("{alias}")' in source, alias
    if os.environ.get("REQUEST_TIMEOUT") is None:
        assert _quiet_import("litellm").request_timeout == facts.REQUEST_TIMEOUT_S
    assert params_of("litellm.embedding").get("timeout").default == facts.EMBEDDING_TIMEOUT_S
    assert params_of("litellm.completion").get("timeout").default is None  # None: litellm.request_timeout
    for setting in (facts.REQUEST_TIMEOUT_SETTING, facts.NUM_RETRIES_SETTING):
        module, attribute = setting.rsplit(".", 1)
        assert hasattr(_quiet_import(module), attribute), setting
    assert _quiet_import("litellm").num_retries is None  # no litellm-level retry unless a project sets it


def test_litellm_retrying_calls_read_their_retry_parameters():
    """Each retries parameter is accepted (by name or through ``**kwargs``) and read in the source of
    the function that handles it: the ``client`` wrapper re-runs completion with
    ``completion_with_retries`` (tenacity ``stop_after_attempt(num_retries)``)."""
    from reslint.catalog.clients import RETRYING_CALLS

    require("litellm")
    main = _quiet_import("litellm.main")
    source = inspect.getsource(main)
    for qualname, spec in RETRYING_CALLS.items():
        params = params_of(qualname)
        for name in spec.params:
            assert params.get(name) is not None or params.var_keyword, (qualname, name)
            assert f'"{name}"' in source, (qualname, name)
    retries = inspect.getsource(main.completion_with_retries)
    assert "stop_after_attempt(num_retries)" in retries and 'kwargs["max_retries"] = 0' in retries


def test_litellm_router_defaults_to_two_retries():
    from reslint.catalog import litellm as facts
    from reslint.catalog.clients import RETRYING_CLIENTS

    require("litellm")
    litellm = _quiet_import("litellm")
    client = RETRYING_CLIENTS[facts.ROUTER]
    params = params_of(facts.ROUTER)
    for name in ("num_retries", "timeout", "fallbacks", "allowed_fails", "cooldown_time"):
        assert params.get(name) is not None, name
    items, position, key = facts.ROUTER_DEPLOYMENTS  # deployments set their own timeouts in litellm_params
    assert params.positional[position].name == items
    resolver = inspect.getsource(_quiet_import("litellm.litellm_core_utils.completion_timeout").CompletionTimeout)
    assert key in resolver
    if litellm.num_retries is None:
        router = litellm.Router(model_list=[])
        assert router.num_retries + 1 == client.default_attempts == facts.ROUTER_DEFAULT_RETRIES + 1
        assert router.timeout == facts.REQUEST_TIMEOUT_S
        assert litellm.Router(model_list=[], num_retries=0).num_retries == 0


@pytest.mark.parametrize("package", ["openai", "anthropic"])
def test_sdk_clients_retry_twice_by_default(package: str):
    from reslint.catalog.clients import RETRYING_CLIENTS

    require(package)
    default = _quiet_import(f"{package}._constants").DEFAULT_MAX_RETRIES
    rows = [c for q, c in RETRYING_CLIENTS.items() if q.startswith(package + ".")]
    assert rows
    for client in rows:
        assert client.default_attempts == default + 1, client.qualname
        assert params_of(client.qualname).get(client.param) is not None, client.qualname
        assert params_of(f"{client.qualname}.with_options").get("max_retries") is not None


def test_exception_bases_of_litellm_errors_are_real():
    from reslint.catalog.clients import EXCEPTION_BASES

    require("litellm")
    for name, bases in EXCEPTION_BASES.items():
        if not name.startswith("litellm."):
            continue
        cls = resolve(name)[0]
        for base in bases:
            assert issubclass(cls, resolve(base)[0]), (name, base)


@pytest.mark.parametrize("name", ["tenacity", "backoff", "stamina"])
def test_retries_generators_is_what_the_library_does(name: str):
    """``RetryAdapter.retries_generators``: decorate a generator function that fails on its first
    step and count the runs: tenacity and backoff wrap only the call (one run), stamina retries."""
    require(name)
    module = _quiet_import(name)
    adapter = next(a for a in libraries.ADAPTERS if a.name == name)
    runs = []

    def body():
        runs.append(1)
        raise ConnectionError("down")
        yield  # a generator function

    decorate = {
        "tenacity": lambda f: module.retry(stop=module.stop_after_attempt(3), reraise=True)(f),
        "backoff": lambda f: module.on_exception(module.constant, ConnectionError, max_tries=3, interval=0)(f),
        "stamina": lambda f: module.retry(on=ConnectionError, attempts=3, wait_initial=0, wait_max=0,
                                          wait_jitter=0)(f),
    }[name]
    if name == "stamina":
        module.set_testing(True, attempts=3)
    try:
        with pytest.raises(ConnectionError):
            list(decorate(body)())
    finally:
        if name == "stamina":
            module.set_testing(False)
    assert (len(runs) > 1) is adapter.retries_generators, runs


# -- dramatiq, huey, RQ ------------------------------------------------------------------------------
def test_dramatiq_retries_middleware():
    """Every broker installs ``Retries``, which reads the actor options the adapter reads, retries
    20 times by default, and waits ``min_backoff * 2 ** retries`` ms times ``uniform(1, 2)``, capped."""
    require("dramatiq")
    retries_module = _quiet_import("dramatiq.middleware.retries")
    middleware = _quiet_import("dramatiq.middleware")
    assert retries_module.Retries in middleware.default_middleware
    Retries = retries_module.Retries
    assert set(dramatiq_adapter.OPTIONS) <= Retries().actor_options
    assert inspect.signature(Retries).parameters["max_retries"].default == dramatiq_adapter.DEFAULTS["max_retries"]
    assert retries_module.DEFAULT_MIN_BACKOFF == dramatiq_adapter.DEFAULTS["min_backoff_ms"]
    assert retries_module.DEFAULT_MAX_BACKOFF == dramatiq_adapter.DEFAULTS["max_backoff_ms"]
    compute = _quiet_import("dramatiq.common").compute_backoff
    assert inspect.signature(compute).parameters["max_exponent"].default == dramatiq_adapter.MAX_EXPONENT
    factor = 1000
    for retries in range(6):
        base = factor * 2 ** retries
        drawn = {compute(retries, factor=factor, max_backoff=10 ** 9)[1] for _ in range(200)}
        assert base <= min(drawn) and max(drawn) <= base * dramatiq_adapter.JITTER_FACTOR, (retries, drawn)
        assert len(drawn) > 1, "compute_backoff no longer draws at random"
    assert max(compute(20, factor=factor, max_backoff=5000)[1] for _ in range(50)) <= 5000
    # the actor decorator passes the options to the middleware through **options
    assert inspect.signature(_quiet_import("dramatiq").actor).parameters["options"].kind is P.VAR_KEYWORD


def test_dramatiq_middleware_and_brokers():
    """The ``Retries`` middleware a project builds takes the actor options of the same names, and
    a broker built with no ``middleware=`` installs dramatiq's default list, which holds ``Retries``."""
    require("dramatiq")
    middleware = _quiet_import("dramatiq.middleware")
    for spelled in dramatiq_adapter.DramatiqMiddleware.spellings:
        if spelled in dramatiq_adapter.BROKERS:
            continue
        obj, _, _ = resolve(spelled)
        assert obj is middleware.Retries, spelled
    assert {"max_retries", "min_backoff", "max_backoff", "retry_when"} <= set(
        inspect.signature(middleware.Retries).parameters)
    assert middleware.Retries in middleware.default_middleware
    for broker in dramatiq_adapter.BROKERS:
        module, _, name = broker.rpartition(".")
        cls = getattr(_quiet_import(module), name)
        assert inspect.signature(cls).parameters["middleware"].default is None, broker
    broker_module = _quiet_import("dramatiq.broker")
    # Broker.__init__: ``middleware=None`` installs one of each class of default_middleware
    made = broker_module.Broker(middleware=None)
    assert any(isinstance(m, middleware.Retries) for m in made.middleware)


def test_django_s_smtp_backend_waits_forever_unless_email_timeout_is_set():
    """``EMAIL_TIMEOUT`` defaults to ``None``, the default backend is the SMTP one, and that backend
    passes smtplib a timeout only when the setting (or its own argument) gives one."""
    require("django")
    from reslint.catalog import django_mail

    defaults = _quiet_import("django.conf.global_settings")
    assert getattr(defaults, django_mail.TIMEOUT_SETTING) is None
    assert getattr(defaults, django_mail.BACKEND_SETTING) == django_mail.SMTP_BACKEND
    assert hasattr(defaults, django_mail.HOST_SETTING)
    module, _, name = django_mail.SMTP_BACKEND.rpartition(".")
    backend = getattr(_quiet_import(module), name)
    source = inspect.getsource(backend)
    assert "settings.EMAIL_TIMEOUT if timeout is None else timeout" in source
    assert "if self.timeout is not None:" in source and 'connection_params["timeout"] = self.timeout' in source


def test_django_dramatiq_builds_the_middleware_its_settings_list_by_path():
    """django_dramatiq builds each dotted path of ``DRAMATIQ_BROKER["MIDDLEWARE"]`` with no options
    of its own (``Retries()``, the defaults), takes a middleware object as it is, and lists
    ``Retries`` in its default settings; the paths the adapter reads are dramatiq's ``Retries``."""
    require("django_dramatiq")
    require("dramatiq")
    utils = _quiet_import("django_dramatiq.utils")
    apps = _quiet_import("django_dramatiq.apps")
    retries = _quiet_import("dramatiq.middleware").Retries
    assert set(dramatiq_adapter.DjangoDramatiqMiddleware.import_strings) <= set(dramatiq_adapter.DramatiqMiddleware.spellings)
    for path in dramatiq_adapter.DjangoDramatiqMiddleware.import_strings:
        built = utils.load_middleware(path, **apps.DjangoDramatiqConfig.get_middleware_kwargs(path))
        assert isinstance(built, retries), path
        assert built.max_retries == dramatiq_adapter.DEFAULTS["max_retries"]
        assert (built.min_backoff, built.max_backoff) == (dramatiq_adapter.DEFAULTS["min_backoff_ms"],
                                                          dramatiq_adapter.DEFAULTS["max_backoff_ms"])
        assert built.retry_when is None
    given = retries(max_retries=1)
    assert utils.load_middleware(given) is given  # the advice: list an object in the path's place
    assert set(apps.DEFAULT_BROKER_SETTINGS["MIDDLEWARE"]) & set(dramatiq_adapter.DjangoDramatiqMiddleware.import_strings)
    # the broker is built with the listed middleware only, never dramatiq's default list
    assert "broker_class(middleware=middleware" in inspect.getsource(apps.DjangoDramatiqConfig.__init__)


def test_huey_task_retries():
    """A huey task with ``retries=2`` runs three times on any exception; ``retry_backoff``
    multiplies the delay after each retry; the Django decorators pass their arguments on."""
    require("huey")
    huey = _quiet_import("huey")
    for name in huey_adapter.HUEY_CLASSES:
        cls = getattr(huey, name.split(".", 1)[1])
        assert issubclass(cls, huey.Huey), name
    import logging

    logging.getLogger("huey").disabled = True
    try:
        instance = huey.MemoryHuey(immediate=True)
        runs = []

        @instance.task(retries=2)
        def failing():
            runs.append(1)
            raise ValueError("not transient, retried all the same")

        failing()
        assert len(runs) == 3
    finally:
        logging.getLogger("huey").disabled = False
    source = inspect.getsource(huey.Huey._requeue_task)
    assert "task.retry_delay *= task.retry_backoff" in source
    djhuey = Path(_quiet_import("huey").__file__).parent / "contrib" / "djhuey" / "__init__.py"
    text = djhuey.read_text(encoding="utf-8")
    assert "task = HUEY.task" in text and "periodic_task = HUEY.periodic_task" in text
    assert "ret = task(*args, **kwargs)" in text and "ret = periodic_task(*args, **kwargs)" in text


def test_rq_retry_and_enqueue():
    """``Retry(max, interval=0)``: the k-th retry waits the k-th interval, the last one after
    that; ``enqueue``, ``enqueue_at`` and ``enqueue_in`` take ``retry`` from their keywords and
    the job function at the adapter's position, under the adapter's keyword."""
    require("rq")
    rq = _quiet_import("rq")
    names = tuple(inspect.signature(rq.Retry).parameters)
    assert names[:len(rq_adapter.RETRY_POSITIONAL)] == rq_adapter.RETRY_POSITIONAL
    assert inspect.signature(rq.Retry).parameters["interval"].default == rq_adapter.RETRY_DEFAULTS["interval"]
    for name in rq_adapter.RETRY_CLASSES:
        module, _, attr = name.rpartition(".")
        assert getattr(_quiet_import(module), attr) is rq.Retry
    assert [rq.Retry.get_interval(count, [10, 30, 60]) for count in range(5)] == [10, 30, 60, 60, 60]
    assert rq.Retry.get_interval(3, 7) == 7
    assert "kwargs.pop('retry', None)" in inspect.getsource(rq.Queue.parse_args)
    assert set(rq_adapter.CALLABLE_KEYWORDS) == set(rq_adapter.CALLABLE_POSITIONS)
    for qualname, position in rq_adapter.CALLABLE_POSITIONS.items():
        params = [p for p in inspect.signature(resolve(qualname)[0]).parameters.values()
                  if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)][1:]  # after self
        assert params[position].name == rq_adapter.CALLABLE_KEYWORDS[qualname], (qualname, [p.name for p in params])
        assert params[position].kind is P.POSITIONAL_OR_KEYWORD, qualname  # it can be passed by keyword
    # what each enqueue method hands the job: the arguments after its leading parameters, less the
    # keywords parse_args pops for RQ itself; enqueue_call takes them as args= and kwargs=
    popped = set(re.findall(r"kwargs\.pop\('(\w+)'", inspect.getsource(rq.Queue.parse_args)))
    assert popped | {"args", "kwargs"} == set(rq_adapter.OWN_KEYWORDS)
    assert set(rq_adapter.CALLABLE_ARGUMENTS) == set(rq_adapter.CALLABLE_POSITIONS)
    for qualname, (spelled, passes) in rq_adapter.CALLABLE_ARGUMENTS.items():
        params = list(inspect.signature(resolve(qualname)[0]).parameters.values())[1:]  # after self
        leading = tuple(n for n in spelled if n not in rq_adapter.OWN_KEYWORDS or n in ("args", "kwargs"))
        if passes:
            leading = spelled[:spelled.index("*args") + 1]
        names = tuple("*" + p.name if p.kind is P.VAR_POSITIONAL else p.name for p in params[:len(leading)])
        assert names == leading, (qualname, names)
        assert (P.VAR_KEYWORD in {p.kind for p in params}) is ("**kwargs" in passes), qualname


def test_django_rq_hands_retry_to_rq():
    """django-rq's ``enqueue(func, *args, **kwargs)`` is RQ's ``Queue.enqueue`` on the default queue,
    ``get_queue(name)`` builds an ``rq.Queue``, and ``job(queue, ..., retry=...)`` builds RQ's job
    decorator with that retry (a bare ``@job`` none): RQ's semantics, read by the RQ adapter."""
    require("django_rq")
    django_rq = _quiet_import("django_rq")
    rq = _quiet_import("rq")
    decorators = _quiet_import("rq.decorators")
    for name in (*django_rq_adapter.ENQUEUE, *django_rq_adapter.JOB_DECORATORS, *django_rq_adapter.GET_QUEUE):
        module, _, attr = name.rpartition(".")
        assert getattr(_quiet_import(module), attr) is getattr(django_rq, attr.rpartition(".")[2]), name
    # enqueue: the job function first, under the adapter's keyword, the rest handed on as RQ's enqueue takes it
    params = list(inspect.signature(django_rq.enqueue).parameters.values())
    for qualname in django_rq_adapter.ENQUEUE:
        position = django_rq_adapter.ADAPTER.callable_positions[qualname]
        assert params[position].name == django_rq_adapter.ADAPTER.callable_keywords[qualname]
        spelled, passes = django_rq_adapter.ADAPTER.callable_arguments[qualname]
        assert spelled[1:] == rq_adapter.CALLABLE_ARGUMENTS["rq.Queue.enqueue"][0][1:]  # RQ's split of the rest
        assert passes == rq_adapter.CALLABLE_ARGUMENTS["rq.Queue.enqueue"][1]
    assert [(p.name, p.kind) for p in params] == [("func", P.POSITIONAL_OR_KEYWORD), ("args", P.VAR_POSITIONAL),
                                                  ("kwargs", P.VAR_KEYWORD)]
    assert "return get_queue().enqueue(func, *args, **kwargs)" in inspect.getsource(django_rq.enqueue)
    # get_queue builds an rq.Queue (the catalog's factory); building one sends nothing to Redis
    for name in django_rq_adapter.GET_QUEUE:
        assert names.FACTORIES[name] == "rq.Queue"
    assert isinstance(django_rq.get_queue("default"), rq.Queue)
    # job: RQ's decorator, with the retry it is given; none when bare or given none
    retry = rq.Retry(max=3, interval=[10, 30, 60])
    decorator = django_rq.job("default", retry=retry)
    assert isinstance(decorator, decorators.job) and decorator.retry is retry
    assert django_rq.job("default").retry is None
    assert "if callable(func_or_queue):" in inspect.getsource(django_rq.job)
    assert inspect.signature(decorators.job).parameters[rq_adapter.RETRY_OPTION].default is None


def test_arq_retry():
    """``Retry(defer=None)`` re-runs a job while ``job_try`` (1 on the first run) is within the
    worker's ``max_tries`` (5) or the function's; the try counter is the context's ``job_try``.
    arq pins redis below 6, so the test extra does not install it (the redis catalog is checked
    against redis 8); ``pip install --no-deps arq`` checks these facts."""
    require("arq")
    worker = _quiet_import("arq.worker")
    arq_module = _quiet_import("arq")
    for name in arq_adapter.RETRY_CLASSES:
        module, _, attr = name.rpartition(".")
        assert getattr(_quiet_import(module), attr) is worker.Retry
    assert tuple(inspect.signature(worker.Retry).parameters) == arq_adapter.RETRY_PARAMETERS
    assert inspect.signature(worker.Retry).parameters["defer"].default is None
    assert inspect.signature(worker.Worker).parameters["max_tries"].default == arq_adapter.DEFAULT_MAX_TRIES
    assert "max_tries" in inspect.signature(arq_module.func).parameters
    source = inspect.getsource(worker.Worker.run_job)
    assert f"'{arq_adapter.TRY_KEY}': job_try" in source
    assert "if job_try > max_tries:" in source
    assert "isinstance(e, Retry)" in inspect.getsource(worker.Worker)
    # a job's tries: its func(..., max_tries=) unless None, else the worker's, read from the settings
    # class's own attributes; retry_jobs=False turns Retry off
    for name in arq_adapter.FUNC:
        module, _, attr = name.rpartition(".")
        assert getattr(_quiet_import(module), attr) is worker.func
    func_params = inspect.signature(worker.func).parameters
    assert tuple(func_params)[:len(arq_adapter.FUNC_POSITIONAL)] == arq_adapter.FUNC_POSITIONAL
    assert func_params["max_tries"].default is None
    assert "max_tries = self.max_tries if function.max_tries is None else function.max_tries" in source
    assert "if self.retry_jobs and isinstance(e, Retry):" in source
    worker_params = inspect.signature(worker.Worker).parameters
    assert set(arq_adapter.SETTINGS) <= set(worker_params)
    assert worker_params["retry_jobs"].default is True

    async def job(ctx):
        return None

    class Settings:
        functions = [job]
        max_tries = 100

    class Derived(Settings):
        pass

    assert worker.get_kwargs(Settings) == {"functions": [job], "max_tries": 100}
    assert worker.get_kwargs(Derived) == {}  # the class's own attributes, not its bases'
    assert worker.func(job, max_tries=3).max_tries == 3


@pytest.mark.parametrize(("qualname", "http_module"), [
    ("openai.OpenAI", "httpx"), ("openai.AsyncOpenAI", "httpx"),
    ("anthropic.Anthropic", "httpx2"), ("anthropic.AsyncAnthropic", "httpx2"),
])
def test_model_clients_take_the_timeout_of_the_http_client_they_are_given(qualname: str, http_module: str):
    """``timeout_from=http_client``: with no ``timeout=``, the SDK uses the given HTTP client's timeout
    when it is not the HTTP library's default, and its own 600 s default otherwise."""
    spec = TIMEOUT_CALLS[qualname]
    assert spec.timeout_from is not None
    assert check_param(params_of(qualname), *spec.timeout_from) != "**kwargs"
    package, name = qualname.rsplit(".", 1)
    sdk = pytest.importorskip(package)
    http = pytest.importorskip(http_module)
    client_class = http.AsyncClient if name.startswith("Async") else http.Client
    given = getattr(sdk, name)(api_key="k", http_client=client_class(timeout=30))
    assert given.timeout.read == 30 and given.timeout.connect == 30
    plain = getattr(sdk, name)(api_key="k", http_client=client_class())
    assert plain.timeout.read == spec.default_s
    # httpx's default spelled out cannot be told from no timeout (the catalog's 5 s for httpx clients)
    spelled = getattr(sdk, name)(api_key="k", http_client=client_class(timeout=TIMEOUT_CALLS["httpx.Client"].default_s))
    assert spelled.timeout.read == spec.default_s
    # the SDK's own HTTP client carries the SDK's default unless given one (MODEL_SDK_HTTP_CLIENTS)
    own = f"{package}.Default{'Async' if name.startswith('Async') else ''}HttpxClient"
    assert own in timeouts.MODEL_SDK_HTTP_CLIENTS
    sdk_client = getattr(sdk, own.rsplit(".", 1)[1])
    assert getattr(sdk, name)(api_key="k", http_client=sdk_client()).timeout.read == spec.default_s
    assert getattr(sdk, name)(api_key="k", http_client=sdk_client(timeout=30)).timeout.read == 30


@pytest.mark.parametrize("qualname", sorted(__import__("reslint.catalog.timeouts", fromlist=["MODEL_PROBES"]).MODEL_PROBES))
def test_model_probe_requests_are_model_requests_that_take_the_store_keyword_where_it_exists(qualname):
    """A readiness probe's model requests (catalog ``MODEL_PROBES``) are catalogued model requests and
    resolve on the installed SDK; where one takes ``store`` (OpenAI's chat completions), that is the
    keyword the catalog reads as "keep this completion"."""
    from reslint.catalog.timeouts import MODEL_STORE_KEYWORD

    assert qualname in TIMEOUT_CALLS
    obj, _, _ = resolve(qualname)
    params = inspect.signature(obj).parameters
    if qualname.endswith("chat.completions.create") and qualname.startswith("openai."):
        assert MODEL_STORE_KEYWORD in params


def test_stripe_create_methods_and_their_async_twins_exist():
    """Every method the catalog counts as a Stripe write (RES402) is a method of Stripe's resources
    or of the client's services, the ``_async`` twins included."""
    stripe = pytest.importorskip("stripe")
    from reslint.catalog.idempotency import STRIPE_CREATE_METHODS

    owners = [stripe.Payout, stripe.PaymentIntent, stripe.Invoice, stripe.Charge,
              stripe.StripeClient("sk_test_reslint").v1.payment_intents]
    for method in sorted(STRIPE_CREATE_METHODS):
        assert any(callable(getattr(owner, method, None)) for owner in owners), method


def test_reenqueue_methods_are_the_task_queues_own():
    """The methods read as a task queueing itself again exist on celery's tasks and dramatiq's actors."""
    from reslint.catalog.retries import REENQUEUE_METHODS

    owners = []
    for module, attribute in (("celery", "Task"), ("dramatiq", "Actor")):
        owners.append(getattr(pytest.importorskip(module), attribute))
    for method in sorted(REENQUEUE_METHODS):
        assert any(callable(getattr(owner, method, None)) for owner in owners), method


# -- libraries whose requests hand back every status ------------------------------------------------
#: (library, the module holding its status error's only raise, that error, the method raising it)
STATUS_RAISES = {"requests": ("models.py", "HTTPError", "raise_for_status"),
                 "httpx": ("_models.py", "HTTPStatusError", "raise_for_status")}


@pytest.mark.parametrize("library", sorted(retries.STATUS_RETURNING_LIBRARIES))
def test_status_returning_libraries_raise_for_status_only_when_asked(library):
    """RES204 reads a catch-all around nothing but such a library's request as a catch of its
    transport errors: the library must raise its status error in one place, ``raise_for_status``
    (urllib3 has no status error: a response of any status comes back)."""
    package = Path(importlib.import_module(library).__file__).parent
    if library not in STATUS_RAISES:
        assert not any("StatusError" in name for name in dir(importlib.import_module(f"{library}.exceptions")))
        return
    module, error, method = STATUS_RAISES[library]
    raises = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(func):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                        isinstance(node.exc.func, ast.Name) and node.exc.func.id == error:
                    raises.append((path.name, func.name))
    assert raises == [(module, method)]


def test_local_resource_errors_are_host_errors_and_no_network_ones():
    """RES201 reads a retry of these alone as a wait for a neighbour on the same host: each is an
    OSError of a file or a process, never a connection error or a timeout, or SQLite's error."""
    import sqlite3
    for name in sorted(retries.LOCAL_RESOURCE_ERRORS):
        if "." in name:
            module, _, attr = name.rpartition(".")
            assert module == "sqlite3" and issubclass(getattr(sqlite3, attr), sqlite3.Error)
            continue
        error = getattr(builtins, name)
        assert issubclass(error, OSError) and not issubclass(error, (ConnectionError, TimeoutError, socket.gaierror))


def test_the_builtins_the_catalog_names_exist():
    """The builtins RES201 and RES204 read by name (``map``, ``open``, ``str``...) are this Python's."""
    import io
    for qualname in sorted(retries.CALLING_BUILTINS | retries.TEXT_BUILTINS | retries.FILE_OPENERS):
        module, _, name = qualname.partition(".")
        assert callable(getattr({"builtins": builtins, "io": io}[module], name)), qualname
    assert retries.TEXT_BUILTINS == {"builtins.str", "builtins.repr"}
