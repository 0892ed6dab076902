"""A read-only, iterative traversal of a LibCST tree for the rules.

LibCST's own ``visit`` rebuilds every node as it goes (it is shared with
transformers), which costs more than the parse; a linter only reads. This walk
follows the dataclass fields that hold syntax (whitespace, comments and
punctuation are skipped), in field order, with an explicit stack, so deep trees
(long implicit string concatenations) cannot hit the recursion limit.

Rules implement ``visit_<NodeType>(node)`` and ``leave_<NodeType>(node)``, as in
LibCST; the engine's hooks run before every visit and after every leave.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

import libcst as cst

#: fields that never hold code a rule inspects
_SKIP = frozenset({
    "header", "footer", "leading_lines", "lines_after_decorators", "trailing_whitespace", "lpar", "rpar",
    "comma", "semicolon", "equal", "colon", "dot", "whitespace_before", "whitespace_after",
    "whitespace_after_def", "whitespace_after_class", "whitespace_before_colon", "whitespace_after_func",
    "whitespace_before_args", "whitespace_after_arg", "whitespace_before_params", "whitespace_after_star",
    "whitespace_after_star_star", "whitespace_after_at", "whitespace_after_await", "whitespace_after_as",
    "whitespace_before_as", "whitespace_after_import", "whitespace_after_from", "whitespace_after_in",
    "whitespace_before_in", "whitespace_after_for", "whitespace_before_for", "whitespace_after_if",
    "whitespace_before_if", "whitespace_after_lambda", "whitespace_after_else", "whitespace_before_else",
    "whitespace_after_return", "whitespace_after_del", "whitespace_after_indicator", "whitespace_after_case",
    "whitespace_after_match", "whitespace_after_with", "whitespace_after_async", "whitespace_after_global",
    "whitespace_after_nonlocal", "whitespace_after_assert", "whitespace_after_raise", "whitespace_after_yield",
    "whitespace_after_exec", "whitespace_before_expression", "whitespace_after_expression", "asynchronous",
    "operator", "star",
})

_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _fields(cls: type) -> Tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _SKIP)
        _FIELDS[cls] = names
    return names


#: type -> 1 (a node), 2 (a sequence), 0 (anything else): ``isinstance`` against LibCST's
#: abstract base classes goes through ``ABCMeta`` and was a sixth of the walk's cost
_KIND: Dict[type, int] = {}


def _kind(cls: type) -> int:
    kind = _KIND.get(cls)
    if kind is None:
        kind = _KIND[cls] = 1 if issubclass(cls, cst.CSTNode) else 2 if issubclass(cls, (tuple, list)) else 0
    return kind


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The syntax children of a node, in field order."""
    out: List[cst.CSTNode] = []
    kinds = _KIND
    for name in _FIELDS.get(type(node)) or _fields(type(node)):
        value = getattr(node, name)
        kind = kinds.get(type(value)) if type(value) in kinds else _kind(type(value))
        if kind == 1:
            out.append(value)
        elif kind == 2:
            out.extend(v for v in value if (kinds.get(type(v)) if type(v) in kinds else _kind(type(v))) == 1)
    return out


Handler = Callable[[cst.CSTNode], None]


def dispatch_tables(visitors: Iterable[object]) -> Tuple[Dict[str, List[Handler]], Dict[str, List[Handler]]]:
    """``visit_X``/``leave_X`` bound methods of the visitors, keyed by node type name."""
    from reslint import profiling

    profile = profiling.ACTIVE
    visit: Dict[str, List[Handler]] = {}
    leave: Dict[str, List[Handler]] = {}
    for visitor in visitors:
        label = f"visit {getattr(visitor, 'code', '') or type(visitor).__name__}"
        for attr in dir(type(visitor)):
            if attr.startswith(("visit_", "leave_")):
                handler = getattr(visitor, attr)
                if profile is not None:
                    handler = profile.timed(label, handler)
                (visit if attr.startswith("visit_") else leave).setdefault(attr[6:], []).append(handler)
    return visit, leave


def walk(root: cst.CSTNode, visitors: Sequence[object], before: Handler, after: Handler) -> None:
    """Visit every syntax node under ``root`` (pre-order visit, post-order leave)."""
    visit, leave = dispatch_tables(visitors)
    stack: List[Tuple[cst.CSTNode, bool]] = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, leaving = pop()
        name = type(node).__name__
        if leaving:
            for handler in leave.get(name, ()):
                handler(node)
            after(node)
            continue
        before(node)
        for handler in visit.get(name, ()):
            handler(node)
        push((node, True))
        kids = children(node)
        for child in reversed(kids):
            push((child, False))


def expressions(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Every node under ``node``, ``node`` included (iterative, so deep trees cannot hit the
    recursion limit; the order is depth-first but not source order)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def statement_blocks(stmt) -> List[cst.CSTNode]:
    """The blocks (suites) of a compound statement, in order: each ``elif``/``else``, loop ``else``,
    handler, ``finally`` and ``case``; ``[]`` for a simple statement or a function or class definition."""
    if isinstance(stmt, cst.If):
        out, orelse = [stmt.body], stmt.orelse
        while orelse is not None:
            out.append(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        return out
    if isinstance(stmt, (cst.For, cst.While)):
        return [stmt.body] + ([stmt.orelse.body] if stmt.orelse is not None else [])
    if isinstance(stmt, cst.With):
        return [stmt.body]
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        return [stmt.body] + [h.body for h in stmt.handlers] + \
            [extra.body for extra in (stmt.orelse, stmt.finalbody) if extra is not None]
    if isinstance(stmt, cst.Match):
        return [case.body for case in stmt.cases]
    return []


def nodes_within(node: cst.CSTNode, stop: Tuple[type, ...] = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
                 ) -> Iterable[cst.CSTNode]:
    """Every node under ``node`` (not ``node`` itself) that runs with it: the walk does not enter
    nodes of the ``stop`` types (by default the functions, classes and lambdas defined there, which
    have scopes of their own), though it yields them."""
    stack = list(reversed(children(node)))
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, stop):
            stack.extend(reversed(children(current)))


def is_generator(func: cst.FunctionDef) -> bool:
    """Whether ``func`` is a generator or async generator function: a ``yield`` in its own body
    (not in a function, lambda or class defined in it)."""
    return any(isinstance(node, cst.Yield) for node in nodes_within(func.body))


#: decorators after which a function of the same name is no redefinition (``@x.setter``,
#: ``@overload``, ``@f.register``): the last name of the decorator
_REDEFINING = frozenset({"setter", "getter", "deleter", "overload", "register"})
#: decorators with no effect outside the class: a function defined again under them is still dead
_PURE_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abstractmethod"})


def _decorator_name(decorator: cst.Decorator) -> str:
    node = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
    return node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""


def dead_definitions(module: cst.Module) -> List[cst.FunctionDef]:
    """Functions and methods that never run because the same body (the module's, or a class's)
    defines the name again further down, with nothing between that uses it (Pyflakes' and Ruff's
    F811): the first ``def`` of each such pair; a call run between the two (at module level, in a
    class body) may reach the first, so it ends the pair. Only unconditional definitions count (not under
    ``if``/``try``); a first definition whose decorators may register it (``@app.route``) and a
    second one that extends the first (``@x.setter``, ``@overload``, ``@f.register``) do not."""
    out: List[cst.FunctionDef] = []
    stack: List[Sequence[cst.CSTNode]] = [module.body]
    while stack:
        body = stack.pop()
        pending: Dict[str, cst.FunctionDef] = {}
        for stmt in body:
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                stack.append(stmt.body.body)
            if isinstance(stmt, cst.FunctionDef):
                names = {_decorator_name(d) for d in stmt.decorators}
                used = _names_in(list(stmt.decorators) + [stmt.params])
                earlier = pending.pop(stmt.name.value, None)
                if earlier is not None and not names & _REDEFINING and stmt.name.value not in used:
                    out.append(earlier)
                for name in used:
                    pending.pop(name, None)
                if names <= _PURE_DECORATORS:
                    pending[stmt.name.value] = stmt
                continue
            if any(isinstance(node, cst.Call) for node in nodes_within(stmt)) or \
                    any(isinstance(node, cst.Call) for d in getattr(stmt, "decorators", ()) for node in expressions(d)):
                pending.clear()  # code that runs here (``start()``, a class body's ``load()``) may call either
                continue
            parts = list(stmt.decorators) + list(stmt.bases) + list(stmt.keywords) + [stmt.body] \
                if isinstance(stmt, cst.ClassDef) else [stmt]
            for name in _names_in(parts):
                pending.pop(name, None)
            if isinstance(stmt, cst.ClassDef):
                pending.pop(stmt.name.value, None)
    return out


def overwritten_values(module: cst.Module) -> set:
    """The ids of the values that a block binds to a name and that the very next statement of
    the same block binds the name again without reading it (``model = ChatOpenAI(...)`` then
    ``model = ChatAnthropic(...)``: Pylint's redefined-variable shape, a dead store): what the
    first value builds is never used. Only a simple assignment to one plain name counts, in
    either statement."""
    out: set = set()
    stack: List[Sequence[cst.CSTNode]] = [module.body]
    while stack:
        body = stack.pop()
        previous = None
        for stmt in body:
            assigned = _single_assignment(stmt)
            if assigned is not None and previous is not None and assigned[0] == previous[0] and \
                    not _reads(assigned[1], assigned[0]):
                out.add(id(previous[1]))
            previous = assigned
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                if isinstance(stmt.body, cst.IndentedBlock):
                    stack.append(stmt.body.body)
                continue
            for block in statement_blocks(stmt):
                if isinstance(block, cst.IndentedBlock):
                    stack.append(block.body)
    return out


def _reads(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` reads the variable ``name``."""
    return name in _names_in([node])


def _single_assignment(stmt: cst.CSTNode):
    """(name, value) of a statement that is one assignment of a value to one plain name, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    if isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
        return small.target.value, small.value
    return None


def read_name_nodes(node: cst.CSTNode) -> List[cst.Name]:
    """The names ``node`` reads: not an attribute's name (``x.done``) nor a keyword argument's
    (``f(timeout=...)``)."""
    spelled = set()
    for current in expressions(node):
        if isinstance(current, cst.Attribute):
            spelled.add(id(current.attr))
        elif isinstance(current, cst.Arg) and current.keyword is not None:
            spelled.add(id(current.keyword))
    return [n for n in expressions(node) if isinstance(n, cst.Name) and id(n) not in spelled]


def _names_in(nodes: Sequence[cst.CSTNode]) -> set:
    """The variables ``nodes`` read (:func:`read_name_nodes`)."""
    return {n.value for node in nodes for n in read_name_nodes(node)}
