"""celery: a task with ``autoretry_for=`` (``@app.task(...)``, ``@shared_task(...)``).

Facts from celery/app/task.py and celery/app/autoretry.py (5.x): ``max_retries=3`` (``None``:
forever) and ``default_retry_delay=180`` s are task attributes; ``retry_backoff`` (False) turns
on exponential waits of ``factor * 2 ** (k - 1)`` s (``True`` is a factor of 1), capped by
``retry_backoff_max`` (600 s) and drawn with full jitter unless ``retry_jitter=False``. There is
no time cap, and ``Retry-After`` is never read. A task without ``autoretry_for`` runs once.
"""

from __future__ import annotations

from typing import Optional

from reslint.semantics.edits import FixPlan
from reslint.libraries.base import FixContext, Remedy, RetryAdapter, Site, remove_keyword_fix, roles
from reslint.model.policy import Jitter, RetryPolicy, Role, Wait, WaitShape, types_or_unknown
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, clamp, is_number, mul, scaled_power

#: celery/app/task.py: max_retries=3, default_retry_delay=180, retry_backoff_max=600, retry_jitter=True
DEFAULTS = {"max_retries": 3, "default_retry_delay": 180.0, "retry_backoff_max": 600.0, "retry_jitter": True}
#: what the reader takes from ``task(...)``: options the decorators take through ``**options``, some
#: task attributes (celery/app/task.py), the others read by celery/app/autoretry.py
TASK_ATTRIBUTES = ("max_retries", "default_retry_delay")
AUTORETRY_OPTIONS = ("autoretry_for", "retry_backoff", "retry_backoff_max", "retry_jitter")


class Celery(RetryAdapter):
    name = "celery"
    # `app.task` resolves to celery.Celery.task
    spellings = roles("celery.shared_task", "celery.Celery.task", role=Role.DECORATOR)
    trigger_modules = ("celery",)
    forwarded = {qualname: TASK_ATTRIBUTES + AUTORETRY_OPTIONS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        call, scope = site.call, site.scope
        args = Args(call)
        if call is None or "autoretry_for" not in args:
            return None  # a task without autoretry_for runs once
        if args.star:
            return self.policy(site)
        retries = reader.count(args, "max_retries", DEFAULTS["max_retries"], scope)
        autoretry = args.expr("autoretry_for")
        return self.policy(site, attempts=retries + 1 if is_number(retries) else retries, max_delay_s=None,
                           wait=self._wait(reader, args, scope),
                           retried=types_or_unknown(reader.exception_types(autoretry, scope), autoretry))

    def _wait(self, reader: PolicyReader, args: Args, scope) -> Wait:
        backoff = reader.given(args, "retry_backoff", False, scope)
        jitter_on = reader.given(args, "retry_jitter", True, scope)
        if backoff is False or backoff is None or backoff == 0:
            delay = reader.number(args, "default_retry_delay", DEFAULTS["default_retry_delay"], scope=scope)
            return Wait(WaitShape.SCHEDULE, Jitter.NO, lambda k: delay, args.arg("retry_backoff"))
        if backoff is UNKNOWN or jitter_on is UNKNOWN:
            return Wait.unknown(args.arg("retry_backoff"))
        cap = reader.number(args, "retry_backoff_max", DEFAULTS["retry_backoff_max"], scope=scope)
        # celery/utils/time.py get_exponential_backoff_interval: factor * 2 ** retries, with an int factor
        factor = 1.0 if backoff is True else float(max(1, int(backoff)))
        return Wait(WaitShape.SCHEDULE, Jitter.YES if jitter_on else Jitter.NO,
                    lambda k: clamp(mul(factor, scaled_power(2.0, k - 1)), None, cap),
                    args.arg("retry_jitter") or args.arg("retry_backoff"))

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        if remedy is Remedy.JITTER:
            return remove_keyword_fix(policy.call, "retry_jitter",
                                      "Remove `retry_jitter=False` (celery jitters backoff by default)")
        return super().fix(remedy, policy, fx, **params)

    advice_text = {
        Remedy.JITTER: "keep `retry_jitter=True` with `retry_backoff`",
        Remedy.TIME_CAP: "lower `max_retries`/`retry_backoff_max` (celery has no total-time cap)",
        Remedy.BOUNDS: "set `max_retries=` to a number (None means forever)",
    }


ADAPTER = Celery()
