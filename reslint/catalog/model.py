"""Types of the catalog: what reslint knows about third-party APIs, as data.

Every entry names its source (a documentation URL or a library source path with
the version read) so the knowledge can be re-checked when a library changes;
``tests/test_catalog_reality.py`` checks names and parameters against the
installed libraries with :func:`inspect.signature`.

Units: every ``*_s`` field is in seconds. ``unit_s`` converts a parameter's own
unit to seconds (``0.001`` for milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

#: ``default_s`` value meaning "the call inherits the timeout its client carries".
INHERITED = -1.0

#: What a timeout-bearing call waits on (:attr:`TimeoutSpec.category`). Each category but
#: ``subprocess`` has a ceiling (``max-timeout``) and a value a fix inserts (``default-timeout``),
#: set per category in ``[tool.reslint.timeouts.<category>]`` (``reslint/config.py``): a
#: completion legitimately runs for minutes where a web request must not. A subprocess is judged
#: by the program it runs (``reslint/catalog/programs.py``), not against a ceiling.
NETWORK, DATABASE, MODEL, SUBPROCESS = "network", "database", "model", "subprocess"
CATEGORIES = (NETWORK, DATABASE, MODEL, SUBPROCESS)
#: the categories whose timeouts are judged against a ceiling
CEILING_CATEGORIES = (NETWORK, DATABASE, MODEL)


@dataclass(frozen=True)
class TimeoutParam:
    """One parameter that bounds a call.

    ``position`` is the 0-based index among positional arguments (``self``
    excluded) or ``None`` when the parameter is keyword-only. ``phase`` names
    what it bounds (``"total"``, ``"connect"``, ``"read"``, ``"socket"``...).
    """

    name: str
    position: Optional[int] = None
    phase: str = "total"


@dataclass(frozen=True)
class CommandArgs:
    """Where a subprocess call's command line is: the ``args`` parameter ``(name, position)``,
    and the keywords that change how it is read (``shell=True``: one shell command line;
    ``executable=``: another program runs; ``env=``: the child's environment). ``owner``: for a
    method (``Popen.wait``), the constructor whose call holds them (``subprocess.Popen``)."""

    args: Tuple[str, int]
    shell: str = "shell"
    executable: str = "executable"
    env: str = "env"
    owner: Optional[str] = None


@dataclass(frozen=True)
class TimeoutSpec:
    """A call (function, method or constructor) that blocks on I/O and takes a timeout.

    - ``qualname``: canonical dotted name; methods of an instance are spelled
      ``Class.method`` with the class's canonical name (``requests.Session.get``).
    - ``params``: the parameters that bound the call; the first is the one a fix adds.
    - ``default_s``: what the library does when no timeout is given, in seconds:
      ``None`` waits forever, :data:`INHERITED` takes the client's timeout.
    - ``default_phases_s``: per-phase defaults when the timeout object has phases
      (botocore: connect 60 s + read 60 s).
    - ``disable_values``: literal values that switch the bound off (``None``; ``0``
      for pymongo, where 0 means "no timeout").
    - ``carrier``: the constructed object carries the timeout for its later calls
      (a pool, a client): the constructor is reported, not each call.
    - ``category``: what the call waits on, one of :data:`CATEGORIES`: ``"network"``,
      ``"database"`` and ``"model"`` are judged against their category's ``max-timeout``;
      ``"subprocess"`` only for a missing or disabled timeout.
    - ``category_by_argument``: ``(param name, position, ((value, category), ...))``: a
      constructor whose argument names what the client talks to (boto3's service name): a
      constant value listed here gives the call that category instead of ``category``.
    - ``dsn``: ``(param name, position, keys)`` of a DSN or URI string whose text
      can carry the timeout (``connect_timeout=5``, ``?socketTimeoutMS=20000``).
    - ``max_positional``: a call with more positional arguments than this is read
      as "unknown" (signatures that changed between Python versions).
    - ``number_phases``: how many phases a plain number bounds (requests: connect
      and read; httpx: connect, read, write and pool): the per-attempt estimate is
      the sum of phases (DESIGN section 2).
    - ``default_per_attempt_s``: the per-attempt estimate when no timeout is given
      (httpx: 4 x 5 s), when it differs from ``default_s``.
    - ``socket_default``: without a timeout the call uses the process-wide socket
      default, so a finite ``socket.setdefaulttimeout(N)`` in the module bounds it.
    - ``connects_with``: ``(param name, position)`` of the host argument of a client
      that connects only when it is given (``ftplib.FTP()`` does no I/O; the
      timeout can still be passed to ``connect()``): without it, not reported.
    - ``opens_connection``: a ``carrier`` whose construction itself connects (``imaplib.IMAP4``,
      ``asyncpg.connect``), so it waits on the network, as do the requests on it; the other
      carriers (an HTTP or SDK client, a Redis client, a pool) connect on their first request, and
      their construction takes no time in a worst case (RES104, RES202). A ``connects_with``
      client opens one when its host is given.
    - ``configured_by``: ``(param name, position)`` of an argument that hands the client an
      object carrying its connection settings (redis-py's ``connection_pool=``, a pool's
      ``connection_class=``): when it is passed, the client's own timeout parameters are
      ignored and the object's constructor is the one reported, never the client.
    - ``timeout_from``: ``(param name, position)`` of an argument that hands the client an HTTP
      client whose timeout it uses when it is given none of its own (the OpenAI and Anthropic SDKs
      take a custom ``http_client=``'s timeout unless it is httpx's default): with such a client
      the default is not the one that applies; a client built right there with no timeout leaves it.
    - ``stream_methods``: methods of the client that open a streamed response (httpx's
      ``stream``): a client bound to a local of one function and used there only to open streams
      (through these, or handed to a :data:`~reslint.catalog.timeouts.STREAM_OPENERS` function)
      has its read timeout bound the silence between two events, which the stream's protocol
      sets: a long one is not RES103.
    - ``bounded_per_request``: methods of the client whose own ``timeout=`` replaces the
      client's (aiohttp's request methods): a client bound to a local of one function and
      used there only through these methods, each passing ``timeout=``, is bounded by them
      (a client that leaves the function, or any request without ``timeout=``, is not).
    - ``local_methods``: methods of the built client that send no request (botocore's presigners
      sign a URL or a token locally): a client bound to a local of one function and used there
      only through these, and through ``bounded_per_request`` methods that pass ``timeout=``, is
      not reported.
    - ``held_by_argument``: ``(param name, position, ((value, seconds), ...))``: a client whose
      argument names a service that holds a request open by design before it answers (an SQS client
      long-polls up to 20 s, set per call or by the queue's own attribute): a read timeout a fix
      inserts outlasts that wait, or every long poll of an empty queue would fail.
    - ``streams_from``: ``(param name, position, transports)``: the client reads a stream passed
      as this argument, and only a stream visibly made by one of ``transports`` (qualified names
      of transports that do not bound a read themselves) makes a missing timeout a wait forever; a
      stream of another transport (an HTTP transport with its own read timeout) or of unknown
      origin leaves the call unknown (an MCP ``ClientSession`` over ``stdio_client``).
    - ``url``: ``(param name, position)`` of a URL argument; a constant ``data:`` or
      ``file:`` URL is not a network call.
    - ``whole_units``: the parameter takes a whole number of its unit (libpq's
      ``connect_timeout`` in seconds, pymongo's ``*MS``): a fix rounds the value up,
      to at least 1, since rounding down can reach 0 ("no timeout") or shorten it.
    - ``numeric_strings``: a string holding a number counts as that number
      (psycopg turns keyword arguments into libpq's text ``key=value`` conninfo, so
      ``connect_timeout="0"`` is ``0``: psycopg2/extensions.py ``make_dsn``).
    - ``command``: for a subprocess call, where its command line is (:class:`CommandArgs`):
      only a program that waits on the network with no bound of its own is reported
      (``reslint/catalog/programs.py``).
    - ``module_default``: a module attribute whose assignment in the file (``litellm.request_timeout
      = 120``) replaces the library's default for calls that pass no timeout.
    - ``item_timeouts``: ``(param name, position, key)`` of a list argument whose items can set
      their own timeout under ``key`` (a litellm Router's ``model_list`` deployments, in their
      ``litellm_params``): without its own timeout the call is judged by its default only when
      that list is a visible literal whose items set none.
    - ``fix``: the text a fix inserts, with ``{param}``, ``{seconds}``/``{ms}`` and
      the objects named in ``fix_imports`` (dotted paths) as ``{obj0}``, spelled
      as the file already imports them or with an ``import`` added; ``None`` when
      no fix is offered.
    """

    qualname: str
    params: Tuple[TimeoutParam, ...]
    default_s: Optional[float]
    source: str
    default_note: str = ""
    unit_s: float = 1.0
    disable_values: Tuple[object, ...] = (None,)
    carrier: bool = False
    category: str = NETWORK
    category_by_argument: Optional[Tuple[str, int, Tuple[Tuple[str, str], ...]]] = None
    dsn: Optional[Tuple[str, int, Tuple[str, ...]]] = None
    max_positional: Optional[int] = None
    fix: Optional[str] = "{param}={seconds}"
    fix_imports: Tuple[str, ...] = ()
    socket_default: bool = False
    number_phases: int = 1
    default_per_attempt_s: Optional[float] = None
    connects_with: Optional[Tuple[str, int]] = None
    opens_connection: bool = False
    configured_by: Optional[Tuple[str, Optional[int]]] = None
    timeout_from: Optional[Tuple[str, Optional[int]]] = None
    bounded_per_request: Tuple[str, ...] = ()
    local_methods: Tuple[str, ...] = ()
    held_by_argument: Optional[Tuple[str, int, Tuple[Tuple[str, float], ...]]] = None
    streams_from: Optional[Tuple[str, int, Tuple[str, ...]]] = None
    stream_methods: Tuple[str, ...] = ()
    url: Optional[Tuple[str, int]] = None
    whole_units: bool = False
    numeric_strings: bool = False
    command: Optional[CommandArgs] = None
    blocks: bool = True
    module_default: Optional[str] = None
    item_timeouts: Optional[Tuple[str, Optional[int], str]] = None


@dataclass(frozen=True)
class RetryingCall:
    """A function whose calls retry inside, as its own arguments say (``litellm.completion(num_retries=3)``).

    - ``params``: the parameters that set the number of retries (attempts = value + 1); the
      first one passed wins.
    - ``default_attempts``: attempts when none is passed (1: no retry layer).
    - ``raises``: what a call raises once it gives up; ``off``: how users turn it off.
    - ``module_default``: a module attribute whose assignment in the file (``litellm.num_retries = 3``)
      sets the retries of every call that passes none.
    """

    qualname: str
    params: Tuple[str, ...]
    default_attempts: int
    raises: Tuple[str, ...]
    off: str
    source: str
    module_default: Optional[str] = None


@dataclass(frozen=True)
class TimeoutObjectSpec:
    """A constructor of a timeout object (``httpx.Timeout``, ``aiohttp.ClientTimeout``).

    - ``phases``: the phases it bounds; ``essential``: the phases that must all be
      bounded (or ``total_param`` set) for the call to be bounded.
    - ``positional``: names of positional parameters in order.
    - ``all_phases_param``: a parameter whose value applies to every phase not set
      explicitly (httpx's first argument).
    - ``total_param``: a parameter that bounds the whole call on its own.
    - ``defaults_s``: per-phase value when the parameter is absent (``None``: unbounded).
    """

    qualname: str
    phases: Tuple[str, ...]
    essential: Tuple[str, ...]
    source: str
    positional: Tuple[str, ...] = ()
    all_phases_param: Optional[str] = None
    total_param: Optional[str] = None
    defaults_s: Dict[str, Optional[float]] = field(default_factory=dict)
    disable_values: Tuple[object, ...] = (None,)
    absent_total_note: str = ""


@dataclass(frozen=True)
class NoOpAttribute:
    """An attribute assignment that looks like configuration but does nothing."""

    type_qualname: str
    attribute: str
    message: str
    source: str
