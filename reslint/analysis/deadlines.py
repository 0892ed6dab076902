"""The time budget a function is given: one answer for RES105 and for RES101's fix in a gRPC servicer.

A function is given a budget when

- a parameter's name says it is one (``timeout``, ``timeout_s``, ``deadline``, ``budget``,
  ``remaining``...: shell-style patterns, configurable as RES105's ``budget-parameters``), or
- it is an RPC method of a gRPC servicer (a class whose base is a generated
  ``*_pb2_grpc.<Service>Servicer``): its ``context`` knows the caller's deadline,
  ``context.time_remaining()`` (catalog :data:`reslint.catalog.timeouts.GRPC_TIME_REMAINING`).

:func:`budgets_of` says which budgets a function has and whether its body reads each one at
all. A pre-build survey of public code found every naive "budget parameter plus a constant
timeout" hit used its budget somewhere else in the function (poll slices inside a loop that
enforces it, ``timeout=0`` polls): so a budget that is read anywhere counts as propagated.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import libcst as cst

from reslint.catalog.timeouts import (
    GRPC_CONTEXT_NAMES, GRPC_CONTEXT_POSITION, GRPC_SERVICER_SUFFIX, GRPC_STUB_SPEC, GRPC_STUBS_MODULE_SUFFIX, GRPC_TIME_REMAINING,
)
from reslint.semantics.context import Context, Scope
from reslint.semantics.cstutil import source
from reslint.semantics.prefilter import DEFAULT_BUDGET_PARAMETERS
from reslint.semantics.walk import expressions

#: names that are not durations in seconds: ``min(constant, name)`` would mix units or kinds
_NOT_SECONDS = ("*_ms", "*_msec", "*_millis", "*_milliseconds", "*_us", "*_ns", "*deadline*", "*_at")

DURATION, GRPC = "duration", "grpc"


@dataclass(frozen=True)
class Budget:
    """A time budget a function is given.

    - ``name``: the parameter that holds it (``timeout_s``, or the servicer's ``context``);
    - ``kind``: :data:`DURATION` (a parameter) or :data:`GRPC` (a servicer's context);
    - ``text``: how the remaining budget reads in code (``timeout_s``, ``context.time_remaining()``);
    - ``read``: whether the function's body reads it at all (then it counts as propagated);
    - ``min_fixable``: ``min(constant, text)`` is sound: seconds, and never ``None``.
    """

    name: str
    kind: str
    text: str
    read: bool
    min_fixable: bool


def budgets_of(func: cst.FunctionDef, outer: Optional[Scope], ctx: Context,
               patterns: Sequence[str] = DEFAULT_BUDGET_PARAMETERS) -> Tuple[Budget, ...]:
    """The budgets ``func`` is given (``outer``: the scope it is defined in). Memoised per function."""
    key = ("budgets", id(func))
    if key not in ctx.cache:
        ctx.cache[key] = _budgets(func, outer, ctx, tuple(p.lower() for p in patterns))
    return ctx.cache[key]


def _budgets(func: cst.FunctionDef, outer: Optional[Scope], ctx: Context, patterns) -> Tuple[Budget, ...]:
    params = func.params
    positional = list(params.posonly_params) + list(params.params)
    found = []
    context = servicer_context(func, outer, ctx)
    if context is not None:
        found.append(Budget(context, GRPC, f"{context}.{GRPC_TIME_REMAINING}()", _reads_deadline(func, context),
                            False))
    first = positional[0].name.value if positional and outer is not None and outer.kind == "class" else None
    for param in positional + list(params.kwonly_params):
        name = param.name.value
        if name in (first, context) or not any(fnmatch.fnmatchcase(name.lower(), p) for p in patterns):
            continue
        found.append(Budget(name, DURATION, name, _reads(func, name), _seconds_never_none(param, outer, ctx)))
    return tuple(found)


def servicer_context(func: cst.FunctionDef, outer: Optional[Scope], ctx: Context) -> Optional[str]:
    """The name of the ``context`` parameter when ``func`` is an RPC method of a gRPC servicer
    (``outer``: the class scope it is defined in), else ``None``."""
    if outer is None or outer.kind != "class" or not isinstance(outer.node, cst.ClassDef):
        return None
    positional = list(func.params.posonly_params) + list(func.params.params)
    if len(positional) <= GRPC_CONTEXT_POSITION or func.name.value.startswith("_"):
        return None
    context = positional[GRPC_CONTEXT_POSITION].name.value
    if not func.name.value[0].isupper() and context not in GRPC_CONTEXT_NAMES:
        return None  # RPC methods are named as in the .proto file (UpperCamelCase): this is a helper
    for base in outer.node.bases:
        qual = ctx.qualname(base.value, outer.parent) or ""
        module, _, name = qual.rpartition(".")
        if module.endswith(GRPC_STUBS_MODULE_SUFFIX) and name.endswith(GRPC_SERVICER_SUFFIX):
            return context
    return None


def _references(func: cst.FunctionDef):
    """The names the body refers to (nested functions included): not keywords of calls
    (``timeout=``), attributes (``self.timeout``) or names a nested function defines."""
    nodes = list(expressions(func.body))
    labels = set()
    for node in nodes:
        if isinstance(node, cst.Arg) and node.keyword is not None:
            labels.add(id(node.keyword))
        elif isinstance(node, cst.Attribute):
            labels.add(id(node.attr))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            labels.add(id(node.name))
        elif isinstance(node, cst.Param):
            labels.add(id(node.name))
    return [n for n in nodes if isinstance(n, cst.Name) and id(n) not in labels]


def _reads(func: cst.FunctionDef, name: str) -> bool:
    """Whether the body refers to ``name`` anywhere (nested functions included), or calls
    ``locals()``/``vars()``, which can read it."""
    return any(node.value in (name, "locals", "vars") for node in _references(func))


def _reads_deadline(func: cst.FunctionDef, context: str) -> bool:
    """Whether the body reads the servicer's deadline: ``context.time_remaining()``, or ``context``
    itself handed on (to a helper that may read it). ``context.abort(...)``, ``context.set_code(...)``
    and the other methods do not read it."""
    receivers = set()
    for node in expressions(func.body):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == context:
            if node.attr.value == GRPC_TIME_REMAINING:
                return True
            receivers.add(id(node.value))
    return any(node.value in (context, "locals", "vars") and id(node) not in receivers for node in _references(func))


def _seconds_never_none(param: cst.Param, outer: Optional[Scope], ctx: Context) -> bool:
    """A parameter that holds seconds and cannot be ``None``: no unit or deadline in its name,
    no ``None``/``Optional`` in its annotation, and no default or a numeric one."""
    name = param.name.value.lower()
    if any(fnmatch.fnmatchcase(name, p) for p in _NOT_SECONDS):
        return False
    if param.annotation is not None:
        text = source(param.annotation.annotation)
        if "None" in text or "Optional" in text or "Any" in text:
            return False
    if param.default is None:
        return True
    value = ctx.value_of(param.default, outer)  # a default is evaluated where the function is defined
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def function_scope(ctx: Context) -> Optional[Scope]:
    """The scope of the function whose own code is being visited (through comprehensions,
    not through lambdas or nested functions), or ``None`` at module or class level."""
    scope = ctx.scope
    while scope is not None and scope.kind == "comprehension":
        scope = scope.parent
    return scope if scope is not None and scope.kind == "function" else None


def grpc_deadline_value(call: cst.Call, spec, ctx: Context) -> Optional[str]:
    """``context.time_remaining()`` for a gRPC stub call made directly in a servicer's RPC method:
    the deadline a fix passes on (RES101), else ``None``."""
    if spec is not GRPC_STUB_SPEC:
        return None
    scope = function_scope(ctx)
    if scope is None or not isinstance(scope.node, cst.FunctionDef):
        return None
    context = servicer_context(scope.node, scope.parent, ctx)
    return f"{context}.{GRPC_TIME_REMAINING}()" if context is not None else None
