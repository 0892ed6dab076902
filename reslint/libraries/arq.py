"""arq: a job (an ``async def job(ctx, ...)``) that raises ``arq.Retry(defer=...)`` is run again;
the facts :mod:`reslint.analysis.task_retries` reads such a job's policy with.

Facts from arq/worker.py (0.25 to 0.28): ``Retry(defer=None)`` (seconds, or a ``timedelta``; none:
at once) asks the worker to run the job again, while ``ctx["job_try"]`` (1 on the first run) is
at most ``max_tries``: the worker's (``Worker(max_tries=5)``, usually set on the project's
``WorkerSettings``) or the function's (``func(coroutine, max_tries=...)``), neither of which the
job's body says, so the attempts are unknown there. Only ``Retry`` (and a cancelled or timed-out
run, ``RetryJob``) retries: any other exception fails the job. The delay is never drawn at random;
there is no time cap and no ``Retry-After``.
"""

from __future__ import annotations

from typing import Optional

from reslint.libraries.base import FixContext, Remedy, RetryAdapter
from reslint.model.policy import RetryPolicy
from reslint.semantics.edits import FixPlan

#: arq/__init__.py re-exports arq/worker.py's ``Retry``
RETRY_CLASSES = ("arq.Retry", "arq.worker.Retry")
#: ``Retry.__init__(self, defer=None)``
RETRY_PARAMETERS = ("defer",)
#: the job context's try counter: ``ctx["job_try"]`` is 1 on the first run (arq/worker.py ``run_job``)
TRY_KEY = "job_try"
#: ``Worker(max_tries=5)``: the default a project's WorkerSettings usually sets
DEFAULT_MAX_TRIES = 5


class ArqRetry(RetryAdapter):
    name = "arq"
    label = "arq `Retry`"
    cap_label = "arq `Retry`"
    write_label = "an arq job that raises `Retry`"
    layer_label = "arq job retry"
    queued = True
    trigger_modules = ("arq",)
    entry_points = RETRY_CLASSES

    def read(self, site, reader):  # pragma: no cover - read by reslint.analysis.task_retries
        return None

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        return None

    advice_text = {
        Remedy.JITTER: "draw the delay at random, e.g. `Retry(defer=random.uniform(0, 2 ** ctx[\"job_try\"]))` "
                       "(full jitter)",
        Remedy.BACKOFF: "give `Retry(defer=...)` a growing delay, e.g. `defer=random.uniform(0, 2 ** ctx[\"job_try\"])`",
        Remedy.TIME_CAP: "lower `max_tries` or the delays (arq has no total-time cap)",
    }


ADAPTER = ArqRetry()
