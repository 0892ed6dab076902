"""RES103 excessive-timeout: a constant timeout above its category's ``max-timeout``."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.timeouts import EXCESSIVE, called_name, read_call_timeout
from reslint.rules.base import Rule
from reslint.rules.timeout_fixes import ceiling_name


class ExcessiveTimeout(Rule):
    code = "RES103"

    def visit_Call(self, node: cst.Call) -> None:
        reading = read_call_timeout(node, self.ctx)
        if reading is None or reading.state != EXCESSIVE:
            return
        category = reading.spec.category
        limit = self.settings.max_timeout_for(category)
        name = ceiling_name(category)
        self.report(
            node,
            f"`{called_name(node, reading.spec)}` allows {reading.seconds:g} s ({reading.reason}), above {name} "
            f"({limit:g} s): a dependency that stops answering holds a connection and a worker that long before "
            f"the call fails; lower the timeout or raise {name} for this code",
        )
