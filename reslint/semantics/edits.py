"""Fixes as node replacements (:class:`FixPlan`) and the helpers that write them: naming an
imported object in new code (:func:`spell`), editing arguments and collections.

Shared by the rules and the library adapters' fix writers; the engine turns a plan into text
edits. Layer: beside the semantic model, below the adapters and the rules.
"""

from __future__ import annotations

import builtins
import functools
import sys
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import libcst as cst

from reslint.catalog import canonical
from reslint.semantics.context import dotted_name
from reslint.diagnostics import Applicability


@dataclass(frozen=True)
class FixPlan:
    """A fix as the rule sees it: node replacements plus modules to import.

    ``replacements`` pairs an existing node with the node that replaces it; the
    engine turns them into text edits. ``imports`` are module names that must be
    importable under their own name (``"botocore.config"``) for the new code.
    """

    message: str
    applicability: Applicability
    replacements: Tuple[Tuple[cst.CSTNode, cst.CSTNode], ...]
    imports: Tuple[str, ...] = ()
    #: names a module-level ``from m import name`` binds whose one use the replacements rewrite:
    #: the engine drops the import when that use was the only one (a fix removes an import it
    #: made unused)
    unused: Tuple[str, ...] = ()


def spell(ctx, dotted: str, scope=None) -> Tuple[Optional[str], Tuple[str, ...]]:
    """How new code names the object ``dotted`` (``botocore.config.Config``): a name the
    module already imports for it, else its module's alias, else the full path plus
    the import to add. ``(None, ())`` when a local name would shadow it: a module
    binding, or one of the scope being visited (a parameter, local or comprehension
    variable), where the fix's code goes.

    An import is added only where the module is already imported: a name joins an
    existing ``from module import ...`` (also one in a module-level ``try:``, the
    optional-dependency idiom) unless it would shadow a builtin or a module name;
    ``import module`` goes at the top only when the module is imported there
    unconditionally or nowhere. A module imported only lazily (in a function) or
    optionally (in ``try:``) gets no unconditional import: ``(None, ())``.

    ``scope`` is where the new code goes, when not the scope being visited (a rule
    that fixes from ``leave_Module`` passes the scope it saw the policy in)."""
    scope = scope or ctx.scope
    top = dotted.split(".")[0]
    if _imported_locally(ctx, scope, top) and not _imported_at_top(ctx, top):
        return None, ()  # the enclosing function imports it lazily: a module-level import would not
    spelled, imports = _spell_in_module(ctx, dotted)
    if spelled is None or _shadowed(ctx, scope, spelled.split(".")[0]):
        return None, ()
    return spelled, imports


def _memoised(ctx, key: tuple, compute):
    """``compute()``, once per file (``ctx.cache``). The answers below depend only on the
    module's bindings and top-level statements, which do not change during the visit; each
    scanned every binding or top-level statement, once per finding, which made a file with
    thousands of findings (13,000 ``boto3.client(...)`` calls) quadratic."""
    cache = getattr(ctx, "cache", None)
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _shadowed(ctx, scope, name: str) -> bool:
    """Whether ``name``, read in ``scope``, finds a binding that is not the module's
    (the fix would call that local object at run time instead of the import)."""
    module = ctx.model.module_scope
    found = ctx.lookup(name, scope)
    return bool(found) and any(b.scope is not module for b in found)


def _spell_in_module(ctx, dotted: str) -> Tuple[Optional[str], Tuple[str, ...]]:
    return _memoised(ctx, ("spell", dotted), lambda: _spell_in_module_now(ctx, dotted))


def _spell_in_module_now(ctx, dotted: str) -> Tuple[Optional[str], Tuple[str, ...]]:
    scope = ctx.model.module_scope
    target = canonical(dotted)
    module, _, attr = dotted.rpartition(".")
    for name, bindings in scope.bindings.items():
        if len(bindings) == 1 and bindings[0].kind == "import":
            qual = bindings[0].qualname or ""
            if canonical(qual) == target:
                return name, ()
            if qual == module and module:
                return f"{name}.{attr}", ()
    if _may_bind(ctx, attr) and _has_from_import(ctx, module):
        return attr, (f"from {module} import {attr}",)  # join the existing `from module import ...`
    top = module.split(".")[0]
    found = scope.bindings.get(top)
    if found and not all(b.kind == "import" and (b.qualname or "").split(".")[0] == top for b in found):
        return None, ()
    if found and (module in ctx.model.imported_modules or module == top):
        return dotted, ()
    if top in ctx.model.import_roots and not _imported_at_top(ctx, top):
        return None, ()  # optional or lazy dependency: an unconditional import would make it required
    return dotted, (module,)


def _may_bind(ctx, name: str) -> bool:
    """Whether a new module-level ``name`` shadows nothing: no module binding, no builtin
    (``from requests import ConnectionError`` would change what ``except ConnectionError``
    catches elsewhere in the module), and no ``*`` import that might provide it."""
    return name not in ctx.model.module_scope.bindings and not hasattr(builtins, name) and \
        not ctx.model.star_imports


def _imported_locally(ctx, scope, top: str) -> bool:
    """Whether a function (or class) around ``scope`` imports ``top`` or a submodule."""
    while scope is not None and scope.parent is not None:
        if top in _memoised(ctx, ("import-roots", id(scope)), lambda: _import_roots(scope)):
            return True
        scope = scope.parent
    return False


def _import_roots(scope) -> frozenset:
    """The top-level packages the bindings of one scope import (``botocore`` for ``botocore.config``)."""
    return frozenset((b.qualname or "").split(".")[0] for bindings in scope.bindings.values() for b in bindings
                     if b.kind == "import")


def _imported_at_top(ctx, top: str) -> bool:
    """Whether a statement of the module's own body (not nested) imports ``top`` or a submodule."""
    tree = ctx.model.module_scope.node
    return top in _memoised(ctx, ("top-import-roots",), lambda: _top_import_roots(tree))


def _top_import_roots(tree: cst.Module) -> frozenset:
    """The top-level packages the statements of the module's own body (not nested) import."""
    roots = set()
    for stmt in tree.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    roots.update((dotted_name(a.name) or "").split(".")[0] for a in small.names)
                if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
                    roots.add((dotted_name(small.module) or "").split(".")[0])
    return frozenset(roots)


def _has_from_import(ctx, module: str) -> bool:
    return find_from_import(ctx.model.module_scope.node, module, ctx) is not None


def find_from_import(tree: cst.Module, module: str, ctx=None):
    """The first ``from module import a, b`` statement (its line and node) of the module's body
    or of the body of a module-level ``try:`` (an optional dependency: a name added there is
    as available as the names already imported there). ``ctx``: the file's context, whose
    cache keeps the index of those statements (built at the first call)."""
    return _memoised(ctx, ("from-imports", id(tree)), lambda: _from_imports(tree)).get(module)


def _from_imports(tree: cst.Module) -> dict:
    """dotted module -> (line, node) of its first ``from module import ...`` (see :func:`find_from_import`)."""
    index = {}
    for stmt in _top_statements(tree):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None and \
                        not isinstance(small.names, cst.ImportStar):
                    dotted = dotted_name(small.module)
                    if dotted is not None:
                        index.setdefault(dotted, (stmt, small))
    return index


def _top_statements(tree: cst.Module):
    for stmt in tree.body:
        yield stmt
        if isinstance(stmt, (cst.Try, cst.TryStar)) and isinstance(stmt.body, cst.IndentedBlock):
            yield from stmt.body.body


def add_import_name(node: cst.ImportFrom, name: str) -> cst.ImportFrom:
    """``from m import a, c`` → ``from m import a, b, c``: in isort's order (constants, classes,
    then the rest, each case-insensitively: isort's and Ruff's ``order-by-type`` default) when
    the names are in that order already, else at the end; a parenthesised layout is kept."""
    names = list(node.names)
    keys = [_member_key(a) for a in names]
    if None not in keys and keys == sorted(keys):
        index = next((i for i, key in enumerate(keys) if key > _name_key(name)), len(names))
        separator = names[0].comma if len(names) > 1 else None
        if index < len(names) and isinstance(separator, cst.Comma) and not _has_comment(separator):
            new = cst.ImportAlias(name=cst.Name(name), comma=separator)
            return node.with_changes(names=[*names[:index], new, *names[index:]])
        if index < len(names) and len(names) == 1:
            new = cst.ImportAlias(name=cst.Name(name), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return node.with_changes(names=[new, *names])
        # else a separator holding a comment: appending keeps every comment where it was
    new = cst.ImportAlias(name=cst.Name(name))
    last = names[-1]
    if isinstance(last.comma, cst.Comma):
        previous = names[-2].comma if len(names) > 1 and isinstance(names[-2].comma, cst.Comma) else \
            cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        names[-1] = last.with_changes(comma=previous)
        new = new.with_changes(comma=last.comma)
    else:
        names[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return node.with_changes(names=[*names, new])


def _name_key(name: str) -> Tuple[int, str]:
    """isort's ``order_by_type`` key: CONSTANTS, then Classes, then the rest, case-insensitively."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _member_key(alias: cst.ImportAlias) -> Optional[Tuple[int, str]]:
    return _name_key(alias.name.value) if isinstance(alias.name, cst.Name) else None


def drops_comment(old: cst.CSTNode, new: cst.CSTNode) -> bool:
    """Whether replacing ``old`` by ``new`` loses a comment ``old`` holds (``retry_jitter=False,
    # why`` removed with its argument): such a fix is not safe, whatever it repairs."""
    kept = _comments(new)
    for text in _comments(old):
        if kept.get(text, 0) == 0:
            return True
        kept[text] -= 1
    return False


def _comments(node: cst.CSTNode) -> dict:
    out: dict = {}
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            out[current.value] = out.get(current.value, 0) + 1
        stack.extend(current.children)
    return out


def _has_comment(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            return True
        stack.extend(current.children)
    return False


def copyable(expr: cst.BaseExpression) -> bool:
    """Whether a fix may write ``expr`` a second time: a number, a name, an attribute of a name,
    or arithmetic on those. A call (``next(DELAYS)``) or anything else could have a side
    effect or give another value when evaluated twice."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Name)):
        return True
    if isinstance(expr, cst.Attribute):
        return copyable(expr.value) and not isinstance(expr.value, (cst.Integer, cst.Float))
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and copyable(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)) and \
            copyable(expr.left) and copyable(expr.right)
    return False


def without_elements(collection, drop) -> Optional[cst.BaseExpression]:
    """A list, set or tuple literal without the elements for which ``drop(element)`` is true,
    or ``None`` when none would be left.

    A trailing comment belongs to its element: LibCST keeps it in the element's comma,
    or, after the last element, before the closing bracket. The kept elements keep
    theirs and the dropped ones take theirs along. When the last element goes, a new
    last element with a comment keeps its comma and comment and takes the indentation
    of the closing bracket."""
    elements = list(collection.elements)
    kept = [e for e in elements if not drop(e)]
    if not kept:
        return None
    last = elements[-1]
    if kept[-1] is not last:
        own = kept[-1].comma
        if isinstance(own, cst.Comma) and isinstance(own.whitespace_after, cst.ParenthesizedWhitespace):
            closing = [w for w in (getattr(last.comma, "whitespace_after", None), _closing_whitespace(collection))
                       if isinstance(w, cst.ParenthesizedWhitespace)]
            if closing:
                kept[-1] = kept[-1].with_changes(comma=own.with_changes(
                    whitespace_after=own.whitespace_after.with_changes(indent=closing[0].indent,
                                                                       last_line=closing[0].last_line)))
            if _closing_whitespace(collection) is not None:  # it holds the dropped element's comment, if any
                collection = _with_closing_whitespace(collection, cst.SimpleWhitespace(""))
        else:
            kept[-1] = kept[-1].with_changes(comma=last.comma)
    if isinstance(collection, cst.Tuple) and len(kept) == 1 and not isinstance(kept[0].comma, cst.Comma):
        kept[0] = kept[0].with_changes(comma=cst.Comma())  # ("GET",) stays a tuple
    return collection.with_changes(elements=kept)


def _closing_bracket(collection):
    """(attribute, bracket) of the closing bracket of a list, set or tuple literal (or ``(None, None)``)."""
    if isinstance(collection, cst.List):
        return "rbracket", collection.rbracket
    if isinstance(collection, cst.Set):
        return "rbrace", collection.rbrace
    if isinstance(collection, cst.Tuple) and collection.rpar:
        return "rpar", collection.rpar[-1]
    return None, None


def _closing_whitespace(collection):
    """The whitespace the closing bracket owns (after the last element and its comma)."""
    _, bracket = _closing_bracket(collection)
    return bracket.whitespace_before if bracket is not None else None


def _with_closing_whitespace(collection, whitespace):
    attr, bracket = _closing_bracket(collection)
    new = bracket.with_changes(whitespace_before=whitespace)
    if attr == "rpar":
        return collection.with_changes(rpar=[*collection.rpar[:-1], new])
    return collection.with_changes(**{attr: new})


def remove_arg(call: cst.Call, name: str, statement=None) -> cst.Call:
    """``call`` without its ``name=`` keyword argument, commas kept tidy.

    The comments the argument carries inside the call go with it (:func:`argument_comments`: the
    comment lines directly above it, its trailing comment): they explain a value no longer there.
    Every other comment stays where it was: a trailing comment never passes to another argument.
    A comment after the call that ends the removed argument's line (found in ``statement``, the
    statement that holds the call) stays on that line: when the argument was last and on a line
    of its own, the closing bracket stays there too, not joined to the line of another argument."""
    args = list(call.args)
    index = next((i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name), None)
    if index is None:
        return call
    removed = args.pop(index)
    trailing = isinstance(removed.comma, cst.Comma)
    after = _without_first_comment(removed.comma.whitespace_after if trailing else removed.whitespace_after_arg)
    if index == 0:
        before, _ = _split_above(call.whitespace_before_args)
        if not args:  # the only argument: ``f()``, or ``f(  # why`` then ``)`` on its own line
            keep = _holds_comment(before)
            return call.with_changes(args=[], whitespace_before_args=_joined(before, after, True) if keep else
                                     cst.SimpleWhitespace(""))
        return call.with_changes(args=args, whitespace_before_args=_joined(before, after, False))
    previous = args[index - 1]
    before, _ = _split_above(previous.comma.whitespace_after)
    own_line = isinstance(before, cst.ParenthesizedWhitespace) and statement is not None and \
        bool(argument_comments(call, removed, statement).after)
    if trailing or index < len(args) or _holds_comment(before) or own_line:
        # the previous argument keeps its comma, and after it what came after the removed one
        # (a trailing comma stays a trailing comma; a comment of its own stays on its line)
        args[index - 1] = previous.with_changes(comma=previous.comma.with_changes(
            whitespace_after=_joined(before, after, index == len(args))))
    else:  # the removed argument was last, with no trailing comma: the previous one becomes last
        args[index - 1] = previous.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=after)
    return call.with_changes(args=args)


def _split_above(whitespace):
    """(``whitespace`` without the comment lines that end it, those lines): the lines directly
    above what follows it."""
    if not isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace, ()
    lines = list(whitespace.empty_lines)
    k = len(lines)
    while k and lines[k - 1].comment is not None:
        k -= 1
    return whitespace.with_changes(empty_lines=lines[:k]), tuple(lines[k:])


def _without_first_comment(whitespace):
    """``whitespace`` without the comment that ends its first line (the trailing comment of
    what comes before it)."""
    if isinstance(whitespace, cst.ParenthesizedWhitespace) and whitespace.first_line.comment is not None:
        return whitespace.with_changes(first_line=cst.TrailingWhitespace())
    return whitespace


def _holds_comment(whitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace) and (
        whitespace.first_line.comment is not None or any(line.comment is not None for line in whitespace.empty_lines))


def _joined(before, after, closing: bool):
    """The whitespace that replaces ``before`` + a removed argument + ``after``: the first line
    of ``before`` (the comment of the line it ends, if any), the lines of both, and the
    indentation of what follows (``closing``: the closing bracket, after a last argument)."""
    if isinstance(after, cst.ParenthesizedWhitespace):
        if isinstance(before, cst.ParenthesizedWhitespace):
            return after.with_changes(first_line=before.first_line,
                                      empty_lines=[*before.empty_lines, *after.empty_lines])
        return after
    if isinstance(before, cst.ParenthesizedWhitespace) and closing:
        return before.with_changes(last_line=cst.SimpleWhitespace(""))  # the bracket on a line of its own
    if isinstance(before, cst.ParenthesizedWhitespace) or not isinstance(after, cst.SimpleWhitespace):
        return before
    return after if closing else before


#: comments that speak to a tool, not a reader (``# noqa: E501``, ``# type: ignore``): they explain no choice
DIRECTIVES = ("noqa", "type:", "pragma:", "pylint:", "fmt:", "isort:", "nosec", "mypy:")


@dataclass(frozen=True)
class ArgumentComments:
    """The comments that explain one argument of a call (tool directives left out): ``own``, inside
    the call (the comment lines directly above it, its trailing comment, comments within it);
    ``after``, the comment after the call that ends the line the argument ends on
    (``@retry(..., jitter=None)  # on purpose``)."""

    own: Tuple[str, ...] = ()
    after: Tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.own or self.after)


def argument_comments(call: cst.Call, arg: cst.Arg, statement=None) -> ArgumentComments:
    """The comments that explain ``arg``, an argument of ``call`` (:class:`ArgumentComments`).
    ``statement``: the statement that holds the call, where a comment after it is looked for
    (``None``: only the comments inside the call)."""
    args = list(call.args)
    index = next((i for i, a in enumerate(args) if a is arg), None)
    if index is None:
        return ArgumentComments()
    separator = call.whitespace_before_args if index == 0 else args[index - 1].comma
    separator = separator.whitespace_after if isinstance(separator, cst.Comma) else separator
    own = [line.comment.value for line in _split_above(separator)[1]]
    own.extend(_comment_values(arg.value))
    closing = arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else arg.whitespace_after_arg
    if isinstance(closing, cst.ParenthesizedWhitespace) and closing.first_line.comment is not None:
        own.append(closing.first_line.comment.value)
    after = ()
    if statement is not None and not isinstance(closing, cst.ParenthesizedWhitespace):
        found = _line_comment_after(statement, arg.value)
        after = (found.value,) if found is not None and found.value not in own else ()
    return ArgumentComments(tuple(c for c in own if not _directive(c)), tuple(c for c in after if not _directive(c)))


def argument_of(call: cst.Call, node: cst.CSTNode) -> Optional[cst.Arg]:
    """The argument of ``call`` that is or holds ``node``."""
    for arg in call.args:
        if arg is node or arg.value is node or any(n is node for n in _all_nodes(arg.value)):
            return arg
    return None


def _all_nodes(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _comment_values(node: cst.CSTNode) -> list:
    return [n.value for n in _all_nodes(node) if isinstance(n, cst.Comment)]


def _directive(comment: str) -> bool:
    text = comment.lstrip("#").strip().lower()
    return text.startswith(DIRECTIVES)


def _line_comment_after(root: cst.CSTNode, node: cst.CSTNode) -> Optional[cst.Comment]:
    """The comment that ends the line ``node`` ends on, in ``root`` (a statement): the source
    after ``node`` is read token by token up to the first line break. Blocks before ``node`` are
    not entered (a call in them belongs to another statement), so only the header is read."""
    stack, seen = [root], False
    while stack:
        current = stack.pop()
        if current is node:
            seen = True
            continue
        if seen:
            if isinstance(current, cst.TrailingWhitespace):
                return current.comment
            if isinstance(current, (cst.EmptyLine, cst.Newline)) or \
                    (isinstance(current, cst.SimpleString) and "\n" in current.value):
                return None
        elif isinstance(current, cst.BaseSuite) and current is not root:
            continue
        stack.extend(reversed(current.children))
    return None


def commented_change(plan: Optional[FixPlan], call: Optional[cst.Call], node, statement=None) -> Optional[FixPlan]:
    """``plan``, a fix that removes or changes the argument of ``call`` that is or holds ``node``,
    made unsafe when that argument carries a comment (:func:`argument_comments`): the comment says
    the author chose the value. The message says so, and whether the fix removes the comment
    (with the argument) or leaves it as it is. ``statement``: the statement that holds the call."""
    arg = argument_of(call, node) if plan is not None and call is not None else None
    comments = argument_comments(call, arg, statement) if arg is not None else ArgumentComments()
    if not comments:
        return plan
    held: dict = {}  # comment -> how many more the replaced code holds than the new code
    for old, new in plan.replacements:
        for text, count in _comments(old).items():
            held[text] = held.get(text, 0) + count
        for text, count in _comments(new).items():
            held[text] = held.get(text, 0) - count
    explained = comments.own + comments.after
    fates = ["removed" if held.get(text, 0) > 0 else "left as it is" for text in explained]
    if len(explained) == 1:
        note = f"the comment `{explained[0]}` explains a deliberate choice; the fix " + \
               ("removes it" if fates[0] == "removed" else "leaves it as it is")
    else:
        said = [f"`{text}` ({fate})" for text, fate in zip(explained, fates)]
        note = f"the comments {', '.join(said[:-1])} and {said[-1]} explain a deliberate choice"
    return FixPlan(f"{plan.message}; not safe: {note}", Applicability.UNSAFE, plan.replacements, plan.imports,
                   plan.unused)


def with_callee(call: cst.Call, spelled: str) -> Optional[cst.Call]:
    """``call`` with its function replaced by the expression ``spelled``."""
    try:
        func = cst.parse_expression(spelled)
    except cst.ParserSyntaxError:
        return None
    return call.with_changes(func=func)


# -- where a new ``import module`` goes (isort's and Ruff's I001 sections) -----------------------------
#: isort's default sections, in order: ``__future__``, standard library, third party, first party, local
FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)


def import_section(module: str, first_party: Callable[[str], bool]) -> int:
    """The isort section of an absolute module name (``first_party``: whether a top-level name is
    one of the project's own packages)."""
    top = module.split(".")[0]
    if top == "__future__":
        return FUTURE
    if top in _stdlib_names():
        return STDLIB
    return FIRST_PARTY if first_party(top) else THIRD_PARTY


@functools.lru_cache(maxsize=1)
def _stdlib_names() -> frozenset:
    """The standard library's top-level modules (``sys.stdlib_module_names``, Python 3.10+)."""
    return frozenset(sys.stdlib_module_names)


def _statement_import(stmt, first_party) -> Optional[Tuple[int, int, str]]:
    """(section, 0 for ``import`` / 1 for ``from``, sort key) of a leading import statement."""
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        name = dotted_name(small.names[0].name) or ""
        return import_section(name, first_party), 0, name.lower()
    if small.relative:
        return LOCAL, 1, ""
    name = dotted_name(small.module) if small.module is not None else ""
    return import_section(name or "", first_party), 1, (name or "").lower()


def import_placement(module: cst.Module, name: str, first_party: Callable[[str], bool]):
    """Where ``import name`` goes among the module's leading imports, as isort would put it:
    ``(statement, where, text)`` with ``where`` ``"before"`` (at the line of the statement's
    first token, above the comments that lead it) or ``"after"`` (on the line after it), or
    ``None`` when the module opens with no import. Within its section a straight import comes
    before the ``from`` imports and in alphabetical order (case-insensitive, isort's and Ruff's
    defaults); a section the module lacks is opened with a blank line between sections."""
    leading = []
    for index, stmt in enumerate(module.body):
        if _is_import_line(stmt):
            leading.append(stmt)
            continue
        if index == 0 and _is_docstring_line(stmt):
            continue
        break
    if not leading:
        return None
    newline = module.default_newline
    line = f"import {name}{newline}"
    section, key = import_section(name, first_party), name.lower()
    placed = [(stmt, _statement_import(stmt, first_party)) for stmt in leading]
    same = [(stmt, info) for stmt, info in placed if info[0] == section]
    if same:
        for stmt, info in same:
            if (info[1], info[2]) > (0, key):
                return stmt, "before", line
        return same[-1][0], "after", line
    for stmt, info in placed:
        if info[0] > section:
            return stmt, "before", line + newline
    return leading[-1], "after", newline + line


def leading_comment_lines(stmt) -> int:
    """How many comment lines directly above a statement lead it (they stay with it)."""
    count = 0
    for empty in reversed(getattr(stmt, "leading_lines", ())):
        if empty.comment is None:
            break
        count += 1
    return count


def _is_import_line(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_docstring_line(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def name_reads(ctx, tree: cst.Module) -> dict:
    """name -> how many times the module reads it (``Name`` nodes that are not an attribute's
    or keyword's name, a definition's name, a parameter or an import's alias), once per file."""
    def count() -> dict:
        out: dict = {}
        stack = [(None, tree)]
        while stack:
            parent, node = stack.pop()
            if isinstance(node, cst.Name):
                skip = (isinstance(parent, cst.Attribute) and parent.attr is node) or \
                    (isinstance(parent, cst.Arg) and parent.keyword is node) or \
                    isinstance(parent, (cst.ImportAlias, cst.Param, cst.FunctionDef, cst.ClassDef))
                if not skip:
                    out[node.value] = out.get(node.value, 0) + 1
                continue
            stack.extend((node, child) for child in node.children)
        return out
    return _memoised(ctx, ("name-reads", id(tree)), count)


def import_binding(tree: cst.Module, name: str):
    """(line, node) of the module-level ``from m import ... name ...`` (no ``as``) that binds ``name``."""
    for stmt in tree.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
                isinstance(stmt.body[0], cst.ImportFrom) and not isinstance(stmt.body[0].names, cst.ImportStar):
            if any(isinstance(a.name, cst.Name) and a.name.value == name and a.asname is None
                   for a in stmt.body[0].names):
                return stmt, stmt.body[0]
    return None


def without_import_names(node: cst.ImportFrom, drop) -> Optional[cst.ImportFrom]:
    """``from m import a, b, c`` without the names in ``drop`` (commas kept tidy), or ``None``
    when none would be left."""
    names = list(node.names)
    kept = [a for a in names if not (isinstance(a.name, cst.Name) and a.name.value in drop)]
    if not kept:
        return None
    if kept[-1] is not names[-1]:
        kept[-1] = kept[-1].with_changes(comma=names[-1].comma)
    return node.with_changes(names=kept)
