"""Small LibCST helpers shared by rules and fixes (formatting-preserving edits)."""

from __future__ import annotations

import math

from typing import Optional

import libcst as cst


def add_keyword_arg(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """Return ``call`` with ``keyword=value`` appended, keeping its layout.

    A one-line call gets ``, keyword=value``; a call laid out one argument per
    line (with or without a trailing comma) gets a new line in the same style.
    """
    new = cst.Arg(
        value=value,
        keyword=cst.Name(keyword),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    if len(args) == 1 and isinstance(args[0].value, cst.GeneratorExp) and not args[0].value.lpar:
        # `f(x for x in y)` may go bare only as the sole argument: `f((x for x in y), k=v)`
        generator = args[0].value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        args[0] = args[0].with_changes(value=generator)
    last = args[-1]
    previous = args[-2].comma if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else None
    arg_ws = previous.whitespace_after if previous is not None else _first_arg_whitespace(call)
    trailing = isinstance(last.comma, cst.Comma)
    closing = last.comma.whitespace_after if trailing else last.whitespace_after_arg
    if isinstance(closing, cst.ParenthesizedWhitespace) and isinstance(arg_ws, cst.ParenthesizedWhitespace):
        # one argument per line: the new one goes on its own line; a comment after
        # the old last argument stays on that argument's line
        separator = cst.Comma(whitespace_after=arg_ws.with_changes(first_line=closing.first_line, empty_lines=()))
        closing = closing.with_changes(first_line=cst.TrailingWhitespace())
        if trailing:
            new = new.with_changes(comma=last.comma.with_changes(whitespace_after=closing))
            args[-1] = last.with_changes(comma=separator)
        else:
            new = new.with_changes(whitespace_after_arg=closing)
            args[-1] = last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace(""))
    elif trailing:
        new = new.with_changes(comma=last.comma)
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    else:
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                                     whitespace_after_arg=cst.SimpleWhitespace(""))
    return call.with_changes(args=[*args, new])


def _first_arg_whitespace(call: cst.Call):
    ws = call.whitespace_before_args
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws
    return cst.SimpleWhitespace(" ")


def source(node: cst.CSTNode) -> str:
    """The code of a node as written (its own whitespace and comments included)."""
    return _EMPTY.code_for_node(node)


_EMPTY = cst.Module(body=[])


def parse_expression(code: str) -> Optional[cst.BaseExpression]:
    """Parse ``code`` as an expression, or ``None`` when it is not valid Python."""
    try:
        return cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return None


def whole_units(seconds: float, unit_s: float = 1.0) -> int:
    """``seconds`` as a whole number of ``unit_s`` units, rounded up and at least 1.

    Rounding down could write 0, which many libraries read as "no timeout"
    (pymongo's ``socketTimeoutMS=0``, libpq's ``connect_timeout=0``). The value is
    first rounded to 9 places so ``2.0 / 0.001`` (2000.0000000000002) stays 2000.
    """
    return max(1, math.ceil(round(seconds / unit_s, 9)))


def format_seconds(seconds: float) -> str:
    """``10.0`` → ``"10"``, ``2.5`` → ``"2.5"`` (for code a fix inserts)."""
    return str(int(seconds)) if float(seconds).is_integer() else repr(float(seconds))

