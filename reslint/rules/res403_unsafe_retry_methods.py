"""RES403 unsafe-retry-methods: a retry configuration that replays non-idempotent HTTP methods."""

from __future__ import annotations

import libcst as cst

from reslint.catalog import idempotency as cat
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan, Rule

WHY = "after a read error or a 5xx the server may already have acted, so replaying a POST or PATCH creates a " \
      "duplicate"


class UnsafeRetryMethods(Rule):
    code = "RES403"
    triggers = ("urllib3", "requests", "aiohttp_retry")
    fix_applicability = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.ctx.qualname(node.func)
        if qual == "urllib3.Retry":
            self._urllib3(node)
        elif qual in cat.AIOHTTP_RETRY_OPTIONS:
            self._aiohttp_retry(node, qual)
        elif qual == "aiohttp_retry.RetryClient":
            if not any(a.keyword is not None and a.keyword.value == "retry_options" for a in node.args) and \
                    not any(a.star for a in node.args):
                self.report(node, f"`RetryClient()` uses `ExponentialRetry()`, which retries every method, POST "
                                  f"and PATCH included: {WHY}; pass `retry_options=ExponentialRetry(methods="
                                  f"{{'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'}})`")

    def _urllib3(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is None:
                continue
            name = arg.keyword.value
            if name not in ("allowed_methods", "method_whitelist"):
                continue
            value = self.ctx.value_of(arg.value)
            if value is None or value is False or value == () or self._empty(arg.value):
                self.report(node, f"urllib3 `Retry({name}={_code(arg.value)})` retries every method, POST and PATCH "
                                  f"included: {WHY}; leave the default (idempotent methods only)",
                            fix=self._drop(node, name))
                return
            methods = self._methods(arg.value)
            # urllib3 compares method.upper() with the entries: only upper-case entries ever match
            unsafe = sorted(m for m in methods if m in cat.NON_IDEMPOTENT_METHODS)
            if unsafe:
                self.report(node, f"urllib3 `Retry({name}=...)` retries {', '.join(unsafe)}: {WHY}; retry "
                                  f"idempotent methods only, or send an Idempotency-Key",
                            fix=self._without(arg.value, unsafe))
                return

    def _aiohttp_retry(self, node: cst.Call, qual: str) -> None:
        arg = next((a for a in node.args if a.keyword is not None and a.keyword.value == "methods"), None)
        if arg is None:
            if any(a.star for a in node.args):
                return
            self.report(node, f"`{qual.rsplit('.', 1)[1]}` without `methods=` retries every method, POST and PATCH "
                              f"included: {WHY}; pass `methods={{'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'}}`")
            return
        unsafe = sorted(m for m in self._methods(arg.value) if m.upper() in cat.NON_IDEMPOTENT_METHODS)
        if unsafe:
            self.report(node, f"`{qual.rsplit('.', 1)[1]}(methods=...)` retries {', '.join(unsafe)}: {WHY}",
                        fix=self._without(arg.value, unsafe))

    def _empty(self, expr) -> bool:
        """``frozenset()``, ``set()``, ``[]``: an empty collection means every method too."""
        expr, _ = self.ctx.resolve(expr)
        if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Name):
            return expr.func.value in ("frozenset", "set", "tuple", "list")
        return isinstance(expr, (cst.List, cst.Tuple, cst.Set)) and not expr.elements

    def _methods(self, expr):
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._methods(expr.left) + self._methods(expr.right)  # DEFAULT_ALLOWED_METHODS | {"POST"}
        expr, scope = self.ctx.resolve(expr)
        if isinstance(expr, cst.Call) and expr.args and isinstance(expr.func, cst.Name) and \
                expr.func.value in ("frozenset", "set", "tuple", "list"):
            expr = expr.args[0].value
        if isinstance(expr, (cst.Set, cst.List, cst.Tuple)):
            values = [self.ctx.value_of(e.value, scope) for e in expr.elements if isinstance(e, cst.Element)]
            return [v for v in values if isinstance(v, str)]
        return []

    def _drop(self, call: cst.Call, name: str):
        from reslint.rules.fixes import remove_arg

        return FixPlan(f"Remove `{name}=` (retry idempotent methods only)", Applicability.SAFE,
                       ((call, remove_arg(call, name)),))

    def _without(self, expr, unsafe):
        """Remove the unsafe methods from a literal collection (safe: fewer replays)."""
        target = expr
        if isinstance(target, cst.Call) and target.args:
            target = target.args[0].value
        if not isinstance(target, (cst.Set, cst.List, cst.Tuple)):
            return None
        kept = [e for e in target.elements if not (isinstance(e, cst.Element) and
                                                   isinstance(self.ctx.value_of(e.value), str) and
                                                   self.ctx.value_of(e.value).upper() in cat.NON_IDEMPOTENT_METHODS)]
        if not kept:
            return None
        last = target.elements[-1]
        kept[-1] = kept[-1].with_changes(comma=last.comma)
        return FixPlan(f"Remove {', '.join(unsafe)} from the retried methods", Applicability.SAFE,
                       ((target, target.with_changes(elements=kept)),))


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)
