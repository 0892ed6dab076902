"""RES404 non-atomic-dedup: a dedup record read, the side effect performed, then the record written.

The shape, in one function: an ``if`` whose test reads a dedup record (directly, through a name
bound to the read, or through a helper of the module such as ``already_processed(event_id)``)
and that returns when it is there (or acts only when it is not); then, on the path where it was
absent, a side effect; then a write of the same key (directly or through ``mark_processed``).
The accesses are :mod:`reslint.analysis.dedup`'s answer.

Precision rules, from a pre-build survey in which a loose detector was wrong on every hit
(cache-aside reads, form validation, ``Path.exists()``):

- the read and the write use the same key expression, in the order read → effect → write;
- a read whose value is used beyond the test is a cache, not a dedup check;
- a guard that claims (``set(..., nx=True)``, ``setnx``, ``cache.add``, ``get_or_create``), a
  row lock (``select_for_update()``) or an enclosing lock (``with ...lock...:``) is atomic;
- the code must look like deduplication: a dedup word (processed, seen, dedup, idempot,
  event_id...) in the function's name, the key, the model or a helper's name.

Second shape: a dedup record that expires before the sender stops redelivering. In a module that
receives a provider's webhooks (:func:`reslint.analysis.dedup.webhook_sender`: Stripe redelivers for
up to three days), a write or claim of a dedup record, in a function that looks like deduplication,
whose time to live is a known number shorter than that window: a late redelivery finds no record
and runs the effect again. Reported at the write or claim. The sender may also be the project's
own retry around the write, with code after it that can fail: each attempt checks the record anew,
so a TTL shorter than the longest wait between two attempts
(:func:`reslint.analysis.budget.longest_wait`) lets the next attempt run the effect again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from reslint.analysis.dedup import CLAIM, READ, WRITE, Access, bound_access, access_of, summarise_helper, ttl_s, \
    webhook_sender
from reslint.analysis.budget import longest_wait
from reslint.analysis.idempotency import analysis
from reslint.catalog.idempotency import (
    DEDUP_STORES, DEDUP_WORDS, DELIVERY_DECORATORS, DELIVERY_FUNCTION_WORDS, INERT_CALLS,
)
from reslint.rules.base import Rule
from reslint.semantics.context import Scope
from reslint.semantics.cstutil import source
from reslint.semantics.walk import children, expressions
from reslint.values import is_number

WHY = "two deliveries of the same message both pass the check before either writes the record, and a crash " \
      "between the effect and the write loses the record, so the effect runs again on the redelivery"


@dataclass
class _Guard:
    access: Access
    node: cst.CSTNode  # where the finding goes: the read call, or the helper call
    via: str  # the helper's name, or ""


def _exits(block) -> bool:
    """Whether a block ends in ``return``, ``raise``, ``continue`` or ``break``."""
    body = getattr(block, "body", ())
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
    return False


def _statements(block) -> List[cst.CSTNode]:
    body = getattr(block, "body", ())
    return list(body) if isinstance(block, cst.IndentedBlock) else [cst.SimpleStatementLine(body=list(body))]


def _calls_in_order(nodes: Sequence[cst.CSTNode]) -> List[cst.Call]:
    """The calls under ``nodes`` in source order (nested functions and lambdas left out)."""
    out: List[cst.Call] = []

    def visit(node):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        kids = children(node)
        if isinstance(node, cst.Call):
            for kid in kids:  # arguments run before the call
                visit(kid)
            out.append(node)
            return
        for kid in kids:
            visit(kid)

    for node in nodes:
        visit(node)
    return out


class NonAtomicDedup(Rule):
    code = "RES404"
    needs_retries = True  # the second shape asks which retry runs the record's write again

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        #: the second shape's candidates: (the write or claim, its function, its TTL in seconds, where)
        self._ttl_writes: list = []

    def visit_Call(self, node: cst.Call) -> None:
        """The second shape: a dedup record whose TTL ends before the sender's redeliveries do
        (judged at the module's end, when the module's webhook sender is known)."""
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in _TTL_METHODS:
            return
        scope = self.ctx.scope
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        func = scope.node if scope is not None and scope.kind == "function" else None
        if not isinstance(func, cst.FunctionDef):
            return
        access = access_of(node, self.ctx, scope)
        if access is None or access.kind not in (WRITE, CLAIM) or access.model:
            return
        ttl = ttl_s(access, self.ctx, scope)
        if ttl is not None and ttl > 0 and self._dedup_context(func, _Guard(access, node, ""), ""):
            self._ttl_writes.append((access, func, ttl, (self.ctx.statement, self.ctx.unit), self._retry_window(node)))

    def _retry_window(self, node: cst.Call):
        """(the policy, the longest wait between two of its attempts in seconds, ``None``: no bound) of
        the innermost retry around the record's write, when a call after the write in the retried code
        can fail and send the operation round again; else ``None``. Each attempt checks the record
        anew, so what matters is how long the record must survive from one attempt to the next: the
        longest single wait, not the retry's whole length."""
        scopes = [s for s in self.ctx.retry_scopes if not s.poll]
        if not scopes:
            return None
        retried = scopes[-1]
        calls = _calls_in_order([retried.node])
        handling = {id(n) for h in expressions(retried.node) if isinstance(h, cst.ExceptHandler)
                    for n in expressions(h.body)}  # what runs after a failure, not on the way to success
        index = next((i for i, call in enumerate(calls) if call is node), None)
        if index is None or not any(not _inert(call) and not _is_argument_builder(call) and id(call) not in handling
                                    for call in calls[index + 1:]):
            return None  # the write is the last thing an attempt does: no attempt after it
        wait = longest_wait(retried.policy)
        return (retried.policy, wait) if wait is None or is_number(wait) else None

    def leave_Module(self, node: cst.Module) -> None:
        sender = webhook_sender(self.ctx) if self._ttl_writes else None
        for access, func, ttl, where, retry in self._ttl_writes:
            if sender is not None and ttl < sender.redelivery_s:
                self.report(access.call, f"`{func.name.value}` records the dedup key `{access.shown}` for "
                                         f"{_duration(ttl)}, but {sender.name} redelivers a webhook for up to "
                                         f"{_duration(sender.redelivery_s)}: a redelivery that comes after the record "
                                         f"expired finds no record and runs the effect again; keep the record at "
                                         f"least {_duration(sender.redelivery_s)} ({int(sender.redelivery_s)} s), or "
                                         f"record processed events durably (a row with a unique constraint)",
                            where=where)
            elif retry is not None and (retry[1] is None or ttl < retry[1]):
                policy, wait = retry
                waits = "with no bound on its waits" if wait is None else \
                    f"and waits up to {_duration(wait)} before an attempt"
                self.report(access.call, f"`{func.name.value}` records the dedup key `{access.shown}` for "
                                         f"{_duration(ttl)} inside {policy.adapter.write_label}, and code after the "
                                         f"record can fail: the retry runs the operation again {waits}, which checks "
                                         f"the record anew; once it has expired, the attempt runs the effect again "
                                         f"(and while it lasts, the attempt skips the steps that failed); claim the "
                                         f"key once outside the retry and release it if the operation fails, or "
                                         f"write the record only after the whole operation has succeeded",
                            where=where)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        # a function's body, visited with its own scope current (names resolve as in the function)
        scope = self.ctx.scope
        func = scope.node if scope is not None and scope.kind == "function" else None
        if not isinstance(func, cst.FunctionDef) or func.body is not node or self._locked(func):
            return
        self._block(func, list(node.body), scope)

    def _locked(self, func: cst.FunctionDef) -> bool:
        """A lock held around the function's code (``with redis.lock(...)``, ``with self._lock:``)."""
        for item in (i for n in _walk_statements(func.body) if isinstance(n, cst.With) for i in n.items):
            if "lock" in source(item.item).lower():
                return True
        return False

    def _block(self, func: cst.FunctionDef, statements: List[cst.CSTNode], scope: Scope,
               after: Tuple[Tuple[List[cst.CSTNode], int], ...] = ()) -> None:
        """``after``: what runs once ``statements`` are done, as (statement list, first index) pairs:
        the code after the ``if``/``with``/``try`` they are nested in (``if event_id: if seen(event_id):
        return`` goes on after the outer ``if``); not after a loop, whose body goes round first."""
        for index, stmt in enumerate(statements):
            rest = ((statements, index + 1),) + after
            if isinstance(stmt, cst.If):
                self._if(func, stmt, rest, scope)
            if isinstance(stmt, (cst.Try, cst.TryStar)):
                self._try(func, stmt, rest, scope)
                continue
            onward = () if isinstance(stmt, (cst.For, cst.While)) else rest
            for inner in _inner_blocks(stmt):
                self._block(func, inner, scope, onward)

    def _try(self, func: cst.FunctionDef, stmt, rest, scope: Scope) -> None:
        """A ``try``'s blocks, each followed by what runs after it: the body by its ``else:``, then its
        ``finally:``, then the code after the ``try``; a handler and the ``else:`` by the ``finally:``."""
        final = ((_block_statements(stmt.finalbody.body), 0),) if stmt.finalbody is not None else ()
        orelse = ((_block_statements(stmt.orelse.body), 0),) if stmt.orelse is not None else ()
        self._block(func, _block_statements(stmt.body), scope, orelse + final + rest)
        for handler in stmt.handlers:
            self._block(func, _block_statements(handler.body), scope, final + rest)
        for block, _ in orelse:
            self._block(func, block, scope, final + rest)
        for block, _ in final:
            self._block(func, block, scope, rest)

    def _if(self, func: cst.FunctionDef, stmt: cst.If, rest, scope: Scope) -> None:
        test, negated = stmt.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        guard = self._guard(test, func, scope)
        if guard is None or guard.access.kind != READ or guard.access.locked:
            return
        if negated:  # `if not seen: act; record`
            path = _statements(stmt.body)
        elif _exits(stmt.body):  # `if seen: return`, then act and record
            path = [s for block, start in rest for s in block[start:]]
        else:
            return
        self._judge(func, guard, path, scope)

    def _guard(self, test, func: cst.FunctionDef, scope: Scope) -> Optional[_Guard]:
        """The read the ``if`` test makes: a call in it, a name bound once to one (whose value is
        used nowhere else: else it is a cache), or a check helper of the module."""
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            test = test.left
        if isinstance(test, cst.Await):
            test = test.expression
        if isinstance(test, cst.Name):
            target, _ = self.ctx.resolve(test, scope)
            if target is test or not isinstance(target, (cst.Call, cst.Await)) or \
                    _uses(func, test.value) > 2:  # bound once, read once: the test
                return None
            test = target.expression if isinstance(target, cst.Await) else target
        if not isinstance(test, cst.Call):
            return None
        found = access_of(test, self.ctx, scope)
        if found is not None:
            return _Guard(found, test, "")
        helper = self._helper(test, scope)
        if helper is not None and helper[0].kind == READ:
            return _Guard(helper[0], test, helper[1])
        return None

    def _helper(self, call: cst.Call, scope: Scope):
        """(the access of a helper of this module that ``call`` calls, bound to its arguments, its name)."""
        func = call.func
        definition, skip_self = None, False
        if isinstance(func, cst.Name):
            found = self.ctx.lookup(func.value, scope)
            if found and len(found) == 1 and found[0].kind == "def":
                definition = found[0].node
                skip_self = found[0].scope.kind == "class"
        elif isinstance(func, cst.Attribute):
            qual = self.ctx.qualname(func, scope) or ""
            owner, _, method = qual.rpartition(".")
            local = self.ctx.model.classes.get(owner)
            found = local[1].bindings.get(method) if local is not None else None
            if found and len(found) == 1 and found[0].kind == "def":
                definition, skip_self = found[0].node, True
        if definition is None:
            return None
        helper = summarise_helper(definition, self.ctx)
        if helper is None:
            return None
        access = bound_access(helper, call, skip_self)
        return (access, helper.name) if access is not None else None

    def _judge(self, func: cst.FunctionDef, guard: _Guard, path: List[cst.CSTNode], scope: Scope) -> None:
        """Walk the path where the record was absent, in order: the first write (or claim) of the same
        key decides; an effect before a write is the fault."""
        effect: Optional[cst.Call] = None
        for small in _small_statements(path):
            for call in _calls_in_order([small]):
                found, via = self._access(call, scope)
                if found is not None and found.kind in (WRITE, CLAIM) and guard.access.matches(found):
                    if effect is not None and found.kind == WRITE and self._dedup_context(func, guard, via):
                        self._report(func, guard, effect, found, via)
                    return
            effect = effect or self._effect(small, scope)

    def _access(self, call: cst.Call, scope: Scope):
        found = access_of(call, self.ctx, scope)
        if found is not None:
            return found, ""
        helper = self._helper(call, scope)
        return helper if helper is not None else (None, "")

    def _effect(self, small, scope: Scope) -> Optional[cst.Call]:
        """The call a statement makes for its effect: a call whose value is dropped or awaited, or a
        write reslint knows (an HTTP POST, a charge, a mail), assigned or not. Reads, logging and
        value builders are not effects."""
        value = getattr(small, "value", None)
        awaited = isinstance(value, cst.Await)
        if awaited:
            value = value.expression
        if not isinstance(value, cst.Call) or _inert(value) or _is_argument_builder(value):
            return None
        if self._access(value, scope)[0] is not None:
            return None
        if isinstance(small, cst.Expr) or awaited:
            return value
        return value if analysis(self.ctx).write_kind(value) is not None else None

    def _dedup_context(self, func: cst.FunctionDef, guard: _Guard, write_via: str) -> bool:
        """A dedup word in the function's name, the key (a row's model and fields), or a helper's name; or
        a function that handles deliveries (named as a webhook view or a consumer, or decorated as a task)."""
        access = guard.access
        key = " ".join((access.model, *(k for k, _ in access.pairs))) if access.model else access.key
        text = " ".join((func.name.value, key, guard.via, write_via)).lower()
        if any(word in text for word in DEDUP_WORDS) or \
                any(word in func.name.value.lower() for word in DELIVERY_FUNCTION_WORDS):
            return True
        return any(source(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator).rsplit(".", 1)[-1]
                   in DELIVERY_DECORATORS for d in func.decorators)

    def _report(self, func: cst.FunctionDef, guard: _Guard, effect: cst.Call, write: Access, via: str) -> None:
        read = f"`{guard.via}()`" if guard.via else f"`{_method(guard.access.call)}()`"
        wrote = f"`{via}()`" if via else f"`{_method(write.call)}()`"
        self.report(guard.node, f"`{func.name.value}` deduplicates by check-then-act: it checks "
                                f"`{guard.access.shown}` ({read}), calls `{source(effect.func)}()`, then records "
                                f"the key ({wrote}): {WHY}; {guard.access.advice}")


#: the methods that can set a record's time to live (every store's ``ttl_arguments``)
_TTL_METHODS = frozenset(m for store in DEDUP_STORES for m, _, _, _ in store.ttl_arguments)


def _duration(seconds: float) -> str:
    """``3 days``, ``4 hours``, ``10 minutes``, ``45 s``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} s"


def _method(call: cst.Call) -> str:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else source(func)


def _uses(func: cst.FunctionDef, name: str) -> int:
    return sum(1 for n in expressions(func.body) if isinstance(n, cst.Name) and n.value == name)


def _inert(call: cst.Call) -> bool:
    text = source(call.func)
    return any(text == p or (p.endswith(".") and text.startswith(p)) for p in INERT_CALLS)


def _is_argument_builder(call: cst.Call) -> bool:
    """Builtins that only build values (``str(x)``, ``len(x)``, ``dict(...)``): no side effect."""
    return isinstance(call.func, cst.Name) and call.func.value in _BUILDERS


_BUILDERS = frozenset({"str", "int", "float", "bool", "len", "dict", "list", "tuple", "set", "frozenset", "repr",
                       "format", "isinstance", "getattr", "hasattr", "min", "max", "sorted", "bytes", "range"})


def _inner_blocks(stmt) -> List[List[cst.CSTNode]]:
    """The statement lists nested in a compound statement (not in nested functions or classes)."""
    out: List[List[cst.CSTNode]] = []
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return out
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, (cst.Else, cst.Finally)):
            block = block.body
        if isinstance(block, cst.If):
            out.append([block])
        elif isinstance(block, cst.IndentedBlock):
            out.append(list(block.body))
    for handler in getattr(stmt, "handlers", ()):
        if isinstance(handler.body, cst.IndentedBlock):
            out.append(list(handler.body.body))
    for case in getattr(stmt, "cases", ()):
        if isinstance(case.body, cst.IndentedBlock):
            out.append(list(case.body.body))
    return out


def _block_statements(block) -> List[cst.CSTNode]:
    """The statements of an indented block (a one-line suite's are not compound: none to follow)."""
    return list(block.body) if isinstance(block, cst.IndentedBlock) else []


def _small_statements(statements: Sequence[cst.CSTNode]) -> List[cst.BaseSmallStatement]:
    """The small statements (``x = f()``, ``f()``, ``return``) of ``statements`` and the blocks nested
    in them, in source order."""
    out: List[cst.BaseSmallStatement] = []
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.extend(stmt.body)
            continue
        for inner in _inner_blocks(stmt):
            out.extend(_small_statements(inner))
    return out


def _walk_statements(block) -> List[cst.CSTNode]:
    out: List[cst.CSTNode] = []
    stack = list(getattr(block, "body", ()))
    while stack:
        node = stack.pop()
        out.append(node)
        for inner in _inner_blocks(node):
            stack.extend(inner)
    return out
