"""Which argument a call passes for a parameter: one answer for every analysis.

A parameter is named by its keyword and, when it can be passed positionally, its position
among the positional arguments (``self`` excluded for a method). ``*args`` and ``**kwargs``
may hold it: then the answer is :data:`~reslint.semantics.context.UNKNOWN`, and each caller
decides what unknown means for it (a timeout that may be given, a command that cannot be read).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.context import UNKNOWN


def find_argument(call: cst.Call, name: Optional[str], position: Optional[int]):
    """The ``cst.Arg`` ``call`` passes for the parameter ``name`` at ``position``.

    Returns the argument, :data:`UNKNOWN` when a ``*args`` before that position or a
    ``**kwargs`` may hold it, or ``None`` when it is certainly not passed. ``name`` ``None``:
    the parameter has no keyword (positional-only, or the name is not known); ``position``
    ``None``: it is keyword-only.
    """
    positional = 0
    for arg in call.args:
        if arg.star == "**":
            continue
        if arg.keyword is not None:
            if name is not None and arg.keyword.value == name:
                return arg
            continue
        if arg.star == "*":
            if position is not None and positional <= position:
                return UNKNOWN
            continue
        if position is not None and positional == position:
            return arg
        positional += 1
    if name is not None and any(arg.star == "**" for arg in call.args):
        return UNKNOWN
    return None


def argument_value(call: cst.Call, name: Optional[str], position: Optional[int]) -> Optional[cst.BaseExpression]:
    """The expression ``call`` passes for the parameter, or ``None`` when it passes none or it
    cannot be told (``*args``/``**kwargs`` may hold it)."""
    found = find_argument(call, name, position)
    return found.value if isinstance(found, cst.Arg) else None
