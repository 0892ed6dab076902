"""RES403 unsafe-retry-methods: a retry configuration that replays non-idempotent HTTP methods."""

from __future__ import annotations

import libcst as cst

from reslint.catalog import idempotency as cat
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan, Rule
from reslint.cstutil import source

WHY = "after a read error or a 5xx the server may already have acted, so replaying a POST or PATCH creates a " \
      "duplicate"


class UnsafeRetryMethods(Rule):
    code = "RES403"
    fix_applicability = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.ctx.qualname(node.func)
        if qual == "urllib3.Retry":
            self._urllib3(node)
        elif qual in cat.AIOHTTP_RETRY_OPTIONS:
            self._aiohttp_retry(node, qual)
        elif qual == cat.AIOHTTP_RETRY_CLIENT:
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
                self.report(node, f"urllib3 `Retry({name}={source(arg.value)})` retries every method, POST and PATCH "
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
        """What the option really replays (aiohttp_retry/client.py, 2.9.1): responses of the methods in
        ``methods`` (default: all) with a 5xx (``retry_all_server_errors``, default True), a status in
        ``statuses`` or a callback's yes; and exceptions in ``exceptions`` (default: none) for any method."""
        if any(a.star for a in node.args):
            return
        args = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        name = qual.rsplit(".", 1)[1]
        attempts = self.ctx.value_of(args["attempts"]) if "attempts" in args else \
            (self.ctx.value_of(node.args[0].value) if node.args and node.args[0].keyword is None
             else cat.AIOHTTP_RETRY_DEFAULT_ATTEMPTS)
        if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts <= 1:
            return  # one attempt: nothing is replayed
        problems, fix = [], None
        if self._retries_responses(args):
            arg = args.get("methods")
            if arg is None or self.ctx.value_of(arg) is None:
                problems.append("without `methods=` it retries every method after a 5xx, POST and PATCH included")
            else:
                unsafe = sorted(m for m in self._methods(arg) if m.upper() in cat.NON_IDEMPOTENT_METHODS)
                if unsafe:
                    problems.append(f"`methods=` retries {', '.join(unsafe)} after a 5xx")
                    fix = self._without(arg, unsafe)
        replayed = self._sent_exceptions(args.get("exceptions"))
        if replayed:
            problems.append(f"`exceptions=` retries {', '.join(f'`{e}`' for e in replayed)} for every method, "
                            f"POST and PATCH included (aiohttp_retry applies `methods=` to responses only)")
        if not problems:
            return
        advice = "pass `methods={'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'}`" if not replayed else \
            "list only errors raised before the request is sent (`aiohttp.ClientConnectorError`) in `exceptions=`, " \
            "or send an Idempotency-Key"
        self.report(node, f"`{name}`: {'; '.join(problems)}: {WHY}; {advice}", fix=fix)

    def _retries_responses(self, args) -> bool:
        """Whether some response is retried: a 5xx (``retry_all_server_errors`` not False), ``statuses`` or a callback."""
        if "retry_all_server_errors" not in args or self.ctx.value_of(args["retry_all_server_errors"]) is not False:
            return True
        statuses = args.get("statuses")
        if statuses is not None and self.ctx.value_of(statuses) is not None and not self._empty(statuses):
            return True
        callback = args.get("evaluate_response_callback")
        return callback is not None and self.ctx.value_of(callback) is not None

    def _sent_exceptions(self, expr):
        """The retried exceptions that can be raised after the request was sent (names), when all are known."""
        if expr is None:
            return []
        expr, scope = self._collection(expr)
        if expr is None:
            return []  # unknown: never reported
        names = []
        for element in expr.elements:
            qual = self.ctx.qualname(element.value, scope) if isinstance(element, cst.Element) else None
            if qual is None:
                return []
            names.append(qual)
        return [n for n in names if n not in cat.NOT_SENT_ERRORS]

    def _collection(self, expr):
        """(the literal collection behind ``expr``, its scope), following a name bound once and
        ``frozenset(...)``/``set``/``tuple``/``list`` (no argument: empty); ``None`` when unknown."""
        expr, scope = self.ctx.resolve(expr)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in _CONSTRUCTORS:
            if not expr.args:
                return cst.Tuple([]), scope
            expr, scope = self.ctx.resolve(expr.args[0].value, scope)
        return (expr if isinstance(expr, (cst.Set, cst.List, cst.Tuple)) else None), scope

    def _empty(self, expr) -> bool:
        """``frozenset()``, ``set()``, ``[]``: an empty collection means every method too."""
        literal, _ = self._collection(expr)
        return literal is not None and not literal.elements

    def _methods(self, expr):
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._methods(expr.left) + self._methods(expr.right)  # DEFAULT_ALLOWED_METHODS | {"POST"}
        literal, scope = self._collection(expr)
        if literal is None:
            return []
        values = [self.ctx.value_of(e.value, scope) for e in literal.elements if isinstance(e, cst.Element)]
        return [v for v in values if isinstance(v, str)]

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
        from reslint.rules.fixes import without_elements

        def unsafe_method(e) -> bool:
            value = self.ctx.value_of(e.value) if isinstance(e, cst.Element) else None
            return isinstance(value, str) and value.upper() in cat.NON_IDEMPOTENT_METHODS

        new = without_elements(target, unsafe_method)  # each kept method keeps its own comment
        if new is None:
            return None
        return FixPlan(f"Remove {', '.join(unsafe)} from the retried methods", Applicability.SAFE, ((target, new),))


#: builtins that turn an iterable into the collection of retried methods or exceptions
_CONSTRUCTORS = ("frozenset", "set", "tuple", "list")


