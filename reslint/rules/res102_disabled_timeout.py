"""RES102 disabled-timeout: a timeout switched off explicitly, or the no-op ``session.timeout = X``."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.timeouts import DISABLED, called_name, read_call_timeout, restores_socket_default, subscription
from reslint.catalog import NO_OP_ATTRIBUTES
from reslint.diagnostics import Applicability
from reslint.rules.base import Rule
from reslint.rules.timeout_fixes import replace_disabled_fix


class DisabledTimeout(Rule):
    code = "RES102"
    fix_applicability = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        reading = read_call_timeout(node, self.ctx)
        if reading is None or reading.state != DISABLED or restores_socket_default(node, reading, self.ctx):
            return
        if subscription(node, self.ctx):
            return  # an event stream a generator yields from: it waits between events on purpose
        self.report(
            node,
            f"`{called_name(node, reading.spec)}` timeout is disabled: {reading.reason}, so a stalled peer holds this call "
            f"forever; use a finite timeout",
            fix=replace_disabled_fix(reading, self.ctx),
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attr = target.target
            if not isinstance(attr, cst.Attribute):
                continue
            owner = self.ctx.type_of(attr.value)
            for no_op in NO_OP_ATTRIBUTES:
                if owner == no_op.type_qualname and attr.attr.value == no_op.attribute:
                    self.report(node, f"`{no_op.type_qualname}.{no_op.attribute} = ...` has no effect: {no_op.message}")
