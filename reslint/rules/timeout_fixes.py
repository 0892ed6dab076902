"""Fixes shared by the timeout rules: add a timeout (RES101), replace a disabling value (RES102).

Both are *unsafe* (DESIGN section 2): a call that used to succeed slowly may now
fail with a timeout error. The value inserted is the call's category's ``default-timeout`` seconds,
written in the unit and parameter the catalog gives for the library.
"""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from reslint.analysis.timeouts import TimeoutReading, find_argument
from reslint.catalog.model import NETWORK
from reslint.semantics.cstutil import add_keyword_arg, format_seconds, parse_expression, source, whole_units
from reslint.semantics.edits import spell
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan


def ceiling_name(category: str) -> str:
    """How a message names the ceiling of ``category``: the key that sets it
    (``max-timeout``, ``timeouts.model.max-timeout``)."""
    return "max-timeout" if category == NETWORK else f"timeouts.{category}.max-timeout"


def _default_seconds(ctx, spec) -> float:
    """The timeout a fix inserts on a call of ``spec``: its category's ``default-timeout``, seconds."""
    return ctx.settings.default_timeout_for(spec.category) if ctx.settings is not None else 10.0


def _render(template: str, reading: TimeoutReading, ctx, seconds: float) -> Tuple[Optional[str], Tuple[str, ...]]:
    spec = reading.spec
    values = {
        "param": spec.params[0].name,
        "seconds": str(whole_units(seconds)) if spec.whole_units else format_seconds(seconds),
        # a read that outlasts the client's long polls (``WaitTimeSeconds=20``) by the default timeout
        "read_seconds": format_seconds(seconds + reading.held_s),
        "ms": str(whole_units(seconds, 0.001)),
    }
    imports: Tuple[str, ...] = ()
    for i, dotted in enumerate(spec.fix_imports):
        spelled, needed = spell(ctx, dotted)
        if spelled is None:
            return None, ()
        values[f"obj{i}"] = spelled
        imports += needed
    return template.format(**values), imports


def add_timeout_fix(call: cst.Call, reading: TimeoutReading, ctx,
                    seconds_s: Optional[float] = None) -> Optional[FixPlan]:
    """RES101: pass a timeout where none is given (or complete an inline timeout object):
    ``seconds_s`` seconds per phase (a retry's budget for each attempt), by default the call's
    category's ``default-timeout``."""
    spec = reading.spec
    base_s = _default_seconds(ctx, spec) if seconds_s is None else seconds_s
    seconds = format_seconds(base_s)
    if reading.object_call is not None and reading.missing_keywords:
        new_obj = reading.object_call
        added = []
        for keyword in reading.missing_keywords:
            # a read outlasts the client's long polls (SQS ``WaitTimeSeconds=20``) by the default timeout
            value = seconds if keyword != reading.read_keyword else format_seconds(base_s + reading.held_s)
            new_obj = add_keyword_arg(new_obj, keyword, cst.Float(value) if "." in value else cst.Integer(value))
            added.append(f"{keyword}={value}")
        return FixPlan(f"Add {', '.join(added)}", Applicability.UNSAFE, ((reading.object_call, new_obj),))
    if spec.fix is None or "=" not in spec.fix:
        return None
    text, imports = _render(spec.fix, reading, ctx, base_s)
    if text is None:
        return None
    keyword, _, value_code = text.partition("=")
    value = parse_expression(value_code)
    if value is None:
        return None
    if reading.replace is not None:  # `config=None`, the default: the value goes in its place
        return FixPlan(f"Replace `{source(reading.replace)}` with `{value_code}`", Applicability.UNSAFE,
                       ((reading.replace, value),), imports)
    first = spec.params[0]
    if find_argument(call, first.name, first.position) is not None or \
            any(a.keyword is not None and a.keyword.value == keyword for a in call.args):
        return None  # given (also positionally): a second one would be a TypeError
    return FixPlan(f"Add `{text}`", Applicability.UNSAFE, ((call, add_keyword_arg(call, keyword, value)),), imports)


def add_value_fix(call: cst.Call, keyword: str, code: str) -> Optional[FixPlan]:
    """RES101: pass ``keyword=code`` (the caller's deadline) where no timeout is given."""
    value = parse_expression(code)
    if value is None or any(a.keyword is not None and a.keyword.value == keyword for a in call.args):
        return None
    return FixPlan(f"Add `{keyword}={code}`", Applicability.UNSAFE, ((call, add_keyword_arg(call, keyword, value)),))


def replace_disabled_fix(reading: TimeoutReading, ctx) -> Optional[FixPlan]:
    """RES102: replace the value that disables the timeout with ``default-timeout``."""
    node = reading.replace
    if node is None:
        return None
    spec = reading.spec
    is_name = isinstance(node, cst.Name) and node.value != "None"
    if is_name and not (spec.fix or "").startswith("{param}="):
        return None  # the name stands for an object, not a number: no mechanical fix
    text = _in_unit(_default_seconds(ctx, spec), spec)
    value = parse_expression(text)
    if value is None:
        return None
    return FixPlan(f"Replace `{source(node)}` with `{text}`", Applicability.UNSAFE, ((node, value),))


def _in_unit(seconds: float, spec) -> str:
    """``seconds`` written in the parameter's own unit (whole units when the catalog says so)."""
    if spec.whole_units:
        return str(whole_units(seconds, spec.unit_s))
    if spec.unit_s != 1.0:
        return format_seconds(round(seconds / spec.unit_s, 9))
    return format_seconds(seconds)


