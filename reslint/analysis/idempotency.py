"""Which calls are non-idempotent writes, which keys they carry, and where keys are minted.

One answer for RES401 and RES402: :meth:`Idempotency.write_kind` says whether a
call is a write that a replay duplicates (HTTP POST/PATCH, SQL INSERT without
conflict handling or ``SET x = x + ...``, payments, mail, messages, AWS
create/publish/invoke); :meth:`Idempotency.keys` finds the idempotency keys the
call sends (keyword arguments, header or body dicts, helpers that build them);
:meth:`Idempotency.fresh_keys` finds the calls that mint a new key on every
attempt (``uuid4()``, ``secrets.token_*``, time, random) reached from a key.
Catalog facts: :mod:`reslint.catalog.idempotency`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from reslint.analysis.facts import STATUS_WRITE_WHY, WRITE_FIX, WRITE_WHY
from reslint.catalog import canonical, idempotency as cat
from reslint.catalog.clients import COUNTS_CONFIG, RETRYING_CLIENTS
from reslint.libraries import client_attempts
from reslint.semantics.arguments import find_argument
from reslint.semantics.context import Context
from reslint.model.policy import RetriedKind
from reslint.semantics.walk import children, expressions, nodes_within, statement_blocks
from reslint.values import is_number

_DICT_PARAMS = ("headers", "json", "data", "params", "options", "extra_headers", "body")
_UPDATE_INCREMENT = re.compile(r"\bSET\b.*?\b(\w+)\s*=\s*\1\s*[-+]", re.IGNORECASE | re.DOTALL)


def _string(node) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001
            return None
        return value if isinstance(value, str) else None
    return None


def _graphql_query(document: str) -> bool:
    """Whether a GraphQL document holds queries only: it starts with ``{`` or ``query`` (or a
    ``fragment``), and no definition after a closing brace is a ``mutation`` or a
    ``subscription`` (comments, ``#`` to the end of a line, left out; a field of that name after
    a brace counts too, which keeps such a document a write)."""
    text = re.sub(r"#[^\n]*", "", document).strip()
    first = re.match(r"\{|[A-Za-z_]+", text)
    if first is None or first.group(0) not in ("{", "query", "fragment"):
        return False
    later = re.findall(r"\}\s*([A-Za-z_]+)", text)
    return not set(later) & set(cat.GRAPHQL_WRITE_OPERATIONS)


def _tool_argument(call: cst.Call, position: int) -> Optional[cst.Arg]:
    """The argument of a tool call that names the tool: ``name=`` or the one at ``position``."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "name"), None)
    return arg or (positional[position] if len(positional) > position else None)


def _parameter_slot(params: cst.Parameters, name: str, shift: int) -> Optional[Tuple[str, str]]:
    """``(position, name)`` of the parameter ``name`` as a caller passes it: its position among the
    positional parameters less ``shift`` (a method's ``self``), ``""`` when it is keyword-only;
    ``None`` for ``self`` itself or a ``*args``/``**kwargs``."""
    ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
    if name in ordered:
        position = ordered.index(name) - shift
        return (str(position), name) if position >= 0 else None
    if any(p.name.value == name for p in params.kwonly_params):
        return ("", name)
    return None


def first_string(call: cst.Call, ctx: Context, scope=None) -> Optional[str]:
    """The text of a call's first positional argument, or of its ``method=`` (the method of
    ``request("POST", url)``, ``stream("GET", url)``), read in ``scope``; ``None`` when unknown."""
    for arg in call.args:
        if (arg.keyword is None and not arg.star) or (arg.keyword is not None and arg.keyword.value == "method"):
            return ctx.string_text(arg.value, scope)
    return None


def request_method(call: cst.Call, ctx: Context, scope=None) -> Optional[str]:
    """The HTTP method an HTTP request call of the catalog sends (``requests.get``: ``GET``;
    ``session.request("POST", url)``: ``POST``), upper case; ``None`` for another call or a
    method that is not known."""
    qual = ctx.qualname(call.func, scope)
    if qual not in cat.HTTP_CALLS:
        return None
    method = cat.HTTP_CALLS[qual] or first_string(call, ctx, scope)
    return method.upper() if isinstance(method, str) else None


class Idempotency:
    """Per-file idempotency analysis (memoised on the context's cache)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._scope_nodes: Dict[int, Set[int]] = {}
        self._added: Dict[int, Dict[str, List[Tuple[str, cst.BaseExpression, cst.CSTNode]]]] = {}

    # -- writes ------------------------------------------------------------------------
    def write_kind(self, call: cst.Call) -> Optional[str]:
        """A short description (``HTTP POST``, ``SQL INSERT``…) when ``call`` is a write that a
        replay duplicates, else ``None``."""
        ctx = self.ctx
        qual = ctx.qualname(call.func)
        if qual in cat.HTTP_CALLS:
            method = cat.HTTP_CALLS[qual] or self._first_string(call)
            if isinstance(method, str) and method.upper() in cat.NON_IDEMPOTENT_METHODS:
                return None if self._reads_only(call, fixed=cat.HTTP_CALLS[qual] is not None) else \
                    f"HTTP {method.upper()}"
            return None
        if qual is None and isinstance(call.func, cst.Attribute):
            qual = self._annotated_method(call.func)  # ``session: ClientSession`` then ``session.call_tool(...)``
        if qual in cat.TOOL_CALLS:
            return self._tool_call(call, cat.TOOL_CALLS[qual])
        if qual in cat.WRITES or (qual is not None and qual in ctx.catalog.write_names):
            return f"`{qual}`"
        if qual in cat.PAYPAL_CREATES:
            return self._paypal(call, qual)
        if not isinstance(call.func, cst.Attribute):
            return None
        method = call.func.attr.value
        if method == "execute" and not call.args:
            google = self._google(call)
            if google is not None:
                return google
        if method == "api_call" and qual and qual.rsplit(".", 1)[0] in cat.SLACK_CLIENTS:
            api = self._first_string(call) or self._keyword_string(call, "api_method")
            return f"Slack `{api}`" if api in cat.SLACK_WRITE_METHODS else None
        if method in cat.SQL_EXECUTE_METHODS:
            return self._sql(call)
        if qual and qual.startswith(cat.STRIPE_MODULE + ".") and method in cat.STRIPE_CREATE_METHODS:
            return f"Stripe `{qual}`"
        base = self._chain_base(call.func)
        constructor = ctx.constructor_of(base) if base is not None else None
        built = ctx.qualname(constructor.func) if constructor is not None else None
        if built == cat.STRIPE_CLIENT and method in cat.STRIPE_CREATE_METHODS:
            return f"Stripe `{method}`"
        if base is not None and ctx.type_of(base) == cat.AWS_CLIENT:
            if (method in cat.AWS_WRITES or method.startswith(cat.AWS_WRITE_PREFIXES)) and \
                    not any(marker in method for marker in cat.AWS_IDEMPOTENT_MARKERS):
                return f"AWS `{method}`"
        return None

    def _reads_only(self, call: cst.Call, fixed: bool) -> bool:
        """Whether a POST reads or computes and changes nothing (``catalog.idempotency``
        ``GRAPHQL_*``, ``OAUTH_TOKEN_PARAMETER``, ``READ_PATH_PARTS``, ``READ_FUNCTION_*``): a GraphQL
        query, an OAuth token request, a chat completion not asked to be stored, embeddings, speech synthesis or
        transcription request. ``fixed``: the method is the call's (``post``), so
        the URL is its first argument, else the second (``request("POST", url)``)."""
        url = find_argument(call, "url", 0 if fixed else 1)
        text = self.ctx.string_text(url.value) if isinstance(url, cst.Arg) else None
        path = text.split("?", 1)[0].split("#", 1)[0].rstrip("/") if text is not None else None
        if path is not None and any(part in path for part in cat.READ_PATH_PARTS):
            return True
        if path is not None and path.endswith(cat.COMPLETION_PATHS) and not self._stored(call):
            return True
        scope = self.ctx.scope
        while scope is not None and scope.kind != "function":
            scope = scope.parent
        name = scope.name.lower() if scope is not None else ""
        if any(word in name for word in cat.READ_FUNCTION_WORDS) or \
                cat.READ_FUNCTION_PARTS.intersection(name.strip("_").split("_")):
            return True
        for name in ("json", "data"):
            arg = find_argument(call, name, None)
            body = self.ctx.resolve(arg.value)[0] if isinstance(arg, cst.Arg) else None
            if not isinstance(body, cst.Dict):
                continue
            for element in body.elements:
                key = _string(element.key) if isinstance(element, cst.DictElement) else None
                if key == cat.OAUTH_TOKEN_PARAMETER:
                    return True
                if key == cat.GRAPHQL_QUERY_KEY and name == "json":
                    document = self.ctx.string_text(element.value)
                    if document is not None and _graphql_query(document):
                        return True
        return False

    def _stored(self, call: cst.Call) -> bool:
        """Whether a completion request's body may ask to keep it: ``"store"`` set to anything but
        ``False``/``None``, or a ``**extra`` that may hold it. A payload built elsewhere is taken as
        not stored (a completion is kept only when asked)."""
        arg = find_argument(call, "json", None)
        if arg is None:
            return False
        body = self.ctx.resolve(arg.value)[0] if isinstance(arg, cst.Arg) else None
        if not isinstance(body, cst.Dict):
            return False  # a payload built elsewhere: a completion stores nothing unless asked
        for element in body.elements:
            if not isinstance(element, cst.DictElement):
                return True  # ``**extra``: may hold it
            if _string(element.key) == cat.COMPLETION_STORE_KEY:
                return not (isinstance(element.value, cst.Name) and element.value.value in ("False", "None"))
        return False

    def _annotated_method(self, func: cst.Attribute) -> Optional[str]:
        """``Type.method`` for a method called on a parameter annotated with a tool-calling session type
        (``session: ClientSession``, ``Optional[ClientSession]``, ``ClientSession | None``), else ``None``."""
        if f".{func.attr.value}" not in cat.TOOL_METHODS:
            return None
        return next((f"{qual}.{func.attr.value}" for qual in self.annotated_types(func.value)
                     if f"{qual}.{func.attr.value}" in cat.TOOL_CALLS), None)

    def annotated_types(self, expr) -> List[str]:
        """The qualified names of the types a parameter ``expr`` (a name) is annotated with
        (``client: WebClient``, ``Optional[ClientSession]``, ``ClientSession | None``), in order."""
        if not isinstance(expr, cst.Name):
            return []
        found = self.ctx.lookup(expr.value)
        if not found or len(found) != 1 or found[0].kind != "param" or not isinstance(found[0].node, cst.FunctionDef):
            return []
        params = found[0].node.params
        param = next((p for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                      if p.name.value == expr.value), None)
        if param is None or param.annotation is None:
            return []
        out = []
        for part in expressions(param.annotation.annotation):
            if isinstance(part, (cst.Name, cst.Attribute)):
                qual = self.ctx.qualname(part)
                if qual:
                    out.append(qual)
        return out

    def _tool_call(self, call: cst.Call, position: int) -> Optional[str]:
        """An MCP tool call: a write unless its tool is a constant name the project declares
        read-only (``[tool.reslint.catalog] read-only-tools``)."""
        arg = _tool_argument(call, position)
        name = self.ctx.value_of(arg.value) if arg is not None else None
        if not isinstance(name, str):
            return cat.RUNTIME_TOOL_CALL
        if self.ctx.catalog.read_only_tool(name):
            return None
        return cat.NAMED_TOOL_CALL.format(tool=name)

    def tool_parameter(self, call: cst.Call) -> Optional[Tuple[str, str]]:
        """For a tool call whose tool is named by a parameter of the function it is in
        (``def invoke_tool(session, name): return await session.call_tool(name, args)``): that
        parameter's position as its callers count it (``""`` for a keyword-only one) and its name,
        so that the project pass can judge the constant a retried caller passes; else ``None``."""
        qual = self.ctx.qualname(call.func)
        if qual is None and isinstance(call.func, cst.Attribute):
            qual = self._annotated_method(call.func)
        arg = _tool_argument(call, cat.TOOL_CALLS[qual]) if qual in cat.TOOL_CALLS else None
        if arg is None or not isinstance(arg.value, cst.Name):
            return None
        scope = self.ctx.scope
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        found = self.ctx.lookup(arg.value.value)
        if scope is None or scope.kind != "function" or not found or len(found) != 1 or \
                found[0].kind != "param" or found[0].node is not scope.node:
            return None  # not a parameter of this function, or one bound again in it
        return _parameter_slot(scope.node.params, arg.value.value, shift=1 if scope.self_name else 0)

    def _keyword_string(self, call: cst.Call, name: str) -> Optional[str]:
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        return self.ctx.string_text(arg.value) if arg is not None else None

    def _google(self, call: cst.Call) -> Optional[str]:
        """``service.users().messages().send(...).execute()``: the request was built by a creating
        method on a client made by ``googleapiclient.discovery.build``."""
        request, _ = self.ctx.resolve(call.func.value)
        if not (isinstance(request, cst.Call) and isinstance(request.func, cst.Attribute)):
            return None
        method = request.func.attr.value
        if method not in cat.GOOGLE_API_WRITES:
            return None
        base = self._chain_base(request.func)
        constructor = self.ctx.constructor_of(base) if base is not None else None
        built = self.ctx.qualname(constructor.func) if constructor is not None else None
        if built not in cat.GOOGLE_API_BUILDERS:
            return None
        return f"Google API `{method}(...).execute()`"

    def _paypal(self, call: cst.Call, qual: str) -> Optional[str]:
        """paypalrestsdk mints ``PayPal-Request-Id`` once per resource object: ``create()`` repeats
        safely on the same object, but an object built on every attempt sends a new key each time."""
        base = call.func.value if isinstance(call.func, cst.Attribute) else None
        if isinstance(base, cst.Call):
            return f"PayPal `{qual}`"
        if not isinstance(base, cst.Name):
            return None
        found = self.ctx.lookup(base.value, self.ctx.scope)
        if not found or len(found) != 1 or found[0].kind != "assign":
            return None
        scope = self.ctx.scope
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        if found[0].scope is not scope:
            return None  # built outside this function: one object, one key, for every attempt
        if self.ctx.retry_scopes and not self.inside(found[0].node, self.ctx.retry_scopes[-1]):
            return None  # built before the retried code
        return f"PayPal `{qual}` on an object built for each attempt"

    def sdk_replayed_write(self, call: cst.Call) -> Optional[Tuple[str, int, str, str]]:
        """(the write, the client's attempts, how to turn its retries off, the client's library) when ``call`` is an
        operation that the client's own retries send again with an effect a second run repeats
        (catalog ``SDK_REPLAYED_WRITES``: a synchronous Lambda ``invoke`` on a boto3 client whose
        retries are on), else ``None``; also ``None`` when the attempts or the service are unknown."""
        func = call.func
        if not isinstance(func, cst.Attribute) or \
                not any(func.attr.value in ops for ops in cat.SDK_REPLAYED_WRITES.values()):
            return None
        constructor = self.ctx.constructor_of(func.value)
        qual = self.ctx.qualname(constructor.func) if constructor is not None else None
        client = RETRYING_CLIENTS.get(canonical(qual)) if qual is not None else None
        if client is None or client.counts != COUNTS_CONFIG:
            return None
        service = find_argument(constructor, "service_name", 0)
        service = self.ctx.string_text(service.value) if isinstance(service, cst.Arg) else None
        if func.attr.value not in cat.SDK_REPLAYED_WRITES.get(service or "", ()):
            return None
        invocation = find_argument(call, "InvocationType", None)
        if invocation is not None and (not isinstance(invocation, cst.Arg) or
                                       self.ctx.string_text(invocation.value) != cat.SYNCHRONOUS_INVOCATION):
            return None  # an event or a dry run, or a type set at run time
        attempts = client_attempts(client, constructor, self.ctx)
        if not is_number(attempts) or attempts <= 1:
            return None
        return f"Lambda `{func.attr.value}`", int(attempts), client.off, client.qualname.split(".")[0]

    def forwarded_writes(self, call: cst.Call) -> List[Tuple[str, str]]:
        """For a request that takes what it does from a parameter of the function it is in
        (``self._client.request(method, path)`` in ``def _request(self, method, path)``, a Slack
        ``client.api_call(endpoint, json=kwargs)`` in ``def make_call(client, endpoint, **kwargs)``),
        visited inside a retry: ``(write, calling function)`` for each call of that function in
        this module that gives it a write a replay duplicates (``HTTP POST``, Slack
        ``chat.postMessage``) and hands on no idempotency key, in source order. Empty when an HTTP
        request passes headers of its own (they may carry a key) or that is not a parameter."""
        scope = self.ctx.scope
        qual = self.ctx.qualname(call.func)
        if qual is None and isinstance(call.func, cst.Attribute) and call.func.attr.value == "api_call":
            # ``def make_call(client: WebClient, endpoint, **kwargs)``: the annotation says the client
            qual = next((f"{t}.api_call" for t in self.annotated_types(call.func.value) if t in cat.SLACK_CLIENTS), None)
        if scope is None or scope.kind != "function" or qual is None:
            return []
        if qual in cat.HTTP_CALLS and cat.HTTP_CALLS[qual] is None:
            given, keyword = find_argument(call, "method", 0), True
        elif qual.endswith(".api_call") and qual.rsplit(".", 1)[0] in cat.SLACK_CLIENTS:
            verb = find_argument(call, "http_verb", 1)
            if isinstance(verb, cst.Arg) and self.ctx.string_text(verb.value) == cat.SLACK_READ_VERB:
                return []  # ``api_call(endpoint, http_verb="GET", params=...)``: a read
            given, keyword = find_argument(call, "api_method", 0), False  # Slack takes no key
        else:
            return []
        func = scope.node
        params = [p.name.value for p in list(func.params.posonly_params) + list(func.params.params)]
        if scope.self_name is not None:
            params = params[1:]
        if not (isinstance(given, cst.Arg) and isinstance(given.value, cst.Name) and given.value.value in params):
            return []
        found = self.ctx.lookup(given.value.value, scope) or ()
        headers = find_argument(call, "headers", None) if keyword else None
        if not found or any(b.kind != "param" for b in found) or (headers is not None and not (
                isinstance(headers, cst.Arg) and isinstance(headers.value, cst.Name) and headers.value.value in params)):
            return []
        param = given.value.value
        out = []
        for caller, caller_scope in self._calls_of(func):
            arg = find_argument(caller, param, params.index(param))
            if not isinstance(arg, cst.Arg):
                continue
            if keyword:
                text = self.ctx.string_text(arg.value, caller_scope)
                if isinstance(text, str) and text.upper() in cat.NON_IDEMPOTENT_METHODS and \
                        not self.keys(caller, scope=caller_scope):
                    out.append((f"HTTP {text.upper()}", caller_scope.name or "<module>"))
                continue
            api = _slack_method(self.ctx.string_text(arg.value, caller_scope), arg.value)
            if api is not None:
                out.append((f"`{api}`", caller_scope.name or "<module>"))
        return out

    def _calls_of(self, func: cst.FunctionDef) -> List[Tuple[cst.Call, object]]:
        """The calls of ``func`` (a function or method of this module) anywhere in the module, with
        the scope each is in, in source order."""
        retried = self.ctx.retried
        if retried is None:
            return []
        out = []
        for scope in self.ctx.model.scopes.values():
            if scope.kind not in ("function", "module"):
                continue
            body = scope.node.body if scope.kind == "function" else scope.node
            for node in nodes_within(body, (cst.FunctionDef, cst.ClassDef)):  # a lambda runs in its scope's names
                if isinstance(node, cst.Call):
                    named = retried.local_function(node.func, scope)
                    if named is not None and named[0] is func:
                        out.append((node, scope))
        return out

    def _first_string(self, call: cst.Call) -> Optional[str]:
        return first_string(call, self.ctx)

    def _sql(self, call: cst.Call) -> Optional[str]:
        if not call.args or call.args[0].keyword is not None:
            return None
        statement = call.args[0].value
        if isinstance(statement, cst.Call) and statement.args:  # sqlalchemy text("...")
            qual = self.ctx.qualname(statement.func) or ""
            if qual.endswith(".text"):
                statement = statement.args[0].value
        text = self.ctx.string_text(statement)
        if not text:
            return None
        upper = " ".join(text.upper().split())
        if upper.startswith("INSERT") and not any(clause in upper for clause in cat.SQL_CONFLICT_CLAUSES):
            return "SQL INSERT"
        if upper.startswith("UPDATE") and _UPDATE_INCREMENT.search(text):
            return "SQL UPDATE that increments"
        return None

    @staticmethod
    def _chain_base(func: cst.Attribute):
        base = func.value
        while isinstance(base, (cst.Attribute, cst.Call)):
            base = base.value if isinstance(base, cst.Attribute) else base.func
        return base

    # -- keys ----------------------------------------------------------------------------
    def keys(self, call: cst.Call, retry_scope=None, scope=None) -> List["KeyUse"]:
        """Each key ``call`` sends: keyword arguments, elements of header or body dicts (literal,
        through a local, built by a helper of this module, or added after the dict was built:
        ``headers["Idempotency-Key"] = ...``, ``.update({...})``, ``.setdefault(...)``).
        With ``retry_scope``, a key computed once outside the retried code is marked ``outside``.
        ``scope``: where ``call`` is (default: the node being visited)."""
        out: List[KeyUse] = []
        scope = scope or self.ctx.scope
        names = cat.KEY_NAMES | self._host_names(call) | self.ctx.catalog.key_names
        for arg in call.args:
            if arg.keyword is None:
                continue
            name = arg.keyword.value
            if cat.normalise(name) in names:
                out.append(KeyUse(arg.value, scope, "", False, None))
            elif name in _DICT_PARAMS:
                out.extend(self.dict_keys(arg.value, scope, 0, "", retry_scope, False, names))
        return out

    def _host_names(self, call: cst.Call) -> frozenset:
        """Vendor key names (Opsgenie ``alias``) when the call's URL names the vendor's host."""
        extra = set()
        for arg in call.args[:2]:
            if arg.keyword is None or arg.keyword.value == "url":
                text = self.ctx.string_text(arg.value) or ""
                for host, names in cat.HOST_KEY_NAMES:
                    if host in text:
                        extra.update(names)
        return frozenset(extra)

    def dict_keys(self, expr, scope, depth: int, via: str, retry_scope, outside: bool,
                  names=cat.KEY_NAMES, seen: Optional[Set[int]] = None) -> Iterator["KeyUse"]:
        """The idempotency keys a dict expression (headers, a body) carries, following names bound
        to one (``depth`` levels deep so far; ``via`` the helper that built it, ``retry_scope`` the
        scope a fresh key would be minted in, ``outside`` whether the dict is built outside it;
        ``names`` the key names that count)."""
        if depth > 4:
            return
        seen = set() if seen is None else seen
        if isinstance(expr, cst.Name):
            found = self.ctx.lookup(expr.value, scope) or ()
            for binding in found:
                if binding.kind == "assign" and binding.value is not None and id(binding.value) not in seen:
                    seen.add(id(binding.value))
                    once = outside or self._once(binding.node, binding.scope, retry_scope, via)
                    yield from self.dict_keys(binding.value, binding.scope, depth + 1, via, retry_scope, once, names,
                                               seen)
            if found:
                home = found[0].scope
                for key, value, stmt in self._additions(home).get(expr.value, ()):
                    if cat.normalise(key) in names:
                        once = outside or self._once(stmt, home, retry_scope, via)
                        yield KeyUse(value, home, via, once, stmt)
            return
        if isinstance(expr, cst.Call):
            name = expr.func.value if isinstance(expr.func, cst.Name) else ""
            for value, inner in self._returns(expr, scope):
                if id(value) not in seen:
                    seen.add(id(value))
                    yield from self.dict_keys(value, inner, depth + 1, via or name, retry_scope, outside, names, seen)
            return
        if isinstance(expr, cst.Dict):
            for element in expr.elements:
                if isinstance(element, cst.DictElement):
                    key = _string(element.key)
                    if key is not None and cat.normalise(key) in names:
                        yield KeyUse(element.value, scope, via, outside, None)

    def _once(self, node, scope, retry_scope, via: str) -> bool:
        """Whether a binding runs once, not on every attempt: outside the retried code, and not a
        local of a helper (a helper's locals are made again on every call)."""
        if retry_scope is None or self.inside(node, retry_scope):
            return False
        return not via or scope.kind == "module"

    def external_dict_calls(self, call: cst.Call) -> List[Tuple[cst.Call, str]]:
        """Header/body dict arguments built by a function of another module (``headers=auth.headers()``):
        ``(call, qualified callee)``. Whether they carry a key is known only in the project pass."""
        out = []
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in _DICT_PARAMS:
                continue
            value, _ = self.ctx.resolve(arg.value)
            if isinstance(value, cst.Call):
                qual = self._external(value, self.ctx.scope)
                if qual is not None:
                    out.append((value, qual))
        return out

    def _external(self, call: cst.Call, scope) -> Optional[str]:
        """The qualified name of a call to a function that is not defined in this module and is not
        a key generator or a stable builder (a helper the project pass may find), else None."""
        if isinstance(call.func, cst.Name):
            found = self.ctx.lookup(call.func.value, scope)
            if not found or any(b.kind != "import" for b in found):
                return None
        elif not isinstance(call.func, cst.Attribute):
            return None
        qual = self.ctx.qualname(call.func, scope)
        if qual is None or qual in cat.KEY_GENERATORS or qual in cat.STABLE_BUILDERS:
            return None
        return qual

    def _additions(self, scope) -> Dict[str, List[Tuple[str, cst.BaseExpression, cst.CSTNode]]]:
        """Keys added to a dict after it was built, per name, in ``scope``'s own statements:
        ``d["k"] = v``, ``d.update({"k": v})``, ``d.update(k=v)``, ``d.setdefault("k", v)``, ``d |= {...}``."""
        key = id(scope)
        if key in self._added:
            return self._added[key]
        out: Dict[str, List[Tuple[str, cst.BaseExpression, cst.CSTNode]]] = {}
        node = scope.node
        body = node.body if isinstance(node, (cst.FunctionDef, cst.Module)) else None
        for stmt in _own_statements(body):
            for small in stmt.body:
                self._addition(small, stmt, out)
        self._added[key] = out
        return out

    @staticmethod
    def _addition(small, stmt, out) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and \
                    len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                key = _string(target.slice[0].slice.value)
                if key is not None:
                    out.setdefault(target.value.value, []).append((key, small.value, stmt))
        elif isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.BitOrAssign) and \
                isinstance(small.target, cst.Name) and isinstance(small.value, cst.Dict):
            for key, value in _dict_items(small.value):
                out.setdefault(small.target.value, []).append((key, value, stmt))
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            func = call.func
            if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
                return
            name, method = func.value.value, func.attr.value
            if method == "update":
                for arg in call.args:
                    if arg.keyword is not None:
                        out.setdefault(name, []).append((arg.keyword.value, arg.value, stmt))
                    elif isinstance(arg.value, cst.Dict) and not arg.star:
                        for key, value in _dict_items(arg.value):
                            out.setdefault(name, []).append((key, value, stmt))
            elif method == "setdefault" and len(call.args) == 2 and call.args[0].keyword is None:
                key = _string(call.args[0].value)
                if key is not None:
                    out.setdefault(name, []).append((key, call.args[1].value, stmt))

    def _returns(self, call: cst.Call, scope) -> Iterator[Tuple[cst.BaseExpression, object]]:
        """The returned expressions of a function of this module that ``call`` calls."""
        if not isinstance(call.func, cst.Name):
            return
        found = self.ctx.lookup(call.func.value, scope)
        if not found or len(found) != 1 or found[0].kind != "def":
            return
        func: cst.FunctionDef = found[0].node
        yield from self.returned(func, scope)

    def returned(self, func: cst.FunctionDef, scope=None) -> Iterator[Tuple[cst.BaseExpression, object]]:
        """``(expression, scope)`` of each ``return <expression>`` of ``func``."""
        inner = self.ctx.opened_scope(func.body, scope)
        for node in expressions(func.body):
            if isinstance(node, cst.Return) and node.value is not None:
                yield node.value, inner

    # -- fresh keys ------------------------------------------------------------------------
    def fresh_keys(self, expr, retry_scope, scope=None, depth: int = 0, via: str = "") -> List[Tuple[cst.Call, str]]:
        """Key-minting calls reached from ``expr`` that run again on every attempt of
        ``retry_scope``: in the expression itself, in a local bound inside the retried code,
        or in a helper the retried code calls (``via`` names that helper)."""
        return [(m.call, m.via) for m in self.trace(expr, retry_scope, scope, depth, via) if m.kind == "fresh"]

    def trace(self, expr, retry_scope, scope=None, depth: int = 0, via: str = "", stmt=None,
              _seen: Optional[Set[int]] = None) -> List["Minted"]:
        """Where the value of the key ``expr`` comes from, on every attempt of ``retry_scope``:
        ``fresh`` key-minting calls (in the expression, in a local bound inside the retried code,
        in a helper of this module), and ``external`` calls to functions of other modules whose
        result becomes the key (the project pass follows those). ``param or uuid4()`` takes the
        caller's key when one is passed: only the parameter is followed."""
        scope = scope or self.ctx.scope
        out: List[Minted] = []
        seen = set() if _seen is None else _seen  # bindings and helpers already followed (no blow-up)
        if depth > 6:
            return out
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                qual = self.ctx.qualname(node.func, scope)
                if qual in cat.KEY_GENERATORS:
                    out.append(Minted("fresh", node, via, expr, stmt, qual))
                    continue
                local = isinstance(node.func, cst.Name) and self._local_def(node.func.value, scope)
                if local:
                    for value, inner in self._returns(node, scope):
                        if id(value) not in seen:
                            seen.add(id(value))
                            out.extend(self.trace(value, retry_scope, inner, depth + 1, via or node.func.value,
                                                  stmt, seen))
                else:
                    external = self._external(node, scope)
                    if external is not None:
                        out.append(Minted("external", node, via, expr, stmt, external))
            elif isinstance(node, cst.Name):
                for binding in self.ctx.lookup(node.value, scope) or ():
                    if binding.kind == "assign" and binding.value is not None and id(binding.value) not in seen \
                            and not self._once(binding.node, binding.scope, retry_scope, via) and \
                            (retry_scope is None or via or self.inside(binding.node, retry_scope)):
                        seen.add(id(binding.value))
                        out.extend(self.trace(binding.value, retry_scope, binding.scope, depth + 1, via,
                                              binding.node, seen))
                continue
            if not via:
                guarded = self._guarded(node, scope)
                if guarded is not None:
                    stack.append(guarded)
                    continue
            stack.extend(children(node))
        return out

    def _local_def(self, name: str, scope) -> bool:
        found = self.ctx.lookup(name, scope)
        return bool(found) and len(found) == 1 and found[0].kind == "def"

    def _guarded(self, node, scope):
        """``param or <new key>`` (and ``<new> if param is None else param``): the part that is used
        when the caller passes a key, which the retry then reuses."""
        def is_param(expr) -> bool:
            found = self.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
            return bool(found) and all(b.kind == "param" for b in found)

        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or) and is_param(node.left):
            return node.left
        if isinstance(node, cst.IfExp):
            for branch in (node.body, node.orelse):
                if is_param(branch) and any(isinstance(n, cst.Name) and n.value == branch.value
                                            for n in expressions(node.test)):
                    return branch
        return None

    def inside(self, node, retry_scope) -> bool:
        """Whether ``node`` lies in the retried code of ``retry_scope``."""
        key = id(retry_scope)
        if key not in self._scope_nodes:
            self._scope_nodes[key] = {id(n) for n in expressions(retry_scope.node)}
        return id(node) in self._scope_nodes[key]


@dataclass
class KeyUse:
    """A key a write sends: its expression (and scope), the helper of this module that built it
    (``""``: none), whether it was computed once outside the retried code, and the statement that
    added it to a dict after the dict was built (``headers["Idempotency-Key"] = ...``)."""

    expr: cst.BaseExpression
    scope: object
    helper: str
    outside: bool
    added_by: Optional[cst.CSTNode]


@dataclass
class Minted:
    """Where a key's value comes from: ``kind`` ``fresh`` (``call`` is a key generator named ``name``)
    or ``external`` (``call`` is a function of another module named ``name``); ``expr`` the key
    expression that holds it and ``stmt`` the assignment that bound it (None: in the key expression)."""

    kind: str
    call: cst.Call
    via: str
    expr: cst.BaseExpression
    stmt: Optional[cst.CSTNode]
    name: str


def _dict_items(node: cst.Dict):
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            key = _string(element.key)
            if key is not None:
                yield key, element.value


def _own_statements(body) -> Iterator[cst.CSTNode]:
    """The simple statement lines (and one-line suites) of a block and its nested blocks, not of
    nested functions or classes."""
    if body is None:
        return
    stack = [body]
    while stack:
        block = stack.pop()
        if isinstance(block, cst.SimpleStatementSuite):
            yield block
            continue
        for stmt in getattr(block, "body", ()):
            if isinstance(stmt, cst.SimpleStatementLine):
                yield stmt
            else:
                stack.extend(statement_blocks(stmt))


def keyless_write_message(kind: str, policy) -> Optional[str]:
    """RES402's message for a keyless ``kind`` write under ``policy`` (shared by the rule and the
    module summary, which records it for writes the project pass decides); ``None`` when the
    policy retries only errors raised before the request was sent."""
    if _unsent_only(policy):
        return None
    return f"{kind} runs inside {policy.adapter.write_label} with no idempotency key: {_why(policy)}; {WRITE_FIX}"


def forwarded_write_message(function: str, writes: List[Tuple[str, str]], policy) -> Optional[str]:
    """RES402's message for a request in ``function`` that sends the method its callers give, under
    ``policy``; ``writes``: :meth:`Idempotency.forwarded_writes`. ``None`` as for
    :func:`keyless_write_message`."""
    if _unsent_only(policy) or not writes:
        return None
    http = all(kind.startswith("HTTP ") for kind, _ in writes)
    kinds = list(dict.fromkeys(kind[len("HTTP "):] if http else kind for kind, _ in writes))
    named = _listed(kinds)
    callers = list(dict.fromkeys(name for _, name in writes))
    who = _listed([f"`{name}`" for name in callers])
    send = "sends" if len(callers) == 1 else "send"
    if http:
        return (f"`{function}` sends the method its callers give inside {policy.adapter.write_label}, and {who} "
                f"{send} HTTP {named} through it with no idempotency key: {_why(policy)}; retry only the idempotent "
                f"methods (GET, HEAD, PUT, DELETE) here, or have the callers send a stable idempotency key minted "
                f"once before the first attempt")
    return (f"`{function}` calls the Slack method its callers give inside {policy.adapter.write_label}, and {who} "
            f"{send} {named} through it, which Slack takes with no idempotency key: {_why(policy)}; retry only "
            f"the methods that change nothing here, or check for the first attempt's result before sending again")


def _listed(items: List[str]) -> str:
    """``a, b and c``, or ``a, b, c, d and 2 more`` (at most :data:`MAX_NAMED_WRITES` named)."""
    shown = items[:MAX_NAMED_WRITES]
    more = len(items) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


#: how many writes and callers a forwarded-write message names before it counts the rest
MAX_NAMED_WRITES = 4


def _slack_method(text: Optional[str], expr) -> Optional[str]:
    """The Slack write method a caller hands on, by its text (``"chat.postMessage"``) or, when the
    text lives in another module, by the name of the constant that holds it
    (``SlackAPIPostEndpoints.chat_post_message``: the method's name, its dots and case aside)."""
    if isinstance(text, str):
        return text if text in cat.SLACK_WRITE_METHODS else None
    if not isinstance(expr, cst.Attribute):
        return None
    spelled = expr.attr.value.replace("_", "").lower()
    return next((m for m in sorted(cat.SLACK_WRITE_METHODS) if m.replace(".", "").lower() == spelled), None)


def sdk_replay_message(kind: str, attempts: int, off: str, library: str) -> str:
    """RES402's message for a ``kind`` write that a ``library`` client's own retries (``attempts`` in
    all) send again; ``off``: how to turn them off."""
    return (f"{kind} runs inside the {library} client's own retries ({attempts} attempts): after a read timeout or "
            f"a 5xx the client sends it again, and a synchronous invocation runs the function again "
            f"(a duplicate row, charge, message or mail); make the function idempotent (dedupe on a key in the "
            f"payload), or build this client with `{off}`")


def _why(policy) -> str:
    """Why a replay may write twice, for what ``policy`` retries: only answers with a status (a
    hand-rolled loop that goes round on a 5xx and catches no exception), or errors too."""
    retried = policy.retried
    if retried.kind is RetriedKind.STATUS and not retried.types and retried.statuses and policy.node is not None \
            and not any(isinstance(n, cst.Try) for n in expressions(policy.node)):
        return STATUS_WRITE_WHY  # no ``try`` in the loop at all: an exception leaves it
    return WRITE_WHY


def _unsent_only(policy) -> bool:
    """Whether ``policy`` retries only errors raised before the request was sent."""
    types = set(policy.retried.types) if policy.retried.kind is RetriedKind.TYPES else set()
    return bool(types) and types <= cat.NOT_SENT_ERRORS


def deferred_dict_calls(idempotency: "Idempotency", node: cst.Call, uses) -> List[Tuple[cst.Call, str]]:
    """A keyless write whose header/body dicts are built by functions of other modules: whether it
    sends a key is decided in the project pass (the module summary's ``pending_writes``)."""
    if uses:
        return []
    return idempotency.external_dict_calls(node)


def analysis(ctx: Context) -> Idempotency:
    """The file's :class:`Idempotency` (one per context)."""
    key = ("idempotency", 0)
    if key not in ctx.cache:
        ctx.cache[key] = Idempotency(ctx)
    return ctx.cache[key]
