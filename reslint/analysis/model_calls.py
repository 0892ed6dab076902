"""Model calls whose own arguments set a retry layer or a timeout default (litellm): the
module-wide settings a project assigns (``litellm.num_retries = 3``, ``litellm.request_timeout = 120``)
and the attempts of a call that retries inside (:class:`reslint.catalog.model.RetryingCall`)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint.catalog.clients import RETRYING_CALLS
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
            if name in unpacked and unpacked[name] is None:
                return UNKNOWN  # ``config["num_retries"] = n`` somewhere: may be passed
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
    return RETRYING_CALLS.get(qualname or "")


#: methods that change a dict in place
_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def unpacked_keywords(call: cst.Call, ctx: Context) -> Optional[Dict[str, Optional[cst.BaseExpression]]]:
    """The keywords a call passes through ``**config`` when each ``**`` is a visible dict: a dict
    literal, or a name bound once to one (or to ``dict(key=value, ...)``) that changes afterwards
    only by item assignments with constant keys (``config["api_key"] = key``: that key may then be
    passed, with a value not known, ``None`` in the result). Any other change (``update``, ``pop``,
    ``|=``, a computed key, being passed to a call, which might change it) makes the keys unknown.
    ``{key: value expression or None}``; ``None`` when a ``**`` is not such a dict, ``{}`` when
    the call has no ``**``."""
    out: Dict[str, Optional[cst.BaseExpression]] = {}
    for arg in call.args:
        if arg.star != "**":
            continue
        expr, scope, assigned = arg.value, ctx.scope, ()
        if isinstance(expr, cst.Name):
            binding = ctx.single(expr.value, scope)
            if binding is None or binding.value is None or binding.scope is None:
                return None
            assigned = _item_assignments(expr.value, binding.scope.node, ctx, binding.scope)
            if assigned is None:
                return None
            expr, scope = binding.value, binding.scope
        keywords = _dict_keywords(expr, ctx, scope)
        if keywords is None:
            return None
        out.update(keywords)
        out.update({key: None for key in assigned})
    return out


def _dict_keywords(expr, ctx: Context, scope) -> Optional[Dict[str, Optional[cst.BaseExpression]]]:
    if isinstance(expr, cst.Dict):
        out: Dict[str, Optional[cst.BaseExpression]] = {}
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


def _item_assignments(name: str, body: cst.CSTNode, ctx: Context, scope) -> Optional[Tuple[str, ...]]:
    """The constant keys assigned to the dict bound to ``name`` in ``body`` (``name["k"] = v``),
    or ``None`` when it may change in another way (or a key is computed)."""
    keys = []
    targets = set()
    for node in expressions(body):
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            for target in (t.target for t in node.targets) if isinstance(node, cst.Assign) else (node.target,):
                if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and \
                        target.value.value == name:
                    targets.add(id(target))
                    key = _constant_key(target, ctx, scope)
                    if key is None:
                        return None
                    keys.append(key)
    for node in expressions(body):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name and \
                id(node) not in targets and _constant_key(node, ctx, scope) is None:
            return None  # ``config[key]`` with a computed key: a write we cannot see, or ``del``
        if isinstance(node, cst.Del) and _mentions(node, name):
            return None
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == name and \
                node.attr.value in _MUTATORS:
            return None
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value == name:
            return None
        if isinstance(node, cst.Call):
            for arg in node.args:
                if not arg.star and isinstance(arg.value, cst.Name) and arg.value.value == name:
                    return None
    return tuple(keys)


def _constant_key(subscript: cst.Subscript, ctx: Context, scope) -> Optional[str]:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    key = ctx.value_of(subscript.slice[0].slice.value, scope)
    return key if isinstance(key, str) else None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in expressions(node))


def items_set_no_timeout(call: cst.Call, items: Tuple[str, Optional[int], str], names: Tuple[str, ...],
                         ctx: Context) -> bool:
    """Whether the list argument ``items`` = ``(param, position, key)`` of ``call`` (a litellm
    Router's ``model_list``) is visible and none of its items sets a timeout under ``key``
    (``{"litellm_params": {"timeout": 60}}``): only then does the call's own default apply.
    A list that is absent counts as setting none; one that is not a visible literal may."""
    param, position, key = items
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == param), None)
    if arg is None and position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        arg = positional[position] if len(positional) > position else None
    if arg is None:
        return not any(a.star for a in call.args)
    target, scope = ctx.resolve(arg.value)
    if not isinstance(target, (cst.List, cst.Tuple)):
        return False
    for element in target.elements:
        item, item_scope = ctx.resolve(element.value, scope)
        settings = _dict_keywords(item, ctx, item_scope) if not isinstance(element, cst.StarredElement) else None
        if settings is None or settings.get(key) is None:
            return False
        params, params_scope = ctx.resolve(settings[key], item_scope)
        given = _dict_keywords(params, ctx, params_scope)
        if given is None or any(name in given for name in names) or any("timeout" in name for name in given):
            return False  # a deployment's own timeout (or stream_timeout) bounds the requests sent to it
    return True
