"""huey: a task with ``retries=`` (``@huey.task(retries=3, retry_delay=10)``, ``@huey.periodic_task``,
and the Django integration's ``@db_task``/``@task``).

Facts from huey/api.py (2.x and 3.x): ``Huey.task(retries=0, retry_delay=0, retry_backoff=0, ...)``
and ``Huey.periodic_task(validate_datetime, retries=0, retry_delay=0, retry_backoff=0, ...)``; a
task that raises any exception is queued again while it has retries left (``Huey._execute``:
``except Exception``; only ``CancelExecution(retry=False)`` stops it), after ``retry_delay``
seconds (none: at once); when ``retry_backoff`` is set, each retry multiplies the delay by it
(``Huey._requeue_task``). The delays are never drawn at random; there is no time cap and no
``Retry-After``. huey/contrib/djhuey/__init__.py: ``task = HUEY.task``, ``periodic_task =
HUEY.periodic_task`` (``HUEY``: the project's instance, also imported by that name), and
``db_task``/``db_periodic_task`` pass their arguments to them.
"""

from __future__ import annotations

from typing import Optional

from reslint.libraries.base import Remedy, RetryAdapter, Site, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, is_number, mul, scaled_power

#: huey/api.py Huey.task / Huey.periodic_task
DEFAULTS = {"retries": 0, "retry_delay": 0.0, "retry_backoff": 0.0}
KEYWORDS = ("retries", "retry_delay", "retry_backoff")
#: huey/__init__.py: the Huey classes a project builds its instance from (huey/api.py)
HUEY_CLASSES = tuple(f"huey.{name}" for name in (
    "Huey", "BlackHoleHuey", "MemoryHuey", "SqliteHuey", "CySqliteHuey", "PostgresHuey", "FileHuey", "RedisHuey",
    "RedisExpireHuey", "PriorityRedisHuey", "PriorityRedisExpireHuey"))
TASK_METHODS = ("task", "periodic_task")
#: huey/contrib/djhuey/__init__.py: the instance's decorators, and the two that close the database
#: connection around the task and pass every argument on
DJANGO_DECORATORS = tuple(f"huey.contrib.djhuey.{name}" for name in (
    "task", "periodic_task", "db_task", "db_periodic_task", "HUEY.task", "HUEY.periodic_task"))
SPELLINGS = tuple(f"{cls}.{method}" for cls in HUEY_CLASSES for method in TASK_METHODS) + DJANGO_DECORATORS


class Huey(RetryAdapter):
    name = "huey"
    label = "huey task retry"
    cap_label = "huey task retry"
    write_label = "a huey task with `retries=`"
    layer_label = "huey task retry"
    queued = True
    spellings = roles(*SPELLINGS, role=Role.DECORATOR)
    trigger_modules = ("huey",)
    shared_instance_types = HUEY_CLASSES
    keywords = {qualname: KEYWORDS for qualname in SPELLINGS}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        scope = site.scope
        args = Args(site.call)
        if "retries" not in args and not args.star:
            return None  # no retries: the task runs once
        retries = reader.count(args, "retries", DEFAULTS["retries"], scope)
        delay = reader.number(args, "retry_delay", DEFAULTS["retry_delay"], scope=scope)
        backoff = reader.number(args, "retry_backoff", DEFAULTS["retry_backoff"], scope=scope)
        delay = DEFAULTS["retry_delay"] if delay is None else delay
        backoff = DEFAULTS["retry_backoff"] if backoff is None else backoff
        node = args.expr("retry_delay") or args.expr("retries")
        if not is_number(delay) or not is_number(backoff):
            wait = Wait.unknown(node)
        elif delay == 0:
            wait = Wait.none(node)  # queued again at once (Huey._requeue_task)
        elif backoff == 0 or backoff == 1:
            wait = Wait(WaitShape.FIXED, Jitter.NO, lambda k: delay, node)
        else:
            wait = Wait(WaitShape.EXPONENTIAL, Jitter.NO, lambda k: mul(delay, scaled_power(backoff, k - 1)), node)
        return self.policy(site, attempts=retries + 1 if is_number(retries) else UNKNOWN, max_delay_s=None,
                           wait=wait, retried=Retried(RetriedKind.ANY, ("Exception",), node=site.anchor,
                                                      default=True))

    advice_text = {
        Remedy.JITTER: "huey's `retry_delay` is the same for every task that fails together: retry fewer "
                       "times, or re-enqueue from the task with a random delay (`task.schedule(delay=...)`)",
        Remedy.TIME_CAP: "lower `retries` or `retry_delay` (huey has no total-time cap)",
        Remedy.BACKOFF: "set `retry_backoff=2` (each retry doubles `retry_delay`) and a `retry_delay` above 0",
        Remedy.NARROW: "raise `CancelExecution(retry=False)` in the task for the errors no retry fixes (huey retries "
                       "every exception)",
    }


ADAPTER = Huey()
