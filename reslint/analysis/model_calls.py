"""Model calls whose own arguments set a retry layer or a timeout default (litellm): the
module-wide settings a project assigns (``litellm.num_retries = 3``, ``litellm.request_timeout = 120``)
and the attempts of a call that retries inside (:class:`reslint.catalog.model.RetryingCall`)."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from reslint.catalog.model import RetryingCall
from reslint.semantics.context import Context
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
    for name in spec.params:
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is not None:
            value = ctx.value_of(arg.value)
            if value is None:
                break  # num_retries=None: the module-wide setting applies
            return int(value) + 1 if is_number(value) else UNKNOWN
    else:
        if any(a.star == "**" for a in call.args):
            return UNKNOWN
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
