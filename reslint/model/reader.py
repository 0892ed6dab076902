"""Reading a retry policy's arguments: the toolkit every adapter's reader uses.

:class:`Args` maps a call's arguments to parameter names (positional ones by the order the
library declares). :class:`PolicyReader` turns arguments into the model's values through the
semantic model (:class:`reslint.semantics.context.Context`): numbers (seconds after a unit scale),
counts (exact ints), exception types and local predicate functions.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from reslint.semantics.context import Context
from reslint.model.policy import Retried, RetriedKind
from reslint.values import UNKNOWN, Number, is_number, whole
from reslint.semantics.walk import expressions

#: attribute names that hold an HTTP status in a predicate (``exc.response.status_code``)
STATUS_ATTRIBUTES = ("status_code", "status", "code")


class Args:
    """A call's arguments by name, with positional names mapped; ``star`` if ``*``/``**`` used.

    ``asked`` records every name asked of them (given or not): a test drives each adapter's
    reader and checks that set against the keywords the adapter declares (``RetryAdapter.keywords``)."""

    def __init__(self, call: Optional[cst.Call], positional: Sequence[str] = ()):
        self.call = call
        self.by_name: Dict[str, cst.Arg] = {}
        self.extra_positional: List[cst.Arg] = []
        self.star = False
        self.asked: Set[str] = set()
        for made in _RECORDING:
            made.append(self)
        if call is None:
            return
        index = 0
        for arg in call.args:
            if arg.star:
                self.star = True
                continue
            if arg.keyword is not None:
                self.by_name[arg.keyword.value] = arg
            elif index < len(positional):
                self.by_name[positional[index]] = arg
                index += 1
            else:
                self.extra_positional.append(arg)
                index += 1

    def __contains__(self, name: str) -> bool:
        return self.arg(name) is not None

    def expr(self, name: str) -> Optional[cst.BaseExpression]:
        arg = self.arg(name)
        return arg.value if arg is not None else None

    def arg(self, name: str) -> Optional[cst.Arg]:
        """The argument passed as ``name`` (every other accessor asks through this one)."""
        self.asked.add(name)
        return self.by_name.get(name)


#: the lists :func:`recording` collects into (empty outside it)
_RECORDING: List[List[Args]] = []


@contextmanager
def recording() -> Iterator[List[Args]]:
    """Every :class:`Args` built inside the block, in order (with what was asked of each)."""
    made: List[Args] = []
    _RECORDING.append(made)
    try:
        yield made
    finally:
        _RECORDING.remove(made)


class PolicyReader:
    """Reads argument values for one file's adapters (``ctx``: its semantic model)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def value(self, expr, scope=None):
        """The constant an expression stands for, UNKNOWN when there is none (or no expression)."""
        return UNKNOWN if expr is None else self.ctx.value_of(expr, scope)

    def qualname(self, expr, scope=None) -> Optional[str]:
        return self.ctx.qualname(expr, scope)

    def given(self, args: Args, name: str, default, scope=None):
        """The constant passed as ``name``, ``default`` when the argument is absent."""
        return self.value(args.expr(name), scope) if name in args else default

    def number(self, args: Args, name: str, default: Number, scale: float = 1.0, scope=None) -> Number:
        """A numeric parameter as a float times ``scale`` (seconds from milliseconds: 0.001),
        ``None`` when passed ``None``, its default when absent, UNKNOWN if unreadable."""
        return self._read(args, name, default, scope, lambda value: float(value) * scale)

    def count(self, args: Args, name: str, default: Number, scope=None) -> Number:
        """A count parameter, exact (not through a float: ``int(float(10 ** 100))`` has the digits
        10000000000000000159...), its default when absent, UNKNOWN if unreadable."""
        return self._read(args, name, default, scope, whole)

    def _read(self, args: Args, name: str, default, scope, convert):
        if name not in args:
            return UNKNOWN if args.star else default
        value = self.value(args.expr(name), scope)
        if value is None:
            return None
        return convert(value) if is_number(value) else UNKNOWN

    def exception_types(self, expr, scope=None) -> Optional[Tuple[str, ...]]:
        """Qualified names of the exception classes an expression names (a class, a tuple,
        or a constant bound to one), or ``None`` when unknown."""
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, (cst.Tuple, cst.List)):
            out: List[str] = []
            for element in expr.elements:
                inner = self.exception_types(element.value, scope)
                if inner is None:
                    return None
                out.extend(inner)
            return tuple(out)
        if isinstance(expr, cst.Name) and expr.value in ("Exception", "BaseException") and \
                self.ctx.lookup(expr.value, scope) is None:
            return (expr.value,)
        qual = self.qualname(expr, scope)
        if qual is None:
            if isinstance(expr, cst.Name) and self.ctx.lookup(expr.value, scope) is None:
                return (expr.value,)  # a builtin exception
            return None
        return (qual,)

    def predicate_function(self, expr, scope, node) -> Retried:
        """Read a local predicate ``def f(exc): return isinstance(exc, T) and exc.status in S``."""
        found = self.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
        if not found or len(found) != 1 or found[0].kind != "def":
            return Retried(RetriedKind.UNKNOWN, node=node)
        func: cst.FunctionDef = found[0].node
        fscope = self.ctx.opened_scope(func.body)
        types: List[str] = []
        statuses: set = set()
        checks = False
        for sub in expressions(func.body):
            if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Name) and sub.func.value == "isinstance" \
                    and len(sub.args) == 2:
                found_types = self.exception_types(sub.args[1].value, fscope)
                if found_types:
                    types.extend(found_types)
            elif isinstance(sub, cst.Comparison) and _mentions_status(sub):
                checks = True
                statuses.update(self._compared_statuses(sub, fscope))
        return Retried(RetriedKind.FUNCTION, tuple(types), frozenset(statuses), checks, node=node)

    def _compared_statuses(self, comparison: cst.Comparison, scope) -> set:
        out: set = set()
        for target in comparison.comparisons:
            value = self.ctx.value_of(target.comparator, scope)
            if is_number(value):
                out.add(int(value))
            elif isinstance(value, tuple) and all(is_number(v) for v in value):
                out.update(int(v) for v in value)
            else:
                out.update(self.status_set(target.comparator, scope))
        return out

    def status_set(self, expr, scope) -> set:
        """The HTTP statuses (ints) of a set, tuple or list literal, or a name bound to one."""
        expr, scope = self.ctx.resolve(expr, scope)
        if isinstance(expr, (cst.Set, cst.Tuple, cst.List)):
            values = [self.ctx.value_of(e.value, scope) for e in expr.elements if isinstance(e, cst.Element)]
            return {int(v) for v in values if is_number(v)}
        return set()


def _mentions_status(node: cst.Comparison) -> bool:
    return any(isinstance(sub, cst.Attribute) and sub.attr.value in STATUS_ATTRIBUTES for sub in expressions(node))
