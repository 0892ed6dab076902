"""How long can this call wait? One answer for RES101, RES102, RES103 (and RES104).

:func:`read_call_timeout` looks a call up in the catalog and reads the value of
its timeout: missing (library default applies), disabled, excessive, bounded, or
unknown. Values are followed through names bound once and through timeout
objects (``httpx.Timeout``, ``urllib3.Timeout``, ``aiohttp.ClientTimeout``,
botocore ``Config``). All durations are seconds.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint.analysis.commands import BOUNDED, INTERACTIVE, LOCAL, NETWORK, UNKNOWN_COMMAND, read_command, \
    shown_command
from reslint.analysis.model_calls import items_set_no_timeout, setting_value, unpacked_keywords
from reslint.catalog import OBJECT_KEYWORDS, TIMEOUT_OBJECTS, lookup_timeout_call
from reslint.catalog.idempotency import HTTP_CALLS
from reslint.catalog.model import CEILING_CATEGORIES, INHERITED, MODEL as MODEL_CALL, NETWORK as NETWORK_CALL, \
    TimeoutObjectSpec, TimeoutParam, TimeoutSpec
from reslint.catalog.timeouts import MODEL_ENDPOINT_PATHS, MODEL_SDK_HTTP_CLIENTS, MOUNTED_TIMEOUTS, STREAM_OPENERS, \
    STREAM_READERS, STREAM_REQUESTS, STREAMED_WHEN_ITERATED
from reslint.semantics.arguments import find_argument
from reslint.semantics.context import UNKNOWN, Context, dotted_name
from reslint.semantics.cstutil import source
from reslint.semantics.walk import children, expressions, nodes_within
from reslint.values import is_number

OK, MISSING, DISABLED, EXCESSIVE, UNKNOWN_STATE = "ok", "missing", "disabled", "excessive", "unknown"
_SEVERITY = {DISABLED: 4, EXCESSIVE: 3, UNKNOWN_STATE: 2, OK: 1}


@dataclass
class TimeoutReading:
    """The verdict on one call's timeout.

    - ``state``: ``ok``, ``missing``, ``disabled``, ``excessive`` or ``unknown``.
    - ``reason``: why, in words, for the message.
    - ``seconds``: the offending value for ``excessive`` (seconds).
    - ``per_attempt_s``: the sum of the timeout's phases when all are known.
    - ``replace``: for ``disabled``, the node a fix replaces with a finite value; for
      ``missing``, a ``None`` that asks for the library's default (botocore's
      ``config=None``), which a fix replaces with the timeout it adds.
    - ``object_call``/``missing_keywords``: for ``missing`` inside an inline
      timeout object, the call and the keywords a fix adds to it.
    - ``excessive_phases``: for ``excessive`` from a timeout object, the phases set above the
      ceiling (``("read",)``); empty when one number bounds every phase.
    """

    spec: TimeoutSpec
    state: str
    reason: str = ""
    seconds: Optional[float] = None
    per_attempt_s: Optional[float] = None
    replace: Optional[cst.CSTNode] = None
    object_call: Optional[cst.Call] = None
    missing_keywords: Tuple[str, ...] = ()
    param: Optional[TimeoutParam] = None
    #: for ``missing``: True when the call can wait forever (not just too long)
    unbounded: bool = False
    #: another way to bound the call, for the message (a program's own timeout option)
    advice: str = ""
    #: for ``missing``: the longest wait, in seconds, the server holds a request of this client
    #: open by design (a long poll, ``spec.held_by_argument``): a read timeout a fix adds outlasts it
    held_s: float = 0.0
    excessive_phases: Tuple[str, ...] = ()
    #: for ``missing`` inside an inline timeout object: the keyword among ``missing_keywords`` that
    #: sets the read phase, which a fix makes outlast ``held_s``
    read_keyword: Optional[str] = None


def read_call_timeout(call: cst.Call, ctx: Context) -> Optional[TimeoutReading]:
    """Read the timeout of ``call`` if the catalog lists it; ``None`` otherwise. Memoised per node.

    Called in source order during the walk, so a finite ``socket.setdefaulttimeout(N)``
    seen earlier in a function bounds the stdlib calls after it.
    """
    key = ("timeout", id(call))
    if key in ctx.cache:
        return ctx.cache[key]
    reading = _read(call, ctx)
    if reading is not None and reading.state == MISSING and reading.spec.held_by_argument is not None:
        reading.held_s = _held(call, reading.spec, ctx)
    ctx.cache[key] = reading
    if reading is not None and reading.spec.qualname == "socket.setdefaulttimeout" and \
            _finite_default_call(call, ctx, ctx.scope):
        ctx.cache[("socket-default", id(ctx.scope))] = True
    return reading


def _read(call: cst.Call, ctx: Context) -> Optional[TimeoutReading]:
    reading = _read_timeout(call, ctx)
    if reading is not None and reading.spec.command is not None and reading.state in (MISSING, DISABLED):
        return _judge_command(call, reading, ctx)
    return reading


def _judge_command(call: cst.Call, reading: TimeoutReading, ctx: Context) -> TimeoutReading:
    """A subprocess call with no timeout (or a disabled one) matters only when its program
    waits on the network with no bound of its own (DESIGN section 2, "Timeout categories")."""
    spec = reading.spec
    verdict = read_command(call, spec, ctx, _max_timeout(ctx, NETWORK_CALL))  # its program waits on the network
    if verdict.state == UNKNOWN_COMMAND:
        return TimeoutReading(spec, UNKNOWN_STATE, "the program it runs is not known")
    if verdict.state != NETWORK:
        return TimeoutReading(spec, OK, {
            BOUNDED: "the program it runs bounds its own wait",
            INTERACTIVE: "the program it runs is a session with the user",
            LOCAL: "the program it runs does not wait on the network",
        }[verdict.state])
    program = verdict.program
    where = f"it runs `{shown_command(verdict)}`, which waits on the network: {program.default_note}"
    if reading.state == DISABLED:
        reading.reason = f"{reading.reason}, and {where}"
        return reading
    if verdict.default_s is not None:
        return TimeoutReading(spec, MISSING, where, advice=program.advice)
    return TimeoutReading(spec, MISSING, f"{where}, so a stalled server holds this call, and the worker running "
                                         f"it, forever", unbounded=True, advice=program.advice)


def _read_timeout(call: cst.Call, ctx: Context) -> Optional[TimeoutReading]:
    qual = ctx.qualname(call.func)
    if qual is None:
        return None
    spec = lookup_timeout_call(qual) or ctx.catalog.timeout(qual)
    if spec is None:
        return None
    spec = _categorised(call, spec, ctx)
    if spec.category == NETWORK_CALL and (_asks_a_model(call, ctx) if not spec.carrier else _model_client(call, ctx)):
        spec = dataclasses.replace(spec, category=MODEL_CALL)  # an HTTP request a model answers
    if _has_custom_adapter(call, spec, ctx):
        return TimeoutReading(spec, UNKNOWN_STATE, "a custom adapter is mounted on the session")
    if spec.connects_with is not None and find_argument(call, *spec.connects_with) is None:
        return TimeoutReading(spec, UNKNOWN_STATE, "no host: the client connects later, maybe with a timeout")
    if spec.configured_by is not None:
        configured = find_argument(call, *spec.configured_by)
        if configured is UNKNOWN:
            return TimeoutReading(spec, UNKNOWN_STATE, "the connection settings may come from *args or **kwargs")
        if configured is not None:  # the object passed is reported where it is built, if it has none
            return TimeoutReading(spec, OK, f"connects as the `{spec.configured_by[0]}=` it is given says")
    if spec.url is not None and _local_url(call, spec, ctx):
        return TimeoutReading(spec, OK, "a data: or file: URL is not a network call")
    max_timeout = _max_timeout(ctx, spec.category)
    readings: List[TimeoutReading] = []
    unpacked = _visible_keywords(call, spec, ctx)
    for param in spec.params:
        arg = find_argument(call, param.name, param.position)
        value = arg.value if isinstance(arg, cst.Arg) else None
        if arg is UNKNOWN and unpacked is not None:  # **config, a visible dict
            if param.name in unpacked and unpacked[param.name] is None:
                return TimeoutReading(spec, UNKNOWN_STATE, f"`{param.name}` may be added to the config at run time")
            arg = value = unpacked.get(param.name)
        if arg is UNKNOWN:
            return TimeoutReading(spec, UNKNOWN_STATE, "the timeout may come from *args or **kwargs")
        if arg is None:
            continue
        reading = _read_value(value, spec, ctx, max_timeout)
        reading.param = param
        readings.append(reading)
    if readings:
        combined = _combine(readings)
        if combined.state == MISSING and spec.module_default is not None:  # ``timeout=None``: the default
            return _module_default(spec, ctx, max_timeout) or combined
        if combined.state == EXCESSIVE and combined.excessive_phases == ("read",) and (
                spec.qualname in STREAM_REQUESTS or spec.stream_methods and _opens_streams_only(call, spec, ctx)):
            return TimeoutReading(spec, OK, "a stream's read timeout bounds the silence between two events",
                                  per_attempt_s=combined.per_attempt_s)
        return combined
    dsn = _read_dsn(call, spec, ctx, max_timeout)
    if dsn is not None:
        return dsn
    if spec.socket_default and _finite_socket_default(ctx):
        return TimeoutReading(spec, OK, "the module sets a finite socket.setdefaulttimeout()")
    if spec.module_default is not None:
        setting = _module_default(spec, ctx, max_timeout)
        if setting is not None:
            return setting
    if spec.item_timeouts is not None and \
            not items_set_no_timeout(call, spec.item_timeouts, tuple(p.name for p in spec.params), ctx):
        return TimeoutReading(spec, UNKNOWN_STATE, f"the items of `{spec.item_timeouts[0]}` may set their own timeouts")
    if spec.timeout_from is not None:
        given = _given_client(call, spec, ctx)
        if given is not None:
            return given
    reading = _missing(spec, max_timeout)
    if reading.state == MISSING and spec.streams_from is not None and not _unbounded_stream(call, spec, ctx):
        return TimeoutReading(spec, UNKNOWN_STATE, "its stream comes from a transport that may bound its reads")
    if reading.state == MISSING and (spec.bounded_per_request or spec.local_methods) and \
            _bounded_by_its_requests(call, spec, ctx):
        return TimeoutReading(spec, OK, "used in one function only, by requests that each pass `timeout=` "
                                        "or by calls that send none")
    if reading.state == MISSING and not reading.unbounded and spec.carrier and _built_as_fallback(call, ctx):
        return TimeoutReading(spec, OK, "built only when the caller passes no client of its own; the library's "
                                        "default is bounded")
    return reading


def _given_client(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> Optional[TimeoutReading]:
    """For a client given no timeout of its own but an HTTP client (``timeout_from``: the OpenAI
    SDK's ``http_client=``), whose timeout it then uses: the reading, or ``None`` when the library's
    default still applies (no HTTP client, ``None``, or one built right there with no timeout)."""
    name = spec.timeout_from[0]
    arg = find_argument(call, *spec.timeout_from)
    if arg is UNKNOWN:
        unpacked = _visible_keywords(call, spec, ctx)  # ``**config``, a visible dict
        if unpacked is None or (name in unpacked and unpacked[name] is None):
            return TimeoutReading(spec, UNKNOWN_STATE, f"an `{name}=` with its own timeout may come from **kwargs")
        inner = unpacked.get(name)
    else:
        inner = arg.value if arg is not None else None
    if isinstance(inner, cst.Name) and inner.value == "None":
        return None
    if inner is not None:
        inner, _ = ctx.resolve(inner)  # ``http = httpx.Client()`` bound once, then ``http_client=http``
    if inner is None:
        return None
    if isinstance(inner, cst.Call):
        qual = ctx.qualname(inner.func)
        if qual in MODEL_SDK_HTTP_CLIENTS:  # the SDK's own HTTP client: its default unless given one
            return None if find_argument(inner, "timeout", None) is None and not any(a.star for a in inner.args) \
                else TimeoutReading(spec, UNKNOWN_STATE, f"the `{name}=` it is given sets a timeout")
        inner_spec = (lookup_timeout_call(qual) or ctx.catalog.timeout(qual)) if qual is not None else None
        if inner_spec is not None and inner_spec.carrier:
            if any(a.star for a in inner.args):
                return TimeoutReading(spec, UNKNOWN_STATE, f"the `{name}=` it is given may set a timeout")
            given = [find_argument(inner, p.name, p.position) for p in inner_spec.params]
            if all(arg is None for arg in given):
                return None  # the HTTP client's default timeout: the SDK puts its own in its place
            values = [ctx.value_of(arg.value) for arg in given if isinstance(arg, cst.Arg)]
            if values and all(v == inner_spec.default_s for v in values):
                return None  # the HTTP library's default spelled out: the SDK cannot tell it apart
            return TimeoutReading(spec, OK, f"uses the timeout of the `{name}=` it is given, judged where built")
    return TimeoutReading(spec, UNKNOWN_STATE, f"the `{name}=` it is given may carry its own timeout")


def _visible_keywords(call: cst.Call, spec: TimeoutSpec, ctx: Context):
    """For a call or client built with ``**config`` (and no ``*args``), the keywords of that config
    when it is a visible dict (:func:`reslint.analysis.model_calls.unpacked_keywords`): a literal,
    or a name bound once to one (``kw = {"headers": h}; requests.get(url, **kw)``)."""
    if any(a.star == "*" for a in call.args) or not any(a.star == "**" for a in call.args):
        return None
    return unpacked_keywords(call, ctx)


def _module_default(spec: TimeoutSpec, ctx: Context, max_timeout: float) -> Optional[TimeoutReading]:
    """The reading of the module-wide default the file assigns (``litellm.request_timeout = 120``),
    for a call that passes no timeout of its own; ``None`` when the file assigns none."""
    value = setting_value(ctx, spec.module_default)
    if value is None:
        return None
    if value is UNKNOWN:
        return TimeoutReading(spec, UNKNOWN_STATE, f"`{spec.module_default}` is set at run time")
    return _judge_number(value, spec, max_timeout, None, f"`{spec.module_default} = {value!r}`")


def _built_as_fallback(call: cst.Call, ctx: Context) -> bool:
    """Whether the client ``call`` builds is the fallback for one the caller can pass in:
    ``client or Client()``, ``given if given is not None else Client()``, or an assignment
    ``self._client = Client()`` under ``if self._client is None:`` (a lazy default). Such a
    client exists only when the caller configured none: its timeout is the caller's choice,
    and a library that leaves a *bounded* SDK default in place is not at fault (one that
    leaves a client waiting forever still is; see the caller of this function)."""
    statements = ctx.statements
    if not statements:
        return False
    line = statements[-1]
    for node in expressions(line):
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or) and node.right is call:
            return True
        if isinstance(node, cst.IfExp) and ((node.orelse is call and _tests_given(node.test)) or
                                            (node.body is call and _tests_absent(node.test) is not None)):
            return True
    if not isinstance(line, cst.SimpleStatementLine):
        return False
    targets = {_code(t.target) for small in line.body if isinstance(small, cst.Assign) and small.value is call
               for t in small.targets}
    for stmt in reversed(statements[:-1]):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(stmt, cst.If) and targets and _tests_absent(stmt.test) in targets:
            return True
    return False


def _tests_absent(test: cst.BaseExpression) -> Optional[str]:
    """The expression ``test`` checks to be missing (``x is None``, ``not x``), as code, or ``None``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _code(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and isinstance(target.comparator, cst.Name) and \
                target.comparator.value == "None":
            return _code(test.left)
    return None


def _tests_given(test: cst.BaseExpression) -> bool:
    """Whether ``test`` checks that something was given: ``x is not None``, or ``x`` itself."""
    if isinstance(test, (cst.Name, cst.Attribute)):
        return True
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        return isinstance(target.operator, cst.IsNot) and isinstance(target.comparator, cst.Name) and \
            target.comparator.value == "None"
    return False


def _unbounded_stream(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> bool:
    """Whether the stream ``call`` reads (``spec.streams_from``) is visibly made by a transport that
    does not bound its reads: ``async with stdio_client(p) as (read, write):``, or
    ``read, write = await stack.enter_async_context(stdio_client(p))``, then ``Client(read, write)``."""
    name, position, transports = spec.streams_from
    arg = find_argument(call, name, position)
    if arg is None or arg is UNKNOWN:
        return False
    source = _stream_source(arg.value, ctx)
    qual = ctx.qualname(source.func) if source is not None else None
    return qual is not None and qual in transports


def _stream_source(expr, ctx: Context) -> Optional[cst.Call]:
    """The call whose result ``expr`` (a name bound once, maybe unpacked from a tuple) holds, seen
    through ``await`` and an exit stack's ``enter_async_context``/``enter_context``."""
    value = expr
    if isinstance(expr, cst.Name):
        found = ctx.lookup(expr.value)
        if not found or len(found) != 1:
            return None
        binding = found[0]
        value = binding.value if binding.kind in ("assign", "with") else None
        if binding.kind == "unpack":
            value = _unpacked_from(binding.node, expr.value)
    for _ in range(4):
        if isinstance(value, cst.Await):
            value = value.expression
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
                value.func.attr.value in ("enter_async_context", "enter_context") and value.args:
            value = value.args[0].value
        else:
            break
    return value if isinstance(value, cst.Call) else None


def _unpacked_from(stmt, name: str):
    """The value a tuple target holding ``name`` is unpacked from, in the ``with`` or assignment
    statement ``stmt``."""
    def holds(target) -> bool:
        if isinstance(target, cst.Name):
            return target.value == name
        if isinstance(target, (cst.Tuple, cst.List)):
            return any(holds(e.value) for e in target.elements)
        return False

    if isinstance(stmt, cst.With):
        return next((item.item for item in stmt.items if item.asname is not None and holds(item.asname.name)), None)
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign) and any(holds(t.target) for t in small.targets):
                return small.value
    return None


def _bounded_by_its_requests(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> bool:
    """Whether the client ``call`` builds is bound to a local of the function being visited
    (``s = Client()``, ``async with Client() as s``), bound once, and used there only to call
    the methods of ``spec.bounded_per_request`` with ``timeout=`` (or others, such as
    ``close``): then every request through it is bounded by its own timeout. A client that is
    returned, stored, passed on or captured otherwise is judged by its constructor. A client
    built only to make one request (``aiohttp.ClientSession().get(url, timeout=5)``) is bounded by
    that request's timeout. Calls of ``spec.local_methods`` send no request (a botocore client
    that only presigns a URL) and need none; a client of such a spec may call nothing else."""
    statement = ctx.statement
    if statement is not None:  # the statement's own expressions, not the blocks of a compound one
        for node in nodes_within(statement, _OWN_EXPRESSIONS):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.value is call:
                if node.func.attr.value in spec.local_methods:
                    return True
                return node.func.attr.value in spec.bounded_per_request and \
                    any(a.keyword is not None and a.keyword.value == "timeout" for a in node.args)
    uses = _local_uses(call, ctx)
    if uses is None:
        return False
    requests = 0
    only_listed = bool(spec.local_methods)  # any other method of such a client may send a request
    # a client whose requests are reached through resources (``client.chat.completions.create``):
    # any other call through it may be a request too (``client.files.list()``), so only the listed
    # requests and closing it are allowed
    resources = any("." in method for method in spec.bounded_per_request)
    for parent, node in uses:
        if isinstance(parent, cst.Attribute) and parent.value is node:
            method, caller = uses.chains.get(id(node), (parent.attr.value, None))
            if method in spec.local_methods and caller is not None:
                requests += 1  # sends nothing: needs no timeout
                continue
            if only_listed and method not in spec.bounded_per_request and method not in _CLOSING:
                return False
            if method in spec.bounded_per_request:
                if caller is None or not any(a.keyword is not None and a.keyword.value == "timeout"
                                             for a in caller.args):
                    return False
                requests += 1
            elif caller is None or "." in method and not resources:
                return False  # ``f = s.get``, ``chat = client.chat``: the method leaves the function
            elif resources and method not in _CLOSING:
                return False
            continue
        return False  # passed on, returned, stored, compared...: it may be used elsewhere
    return requests > 0


def _opens_streams_only(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> bool:
    """Whether the client ``call`` builds is bound to a local of the function being visited and used
    there only to open streams: ``client.stream(...)`` (``spec.stream_methods``), handed to a
    :data:`STREAM_OPENERS` function as its first argument or ``client=`` (``connect_sse(client,
    "POST", url)``), or closed. Such a client's read timeout bounds the silence between two events
    of a stream (an agent run's output, a sandbox's log), which the stream's protocol sets: a long
    one is chosen, not excessive (the caller spares the read phase only; a long connect is not a
    stream's). A missing or disabled timeout is still reported: a silent stream then holds forever."""
    uses = _local_uses(call, ctx)
    if uses is None:
        return False
    opened = set()
    stack = [ctx.scope.node]  # nested functions too: they may capture the client, as its uses do
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and ctx.qualname(node.func) in STREAM_OPENERS:
            first = next((a for a in node.args if not a.star), None)
            client = next((a for a in node.args if a.keyword is not None and a.keyword.value == "client"),
                          first if first is not None and first.keyword is None else None)
            if client is not None:
                opened.add(id(client))
        stack.extend(children(node))
    streams = 0
    for parent, node in uses:
        if isinstance(parent, cst.Attribute) and parent.value is node:
            method, caller = uses.chains.get(id(node), (parent.attr.value, None))
            if caller is None or method not in spec.stream_methods + tuple(_CLOSING):
                return False
            streams += method in spec.stream_methods
            continue
        if isinstance(parent, cst.Arg) and id(parent) in opened:
            streams += 1
            continue
        return False
    return streams > 0


def _local_uses(call: cst.Call, ctx: Context) -> Optional["_Uses"]:
    """The reads of the one local name of the function being visited that the client ``call``
    builds is bound to, once (``s = Client()``, ``async with Client() as s``), or ``None``: a client
    bound to no local, to several, or rebound in its own block, or a name a nested scope rebinds."""
    scope = ctx.scope
    if scope is None or scope.kind != "function":
        return None
    key = ("bound-values", id(scope))  # once per function: value -> the names bound to it
    if key not in ctx.cache:
        index: Dict[int, List[str]] = {}
        for bound, bindings in scope.bindings.items():
            for b in bindings:
                if b.kind in ("assign", "with") and b.value is not None:
                    index.setdefault(id(b.value), []).append(bound)
        ctx.cache[key] = index
    names = ctx.cache[key].get(id(call), [])
    if len(names) != 1:
        return None
    name, body = names[0], scope.node
    bindings = scope.bindings[name]
    if len(bindings) != 1:  # ``async with Session() as s:`` twice in one function: each in its block
        binding = next(b for b in bindings if b.value is call)
        if binding.kind != "with" or not isinstance(binding.node, cst.With):
            return None
        body = binding.node.body
        inside = {id(n) for n in expressions(body)}
        if any(b is not binding and id(b.node) in inside for b in bindings):
            return None  # rebound inside its own block
    uses_key = ("name-uses", id(body), name)
    if uses_key not in ctx.cache:
        ctx.cache[uses_key] = _name_uses(body, name)
    return ctx.cache[uses_key]


#: where a statement's own expressions end: nested scopes, blocks and the next clause's header
_OWN_EXPRESSIONS = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseSuite, cst.Else, cst.ExceptHandler,
                    cst.Finally, cst.If)

#: the calls that close a client: no request
_CLOSING = frozenset({"close", "aclose"})


def _chain(call: cst.Call) -> Optional[Tuple[cst.Name, str]]:
    """``client.chat.completions.create(...)`` → (the ``client`` Name, ``"chat.completions.create"``)."""
    parts, node = [], call.func
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name) or not parts:
        return None
    return node, ".".join(reversed(parts))


class _Uses(list):
    """(parent, Name) pairs of a name's reads; ``chains``: for a read that a call's attribute chain
    starts from, (the dotted method, the call) by id(Name)."""

    def __init__(self):
        super().__init__()
        self.chains: Dict[int, Tuple[str, cst.Call]] = {}


def _name_uses(body, name: str) -> Optional[_Uses]:
    """Every read of ``name`` under ``body`` with its parent node (nested functions included,
    which may capture it), or ``None`` when a nested scope rebinds it (too subtle to follow)."""
    out = _Uses()
    stack = [(None, body)]
    while stack:
        parent, node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            chain = _chain(node)
            if chain is not None and chain[0].value == name:
                out.chains[id(chain[0])] = (chain[1], node)
        if isinstance(node, cst.Name) and node.value == name:
            if isinstance(parent, (cst.AssignTarget, cst.AsName)) or \
                    (isinstance(parent, cst.Attribute) and parent.attr is node) or \
                    (isinstance(parent, cst.Arg) and parent.keyword is node) or \
                    (isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node):
                continue  # the binding itself, an attribute or keyword of that name, a definition's name
            if isinstance(parent, cst.Param):
                return None  # a nested function's parameter of the same name
            out.append((parent, node))
            continue
        for child in children(node):
            stack.append((node, child))
    return out


def _local_url(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> bool:
    arg = find_argument(call, *spec.url)
    if arg is None or arg is UNKNOWN:
        return False
    text = ctx.string_text(arg.value)
    return text is not None and text.lower().startswith(("data:", "file:"))


def _finite_socket_default(ctx: Context) -> bool:
    """Whether a finite ``socket.setdefaulttimeout(N)`` runs before this call: at module
    level (import time), or earlier in the same function (the walk is in source order)."""
    return bool(ctx.cache.get(("socket-default", id(ctx.scope)))) or _module_socket_default(ctx)


def _module_socket_default(ctx: Context) -> bool:
    """Whether a finite ``socket.setdefaulttimeout(N)`` runs at module level (import time)."""
    key = ("socket-default", "module")
    if key not in ctx.cache:
        module = ctx.model.module_scope
        ctx.cache[key] = any(
            scope is module and _finite_default_call(call, ctx, scope) for call, scope in ctx.model.expression_calls
        )
    return ctx.cache[key]


def called_name(call: cst.Call, spec: TimeoutSpec) -> str:
    """The name a finding gives the call: the catalog's qualified name, or the call as written when
    the entry is a pattern (a gRPC stub's ``*_pb2_grpc.*Stub.*``: ``self.rpc.SubscribeInvoices``)."""
    if "*" not in spec.qualname:
        return spec.qualname
    return dotted_name(call.func) or " ".join(source(call.func).split())


def subscription(call: cst.Call, ctx: Context) -> bool:
    """Whether ``call`` opens an event subscription that reconnects when it drops: a streamed request
    (:data:`STREAM_REQUESTS`) opened by a ``with`` whose body reads the response line by line
    (:data:`STREAM_READERS`) in a loop that yields what it reads (``async for line in r.aiter_lines():
    ... yield event``), or a server stream (:data:`STREAMED_WHEN_ITERATED`) that a loop yielding what
    it receives iterates (``async for invoice in stub.SubscribeInvoices(request): yield ...``); either
    inside a ``while`` loop whose ``try`` goes round again when the stream fails (the reconnect). Waiting
    between events is what it is for: no read timeout or deadline fits it (a deadline ends the stream).
    A download read in bytes, or a finite stream with no reconnect around it, is no subscription."""
    statements = ctx.statements
    if ctx.qualname(call.func) not in STREAM_REQUESTS:
        reading = read_call_timeout(call, ctx)
        if reading is None or reading.spec.qualname not in STREAMED_WHEN_ITERATED:
            return False
        reads = next((s for s in statements if isinstance(s, cst.For) and s.iter is call and _yields(s.body)), None)
        return reads is not None and _reconnects(reads, statements)
    owner = next((s for s in reversed(statements) if isinstance(s, cst.With)), None)
    if owner is None:
        return False
    item = next((i for i in owner.items if (i.item.expression if isinstance(i.item, cst.Await) else i.item) is call),
                None)
    if item is None or item.asname is None or not isinstance(item.asname.name, cst.Name):
        return False
    response = item.asname.name.value
    for loop in nodes_within(owner.body):
        if not isinstance(loop, cst.For):
            continue
        reader = loop.iter
        if isinstance(reader, cst.Call) and isinstance(reader.func, cst.Attribute) and \
                isinstance(reader.func.value, cst.Name) and reader.func.value.value == response and \
                reader.func.attr.value in STREAM_READERS and _yields(loop.body):
            return _reconnects(owner, statements)
    return False


def _yields(body) -> bool:
    return any(isinstance(n, cst.Yield) for n in nodes_within(body))


def _reconnects(stream, statements) -> bool:
    """Whether the statement ``stream`` (the ``with`` or ``for`` reading a stream) sits in a ``try``
    of a ``while`` loop (among the enclosing ``statements``) whose handler does not leave it: when
    the stream fails, the loop opens it again."""
    index = next((k for k, s in enumerate(statements) if s is stream), None)
    if index is None:
        return False
    for k in range(index - 1, -1, -1):
        outer = statements[k]
        if isinstance(outer, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(outer, cst.Try) and any(k2 < k and isinstance(statements[k2], cst.While)
                                              for k2 in range(k)):
            from reslint.analysis.loops import always_leaves  # loops reads timeouts: imported when needed

            return any(not always_leaves(h.body) for h in outer.handlers)
    return False


def restores_socket_default(call: cst.Call, reading: TimeoutReading, ctx: Context) -> bool:
    """Whether ``call``, a ``socket.setdefaulttimeout(None)``, puts back Python's default in the
    ``finally:`` of a function that set another one before that ``try`` (``setdefaulttimeout(5); try:
    ... finally: setdefaulttimeout(None)``): a restore, not a timeout switched off. Not when the
    module sets a finite default at import: ``None`` then wipes that one out."""
    scope = ctx.scope
    if reading.spec.qualname != "socket.setdefaulttimeout" or scope is None or scope.kind != "function" or \
            _module_socket_default(ctx):
        return False
    for node in nodes_within(scope.node):
        if not isinstance(node, cst.Try) or node.finalbody is None or \
                not any(inner is call for inner in nodes_within(node.finalbody)):
            continue
        body = list(scope.node.body.body) if isinstance(scope.node.body, cst.IndentedBlock) else []
        before = body[:next((i for i, stmt in enumerate(body) if stmt is node), 0)]
        return any(isinstance(inner, cst.Call) and inner.args and ctx.qualname(inner.func, scope) == reading.spec.qualname
                   and not (isinstance(inner.args[0].value, cst.Name) and inner.args[0].value.value == "None")
                   for stmt in before for inner in nodes_within(stmt))
    return False


def _finite_default_call(call: cst.Call, ctx: Context, scope) -> bool:
    if ctx.qualname(call.func, scope) != "socket.setdefaulttimeout" or not call.args:
        return False
    value = ctx.value_of(call.args[0].value, scope)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _max_timeout(ctx: Context, category: str) -> float:
    settings = ctx.settings
    return settings.max_timeout_for(category) if settings is not None else 60.0


def _categorised(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> TimeoutSpec:
    """``spec`` with the category its ``category_by_argument`` gives this call (a boto3 client of
    ``"bedrock-runtime"`` is a model client), or ``spec`` itself."""
    if spec.category_by_argument is None:
        return spec
    name, position, categories = spec.category_by_argument
    arg = find_argument(call, name, position)
    if arg is None or arg is UNKNOWN:
        return spec
    value = ctx.string_text(arg.value)
    category = dict(categories).get(value) if value is not None else None
    return spec if category is None else dataclasses.replace(spec, category=category)


def _held(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> float:
    """How long, in seconds, the service the client ``call`` builds holds a request open by design
    (``spec.held_by_argument``: an SQS client's long polls, 20 s at most); ``0.0`` for another."""
    name, position, held = spec.held_by_argument
    arg = find_argument(call, name, position)
    service = ctx.string_text(arg.value) if isinstance(arg, cst.Arg) else None
    return dict(held).get(service, 0.0) if service is not None else 0.0


def _asks_a_model(call: cst.Call, ctx: Context) -> Optional[bool]:
    """Whether an HTTP request ``call`` is a POST to a model API that generates (its URL's path ends
    with one of ``MODEL_ENDPOINT_PATHS``: ``f"{BASE}/v1/messages"``, ``"/chat/completions"``): ``None``
    when it is no request reslint knows, or its method or URL's text is not known."""
    qual = ctx.qualname(call.func)
    if qual in HTTP_CALLS and HTTP_CALLS[qual] is not None:
        verb, position = HTTP_CALLS[qual], 0
    elif qual in HTTP_CALLS or qual in STREAM_REQUESTS:
        method = find_argument(call, "method", 0)  # ``request("POST", url)``, ``stream("POST", url)``
        verb, position = (ctx.string_text(method.value) if isinstance(method, cst.Arg) else None), 1
    else:
        return None
    if not isinstance(verb, str) or verb.upper() != "POST":
        return False if isinstance(verb, str) else None  # a GET of a model API reads: it generates nothing
    arg = find_argument(call, "url", position)
    if not isinstance(arg, cst.Arg):
        return None
    texts = _url_texts(arg.value, ctx)
    if not texts:
        return None
    return all(text.split("?", 1)[0].split("#", 1)[0].rstrip("/").endswith(MODEL_ENDPOINT_PATHS) for text in texts)


def _url_texts(expr, ctx: Context, scope=None, depth: int = 0) -> Optional[List[str]]:
    """The texts a URL expression can have whose ends say its path: a string or constant
    (``f"{BASE}/v1/messages"``: static parts only), the last part of a sum (``base + "/v1/messages"``),
    the default of ``configured or DEFAULT_URL`` (the setting that overrides it names the same
    endpoint), and a name's every assignment, where one that only appends a query or a fragment to
    the name itself (``url = f"{url}?{query}"``) keeps the path, and every ``self.url = ...`` of the
    class for ``self.url``. ``None`` when any of them is unknown.
    ``scope``: where the expression's names are looked up (the visited function's by default)."""
    scope = scope or ctx.scope
    if depth > 6:
        return None
    if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or):
        return _url_texts(expr.right, ctx, scope, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _url_texts(expr.right, ctx, scope, depth + 1)  # the path ends as its last part does
    if isinstance(expr, (cst.Name, cst.Attribute)):
        bindings = ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else ctx.self_attribute(expr, scope)
        if isinstance(expr, cst.Attribute) and bindings is None:
            return None  # another object's attribute: not known here
        bindings = bindings or []
        texts: List[str] = []
        for binding in bindings:
            if binding.kind != "assign" or binding.value is None:
                return None
            if len(bindings) > 1 and isinstance(expr, cst.Name) and _appends_query(binding.value, expr.value):
                continue
            found = _url_texts(binding.value, ctx, binding.scope, depth + 1)
            if not found:
                return None
            texts.extend(found)
        return texts or None
    text = ctx.string_text(expr, scope)
    return [text] if text else None


def _appends_query(value, name: str) -> bool:
    """``f"{url}?{query}"`` / ``f"{url}#{part}"``: a rebinding of ``name`` that keeps its path."""
    if not isinstance(value, cst.FormattedString) or len(value.parts) < 2:
        return False
    first, second = value.parts[0], value.parts[1]
    return isinstance(first, cst.FormattedStringExpression) and isinstance(first.expression, cst.Name) \
        and first.expression.value == name and isinstance(second, cst.FormattedStringText) \
        and second.value.startswith(("?", "#"))


def _model_client(call: cst.Call, ctx: Context) -> bool:
    """Whether the HTTP client ``call`` builds is bound to a local of the function being visited and
    used there only to send requests to model APIs that generate (:func:`_asks_a_model`), and to
    close it: what it waits on is a model's answer."""
    uses = _local_uses(call, ctx)
    if uses is None:
        return False
    asked = 0
    for parent, node in uses:
        if not (isinstance(parent, cst.Attribute) and parent.value is node):
            return False  # passed on, returned, stored: it may send other requests elsewhere
        method, caller = uses.chains.get(id(node), (parent.attr.value, None))
        if method in _CLOSING and caller is not None:
            continue
        if caller is None or _asks_a_model(caller, ctx) is not True:
            return False
        asked += 1
    return asked > 0


def _combine(readings: List[TimeoutReading]) -> TimeoutReading:
    states = [r.state for r in readings]
    for wanted in (EXCESSIVE, OK, UNKNOWN_STATE, DISABLED, MISSING):
        if wanted in states:
            return readings[states.index(wanted)]
    return readings[0]


def _missing(spec: TimeoutSpec, max_timeout: float) -> TimeoutReading:
    if spec.default_s == INHERITED:
        return TimeoutReading(spec, OK, spec.default_note)
    if spec.default_s is None:
        return TimeoutReading(spec, MISSING, spec.default_note or "the library waits forever by default",
                              unbounded=True)
    per_attempt = spec.default_per_attempt_s or spec.default_s
    if spec.category in CEILING_CATEGORIES and spec.default_s > max_timeout:
        return TimeoutReading(spec, MISSING, spec.default_note, per_attempt_s=per_attempt)
    return TimeoutReading(spec, OK, spec.default_note, per_attempt_s=per_attempt)


def _has_custom_adapter(call: cst.Call, spec: TimeoutSpec, ctx: Context) -> bool:
    """Whether the session the call is made on has an adapter other than the stock one mounted
    (catalog ``MOUNTED_TIMEOUTS``)."""
    stock = next((adapter for prefix, adapter in MOUNTED_TIMEOUTS if spec.qualname.startswith(prefix)), None)
    func = call.func
    if stock is None or not isinstance(func, cst.Attribute):
        return False
    mounts = ctx.mounts_of(func.value)
    return any(ctx.type_of(adapter) != stock for adapter in mounts or ())


def _read_dsn(call: cst.Call, spec: TimeoutSpec, ctx: Context, max_timeout: float) -> Optional[TimeoutReading]:
    if spec.dsn is None:
        return None
    name, position, keys = spec.dsn
    arg = find_argument(call, name, position)
    if arg is None:
        return None
    if arg is UNKNOWN:
        return TimeoutReading(spec, UNKNOWN_STATE, "the connection string may come from *args or **kwargs")
    text = ctx.string_text(arg.value)
    if text is None:
        return TimeoutReading(spec, UNKNOWN_STATE, "the connection string cannot be read statically")
    for key in keys:
        # URI options are case-insensitive (MongoDB connection string spec); a negative value
        # is read, so that it is judged (libpq: "zero, negative ... means wait indefinitely")
        match = re.search(rf"\b{re.escape(key)}\s*=\s*(-?[0-9.]+)", text, re.IGNORECASE)
        if match:
            try:
                value = float(match.group(1))
            except ValueError:
                return TimeoutReading(spec, UNKNOWN_STATE, "unreadable timeout in the connection string")
            return _judge_number(value, spec, max_timeout, None, f"{key}={match.group(1)} in the connection string")
    return None


def _judge_number(value, spec: TimeoutSpec, max_timeout: float, node, what: str) -> TimeoutReading:
    if value in spec.disable_values and not isinstance(value, bool):
        return TimeoutReading(spec, DISABLED, f"{what} disables the timeout", replace=node)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        # no library takes a negative timeout as a bound: libpq waits forever, others raise
        return TimeoutReading(spec, DISABLED, f"{what} is negative: it sets no working timeout", replace=node)
    if value is None:
        # where None does not disable the timeout it asks for the library's default (botocore's
        # `config=None`), which is judged as if no value were given
        reading = _missing(spec, max_timeout)
        reading.reason = f"{what} means the library's default: {reading.reason}"
        reading.replace = node
        return reading
    seconds = value * spec.unit_s
    per_attempt = seconds * spec.number_phases
    if spec.category in CEILING_CATEGORIES and seconds > max_timeout:
        return TimeoutReading(spec, EXCESSIVE, what, seconds=seconds, per_attempt_s=per_attempt)
    return TimeoutReading(spec, OK, what, per_attempt_s=per_attempt)


def _read_value(expr, spec: TimeoutSpec, ctx: Context, max_timeout: float) -> TimeoutReading:
    if isinstance(expr, cst.IfExp):
        branches = [_read_value(e, spec, ctx, max_timeout) for e in (expr.body, expr.orelse)]
        return max(branches, key=lambda r: _SEVERITY.get(r.state, 0))
    target, scope = ctx.resolve(expr)
    followed = target is not expr
    if isinstance(target, cst.Call):
        qual = ctx.qualname(target.func, scope)
        obj = TIMEOUT_OBJECTS.get(qual) if qual else None
        if obj is not None:
            return _read_object(target, obj, spec, ctx, scope, max_timeout, inline=not followed)
        return TimeoutReading(spec, UNKNOWN_STATE, "computed at run time")
    value = ctx.value_of(target, scope)
    code = _code(expr)
    if value is UNKNOWN:
        return TimeoutReading(spec, UNKNOWN_STATE, "computed at run time")
    if isinstance(value, tuple):
        return _read_tuple(expr if not followed else None, value, target, spec, max_timeout, code)
    if isinstance(value, str) and spec.numeric_strings:
        try:
            value = float(value)
        except ValueError:
            return TimeoutReading(spec, UNKNOWN_STATE, "not a number")
        value = int(value) if value.is_integer() else value
    if isinstance(value, bool) or not (value is None or isinstance(value, (int, float))):
        return TimeoutReading(spec, UNKNOWN_STATE, "not a number")
    what = f"`{code}`" if not followed else f"`{code}` (= {value!r})"
    return _judge_number(value, spec, max_timeout, expr, what)


def _read_tuple(node, values: tuple, target, spec: TimeoutSpec, max_timeout: float, code: str) -> TimeoutReading:
    total = 0.0
    worst: Optional[TimeoutReading] = None
    elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else [None] * len(values)
    for value, element in zip(values, elements):
        if value is UNKNOWN:
            worst = worst or TimeoutReading(spec, UNKNOWN_STATE, "computed at run time")
            continue
        if value is None:
            replace = element.value if (element is not None and node is not None) else None
            return TimeoutReading(spec, DISABLED, f"`{code}` leaves a phase without a bound", replace=replace)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return TimeoutReading(spec, UNKNOWN_STATE, "not a number")
        seconds = value * spec.unit_s
        total += seconds
        if spec.category in CEILING_CATEGORIES and seconds > max_timeout and (worst is None or worst.state != EXCESSIVE):
            worst = TimeoutReading(spec, EXCESSIVE, f"`{code}`", seconds=seconds)
    if worst is not None:
        worst.per_attempt_s = None if worst.state == UNKNOWN_STATE else total
        return worst
    return TimeoutReading(spec, OK, f"`{code}`", per_attempt_s=total)


def _object_arguments(call: cst.Call, obj: TimeoutObjectSpec) -> Optional[Dict[str, cst.BaseExpression]]:
    keywords = OBJECT_KEYWORDS.get(obj.qualname, {})
    given: Dict[str, cst.BaseExpression] = {}
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            given[keywords.get(arg.keyword.value, arg.keyword.value)] = arg.value
            continue
        if positional >= len(obj.positional):
            return None
        given[obj.positional[positional]] = arg.value
        positional += 1
    return given


def _read_object(call: cst.Call, obj: TimeoutObjectSpec, spec: TimeoutSpec, ctx: Context, scope, max_timeout: float,
                 inline: bool) -> TimeoutReading:
    given = _object_arguments(call, obj)
    if given is None:
        return TimeoutReading(spec, UNKNOWN_STATE, "timeout object built from *args or **kwargs")
    name = obj.qualname
    phases: Dict[str, object] = {}
    explicit_none: Dict[str, cst.BaseExpression] = {}
    from_default = set()
    for phase in obj.phases:
        if phase in given:
            expr = given[phase]
        elif obj.all_phases_param and obj.all_phases_param in given:
            expr = given[obj.all_phases_param]
        else:
            phases[phase] = obj.defaults_s.get(phase, UNKNOWN)
            from_default.add(phase)
            continue
        value = ctx.value_of(expr, scope)
        phases[phase] = value
        if value is None:
            explicit_none[phase] = expr
    total_value = UNKNOWN
    total_given = obj.total_param is not None and obj.total_param in given
    if total_given:
        total_value = ctx.value_of(given[obj.total_param], scope)
        if isinstance(total_value, (int, float)) and not isinstance(total_value, bool):
            seconds = float(total_value)
            if seconds > max_timeout and spec.category in CEILING_CATEGORIES:
                return TimeoutReading(spec, EXCESSIVE, f"`{name}` total={total_value}", seconds=seconds,
                                      per_attempt_s=seconds)
            return TimeoutReading(spec, OK, f"`{name}` total", per_attempt_s=seconds)
        if total_value is UNKNOWN:
            return TimeoutReading(spec, UNKNOWN_STATE, "computed at run time")
    unbounded = [p for p in obj.essential if phases.get(p, UNKNOWN) is None]
    if unbounded:
        phase = unbounded[0]
        if total_given and total_value is None:
            node = given[obj.total_param] if inline else None
            return TimeoutReading(spec, DISABLED, f"`{name}(total=None)` with no {phase} bound", replace=node)
        if obj.all_phases_param and given.get(obj.all_phases_param) is not None and all(
                phases.get(p) is None for p in obj.essential) and not set(given) - {obj.all_phases_param}:
            node = given[obj.all_phases_param] if inline else None
            return TimeoutReading(spec, DISABLED, f"`{name}(None)` disables every phase", replace=node)
        if phase in explicit_none:
            node = explicit_none[phase] if inline else None
            return TimeoutReading(spec, DISABLED, f"`{name}` sets {phase} to None", replace=node)
        note = obj.absent_total_note or f"`{name}` leaves {phase} unbounded"
        missing = tuple(_fix_keywords(obj, unbounded))
        return TimeoutReading(spec, MISSING, note, object_call=call if inline else None, missing_keywords=missing,
                              unbounded=True)
    if any(v is UNKNOWN for v in phases.values()):
        return TimeoutReading(spec, UNKNOWN_STATE, "computed at run time")
    numbers = {p: float(v) for p, v in phases.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    total = sum(numbers.values())
    over = tuple(p for p, seconds in numbers.items() if p not in from_default and seconds > max_timeout)
    if over and spec.category in CEILING_CATEGORIES:
        phase = over[0]
        return TimeoutReading(spec, EXCESSIVE, f"`{name}` {phase}={phases[phase]}", seconds=numbers[phase],
                              per_attempt_s=total, excessive_phases=over)
    # A library default is judged phase by phase, as a configured phase is (botocore's 60 s connect
    # and 60 s read are each within a 60 s ceiling); their sum is only the per-attempt estimate.
    above = [p for p in obj.phases if p in from_default and numbers.get(p, 0.0) > max_timeout]
    if above and spec.category in CEILING_CATEGORIES:
        defaults = " and ".join(f"{numbers[p]:g} s {p}" for p in above)
        reason = f"`{name}` leaves the default{'s' if len(above) > 1 else ''} {defaults} in place"
        missing = tuple(_fix_keywords(obj, above))
        read = _fix_keywords(obj, ["read"])[0] if "read" in above else None
        return TimeoutReading(spec, MISSING, reason, per_attempt_s=total, object_call=call if inline else None,
                              missing_keywords=missing, read_keyword=read)
    return TimeoutReading(spec, OK, f"`{name}`", per_attempt_s=total)


def _fix_keywords(obj: TimeoutObjectSpec, phases) -> List[str]:
    if obj.total_param is not None and obj.absent_total_note:
        return [obj.total_param]
    reverse = {phase: kw for kw, phase in OBJECT_KEYWORDS.get(obj.qualname, {}).items()}
    return [reverse.get(p, p) for p in phases]


def _code(node) -> str:
    try:
        return source(node)
    except Exception:  # noqa: BLE001 - only used for messages
        return "…"
