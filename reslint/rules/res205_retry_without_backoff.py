"""RES205 retry-without-backoff: attempts with no wait between them."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.retry import RetryPolicy
from reslint.cstutil import add_keyword_arg, source
from reslint.diagnostics import Applicability
from reslint.rules.base import FixPlan
from reslint.rules.fixes import spell
from reslint.rules.retry_base import PolicyRule, library_name, retries

WHY = "immediate retries hit a struggling service again at once and multiply its load exactly when it is " \
      "overloaded"


class RetryWithoutBackoff(PolicyRule):
    code = "RES205"
    fix_applicability = Applicability.SAFE

    def check(self, policy: RetryPolicy) -> None:
        if not policy.wait.zero or not retries(policy) or policy.connect_only:
            return
        if policy.library in ("urllib3", "requests") and not policy.status_retries:
            return  # immediate connect retries are urllib3's normal behaviour; status retries need backoff
        if policy.kind == "loop":
            if _races_only(policy):
                return  # a lost race (duplicate key, conflict) is retried at once on purpose
            self.report(policy.node, f"hand-rolled retry loop retries with no sleep between attempts: {WHY}; sleep a "
                                     f"jittered, growing delay before the next attempt")
            return
        self.report(policy.node, f"{library_name(policy)} has no wait between attempts: {WHY}; "
                                 f"{_advice(policy.library)}", fix=self._fix(policy))

    def _fix(self, policy: RetryPolicy):
        call = policy.call
        if call is None:
            return None
        if policy.library == "tenacity" and not any(a.keyword is not None and a.keyword.value == "wait"
                                                    for a in call.args):
            spelled, imports = spell(self.ctx, "tenacity.wait_random_exponential")
            if spelled is None:
                return None
            value = cst.parse_expression(f"{spelled}(multiplier=0.5, max=10)")
            return FixPlan(f"Add `wait={spelled}(multiplier=0.5, max=10)`", Applicability.SAFE,
                           ((call, add_keyword_arg(call, "wait", value)),), imports)
        if policy.library == "urllib3" and not any(a.keyword is not None and a.keyword.value == "backoff_factor"
                                                   for a in call.args):
            from reslint.project import pinned_below

            new = add_keyword_arg(call, "backoff_factor", cst.Float("0.5"))
            if pinned_below(self.settings.root, "urllib3", 2):  # backoff_jitter exists from urllib3 2.0 on
                return FixPlan("Add `backoff_factor=0.5`", Applicability.SAFE, ((call, new),))
            new = add_keyword_arg(new, "backoff_jitter", cst.Float("0.5"))
            return FixPlan("Add `backoff_factor=0.5, backoff_jitter=0.5` (urllib3 >= 2.0)", Applicability.SAFE,
                           ((call, new),))
        return None


def _advice(library: str) -> str:
    return {
        "tenacity": "pass `wait=wait_random_exponential(...)` (tenacity's default is `wait_none`)",
        "urllib3": "set `backoff_factor` (and `backoff_jitter`)",
        "retry": "set `delay=` and `backoff=`",
        "retrying": "set `wait_exponential_multiplier=` and `wait_jitter_max=`",
    }.get(library, "wait a jittered, growing delay between attempts")


#: exception names of lost races (a concurrent insert, an optimistic-lock conflict), where an immediate
#: retry is the right thing and backoff buys nothing
_RACE_WORDS = ("Duplicate", "Conflict", "Integrity", "Concurrent", "StaleData", "Deadlock")


def _races_only(policy: RetryPolicy) -> bool:
    names = []
    for handler in policy.extra.get("handlers", ()):
        if handler.type is None:
            return False
        text = source(handler.type)
        names.extend(part.strip() for part in text.strip("()").split(",") if part.strip())
    return bool(names) and all(any(word in n.rsplit(".", 1)[-1] for word in _RACE_WORDS) for n in names)
