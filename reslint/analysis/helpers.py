"""Retry layers a project writes itself, beyond loops: its own retry helpers, and retries by recursion.

**Retry helpers, inferred from their bodies** (no list of names): a function whose body holds a
hand-rolled retry loop (:mod:`reslint.analysis.loops`) whose ``try`` calls a parameter is

- a *caller* when the loop is its own: ``call_with_retries(fn, *args, attempts=3)`` retries ``fn``;
- a *decorator* when the loop is in a function it defines and returns: ``@retry`` on ``g``
  retries ``g``;
- a *decorator factory* when it returns such a decorator: ``@retrying(attempts=4)``.

Each use site binds the parameters it passes (the others keep their defaults), and the helper's
loop is read again under those values, so ``@retrying(attempts=4)`` is 4 attempts: the decorated
function, or the local function or lambda passed to a caller, becomes a retried scope with that
policy. The faults of the loop itself (no jitter, a catch-all) belong to the helper and are
reported there once, by the loop rules; a use-site policy is never checked by them.

**Retry by recursion**: a function that calls itself from an ``except`` handler with an attempt
counter (``return push(batch, attempt + 1)``), usually guarded (``if attempt < 3``), retries its
own body: the function body is the retried scope, the recursive call is where its bounds and
backoff findings go (as a loop statement's for a loop), its sleeps and handlers as a loop's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint.analysis.loops import LoopAnalyzer, exits_on_success, logs, own_nodes
from reslint.catalog import canonical, retries as cat
from reslint.catalog.user import CALLER as CALLER_ENTRY, DECORATOR as DECORATOR_ENTRY, HelperEntry
from reslint.libraries import RECURSIVE, REQUEUED, helper_adapter
from reslint.model.policy import Jitter, LoopFacts, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.semantics.arguments import argument_value, find_argument
from reslint.semantics.context import Context, Scope
from reslint.semantics.walk import children, expressions
from reslint.values import UNKNOWN, is_number

CALLER, DECORATOR, FACTORY = "caller", "decorator", "factory"


@dataclass(frozen=True, eq=False)
class Helper:
    """A function of this module that retries a callable.

    ``node`` is the function a use site names, ``kind`` how it is used (:data:`CALLER`,
    :data:`DECORATOR`, :data:`FACTORY`); ``loop`` the retry loop and ``loop_scope`` the scope it is
    in; ``binder`` the function whose parameters a use site's arguments bind (the caller or the
    factory; ``None`` for a plain decorator), with ``binder_scope`` its scope; ``callable_index``
    the position of the retried callable among a caller's arguments; ``method``: the binder is a
    method (its first parameter is not passed); ``passes``: for a caller, the star parameters it
    calls the callable with, as they are (:func:`passes_on`)."""

    kind: str
    node: cst.FunctionDef
    qualname: str
    loop: cst.CSTNode
    loop_scope: Scope
    binder: Optional[cst.FunctionDef]
    binder_scope: Optional[Scope]
    callable_index: int = 0
    method: bool = False
    passes: Optional[Tuple[str, ...]] = None

    @property
    def name(self) -> str:
        return self.node.name.value


#: names that show a decorator tells coroutine functions apart (and wraps them with an ``async def``)
_ASYNC_AWARE = frozenset({"iscoroutinefunction", "iscoroutine", "isawaitable", "markcoroutinefunction"})


def sync_wrapper(helper: Helper) -> bool:
    """Whether ``helper`` is a decorator (or factory) whose retry loop is in a plain ``def`` wrapper
    that calls the decorated function without awaiting it, never asks whether that function is a
    coroutine function and never hands the function, or what its call returns, to another call
    (``asyncio.run(fn(...))``, an aliased ``iscoroutinefunction(fn)``): on an ``async def`` each call
    only creates the coroutine, which raises nothing there, so no attempt is repeated."""
    if helper.kind == CALLER:
        return False
    wrapper = helper.loop_scope.node if helper.loop_scope is not None else None
    if not isinstance(wrapper, cst.FunctionDef) or wrapper.asynchronous is not None:
        return False
    if any((isinstance(n, cst.Name) and n.value in _ASYNC_AWARE)
           or (isinstance(n, cst.Attribute) and n.attr.value in _ASYNC_AWARE)
           or isinstance(n, cst.Await) for n in expressions(helper.node)):
        return False
    # the decorated function: a parameter of an enclosing function that the loop calls
    own = {p.name.value for p in _params(wrapper)} | {p.name.value for p in wrapper.params.kwonly_params}
    enclosing = {p.name.value for n in expressions(helper.node) if isinstance(n, cst.FunctionDef) and n is not wrapper
                 for p in _params(n) + list(n.params.kwonly_params)} - own
    called = {n.func.value for n in expressions(helper.loop) if isinstance(n, cst.Call)
              and isinstance(n.func, cst.Name) and n.func.value in enclosing}
    if not called:
        return False
    for node in expressions(helper.node):
        if not isinstance(node, cst.Call):
            continue
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "wraps" or \
                isinstance(node.func, cst.Name) and node.func.value == "wraps":
            continue
        for arg in node.args:
            value = arg.value
            if isinstance(value, cst.Name) and value.value in called:
                return False  # handed to another call (``if is_async(fn):``, ``run_async(fn)``): it may await it
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in called:
                return False  # ``asyncio.run(fn(...))``: each attempt runs the coroutine to its end
    return True


def _params(func: cst.FunctionDef) -> List[cst.Param]:
    params = func.params
    return list(params.posonly_params) + list(params.params)


def _loops(body) -> List[cst.CSTNode]:
    """``for``/``while`` statements of a function body, not of the functions or classes it defines."""
    out, stack = [], list(children(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.For, cst.While)):
            out.append(node)
        stack.extend(children(node))
    return out


def _returned_defs(func: cst.FunctionDef, scope: Scope) -> List[cst.FunctionDef]:
    """The functions defined in ``func`` that it returns (``return wrapper``, also wrapped in a call:
    ``return cast(F, wrapper)``, ``return functools.wraps(fn)(wrapper)``)."""
    out = []
    for node in own_nodes(func.body):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        value = node.value
        names = [value] if isinstance(value, cst.Name) else \
            [a.value for a in value.args if isinstance(a.value, cst.Name)] if isinstance(value, cst.Call) else []
        for name in names:
            found = scope.bindings.get(name.value)
            if found and len(found) == 1 and found[0].kind == "def" and found[0].node not in out:
                out.append(found[0].node)
    return out


class Helpers:
    """The retry helpers and recursive retries of one module (memoised per function)."""

    def __init__(self, ctx: Context, loops: LoopAnalyzer):
        self.ctx = ctx
        self.loops = loops
        self._helpers: Dict[int, Optional[Helper]] = {}
        self._loop_policy: Dict[int, Optional[RetryPolicy]] = {}
        self._defs: Optional[Dict[str, Tuple[cst.FunctionDef, Scope]]] = None

    # -- which functions are helpers -------------------------------------------------------
    def local_def(self, qualname: Optional[str]) -> Optional[Tuple[cst.FunctionDef, Scope]]:
        """The module-level function or method of this module named ``qualname`` (and the scope
        it is defined in)."""
        if qualname is None:
            return None
        if self._defs is None:
            self._defs = {}
            model = self.ctx.model
            for scope in [model.module_scope] + [cscope for _, cscope in model.classes.values()]:
                for name, found in scope.bindings.items():
                    if len(found) == 1 and found[0].kind == "def":
                        self._defs[f"{scope.name}.{name}"] = (found[0].node, scope)
        return self._defs.get(qualname)

    def helper(self, func: cst.FunctionDef, scope: Scope) -> Optional[Helper]:
        """``func`` (defined in ``scope``) as a retry helper, or ``None``."""
        key = id(func)
        if key not in self._helpers:
            self._helpers[key] = None  # a helper that names itself is not followed twice
            self._helpers[key] = self._infer(func, scope)
        return self._helpers[key]

    def _infer(self, func: cst.FunctionDef, scope: Scope) -> Optional[Helper]:
        inner = self.ctx.opened_scope(func.body)
        if inner is None:
            return None
        qualname = f"{scope.name}.{func.name.value}" if scope.kind in ("module", "class") else func.name.value
        method = inner.self_name is not None
        params = _params(func)[1:] if method else _params(func)
        names = [p.name.value for p in params]
        # a caller: its own loop (or its recursion) retries a parameter
        for loop in _loops(func.body) + [func]:
            called = self._retried_param(loop, inner if loop is not func else scope, names)
            if called is not None:
                loop_scope = inner if loop is not func else scope
                return Helper(CALLER, func, qualname, loop, loop_scope, func, inner, names.index(called.func.value),
                              method, passes_on(called, signature(func, method)))
        # a decorator: the function it returns retries the first parameter (in a loop, or by recursion)
        if names and not method:
            for wrapper in _returned_defs(func, inner):
                wrapper_scope = self.ctx.opened_scope(wrapper.body)
                if wrapper_scope is None:
                    continue
                for loop in _loops(wrapper.body):
                    if self._retried_param(loop, wrapper_scope, names[:1]) is not None:
                        return Helper(DECORATOR, func, qualname, loop, wrapper_scope, None, None)
                if self._retried_param(wrapper, inner, names[:1]) is not None:
                    return Helper(DECORATOR, func, qualname, wrapper, inner, None, None)
        # a factory: it returns a decorator
        for decorator in _returned_defs(func, inner):
            found = self.helper(decorator, inner)
            if found is not None and found.kind == DECORATOR:
                return Helper(FACTORY, func, qualname, found.loop, found.loop_scope, func, inner, method=method)
        return None

    def _retried_param(self, loop, scope: Scope, names: List[str]) -> Optional[cst.Call]:
        """The call of a parameter (one of ``names``) that a retry loop makes in a ``try`` that
        leaves the loop on success, or ``None`` (also when the loop does not retry)."""
        if not names:
            return None
        if isinstance(loop, cst.FunctionDef):  # a retry by recursion: names resolve in its own scope
            own = self.ctx.opened_scope(loop.body)
            if own is None or self.loop_policy(loop, scope) is None:
                return None
            scope = own
        called = None
        for attempt in self.loops.tries(loop.body):
            if not isinstance(loop, cst.FunctionDef) and not exits_on_success(attempt, loop=loop):
                continue  # success goes round again: a service loop running its workload, not a retry
            for node in own_nodes(attempt.body):
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in names:
                    found = self.ctx.lookup(node.func.value, scope)
                    if found and all(b.kind == "param" for b in found):
                        called = node
                        break
            if called is not None:
                break
        if called is None or (not isinstance(loop, cst.FunctionDef) and self.loop_policy(loop, scope) is None):
            return None
        return called

    def loop_policy(self, loop, scope: Scope, values=None) -> Optional[RetryPolicy]:
        """The loop's policy with no parameter bound (memoised), or under ``values``; ``loop`` may be
        a function that retries by recursion (``scope``: where it is defined)."""
        read = self.recursion if isinstance(loop, cst.FunctionDef) else self.loops.policy
        if values is not None:
            with self.ctx.bound_params(values):
                return read(loop, scope)
        key = id(loop)
        if key not in self._loop_policy:
            self._loop_policy[key] = read(loop, scope)
        return self._loop_policy[key]

    @staticmethod
    def optional_function(helper: Helper) -> bool:
        """A factory that is also the decorator: its first parameter defaults to ``None``
        (``def retrier(_func=None, *, retries=3)``: ``@retrier`` and ``@retrier(retries=2)``)."""
        params = _params(helper.node)
        first = params[0] if params else None
        return first is not None and isinstance(first.default, cst.Name) and first.default.value == "None"

    # -- parameters at a use site ---------------------------------------------------------
    def defaults(self, helper: Helper) -> Dict[Tuple[int, str], object]:
        """Each parameter of the helper's binder (and of the functions between it and the loop)
        bound to its default value, as a use that passes nothing sees it."""
        out: Dict[Tuple[int, str], object] = {}
        func, scope = helper.binder, helper.binder_scope
        if func is None or scope is None:
            return out
        params = func.params
        for param in _params(func) + list(params.kwonly_params):
            if param.default is not None:
                out[(id(scope), param.name.value)] = self.ctx.value_of(param.default, scope.parent)
        return out

    def bound(self, helper: Helper, call: Optional[cst.Call], scope: Scope) -> Dict[Tuple[int, str], object]:
        """The helper's parameters as the use ``call`` (in ``scope``) binds them."""
        values = self.defaults(helper)
        if call is None or helper.binder is None:
            return values
        key = id(helper.binder_scope)
        params = _params(helper.binder)
        if helper.method:
            params = params[1:]
        positional = [p.name.value for p in params]
        keywords = positional + [p.name.value for p in helper.binder.params.kwonly_params]
        index = 0
        for arg in call.args:
            if arg.star:
                # *args/**kwargs: what they hold is unknown, and so is every parameter they may fill
                rest = positional[index:] if arg.star == "*" else keywords
                for name in rest:
                    values[(key, name)] = UNKNOWN
                continue
            if arg.keyword is not None:
                name = arg.keyword.value
                if name in keywords:
                    values[(key, name)] = self.ctx.value_of(arg.value, scope)
                continue
            if index < len(positional):
                values[(key, positional[index])] = self.ctx.value_of(arg.value, scope)
            index += 1
        return values

    def use_policy(self, helper: Helper, call: Optional[cst.Call], scope: Scope, anchor: cst.CSTNode,
                   role: Role) -> Optional[RetryPolicy]:
        """The policy a use of ``helper`` retries with (``call``: the factory's or caller's call),
        anchored at ``anchor``; ``None`` when, bound so, the loop does not retry."""
        policy = self.loop_policy(helper.loop, helper.loop_scope, self.bound(helper, call, scope))
        if policy is None:
            return None
        return dataclasses.replace(policy, adapter=helper_adapter(helper.name, sync_wrapper=sync_wrapper(helper)),
                                   role=role, node=anchor, loop=None, call=None)

    def entry(self, helper: Helper) -> HelperEntry:
        """``helper`` as a catalog entry for the project pass (``inferred``): its attempts with its
        defaults, the parameter that sets them (found by reading the loop under three values of each
        parameter, kept when the count is ``scale * value + offset``), its time cap and what it retries."""
        base = self.defaults(helper)
        policy = self.loop_policy(helper.loop, helper.loop_scope, base)
        attempts = policy.attempts if policy is not None else UNKNOWN
        param, position, scale, offset = "", -1, 1.0, 0.0
        if helper.binder is not None:
            positional = _params(helper.binder)[1:] if helper.method else _params(helper.binder)
            names = [(p.name.value, i) for i, p in enumerate(positional)] + \
                [(p.name.value, -1) for p in helper.binder.params.kwonly_params]
            for name, index in names:
                if helper.kind == CALLER and index == helper.callable_index:
                    continue
                counts = []
                for probe in (10, 20, 37):
                    values = dict(base)
                    values[(id(helper.binder_scope), name)] = probe
                    found = self.loop_policy(helper.loop, helper.loop_scope, values)
                    counts.append(found.attempts if found is not None else UNKNOWN)
                if not all(isinstance(c, int) for c in counts) or counts[0] == counts[1]:
                    continue
                slope = (counts[1] - counts[0]) / 10
                if slope * 37 + counts[0] - 10 * slope == counts[2]:
                    param, position, scale, offset = name, index, slope, counts[0] - 10 * slope
                    break
        delay = policy.max_delay_s if policy is not None else UNKNOWN
        retried = policy.retried if policy is not None else Retried(RetriedKind.UNKNOWN)
        retry_on: Tuple[str, ...] = ()
        if retried.kind is RetriedKind.ANY:
            retry_on = ("BaseException",)
        elif retried.kind in (RetriedKind.TYPES, RetriedKind.FUNCTION):
            retry_on = tuple(retried.types)
        count = 0 if attempts is None else int(attempts) if is_number(attempts) else None
        caller = helper.kind == CALLER
        return HelperEntry(helper.qualname, CALLER_ENTRY if caller else DECORATOR_ENTRY, attempts=count,
                           attempts_param=param, attempts_position=position, attempts_scale=scale,
                           attempts_offset=offset,
                           max_delay_s=float(delay) if is_number(delay) else (None if delay is None else -1.0),
                           retry_on=retry_on, callable_position=helper.callable_index, inferred=True,
                           params=signature(helper.node, helper.method) if caller else (), passes=helper.passes,
                           sync_wrapper=sync_wrapper(helper))

    # -- recursion -------------------------------------------------------------------------
    def recursion(self, func: cst.FunctionDef, scope: Scope) -> Optional[RetryPolicy]:
        """The policy of ``func`` (defined in ``scope``) when it retries by calling itself from an
        ``except`` handler with an attempt counter, else ``None``."""
        inner = self.ctx.opened_scope(func.body)
        if inner is None:
            return None
        found = self._recursive_call(func, inner)
        if found is None:
            return None
        call, handlers, counter, step = found
        if all(self.loops.local_errors_only(h, inner) for h in handlers):
            return None  # ``except ValidationError: return self.parse(attempt + 1)``: a re-ask, no I/O retry
        nodes = own_nodes(func.body)
        param = next((p for p in _params(func) + list(func.params.kwonly_params) if p.name.value == counter), None)
        start = self.ctx.value_of(param.default, scope) if param is not None and param.default is not None \
            else UNKNOWN
        attempts = self._recursion_bound(nodes, call, counter, step, start, inner)
        sleeps = [n for n in nodes if isinstance(n, cst.Call) and self.ctx.qualname(n.func, inner) in cat.SLEEPS]
        var = counter if step > 0 and is_number(start) else None
        first = int(start) if var is not None else 0
        wait = self.loops.wait(sleeps, var, first, inner)
        pausing = self.loops.pausing_calls(nodes, sleeps, inner)
        if pausing:
            wait = Wait.unknown(pausing[0])  # a helper sleeps (until a rate limit resets): how long is unknown
        elif self._requeues(call, func, inner) and call.func.attr.value in cat.REENQUEUE_OPTION_METHODS and any(
                arg.star == "**" or (arg.keyword is not None and arg.keyword.value in cat.REENQUEUE_DELAY_KEYWORDS)
                for arg in call.args):
            wait = Wait.unknown(call)  # ``countdown=``, ``eta=``, ``delay=``: when it runs again
        retried, aimed = self.loops.retried(handlers, nodes, inner)
        capped, cap = self.loops.time_cap(func, nodes, inner)
        in_handler = {id(n) for handler in handlers for n in own_nodes(handler.body)}
        facts = LoopFacts(sleeps=tuple(sleeps), handlers=tuple(handlers), aimed_at_rate_limit=aimed,
                          sleeps_in_handlers=frozenset(id(s) for s in sleeps if id(s) in in_handler),
                          time_capped=capped, counter=counter)
        adapter = REQUEUED if self._requeues(call, func, inner) else RECURSIVE
        return RetryPolicy(adapter, Role.LOOP, call, attempts=attempts, max_delay_s=cap if capped else None,
                           wait=wait, retried=retried, loop=facts)

    def _recursive_call(self, func: cst.FunctionDef, inner: Scope):
        """(the first call, the ``except`` handlers that call again, the counter parameter, +1 or -1)
        of calls of ``func`` to itself, from handlers of its own body, passing a parameter plus or
        minus a number; the first call from a handler of other than local errors when there is one."""
        found = None
        handlers = []
        for handler in (n for n in own_nodes(func.body) if isinstance(n, cst.ExceptHandler)):
            again = self._call_again(handler, func, inner)
            if again is not None:
                handlers.append(handler)
                # the findings go to a call from a handler of the faults a retry is for, not to the
                # re-ask after a reply that does not parse (``except ValidationError:``) before it
                if found is None or (self.loops.local_errors_only(found[3], inner) and
                                     not self.loops.local_errors_only(handler, inner)):
                    found = (*again, handler)
        return (found[0], handlers, found[1], found[2]) if found is not None else None

    def _call_again(self, handler: cst.ExceptHandler, func: cst.FunctionDef, inner: Scope):
        """(call, counter, step) of the first call of ``func`` to itself with a counter in ``handler``:
        a call, or a task queued again (``send_webhook.delay(url, attempt + 1)``, ``apply_async(args=(url,
        attempt + 1))``: catalog ``REENQUEUE_METHODS``)."""
        params = {p.name.value for p in _params(func) + list(func.params.kwonly_params)}
        for node in _handler_calls(handler):
            requeued = self._requeues(node, func, inner)
            if not ((self._is_self_call(node.func, func, inner) or requeued) and self._same_request(node, inner)):
                continue
            if requeued and not _passes_itself_on(node, func):
                continue  # queues itself for another item (a parent node, the next page): no retry
            for arg in _passed_arguments(node):
                value = arg.value
                if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)) \
                        and isinstance(value.left, cst.Name) and value.left.value in params and \
                        is_number(self.ctx.value_of(value.right, inner)) and \
                        (arg.keyword is None or arg.keyword.value == value.left.value):
                    step = 1 if isinstance(value.operator, cst.Add) else -1
                    if self.ctx.value_of(value.right, inner) < 0:
                        step = -step
                    if requeued and self._feeds_the_work(func, value.left.value, node, inner):
                        continue  # ``import_page.delay(page + 1)`` where ``page`` picks what is fetched: a cursor
                    return node, value.left.value, step
        return self._guarded_call(handler, func, inner)

    def _guarded_call(self, handler: cst.ExceptHandler, func: cst.FunctionDef, inner: Scope):
        """(call, counter, step) of a call of ``func`` to itself under ``if count > 0:`` in ``handler``,
        where the handler also counts (``count -= 1``): the counter reaches the next call another way
        (``kwargs["count"] = count``)."""
        nodes = own_nodes(handler.body)
        counted = {}
        for node in nodes:
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and \
                    isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)) and \
                    is_number(self.ctx.value_of(node.value, inner)):
                counted[node.target.value] = 1 if isinstance(node.operator, cst.AddAssign) else -1
        if not counted:
            return None
        for node in nodes:
            if not (isinstance(node, cst.If) and isinstance(node.test, cst.Comparison) and
                    len(node.test.comparisons) == 1 and isinstance(node.test.left, cst.Name) and
                    node.test.left.value in counted):
                continue
            for call in own_nodes(node.body):
                if isinstance(call, cst.Call) and self._is_self_call(call.func, func, inner) and \
                        self._same_request(call, inner):
                    return call, node.test.left.value, counted[node.test.left.value]
        return None

    def _same_request(self, call: cst.Call, inner: Scope) -> bool:
        """Whether a call of a function to itself sends what it was given again: its arguments name
        only the function's parameters (and names from outside it: ``self.x``, constants), so only
        the counter changes. A call with a local of the function (``to_serializable(value, depth +
        1)`` on a part of the input, ``follow(next_url, attempt + 1)``) is recursion over data or a
        fallback, not a retry."""
        for arg in call.args:
            for node in expressions(arg.value):
                if isinstance(node, cst.Name):
                    found = inner.bindings.get(node.value)
                    if found and any(b.kind != "param" for b in found):
                        return False
        return True

    def _feeds_the_work(self, func: cst.FunctionDef, counter: str, again: cst.Call, inner: Scope) -> bool:
        """Whether the counter a task passes on when it queues itself again goes into another call
        of its body (``params={"page": page}``), other than a sleep or a log line: it numbers the
        items of work, not the attempts."""
        for node in own_nodes(func.body):
            if not isinstance(node, cst.Call) or node is again or self.ctx.qualname(node.func, inner) in cat.SLEEPS:
                continue
            if logs(node):
                continue
            if any(isinstance(n, cst.Name) and n.value == counter for arg in node.args for n in expressions(arg.value)):
                return True
        return False

    def _requeues(self, call: cst.Call, func: cst.FunctionDef, inner: Scope) -> bool:
        """Whether ``call`` queues the task ``func`` is again (``send_webhook.delay(...)``)."""
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in cat.REENQUEUE_METHODS and \
            isinstance(call.func.value, cst.Name) and self._is_self_call(call.func.value, func, inner)

    def _is_self_call(self, expr, func: cst.FunctionDef, inner: Scope) -> bool:
        name = func.name.value
        if isinstance(expr, cst.Name) and expr.value == name:
            found = self.ctx.lookup(name, inner)
            return bool(found) and len(found) == 1 and found[0].node is func
        if isinstance(expr, cst.Attribute) and expr.attr.value == name and isinstance(expr.value, cst.Name):
            return inner.self_name is not None and expr.value.value in (inner.self_name, "cls")
        return False

    def _recursion_bound(self, nodes, call, counter: str, step: int, start, scope: Scope):
        """Attempts of a recursive retry from the test that compares the counter with a bound:
        ``if attempt < N: return f(attempt + 1)`` or ``if attempt >= N: raise``. No comparison of the
        counter: unbounded (``None``); one that cannot be read: :data:`UNKNOWN`."""
        compared = False
        for node in nodes:
            if not isinstance(node, cst.If):
                continue
            tests = [node.test] + [n for n in own_nodes(node.test)]
            for test in tests:
                if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
                    continue
                left, right = test.left, test.comparisons[0].comparator
                op = test.comparisons[0].operator
                if _names(right, counter) and not _names(left, counter):
                    left, right, op = right, left, _flipped(op)  # ``N > attempt``
                if not (isinstance(left, cst.Name) and left.value == counter) or op is None:
                    continue
                compared = True
                bound = self.ctx.value_of(right, scope)
                if not is_number(bound):
                    bound = self.ctx.param_default(right, scope)
                if not (is_number(bound) and is_number(start)):
                    return UNKNOWN
                if not any(n is call for n in own_nodes(node.body)):
                    if not _leaves(node.body):
                        continue
                    op = _negated(op)  # ``if attempt >= N: raise``: it goes on while the opposite holds
                return _attempts(op, step, int(start), bound)
        return UNKNOWN if compared else None


_PER_ITEM = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FunctionDef, cst.ClassDef, cst.Lambda,
             cst.For, cst.While)


def _passed_arguments(call: cst.Call) -> List[cst.Arg]:
    """The arguments a call passes its callee: its own, and for a task queued again with options
    (``apply_async``) those of its ``args`` tuple or list (as positional) and ``kwargs`` dict (as
    keywords), by keyword or as its first two positional arguments."""
    option_method = isinstance(call.func, cst.Attribute) and call.func.attr.value in cat.REENQUEUE_OPTION_METHODS
    if not option_method:
        return list(call.args)
    out = []
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        index = next((i for i, p in enumerate(positional) if p is arg), None)
        role = keyword if keyword in cat.REENQUEUE_ARGUMENT_KEYWORDS else \
            ("args", "kwargs")[index] if index is not None and index < 2 else None
        if role == "args" and isinstance(arg.value, (cst.Tuple, cst.List)):
            out.extend(cst.Arg(value=element.value) for element in arg.value.elements
                       if isinstance(element, cst.Element))
        elif role == "kwargs" and isinstance(arg.value, cst.Dict):
            out.extend(cst.Arg(value=element.value, keyword=cst.Name(element.key.evaluated_value))
                       for element in arg.value.elements if isinstance(element, cst.DictElement)
                       and isinstance(element.key, cst.SimpleString) and isinstance(element.key.evaluated_value, str)
                       and element.key.evaluated_value.isidentifier())
    return out


def _passes_itself_on(call: cst.Call, func: cst.FunctionDef) -> bool:
    """Whether a task queued again gets its own parameters back where it took them (the counter
    aside, which :meth:`Helpers._call_again` finds): each positional argument that is a bare name
    is the parameter of that position, each keyword argument a bare name is the parameter of that
    name. ``process.delay(parent_id, None, depth + 1)`` in ``process(node_id, parent_id, depth)``
    works on another item."""
    params = [p.name.value for p in _params(func)]
    position = 0
    for arg in _passed_arguments(call):
        value = arg.value
        if arg.keyword is None:
            expected = params[position] if position < len(params) else None
            position += 1
        else:
            expected = arg.keyword.value
        if isinstance(value, cst.Name) and value.value not in ("None", "True", "False") and value.value != expected:
            return False
        if isinstance(value, cst.Name) and value.value in ("None", "True", "False") and expected is not None:
            return False
    return True


def _handler_calls(handler: cst.ExceptHandler) -> List[cst.Call]:
    """The calls an ``except`` handler makes once (not per item of a comprehension or loop, not in a
    function it defines)."""
    out, stack = [], list(children(handler.body))
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            out.append(node)
        if not isinstance(node, _PER_ITEM):
            stack.extend(children(node))
    return out


def signature(func: cst.FunctionDef, method: bool = False) -> Tuple[str, ...]:
    """The parameters of ``func`` as its ``def`` spells them (``fn``, ``*args``, ``attempts``,
    ``**kwargs``; a bare ``*`` before keyword-only ones), without ``self`` for a ``method``."""
    params = func.params
    out = [p.name.value for p in _params(func)][1 if method else 0:]
    if isinstance(params.star_arg, cst.Param):
        out.append("*" + params.star_arg.name.value)
    elif params.kwonly_params:
        out.append("*")
    out.extend(p.name.value for p in params.kwonly_params)
    if params.star_kwarg is not None:
        out.append("**" + params.star_kwarg.name.value)
    return tuple(out)


def passes_on(call: cst.Call, spelled: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
    """The star parameters of a caller (``spelled``: its :func:`signature`) that its ``call`` of the
    callable hands on as they are: ``("*args", "**kwargs")`` for ``fn(*args, **kwargs)``, ``()``
    for ``fn()``; ``None`` when it passes anything else (``fn(url, timeout=5)``): then what the
    callable is called with is not the rest of a use's arguments."""
    stars = {name for name in spelled if name.startswith("*") and name != "*"}
    out = []
    for arg in call.args:
        if arg.keyword is not None or not isinstance(arg.value, cst.Name) or arg.star + arg.value.value not in stars:
            return None
        out.append(arg.star + arg.value.value)
    return tuple(out)


def forwarded(call: cst.Call, spelled: Tuple[str, ...], passes: Tuple[str, ...]) -> Tuple[cst.Arg, ...]:
    """The arguments of the use ``call`` of a caller that reach the callable it retries: those its
    own parameters (``spelled``, :func:`signature`) do not take, when it hands on the star
    parameter that takes them (``passes``). A ``*xs``/``**kw`` of the use may hold anything: it is
    handed on when the caller hands its star parameters on."""
    positional = []
    for name in spelled:
        if name.startswith("*"):
            break
        positional.append(name)
    named = {name for name in spelled if not name.startswith("*")}
    star = next((name for name in passes if not name.startswith("**")), None)
    double = next((name for name in passes if name.startswith("**")), None)
    out, index = [], 0
    for arg in call.args:
        if arg.star:
            if passes:
                out.append(arg)
        elif arg.keyword is not None:
            if arg.keyword.value not in named and double is not None:
                out.append(arg)
        else:
            if index >= len(positional) and star is not None:
                out.append(arg)
            index += 1
    return tuple(out)


def explicit_arguments(call: cst.Call) -> Optional[Tuple[cst.Arg, ...]]:
    """The arguments a caller given them explicitly hands on (RQ's ``enqueue_call(f, args=(a,),
    kwargs={"k": v})``): the items of an ``args=`` tuple or list literal, then the items of a
    ``kwargs=`` dict literal with string keys, as arguments of a call; ``None`` when either is
    given as anything else (a name, a starred item, a computed key), whose parts are unknown."""
    out: List[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value not in ("args", "kwargs"):
            continue
        value = arg.value
        if arg.keyword.value == "args":
            if not isinstance(value, (cst.Tuple, cst.List)) or \
                    any(isinstance(e, cst.StarredElement) for e in value.elements):
                return None
            out[:0] = [cst.Arg(value=e.value) for e in value.elements]
        else:
            if not isinstance(value, cst.Dict):
                return None
            for element in value.elements:
                key = element.key if isinstance(element, cst.DictElement) else None
                if not isinstance(key, cst.SimpleString) or not key.evaluated_value.isidentifier():
                    return None
                out.append(cst.Arg(value=element.value, keyword=cst.Name(key.evaluated_value)))
    return tuple(out)


def argument(call: cst.Call, index: int, func: cst.FunctionDef, method: bool) -> Optional[cst.BaseExpression]:
    """The argument ``call`` passes to the ``index``-th parameter of ``func`` (after ``self`` for a
    method), by position or by name; ``None`` when it passes none or ``*args``/``**kwargs`` may."""
    params = _params(func)[1:] if method else _params(func)
    return argument_value(call, params[index].name.value if index < len(params) else None, index)


def _names(expr, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _leaves(block) -> bool:
    """Whether a block ends in ``raise`` or ``return``."""
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if not body:
        return False
    last = body[-1]
    smalls = last.body if isinstance(last, cst.SimpleStatementLine) else (last,)
    return any(isinstance(s, (cst.Raise, cst.Return)) for s in smalls)


_FLIP = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan, cst.LessThanEqual: cst.GreaterThanEqual,
         cst.GreaterThanEqual: cst.LessThanEqual}
_NEGATE = {cst.LessThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThan, cst.GreaterThan: cst.LessThanEqual,
           cst.LessThanEqual: cst.GreaterThan}


def _flipped(op):
    cls = _FLIP.get(type(op))
    return cls() if cls is not None else None


def _negated(op):
    cls = _NEGATE.get(type(op))
    return cls() if cls is not None else None


def _attempts(op, step: int, start: int, bound) -> object:
    """Attempts of a recursion that goes on while ``counter <op> bound``, the counter starting at
    ``start`` and moving by ``step`` (each test that holds makes one more attempt)."""
    bound = float(bound)
    if step > 0:
        last = {cst.LessThan: bound - 1, cst.LessThanEqual: bound}.get(type(op))  # largest counter that goes on
        if last is None:
            return UNKNOWN
        count = int(last) - start + 1  # recursions
    else:
        first = {cst.GreaterThan: bound + 1, cst.GreaterThanEqual: bound}.get(type(op))
        if first is None:
            return UNKNOWN
        count = start - int(first) + 1
    return max(0, count) + 1


# -- helpers named in the catalog (declared by the user, or inferred in another module) -----------
def catalog_policy(ctx: Context, entry: HelperEntry, call: Optional[cst.Call], anchor: cst.CSTNode, scope,
                   role: Role) -> RetryPolicy:
    """The policy a use of the catalog helper ``entry`` retries with: its attempts (bound by the
    use's ``attempts_param`` argument when it passes one), time cap, jitter and what it retries."""
    attempts: object = UNKNOWN if entry.attempts is None else (None if entry.attempts == 0 else entry.attempts)
    if entry.attempts_param and call is not None:
        passed = _passed(call, entry.attempts_param, entry.attempts_position)
        if passed is UNKNOWN:
            attempts = UNKNOWN
        elif passed is not None:
            value = ctx.value_of(passed, scope)
            attempts = int(entry.attempts_scale * value + entry.attempts_offset) if is_number(value) else UNKNOWN
    delay: object = entry.max_delay_s
    if delay is not None and delay < 0:
        delay = UNKNOWN
    jitter = {True: Jitter.YES, False: Jitter.NO}.get(entry.jitter, Jitter.UNKNOWN)
    wait = Wait(WaitShape.SCHEDULE, jitter, lambda k: UNKNOWN, reads_retry_after=None)
    types = tuple(canonical(t) for t in entry.retry_on)
    if set(types) & cat.CATCH_ALL:
        retried = Retried(RetriedKind.ANY, types)
    elif types:
        retried = Retried(RetriedKind.TYPES, types)
    else:
        retried = Retried(RetriedKind.UNKNOWN)
    adapter = helper_adapter(entry.name.rsplit(".", 1)[-1], declared=not entry.inferred, sync_wrapper=entry.sync_wrapper)
    return RetryPolicy(adapter, role, anchor, attempts=attempts, max_delay_s=delay, wait=wait, retried=retried)


def _passed(call: cst.Call, name: str, position: int):
    """The argument ``call`` passes as ``name`` (keyword, or positional at ``position``); ``None``
    when it passes none, :data:`UNKNOWN` when a ``*args``/``**kwargs`` may hold it."""
    found = find_argument(call, name, position)
    return found.value if isinstance(found, cst.Arg) else found
