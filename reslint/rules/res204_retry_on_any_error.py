"""RES204 retry-on-any-error: a retry on every exception, or on errors a retry cannot fix."""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Sequence, Tuple

import libcst as cst

from reslint.analysis.breakers import open_circuit_retry
from reslint.analysis.loops import FATAL_4XX, gives_up_on_some, is_raise_for_status, logs, own_nodes, \
    separated_before, statuses_raising, try_of, unguarded_raise_for_status
from reslint.analysis.timeouts import read_call_timeout
from reslint.catalog import canonical
from reslint.catalog import retries as cat
from reslint.diagnostics import Applicability
from reslint.semantics.cstutil import source
from reslint.semantics.edits import FixPlan, spell
from reslint.model.policy import LoopFacts, RetriedKind, RetryPolicy, Role
from reslint.model.remedy import FixContext, Remedy
from reslint.rules.retry_base import PolicyRule
from reslint.semantics.walk import children, expressions, nodes_within

WHY = "bugs and client errors (4xx, bad input, auth) fail the same way on every attempt, so retrying only adds load " \
      "and delays the real error"
#: what a narrowing to connection errors and timeouts stops retrying when the retried code raises for status
DROPPED = "; the HTTP errors `raise_for_status()` raises (429 and 5xx too) are then no longer retried: retry " \
          "those by status"
#: the functions of the module the retried code calls that are read for what they raise (each once)
MAX_HELPERS = 20
#: what a narrowing keeps or drops of the errors the retried code raises itself
STILL_RETRIED = "; {names}, which the retried code raises itself to try again, {verb} still retried"
NO_LONGER_RETRIED = "; {names}, which the retried code raises itself, {verb} then no longer retried"
CLIENT_ERROR = "; {names}, which the retried code raises on {statuses}, {verb} then no longer retried, as no " \
               "retry fixes a client error"
#: how many client-error statuses a message names before it says "a 4xx"
NAMED_STATUSES = 3
#: errors a narrowing never keeps, though the retried code raise them: the rule reports a retry of them
NEVER_KEPT = cat.CATCH_ALL | cat.STATUS_ERRORS | cat.BROAD_HTTP_ERRORS | cat.NON_TRANSIENT_ERRORS


@dataclasses.dataclass
class OwnErrors:
    """What the retried code raises itself (in its body, or in a function of the module it calls),
    as a narrowing of its retry sees it. ``kept``: (how the fix spells it, qualified name) of each
    exception class it raises to ask for another attempt, which the narrowed retry must still
    catch; ``dropped``: the classes a narrowing stops retrying and says so (a builtin that may be a
    bug, ``Exception``, a status error, a class derived from a library's client error);
    ``client``: qualified name → (how the code names it, the statuses) of each class it raises on
    a client error (``if r.status_code == 400: raise BadRequest()``), which a narrowing drops even
    when the code raises it on a 429 or a 5xx as well: kept, the narrowed retry would retry the 4xx;
    ``for_status``: it calls ``raise_for_status()``; ``unknown``: it raises something reslint
    cannot name (then no narrowing is offered)."""

    kept: list = dataclasses.field(default_factory=list)
    dropped: list = dataclasses.field(default_factory=list)
    client: dict = dataclasses.field(default_factory=dict)
    for_status: bool = False
    unknown: bool = False


class RetryOnAnyError(PolicyRule):
    code = "RES204"
    fix_applicability = Applicability.UNSAFE

    def check(self, policy: RetryPolicy) -> None:
        if policy.retries and open_circuit_retry(policy, self.ctx) is None:  # else it is RES501's
            super().check(policy)

    def check_library(self, policy: RetryPolicy) -> None:
        problem = self.problem(policy)
        if problem:
            how = policy.adapter.advice(Remedy.NARROW, policy)
            self.report(policy.node, f"{policy.adapter.label} {problem}: {WHY}; retry only transient errors "
                                     f"(connection errors, timeouts, 429, 5xx)" + (f": {how}" if how else ""),
                        fix=self._narrow(policy))

    def problem(self, policy: RetryPolicy) -> Optional[str]:
        """Why what the policy retries is too broad, or ``None``."""
        retried = policy.retried
        if retried.inherited:
            return None  # the predicate is the middleware's: judged where the project builds it
        if policy.role is Role.OBJECT and retried.kind is RetriedKind.STATUS:  # a client's status retries
            bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
            return f"retries client errors ({', '.join(map(str, bad))} in status_forcelist)" if bad else None
        if retried.reasks and (retried.kind is RetriedKind.ANY or set(retried.types) & cat.CATCH_ALL):
            return None  # re-asks after a reply that does not parse, which only a broad predicate catches
        if retried.classified and (retried.kind is RetriedKind.ANY or set(retried.types) & cat.CATCH_ALL):
            return None  # its handlers test each error and give up on those they do not retry
        if (retried.kind is RetriedKind.ANY or (set(retried.types) & cat.CATCH_ALL and
                                                 not set(retried.types) & cat.BEYOND_EXCEPTION)) and \
                self._sends_only(policy):
            return None  # all it can fail on is a request's transport: what a narrowing would retry
        if retried.kind is RetriedKind.ANY:
            return "retries every exception" + (" (the default predicate)" if retried.default else but(retried))
        if retried.kind not in (RetriedKind.TYPES, RetriedKind.FUNCTION):
            return None
        found = classify(sorted(retried.types), retried.checks_status, lambda: self._raises_for_status(policy),
                         raised=self._raised_here(policy))
        kind, name = found or (None, "")
        if kind is CATCH_ALL:
            return f"retries `{name}`, that is every error{but(retried)}"
        if kind is NEVER_TRANSIENT:
            return f"retries `{name}`, which no retry can fix"
        bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
        if bad and retried.checks_status:
            return f"retries HTTP {', '.join(map(str, bad))}"
        if kind is None:
            return None
        if kind is ANY_STATUS:
            return f"retries every `{name}` (4xx included) with no status check"
        return f"retries `{name}` while `raise_for_status()` turns every 4xx into one"

    def _transient(self, policy: RetryPolicy) -> Optional[Tuple[list, Tuple[str, ...]]]:
        """(the transient errors as (how new code spells it, qualified name) pairs, imports) of
        the one HTTP client library the retried code calls (catalog ``TRANSIENT_ERRORS``), or
        None. A guess at what is transient, hence an unsafe fix."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return None
        called = set()  # the top-level modules of the timeout-bearing calls
        with self.ctx.in_scope(self.ctx.opened_scope(scope.node, self.ctx.scope)):  # its own names
            for node in expressions(scope.node):
                if isinstance(node, cst.Call):
                    reading = read_call_timeout(node, self.ctx)
                    if reading is not None:
                        called.add(reading.spec.qualname.split(".")[0])
        known = called & set(cat.TRANSIENT_ERRORS)
        if len(known) != 1 or called - known:
            return None
        names, imports = [], ()
        for dotted in cat.TRANSIENT_ERRORS[known.pop()]:
            spelled, needed = spell(self.ctx, dotted)
            if spelled is None:
                return None
            names.append((spelled, canonical(dotted)))
            imports += tuple(i for i in needed if i not in imports)
        return names, imports

    def _narrowing(self, policy: RetryPolicy, body, scope,
                   before=None) -> Optional[Tuple[str, Tuple[str, ...], str]]:
        """(the narrowed types as code, imports, what the fix's message adds) for a retry of
        ``body`` (the retried function's body, or the ``try`` body a loop's handler catches for),
        read in ``scope``: the transient errors of the library it calls and the exception classes
        it raises itself to try again. ``None`` when it calls no such library or raises what
        reslint cannot name. ``before``: the node the new code goes in when it runs at import
        time (a decorator's call), above which a kept class must be defined."""
        transient = self._transient(policy)
        own = self._own_errors(body, scope, before) if transient is not None else None
        if own is None or own.unknown:
            return None
        names, imports = transient
        known = {qual for _, qual in names}
        kept = []
        for spelled, qual in own.kept:
            if qual not in known and qual not in own.client:
                known.add(qual)
                kept.append(spelled)
        spelled = [name for name, _ in names] + kept
        text = spelled[0] if len(spelled) == 1 else f"({', '.join(spelled)})"
        said = ""
        if kept:
            said += STILL_RETRIED.format(names=_listed(kept), verb="is" if len(kept) == 1 else "are")
        client = [name for name, _ in own.client.values()]
        if client:
            statuses = frozenset().union(*(s for _, s in own.client.values()))
            said += CLIENT_ERROR.format(names=_listed(client), statuses=_statuses(statuses),
                                        verb="is" if len(client) == 1 else "are")
        dropped = list(dict.fromkeys(own.dropped))
        if dropped:
            said += NO_LONGER_RETRIED.format(names=_listed(dropped), verb="is" if len(dropped) == 1 else "are")
        if own.for_status:
            said += DROPPED
        return text, imports, said

    def _narrow(self, policy: RetryPolicy) -> Optional[FixPlan]:
        scope = self.ctx.retried.scope_of(policy)
        if scope is None or policy.call is None:
            return None
        inner = self.ctx.opened_scope(scope.node, self.ctx.scope)
        before = policy.call if policy.role is Role.DECORATOR else None
        narrowing = self._narrowing(policy, scope.node, inner, before)
        if narrowing is None:
            return None
        text, imports, said = narrowing
        plan = policy.adapter.fix(Remedy.NARROW, policy, FixContext(self.ctx), transient=text, imports=imports)
        return dataclasses.replace(plan, message=plan.message + said) if plan is not None else None

    def _own_errors(self, body, scope, before=None) -> OwnErrors:
        """What ``body`` (read in ``scope``) raises itself, and the functions of this module it
        calls, theirs in turn (see :class:`OwnErrors`)."""
        own = OwnErrors()
        work, seen = [(body, scope)], set()
        while work:
            root, where = work.pop()
            reached = statuses_raising(root, FATAL_4XX, self.ctx, where)
            for node in nodes_within(root):
                if is_raise_for_status(node):
                    own.for_status = True
                elif isinstance(node, cst.Raise) and node.exc is not None:
                    self._raised(node.exc, where, before, own, reached.get(id(node)))
                elif isinstance(node, cst.Call):
                    found = self.ctx.retried.local_function(node.func, where)
                    if found is None or id(found[0]) in seen:
                        continue
                    if len(seen) == MAX_HELPERS:
                        own.unknown = True  # too deep a call tree to read: reslint cannot tell
                        return own
                    seen.add(id(found[0]))
                    work.append((found[0].body, self.ctx.opened_scope(found[0].body, where)))
        return own

    def _raised(self, exc, scope, before, own: OwnErrors, client_errors: Optional[frozenset] = None) -> None:
        """Sort the class of one ``raise exc`` of the retried code into ``own``. ``client_errors``:
        the client-error statuses sure to reach the raise (:func:`statuses_raising`)."""
        raised = exc.func if isinstance(exc, cst.Call) else exc
        root = raised
        while isinstance(root, cst.Attribute):
            root = root.value
        bindings = self.ctx.lookup(root.value, scope) if isinstance(root, cst.Name) else None
        if raised is exc and bindings and all(b.kind == "except" for b in bindings):
            return  # ``raise exc`` of an error a handler caught: the called code's failure, not a signal
        types = self.ctx.retries.exception_types(raised, scope)
        if not types or not isinstance(root, cst.Name) or \
                any(b.kind not in ("import", "class", "assign") for b in bindings or ()):
            own.unknown = True  # ``raise make_error(resp)``, ``raise error``: reslint cannot name the class
            return
        for qual in types:
            bare = qual[len("builtins."):] if qual.startswith("builtins.") else qual
            named = source(raised) if len(types) == 1 else bare  # as the code names it
            if qual in NEVER_KEPT or ("." not in bare and bare not in cat.BUILTIN_OS_ERRORS) or \
                    self.ctx.retried.loops.catches(cat.NON_TRANSIENT_ERRORS, qual):
                own.dropped.append(named)
                continue
            if client_errors:  # raised on a 4xx: kept, the narrowed retry would retry it
                _, earlier = own.client.get(canonical(qual), (named, frozenset()))
                own.client[canonical(qual)] = (named, earlier | client_errors)
                continue
            spelled = self._spelled(raised, root, bindings, qual, before)
            if spelled is None:
                own.unknown = True  # a class the fix cannot name where it goes
                return
            own.kept.append((spelled, canonical(qual)))

    def _spelled(self, raised, root: cst.Name, bindings, qual: str, before) -> Optional[str]:
        """How the fix names the class ``raised`` names where the retried code raises it: the same
        text when it means the same where the fix goes (``RetryableError``, ``errors.Throttled``),
        else through an import the module already has; ``None`` when neither holds."""
        here = self.ctx.lookup(root.value)
        if here is bindings and (before is None or not bindings or self._defined_above(bindings, before)):
            return source(raised)
        if here is bindings or qual.split(".")[0] not in self.ctx.model.import_roots:
            return None
        return spell(self.ctx, qual)[0]

    def _defined_above(self, bindings, node) -> bool:
        """Whether each binding is made by a statement of the module above the one holding
        ``node`` (a decorator's arguments are evaluated when its function is defined)."""
        body = self.ctx.model.module_scope.node.body
        where = _top_index(body, node)
        if where is None:
            return False
        for binding in bindings:
            index = _top_index(body, binding.node) if binding.scope is self.ctx.model.module_scope else None
            if index is None or index >= where:
                return False
        return True

    def _raised_here(self, policy: RetryPolicy) -> frozenset:
        """The exception types the retried code raises itself (``raise ValueError("empty reply,
        retry")``): its own signal to try again, which a retry is meant to catch."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return frozenset()
        inner = self.ctx.opened_scope(scope.node)
        out = set()
        for node in own_nodes(scope.node):
            if isinstance(node, cst.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
                out.update(self.ctx.retries.exception_types(raised, inner) or ())
        return frozenset(out)

    def _raises_for_status(self, policy: RetryPolicy) -> bool:
        """Whether the retried code reaches ``raise_for_status()`` with a 4xx no retry fixes
        (a status check in front of it may let only the retried statuses through)."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return False
        return unguarded_raise_for_status(scope.node, self.ctx, self.ctx.opened_scope(scope.node))

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        checks_status = policy.retried.checks_status
        layer = policy.adapter.layer_label  # "retry loop", "recursive retry"
        for handler in loop.handlers:
            if gives_up_on_some(handler):
                continue  # catches broadly, then re-raises what it does not retry: a filter
            if separated_before(handler, policy.node, self.ctx.retries.exception_types):
                continue  # an earlier handler took out the errors no retry fixes: the rest is retried
            if handler.type is None:
                self.report(handler, f"{layer} catches everything with a bare `except:` (KeyboardInterrupt and "
                                     f"SystemExit too): {WHY}; catch the transient errors only")
                continue
            types = self.ctx.retries.exception_types(handler.type) or ()
            found = classify(types, checks_status, lambda: loop.raise_for_status, status_errors=False,
                             raised=self._raised_here(policy))
            if found is None:
                continue
            kind, name = found
            guarded = try_of(handler, policy.node)
            if kind is CATCH_ALL and not set(types) & cat.BEYOND_EXCEPTION and guarded is not None and \
                    transport_only(guarded.body, self.ctx, self.ctx.scope):
                continue  # ``try: r = requests.post(...) except Exception:``: a 4xx is a response, not an error
            if kind is CATCH_ALL:
                self.report(handler, f"{layer} catches `{name}`: {WHY}; catch the transient errors only",
                            fix=self._narrow_handler(policy, handler))
            elif kind is NEVER_TRANSIENT:
                self.report(handler, f"{layer} retries `{name}`, which no retry can fix: {WHY}")
            else:
                self.report(handler, f"{layer} retries `{name}` while `raise_for_status()` turns every 4xx "
                                     f"into one: {WHY}; check the status code before retrying")

    def _sends_only(self, policy: RetryPolicy) -> bool:
        """Whether the retried function does nothing that can fail but send its HTTP requests
        (:func:`transport_only`), read in its own scope (its parameters, its locals)."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return False
        node = scope.node  # the function, or its body
        body = node.body if isinstance(node, cst.FunctionDef) else node
        inner = self.ctx.opened_scope(node, self.ctx.opened_scope(body))
        return isinstance(body, cst.IndentedBlock) and inner is not None and transport_only(body, self.ctx, inner)

    def _narrow_handler(self, policy: RetryPolicy, handler: cst.ExceptHandler) -> Optional[FixPlan]:
        """``except Exception:`` → ``except (the transient errors, the code's own):``, from what
        the ``try`` body it catches for calls and raises."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None or not isinstance(handler.type, (cst.Name, cst.Attribute)):
            return None
        guarded = try_of(handler, scope.node)
        narrowing = self._narrowing(policy, guarded.body, self.ctx.scope) if guarded is not None else None
        if narrowing is None:
            return None
        text, imports, said = narrowing
        return FixPlan(f"Catch only `{text}`{said}", Applicability.UNSAFE,
                       ((handler.type, cst.parse_expression(text)),), imports)


#: the expressions a request's ``try`` may hold besides the request and log lines: names,
#: attributes, literals and f-strings of them, containers of those, ``await``; not a subscript
#: (``item["id"]``: a KeyError), arithmetic or a comparison (a TypeError on every attempt), a
#: comprehension, a lambda, a walrus
_PLAIN = (cst.Name, cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer,
          cst.Float, cst.Dict, cst.List, cst.Tuple, cst.Set, cst.Await, cst.Call)
#: the statements it may hold: a request bound, returned, awaited or logged
_SIMPLE = (cst.Assign, cst.AnnAssign, cst.Expr, cst.Return, cst.Pass, cst.Break, cst.Continue)
def transport_only(body, ctx, scope) -> bool:
    """Whether all ``body`` (a ``try`` body, a retried function's; read in ``scope``) can fail on
    is the sending of its HTTP requests: it sends at least one, each with a library that hands
    back every status as a response (catalog ``STATUS_RETURNING_LIBRARIES``), and its statements
    only bind, return, await or log plain expressions (:data:`_PLAIN`) of those requests; nothing
    in the module hooks a status into an exception (:data:`cat.STATUS_RAISING_OPTIONS`); ``str()`` and
    ``repr()`` of them are plain too (:data:`cat.TEXT_BUILTINS`). A catch-all around it
    sees what goes wrong on the way to the server (a refused or reset connection, a timeout) and
    the bugs that fail before anything is sent (a malformed URL, a body that does not serialise):
    never a 4xx, and no attempt adds load to the server."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else getattr(body, "body", ())
    if not isinstance(statements, (list, tuple)) or not statements:
        return False
    if _hooks_statuses(ctx):
        return False
    sent = False
    with ctx.in_scope(scope):
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine) or \
                    not all(isinstance(small, _SIMPLE) for small in statement.body):
                return False
            for node in nodes_within(statement):
                if isinstance(node, cst.BaseExpression) and not isinstance(node, _PLAIN) and \
                        not isinstance(node, (cst.FormattedStringExpression, cst.Element, cst.DictElement)):
                    return False
                if not isinstance(node, cst.Call) or logs(node) or ctx.builtin(node.func) in cat.TEXT_BUILTINS:
                    continue
                if any(arg.star or (arg.keyword is not None and arg.keyword.value in cat.STATUS_RAISING_OPTIONS)
                       for arg in node.args):
                    return False  # ``**options`` may carry hooks
                reading = read_call_timeout(node, ctx)
                if reading is not None and reading.spec.qualname.split(".")[0] in cat.STATUS_RETURNING_LIBRARIES:
                    sent = True
                    continue
                built = ctx.qualname(node.func) or ""  # ``requests.Session()``, ``httpx.Timeout(5)``: a class
                if built.split(".")[0] not in cat.STATUS_RETURNING_LIBRARIES or not built.rsplit(".", 1)[-1][:1].isupper():
                    return False
    return sent


def _hooks_statuses(ctx) -> bool:
    """Whether the module touches a client's status hooks or mounts an adapter anywhere
    (:data:`cat.STATUS_RAISING_OPTIONS`): then a request may raise on a status without ``raise_for_status()``."""
    key = ("res204-status-hooks",)
    if key not in ctx.cache:
        module = ctx.model.module_scope.node
        ctx.cache[key] = any(
            (isinstance(node, cst.Attribute) and node.attr.value in cat.STATUS_RAISING_OPTIONS) or
            (isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value in cat.STATUS_RAISING_OPTIONS) or
            (isinstance(node, cst.SimpleString) and node.raw_value in cat.STATUS_RAISING_OPTIONS)  # {"hooks": ...} passed on
            for node in nodes_within(module))
    return ctx.cache[key]


def _listed(names: Sequence[str]) -> str:
    """```A```, ```A` and `B```, ```A`, `B` and `C```."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _statuses(statuses) -> str:
    """``HTTP 400``, ``HTTP 400 and 404``, or ``a 4xx`` when there are more than a message names."""
    if len(statuses) > NAMED_STATUSES:
        return "a 4xx"
    numbers = [str(s) for s in sorted(statuses)]
    return "HTTP " + (numbers[0] if len(numbers) == 1 else f"{', '.join(numbers[:-1])} and {numbers[-1]}")


def _top_index(body, node) -> Optional[int]:
    """The index of the statement of ``body`` (the module's) that is or holds ``node``."""
    for index, stmt in enumerate(body):
        if stmt is node or any(n is node for n in nodes_within(stmt, stop=())):
            return index
    return None


#: how many excluded types a message names before it counts the rest
NAMED_EXCLUSIONS = 3


def but(retried) -> str:
    """What a catch-all retry leaves out, for its message: `` but `ValueError`, `KeyError``` for the
    types it excludes, a phrase for exclusions that cannot be read, else nothing. A list of the
    errors to give up on leaves every error nobody foresaw retried, so the retry is still reported,
    but never as retrying what it excludes."""
    if retried.excluded:
        names = [f"`{t}`" for t in retried.excluded[:NAMED_EXCLUSIONS]]
        rest = len(retried.excluded) - len(names)
        return " but " + ", ".join(names) + (f" and {rest} more" if rest else "")
    return " but the errors it is told to give up on" if retried.filtered else ""


#: what :func:`classify` finds in a set of retried exception types
CATCH_ALL = "catch-all"  # Exception, BaseException
NEVER_TRANSIENT = "never transient"  # auth, bad request, ValueError...
ANY_STATUS = "any status"  # an HTTP status error retried whatever its status
FOR_STATUS = "raised for status"  # a broad HTTP base that raise_for_status() turns every 4xx into


def classify(types: Sequence[str], checks_status: bool, raises_for_status: Callable[[], bool],
             status_errors: bool = True, raised: frozenset = frozenset()) -> Optional[Tuple[str, str]]:
    """(kind, the first such type in ``types``) of the worst error a retry of ``types`` (canonical
    qualified names) retries that no retry can fix, or ``None``: a catch-all, then a never-transient
    error, then an HTTP status error retried whatever its status (``status_errors``: whether that
    counts; a loop's handler inspects the error itself where it must), then a broad HTTP base the
    retried code raises for every 4xx (``raises_for_status``, asked only then). ``checks_status``:
    the retry inspects a status code, which rules out the last two. ``raised``: types the retried
    code raises itself, its own signal to try again, never counted as never transient."""
    steps = ((CATCH_ALL, cat.CATCH_ALL, True), (NEVER_TRANSIENT, cat.NON_TRANSIENT_ERRORS, True),
             (ANY_STATUS, cat.STATUS_ERRORS, status_errors and not checks_status),
             (FOR_STATUS, cat.BROAD_HTTP_ERRORS, not checks_status))
    for kind, known, applies in steps:
        name = next((t for t in types if t in known and (kind is not NEVER_TRANSIENT or t not in raised)),
                    None) if applies else None
        if name is not None and (kind is not FOR_STATUS or raises_for_status()):
            return kind, name
    return None
