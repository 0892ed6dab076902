"""Circuit breakers inside retried code (RES501, and RES204, which leaves such a retry to it).

One question: "does this retry's scope run through a circuit breaker, and which?" answered
from the breaker adapters (:data:`reslint.libraries.BREAKERS`):

- a breaker decorator *below* a retry decorator on the same function (``@retry`` then
  ``@breaker``): each attempt goes through the breaker; one above it guards the whole retry,
  which is fine;
- in the retried body: ``breaker.call(fn)``, ``with breaker.calling():``, ``with
  factory.get_breaker("name"):``, or a call to a function of this module that a breaker
  decorates.

A breaker that calls a fallback instead of raising (``@circuit(fallback_function=f)``) raises
no open-circuit error, so it is not one here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint import libraries
from reslint.catalog.retries import CATCH_ALL
from reslint.libraries.breaker_base import BreakerAdapter
from reslint.model.policy import LoopFacts, RetriedKind, RetryPolicy
from reslint.semantics.context import Context, Scope
from reslint.semantics.cstutil import source
from reslint.semantics.walk import children, expressions

_BY_TYPE: Dict[str, BreakerAdapter] = {t: b for b in libraries.BREAKERS for t in b.breaker_types + b.decorator_classes}
_BY_FUNCTION: Dict[str, BreakerAdapter] = {f: b for b in libraries.BREAKERS for f in b.decorator_functions}
_BY_FACTORY: Dict[str, BreakerAdapter] = {f: b for b in libraries.BREAKERS for f in b.decorator_factories}


@dataclass(frozen=True)
class Guard:
    """A breaker the retried code runs through: its adapter and the code that says so."""

    breaker: BreakerAdapter
    node: cst.CSTNode
    text: str  # for messages: ``@payments_breaker``, ``breaker.call(...)``


def _has_keyword(call: cst.Call, name: Optional[str]) -> bool:
    return name is not None and any(a.keyword is not None and a.keyword.value == name for a in call.args)


def _class_breaker(qual: Optional[str], ctx: Context, depth: int = 0) -> Optional[BreakerAdapter]:
    """The breaker adapter of a breaker type, or of a class of this module derived from one
    (``class PaymentsBreaker(CircuitBreaker)``), unless the subclass sets a fallback."""
    if qual is None or depth > 3:
        return None
    found = _BY_TYPE.get(qual)
    if found is not None:
        return found
    local = ctx.model.classes.get(qual)
    if local is None:
        return None
    node, cscope = local
    for base in node.bases:
        adapter = _class_breaker(ctx.qualname(base.value, cscope.parent), ctx, depth + 1)
        if adapter is not None:
            if adapter.fallback_attribute and adapter.fallback_attribute in cscope.bindings:
                return None  # every open call goes to the fallback
            return adapter
    return None


def decorator_breaker(expr: cst.BaseExpression, ctx: Context, scope: Optional[Scope]) -> Optional[BreakerAdapter]:
    """The breaker a decorator expression applies (``@breaker``, ``@circuit``, ``@circuit(...)``,
    ``@PaymentsBreaker()``, ``@factory("payments")``), or ``None``."""
    if isinstance(expr, cst.Call):
        qual = ctx.qualname(expr.func, scope)
        adapter = _BY_FUNCTION.get(qual or "") or (_class_breaker(qual, ctx) if qual in _BY_TYPE or
                                                   qual in ctx.model.classes else None)
        if adapter is None:
            adapter = _BY_FACTORY.get(ctx.type_of(expr.func, scope) or "")
        if adapter is not None and _has_keyword(expr, adapter.fallback_keyword):
            return None
        return adapter
    qual = ctx.qualname(expr, scope)
    if qual in _BY_FUNCTION:
        return _BY_FUNCTION[qual]
    return _instance_breaker(expr, ctx, scope)


def _instance_breaker(expr, ctx: Context, scope: Optional[Scope]) -> Optional[BreakerAdapter]:
    """The adapter of the breaker object ``expr`` names (``breaker``, ``self.breaker``), or ``None``."""
    adapter = _class_breaker(ctx.type_of(expr, scope), ctx)
    if adapter is None:
        return None
    constructor = ctx.constructor_of(expr, scope)
    if constructor is not None and _has_keyword(constructor, adapter.fallback_keyword):
        return None
    return adapter


def _own_nodes(node) -> List[cst.CSTNode]:
    """Nodes under ``node``, not descending into nested functions, classes or lambdas."""
    out: List[cst.CSTNode] = []
    stack = list(reversed(children(node)))
    while stack:
        current = stack.pop()
        out.append(current)
        if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(reversed(children(current)))
    return out


def guard_of(policy: RetryPolicy, ctx: Context) -> Optional[Guard]:
    """The breaker each attempt of ``policy`` runs through, or ``None``. Memoised per policy."""
    key = ("breaker-guard", id(policy))
    if key not in ctx.cache:
        ctx.cache[key] = _guard_of(policy, ctx)
    return ctx.cache[key]


def _guard_of(policy: RetryPolicy, ctx: Context) -> Optional[Guard]:
    if ctx.retried is None:
        return None
    retried = ctx.retried.scope_of(policy)
    if retried is None:
        return None
    function = retried.function
    outer = ctx.scope
    if function is not None and function.body is retried.node:
        found = _decorator_below(policy, function, ctx, outer)
        if found is not None:
            return found
    inner = ctx.opened_scope(retried.node, outer)
    return _body_guard(retried.node, ctx, inner)


def _decorator_below(policy: RetryPolicy, function: cst.FunctionDef, ctx: Context, outer) -> Optional[Guard]:
    """A breaker decorator below the policy's own decorator on ``function``."""
    below = False
    for decorator in function.decorators:
        if below:
            adapter = decorator_breaker(decorator.decorator, ctx, outer)
            if adapter is not None:
                return Guard(adapter, decorator, f"@{source(decorator.decorator)}")
        elif ctx.retries.for_decorator(decorator.decorator, outer) is policy:
            below = True
    return None


def _body_guard(body, ctx: Context, scope) -> Optional[Guard]:
    for node in _own_nodes(body):
        if isinstance(node, cst.Call):
            found = _call_guard(node, ctx, scope)
        elif isinstance(node, cst.WithItem):
            found = _with_guard(node, ctx, scope)
        else:
            continue
        if found is not None:
            return found
    return None


def _call_guard(call: cst.Call, ctx: Context, scope) -> Optional[Guard]:
    """``breaker.call(fn)``, or a call to a function of this module a breaker decorates."""
    func = call.func
    if isinstance(func, cst.Attribute):
        adapter = _instance_breaker(func.value, ctx, scope)
        if adapter is not None and func.attr.value in adapter.call_methods:
            return Guard(adapter, call, f"{source(func)}(...)")
        return None
    if isinstance(func, cst.Name):
        found = ctx.lookup(func.value, scope)
        if found and len(found) == 1 and found[0].kind == "def":
            definition: cst.FunctionDef = found[0].node
            for decorator in definition.decorators:
                adapter = decorator_breaker(decorator.decorator, ctx, found[0].scope)
                if adapter is not None:
                    return Guard(adapter, call, f"`{func.value}()`, which `@{source(decorator.decorator)}` guards")
    return None


def _with_guard(item: cst.WithItem, ctx: Context, scope) -> Optional[Guard]:
    """``with breaker.calling():``, ``async with await factory.get_breaker("name"):``."""
    expr = item.item.expression if isinstance(item.item, cst.Await) else item.item
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
        return None
    owner = expr.func.value
    adapter = _instance_breaker(owner, ctx, scope) or _BY_FACTORY.get(ctx.type_of(owner, scope) or "")
    if adapter is not None and expr.func.attr.value in adapter.context_methods:
        return Guard(adapter, item, f"with {source(item.item)}")
    return None


def catches_everything(policy: RetryPolicy) -> bool:
    """Whether the policy retries every exception (so also any breaker's open-circuit error)."""
    retried = policy.retried
    return retried.kind is RetriedKind.ANY or (
        retried.kind in (RetriedKind.TYPES, RetriedKind.FUNCTION) and bool(set(retried.types) & CATCH_ALL))


def open_circuit_retry(policy: RetryPolicy, ctx) -> Optional[Tuple[str, Optional[Guard]]]:
    """(the open-circuit error the policy retries, the breaker its attempts run through) when it
    retries one, else ``None``. RES204 asks this too: such a retry is RES501's, not also RES204's."""
    if not policy.retries:
        return None
    retried = policy.retried
    if retried.filtered:
        return None  # a predicate gives up on some errors: maybe this one
    named = [t for t in retried.types if t in libraries.OPEN_ERRORS and t not in retried.excluded]
    if named and retried.kind is not RetriedKind.RESULT:
        return named[0], None
    if not catches_everything(policy):
        return None
    guard = guard_of(policy, ctx)
    if guard is None or set(guard.breaker.open_errors) & set(retried.excluded):
        return None
    if policy.loop is not None and _loop_lets_it_out(policy, guard, ctx):
        return None
    return guard.breaker.open_error, guard


def _loop_lets_it_out(policy: RetryPolicy, guard: Guard, ctx) -> bool:
    """Whether the loop's catch-all handlers let the open-circuit error out: an earlier
    ``except`` of the same ``try`` catches it (and leaves: it is not among the loop's retrying
    handlers), or the handler tests what it caught and re-raises."""
    loop: LoopFacts = policy.loop
    catch_all = [h for h in loop.handlers if h.type is None or
                 set(ctx.retries.exception_types(h.type) or ()) & CATCH_ALL]
    if not catch_all or any(_filters(h) for h in catch_all):
        return True
    errors = set(guard.breaker.open_errors)
    for node in expressions(policy.node):
        if not isinstance(node, (cst.Try, cst.TryStar)):
            continue
        for handler in node.handlers:
            if any(handler is h for h in catch_all):
                break
            if handler.type is not None and errors & set(ctx.retries.exception_types(handler.type) or ()):
                return True
    return False


def _filters(handler: cst.ExceptHandler) -> bool:
    """``except Exception as exc: if ...exc...: raise``: the handler re-raises what it does not retry."""
    if handler.name is None or not isinstance(handler.name.name, cst.Name):
        return False
    name = handler.name.name.value
    for node in expressions(handler.body):
        if isinstance(node, cst.If) and any(isinstance(n, cst.Name) and n.value == name
                                            for n in expressions(node.test)):
            if any(isinstance(n, cst.Raise) for n in expressions(node)):
                return True
    return False
