"""RQ: a job enqueued with ``retry=Retry(max=3, interval=[10, 30, 60])`` (``queue.enqueue(f, ...,
retry=...)``, ``enqueue_call``, ``enqueue_in``, ``enqueue_at``, ``@job(queue, retry=...)``): the job
function is the retried scope, also when it is imported from another module of the project (the
project pass follows it, as for a project retry helper handed a function).

Facts from rq/job.py and rq/queue.py (1.x to 3.x): ``Retry(max, interval=0)``; a job that raises
any exception is retried while it has retries left (``Job.retry``, called from the worker's
failure handling), after ``Retry.get_interval(retries made, intervals)``: a number is every
interval, a list gives the k-th retry its k-th value and the last value after that; 0 is at once.
The intervals are never drawn at random; there is no time cap and no ``Retry-After``.
``Queue.enqueue(f, *args, **kwargs)``, ``enqueue_at(datetime, f, ...)`` and
``enqueue_in(time_delta, func, ...)`` take ``retry`` from their keywords (``Queue.parse_args``);
``Queue.enqueue_call(func, ..., retry=None, ...)`` and ``rq.decorators.job(queue, ..., retry=None,
...)`` as a parameter. A job enqueued without ``retry`` runs once.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.libraries.base import Remedy, RetryAdapter, Site, merge, roles
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, is_number

#: rq/job.py ``Retry(max, interval=0, enqueue_at_front=False)``
RETRY_CLASSES = ("rq.Retry", "rq.job.Retry")
RETRY_POSITIONAL = ("max", "interval")
RETRY_DEFAULTS = {"interval": 0.0}
#: the enqueue methods and where each takes the job function (rq/queue.py): its position, and
#: the parameter's name for a call that passes it by keyword (``enqueue_call(func=job, ...)``)
CALLABLE_POSITIONS = {"rq.Queue.enqueue": 0, "rq.Queue.enqueue_call": 0, "rq.Queue.enqueue_at": 1,
                      "rq.Queue.enqueue_in": 1}
CALLABLE_KEYWORDS = {"rq.Queue.enqueue": "f", "rq.Queue.enqueue_call": "func", "rq.Queue.enqueue_at": "f",
                     "rq.Queue.enqueue_in": "func"}
#: the keywords ``Queue.parse_args`` takes for RQ itself (rq 3.0 rq/queue.py: ``kwargs.pop(...)``),
#: never handed to the job; ``args=``/``kwargs=`` give the job's arguments explicitly
OWN_KEYWORDS = ("job_timeout", "description", "result_ttl", "ttl", "failure_ttl", "depends_on", "job_id",
                "at_front", "meta", "retry", "repeat", "on_success", "on_failure", "on_stopped", "rate_limit",
                "webhooks", "pipeline", "unique", "args", "kwargs")
#: what each enqueue method hands the job function: the arguments after the function, less RQ's own
#: keywords (``enqueue(f, *args, **kwargs)``), or the items of ``args=`` and ``kwargs=`` given
#: explicitly (``enqueue_call(func, args=None, kwargs=None, timeout=None, ...)`` takes every other
#: keyword for itself; its ``timeout`` is the job's time limit)
CALLABLE_ARGUMENTS = {
    "rq.Queue.enqueue": (("f", "*args", *OWN_KEYWORDS), ("*args", "**kwargs")),
    "rq.Queue.enqueue_at": (("datetime", "f", "*args", *OWN_KEYWORDS), ("*args", "**kwargs")),
    "rq.Queue.enqueue_in": (("time_delta", "func", "*args", *OWN_KEYWORDS), ("*args", "**kwargs")),
    "rq.Queue.enqueue_call": (("func", "args", "kwargs"), ()),
}
JOB_DECORATOR = "rq.decorators.job"
RETRY_OPTION = "retry"
#: the methods that take ``retry`` through ``**kwargs`` (``Queue.parse_args``) and those that name it
FORWARDING = ("rq.Queue.enqueue", "rq.Queue.enqueue_at", "rq.Queue.enqueue_in")


class RQ(RetryAdapter):
    name = "rq"
    label = "RQ job retry"
    cap_label = "RQ job retry"
    write_label = "an RQ job enqueued with `retry=`"
    layer_label = "RQ job retry"
    queued = True
    spellings = merge(roles(*CALLABLE_POSITIONS, role=Role.CALLER), roles(JOB_DECORATOR, role=Role.DECORATOR))
    trigger_modules = ("rq",)
    retries_callables = True
    callable_positions = CALLABLE_POSITIONS
    callable_keywords = CALLABLE_KEYWORDS
    callable_arguments = CALLABLE_ARGUMENTS
    keywords = {"rq.Queue.enqueue_call": (RETRY_OPTION,), JOB_DECORATOR: (RETRY_OPTION,)}
    forwarded = {qualname: (RETRY_OPTION,) for qualname in FORWARDING}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        args = Args(site.call)
        given = args.expr(RETRY_OPTION)
        if given is None:
            return self.policy(site) if args.star else None  # no retry: the job runs once
        expr, where = reader.ctx.resolve(given, site.scope)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return None
        anchor = site.anchor if site.role is Role.DECORATOR else given
        site = Site(site.role, site.qualname, site.call, anchor, site.scope)
        if not (isinstance(expr, cst.Call) and reader.qualname(expr.func, where) in RETRY_CLASSES):
            return self.policy(site)  # a Retry built elsewhere: its parts are unknown
        retry = Args(expr, RETRY_POSITIONAL)
        if retry.star:
            return self.policy(site)
        retries = reader.count(retry, "max", UNKNOWN, where)
        return self.policy(site, attempts=retries + 1 if is_number(retries) else UNKNOWN, max_delay_s=None,
                           wait=_intervals(reader, retry, where),
                           retried=Retried(RetriedKind.ANY, ("Exception",), node=given, default=True))

    advice_text = {
        Remedy.JITTER: "RQ's intervals are the same for every job that fails together: retry fewer times, or "
                       "draw the intervals at random when the job is enqueued",
        Remedy.TIME_CAP: "lower `Retry(max=)` or the intervals (RQ has no total-time cap)",
        Remedy.BACKOFF: "give `Retry(interval=)` growing intervals, e.g. `interval=[10, 30, 60]`",
        Remedy.NARROW: "catch the errors no retry fixes in the job and return (RQ retries every exception)",
    }


def _intervals(reader: PolicyReader, retry: Args, scope) -> Wait:
    """The waits of ``Retry(interval=...)``: one number, or a list whose last value repeats."""
    node = retry.expr("interval")
    if node is None:
        return Wait.none(retry.call)
    expr, where = reader.ctx.resolve(node, scope)
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        values = [reader.value(e.value, where) if not isinstance(e, cst.StarredElement) else UNKNOWN
                  for e in expr.elements]
        if not all(is_number(v) for v in values):
            return Wait.unknown(node)
        seconds = [float(v) for v in values]
        if len(set(seconds)) == 1:
            return _fixed(seconds[0], node)
        shape = WaitShape.INCREMENTING if seconds == sorted(seconds) else WaitShape.SCHEDULE
        return Wait(shape, Jitter.NO, lambda k: seconds[min(k, len(seconds)) - 1], node)
    value = reader.value(node, scope)
    return _fixed(float(value), node) if is_number(value) else Wait.unknown(node)


def _fixed(seconds: float, node) -> Wait:
    if seconds == 0:
        return Wait.none(node)
    return Wait(WaitShape.FIXED, Jitter.NO, lambda k: seconds, node)


ADAPTER = RQ()
