"""RES403 unsafe-retry-methods: a retry configuration that replays non-idempotent HTTP methods.

What a configuration replays is its library's business: the adapter of the call answers
(:func:`reslint.analysis.replays.unsafe_replay`); the rule says why it hurts.
"""

from __future__ import annotations

import libcst as cst

from reslint.analysis.replays import unsafe_replay
from reslint.diagnostics import Applicability
from reslint.rules.base import Rule

WHY = "after a read error or a 5xx the server may already have acted, so replaying a POST or PATCH creates a " \
      "duplicate"


class UnsafeRetryMethods(Rule):
    code = "RES403"
    fix_applicability = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        found = unsafe_replay(node, self.ctx)
        if found is not None:
            self.report(found.node, f"{found.what}: {WHY}; {found.advice}", fix=found.fix)
