"""arq: a job (an ``async def job(ctx, ...)``) that raises ``arq.Retry(defer=...)`` is run again;
the facts :mod:`reslint.analysis.task_retries` reads such a job's policy with.

Facts from arq/worker.py (0.25 to 0.28): ``Retry(defer=None)`` (seconds, or a ``timedelta``; none:
at once) asks the worker to run the job again, while ``ctx["job_try"]`` (1 on the first run) is
at most ``max_tries``: the function's (``func(coroutine, max_tries=...)``) unless it is ``None``,
else the worker's (``Worker(max_tries=5)``; ``Worker.run_job``: ``max_tries = self.max_tries if
function.max_tries is None else function.max_tries``, then ``if job_try > max_tries:`` the job fails
without running). A worker is built from the project's settings class (``arq module.WorkerSettings``,
``run_worker(WorkerSettings)``): ``get_kwargs`` passes the class's own attributes (its
``__dict__``, not its bases') that are ``Worker`` parameters, ``functions``, ``max_tries`` and
``retry_jobs`` among them; with ``retry_jobs=False`` a ``Retry`` fails the job. Only ``Retry``
(and a cancelled or timed-out run, ``RetryJob``) retries: any other exception fails the job. The
delay is never drawn at random; there is no time cap and no ``Retry-After``.

A job's runs are read from the settings classes of its module that list it in ``functions``
(:func:`max_tries`); a job listed in none, or in several that disagree, runs an unknown number of
times.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.libraries.base import FixContext, Remedy, RetryAdapter
from reslint.model.policy import RetryPolicy
from reslint.model.reader import Args, PolicyReader
from reslint.semantics.edits import FixPlan
from reslint.values import UNKNOWN, is_number

#: arq/__init__.py re-exports arq/worker.py's ``Retry``
RETRY_CLASSES = ("arq.Retry", "arq.worker.Retry")
#: ``Retry.__init__(self, defer=None)``
RETRY_PARAMETERS = ("defer",)
#: the job context's try counter: ``ctx["job_try"]`` is 1 on the first run (arq/worker.py ``run_job``)
TRY_KEY = "job_try"
#: ``Worker(max_tries=5)``: the default a project's WorkerSettings usually sets
DEFAULT_MAX_TRIES = 5
#: arq/__init__.py re-exports arq/worker.py's ``func(coroutine, *, name=None, keep_result=None,
#: timeout=None, keep_result_forever=None, max_tries=None)``; ``max_tries=None`` is the worker's
FUNC = ("arq.func", "arq.worker.func")
FUNC_POSITIONAL = ("coroutine",)
#: the ``Worker`` parameters a settings class sets as class attributes (``get_kwargs``) that decide
#: a job's runs: the jobs it runs, their tries, and whether ``Retry`` retries at all (True)
SETTINGS = ("functions", "max_tries", "retry_jobs")


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


def max_tries(reader: PolicyReader, job: cst.FunctionDef) -> object:
    """How many times arq runs ``job`` (a function of the module): the same number from every
    settings class of the module that lists it in ``functions``, or UNKNOWN (listed in none, in
    several that disagree, or set with values that cannot be read)."""
    module = reader.ctx.model.module_scope
    found = set()
    for stmt in module.node.body:
        if isinstance(stmt, cst.ClassDef):
            tries = _settings_tries(reader, stmt, job)
            if tries is not None:
                found.add(tries)
    return found.pop() if len(found) == 1 else UNKNOWN


def _settings_tries(reader: PolicyReader, settings: cst.ClassDef, job: cst.FunctionDef) -> object:
    """The runs the settings class ``settings`` gives ``job``, ``None`` when it does not list it."""
    scope = reader.ctx.model.scopes.get(id(settings.body))
    attributes = _class_attributes(settings)
    listed = attributes.get("functions")
    if scope is None or listed is None:
        return None
    entry = _entry(reader, listed, job, scope)
    if entry is None:
        return None
    options = Args(cst.Call(func=cst.Name(settings.name.value),
                            args=[cst.Arg(value=v, keyword=cst.Name(k)) for k, v in attributes.items()]))
    retry_jobs = reader.given(options, "retry_jobs", True, scope)
    if retry_jobs is False:
        return 1  # a Retry fails the job
    if retry_jobs is not True:
        return UNKNOWN
    own = reader.count(entry, "max_tries", None, scope) if entry.call is not None else None
    if own is not None:
        return own if is_number(own) else UNKNOWN
    tries = reader.count(options, "max_tries", DEFAULT_MAX_TRIES, scope)
    return tries if is_number(tries) else UNKNOWN  # None would stop the worker: not a bound


def _entry(reader: PolicyReader, listed, job: cst.FunctionDef, scope) -> Optional[Args]:
    """``job``'s entry in a ``functions`` list: ``Args(func(job, ...))`` or ``Args(None)`` for the
    bare coroutine, ``None`` when the list does not name it (or cannot be read)."""
    listed, where = reader.ctx.resolve(listed, scope)
    if not isinstance(listed, (cst.List, cst.Tuple)):
        return None
    for element in listed.elements:
        if isinstance(element, cst.StarredElement):
            continue
        value, at = reader.ctx.resolve(element.value, where)
        if isinstance(value, cst.Call) and reader.qualname(value.func, at) in FUNC:
            args = Args(value, FUNC_POSITIONAL)
            if _names(reader, args.expr("coroutine"), job, at):
                return args
        elif _names(reader, value, job, at):
            return Args(None)
    return None


def _names(reader: PolicyReader, expr, job: cst.FunctionDef, scope) -> bool:
    found = reader.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
    return bool(found) and len(found) == 1 and found[0].node is job


def _class_attributes(node: cst.ClassDef) -> dict:
    """``{name: value}`` of the :data:`SETTINGS` assigned in a class body (its own, as ``get_kwargs``
    reads them)."""
    out = {}
    for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value in SETTINGS:
                out[small.targets[0].target.value] = small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None and \
                    isinstance(small.target, cst.Name) and small.target.value in SETTINGS:
                out[small.target.value] = small.value
    return out


ADAPTER = ArqRetry()
