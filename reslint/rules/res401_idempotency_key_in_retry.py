"""RES401 idempotency-key-in-retry: a key minted inside the retried code is new on every attempt.

Per file: keys minted in the retried code or in a helper of the same module. Keys minted in
a helper of another module are found by the project pass (:meth:`reslint.engine.runner.Runner`
``_helper_keys``) from the module summaries' ``key_calls`` and ``key_returns``.

Fixes (unsafe): in a retry loop, the assignment that mints the key moves above the loop (or
the key expression is bound above the loop) when it uses nothing the loop binds; in a
retried function, an ``idempotency_key=None`` keyword parameter is added and used when given.
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Set, Tuple

import libcst as cst

from reslint.analysis.idempotency import Minted, analysis
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan, Report, Rule
from reslint.semantics.cstutil import source
from reslint.semantics.walk import expressions, statement_blocks

#: the name of the parameter (decorated functions) or local (loops) a fix adds
KEY_NAME = "idempotency_key"


class IdempotencyKeyInRetry(Rule):
    code = "RES401"
    needs_retries = True
    fix_applicability = Applicability.UNSAFE

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        self._seen = set()

    def visit_Call(self, node: cst.Call) -> None:
        scopes = [s for s in self.ctx.retry_scopes if not s.poll]  # a poll's pass is a new request by design
        if not scopes:
            return
        idempotency = analysis(self.ctx)
        kind = idempotency.write_kind(node)
        if kind is None:
            return
        scope = scopes[-1]
        for use in idempotency.keys(node, scope):
            if use.outside:
                continue  # computed once, before the retried code
            for minted in idempotency.trace(use.expr, scope, use.scope, via=use.helper, stmt=use.added_by):
                if minted.kind != "fresh" or id(minted.call) in self._seen:
                    continue
                self._seen.add(id(minted.call))
                # a helper that returns the key, or the local function the retried code calls (``send()``)
                via = minted.via or (scope.function.name.value if scope.reached else "")
                where = f"in `{via}()`, which the retried code calls" if via else "inside the retried code"
                message = (f"idempotency key minted by `{minted.name}()` {where}: every attempt of the {kind} "
                           f"sends a new key, so a replay after a timeout (when the first attempt did succeed) is "
                           f"not recognised and the write happens twice; mint the key once before the first "
                           f"attempt and pass it in, or derive it from stable business data")
                fix, statement = (None, None) if via else self._fix(minted, scope)
                if fix is None:
                    self.report(minted.call, message)
                else:  # the edit is computed on the definition that holds the loop or the parameters
                    self._reports.append(Report(self, minted.call, message, fix, statement, self.ctx.unit))

    # -- fixes ------------------------------------------------------------------------------
    def _fix(self, minted: Minted, scope) -> Tuple[Optional[FixPlan], Optional[cst.CSTNode]]:
        if scope.function is not None:
            return self._parameter_fix(minted, scope.function), scope.function
        function = self._function_node()
        if function is None:
            return None, None
        return self._hoist_fix(minted, scope.node, function), function

    def _function_node(self) -> Optional[cst.FunctionDef]:
        scope = self.ctx.scope
        while scope is not None and scope.kind in ("lambda", "comprehension", "class"):
            scope = scope.parent
        node = scope.node if scope is not None else None
        return node if isinstance(node, cst.FunctionDef) else None

    def _taken(self, function: cst.FunctionDef) -> bool:
        """Whether the name a fix adds is already used in (or read by) the function."""
        fscope = self.ctx.opened_scope(function.body)
        if fscope is not None and KEY_NAME in fscope.bindings:
            return True
        return any(isinstance(n, cst.Name) and n.value == KEY_NAME for n in _walk(function))

    def _parameter_fix(self, minted: Minted, function: cst.FunctionDef) -> Optional[FixPlan]:
        """A retried function: add ``idempotency_key=None`` and use it when given."""
        if self._taken(function) or any(isinstance(p.name, cst.Name) and p.name.value == KEY_NAME
                                         for p in _all_params(function.params)):
            return None
        expr = minted.expr
        if not any(n is expr for n in _walk(function.body)):
            return None
        right = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
            if isinstance(expr, (cst.IfExp, cst.Lambda, cst.NamedExpr)) and not expr.lpar else expr
        guarded = cst.BooleanOperation(left=cst.Name(KEY_NAME), operator=cst.Or(), right=right)
        name = function.name.value
        shown = source(expr)
        return FixPlan(
            f"Add a keyword parameter `{KEY_NAME}=None` to `{name}()`, used when given; then mint the key once "
            f"in each caller, before the first attempt, and pass it: `{name}(..., {KEY_NAME}={shown})`",
            Applicability.UNSAFE,
            ((function.params, _with_param(function.params)), (expr, guarded)))

    def _hoist_fix(self, minted: Minted, body: cst.CSTNode, function: cst.FunctionDef) -> Optional[FixPlan]:
        """A retry loop: move the minting above the loop when it uses nothing the loop binds."""
        found = _find_loop(function.body, body)
        if found is None:
            return None
        block, index, loop = found
        bound = _bound_names(loop)
        header = loop.iter if isinstance(loop, cst.For) else loop.test
        stmt = minted.stmt
        target = _assigned_name(stmt, minted.expr)
        if target is not None and _path_is_plain(loop.body, stmt):
            others = _bound_names(loop, skip=stmt)
            bindings = self.ctx.lookup(target, self.ctx.opened_scope(function.body))
            if (_used_names(minted.expr) & bound) or target in others or not bindings or len(bindings) != 1 \
                    or target in _used_names(header) or _only_statement(loop, stmt):
                return None
            new_loop = loop.deep_remove(stmt)
            hoisted = stmt.with_changes(leading_lines=())
            message = f"Move `{target} = ...` above the loop, so every attempt sends the same key"
        else:
            expr = minted.expr
            if self._taken(function) or (_used_names(expr) & bound) or isinstance(expr, cst.StarredElement):
                return None
            new_loop = loop.deep_replace(expr, cst.Name(KEY_NAME))
            if new_loop is loop:
                return None
            hoisted = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(KEY_NAME))],
                                                          expr.with_changes(lpar=[], rpar=[]))])
            message = f"Mint the key once above the loop (`{KEY_NAME} = ...`), so every attempt sends the same key"
        statements = list(block.body)
        statements[index:index + 1] = [hoisted, new_loop]
        return FixPlan(message, Applicability.UNSAFE, ((block, block.with_changes(body=statements)),))


def _walk(node) -> Iterator[cst.CSTNode]:
    return expressions(node)


def _all_params(params: cst.Parameters) -> List[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


def _with_param(params: cst.Parameters) -> cst.Parameters:
    """``params`` plus ``idempotency_key=None``: keyword-only after ``*args``/``*``, else last positional."""
    new = cst.Param(cst.Name(KEY_NAME), default=cst.Name("None"),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    field = "kwonly_params" if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None \
        else "params"
    existing = list(getattr(params, field))
    if existing and isinstance(existing[-1].comma, cst.Comma) and _multiline(existing[-1].comma):
        # one parameter per line with a trailing comma: the new one goes on its own line too
        last = existing[-1]
        between = existing[-2].comma if len(existing) > 1 and isinstance(existing[-2].comma, cst.Comma) else None
        if between is not None:
            existing[-1] = last.with_changes(comma=between)
            new = new.with_changes(comma=last.comma)
    elif existing and params.star_kwarg is None and field == "params" and not params.kwonly_params and \
            isinstance(existing[-1].comma, cst.Comma):
        new = new.with_changes(comma=existing[-1].comma)
        existing[-1] = existing[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    existing.append(new)
    return params.with_changes(**{field: existing})


def _multiline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def _find_loop(block, body) -> Optional[Tuple[cst.IndentedBlock, int, cst.CSTNode]]:
    """``(block, index, loop)``: the loop whose body is ``body``, and where it sits."""
    if not isinstance(block, cst.IndentedBlock):
        return None
    for index, stmt in enumerate(block.body):
        if isinstance(stmt, (cst.For, cst.While)) and stmt.body is body:
            return block, index, stmt
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for inner in statement_blocks(stmt):
            found = _find_loop(inner, body)
            if found is not None:
                return found
    return None


def _assigned_name(stmt, value) -> Optional[str]:
    """The name ``stmt`` binds when it is ``name = value`` (one target, one statement on its line)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and small.value is value and \
            isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    return None


def _path_is_plain(body, stmt) -> bool:
    """Whether ``stmt`` runs on every pass of the loop body: directly in it, or in ``with`` and
    ``try`` bodies inside it (not under an ``if``, a handler or a nested loop)."""
    block = body
    while isinstance(block, cst.IndentedBlock):
        nxt = None
        for inner in block.body:
            if inner is stmt:
                return True
            if isinstance(inner, (cst.With, cst.Try, cst.TryStar)) and any(n is stmt for n in _walk(inner.body)):
                nxt = inner.body
        block = nxt
    return False


def _only_statement(loop, stmt) -> bool:
    """Whether removing ``stmt`` would leave its block empty."""
    for node in _walk(loop):
        if isinstance(node, cst.IndentedBlock) and any(s is stmt for s in node.body):
            return len(node.body) == 1
    return True


def _used_names(expr) -> Set[str]:
    """Names an expression reads (not attribute names or keyword argument names)."""
    out: Set[str] = set()
    if expr is None:
        return out
    from reslint.semantics.walk import children

    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return out


def _bound_names(loop, skip=None) -> Set[str]:
    """Names the loop binds or changes (targets, ``with ... as``, handlers, mutated objects)."""
    out: Set[str] = set()
    for node in _walk(loop):
        if skip is not None and node is skip:
            continue
        targets = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            targets.append(node.name)
        for target in targets:
            out.update(_target_names(target))
    if skip is not None:  # the skipped statement's own target is not "another" binding
        for node in _walk(skip):
            if isinstance(node, cst.AssignTarget):
                for name in _target_names(node.target):
                    if not _bound_elsewhere(loop, skip, name):
                        out.discard(name)
    return out


def _bound_elsewhere(loop, skip, name: str) -> bool:
    skipped = {id(n) for n in _walk(skip)}
    for node in _walk(loop):
        if id(node) in skipped:
            continue
        if isinstance(node, cst.AssignTarget) and name in _target_names(node.target):
            return True
    return False


def _target_names(target) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        out = set()
        for element in target.elements:
            out |= _target_names(element.value)
        return out
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        base = target.value
        while isinstance(base, (cst.Attribute, cst.Subscript)):
            base = base.value
        return _target_names(base)
    return set()
