"""Deduplication records (RES404): which calls read, write or atomically claim one, and by which key.

The stores are catalog data (:data:`reslint.catalog.idempotency.DEDUP_STORES` for key-value
stores, the ``ORM_*`` names for model rows). An :class:`Access` is one read, write or claim with
the key it uses, normalised so that the read and the write of one record compare equal:

- a key-value store's key is the source of its key argument (two for a set and a member);
- a model row's key is the model and the ``field=value`` pairs that select it; a read matches a
  write whose pairs include the read's.

Helpers of the same module are summarised (:func:`helper_access`): ``already_processed(event_id)``
that returns a read, ``mark_processed(event_id)`` that writes, with the key written in terms of
their parameters and rebuilt from the arguments at each call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, Optional, Tuple

import libcst as cst

from reslint.catalog import idempotency as cat
from reslint.semantics.context import Context, Scope
from reslint.semantics.cstutil import source
from reslint.semantics.walk import expressions
from reslint.values import is_number

READ, WRITE, CLAIM = "read", "write", "claim"


@dataclass(frozen=True)
class Access:
    """One read, write or claim of a dedup record.

    ``key``: the key's normalised text (key-value stores) or ``""``; ``model`` and ``pairs``:
    the model and its ``field=value`` pairs (rows); ``locked``: the read locks the row
    (``select_for_update()``); ``store``: the store's name, ``advice``: what to do instead."""

    kind: str
    call: cst.Call
    store: str
    advice: str
    key: str = ""
    model: str = ""
    pairs: FrozenSet[Tuple[str, str]] = frozenset()
    locked: bool = False

    def matches(self, write: "Access") -> bool:
        """Whether ``write`` records what this read checks (the same key expression)."""
        if self.store != write.store:
            return False
        if self.model:
            return self.model == write.model and bool(self.pairs) and self.pairs <= write.pairs
        return bool(self.key) and self.key == write.key

    @property
    def shown(self) -> str:
        """The key as messages show it."""
        if self.model:
            return f"{self.model}({', '.join(f'{k}={v}' for k, v in sorted(self.pairs))})"
        return self.key


def _text(node) -> str:
    return re.sub(r"\s+", "", source(node))


def _key_text(expr, ctx: Context, scope) -> str:
    """A key's text, through a name bound once (``key = f"processed:{event_id}"``)."""
    target, _ = ctx.resolve(expr, scope)
    return _text(target if isinstance(target, (cst.FormattedString, cst.SimpleString, cst.ConcatenatedString,
                                               cst.BinaryOperation)) else expr)


def _kv_store(receiver, ctx: Context, scope: Optional[Scope]) -> Optional[cat.DedupStore]:
    qual = ctx.qualname(receiver, scope)
    kind = ctx.type_of(receiver, scope)
    for store in cat.DEDUP_STORES:
        if qual in store.receivers or kind in store.receivers:
            return store
    return None


def access_of(call: cst.Call, ctx: Context, scope: Optional[Scope]) -> Optional[Access]:
    """The dedup access ``call`` makes, or ``None``."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    found = _kv_access(call, method, ctx, scope)
    if found is not None:
        return found
    return _row_access(call, method, ctx, scope)


def _kv_access(call: cst.Call, method: str, ctx: Context, scope) -> Optional[Access]:
    store = _kv_store(call.func.value, ctx, scope)
    if store is None:
        return None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    count = 2 if method in store.member_keyed else 1
    if len(positional) < count:
        return None
    key = ", ".join(_key_text(p, ctx, scope) for p in positional[:count])
    if method in store.claims or any(method == m and any(a.keyword is not None and a.keyword.value == k and
                                                         _text(a.value) != "False" for a in call.args)
                                     for m, k in store.claim_keywords):
        kind = CLAIM
    elif method in store.writes:
        kind = WRITE
    elif method in store.reads:
        kind = READ
    else:
        return None
    return Access(kind, call, store.name, store.advice, key=key)


def _pairs(call: cst.Call) -> Optional[FrozenSet[Tuple[str, str]]]:
    """``field=value`` pairs of keyword arguments (``None`` with ``**kwargs`` or positional ones)."""
    pairs = set()
    for arg in call.args:
        if arg.star or arg.keyword is None:
            return None
        if arg.keyword.value != "defaults":
            pairs.add((arg.keyword.value, _text(arg.value)))
    return frozenset(pairs)


def _filter_pairs(call: cst.Call) -> Optional[FrozenSet[Tuple[str, str]]]:
    """Pairs of ``filter(k=v)``/``filter_by(k=v)``, and of ``filter(Model.k == v)``."""
    pairs = set()
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            pairs.add((arg.keyword.value, _text(arg.value)))
            continue
        test = arg.value
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
                isinstance(test.comparisons[0].operator, cst.Equal) and isinstance(test.left, cst.Attribute):
            pairs.add((test.left.attr.value, _text(test.comparisons[0].comparator)))
            continue
        return None
    return frozenset(pairs)


def _row_access(call: cst.Call, method: str, ctx: Context, scope) -> Optional[Access]:
    func = call.func
    if method in cat.ORM_READS:
        return _row_read(call, func.value)
    if method in cat.ORM_CREATES | cat.ORM_CLAIMS:
        model = _manager_model(func.value)
        pairs = _pairs(call)
        if model is None or pairs is None:
            return None
        return Access(CLAIM if method in cat.ORM_CLAIMS else WRITE, call, "orm", cat.ORM_ADVICE, model=model,
                      pairs=pairs)
    if method in cat.ORM_ADDS and len(call.args) == 1 and not call.args[0].keyword:
        built = _constructed(call.args[0].value, ctx, scope)
        return _built_write(call, built)
    if method in cat.ORM_SAVES and not call.args:
        return _built_write(call, _constructed(func.value, ctx, scope))
    return None


def _constructed(expr, ctx: Context, scope) -> Optional[cst.Call]:
    target, _ = ctx.resolve(expr, scope)
    return target if isinstance(target, cst.Call) and isinstance(target.func, cst.Name) else None


def _built_write(call: cst.Call, built: Optional[cst.Call]) -> Optional[Access]:
    if built is None:
        return None
    pairs = _pairs(built)
    if not pairs:
        return None
    return Access(WRITE, call, "orm", cat.ORM_ADVICE, model=built.func.value, pairs=pairs)


def _manager_model(expr) -> Optional[str]:
    """``Model`` of ``Model.objects`` (or ``Model.objects.select_for_update()``...)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        expr = expr.func.value
    if isinstance(expr, cst.Attribute) and expr.attr.value == cat.ORM_MANAGER and isinstance(expr.value, cst.Name):
        return expr.value.value
    return None


def _row_read(call: cst.Call, chain) -> Optional[Access]:
    """``Model.objects.filter(k=v).exists()``, ``session.query(Model).filter_by(k=v).first()``."""
    pairs: set = set()
    locked = False
    model = None
    expr = chain
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        name = expr.func.attr.value
        if name in cat.ORM_FILTERS:
            found = _filter_pairs(expr)
            if found is None:
                return None
            pairs |= found
        elif name in cat.ORM_ROW_LOCKS:
            locked = True
        elif name == cat.ORM_QUERY:
            if len(expr.args) == 1 and isinstance(expr.args[0].value, cst.Name):
                model = expr.args[0].value.value
            break
        expr = expr.func.value
    model = model or _manager_model(expr)
    if model is None or not pairs:
        return None
    return Access(READ, call, "orm", cat.ORM_ADVICE, model=model, pairs=frozenset(pairs), locked=locked)


# -- helpers of the module ---------------------------------------------------------------------
@dataclass(frozen=True)
class Helper:
    """A function of the module that reads (``already_processed``) or writes (``mark_processed``) a
    record keyed by its parameters."""

    name: str
    params: Tuple[str, ...]
    access: Access


def summarise_helper(func: cst.FunctionDef, ctx: Context) -> Optional[Helper]:
    """A check helper (its body returns a read) or a mark helper (its body writes and does nothing
    else that matters), else ``None``. Memoised per function."""
    key = ("dedup-helper", id(func))
    if key not in ctx.cache:
        ctx.cache[key] = _summarise(func, ctx)
    return ctx.cache[key]


def _summarise(func: cst.FunctionDef, ctx: Context) -> Optional[Helper]:
    if not isinstance(func.body, cst.IndentedBlock):
        return None
    scope = ctx.opened_scope(func.body)
    params = tuple(p.name.value for p in list(func.params.posonly_params) + list(func.params.params)
                   + list(func.params.kwonly_params))
    statements = [s for s in func.body.body if not _docstring(s)]
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return None
    small = statements[0].body[0]
    expr = small.value if isinstance(small, (cst.Return, cst.Expr)) else None
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "bool" and expr.args:
        expr = expr.args[0].value
    if not isinstance(expr, cst.Call):
        return None
    found = access_of(expr, ctx, scope)
    if found is None or (found.kind == READ) != isinstance(small, cst.Return):
        return None
    return Helper(func.name.value, params, found)


def _docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr) \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def bound_access(helper: Helper, call: cst.Call, skip_self: bool) -> Optional[Access]:
    """The helper's access with its parameters replaced by the arguments of ``call``."""
    params = helper.params[1:] if skip_self else helper.params
    mapping: Dict[str, str] = {}
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            mapping[arg.keyword.value] = _text(arg.value)
        elif positional < len(params):
            mapping[params[positional]] = _text(arg.value)
            positional += 1
    if not mapping:
        return replace(helper.access, call=call)

    def bind(text: str) -> str:
        return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: mapping.get(m.group(0), m.group(0)), text)

    access = helper.access
    return replace(access, call=call, key=bind(access.key),
                   pairs=frozenset((k, bind(v)) for k, v in access.pairs))


#: ``datetime.timedelta``'s arguments in order, in seconds each (https://docs.python.org/3/library/
#: datetime.html#datetime.timedelta: ``timedelta(days=0, seconds=0, microseconds=0, milliseconds=0,
#: minutes=0, hours=0, weeks=0)``)
_TIMEDELTA_S = (("days", 86400.0), ("seconds", 1.0), ("microseconds", 1e-6), ("milliseconds", 1e-3),
                ("minutes", 60.0), ("hours", 3600.0), ("weeks", 604800.0))


def ttl_s(access: Access, ctx: Context, scope: Optional[Scope]) -> Optional[float]:
    """The time to live, in seconds, that a key-value write or claim gives its record when it is a
    known number (``ex=3600``, ``px=60000``, ``setex(key, 86400, 1)``, ``timeout=timedelta(hours=1)``);
    ``None`` when it sets none, or one reslint cannot know."""
    call = access.call
    if access.model or not isinstance(call.func, cst.Attribute):
        return None
    store = _kv_store(call.func.value, ctx, scope)
    method = call.func.attr.value
    for name, keyword, position, unit_s in store.ttl_arguments if store is not None else ():
        if name != method:
            continue
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in call.args):
            return None
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
        if arg is None and len(positional) > position:
            arg = positional[position]
        if arg is None:
            continue
        seconds = _seconds(arg.value, ctx, scope)
        return seconds * unit_s if seconds is not None else None
    return None


def _seconds(expr, ctx: Context, scope) -> Optional[float]:
    """A number, or a ``timedelta`` of numbers, in seconds; ``None`` when not known."""
    if isinstance(expr, cst.Call) and ctx.qualname(expr.func, scope) == "datetime.timedelta":
        total = 0.0
        for index, arg in enumerate(expr.args):
            if arg.star:
                return None
            name = arg.keyword.value if arg.keyword is not None else \
                (_TIMEDELTA_S[index][0] if index < len(_TIMEDELTA_S) else None)
            unit = dict(_TIMEDELTA_S).get(name)
            value = ctx.value_of(arg.value, scope)
            if unit is None or not is_number(value) or isinstance(value, bool):
                return None
            total += float(value) * unit
        return total
    value = ctx.value_of(expr, scope)
    return float(value) if is_number(value) and not isinstance(value, bool) else None


def webhook_sender(ctx: Context) -> Optional[cat.WebhookSender]:
    """The provider whose webhooks this module receives (:data:`~reslint.catalog.idempotency.WEBHOOK_SENDERS`):
    it calls one of the provider's signature checks or spells a header only its deliveries carry.
    ``None`` when none (or more than one: the window is then not known). Memoised per module."""
    key = ("webhook sender", 0)
    if key not in ctx.cache:
        found = set()
        for node in expressions(ctx.model.module_scope.node):
            if isinstance(node, cst.Call):
                qual = ctx.qualname(node.func, ctx.model.module_scope)
                found.update(s for s in cat.WEBHOOK_SENDERS if qual in s.verifiers)
            elif isinstance(node, cst.SimpleString):
                text = node.value.lower().replace("-", "_")
                found.update(s for s in cat.WEBHOOK_SENDERS if any(h in text for h in s.headers))
        ctx.cache[key] = next(iter(found)) if len(found) == 1 else None
    return ctx.cache[key]
