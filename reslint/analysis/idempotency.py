"""Which calls are non-idempotent writes, which keys they carry, and where keys are minted.

One answer for RES401 and RES402: :meth:`Idempotency.write_kind` says whether a
call is a write that a replay duplicates (HTTP POST/PATCH, SQL INSERT without
conflict handling or ``SET x = x + ...``, payments, mail, messages, AWS
create/publish/invoke); :meth:`Idempotency.keys` finds the idempotency keys the
call sends (keyword arguments, header or body dicts, helpers that build them);
:meth:`Idempotency.fresh_keys` finds the calls that mint a new key on every
attempt (``uuid4()``, ``secrets.token_*``, time, random) reached from a key.
Catalog facts: :mod:`reslint.catalog.idempotency`.
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from reslint.analysis.retry import _expressions
from reslint.catalog import idempotency as cat
from reslint.context import Context

_DICT_PARAMS = ("headers", "json", "data", "params", "options", "extra_headers", "body")
_UPDATE_INCREMENT = re.compile(r"\bSET\b.*?\b(\w+)\s*=\s*\1\s*[-+]", re.IGNORECASE | re.DOTALL)


def _string(node) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001
            return None
        return value if isinstance(value, str) else None
    return None


class Idempotency:
    """Per-file idempotency analysis (memoised on the context's cache)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._scope_nodes: Dict[int, Set[int]] = {}

    # -- writes ------------------------------------------------------------------------
    def write_kind(self, call: cst.Call) -> Optional[str]:
        """A short description (``HTTP POST``, ``SQL INSERT``…) when ``call`` is a write that a
        replay duplicates, else ``None``."""
        ctx = self.ctx
        qual = ctx.qualname(call.func)
        if qual in cat.HTTP_CALLS:
            method = cat.HTTP_CALLS[qual] or self._first_string(call)
            if isinstance(method, str) and method.upper() in cat.NON_IDEMPOTENT_METHODS:
                return f"HTTP {method.upper()}"
            return None
        if qual in cat.WRITES:
            return f"`{qual}`"
        if not isinstance(call.func, cst.Attribute):
            return None
        method = call.func.attr.value
        if method in cat.SQL_EXECUTE_METHODS:
            return self._sql(call)
        if qual and qual.startswith("stripe.") and method in cat.STRIPE_CREATE_METHODS:
            return f"Stripe `{qual}`"
        base = self._chain_base(call.func)
        constructor = ctx.constructor_of(base) if base is not None else None
        built = ctx.qualname(constructor.func) if constructor is not None else None
        if built == "stripe.StripeClient" and method in cat.STRIPE_CREATE_METHODS:
            return f"Stripe `{method}`"
        if ctx.type_of(base) == "botocore.client.BaseClient" if base is not None else False:
            if (method in cat.AWS_WRITES or method.startswith(cat.AWS_WRITE_PREFIXES)) and \
                    not any(marker in method for marker in cat.AWS_IDEMPOTENT_MARKERS):
                return f"AWS `{method}`"
        return None

    def _first_string(self, call: cst.Call) -> Optional[str]:
        for arg in call.args:
            if arg.keyword is None and not arg.star:
                return self.ctx.string_text(arg.value)
            if arg.keyword is not None and arg.keyword.value == "method":
                return self.ctx.string_text(arg.value)
        return None

    def _sql(self, call: cst.Call) -> Optional[str]:
        if not call.args or call.args[0].keyword is not None:
            return None
        statement = call.args[0].value
        if isinstance(statement, cst.Call) and statement.args:  # sqlalchemy text("...")
            qual = self.ctx.qualname(statement.func) or ""
            if qual.endswith(".text"):
                statement = statement.args[0].value
        text = self.ctx.string_text(statement)
        if not text:
            return None
        upper = " ".join(text.upper().split())
        if upper.startswith("INSERT") and not any(clause in upper for clause in cat.SQL_CONFLICT_CLAUSES):
            return "SQL INSERT"
        if upper.startswith("UPDATE") and _UPDATE_INCREMENT.search(text):
            return "SQL UPDATE that increments"
        return None

    @staticmethod
    def _chain_base(func: cst.Attribute):
        base = func.value
        while isinstance(base, (cst.Attribute, cst.Call)):
            base = base.value if isinstance(base, cst.Attribute) else base.func
        return base

    # -- keys ----------------------------------------------------------------------------
    def keys(self, call: cst.Call) -> List[Tuple[cst.BaseExpression, object, str]]:
        """``(expression, scope, helper)`` for each key ``call`` sends; ``helper`` names the
        function that built it when it comes from one (``headers=_write_headers()``)."""
        out: List[Tuple[cst.BaseExpression, object, str]] = []
        for arg in call.args:
            if arg.keyword is None:
                continue
            name = arg.keyword.value
            if cat.normalise(name) in cat.KEY_NAMES:
                out.append((arg.value, self.ctx.scope, ""))
            elif name in _DICT_PARAMS:
                out.extend(self._dict_keys(arg.value, self.ctx.scope, 0, ""))
        return out

    def _dict_keys(self, expr, scope, depth: int, via: str) -> Iterator[Tuple[cst.BaseExpression, object, str]]:
        if depth > 4:
            return
        if isinstance(expr, cst.Name):
            for binding in self.ctx.lookup(expr.value, scope) or ():
                if binding.kind == "assign" and binding.value is not None:
                    yield from self._dict_keys(binding.value, binding.scope, depth + 1, via)
            return
        if isinstance(expr, cst.Call):
            for value, inner in self._returns(expr, scope):
                name = expr.func.value if isinstance(expr.func, cst.Name) else ""
                yield from self._dict_keys(value, inner, depth + 1, via or name)
            return
        if isinstance(expr, cst.Dict):
            for element in expr.elements:
                if isinstance(element, cst.DictElement):
                    key = _string(element.key)
                    if key is not None and cat.normalise(key) in cat.KEY_NAMES:
                        yield element.value, scope, via

    def _returns(self, call: cst.Call, scope) -> Iterator[Tuple[cst.BaseExpression, object]]:
        """The returned expressions of a function of this module that ``call`` calls."""
        if not isinstance(call.func, cst.Name):
            return
        found = self.ctx.lookup(call.func.value, scope)
        if not found or len(found) != 1 or found[0].kind != "def":
            return
        func: cst.FunctionDef = found[0].node
        inner = self.ctx.model.scopes.get(id(func.body), scope)
        for node in _expressions(func.body):
            if isinstance(node, cst.Return) and node.value is not None:
                yield node.value, inner

    # -- fresh keys ------------------------------------------------------------------------
    def fresh_keys(self, expr, retry_scope, scope=None, depth: int = 0, via: str = "") -> List[Tuple[cst.Call, str]]:
        """Key-minting calls reached from ``expr`` that run again on every attempt of
        ``retry_scope``: in the expression itself, in a local bound inside the retried code,
        or in a helper the retried code calls (``via`` names that helper)."""
        scope = scope or self.ctx.scope
        if depth > 6:
            return []
        out: List[Tuple[cst.Call, str]] = []
        for node in _expressions(expr):
            if isinstance(node, cst.Call):
                qual = self.ctx.qualname(node.func, scope)
                if qual in cat.KEY_GENERATORS:
                    out.append((node, via))
                elif isinstance(node.func, cst.Name):
                    for value, inner in self._returns(node, scope):
                        out.extend(self.fresh_keys(value, retry_scope, inner, depth + 1, via or node.func.value))
            elif isinstance(node, cst.Name):
                for binding in self.ctx.lookup(node.value, scope) or ():
                    if binding.kind == "assign" and binding.value is not None and \
                            self.inside(binding.node, retry_scope):
                        out.extend(self.fresh_keys(binding.value, retry_scope, binding.scope, depth + 1, via))
        return out

    def inside(self, node, retry_scope) -> bool:
        """Whether ``node`` lies in the retried code of ``retry_scope``."""
        key = id(retry_scope)
        if key not in self._scope_nodes:
            self._scope_nodes[key] = {id(n) for n in _expressions(retry_scope.node)}
        return id(node) in self._scope_nodes[key]


def analysis(ctx: Context) -> Idempotency:
    """The file's :class:`Idempotency` (one per context)."""
    key = ("idempotency", 0)
    if key not in ctx.cache:
        ctx.cache[key] = Idempotency(ctx)
    return ctx.cache[key]
