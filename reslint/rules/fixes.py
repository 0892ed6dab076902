"""Helpers shared by the rules' fixes: naming an imported object, editing arguments."""

from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from reslint.catalog import canonical


def spell(ctx, dotted: str) -> Tuple[Optional[str], Tuple[str, ...]]:
    """How new code names the object ``dotted`` (``botocore.config.Config``): a name the
    module already imports for it, else its module's alias, else the full path plus
    the import to add. ``(None, ())`` when a local name would shadow it: a module
    binding, or one of the scope being visited (a parameter, local or comprehension
    variable), where the fix's code goes."""
    spelled, imports = _spell_in_module(ctx, dotted)
    if spelled is None or _shadowed(ctx, spelled.split(".")[0]):
        return None, ()
    return spelled, imports


def _shadowed(ctx, name: str) -> bool:
    """Whether ``name``, read in the current scope, finds a binding that is not the module's
    (the fix would call that local object at run time instead of the import)."""
    module = ctx.model.module_scope
    found = ctx.lookup(name, ctx.scope)
    return bool(found) and any(b.scope is not module for b in found)


def _spell_in_module(ctx, dotted: str) -> Tuple[Optional[str], Tuple[str, ...]]:
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
    if attr not in scope.bindings and _has_from_import(ctx, module):
        return attr, (f"from {module} import {attr}",)  # join the existing `from module import ...`
    top = module.split(".")[0]
    found = scope.bindings.get(top)
    if found and not all(b.kind == "import" and (b.qualname or "").split(".")[0] == top for b in found):
        return None, ()
    if module in ctx.model.imported_modules or (found and module == top):
        return dotted, ()
    return dotted, (module,)


def _has_from_import(ctx, module: str) -> bool:
    return find_from_import(ctx.model.module_scope.node, module) is not None


def find_from_import(tree: cst.Module, module: str):
    """The first module-level ``from module import a, b`` statement (its line and node)."""
    for stmt in tree.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None and \
                        not isinstance(small.names, cst.ImportStar) and \
                        cst.Module([]).code_for_node(small.module) == module:
                    return stmt, small
    return None


def add_import_name(node: cst.ImportFrom, name: str) -> cst.ImportFrom:
    """``from m import a, b`` → ``from m import a, b, name`` (keeping a parenthesised layout)."""
    names = list(node.names)
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


def remove_arg(call: cst.Call, name: str) -> cst.Call:
    """``call`` without its ``name=`` keyword argument, commas kept tidy."""
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if len(args) == len(call.args):
        return call
    if args and not (call.args[-1].keyword is not None and call.args[-1].keyword.value != name):
        # the removed argument was last: the new last keeps the old last's trailing comma style
        last_removed = call.args[-1]
        args[-1] = args[-1].with_changes(comma=last_removed.comma, whitespace_after_arg=last_removed.whitespace_after_arg)
    return call.with_changes(args=args)


def with_callee(call: cst.Call, spelled: str) -> Optional[cst.Call]:
    """``call`` with its function replaced by the expression ``spelled``."""
    try:
        func = cst.parse_expression(spelled)
    except cst.ParserSyntaxError:
        return None
    return call.with_changes(func=func)
