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
(:func:`max_tries`); when none does, from those of the project's other modules that list it
imported (``worker.py`` imports the jobs of ``jobs.py``), which the project pass tells the job's
module (:func:`runs_elsewhere`, :func:`listed_jobs`; a settings module the prefilter skipped is
read when its text assigns a class attribute ``functions``). A job listed in none, or in several
that disagree, runs an unknown number of times.

Limits of the lookup in other modules: their classes are read when the module imports arq or the
class is named ``WorkerSettings``; a job is found under a name that follows imports and re-exports
to its module-level function (not a job built elsewhere, ``functions = make_jobs()``); settings read
from a base class are not (``get_kwargs`` reads the class's own attributes: that is arq's rule too);
a value the settings module imports (``max_tries = MAX_TRIES``) is known once the project pass has
told it, within its few rounds of linting modules again.
"""

from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple

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
#: the settings class's name in arq's docs (``arq module.WorkerSettings``): read in any module
SETTINGS_CLASSES = ("WorkerSettings",)


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
    settings class of the module that lists it in ``functions``, or UNKNOWN (listed in several that
    disagree, or set with values that cannot be read). A job that no class of its module lists is
    looked up among the settings classes of the project's other modules (:func:`runs_elsewhere`)."""
    module = reader.ctx.model.module_scope
    found = set()
    for stmt in module.node.body:
        if isinstance(stmt, cst.ClassDef):
            settings = _read_settings(reader, stmt)
            for named, at, entry in settings.entries if settings is not None else ():
                if _names(reader, named, job, at):
                    found.add(_runs(reader, settings, entry))
                    break
    if found:
        return found.pop() if len(found) == 1 else UNKNOWN
    return runs_elsewhere(reader, job)


def runs_elsewhere(reader: PolicyReader, job: cst.FunctionDef) -> object:
    """The runs the settings classes of the project's other modules give the module-level job
    ``job`` (``worker.py``: ``from .jobs import push`` ... ``class WorkerSettings: functions =
    [push]``), once the project pass has told (:attr:`UserCatalog.job_runs
    <reslint.catalog.user.UserCatalog.job_runs>`); until then UNKNOWN, and the job's qualified name
    is noted as wanted: the project pass looks it up in the other modules' :func:`listed_jobs` and
    lints this module again."""
    ctx = reader.ctx
    module = ctx.model.module_scope.node
    if not ctx.model.module_name or not any(stmt is job for stmt in module.body):
        return UNKNOWN  # arq imports a job by its module-level name
    qualname = f"{ctx.model.module_name}.{job.name.value}"
    runs = ctx.catalog.job_runs_of(qualname)
    if runs is not None:
        return runs
    if len(ctx.wanted) < ctx.MAX_WANTED:
        ctx.wanted.add(qualname)
    return UNKNOWN


def listed_jobs(reader: PolicyReader) -> Tuple[Tuple[str, int], ...]:
    """``(qualified name, runs)`` of each function of another module that this module's settings
    classes list in ``functions`` (``from shop.jobs import push`` ... ``functions = [push]``:
    ``("shop.jobs.push", 5)``), for the project pass (:func:`runs_elsewhere`). The classes read are
    those of a module that imports arq, and any class named ``WorkerSettings`` (arq's name, which a
    settings module that imports nothing of arq still uses). A job whose runs cannot be read, or
    that two classes give different runs, is left out: its runs stay unknown."""
    ctx = reader.ctx
    imports_arq = "arq" in ctx.model.import_roots
    own = ctx.model.module_name  # its own jobs are read where they are defined (a package's
    # ``__init__`` lists its submodules' jobs: those are another module's)
    found: Dict[str, set] = {}
    for stmt in ctx.model.module_scope.node.body:
        if not isinstance(stmt, cst.ClassDef) or not (imports_arq or stmt.name.value in SETTINGS_CLASSES):
            continue
        settings = _read_settings(reader, stmt)
        for named, at, entry in settings.entries if settings is not None else ():
            qualname = reader.qualname(named, at) if isinstance(named, (cst.Name, cst.Attribute)) else None
            if qualname and not qualname.startswith(".") and qualname.rsplit(".", 1)[0] != own:
                found.setdefault(qualname, set()).add(_runs(reader, settings, entry))
    return tuple((name, int(runs.pop())) for name, runs in sorted(found.items())
                 if len(runs) == 1 and is_number(next(iter(runs))))


class _Settings(NamedTuple):
    """A settings class as ``get_kwargs`` reads it: its scope, its :data:`SETTINGS` attributes as
    the options of a call, and its ``functions`` entries (the expression naming each job, the scope
    that expression is read in, and ``Args(func(job, ...))`` or ``Args(None)`` for a bare job)."""

    scope: object
    options: Args
    entries: Tuple[Tuple[cst.BaseExpression, object, Args], ...]


def _read_settings(reader: PolicyReader, node: cst.ClassDef) -> Optional[_Settings]:
    """The settings class ``node``, ``None`` when it has no readable ``functions`` list."""
    scope = reader.ctx.opened_scope(node.body)
    attributes = _class_attributes(node)
    listed = attributes.get("functions")
    if scope is None or listed is None:
        return None
    listed, where = reader.ctx.resolve(listed, scope)
    if not isinstance(listed, (cst.List, cst.Tuple)):
        return None
    entries = []
    for element in listed.elements:
        if isinstance(element, cst.StarredElement):
            continue
        value, at = reader.ctx.resolve(element.value, where)
        if isinstance(value, cst.Call) and reader.qualname(value.func, at) in FUNC:
            args = Args(value, FUNC_POSITIONAL)
            named = args.expr("coroutine")
            if named is not None:
                entries.append((named, at, args))
        else:
            entries.append((value, at, Args(None)))
    options = Args(cst.Call(func=cst.Name(node.name.value),
                            args=[cst.Arg(value=v, keyword=cst.Name(k)) for k, v in attributes.items()]))
    return _Settings(scope, options, tuple(entries))


def _runs(reader: PolicyReader, settings: _Settings, entry: Args) -> object:
    """The runs ``settings`` gives the job of its ``functions`` entry ``entry``: 1 with
    ``retry_jobs = False``, else the entry's ``max_tries`` unless ``None``, else the class's, else 5."""
    scope = settings.scope
    retry_jobs = reader.given(settings.options, "retry_jobs", True, scope)
    if retry_jobs is False:
        return 1  # a Retry fails the job
    if retry_jobs is not True:
        return UNKNOWN
    own = reader.count(entry, "max_tries", None, scope) if entry.call is not None else None
    if own is not None:
        return own if is_number(own) else UNKNOWN
    tries = reader.count(settings.options, "max_tries", DEFAULT_MAX_TRIES, scope)
    return tries if is_number(tries) else UNKNOWN  # None would stop the worker: not a bound


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
