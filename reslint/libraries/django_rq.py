"""django-rq: Django's wrapper of RQ enqueues with RQ's own ``retry=Retry(max=3, interval=[10, 30, 60])``,
so a job it enqueues with a retry is retried exactly as RQ retries it (:mod:`reslint.libraries.rq`
reads the policy): the job function is the retried scope, also when it is imported from another
module of the project.

Facts from django_rq/queues.py and django_rq/decorators.py (django-rq 2.x to 4.x; re-exported by
django_rq/__init__.py):

- ``enqueue(func, *args, **kwargs)`` is ``get_queue().enqueue(func, *args, **kwargs)``: RQ's
  ``Queue.enqueue`` on the default queue, so ``retry`` and RQ's other keywords reach
  ``Queue.parse_args`` through ``**kwargs`` and every other argument reaches the job;
- ``get_queue(name="default", ...)`` returns an ``rq.Queue`` (``DjangoRQ``, a subclass that only
  delays the enqueue to the end of the transaction or request, or the configured ``QUEUE_CLASS``):
  its ``enqueue``/``enqueue_call``/``enqueue_in``/``enqueue_at`` are RQ's (the factory is in
  :data:`reslint.catalog.names.FACTORIES`);
- ``job(func_or_queue, connection=None, *args, **kwargs)`` is ``rq.decorators.job(queue, *args,
  **kwargs)`` with the queue looked up by name: ``@job("default", retry=Retry(max=3))`` retries the
  decorated function, and a bare ``@job`` (the default queue, no options) runs it once.
"""

from __future__ import annotations

from reslint.libraries import rq
from reslint.libraries.base import merge, roles
from reslint.model.policy import Role

#: django_rq/queues.py ``enqueue(func, *args, **kwargs)``, re-exported by django_rq/__init__.py
ENQUEUE = ("django_rq.enqueue", "django_rq.queues.enqueue")
#: django_rq/decorators.py ``job(func_or_queue, connection=None, *args, **kwargs)``, re-exported
JOB_DECORATORS = ("django_rq.job", "django_rq.decorators.job")
#: django_rq/queues.py ``get_queue(name="default", ...)``: an ``rq.Queue`` (the catalog's factory)
GET_QUEUE = ("django_rq.get_queue", "django_rq.queues.get_queue")
#: what ``enqueue`` hands the job: RQ's ``Queue.enqueue`` does the splitting (rq/queue.py ``parse_args``)
ENQUEUE_ARGUMENTS = (("func", "*args", *rq.OWN_KEYWORDS), ("*args", "**kwargs"))


class DjangoRQ(rq.RQ):
    """RQ's retry, spelled through django-rq's module-level ``enqueue`` and ``job``; read as RQ's."""

    name = "django_rq"
    spellings = merge(roles(*ENQUEUE, role=Role.CALLER), roles(*JOB_DECORATORS, role=Role.DECORATOR))
    trigger_modules = ("django_rq",)
    callable_positions = {qualname: 0 for qualname in ENQUEUE}
    callable_keywords = {qualname: "func" for qualname in ENQUEUE}
    callable_arguments = {qualname: ENQUEUE_ARGUMENTS for qualname in ENQUEUE}
    keywords = {}
    #: ``retry`` reaches RQ through ``**kwargs`` of both ``enqueue`` and ``job``
    forwarded = {qualname: (rq.RETRY_OPTION,) for qualname in ENQUEUE + JOB_DECORATORS}


ADAPTER = DjangoRQ()
