"""RES204 retry-on-any-error: a retry on every exception, or on errors a retry cannot fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.analysis.retry import RetryPolicy, _expressions
from reslint.analysis.timeouts import read_call_timeout
from reslint.catalog import retries as cat
from reslint.cstutil import add_keyword_arg
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import spell
from reslint.rules.retry_base import PolicyRule, library_name, retries

WHY = "bugs and client errors (4xx, bad input, auth) fail the same way on every attempt, so retrying only adds load " \
      "and delays the real error"


class RetryOnAnyError(PolicyRule):
    code = "RES204"
    fix_applicability = Applicability.UNSAFE

    def check(self, policy: RetryPolicy) -> None:
        if not retries(policy):
            return
        if policy.kind == "loop":
            self._loop(policy)
            return
        problem = self.problem(policy)
        if problem:
            self.report(policy.node, f"{library_name(policy)} {problem}: {WHY}; retry only transient errors "
                                     f"(connection errors, timeouts, 429, 5xx)", fix=self._narrow(policy))

    def problem(self, policy: RetryPolicy) -> Optional[str]:
        """Why what the policy retries is too broad, or ``None``."""
        retried = policy.retried
        if policy.library in ("urllib3", "requests"):
            bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
            return f"retries client errors ({', '.join(map(str, bad))} in status_forcelist)" if bad else None
        if retried.kind == "any":
            return "retries every exception" + (" (the default predicate)" if retried.default else "")
        if retried.kind not in ("types", "function"):
            return None
        types = set(retried.types)
        if types & cat.CATCH_ALL:
            return f"retries `{sorted(types & cat.CATCH_ALL)[0]}`, that is every error"
        fatal = sorted(types & cat.NON_TRANSIENT_ERRORS)
        if fatal:
            return f"retries `{fatal[0]}`, which no retry can fix"
        bad = sorted(s for s in retried.statuses if 400 <= s < 500 and s not in cat.TRANSIENT_4XX)
        if bad and retried.checks_status:
            return f"retries HTTP {', '.join(map(str, bad))}"
        status_types = sorted(types & cat.STATUS_ERRORS)
        if status_types and not retried.checks_status:
            return f"retries every `{status_types[0]}` (4xx included) with no status check"
        broad = sorted(types & cat.BROAD_HTTP_ERRORS)
        if broad and not retried.checks_status and self._raises_for_status(policy):
            return f"retries `{broad[0]}` while `raise_for_status()` turns every 4xx into one"
        return None

    def _transient(self, policy: RetryPolicy):
        """(``(requests.ConnectionError, requests.Timeout)``, imports) for the one HTTP library the
        retried code calls, or None. A guess at what is transient, hence an unsafe fix."""
        scope = self.ctx.retried.scope_of(policy)
        if scope is None:
            return None
        libraries = set()
        for node in _expressions(scope.node):
            if isinstance(node, cst.Call):
                reading = read_call_timeout(node, self.ctx)
                if reading is not None:
                    libraries.add(reading.spec.qualname.split(".")[0])
        known = libraries & set(cat.TRANSIENT_ERRORS)
        if len(known) != 1 or libraries - known:
            return None
        names, imports = [], ()
        for dotted in cat.TRANSIENT_ERRORS[known.pop()]:
            spelled, needed = spell(self.ctx, dotted)
            if spelled is None:
                return None
            names.append(spelled)
            imports += tuple(i for i in needed if i not in imports)
        text = names[0] if len(names) == 1 else f"({', '.join(names)})"
        return text, imports

    def _narrow(self, policy: RetryPolicy):
        transient = self._transient(policy)
        if transient is None or policy.call is None:
            return None
        text, imports = transient
        call, retried = policy.call, policy.retried
        if policy.library == "tenacity" and retried.default:
            predicate, more = spell(self.ctx, "tenacity.retry_if_exception_type")
            if predicate is None:
                return None
            value = cst.parse_expression(f"{predicate}({text})")
            return FixPlan(f"Retry only `{text}`", Applicability.UNSAFE,
                           ((call, add_keyword_arg(call, "retry", value)),), imports + more)
        node = retried.node
        if policy.library == "tenacity" and isinstance(node, cst.Call) and len(node.args) == 1:
            node = node.args[0].value
        if isinstance(node, (cst.Name, cst.Attribute)) and set(retried.types) & cat.CATCH_ALL:
            return FixPlan(f"Retry only `{text}`", Applicability.UNSAFE, ((node, cst.parse_expression(text)),),
                           imports)
        return None

    def _raises_for_status(self, policy: RetryPolicy) -> bool:
        scope = self.ctx.retried.scope_of(policy)
        body = scope.node if scope is not None else None
        return body is not None and any(
            isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "raise_for_status"
            for n in _expressions(body))

    def _loop(self, policy: RetryPolicy) -> None:
        checks_status = policy.retried.checks_status
        for handler in policy.extra.get("handlers", ()):
            if _filters(handler):
                continue  # catches broadly, then re-raises what it does not retry: a filter
            if handler.type is None:
                self.report(handler, f"retry loop catches everything with a bare `except:` (KeyboardInterrupt and "
                                     f"SystemExit too): {WHY}; catch the transient errors only")
                continue
            types = self.ctx.retries.exception_types(handler.type) or ()
            broad = [t for t in types if t in cat.CATCH_ALL]
            if broad:
                fix = None
                transient = self._transient(policy)
                if transient is not None and isinstance(handler.type, (cst.Name, cst.Attribute)):
                    fix = FixPlan(f"Catch only `{transient[0]}`", Applicability.UNSAFE,
                                  ((handler.type, cst.parse_expression(transient[0])),), transient[1])
                self.report(handler, f"retry loop catches `{broad[0]}`: {WHY}; catch the transient errors only",
                            fix=fix)
                continue
            fatal = [t for t in types if t in cat.NON_TRANSIENT_ERRORS]
            if fatal:
                self.report(handler, f"retry loop retries `{fatal[0]}`, which no retry can fix: {WHY}")
                continue
            status = [t for t in types if t in cat.BROAD_HTTP_ERRORS]
            if status and not checks_status and policy.extra.get("raise_for_status"):
                self.report(handler, f"retry loop retries `{status[0]}` while `raise_for_status()` turns every 4xx "
                                     f"into one: {WHY}; check the status code before retrying")


def _filters(handler: cst.ExceptHandler) -> bool:
    """``except Exception as exc: if should_retry(exc): ... else: raise``: the handler tests the
    caught exception and re-raises the rest, so it does not retry everything."""
    if handler.name is None or not isinstance(handler.name.name, cst.Name):
        return False
    name = handler.name.name.value
    for node in _expressions(handler.body):
        if isinstance(node, cst.If) and any(isinstance(n, cst.Name) and n.value == name
                                            for n in _expressions(node.test)):
            if any(isinstance(n, cst.Raise) for n in _expressions(node)):
                return True
    return False
