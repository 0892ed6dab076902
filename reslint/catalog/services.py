"""What makes a module of example code a service, deployed as it is (:mod:`reslint.engine.scripts`):
it imports a web framework, an ASGI/WSGI or RPC server, or a task queue.

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
    "pyramid", "aiohttp.web", "uvicorn", "gunicorn", "hypercorn", "grpc",
)
#: task queues: the modules of the retry adapters whose retries are queued (``queued = True``)
TASK_QUEUE_MODULES: Tuple[str, ...] = ("celery", "dramatiq", "huey", "rq", "arq")
#: what a service imports
SERVICE_MODULES: Tuple[str, ...] = SERVER_MODULES + TASK_QUEUE_MODULES
