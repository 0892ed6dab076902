"""Hand-rolled retry loops: ``for attempt in range(n)`` / ``while`` loops that catch and sleep.

The loop analysis (:mod:`reslint.analysis.loops`) reads their policies; this adapter holds
what is said and written about them: labels, advice and the sleep rewrite that adds jitter.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.cstutil import source
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, spell
from reslint.libraries.base import FixContext, Remedy, RetryAdapter
from reslint.model.policy import RetryPolicy


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
    """``sleep(d)`` → ``sleep(random.uniform(0, d))``: full jitter up to the same bound."""
    if not sleep.args or sleep.args[0].keyword is not None:
        return None
    spelled, imports = spell(fx.ctx, "random.uniform", fx.scope)
    if spelled is None:
        return None
    value = sleep.args[0].value
    drawn = cst.parse_expression(f"{spelled}(0, {source(value)})")
    new = sleep.with_changes(args=[sleep.args[0].with_changes(value=drawn), *sleep.args[1:]])
    return FixPlan("Sleep a random time up to the same bound (full jitter)", Applicability.SAFE, ((sleep, new),),
                   imports)


ADAPTER = HandRolled()
