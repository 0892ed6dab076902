"""RES105 deadline-not-propagated: a function given a time budget calls downstream with a fixed timeout.

The budget (a ``timeout``/``deadline``/``budget`` parameter, a gRPC servicer's ``context``) is
:mod:`reslint.analysis.deadlines`' answer. Precision rules, from a pre-build survey in which a
naive detector was wrong on every hit:

- a budget the function reads anywhere counts as propagated (judged per function, not per call);
- only calls the catalog knows as blocking network or database calls, with a constant timeout
  (not subprocesses, client constructors that carry a timeout for later calls, setters);
- ``timeout=0`` is a non-blocking poll, and a constant of at most :data:`POLL_SLICE_S` inside a
  loop is a poll slice of a loop that enforces the budget itself.

A budget ignored by a function that reaches such a call through a helper of the same module
(``handle(req, timeout_s)`` calling ``fetch(url)``) is reported at the call to the helper. What the
file alone cannot follow (a helper of another module) is left to the project pass
(:mod:`reslint.rules.res105_cross_module`): the module's summary records the functions with a
constant-timeout call, those given a budget, and the calls out of functions that ignore theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint.analysis.facts import DEADLINE_WHY as WHY
from reslint.analysis.summary import function_name
from reslint.analysis.deadlines import DEFAULT_BUDGET_PARAMETERS, GRPC, Budget, budgets_of, function_scope
from reslint.analysis.timeouts import EXCESSIVE, OK, called_name, find_argument, read_call_timeout
from reslint.catalog.model import CEILING_CATEGORIES
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan, Rule
from reslint.semantics.cstutil import source
from reslint.values import is_number

#: a constant timeout at most this long inside a loop is a poll slice (seconds)
POLL_SLICE_S = 1.0
#: how many helper calls deep a budget is followed
MAX_DEPTH = 3
#: at most this many calls into other modules are kept per function that ignores its budget
MAX_OUTSIDE_CALLS = 50



@dataclass
class _Fixed:
    """A blocking call with a constant timeout."""

    call: cst.Call
    name: str  # the call as messages show it
    param: str
    value: cst.BaseExpression
    seconds: object  # a number or a tuple of numbers
    where: Tuple[object, object]


@dataclass
class _Helper:
    """A call to a function of this module (``callee``), or to a function of another one (``callee``
    ``None``, ``qualname`` its name)."""

    call: cst.Call
    callee: Optional[cst.FunctionDef]
    where: Tuple[object, object]
    qualname: Optional[str] = None


class DeadlineNotPropagated(Rule):
    code = "RES105"
    fix_applicability = Applicability.UNSAFE

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        self._loops: List[int] = []  # id(scope) of each enclosing loop
        #: per function (id of its def): its constant-timeout calls and its calls to local functions
        self._fixed: Dict[int, List[_Fixed]] = {}
        self._helpers: Dict[int, List[_Helper]] = {}
        self._functions: Dict[int, Tuple[cst.FunctionDef, Tuple[Budget, ...], str]] = {}
        #: per function: its calls into other modules (for the project pass)
        self._outside: Dict[int, List[_Helper]] = {}
        options = (self.settings.rule_options if self.settings is not None else {}).get(self.code, {})
        self._patterns = options.get("budget-parameters", DEFAULT_BUDGET_PARAMETERS)

    # -- loops: a short constant inside one is a poll slice ---------------------------------
    def visit_For(self, node: cst.For) -> None:
        self._loops.append(id(self.ctx.scope))

    def leave_For(self, node: cst.For) -> None:
        self._loops.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(id(self.ctx.scope))

    def leave_While(self, node: cst.While) -> None:
        self._loops.pop()

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        scope = function_scope(self.ctx)
        if scope is None or not isinstance(scope.node, cst.FunctionDef):
            return
        func = scope.node
        if id(func) not in self._functions:
            self._functions[id(func)] = (func, budgets_of(func, scope.parent, self.ctx, self._patterns),
                                         function_name(self.ctx))
        where = (self.ctx.statement, self.ctx.unit)
        fixed = self._constant_timeout(node, id(scope) in self._loops, where)
        if fixed is not None:
            self._fixed.setdefault(id(func), []).append(fixed)
            ignored = _ignored(self._functions[id(func)][1])
            if ignored:
                self._report_direct(func, ignored, fixed)
            return
        callee = self._local_function(node)
        if callee is not None and callee is not func:
            self._helpers.setdefault(id(func), []).append(_Helper(node, callee, where, self.ctx.qualname(node.func)))
        elif callee is None and _ignored(self._functions[id(func)][1]):
            qual = self.ctx.qualname(node.func)
            if qual is not None and "." in qual and len(self._outside.get(id(func), ())) < MAX_OUTSIDE_CALLS:
                self._outside.setdefault(id(func), []).append(_Helper(node, None, where, qual))

    def _constant_timeout(self, node: cst.Call, in_loop: bool, where) -> Optional[_Fixed]:
        reading = read_call_timeout(node, self.ctx)
        if reading is None or reading.param is None or reading.state not in (OK, EXCESSIVE):
            return None
        spec = reading.spec
        if spec.category not in CEILING_CATEGORIES or spec.carrier or not spec.blocks:
            return None  # a subprocess, a client that carries the timeout for later calls, a setter
        arg = find_argument(node, reading.param.name, reading.param.position)
        if arg is None or not isinstance(arg, cst.Arg):
            return None
        value = self.ctx.value_of(arg.value)
        numbers = value if isinstance(value, tuple) else (value,)
        if not numbers or not all(is_number(v) and not isinstance(v, bool) for v in numbers):
            return None
        longest = max(float(v) for v in numbers) * spec.unit_s
        if longest <= 0 or (in_loop and longest <= POLL_SLICE_S):
            return None  # a non-blocking poll, or a poll slice of a loop that enforces the budget
        name = called_name(node, spec)
        return _Fixed(node, name, reading.param.name, arg.value, value if spec.unit_s == 1.0 else None, where)

    def _local_function(self, node: cst.Call) -> Optional[cst.FunctionDef]:
        """The ``def`` of this module that ``node`` calls (``helper()``, ``self.helper()``), if any."""
        func = node.func
        if isinstance(func, cst.Name):
            found = self.ctx.lookup(func.value)
            if found and len(found) == 1 and found[0].kind == "def":
                return found[0].node
            return None
        qual = self.ctx.qualname(func) if isinstance(func, cst.Attribute) else None
        if not qual:
            return None
        owner, _, method = qual.rpartition(".")
        local = self.ctx.model.classes.get(owner)
        if local is None:
            return None
        found = local[1].bindings.get(method)
        return found[0].node if found and len(found) == 1 and found[0].kind == "def" else None

    # -- reports ---------------------------------------------------------------------------
    def _report_direct(self, func: cst.FunctionDef, ignored: Tuple[Budget, ...], fixed: _Fixed) -> None:
        budget = ignored[0]
        shown = f"`{fixed.param}={source(fixed.value)}`"
        self.report(fixed.call, f"`{func.name.value}` is given {_describe(ignored)} but calls `{fixed.name}` with a "
                                f"fixed {shown}: {WHY}; {_advice(budget, fixed)}",
                    fix=self._min_fix(ignored, fixed), where=fixed.where)

    def _min_fix(self, ignored: Tuple[Budget, ...], fixed: _Fixed) -> Optional[FixPlan]:
        """``timeout=10`` → ``timeout=min(10, timeout_s)``: only for one budget in seconds that is never
        ``None``, and a timeout that is one number of seconds."""
        if len(ignored) != 1 or not ignored[0].min_fixable or not is_number(fixed.seconds):
            return None
        text = f"min({source(fixed.value)}, {ignored[0].text})"
        return FixPlan(f"Bound the timeout by the budget: `{text}`", Applicability.UNSAFE,
                       ((fixed.value, cst.parse_expression(text)),))

    def leave_Module(self, node: cst.Module) -> None:
        left: List[Tuple[str, str, _Helper]] = []  # (function, budget, call) for the project pass
        for func, budgets, qualname in self._functions.values():
            ignored = _ignored(budgets)
            if not ignored:
                continue
            for helper in self._outside.get(id(func), ()):
                left.append((qualname, _describe(ignored), helper))
            for helper in self._helpers.get(id(func), ()):
                chain = self._reach(helper.callee, 1, {id(func)})
                if chain is None:
                    if helper.qualname is not None:
                        left.append((qualname, _describe(ignored), helper))
                    continue
                names, fixed = chain
                path = " → ".join(f"`{n}`" for n in names)
                self.report(helper.call, f"`{func.name.value}` is given {_describe(ignored)} but calls {path}, which "
                                         f"calls `{fixed.name}` with a fixed `{fixed.param}={source(fixed.value)}`: "
                                         f"{WHY}; pass the budget down and bound that call by it",
                            where=helper.where)
        self._record(left)

    def _record(self, left: List[Tuple[str, str, "_Helper"]]) -> None:
        """What the project pass needs from this module (:attr:`Context.deadline_facts`)."""
        fixed, budgeted = [], []
        for func, budgets, qualname in self._functions.values():
            if not qualname:
                continue
            if budgets:
                budgeted.append(qualname)
            elif self._fixed.get(id(func)):
                first = self._fixed[id(func)][0]
                fixed.append((dict(function=qualname, call=first.name,
                                   argument=f"{first.param}={source(first.value)}"), first.call, first.where[1]))
        calls = [(dict(function=function, callee=helper.qualname, budget=budget), helper.call, helper.where[1])
                 for function, budget, helper in left]
        self.ctx.deadline_facts = (fixed, tuple(sorted(budgeted)), calls)

    def _reach(self, callee: cst.FunctionDef, depth: int, seen) -> Optional[Tuple[List[str], _Fixed]]:
        """(the helpers on the way, the constant-timeout call) that ``callee`` reaches, or ``None``.
        A helper given a budget of its own is judged on its own."""
        if depth > MAX_DEPTH or id(callee) in seen:
            return None
        entry = self._functions.get(id(callee))
        if entry is not None and entry[1]:
            return None
        fixed = self._fixed.get(id(callee))
        if fixed:
            return [callee.name.value], fixed[0]
        for helper in self._helpers.get(id(callee), ()):
            found = self._reach(helper.callee, depth + 1, seen | {id(callee)})
            if found is not None:
                return [callee.name.value] + found[0], found[1]
        return None


def _ignored(budgets: Tuple[Budget, ...]) -> Tuple[Budget, ...]:
    return tuple(b for b in budgets if not b.read)


def _describe(budgets: Tuple[Budget, ...]) -> str:
    """``a time budget (`timeout_s`)``, ``the gRPC caller's deadline (`context.time_remaining()`)``."""
    parts = [f"the gRPC caller's deadline (`{b.text}`)" if b.kind == GRPC else f"a time budget (`{b.name}`)"
             for b in budgets]
    return " and ".join(parts)


def _advice(budget: Budget, fixed: _Fixed) -> str:
    constant = source(fixed.value)
    if budget.kind == GRPC:
        return (f"pass what is left of the caller's deadline, `{fixed.param}={budget.text}` (None when the client "
                f"set no deadline), capped by your own limit")
    if budget.min_fixable and is_number(fixed.seconds):
        return f"pass what is left of it: `{fixed.param}=min({constant}, {budget.text})`"
    return f"pass what is left of `{budget.name}` (in the unit the call takes) instead of `{constant}`"
