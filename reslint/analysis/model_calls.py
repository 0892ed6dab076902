"""Model calls whose own arguments set a retry layer or a timeout default (litellm): the
module-wide settings a project assigns (``litellm.num_retries = 3``, ``litellm.request_timeout = 120``)
and the attempts of a call that retries inside (:class:`reslint.catalog.model.RetryingCall`)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint.catalog.model import RetryingCall
from reslint.semantics.context import Context
from reslint.semantics.walk import expressions
from reslint.values import UNKNOWN, Number, is_number


def module_settings(ctx: Context, qualname: str) -> List[Tuple[cst.BaseExpression, object]]:
    """The values assigned in this file to the module attribute ``qualname`` (``litellm.num_retries``),
    with the scope of each assignment, in source order (any function counts: the setting is
    process-wide once it runs)."""
    key = ("module-settings",)
    if key not in ctx.cache:
        table = {}
        for target, value, scope in ctx.model.attribute_assignments:
            name = ctx.qualname(target, scope)
            if name is not None:
                table.setdefault(name, []).append((value, scope))
        ctx.cache[key] = table
    return ctx.cache[key].get(qualname, [])


def setting_value(ctx: Context, qualname: str):
    """The one value the file gives the setting ``qualname``: a number, ``UNKNOWN`` (assigned
    something not known, or several values), or ``None`` when the file does not assign it."""
    found = module_settings(ctx, qualname)
    if not found:
        return None
    values = {ctx.value_of(value, scope) for value, scope in found}
    if len(values) != 1:
        return UNKNOWN
    value = values.pop()
    return value if is_number(value) or value is None else UNKNOWN


def call_attempts(call: cst.Call, spec: RetryingCall, ctx: Context) -> Number:
    """Attempts one call of a function that retries inside makes: its own retries argument
    (the first of ``spec.params`` passed), else the file's module-wide setting, else the default."""
    unpacked = unpacked_keywords(call, ctx)
    for name in spec.params:
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is None and unpacked:
            arg = unpacked.get(name)
        if arg is not None:
            value = ctx.value_of(arg)
            if value is None:
                break  # num_retries=None: the module-wide setting applies
            return int(value) + 1 if is_number(value) else UNKNOWN
    else:
        if unpacked is None:
            return UNKNOWN  # **kwargs whose keys are not known
    if spec.module_default is not None:
        setting = setting_value(ctx, spec.module_default)
        if setting is UNKNOWN:
            return UNKNOWN
        if is_number(setting):
            return int(setting) + 1
    return spec.default_attempts


def retrying_call(qualname: Optional[str]) -> Optional[RetryingCall]:
    """The catalog entry of a function whose calls retry inside, or ``None``."""
    from reslint.catalog.clients import RETRYING_CALLS

    return RETRYING_CALLS.get(qualname or "")


#: methods that change a dict in place
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def unpacked_keywords(call: cst.Call, ctx: Context) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords a call passes through ``**config`` when each ``**`` is a visible dict: a dict
    literal, or a name bound once to one (or to ``dict(key=value, ...)``) that nothing changes
    afterwards (no item assignment, ``update``/``pop``/``setdefault``, ``|=``, ``del``, nor
    being passed to a call, which might). ``{key: value expression}``; ``None`` when a ``**`` is
    not such a dict (its keys are then unknown), ``{}`` when the call has no ``**``."""
    out: Dict[str, cst.BaseExpression] = {}
    for arg in call.args:
        if arg.star != "**":
            continue
        expr, scope = arg.value, ctx.scope
        if isinstance(expr, cst.Name):
            binding = ctx.single(expr.value, scope)
            if binding is None or binding.value is None or binding.scope is None:
                return None
            if _changed(expr.value, binding.scope.node, binding.value):
                return None
            expr, scope = binding.value, binding.scope
        keywords = _dict_keywords(expr, ctx, scope)
        if keywords is None:
            return None
        out.update(keywords)
    return out


def _dict_keywords(expr, ctx: Context, scope) -> Optional[Dict[str, cst.BaseExpression]]:
    if isinstance(expr, cst.Dict):
        out = {}
        for element in expr.elements:
            if not isinstance(element, cst.DictElement):
                return None  # ``{**other}``
            key = ctx.value_of(element.key, scope)
            if not isinstance(key, str):
                return None
            out[key] = element.value
        return out
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict" and \
            ctx.lookup("dict", scope) is None and all(a.keyword is not None and not a.star for a in expr.args):
        return {a.keyword.value: a.value for a in expr.args}
    return None


def _changed(name: str, body: cst.CSTNode, value: cst.CSTNode) -> bool:
    """Whether the dict bound to ``name`` may change in ``body`` after it is built."""
    for node in expressions(body):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            return True  # conservative: a read ``config["k"]`` is rare next to ``**config``
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name and \
                node.attr.value in _MUTATORS:
            return True
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value == name:
            return True
        if isinstance(node, cst.Call):
            for arg in node.args:
                if not arg.star and isinstance(arg.value, cst.Name) and arg.value.value == name:
                    return True
    return False
