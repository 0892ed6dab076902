"""What makes a module of example code a service, deployed as it is (:mod:`reslint.engine.scripts`):
it imports a web framework or an ASGI/WSGI server, starts an RPC server, or defines the tasks of a
task queue it imports.

Spelled here as data, not derived from the adapters at run time: the operator-script decision is
made in the parent process of every run, after the cache, which must not load LibCST (see
:mod:`reslint.catalog.triggers`). ``tests/test_boundaries.py`` checks that
:data:`TASK_QUEUE_MODULES` is exactly the modules of the adapters whose retries are queued.
"""

from __future__ import annotations

from typing import Tuple

#: web frameworks and servers, by the name their package is imported as (each project's docs):
#: FastAPI https://fastapi.tiangolo.com/, Flask https://flask.palletsprojects.com/, Django
#: https://docs.djangoproject.com/, Starlette https://www.starlette.io/, Sanic https://sanic.dev/,
#: Quart https://quart.palletsprojects.com/, Tornado https://www.tornadoweb.org/, Litestar
#: https://docs.litestar.dev/, Falcon https://falcon.readthedocs.io/, Bottle https://bottlepy.org/,
#: Pyramid https://docs.pylonsproject.org/projects/pyramid/, aiohttp's server
#: https://docs.aiohttp.org/en/stable/web.html (``aiohttp.web``; plain ``aiohttp`` is its client),
#: Uvicorn https://www.uvicorn.org/, Gunicorn https://gunicorn.org/, Hypercorn
#: https://hypercorn.readthedocs.io/, gRPC https://grpc.github.io/grpc/python/ (``grpc.server``)
SERVER_MODULES: Tuple[str, ...] = (
    "fastapi", "flask", "django", "starlette", "sanic", "quart", "tornado", "litestar", "falcon", "bottle",
    "pyramid", "aiohttp.web", "uvicorn", "gunicorn", "hypercorn",
)
#: calls that start a server of a library that is a client too: gRPC's ``grpc.server(...)`` and
#: ``grpc.aio.server(...)`` (https://grpc.github.io/grpc/python/grpc.html#grpc.server; a module that
#: only builds a channel is a client)
SERVER_CALLS: Tuple[str, ...] = ("grpc.server", "grpc.aio.server")
#: task queues: the modules of the retry adapters whose retries are queued (``queued = True``)
TASK_QUEUE_MODULES: Tuple[str, ...] = ("celery", "dramatiq", "huey", "rq", "django_rq", "arq")
#: what defines a task (a module that only enqueues one is a producer, run where it is called):
#: celery's ``@app.task``/``@shared_task`` (https://docs.celeryq.dev/en/stable/userguide/tasks.html),
#: dramatiq's ``@dramatiq.actor`` (https://dramatiq.io/reference.html#dramatiq.actor), huey's
#: ``@huey.task``/``@periodic_task``/``@db_task``/``@db_periodic_task``
#: (https://huey.readthedocs.io/en/latest/api.html), RQ's ``@job``
#: (https://python-rq.org/docs/jobs/#job-decorator): decorator names; arq's ``WorkerSettings``
#: class (https://arq-docs.helpmanual.io/#usage)
TASK_DECORATORS: Tuple[str, ...] = ("task", "shared_task", "actor", "periodic_task", "db_task", "db_periodic_task",
                                    "job")
TASK_CLASSES: Tuple[str, ...] = ("WorkerSettings",)
