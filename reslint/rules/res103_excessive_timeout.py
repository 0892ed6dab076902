"""RES103 excessive-timeout: a constant timeout above ``max-timeout``."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.timeouts import EXCESSIVE, read_call_timeout
from reslint.rules.base import Rule


class ExcessiveTimeout(Rule):
    code = "RES103"

    def visit_Call(self, node: cst.Call) -> None:
        reading = read_call_timeout(node, self.ctx)
        if reading is None or reading.state != EXCESSIVE:
            return
        limit = self.settings.max_timeout
        self.report(
            node,
            f"`{reading.spec.qualname}` waits up to {reading.seconds:g} s ({reading.reason}), above max-timeout "
            f"({limit:g} s): a slow dependency holds a connection and a worker that long; lower the timeout or "
            f"raise max-timeout for this code",
        )
