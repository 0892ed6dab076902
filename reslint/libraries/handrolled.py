"""Hand-rolled retry loops: ``for attempt in range(n)`` / ``while`` loops that catch and sleep.

The loop analysis (:mod:`reslint.analysis.loops`) reads their policies; this adapter holds
what is said and written about them: labels, advice and the sleep rewrite that adds jitter.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.cstutil import format_seconds, source
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, copyable, spell
from reslint.libraries.base import FixContext, Remedy, RetryAdapter
from reslint.model.policy import RetryPolicy
from reslint.values import is_number


class HandRolled(RetryAdapter):
    name = "loop"

    label = "hand-rolled retry loop"
    cap_label = "hand-rolled retry"
    write_label = "a hand-rolled retry loop"
    layer_label = "retry loop"

    def read(self, site, reader):  # pragma: no cover - loops are read by the loop analysis
        return None

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        if remedy is Remedy.JITTER:
            return _jittered_sleep(params["sleep"], fx)
        return None

    advice_text = {
        Remedy.TIME_CAP: "compare `time.monotonic()` with a deadline computed before the loop",
        Remedy.BOUNDS: "count attempts or compare `time.monotonic()` with a deadline",
    }


def _jittered_sleep(sleep: cst.Call, fx: FixContext) -> Optional[FixPlan]:
    """Jitter that keeps the loop's total wait.

    A constant sleep ``sleep(c)`` becomes ``sleep(random.uniform(c/2, 3c/2))``: the same mean,
    so a loop whose attempts are counted from a time budget (``range(deadline // 60)``, a wait
    for a service to come up) still waits as long; full jitter ``uniform(0, c)`` would halve
    it. A growing backoff (``2 ** attempt``) gets full jitter up to the same bound, the usual
    remedy, which never exceeds the cap the code set (``min(2 ** attempt, 30)``)."""
    if not sleep.args or sleep.args[0].keyword is not None:
        return None
    spelled, imports = spell(fx.ctx, "random.uniform", fx.scope)
    if spelled is None:
        return None
    value = sleep.args[0].value
    constant = fx.ctx.value_of(value, fx.scope)
    if is_number(constant) and isinstance(value, (cst.Integer, cst.Float)):
        low, high = format_seconds(constant / 2), format_seconds(round(constant * 1.5, 6))
        drawn, message = f"{spelled}({low}, {high})", f"Sleep a random time around the same mean ({low} to {high} s)"
    elif is_number(constant) and copyable(value):
        text = source(value)
        drawn, message = f"{spelled}({text} / 2, {text} * 1.5)", "Sleep a random time around the same mean (±50 %)"
    elif is_number(constant):
        return None  # the expression would be evaluated twice
    else:
        drawn, message = f"{spelled}(0, {source(value)})", "Sleep a random time up to the same bound (full jitter)"
    new = sleep.with_changes(args=[sleep.args[0].with_changes(value=cst.parse_expression(drawn)), *sleep.args[1:]])
    return FixPlan(message, Applicability.SAFE, ((sleep, new),), imports)


ADAPTER = HandRolled()
