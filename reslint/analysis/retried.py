"""Retried scopes: one answer to "is this node retried, and by which policy?".

Built once per file, before the rules' walk, by a walk over statements:

- a function decorated with a retry decorator: its body;
- ``for attempt in Retrying(...)`` / ``stamina.retry_context(...)``: the loop body;
- a hand-rolled retry loop (:mod:`reslint.analysis.loops`): the loop body;
- a local function (or lambda) passed to ``Retrying(...)(fn)``, ``retry_call(fn)``: its body;
- a function decorated with one of the project's own retry decorators, or passed to one of its
  retry helpers (:mod:`reslint.analysis.helpers`; in this module, or declared in the catalog,
  where the project pass also puts the helpers of other modules): its body;
- a function that retries by calling itself from an ``except`` handler: its body;
- a celery task that calls ``retry`` on itself (:mod:`reslint.analysis.task_retries`): its body.

It also records deadline scopes (``asyncio.timeout(T)``, ``anyio.fail_after(T)``)
for RES104. The context pushes and pops these scopes during the walk, so rules
ask ``ctx.retry_scopes`` / ``ctx.deadlines`` and never re-derive them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from reslint import libraries
from reslint.analysis.helpers import CALLER, DECORATOR, FACTORY, Helper, Helpers, argument as _argument, \
    explicit_arguments, forwarded, signature
from reslint.analysis.loops import LoopAnalyzer, own_nodes
from reslint.analysis.retry import Extractor
from reslint.analysis.task_retries import TaskRetries
from reslint.catalog import retries as cat
from reslint.semantics.arguments import argument_value
from reslint.semantics.context import Context, Scope
from reslint.model.policy import RetriedKind, RetryPolicy, Role
from reslint.values import UNKNOWN, is_number
from reslint.semantics.walk import expressions, is_generator, nodes_within, statement_blocks


def _wraps_only_creation(policy: RetryPolicy, func: cst.FunctionDef) -> bool:
    """Whether ``policy``, a decorator of ``func``, never retries it: ``func`` is a generator (or
    async generator) function and the library wraps only its call, which creates the generator
    and raises nothing (the adapter's ``retries_generators``), or an ``async def`` function that a
    project helper's plain wrapper calls without awaiting (``retries_coroutines``)."""
    return (not policy.adapter.retries_generators and is_generator(func)) or \
        (not policy.adapter.retries_coroutines and func.asynchronous is not None)


#: the builtin exception classes an ``except`` catches everything a retry decorator could see with
_CATCH_ALL = frozenset({"Exception", "BaseException"})


def _swallows_every_error(policy: RetryPolicy, func: cst.FunctionDef, ctx: Context, scope: Scope,
                          loops: LoopAnalyzer) -> bool:
    """Whether ``policy``, a decorator of ``func`` that retries on exceptions only, never sees one:
    the body is a ``try`` (after a docstring and guards such as ``if not x: return False`` that
    call nothing) whose handlers catch every exception (a bare ``except:``, ``Exception``), raise
    nothing and call nothing but a logger (:meth:`LoopAnalyzer.quiet`: a reconnect may raise), with
    no ``else`` or ``finally`` that calls anything. Nothing reaches the decorator, so no attempt is
    ever repeated (judged on a public project: two jitter findings on such methods were false). A
    predicate combined of parts (``retry_if_result(...) | retry_if_exception_type()``) may retry a
    returned value: not judged."""
    if policy.retried.kind not in (RetriedKind.ANY, RetriedKind.TYPES) or \
            isinstance(policy.retried.node, cst.BinaryOperation):
        return False
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    if not body or not isinstance(body[-1], cst.Try):
        return False
    for stmt in body[:-1]:
        if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString))
                for s in stmt.body):
            continue  # the docstring
        if isinstance(stmt, cst.If) and stmt.orelse is None and not any(
                isinstance(n, (cst.Call, cst.Await, cst.Raise, cst.Subscript, cst.Attribute)) for n in nodes_within(stmt)):
            continue  # ``if not session_id: return False``
        return False
    node = body[-1]
    def catches_all(handler: cst.ExceptHandler) -> bool:
        kind = handler.type
        return kind is None or (isinstance(kind, cst.Name) and kind.value in _CATCH_ALL
                                and ctx.lookup(kind.value, scope) is None)
    if not any(catches_all(h) for h in node.handlers):
        return False
    if any(isinstance(n, cst.Raise) for h in node.handlers for n in nodes_within(h)) or \
            not all(loops.quiet(h, scope) for h in node.handlers):
        return False
    return not any(isinstance(n, (cst.Call, cst.Await, cst.Raise))
                   for part in (node.orelse, node.finalbody) if part is not None for n in nodes_within(part))


@dataclass
class RetryScope:
    """A subtree that runs once per attempt of ``policy``; ``poll``: the policy waits for a
    condition (:meth:`RetriedScopes.is_poll`), so a pass is a new request by design, not a
    replay after a failure; ``decorator``: the decorator of ``function`` that applies the policy
    (``@api_retry`` where ``api_retry = retry(...)`` is shared by several functions, each its own
    layer of the call graph); ``reached``: ``function`` is a local function the retried code calls
    (:meth:`RetriedScopes.reached_closures`), not the function the policy retries."""

    policy: RetryPolicy
    node: cst.CSTNode
    function: Optional[cst.FunctionDef] = None
    poll: bool = False
    decorator: Optional[cst.BaseExpression] = None
    reached: bool = False


@dataclass
class PassedCall:
    """A library's callable, or another module's function, handed to a retry helper of the project
    with the arguments to call it with (``retry_call(requests.post, url, json=body)``): ``call`` is
    the call the helper makes on each attempt (``requests.post(url, json=body)``, built from the
    use's nodes for the analyses to read: it has no position, and its findings go to ``use``, the
    helper's call); ``scope`` retries it; ``keywords``: the use's keywords reach the callable (a
    ``timeout=`` added to the use is the callable's)."""

    call: cst.Call
    use: cst.Call
    scope: RetryScope
    keywords: bool


@dataclass
class DeadlineScope:
    """A subtree bounded by a deadline of ``seconds`` (``asyncio.timeout(5)``); ``blocking``: it
    also bounds blocking calls made in it (a green thread's timeout, ``catalog.GREEN_DEADLINES``),
    not only awaited ones; ``by_default``: ``seconds`` is the default of the parameter the deadline
    reads (``async def connect(timeout=30): async with asyncio.timeout(timeout):``): a caller may pass
    another finite value, so it bounds the calls in it, but is no measure to compare them with."""

    seconds: object
    node: cst.CSTNode
    what: str
    blocking: bool = False
    by_default: bool = False


#: qualified names of calls that retry the function passed to them (``retry_call(fn, ...)``)
_CALLERS = frozenset(libraries.qualnames(Role.CALLER))


class RetriedScopes:
    """Retry and deadline scopes of one module, keyed by the node whose subtree they cover."""

    def __init__(self, ctx: Context, extractor: Extractor):
        self.ctx = ctx
        self.extractor = extractor
        self.loops = LoopAnalyzer(ctx)
        self.tasks = TaskRetries(ctx, self.loops)
        self.opened: Dict[int, List[object]] = {}
        #: id() of a retry helper's call -> the call of a library's callable it makes (:class:`PassedCall`)
        self.passed: Dict[int, PassedCall] = {}
        #: every policy whose scope is known (decorators, iterators, loops, callers)
        self.policies: List[RetryPolicy] = []
        self.loop_policies: Dict[int, RetryPolicy] = {}
        self._by_policy: Dict[int, RetryScope] = {}
        #: id() of decorator policies on generator functions they cannot retry, and on others
        self._inert: Set[int] = set()
        self._live: Set[int] = set()
        self._asserting: Set[int] = set()  # id() of library policies whose retried body asserts its condition
        self._function = ""  # the function being walked (for loop labels)
        self._functions: Dict[int, str] = {}  # id(policy) -> the function its loop or iterator is in
        #: only modules that import a library whose retry takes a function (``Retrying()(fn)``,
        #: ``retry_call(fn)``) can hold such a call: the others skip the expression scan
        catalog = ctx.catalog
        self._callers = bool(ctx.model.import_roots & libraries.CALLER_ROOTS) or \
            any(h.kind == "caller" for h in catalog.retry_helpers)
        self.helpers = Helpers(ctx, self.loops)
        #: the project's retry helpers defined in this module, by qualified name
        self.found_helpers: Dict[str, Helper] = {}
        self._defs: List[Tuple[cst.FunctionDef, Scope]] = []  # the functions around the statement walked
        self._reached: Set[Tuple[int, int]] = set()  # (id(policy), id(local function)) already opened
        self._walk(ctx.model.module_scope.node.body, ctx.model.module_scope, None)
        callers = [h for h in self.found_helpers.values() if h.kind == CALLER]
        if callers:  # their calls can come before their definitions: a second, cheap walk finds them
            self._callers_of = {id(h.node): h for h in callers}
            self._scan(ctx.model.module_scope.node.body, ctx.model.module_scope)

    def _open(self, node, entry) -> None:
        if isinstance(entry, RetryScope) and not entry.policy.retries:
            return  # one attempt (``max_retries=0``): nothing in it runs twice
        if isinstance(entry, RetryScope):
            if _waits_for_an_assertion(entry.policy, node):
                self._asserting.add(id(entry.policy))
            entry.poll = self.is_poll(entry.policy)
        self.opened.setdefault(id(node), []).append(entry)
        if isinstance(entry, RetryScope):
            self._by_policy.setdefault(id(entry.policy), entry)

    def _open_with_closures(self, entry: RetryScope, scope: Scope) -> None:
        """Open ``entry`` (its names resolve in ``scope``), then the local functions its code calls."""
        self._open(entry.node, entry)
        if any(e is entry for e in self.opened.get(id(entry.node), ())):  # not when it makes one attempt
            self.reached_closures(entry, scope)

    def reached_closures(self, entry: RetryScope, scope: Scope, depth: int = 0) -> None:
        """The local functions the retried code of ``entry`` calls by name (``send()``, defined in the
        function around a retry loop; ``scope``: where the retried code's names resolve): their
        bodies run on each attempt too, and are opened as retried scopes of the same policy, marked
        ``reached`` (a key minted there is new on every attempt, a write made there is replayed).
        A local function defined in the retried code is in its scope already."""
        if depth > 3:
            return
        within = {id(node) for node in expressions(entry.node)}
        for node in expressions(entry.node):
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
                continue
            found = self.ctx.lookup(node.func.value, scope)
            if not found or len(found) != 1 or found[0].kind != "def" or found[0].scope.kind != "function":
                continue
            func = found[0].node
            key = (id(entry.policy), id(func))
            if id(func) in within or key in self._reached:
                continue
            self._reached.add(key)
            reached = RetryScope(entry.policy, func.body, func, reached=True)
            self._open(func.body, reached)
            self.reached_closures(reached, self.ctx.opened_scope(func.body, scope), depth + 1)

    def retries_nothing(self, policy: RetryPolicy) -> bool:
        """Whether ``policy`` decorates only generator functions whose iteration its library does
        not retry (tenacity, backoff: the call creates the generator and raises nothing): no
        attempt is ever repeated, so no retry rule applies to it."""
        return id(policy) in self._inert and id(policy) not in self._live

    def is_poll(self, policy: RetryPolicy) -> bool:
        """Whether a policy waits for a condition instead of retrying a fault of a remote call
        (DESIGN "Polls are not retries"): it retries on a returned value (a result predicate),
        its retried body checks the condition with ``assert`` and nothing but that assertion
        (or every exception, the default) is retried, or it is a hand-rolled loop that compares
        success statuses and catches nothing. The rules that apply to polls say so on their pages."""
        if policy.retried.kind is RetriedKind.RESULT:
            return True
        if policy.loop is not None:
            return policy.loop.poll
        return id(policy) in self._asserting

    def scope_of(self, policy: RetryPolicy) -> Optional[RetryScope]:
        """The scope a policy retries (a decorated body, a loop body), if known."""
        return self._by_policy.get(id(policy))

    def function_of(self, policy: RetryPolicy) -> str:
        """The name of the function a loop or ``for attempt in ...`` policy is spelled in
        (``""`` at module level or for other policies), for labels."""
        return self._functions.get(id(policy), "")

    def _walk(self, body, scope: Scope, deadline) -> None:
        for stmt in body:
            self._statement(stmt, scope, deadline)

    def _block(self, block, scope: Scope, deadline) -> None:
        if isinstance(block, cst.IndentedBlock):
            self._walk(block.body, scope, deadline)
        elif isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self._small(small, scope)

    def _statement(self, stmt, scope: Scope, deadline) -> None:
        model = self.ctx.model
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, scope)
        elif isinstance(stmt, cst.FunctionDef):
            inner = model.scopes.get(id(stmt.body), scope)
            for decorator in stmt.decorators:
                self._want_instance(decorator.decorator, scope)
                policy = self.extractor.for_decorator(decorator.decorator, scope)
                if policy is not None and (_wraps_only_creation(policy, stmt)
                                           or _swallows_every_error(policy, stmt, self.ctx, inner, self.loops)):
                    self._inert.add(id(policy))
                    continue
                if policy is not None:
                    self._live.add(id(policy))
                    self.policies.append(policy)
                    self._open_with_closures(RetryScope(policy, stmt.body, stmt, decorator=decorator.decorator),
                                             inner)
                    continue
                policy = self._helper_use(decorator.decorator, scope)
                if policy is not None and _wraps_only_creation(policy, stmt):
                    continue  # a plain wrapper around an ``async def``: it retries nothing
                if policy is not None:  # the project's own retry decorator: its faults are its loop's
                    self._open_with_closures(RetryScope(policy, stmt.body, stmt, decorator=decorator.decorator),
                                             inner)
            recursive = self.helpers.recursion(stmt, scope)
            if recursive is not None:
                self._helper_of(stmt, (stmt, scope))  # a helper retrying its callable by recursion
                self.policies.append(recursive)
                self.loop_policies[id(recursive.node)] = recursive
                self._functions[id(recursive)] = stmt.name.value
                self._open(stmt.body, RetryScope(recursive, stmt.body, stmt))
            task = self.tasks.policy(stmt, scope)
            if task is not None:  # a task queue's task that retries itself: ``raise self.retry(...)``
                self.policies.append(task)
                self.loop_policies[id(task.node)] = task
                self._functions[id(task)] = stmt.name.value
                self._open(stmt.body, RetryScope(task, stmt.body, stmt))
            autoretry = self.tasks.class_autoretry(stmt, scope)
            if autoretry is not None and not _swallows_every_error(autoretry, stmt, self.ctx, inner, self.loops):
                # a task class's ``run`` retried by the ``autoretry_for`` of its class, where it is reported
                self.policies.append(autoretry)
                self.loop_policies[id(autoretry.node)] = autoretry
                self._open(stmt.body, RetryScope(autoretry, stmt.body, stmt))
            outer, self._function = self._function, stmt.name.value
            self._defs.append((stmt, scope))
            self._block(stmt.body, inner, None)
            self._defs.pop()
            self._function = outer
        elif isinstance(stmt, cst.ClassDef):
            spelled = self.tasks.base_autoretry(stmt, scope)
            if spelled is not None:  # a task class's autoretry policy, for the tasks built on it
                self.loop_policies[id(stmt)] = spelled
            self._block(stmt.body, model.scopes.get(id(stmt.body), scope), None)
        elif isinstance(stmt, (cst.For, cst.While)):
            policy = self._loop_policy(stmt, scope, deadline)
            if policy is not None:
                self._functions.setdefault(id(policy), self._function)
                self.policies.append(policy)
                self.loop_policies[id(stmt)] = policy
                self._open_with_closures(RetryScope(policy, stmt.body), scope)
            self._block(stmt.body, scope, deadline)
            if stmt.orelse is not None:
                self._block(stmt.orelse.body, scope, deadline)
        elif isinstance(stmt, cst.With):
            inner_deadline = deadline
            for index, item in enumerate(stmt.items):
                found = self._deadline(item.item, scope)
                if found is not None:
                    self._open(stmt.body, DeadlineScope(found[0], stmt.body, *found[1:]))
                    # the items after it are entered inside the deadline and left before it ends:
                    # `async with asyncio.timeout(5), Client() as c:`
                    for later in stmt.items[index + 1:]:
                        self._open(later, DeadlineScope(found[0], later, *found[1:]))
                    # a parameter's default is no time cap for the loops inside: a caller may pass more
                    inner_deadline = found[0] if is_number(found[0]) and not found[3] else deadline
            self._block(stmt.body, scope, inner_deadline)
        elif isinstance(stmt, cst.If):
            self._block(stmt.body, scope, deadline)
            orelse = stmt.orelse
            while orelse is not None:
                self._block(orelse.body, scope, deadline)
                orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._block(stmt.body, scope, deadline)
            for handler in stmt.handlers:
                self._block(handler.body, scope, deadline)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self._block(extra.body, scope, deadline)
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                self._block(case.body, scope, deadline)

    def _want_instance(self, decorator, scope: Scope) -> None:
        """Note, for the project pass, an imported name whose method spells a decorator as a shared
        instance's would (``@app.task(...)`` after ``from .celery import app``), when this module
        cannot tell what it is: the module is linted again once another module says."""
        func = decorator.func if isinstance(decorator, cst.Call) else decorator
        if isinstance(func, cst.Name) and func.value in libraries.TASK_DECORATOR_NAMES:
            # ``@task(...)`` after ``from app.tasks import task``: a project function may stand for it
            found = self.ctx.lookup(func.value, scope)
            dotted = found[0].qualname if found and len(found) == 1 and found[0].kind == "import" else None
            if dotted and not dotted.startswith(".") and self.ctx.qualname(func, scope) not in libraries.BY_QUALNAME \
                    and len(self.ctx.wanted) < self.ctx.MAX_WANTED:
                self.ctx.wanted.add(dotted)
            return
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and
                func.attr.value in libraries.TASK_DECORATOR_NAMES):
            return
        dotted = self.ctx.imported_attribute(func, scope)
        if dotted is None or dotted.startswith(".") or self.ctx.qualname(func, scope) in libraries.BY_QUALNAME:
            return
        if len(self.ctx.wanted) < self.ctx.MAX_WANTED - 1:
            # the instance (``app`` of ``app.task``), or the module of a project function that stands
            # for the decorator (``tasks`` of ``tasks.task``)
            self.ctx.wanted.add(dotted.rsplit(".", 1)[0])
            self.ctx.wanted.add(dotted)

    def _loop_policy(self, loop, scope, deadline) -> Optional[RetryPolicy]:
        if isinstance(loop, cst.For):
            iterable, iter_scope = self.ctx.resolve(loop.iter, scope)
            if isinstance(iterable, cst.Call):
                policy = self.extractor.for_call(iterable, iter_scope)
                if policy is not None and policy.role is Role.ITERATOR:
                    return policy
                if policy is not None:
                    return None
        policy = self.loops.policy(loop, scope, deadline)
        if policy is None or not self._defs:
            return policy
        helper = self._helper_of(loop)
        if helper is None:
            return policy
        # the helper's loop as a use that passes nothing sees it (its defaults bound): its own faults
        with self.ctx.bound_params(self.helpers.defaults(helper)):
            return self.loops.policy(loop, scope, deadline)

    def _helper_of(self, loop, own=None) -> Optional[Helper]:
        """The outermost function around ``loop`` (up to a decorator factory) that is a retry helper
        built on it; each found is remembered. ``own``: (the function, its scope) when ``loop`` is a
        function that retries by recursion."""
        found = None
        for func, defined in self._defs[-3:] + ([own] if own is not None else []):
            helper = self.helpers.helper(func, defined)
            if helper is not None and helper.loop is loop:
                if defined.kind in ("module", "class"):
                    self.found_helpers[helper.qualname] = helper
                found = found or helper
        return found

    def _helper_use(self, expr, scope) -> Optional[RetryPolicy]:
        """The policy of ``@helper`` / ``@factory(...)`` when it names a retry helper of this module."""
        call = expr if isinstance(expr, cst.Call) else None
        named = self.local_function(call.func if call is not None else expr, scope)
        if named is None:
            return None
        helper = self.helpers.helper(*named)
        if helper is None:
            return None
        if helper.kind != (FACTORY if call is not None else DECORATOR) and not (
                call is None and helper.kind == FACTORY and self.helpers.optional_function(helper)):
            return None  # ``@factory`` with no call, unless ``def retrier(_func=None, *, retries=3)``
        return self.helpers.use_policy(helper, call, scope, expr, Role.DECORATOR)

    def local_function(self, expr, scope) -> Optional[Tuple[cst.FunctionDef, Scope]]:
        """The function of this module ``expr`` names (a local def, a module function, ``self.method``),
        and the scope it is defined in."""
        if isinstance(expr, cst.Name):
            found = self.ctx.lookup(expr.value, scope)
            if found and len(found) == 1 and found[0].kind == "def":
                return found[0].node, found[0].scope
            return None
        if isinstance(expr, cst.Attribute):
            return self.helpers.local_def(self.ctx.qualname(expr, scope))
        return None

    def _scan(self, body, scope: Scope) -> None:
        """The calls of this module's caller helpers (``call_with_retries(fn, ...)``), in every
        statement, for :meth:`_helper_calls`."""
        model = self.ctx.model
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._helper_calls(small, scope)
                continue
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._scan_block(stmt.body, model.scopes.get(id(stmt.body), scope))
                continue
            for block in statement_blocks(stmt):
                self._scan_block(block, scope)

    def _scan_block(self, block, scope: Scope) -> None:
        if isinstance(block, cst.IndentedBlock):
            self._scan(block.body, scope)
        elif isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self._helper_calls(small, scope)

    def _helper_calls(self, small, scope: Scope) -> None:
        for node in expressions(small):
            if not isinstance(node, cst.Call) or not node.args:
                continue
            named = self.local_function(node.func, scope)
            helper = self._callers_of.get(id(named[0])) if named is not None else None
            if helper is None:
                continue
            target = _argument(node, helper.callable_index, helper.node, helper.method)
            body = self._retried_body(target, scope)
            if body is None and helper.passes is None:
                continue
            policy = self.helpers.use_policy(helper, node, scope, node, Role.CALLER)
            if policy is not None and body is not None:
                self._open(body[0], RetryScope(policy, body[0], body[1]))
            elif policy is not None:
                self._pass(node, target, signature(helper.node, helper.method), helper.passes, policy)

    def _retried_body(self, target, scope):
        """(the node whose subtree runs on each attempt, the function) for a callable passed to a
        helper: a lambda's body, a local function's or this class's method's body."""
        if isinstance(target, cst.Lambda):
            return target.body, None
        named = self.local_function(target, scope) if target is not None else None
        if named is None:
            return None
        return named[0].body, named[0]

    def _deadline(self, expr, scope):
        """(seconds, text, bounds blocking calls, seconds are a parameter's default) when ``expr`` is
        ``asyncio.timeout(T)``-like, else None."""
        if not isinstance(expr, cst.Call):
            return None
        qual = self.ctx.qualname(expr.func, scope)
        spec = cat.DEADLINES.get(qual or "")
        if spec is None or qual == "asyncio.wait_for":
            return None
        position, keyword = spec
        value, by_default = UNKNOWN, False
        for index, arg in enumerate(expr.args):
            if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
                value = self.ctx.value_of(arg.value, scope)
                if value is UNKNOWN:
                    value = self.ctx.param_default(arg.value, scope)
                    by_default = is_number(value)
        seconds = float(value) if is_number(value) else UNKNOWN
        return seconds, f"{qual}({value if is_number(value) else '...'})", qual in cat.GREEN_DEADLINES, by_default

    def _small(self, small, scope: Scope) -> None:
        """``Retrying(...)(fn, ...)``, ``retrying(fn)``, ``retry_call(fn, ...)``: fn's body is retried."""
        if not self._callers:
            return
        for node in expressions(small):
            if not isinstance(node, cst.Call) or not node.args:
                continue
            policy = self._caller_policy(node, scope)
            if policy is None:
                continue
            qual = self.ctx.qualname(node.func, scope)
            entry = self.ctx.catalog.helper(qual) if self.ctx.catalog else None
            if entry is not None:
                position, keyword = entry.callable_position, None
            else:
                position = policy.adapter.callable_positions.get(qual, 0)
                keyword = policy.adapter.callable_keywords.get(qual)
            target = argument_value(node, keyword, position)
            body = self._retried_body(target, scope)
            if body is not None:
                self._open(body[0], RetryScope(policy, body[0], body[1]))
            elif entry is not None and entry.passes is not None:
                self._pass(node, target, entry.params, entry.passes, policy)
            elif entry is None and qual in policy.adapter.callable_arguments:
                # a library caller handed a function it cannot see here (another module's job, a
                # library's function): the call it makes on each attempt is read as any retried call
                spelled, passes = policy.adapter.callable_arguments[qual]
                if any(a.keyword is not None and a.keyword.value in ("args", "kwargs") for a in node.args):
                    args = explicit_arguments(node)  # None: not literals, the call is unknown
                else:
                    args = forwarded(node, spelled, passes)
                if args is not None:
                    self._pass(node, target, spelled, passes, policy, args)

    def _pass(self, use: cst.Call, target, spelled: Tuple[str, ...], passes: Tuple[str, ...],
              policy: RetryPolicy, args: Optional[Tuple[cst.Arg, ...]] = None) -> None:
        """Record the call a retry helper makes of a callable it is handed by name (a library's, or
        another module's function: ``retry_call(requests.post, url, json=body)``), with the use's
        arguments its own parameters (``spelled``) do not take, or ``args`` (:class:`PassedCall`)."""
        if not isinstance(target, (cst.Name, cst.Attribute)) or not policy.retries:
            return
        call = cst.Call(func=target, args=forwarded(use, spelled, passes) if args is None else args)
        scope = RetryScope(policy, call, poll=self.is_poll(policy))
        self.passed[id(use)] = PassedCall(call, use, scope, any(name.startswith("**") for name in passes))

    def passed_call(self, node: cst.Call) -> Optional[PassedCall]:
        """The call of a library's callable that the retry helper call ``node`` makes on each
        attempt, if it is one (:class:`PassedCall`)."""
        return self.passed.get(id(node))

    def _caller_policy(self, call: cst.Call, scope) -> Optional[RetryPolicy]:
        func = call.func
        if isinstance(func, cst.Call):
            policy = self.extractor.for_call(func, scope)
            return policy if policy is not None and policy.adapter.callable_policies else None
        qual = self.ctx.qualname(func, scope)
        if qual in _CALLERS or self.ctx.catalog.helper(qual) is not None:
            policy = self.extractor.for_call(call, scope)
            if policy is not None:
                self.policies.append(policy)
            return policy
        if isinstance(func, cst.Name) and self.ctx.type_of(func, scope) in libraries.CALLABLE_POLICIES:
            constructor = self.ctx.constructor_of(func, scope)
            return self.extractor.for_call(constructor, scope) if constructor is not None else None
        return None


#: what a retry that waits for an ``assert`` may name: the assertion's error, or every exception
_ASSERTION_CATCHERS = cat.CATCH_ALL | {"AssertionError", "builtins.AssertionError"}


def _waits_for_an_assertion(policy: RetryPolicy, body) -> bool:
    """A library retry whose body ``assert``s a condition and that retries that assertion and
    no named fault (the default predicate, ``Exception`` or ``AssertionError``): a poll."""
    if policy.loop is not None:
        return False
    retried = policy.retried
    if retried.kind is RetriedKind.TYPES:
        if not retried.types or not set(retried.types) <= _ASSERTION_CATCHERS:
            return False
    elif retried.kind is not RetriedKind.ANY:
        return False
    return any(isinstance(n, cst.Assert) for n in own_nodes(body))
