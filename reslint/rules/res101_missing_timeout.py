"""RES101 missing-timeout: a blocking call (or a client constructor) with no timeout."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.timeouts import MISSING, read_call_timeout
from reslint.diagnostics import Applicability
from reslint.catalog import trigger_modules
from reslint.rules.base import Rule
from reslint.rules.timeout_fixes import add_timeout_fix


class MissingTimeout(Rule):
    triggers = trigger_modules()
    code = "RES101"
    fix_applicability = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        reading = read_call_timeout(node, self.ctx)
        if reading is None or reading.state != MISSING:
            return
        spec = reading.spec
        what = "client" if spec.carrier else "call"
        if reading.unbounded:
            why = reading.reason
            if spec.category == "network":
                why += (", so one stuck server holds every call on it, and the workers running them, forever"
                        if spec.carrier else ", so one stuck server holds this call, and the worker running it, forever")
        else:
            why = f"{reading.reason}, above max-timeout ({self.settings.max_timeout:g} s)"
        param = spec.params[0].name
        self.report(
            node,
            f"`{spec.qualname}` {what} has no timeout: {why}; pass `{param}=`",
            fix=add_timeout_fix(node, reading, self.ctx),
        )
