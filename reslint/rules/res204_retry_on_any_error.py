"""RES204 retry-on-any-error: a retry on every exception, or on errors a retry cannot fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.analysis.retry import RetryPolicy, _expressions
from reslint.catalog import retries as cat
from reslint.rules.retry_base import PolicyRule, retries

WHY = "bugs and client errors (4xx, bad input, auth) fail the same way on every attempt, so retrying only adds load " \
      "and delays the real error"


class RetryOnAnyError(PolicyRule):
    code = "RES204"

    def check(self, policy: RetryPolicy) -> None:
        if not retries(policy):
            return
        if policy.kind == "loop":
            self._loop(policy)
            return
        problem = self.problem(policy)
        if problem:
            self.report(policy.node, f"{policy.library} retry {problem}: {WHY}; retry only transient errors "
                                     f"(connection errors, timeouts, 429, 5xx)")

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

    def _raises_for_status(self, policy: RetryPolicy) -> bool:
        scope = self.ctx.retried.scope_of(policy)
        body = scope.node if scope is not None else None
        return body is not None and any(
            isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "raise_for_status"
            for n in _expressions(body))

    def _loop(self, policy: RetryPolicy) -> None:
        checks_status = policy.retried.checks_status
        for handler in policy.extra.get("handlers", ()):
            if handler.type is None:
                self.report(handler, f"retry loop catches everything with a bare `except:` (KeyboardInterrupt and "
                                     f"SystemExit too): {WHY}; catch the transient errors only")
                continue
            types = self.ctx.retries.exception_types(handler.type) or ()
            broad = [t for t in types if t in cat.CATCH_ALL]
            if broad:
                self.report(handler, f"retry loop catches `{broad[0]}`: {WHY}; catch the transient errors only")
                continue
            fatal = [t for t in types if t in cat.NON_TRANSIENT_ERRORS]
            if fatal:
                self.report(handler, f"retry loop retries `{fatal[0]}`, which no retry can fix: {WHY}")
                continue
            status = [t for t in types if t in cat.BROAD_HTTP_ERRORS]
            if status and not checks_status and policy.extra.get("raise_for_status"):
                self.report(handler, f"retry loop retries `{status[0]}` while `raise_for_status()` turns every 4xx "
                                     f"into one: {WHY}; check the status code before retrying")
