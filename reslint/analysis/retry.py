"""The retry policy dispatcher: which adapter reads a decorator or a call, memoised per node.

The model is :mod:`reslint.model.policy`; each library's reader is its adapter in
:mod:`reslint.libraries` (found through the registry by the qualified name the call resolves
to). This module only picks the adapter and the role and remembers the answer, so that every
rule sees one policy object per spelling.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint import libraries
from reslint.catalog import retries as cat
from reslint.catalog.triggers import spells_import_string
from reslint.semantics.context import Context
from reslint.libraries.base import Site
from reslint.model.policy import RetriedKind, RetryPolicy, Role
from reslint.semantics.walk import nodes_within
from reslint.model.reader import PolicyReader

#: the roles a constructor call can have, in the order they are tried (a name in two tables)
_CALL_ROLES: Tuple[Role, ...] = (Role.ITERATOR, Role.OBJECT, Role.CALLER)


class Extractor:
    """Builds :class:`RetryPolicy` objects for one file (memoised per node)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.reader = PolicyReader(ctx)
        self._memo: Dict[int, Optional[RetryPolicy]] = {}

    def exception_types(self, expr, scope=None) -> Optional[Tuple[str, ...]]:
        """Qualified names of the exception classes ``expr`` names (see :class:`PolicyReader`)."""
        return self.reader.exception_types(expr, scope)

    def for_decorator(self, decorator: cst.BaseExpression, scope=None) -> Optional[RetryPolicy]:
        """The policy of a decorator: ``@retry``, ``@retry(...)``, or ``@api_retry`` where
        ``api_retry = retry(...)`` is bound once (the policy is anchored at that call)."""
        if isinstance(decorator, cst.Name):
            target, target_scope = self.ctx.resolve(decorator, scope)
            if isinstance(target, cst.Call):
                decorator, scope = target, target_scope
        key = id(decorator)
        if key in self._memo:
            return self._memo[key]
        call = decorator if isinstance(decorator, cst.Call) else None
        func = call.func if call is not None else decorator
        policy = self._read(self.ctx.qualname(func, scope), (Role.DECORATOR,), call, decorator, scope)
        self._memo[key] = policy
        return policy

    def for_call(self, call: cst.Call, scope=None) -> Optional[RetryPolicy]:
        """A policy built by a constructor call (``Retrying(...)``, ``Retry(...)``,
        ``retry_context(...)``, ``HTTPAdapter(max_retries=...)``, ``retry_call(fn, ...)``)."""
        key = id(call)
        if key in self._memo:
            return self._memo[key]
        policy = self._read(self.ctx.qualname(call.func, scope), _CALL_ROLES, call, call, scope)
        self._memo[key] = policy
        return policy

    def for_string(self, node: cst.SimpleString, scope=None) -> Optional[RetryPolicy]:
        """A policy a framework builds from the dotted path ``node`` spells (django_dramatiq's
        ``"dramatiq.middleware.Retries"`` in ``DRAMATIQ_BROKER["MIDDLEWARE"]``), with no arguments:
        :data:`reslint.libraries.IMPORT_STRINGS`."""
        key = id(node)
        if key in self._memo:
            return self._memo[key]
        policy = None
        found = None
        if spells_import_string(node.value):  # no other literal is evaluated
            try:
                text = node.evaluated_value
            except (SyntaxError, ValueError):
                text = None
            found = libraries.IMPORT_STRINGS.get(text) if isinstance(text, str) else None
        if found is not None:
            adapter, qualname = found
            policy = adapter.read(Site(Role.OBJECT, qualname, None, node, scope), self.reader)
        self._memo[key] = policy
        return policy

    def mounted_policies(self, obj) -> List[RetryPolicy]:
        """The policies that retry each request through the client ``obj`` names, from what is
        mounted on it (a session's adapters): the retry object given to the mount, else the
        mounted object's own policy."""
        out: List[RetryPolicy] = []
        for adapter in libraries.ADAPTERS:
            for mount_call, retry_expr in adapter.mounted(self.ctx, obj):
                target = self.ctx.constructor_of(retry_expr)
                policy = self.for_call(target) if target is not None else None
                policy = policy or self.for_call(mount_call)
                if policy is not None:
                    out.append(policy)
        return out

    def _read(self, qualname: Optional[str], roles, call, anchor, scope) -> Optional[RetryPolicy]:
        found = libraries.lookup(qualname, roles) if qualname is not None else None
        if found is None and call is not None and isinstance(call.func, cst.Attribute):
            method = libraries.lookup_method(call.func.attr.value, self.ctx.model.import_roots, roles)
            if method is not None:  # a method of objects reslint cannot type (``runnable.with_retry()``)
                adapter, qualname, role = method
                # reported at the method's name: a chain spans lines (``llm\n.with_structured_output(S)\n.with_retry()``)
                return adapter.read(Site(role, qualname, call, call.func.attr, scope), self.reader)
        if found is None:
            return self._catalog(qualname, roles, call, anchor, scope) if self.ctx.catalog else None
        adapter, role = found
        return adapter.read(Site(role, qualname, call, anchor, scope), self.reader)

    def _catalog(self, qualname: Optional[str], roles, call, anchor, scope) -> Optional[RetryPolicy]:
        """A retry helper of the project's catalog (``[tool.reslint.catalog]``, or inferred in
        another module by the project pass)."""
        from reslint.analysis.helpers import catalog_policy
        from reslint.catalog.user import CALLER

        entry = self.ctx.catalog.helper(qualname)
        if entry is None:
            return None
        role = Role.CALLER if entry.kind == CALLER else Role.DECORATOR
        if role not in roles:
            return None
        return catalog_policy(self.ctx, entry, call, anchor, scope, role)


def local_resource_only(policy: RetryPolicy, bodies, ctx: Context, scope) -> bool:
    """Whether ``policy`` retries only errors of a resource on the caller's own host (a locked
    file, a locked SQLite database: catalog ``LOCAL_RESOURCE_ERRORS``) around code (``bodies``, the
    retried function's or the ``try`` bodies a loop's handlers catch for, read in ``scope``) that
    calls nothing but that host's files, locks and SQLite databases
    (:func:`calls_local_only`). Such a retry waits for a neighbour to let go: no crowd of clients
    comes back to a recovering service in lockstep (RES201). (A write it replays is still judged:
    a ``COMMIT`` refused as busy leaves the transaction open, and the next attempt's ``INSERT``
    joins it.)"""
    retried = policy.retried
    names = {t[len("builtins."):] if t.startswith("builtins.") else t for t in retried.types}
    return retried.kind is RetriedKind.TYPES and bool(names) and names <= cat.LOCAL_RESOURCE_ERRORS and \
        bool(bodies) and all(calls_local_only(body, ctx, scope) for body in bodies)


def calls_local_only(body, ctx: Context, scope) -> bool:
    """Whether every call in ``body`` (read in ``scope``) acts on the caller's own host: a function
    of a module of catalog ``LOCAL_CALL_MODULES`` (not one that runs a program, ``os.system``), a
    method of a file it opened (``with open(path) as f: f.write(...)``), of a ``pathlib`` path, a
    SQLite connection or cursor, or a log line. No ``raise`` of its own: code that raises
    ``PermissionError`` on an HTTP 403 retries a remote refusal."""
    from reslint.analysis.loops import logs  # (loops imports this module's neighbours)
    with ctx.in_scope(scope):
        for node in nodes_within(body):
            if isinstance(node, cst.Raise) and node.exc is not None:
                return False
            if not isinstance(node, cst.Call) or logs(node):
                continue
            qual = ctx.qualname(node.func) or ctx.builtin(node.func)
            if not qual and isinstance(node.func, cst.Attribute):
                qual = ctx.type_of(node.func.value) or _opened(node.func.value, ctx)
            if qual.split(".")[0] not in cat.LOCAL_CALL_MODULES or qual.startswith(cat.HOST_CALLS_NOT_LOCAL):
                return False
            if qual in cat.CALLING_BUILTINS and any(
                    isinstance(arg.value, (cst.Name, cst.Attribute)) and
                    ((ctx.qualname(arg.value) or ctx.builtin(arg.value)).split(".")[0] not in cat.LOCAL_CALL_MODULES)
                    for arg in node.args[:1] + tuple(a for a in node.args if a.keyword is not None)):
                return False  # ``map(fs.rm, paths)``: the builtin calls what it is given
    return True


def _opened(expr, ctx: Context) -> str:
    """``builtins.open`` when ``expr`` is a name every binding of which is a file ``open()``
    returned (``with open(path) as f``, ``f = open(path)``), else ``""``."""
    bindings = ctx.lookup(expr.value) if isinstance(expr, cst.Name) else None
    if not bindings:
        return ""
    for binding in bindings:
        value = binding.value
        if binding.kind not in ("with", "assign") or not isinstance(value, cst.Call) or \
                (ctx.qualname(value.func) or ctx.builtin(value.func)) not in cat.FILE_OPENERS:
            return ""
    return "builtins.open"

