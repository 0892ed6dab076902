"""Reading which HTTP methods or exceptions a retry configuration replays (shared by the adapters
that answer RES403): literal collections of method names, and the fix that drops the unsafe ones.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from reslint.catalog import idempotency as cat
from reslint.semantics.context import Context
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, commented_change, remove_arg, without_elements

#: builtins that turn an iterable into the collection of retried methods or exceptions
CONSTRUCTORS = ("frozenset", "set", "tuple", "list")


def collection(ctx: Context, expr) -> Tuple[Optional[cst.BaseExpression], object]:
    """(the literal collection behind ``expr``, its scope), following a name bound once and
    ``frozenset(...)``/``set``/``tuple``/``list`` (no argument: empty); ``None`` when unknown."""
    expr, scope = ctx.resolve(expr)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in CONSTRUCTORS:
        if not expr.args:
            return cst.Tuple([]), scope
        expr, scope = ctx.resolve(expr.args[0].value, scope)
    return (expr if isinstance(expr, (cst.Set, cst.List, cst.Tuple)) else None), scope


def empty(ctx: Context, expr) -> bool:
    """``frozenset()``, ``set()``, ``[]``: an empty collection (of methods: every method)."""
    literal, _ = collection(ctx, expr)
    return literal is not None and not literal.elements


def methods(ctx: Context, expr) -> List[str]:
    """The method names (strings) a collection expression lists; ``a | b`` is both."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return methods(ctx, expr.left) + methods(ctx, expr.right)  # DEFAULT_ALLOWED_METHODS | {"POST"}
    literal, scope = collection(ctx, expr)
    if literal is None:
        return []
    values = [ctx.value_of(e.value, scope) for e in literal.elements if isinstance(e, cst.Element)]
    return [v for v in values if isinstance(v, str)]


def drop_keyword(call: cst.Call, name: str, ctx: Context) -> FixPlan:
    """Remove ``name=`` so the library's default (idempotent methods only) applies (not safe when
    the argument carries a comment: :func:`commented_change`)."""
    arg = next(a for a in call.args if a.keyword is not None and a.keyword.value == name)
    return commented_change(FixPlan(f"Remove `{name}=` (retry idempotent methods only)", Applicability.SAFE,
                                    ((call, remove_arg(call, name, ctx.statement)),)), call, arg, ctx.statement)


def without_unsafe(ctx: Context, expr, unsafe, call: cst.Call) -> Optional[FixPlan]:
    """Remove the unsafe methods from a literal collection (safe: fewer replays), ``expr`` an
    argument of ``call`` (not safe when the argument carries a comment: :func:`commented_change`)."""
    target = expr
    if isinstance(target, cst.Call) and target.args:
        target = target.args[0].value
    if not isinstance(target, (cst.Set, cst.List, cst.Tuple)):
        return None

    def unsafe_method(e) -> bool:
        value = ctx.value_of(e.value) if isinstance(e, cst.Element) else None
        return isinstance(value, str) and value.upper() in cat.NON_IDEMPOTENT_METHODS

    new = without_elements(target, unsafe_method)  # each kept method keeps its own comment
    if new is None:
        return None
    return commented_change(FixPlan(f"Remove {', '.join(unsafe)} from the retried methods", Applicability.SAFE,
                                    ((target, new),)), call, target, ctx.statement)
