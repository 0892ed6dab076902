"""Timeout-bearing calls and timeout objects (the data behind RES101-RES104).

Each entry names its source. Library defaults were read in the versions listed
in ``research/retry-semantics.md`` section 0 and ``research/peer-timeout-rules.md``;
where a default changed between versions (redis-py), the least safe one is
assumed, as DESIGN section 2 decides.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Set, Tuple

from reslint.catalog import haystack, langchain, litellm, llama_index, mcp
from reslint.catalog.model import DATABASE, INHERITED, MODEL, CommandArgs, NoOpAttribute, TimeoutObjectSpec, TimeoutParam, TimeoutSpec

T = TimeoutParam("timeout")
HTTP_VERBS = ("get", "options", "head", "post", "put", "patch", "delete")

REQUESTS_SRC = "requests/api.py, requests/sessions.py (2.34.2): no default timeout; psf/requests#3070"
HTTPX_SRC = "httpx/_config.py DEFAULT_TIMEOUT_CONFIG = Timeout(5.0) (0.28.1)"
AIOHTTP_SRC = "aiohttp/client.py DEFAULT_TIMEOUT = ClientTimeout(total=5*60, sock_connect=30) (3.14.5)"
SOCKET_DEFAULT = "it falls back to the global socket timeout, which is None (wait forever) by default"
SOCKET_SRC = "python/cpython#52841; https://docs.python.org/3/library/socket.html#socket.getdefaulttimeout; "


def _requests() -> List[TimeoutSpec]:
    note = "requests waits forever when no timeout is given"
    specs = [
        TimeoutSpec(f"requests.{verb}", (T,), None, REQUESTS_SRC, note, number_phases=2) for verb in HTTP_VERBS
    ]
    specs.append(TimeoutSpec("requests.request", (T,), None, REQUESTS_SRC, note, number_phases=2))
    specs += [
        TimeoutSpec(f"requests.Session.{verb}", (T,), None, REQUESTS_SRC, "a requests Session carries no default timeout",
                    number_phases=2)
        for verb in HTTP_VERBS
    ]
    specs.append(
        TimeoutSpec(
            "requests.Session.request",
            (TimeoutParam("timeout", 8),),
            None,
            REQUESTS_SRC + "; Session.request(method, url, params, data, headers, cookies, files, auth, timeout, ...)",
            "a requests Session carries no default timeout",
            number_phases=2,
        )
    )
    # Session.send(request, **kwargs) hands its keywords to the adapter's send(request, stream,
    # timeout, ...): a prepared request sent with no timeout= waits forever like the others
    specs.append(TimeoutSpec("requests.Session.send", (T,), None,
                             REQUESTS_SRC + "; Session.send(request, **kwargs) -> HTTPAdapter.send(..., timeout=None)",
                             "a requests Session carries no default timeout", number_phases=2))
    return specs


def _oauth_sessions() -> List[TimeoutSpec]:
    """requests-oauthlib's sessions are requests Sessions (``OAuth1Session``, ``OAuth2Session``
    subclass ``requests.Session``): their requests carry no default timeout, and neither do the token
    exchanges they add (``fetch_token``/``refresh_token`` take ``timeout=None`` and pass it to
    ``self.request``; OAuth 1's ``fetch_request_token``/``fetch_access_token`` pass their
    ``**request_kwargs`` to ``self.post``), which a login view sends inside the request."""
    source = ("requests_oauthlib/oauth2_session.py OAuth2Session(requests.Session).fetch_token(..., timeout=None), "
              "refresh_token(..., timeout=None); oauth1_session.py OAuth1Session(requests.Session)"
              ".fetch_request_token(url, realm=None, **request_kwargs) (requests-oauthlib 2.0.0)")
    note = "a requests-oauthlib session is a requests Session, which carries no default timeout"
    # where ``timeout`` is a positional parameter: fetch_token(token_url, code, authorization_response,
    # body, auth, username, password, method, force_querystring, timeout, ...), refresh_token(token_url,
    # refresh_token, body, auth, timeout, ...), and OAuth1Session's inherited Session.request (index 8);
    # OAuth2Session.request takes it through **kwargs
    positions = {("OAuth2Session", "fetch_token"): 9, ("OAuth2Session", "refresh_token"): 4,
                 ("OAuth1Session", "request"): 8}
    specs = []
    for cls, exchanges in (("OAuth2Session", ("fetch_token", "refresh_token")),
                           ("OAuth1Session", ("fetch_request_token", "fetch_access_token"))):
        for method in HTTP_VERBS + ("request",) + exchanges:
            param = TimeoutParam("timeout", positions[(cls, method)]) if (cls, method) in positions else T
            specs.append(TimeoutSpec(f"requests_oauthlib.{cls}.{method}", (param,), None, source, note,
                                     number_phases=2))
    return specs


def _httpx() -> List[TimeoutSpec]:
    specs = []
    for verb in HTTP_VERBS + ("request", "stream"):
        specs.append(TimeoutSpec(f"httpx.{verb}", (T,), 5.0, HTTPX_SRC, "httpx defaults to 5 s per phase",
                                 number_phases=4, default_per_attempt_s=20.0))
        for client in ("httpx.Client", "httpx.AsyncClient"):
            specs.append(TimeoutSpec(f"{client}.{verb}", (T,), INHERITED, HTTPX_SRC, "inherits the client's timeout",
                                     number_phases=4))
    for client in ("httpx.Client", "httpx.AsyncClient"):
        # Client.stream(method, url, ...) sends the request and yields a response read piece by piece
        # (https://www.python-httpx.org/quickstart/#streaming-responses; httpx/_client.py Client.stream)
        specs.append(TimeoutSpec(client, (T,), 5.0, HTTPX_SRC, "httpx defaults to 5 s per phase", carrier=True,
                                 number_phases=4, default_per_attempt_s=20.0, stream_methods=("stream",)))
    return specs


#: Functions that open a server-sent-events stream on the client given as their first argument:
#: httpx-sse ``connect_sse(client, method, url, **kwargs)`` and ``aconnect_sse(client, method, url,
#: **kwargs)`` (https://github.com/florimondmanca/httpx-sse, README "Usage"; httpx_sse/_api.py).
STREAM_OPENERS: Tuple[str, ...] = ("httpx_sse.connect_sse", "httpx_sse.aconnect_sse")


def _aiohttp() -> List[TimeoutSpec]:
    specs = [
        TimeoutSpec(
            "aiohttp.ClientSession",
            (T,),
            300.0,
            AIOHTTP_SRC,
            "aiohttp's default ClientTimeout allows 300 s in total",
            carrier=True,
            fix="timeout={obj0}(total={seconds})",
            fix_imports=("aiohttp.ClientTimeout",),
            # aiohttp/client.py ClientSession._request: a timeout= given to the request is used
            # instead of the session's (3.14.5)
            bounded_per_request=HTTP_VERBS + ("request", "ws_connect"),
        )
    ]
    for verb in HTTP_VERBS + ("request", "ws_connect"):
        specs.append(TimeoutSpec(f"aiohttp.ClientSession.{verb}", (T,), INHERITED, AIOHTTP_SRC, "inherits the session's timeout"))
    return specs


def _urllib3() -> List[TimeoutSpec]:
    src = "urllib3/poolmanager.py, urllib3/connectionpool.py, urllib3/__init__.py request() (2.8.0)"
    specs = [
        TimeoutSpec("urllib3.PoolManager", (T,), None, src, "a PoolManager has no timeout by default",
                    carrier=True, number_phases=2, socket_default=True),
        TimeoutSpec("urllib3.HTTPConnectionPool", (TimeoutParam("timeout", 2),), None, src,
                    "a connection pool has no timeout by default", carrier=True, socket_default=True),
        TimeoutSpec("urllib3.HTTPSConnectionPool", (TimeoutParam("timeout", 2),), None, src,
                    "a connection pool has no timeout by default", carrier=True, socket_default=True),
        TimeoutSpec("urllib3.request", (T,), 3.0, src, "urllib3.request() defaults to 3 s"),
    ]
    for pool in ("urllib3.PoolManager", "urllib3.HTTPConnectionPool", "urllib3.HTTPSConnectionPool"):
        for method in ("request", "urlopen", "request_encode_url", "request_encode_body"):
            # HTTPConnectionPool.urlopen(method, url, body, headers, retries, redirect, assert_same_host, timeout)
            param = TimeoutParam("timeout", 7) if method == "urlopen" and pool != "urllib3.PoolManager" else T
            specs.append(TimeoutSpec(f"{pool}.{method}", (param,), INHERITED, src, "inherits the pool's timeout"))
    return specs


def _stdlib() -> List[TimeoutSpec]:
    return [
        TimeoutSpec("urllib.request.urlopen", (TimeoutParam("timeout", 2),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/urllib.request.html#urllib.request.urlopen", SOCKET_DEFAULT,
                    socket_default=True, url=("url", 0)),
        TimeoutSpec("http.client.HTTPConnection", (TimeoutParam("timeout", 2),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/http.client.html#http.client.HTTPConnection", SOCKET_DEFAULT,
                    carrier=True, socket_default=True),
        # HTTPSConnection(host, port, key_file, cert_file, timeout) up to 3.11; keyword-only from 3.12.
        TimeoutSpec("http.client.HTTPSConnection", (TimeoutParam("timeout", 4),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/http.client.html#http.client.HTTPSConnection", SOCKET_DEFAULT,
                    carrier=True, socket_default=True),
        TimeoutSpec("socket.create_connection", (TimeoutParam("timeout", 1),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/socket.html#socket.create_connection", SOCKET_DEFAULT,
                    socket_default=True),
        TimeoutSpec("socket.socket.settimeout", (TimeoutParam("value", 0),), INHERITED,
                    "https://docs.python.org/3/library/socket.html#socket.socket.settimeout", fix="{seconds}",
                    blocks=False),
        # telnetlib and nntplib: deprecated in 3.11, removed in 3.13 (PEP 594); still in older code bases
        TimeoutSpec("telnetlib.Telnet", (TimeoutParam("timeout", 2),), None,
                    SOCKET_SRC + "https://docs.python.org/3.12/library/telnetlib.html#telnetlib.Telnet", SOCKET_DEFAULT,
                    carrier=True, socket_default=True, connects_with=("host", 0)),
        TimeoutSpec("nntplib.NNTP", (TimeoutParam("timeout", 6),), None,
                    SOCKET_SRC + "https://docs.python.org/3.12/library/nntplib.html#nntplib.NNTP", SOCKET_DEFAULT,
                    carrier=True, socket_default=True, opens_connection=True),
        TimeoutSpec("smtplib.SMTP", (TimeoutParam("timeout", 3),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/smtplib.html#smtplib.SMTP", SOCKET_DEFAULT, carrier=True, socket_default=True, connects_with=("host", 0)),
        # SMTP_SSL(host, port, local_hostname, keyfile, certfile, timeout) up to 3.11; keyword-only from 3.12.
        TimeoutSpec("smtplib.SMTP_SSL", (TimeoutParam("timeout", 5),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/smtplib.html#smtplib.SMTP_SSL", SOCKET_DEFAULT, carrier=True, socket_default=True, connects_with=("host", 0)),
        TimeoutSpec("smtplib.LMTP", (TimeoutParam("timeout", 4),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/smtplib.html#smtplib.LMTP", SOCKET_DEFAULT, carrier=True, socket_default=True, connects_with=("host", 0)),
        TimeoutSpec("ftplib.FTP", (TimeoutParam("timeout", 4),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/ftplib.html#ftplib.FTP", SOCKET_DEFAULT, carrier=True, socket_default=True, connects_with=("host", 0)),
        # FTP_TLS(host, user, passwd, acct, keyfile, certfile, context, timeout) up to 3.11.
        TimeoutSpec("ftplib.FTP_TLS", (TimeoutParam("timeout", 7),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/ftplib.html#ftplib.FTP_TLS", SOCKET_DEFAULT, carrier=True, socket_default=True, connects_with=("host", 0)),
        TimeoutSpec("imaplib.IMAP4", (TimeoutParam("timeout", 2),), None,
                    "https://docs.python.org/3/library/imaplib.html#imaplib.IMAP4 (timeout added in 3.9)",
                    "IMAP4 waits forever when no timeout is given", carrier=True, socket_default=True, opens_connection=True),
        TimeoutSpec("imaplib.IMAP4_SSL", (TimeoutParam("timeout", 5),), None,
                    "https://docs.python.org/3/library/imaplib.html#imaplib.IMAP4_SSL",
                    "IMAP4_SSL waits forever when no timeout is given", carrier=True, socket_default=True, opens_connection=True),
        TimeoutSpec("poplib.POP3", (TimeoutParam("timeout", 2),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/poplib.html#poplib.POP3", SOCKET_DEFAULT, carrier=True, socket_default=True, opens_connection=True),
        TimeoutSpec("poplib.POP3_SSL", (TimeoutParam("timeout", 4),), None,
                    SOCKET_SRC + "https://docs.python.org/3/library/poplib.html#poplib.POP3_SSL", SOCKET_DEFAULT, carrier=True, socket_default=True, opens_connection=True),
        TimeoutSpec("socket.setdefaulttimeout", (TimeoutParam("timeout", 0),), INHERITED,
                    "https://docs.python.org/3/library/socket.html#socket.setdefaulttimeout", fix="{seconds}",
                    blocks=False),
    ]


def _subprocess() -> List[TimeoutSpec]:
    src = "https://docs.python.org/3/library/subprocess.html (run, call, check_call, check_output, Popen.wait, Popen.communicate)"
    note = "a child process that hangs blocks the caller forever"
    # run(args, ...), Popen(args, bufsize, executable, ...); shell, env and executable are keywords
    args = CommandArgs(("args", 0))
    popen = CommandArgs(("args", 0), owner="subprocess.Popen")
    specs = [
        TimeoutSpec(f"subprocess.{fn}", (T,), None, src, note, category="subprocess", command=args)
        for fn in ("run", "call", "check_call", "check_output")
    ]
    specs.append(TimeoutSpec("subprocess.Popen.wait", (TimeoutParam("timeout", 0),), None, src, note,
                             category="subprocess", command=popen))
    specs.append(TimeoutSpec("subprocess.Popen.communicate", (TimeoutParam("timeout", 1),), None, src, note,
                             category="subprocess", command=popen))
    return specs


def _databases() -> List[TimeoutSpec]:
    return [replace(spec, category=DATABASE) for spec in _database_calls()]


def _database_calls() -> List[TimeoutSpec]:
    return [
        TimeoutSpec(
            "psycopg2.connect", (TimeoutParam("connect_timeout"),), None,
            "https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-CONNECT-TIMEOUT "
            "(zero, negative or unset: wait indefinitely; \"write as a decimal integer\")",
            "libpq waits for the OS TCP timeout (minutes) without connect_timeout",
            dsn=("dsn", 0, ("connect_timeout",)), disable_values=(None, 0), whole_units=True, numeric_strings=True,
        ),
        TimeoutSpec(
            "psycopg.connect", (TimeoutParam("connect_timeout"),), 130.0,
            "psycopg/conninfo.py _DEFAULT_CONNECT_TIMEOUT = 130 (psycopg 3.1.18, 3.2+)",
            "psycopg 3 falls back to 130 s without connect_timeout",
            dsn=("conninfo", 0, ("connect_timeout",)), whole_units=True, numeric_strings=True,  # libpq: text, an integer
        ),
        TimeoutSpec(
            "psycopg.AsyncConnection.connect", (TimeoutParam("connect_timeout"),), 130.0,
            "psycopg/conninfo.py _DEFAULT_CONNECT_TIMEOUT = 130 (psycopg 3.1.18, 3.2+)",
            "psycopg 3 falls back to 130 s without connect_timeout",
            dsn=("conninfo", 0, ("connect_timeout",)), whole_units=True, numeric_strings=True,  # libpq: text, an integer
        ),
        TimeoutSpec(
            "asyncpg.connect", (TimeoutParam("command_timeout"),), None,
            "https://magicstack.github.io/asyncpg/current/api/index.html#asyncpg.connection.connect",
            "asyncpg runs queries with no timeout unless command_timeout is set", carrier=True, opens_connection=True,
        ),
        TimeoutSpec(
            "asyncpg.create_pool", (TimeoutParam("command_timeout"),), None,
            "https://magicstack.github.io/asyncpg/current/api/index.html#asyncpg.pool.create_pool",
            "asyncpg runs queries with no timeout unless command_timeout is set", carrier=True, opens_connection=True,
        ),
        TimeoutSpec(
            "pymysql.connect", (TimeoutParam("read_timeout"),), None,
            "https://pymysql.readthedocs.io/en/latest/modules/connections.html (read_timeout default None)",
            "PyMySQL waits forever for a query result without read_timeout", carrier=True, opens_connection=True,
        ),
        *_redis(),
        TimeoutSpec(
            "pymongo.MongoClient",
            (TimeoutParam("socketTimeoutMS"), TimeoutParam("timeoutMS")),
            None,
            "https://pymongo.readthedocs.io/en/stable/api/pymongo/mongo_client.html (socketTimeoutMS default None; "
            "0 means no timeout; timeoutMS since 4.2)",
            "pymongo has no socket timeout by default", unit_s=0.001, disable_values=(None, 0), carrier=True,
            dsn=("host", 0, ("socketTimeoutMS", "timeoutMS")), fix="{param}={ms}", whole_units=True,
        ),
    ]


REDIS_NOTE = "redis-py before 8.0 waits forever on a command without socket_timeout"


def _redis() -> List[TimeoutSpec]:
    """redis-py's clients, pools and cluster clients, sync and asyncio: each takes
    ``socket_timeout`` (None before 8.0, 5 s from 8.0; the least safe default is assumed)."""
    specs = []
    # redis.Redis(host, port, db, password, socket_timeout, ...); redis.asyncio.Redis(*, host, ...)
    for package, module, first, pool_position in (("redis", "redis/", 4, 9), ("redis.asyncio", "redis/asyncio/", None, None)):
        specs.append(TimeoutSpec(
            f"{package}.Redis", (TimeoutParam("socket_timeout", first),), None,
            f"{module}client.py Redis.__init__: socket_timeout None before 8.0, 5 s from 8.0 (redis-py tags v5.3.1, "
            "v8.0.0); with connection_pool= the connection keywords are not read (the pool's connections are used)",
            REDIS_NOTE, carrier=True, configured_by=("connection_pool", pool_position),
        ))
        # a connection_class= of the project's (fakeredis' FakeConnection, a proxy) decides how it connects
        specs += [TimeoutSpec(
            f"{package}.{pool}", (TimeoutParam("socket_timeout"),), None,
            f"{module}connection.py {pool}(**connection_kwargs) -> connection_class(**connection_kwargs): "
            "AbstractConnection socket_timeout None before 8.0, 5 s from 8.0 (redis-py 8.1.0, tag v5.3.1)",
            REDIS_NOTE, carrier=True, configured_by=("connection_class", position),
        ) for pool, position in (("ConnectionPool", 0), ("BlockingConnectionPool", 2))]
        specs.append(TimeoutSpec(
            f"{package}.Redis.from_url", (TimeoutParam("socket_timeout"),), None,
            f"{module}client.py Redis.from_url; the URL query may set socket_timeout (redis-py 8.1.0)",
            REDIS_NOTE, carrier=True, dsn=("url", 0, ("socket_timeout",)),
        ))
        specs.append(TimeoutSpec(
            f"{package}.from_url", (TimeoutParam("socket_timeout"),), None,
            f"{module}utils.py from_url -> Redis.from_url (redis-py 8.1.0)",
            REDIS_NOTE, carrier=True, dsn=("url", 0, ("socket_timeout",)),
        ))
    # redis/cluster.py RedisCluster(host, port, startup_nodes, ..., **kwargs): the node clients are
    # Redis(host=, port=, **kwargs) (NodesManager.create_redis_node), so socket_timeout is theirs;
    # redis/asyncio/cluster.py RedisCluster takes it as its own parameter (None in 5.3.1, 5 s in 8.1.0)
    # the sync RedisCluster also takes url= (position 10) and reads its query (parse_url(url));
    # the asyncio one takes the URL only through from_url
    for package, module, position, url in (("redis.cluster", "redis/cluster.py", None, ("url", 10, ("socket_timeout",))),
                                           ("redis.asyncio.cluster", "redis/asyncio/cluster.py", 25, None)):
        specs.append(TimeoutSpec(
            f"{package}.RedisCluster", (TimeoutParam("socket_timeout", position),), None,
            f"{module} RedisCluster: socket_timeout None before 8.0, 5 s from 8.0 (redis-py 5.3.1, 8.1.0)",
            REDIS_NOTE, carrier=True, dsn=url,
        ))
        specs.append(TimeoutSpec(
            f"{package}.RedisCluster.from_url", (TimeoutParam("socket_timeout"),), None,
            f"{module} RedisCluster.from_url(url, **kwargs) -> RedisCluster(url=url, **kwargs); the URL query may "
            "set socket_timeout (redis-py 8.1.0)",
            REDIS_NOTE, carrier=True, dsn=("url", 0, ("socket_timeout",)),
        ))
    return specs


#: boto3 services whose calls run a model: a completion (InvokeModel, Converse), an agent
#: (InvokeAgent) or a retrieval-augmented answer (RetrieveAndGenerate) takes minutes where other
#: AWS calls take seconds, and AWS advises raising botocore's read timeout for them
#: (https://repost.aws/knowledge-center/bedrock-large-model-read-timeouts): their clients are
#: judged against the model-call ceiling.
BOTO_MODEL_SERVICES = (("bedrock-runtime", MODEL), ("bedrock-agent-runtime", MODEL))


def _cloud() -> List[TimeoutSpec]:
    boto_src = "botocore/config.py Config(connect_timeout=60, read_timeout=60) (1.44.8)"
    openai_src = "openai/_constants.py DEFAULT_TIMEOUT = httpx.Timeout(timeout=600, connect=5.0) (2.54.0)"
    anthropic_src = "anthropic/_constants.py DEFAULT_TIMEOUT = httpx2.Timeout(timeout=10 * 60, connect=5.0) (2.17.0)"
    # a custom http_client= carries the timeout when the client is given none and the HTTP client's own
    # is not httpx's default (openai/_base_client.py BaseClient.__init__: ``if http_client and
    # client_timeout != HTTPX_DEFAULT_TIMEOUT: timeout = client_timeout``) (2.54.0; anthropic 2.17.0 alike);
    # the SDKs' own HTTP clients (MODEL_SDK_HTTP_CLIENTS) carry the SDK's default unless given one
    given_client = ("http_client", None)
    botocore_fix = "config={obj0}(connect_timeout={seconds}, read_timeout={read_seconds})"
    # SQS long polling: ReceiveMessage's WaitTimeSeconds (at most 20), or the queue's own
    # ReceiveMessageWaitTimeSeconds when the call gives none, holds the request open until a message
    # arrives or the wait ends, so the HTTP read timeout must be longer
    # (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html,
    # https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-short-and-long-polling.html)
    boto_held = ("service_name", 0, (("sqs", 20.0),))
    # the presigners botocore adds to its clients sign locally and send nothing
    # (botocore/signers.py add_generate_presigned_url, add_generate_presigned_post,
    # add_generate_db_auth_token: generate_db_auth_token, generate_db_connect_auth_token,
    # generate_db_connect_admin_auth_token) (1.44.18)
    boto_local = ("generate_presigned_url", "generate_presigned_post", "generate_db_auth_token",
                  "generate_db_connect_auth_token", "generate_db_connect_admin_auth_token")
    specs = []
    for name in ("boto3.client", "boto3.resource", "boto3.Session.client", "boto3.Session.resource",
                 "botocore.session.Session.create_client"):
        # Session.client(service_name, region_name, api_version, use_ssl, verify, endpoint_url,
        # aws_access_key_id, aws_secret_access_key, aws_session_token, config): config is positional 9;
        # the module functions boto3.client/resource take (*args, **kwargs) and forward them
        # config=None is not a disabled timeout: botocore then builds a default Config (60 s + 60 s)
        # (botocore/args.py ClientArgsCreator.compute_client_args: `if client_config is not None`) (1.44.8)
        # each wait is judged on its own, as an explicit (connect, read) pair is: neither default is
        # above the network ceiling; their sum is the per-attempt estimate of the retry arithmetic
        specs.append(TimeoutSpec(name, (TimeoutParam("config", 9),), 60.0, boto_src,
                                 "botocore defaults to 60 s connect and 60 s read",
                                 default_per_attempt_s=120.0,
                                 fix=botocore_fix, fix_imports=("botocore.config.Config",), carrier=True,
                                 disable_values=(), category_by_argument=("service_name", 0, BOTO_MODEL_SERVICES),
                                 local_methods=boto_local, held_by_argument=boto_held))
    for name in ("openai.OpenAI", "openai.AsyncOpenAI", "openai.AzureOpenAI", "openai.AsyncAzureOpenAI"):
        specs.append(TimeoutSpec(name, (T,), 600.0, openai_src, "the OpenAI client defaults to a 600 s read timeout",
                                 carrier=True, category=MODEL, number_phases=4, default_per_attempt_s=1805.0,
                                 bounded_per_request=MODEL_REQUESTS["openai"], timeout_from=given_client))
    for name in ("anthropic.Anthropic", "anthropic.AsyncAnthropic"):
        specs.append(TimeoutSpec(name, (T,), 600.0, anthropic_src,
                                 "the Anthropic client defaults to a 600 s read timeout", carrier=True, category=MODEL,
                                 number_phases=4, default_per_attempt_s=1805.0,
                                 bounded_per_request=MODEL_REQUESTS["anthropic"], timeout_from=given_client))
    return specs


def _issue_trackers() -> List[TimeoutSpec]:
    """The jira client (pycontribs/jira): ``JIRA(server, ..., timeout=None)`` hands its timeout to its
    requests session (jira/client.py ``JIRA.__init__``: ``ResilientSession(timeout=timeout)``, and
    jira/resilientsession.py passes it on each request), so without one every request waits
    forever; with ``get_server_info=True`` (the default) the constructor itself sends a request."""
    source = "jira/client.py JIRA.__init__(server, options, ..., max_retries=3, proxies=None, timeout=None) (jira 3.10)"
    return [
        TimeoutSpec(name, (TimeoutParam("timeout", 15),), None, source,
                    "jira passes no timeout to requests unless given one, and requests then waits forever",
                    carrier=True, opens_connection=True)
        for name in ("jira.JIRA", "jira.client.JIRA")
    ]


#: The model SDKs' own HTTP clients, built with the SDK's default timeout (600 s) unless given a
#: ``timeout=`` (openai/_base_client.py ``_DefaultHttpxClient.__init__``: ``kwargs.setdefault("timeout",
#: DEFAULT_TIMEOUT)``) (openai 2.54.0, anthropic 2.17.0): handed to a client as ``http_client=``, they
#: leave the SDK's default in place.
MODEL_SDK_HTTP_CLIENTS: Tuple[str, ...] = tuple(
    f"{sdk}.{name}" for sdk in ("openai", "anthropic") for name in ("DefaultHttpxClient", "DefaultAsyncHttpxClient"))

#: The request methods of the model SDKs' clients (each resource as the client spells it): a
#: per-request ``timeout=`` replaces the client's for that request (openai/_base_client.py
#: ``_build_request``: ``timeout = self.timeout if isinstance(options.timeout, NotGiven) else
#: options.timeout``; ``None`` there is no timeout at all). Streaming methods take it too.
MODEL_REQUESTS: Dict[str, Tuple[str, ...]] = {
    "openai": ("chat.completions.create", "chat.completions.parse", "chat.completions.stream", "responses.create",
               "responses.parse", "responses.stream", "completions.create", "embeddings.create",
               "images.generate", "images.edit", "audio.transcriptions.create", "audio.translations.create",
               "audio.speech.create", "moderations.create"),
    "anthropic": ("messages.create", "messages.stream", "messages.count_tokens", "beta.messages.create"),
}
#: The model requests that compute an answer and keep nothing (unless asked to with ``store=``): a
#: readiness wait may send one and drop the answer to learn that an endpoint serves. Not the
#: Responses API (``responses.*`` stores by default: https://platform.openai.com/docs/api-reference/responses/create,
#: ``store`` defaults to true), nor images, audio or tool calls.
MODEL_PROBE_REQUESTS: Dict[str, Tuple[str, ...]] = {
    "openai": ("chat.completions.create", "completions.create", "embeddings.create", "moderations.create"),
    "anthropic": ("messages.create", "messages.count_tokens"),
}
#: the request keyword that asks the provider to keep a completion (OpenAI ``store``)
MODEL_STORE_KEYWORD = "store"
#: ``client.with_options(timeout=...)`` returns a copy of the client with that timeout (openai/_client.py
#: ``copy``, aliased ``with_options``; anthropic/_client.py the same)
WITH_OPTIONS = "with_options"
MODEL_CLIENTS: Dict[str, Tuple[str, ...]] = {
    "openai": ("openai.OpenAI", "openai.AsyncOpenAI", "openai.AzureOpenAI", "openai.AsyncAzureOpenAI"),
    "anthropic": ("anthropic.Anthropic", "anthropic.AsyncAnthropic"),
}
#: the same, as the qualified names of the calls (``openai.OpenAI.chat.completions.create``)
MODEL_PROBES: frozenset = frozenset(f"{client}.{method}" for package, clients in MODEL_CLIENTS.items()
                                    for client in clients for method in MODEL_PROBE_REQUESTS[package])


def _model_requests() -> List[TimeoutSpec]:
    src = {"openai": "openai/_base_client.py _build_request: per-request timeout (2.54.0)",
           "anthropic": "anthropic/_base_client.py _build_request: per-request timeout (2.17.0)"}
    specs = []
    for package, clients in MODEL_CLIENTS.items():
        for client in clients:
            for method in MODEL_REQUESTS[package]:
                specs.append(TimeoutSpec(f"{client}.{method}", (T,), INHERITED, src[package],
                                         "inherits the client's timeout", category=MODEL, number_phases=4))
            specs.append(TimeoutSpec(f"{client}.{WITH_OPTIONS}", (T,), INHERITED, src[package],
                                     "keeps the client's timeout", category=MODEL, number_phases=4, carrier=True,
                                     blocks=False))
    return specs


#: gRPC stub methods: ``*_pb2_grpc.*Stub.Method(request, timeout=...)``; no deadline by default.
GRPC_STUB_SPEC = TimeoutSpec(
    "*_pb2_grpc.*Stub.*",
    (TimeoutParam("timeout", 1),),
    None,
    "https://grpc.github.io/grpc/python/grpc.html#grpc.UnaryUnaryMultiCallable (timeout default None: no deadline)",
    "a gRPC call without timeout has no deadline",
)

#: A gRPC servicer (the class a service implements) is generated as ``<Service>Servicer`` in the
#: ``*_pb2_grpc`` module; each RPC method takes ``(self, request, context)``, and the
#: ``context`` (``grpc.ServicerContext``, ``grpc.aio.ServicerContext``) knows the caller's
#: deadline: ``context.time_remaining()`` returns the seconds left, or ``None`` when the client
#: set no deadline. Sources: grpc/__init__.py ``ServicerContext.time_remaining`` (grpcio 1.85),
#: https://grpc.github.io/grpc/python/grpc.html#grpc.RpcContext.time_remaining
GRPC_STUBS_MODULE_SUFFIX = "_pb2_grpc"
GRPC_SERVICER_SUFFIX = "Servicer"
#: the position of ``context`` among an RPC method's parameters (``self`` is 0)
GRPC_CONTEXT_POSITION = 2
#: what generated servicers and the gRPC examples name it (grpc/_utilities and the generated
#: ``*_pb2_grpc.py``: ``def SayHello(self, request, context)``)
GRPC_CONTEXT_NAMES = ("context", "ctx")
#: the ``ServicerContext`` method that reads the time left before the caller's deadline
GRPC_TIME_REMAINING = "time_remaining"
#: the ``ServicerContext`` types whose ``time_remaining`` the catalog-reality test checks
GRPC_CONTEXT_TYPES = ("grpc.ServicerContext", "grpc.aio.ServicerContext")


def _index(specs: List[TimeoutSpec]) -> Dict[str, TimeoutSpec]:
    table: Dict[str, TimeoutSpec] = {}
    for spec in specs:
        if spec.qualname in table:
            raise ValueError(f"duplicate timeout catalog entry {spec.qualname}")
        table[spec.qualname] = spec
    return table


TIMEOUT_CALLS: Dict[str, TimeoutSpec] = _index(
    _requests() + _oauth_sessions() + _httpx() + _aiohttp() + _urllib3() + _stdlib() + _subprocess() + _databases() + _cloud() +
    _model_requests() + _issue_trackers() + litellm.timeout_specs()
    # model and agent frameworks: one catalog module each
    + list(langchain.TIMEOUTS + mcp.TIMEOUTS + llama_index.TIMEOUTS + haystack.TIMEOUTS)
)

#: Streamed requests whose response is read piece by piece, and the response methods that read it so: a
#: generator that yields what it reads from one is an event subscription (a server-sent-events or
#: long-poll stream), waiting between events by design. Sources: httpx ``Client.stream``,
#: ``Response.iter_lines``/``aiter_lines``... (https://www.python-httpx.org/quickstart/#streaming-responses).
STREAM_REQUESTS: Tuple[str, ...] = ("httpx.stream", "httpx.Client.stream", "httpx.AsyncClient.stream")
#: URL paths (their ends) of model APIs that generate or embed: a plain HTTP client's POST to one is a model
#: call, judged against the model category's ceiling (a completion takes tens of seconds, a long
#: answer minutes). OpenAI ``/chat/completions``, ``/v1/completions``, ``/v1/responses``
#: (https://platform.openai.com/docs/api-reference); Anthropic ``/v1/messages``
#: (https://docs.anthropic.com/en/api/messages); Gemini ``:generateContent``,
#: ``:streamGenerateContent`` (https://ai.google.dev/api/generate-content); Ollama ``/api/generate``,
#: ``/api/chat`` (https://github.com/ollama/ollama/blob/main/docs/api.md); the ChatGPT backend that
#: Codex's sign-in with ChatGPT sends Responses requests to, ``/backend-api/codex/responses``
#: (https://github.com/openai/codex, its ChatGPT model provider); embeddings, ``/v1/embeddings``
#: (OpenAI https://platform.openai.com/docs/api-reference/embeddings, Jina
#: https://api.jina.ai/redoc#tag/embeddings, Mistral, Voyage), which the SDK clients send with the
#: same client and timeout as completions. Ends that other APIs use
#: too (``/responses`` of a form, ``/generate`` of a report or a code) are not in the list, and a GET
#: (``GET /v1/chat/completions`` lists stored completions) is no model call.
MODEL_ENDPOINT_PATHS: Tuple[str, ...] = (
    "/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages", ":generateContent",
    ":streamGenerateContent", "/api/generate", "/api/chat", "/codex/responses", "/v1/embeddings",
)
#: (lines and text: events arrive as lines, a server-sent event or a JSON document each; a body read in
#: bytes is a download, which a read timeout fits)
STREAM_READERS: Tuple[str, ...] = ("iter_lines", "aiter_lines", "iter_text", "aiter_text")

TIMEOUT_OBJECTS: Dict[str, TimeoutObjectSpec] = {
    spec.qualname: spec
    for spec in (
        TimeoutObjectSpec(
            "httpx.Timeout",
            phases=("connect", "read", "write", "pool"),
            # the pool phase waits for a connection another request of the client holds, and each of
            # those is bounded by its own connect, read and write: ``pool=None`` alone holds no call
            # on a stalled peer (https://www.python-httpx.org/advanced/timeouts/: "the maximum
            # duration to wait for a connection from the connection pool"). A stream held open (a
            # subscription) keeps its connection: a client that holds all of them so would make the
            # others wait forever, which this entry does not see
            essential=("connect", "read", "write"),
            positional=("timeout",),
            all_phases_param="timeout",
            source=HTTPX_SRC + "; httpx.Timeout(timeout, *, connect, read, write, pool)",
        ),
        TimeoutObjectSpec(
            "urllib3.Timeout",
            phases=("connect", "read"),
            essential=("connect", "read"),
            positional=("total", "connect", "read"),
            total_param="total",
            defaults_s={"connect": None, "read": None},
            source="urllib3/util/timeout.py Timeout(total=None, connect=DEFAULT, read=DEFAULT) (2.8.0)",
        ),
        TimeoutObjectSpec(
            "aiohttp.ClientTimeout",
            phases=("connect", "sock_connect", "sock_read"),
            essential=("sock_read",),
            positional=("total", "connect", "sock_read", "sock_connect"),
            total_param="total",
            defaults_s={"connect": None, "sock_connect": None, "sock_read": None},
            source="aiohttp/client.py ClientTimeout(total=None, connect=None, sock_read=None, sock_connect=None); "
            "aio-libs/aiohttp#7274",
            absent_total_note="a `ClientTimeout` built without `total=` has no total bound (it does not keep "
            "the session's 300 s default; aio-libs/aiohttp#7274) and no sock_read bound",
        ),
        TimeoutObjectSpec(
            "botocore.Config",
            phases=("connect", "read"),
            essential=("connect", "read"),
            defaults_s={"connect": 60.0, "read": 60.0},
            source="botocore/config.py Config(connect_timeout=60, read_timeout=60) (1.44.8)",
        ),
    )
}

#: Keyword names of timeout objects that are not the phase names themselves.
OBJECT_KEYWORDS: Dict[str, Dict[str, str]] = {
    "botocore.Config": {"connect_timeout": "connect", "read_timeout": "read"},
}

NO_OP_ATTRIBUTES: Tuple[NoOpAttribute, ...] = (
    NoOpAttribute(
        "requests.Session",
        "timeout",
        "requests ignores `Session.timeout`, so every request still waits forever; pass `timeout=` per "
        "request or mount an adapter that sets a default",
        "psf/requests#3341; requests/sessions.py has no timeout attribute",
    ),
)

#: After one of these calls the process is reaped (or killed): a later ``wait()`` or
#: ``communicate()`` on the same object returns at once. Source:
#: https://docs.python.org/3/library/subprocess.html#subprocess.Popen.communicate
ONCE_DONE_METHODS: Dict[str, Tuple[str, ...]] = {
    "subprocess.Popen": ("communicate", "wait", "kill"),
}

#: Session types whose subclasses may inject a default timeout by overriding these methods.
TIMEOUT_INJECTION_HOOKS: Dict[str, Tuple[str, ...]] = {
    "requests.Session": ("request", "send", "__init__", "merge_environment_settings"),
    "requests.HTTPAdapter": ("send", "__init__", "init_poolmanager"),
}

#: Session calls whose timeout a mounted adapter may set: (method prefix, the stock adapter type). A
#: session with another adapter mounted (a subclass that injects a timeout) has an unknown timeout.
MOUNTED_TIMEOUTS: Tuple[Tuple[str, str], ...] = (
    ("requests.Session.", "requests.HTTPAdapter"),
    # requests-oauthlib's sessions are requests Sessions: the same mounts
    ("requests_oauthlib.OAuth1Session.", "requests.HTTPAdapter"),
    ("requests_oauthlib.OAuth2Session.", "requests.HTTPAdapter"),
)


#: Calls that, iterated by a ``for``, are server streams: a gRPC stub method whose response is a stream
#: of messages (https://grpc.io/docs/languages/python/basics/#response-streaming-rpc; a unary
#: response is no iterable). A generator that yields what such a stream sends is an event
#: subscription, as :data:`STREAM_REQUESTS` read piece by piece are.
STREAMED_WHEN_ITERATED: Tuple[str, ...] = (GRPC_STUB_SPEC.qualname,)


def lookup_timeout_call(qualname: str):
    """Return the :class:`TimeoutSpec` for a canonical qualified name, or ``None``."""
    spec = TIMEOUT_CALLS.get(qualname)
    if spec is not None:
        return spec
    if "_pb2_grpc." in qualname:
        module, _, rest = qualname.partition("_pb2_grpc.")
        parts = rest.split(".")
        if len(parts) == 2 and parts[0].endswith("Stub"):
            return GRPC_STUB_SPEC
    return None


def trigger_modules() -> Tuple[str, ...]:
    """The engine's prefilter entries for the timeout rules: ``module:name|name`` (the file
    must import ``module`` and mention one of the names a catalog entry ends with: a call
    can only be a catalog entry if its last name is spelled in the file)."""
    names: Dict[str, Set[str]] = {}
    for qualname in list(TIMEOUT_CALLS) + list(TIMEOUT_OBJECTS):
        parts = qualname.split(".")
        if parts[0] != "*_pb2_grpc":
            names.setdefault(parts[0], set()).add(parts[-1])
    return tuple(f"{module}:{'|'.join(sorted(words))}" for module, words in sorted(names.items())) + (
        r"\w+_pb2_grpc",)
