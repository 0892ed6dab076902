"""Hand-rolled retries: ``for attempt in range(n)`` / ``while`` loops that catch and sleep, functions
that retry by calling themselves, and the project's own retry helpers built on such a loop.

The loop analysis (:mod:`reslint.analysis.loops`) and :mod:`reslint.analysis.helpers` read their
policies; these adapters hold what is said and written about them: labels, advice and the sleep
rewrite that adds jitter.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

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


class Polling(HandRolled):
    """A hand-rolled loop that waits for a condition (DESIGN "Polls are not retries"): it checks a
    remote call's answer and sleeps until the answer says done, catching no fault."""

    name = "poll"

    label = "hand-rolled loop"
    cap_label = "hand-rolled poll"
    write_label = "a hand-rolled poll"
    layer_label = "poll loop"


class Recursive(HandRolled):
    """A function that retries by calling itself from an ``except`` handler (``push(batch, attempt + 1)``)."""

    name = "recursion"

    label = "retry by recursion"
    cap_label = "retry by recursion"
    write_label = "a retry by recursion"
    layer_label = "recursive retry"

    advice_text = {
        Remedy.TIME_CAP: "pass a deadline computed before the first call and stop once `time.monotonic()` "
                         "passes it",
        Remedy.BOUNDS: "compare the attempt counter with a limit before calling again",
    }


class Requeued(Recursive):
    """A task that retries by putting itself on its queue again from an ``except`` handler, with an
    attempt counter (``send_webhook.delay(url, attempt + 1)``): each attempt is a run of the task,
    and nobody waits for the next one."""

    name = "re-enqueue"
    queued = True

    label = "task re-enqueue retry"
    cap_label = "task re-enqueue retry"
    write_label = "a task that queues itself again"
    layer_label = "task re-enqueue retry"

    advice_text = {
        Remedy.TIME_CAP: "pass the first attempt's time on and stop queueing the task once the retries have "
                         "taken long enough",
        Remedy.BOUNDS: "compare the attempt counter with a limit before queueing the task again",
        Remedy.BACKOFF: "queue it again with a jittered, growing delay (the queue's countdown or delay option)",
    }


class ProjectHelper(RetryAdapter):
    """A retry helper of the project (a decorator, a decorator factory or a function that retries the
    callable it is given), inferred from its body; one per helper, named after it. Its use sites
    are retried scopes; its loop's own faults are the loop's findings, in the helper."""

    name = "helper"
    reports_faults = False

    def __init__(self, helper: str, retries_coroutines: bool = True):
        self.helper = helper
        self.retries_coroutines = retries_coroutines

    @property
    def label(self) -> str:
        return f"the `{self.helper}` retry helper"

    @property
    def cap_label(self) -> str:
        return f"`{self.helper}` retry helper"

    @property
    def write_label(self) -> str:
        return f"the `{self.helper}` retry helper"

    @property
    def layer_label(self) -> str:
        return f"{self.helper} retry"

    def read(self, site, reader):  # pragma: no cover - helpers are read by reslint.analysis.helpers
        return None


class DeclaredHelper(ProjectHelper):
    """A retry helper the project declares in ``[tool.reslint.catalog]``: its code is not read, so
    the retry rules judge what the declaration says at each use."""

    name = "catalog"
    reports_faults = True


_HELPERS: Dict[Tuple[str, bool, bool], ProjectHelper] = {}


def helper_adapter(name: str, declared: bool = False, sync_wrapper: bool = False) -> ProjectHelper:
    """The adapter of the project's retry helper ``name`` (one per name and kind), inferred from its
    body or ``declared`` in the catalog; ``sync_wrapper``: a decorator whose wrapper calls the
    decorated function without awaiting it, which retries no ``async def`` function."""
    key = (name, declared, sync_wrapper)
    if key not in _HELPERS:
        _HELPERS[key] = DeclaredHelper(name) if declared else ProjectHelper(name, retries_coroutines=not sync_wrapper)
    return _HELPERS[key]


ADAPTER = HandRolled()
POLLING = Polling()
RECURSIVE = Recursive()
REQUEUED = Requeued()
