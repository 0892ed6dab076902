"""celery: a task with ``autoretry_for=`` (``@app.task(...)``, ``@shared_task(...)``), and the
facts a task's own ``self.retry(...)`` calls are read with (:mod:`reslint.analysis.task_retries`).

Facts from celery/app/task.py and celery/app/autoretry.py (5.x): ``max_retries=3`` (``None``:
forever) and ``default_retry_delay=180`` s are task attributes; ``retry_backoff`` (False) turns
on exponential waits of ``factor * 2 ** (k - 1)`` s (``True`` is a factor of 1), capped by
``retry_backoff_max`` (600 s) and drawn with full jitter unless ``retry_jitter=False``; without
``retry_backoff`` the countdown is ``retry_kwargs["countdown"]`` or ``default_retry_delay``, the
same every time, and ``retry_jitter`` does nothing. ``retry_kwargs`` are passed to
``Task.retry``: its ``max_retries`` overrides the task's, except ``None``, which means "the task's"
(``Task.retry``: ``max_retries = self.max_retries if max_retries is None else max_retries``);
``dont_autoretry_for`` types are re-raised, not retried. There is no time cap, and
``Retry-After`` is never read. A task without ``autoretry_for`` runs once, unless it calls
``self.retry`` (``bind=True``) or ``<task>.retry`` itself.

A task class (``class ChargeTask(Task):`` or ``(app.Task)``, with ``def run(self, ...)``) is a task
once registered (``app.register_task(ChargeTask())``: celery/app/base.py ``Celery.register_task``;
celery 4 and later register no class by itself). Its ``run`` is the task's body, bound to the task:
its class attributes are the task's options, read by ``add_autoretry_behaviour``
(celery/app/autoretry.py, called by ``register_task`` and ``TaskRegistry.register`` since celery
4.4.7) as for a function task, and ``self.retry(...)`` in ``run`` retries it. Such a class is read
as a task wherever the project registers it (often in another module than the class's).

A task class of another module of the project (``base=RetryingTask`` after ``from .base import
RetryingTask``, or ``class ChargeTask(RetryingTask):``) gives its options as a local one does: its
module's summary records what its class attributes set (:func:`exported_task_class`), and the
project pass lints the importing module again with them (:attr:`reslint.catalog.user.UserCatalog.
task_classes`), so every rule sees the task as retried, as for a base of the same module:
RES401/RES402 in the task's body, and the project rules follow the task's calls. The retry-policy
rules (RES201-RES206) report a task class's policy once, at the class, when it sets
``autoretry_for`` in its own body (:func:`own_autoretry`); a task built on it that sets no retry
option of its own (``base=`` with only ``bind=``, ``name=``..., or a ``run`` subclass with a single
base) is not judged again (:data:`INHERITED`), except by RES202 when its body's time makes a worst
case that the class's waits alone do not, and by RES501, which depends on what its body calls.
A task that sets an option, or whose class takes the policy from a base or a mixin, is judged at
its decorator (or class) as before. Until then, and for a class reslint cannot read (from a
third-party package, or built at run time), the options it does not see are unknown. So, for now,
is a class built on the task class of another module, seen from a third one: the project pass
reads task classes from the summaries it starts with, where that class's base was not known yet
(two imports away, a task built on it stays unknown).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Dict, Optional, Set, Tuple

import libcst as cst

from reslint.catalog.user import TaskClassEntry
from reslint.semantics.edits import FixPlan
from reslint.libraries.base import (
    FixContext, Remedy, RetryAdapter, Site, remove_keyword_fix, roles,
)
from reslint.model.policy import Jitter, RetryPolicy, Role, Wait, WaitShape, types_or_unknown
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, clamp, is_number, mul, scaled_power

#: celery/app/task.py: max_retries=3, default_retry_delay=180, retry_backoff_max=600, retry_jitter=True
DEFAULTS = {"max_retries": 3, "default_retry_delay": 180.0, "retry_backoff_max": 600.0, "retry_jitter": True}
#: what the reader takes from ``task(...)``: options the decorators take through ``**options``, some
#: task attributes (celery/app/task.py), the others read by celery/app/autoretry.py
TASK_ATTRIBUTES = ("max_retries", "default_retry_delay")
AUTORETRY_OPTIONS = ("autoretry_for", "dont_autoretry_for", "retry_kwargs", "retry_backoff", "retry_backoff_max",
                     "retry_jitter")
#: the options that hold exception types (celery/app/autoretry.py ``add_autoretry_behaviour``)
TYPE_OPTIONS = ("autoretry_for", "dont_autoretry_for")
#: celery/app/task.py ``Task.retry(self, args=None, kwargs=None, exc=None, throw=True, eta=None,
#: countdown=None, max_retries=None, **options)``: the keywords a retry's policy is read from
#: (``countdown`` s, else an ``eta`` datetime, else ``default_retry_delay``; ``max_retries``
#: ``None`` is the task's own)
RETRY_METHOD = "retry"
RETRY_PARAMETERS = ("args", "kwargs", "exc", "throw", "eta", "countdown", "max_retries")
#: ``base=``: the task class a task is built from (celery/app/base.py ``_task_from_fun``); its class
#: attributes are the defaults of the options (celery/app/autoretry.py reads ``getattr(task, name)``)
BASE_OPTION = "base"
#: ``@app.task(bind=True)``: the task is passed as the first argument (celery/app/base.py ``_task_from_fun``)
BIND_OPTION = "bind"


#: the library's task class (celery/app/task.py), whose attributes are :data:`DEFAULTS`, and an
#: app's ``app.Task`` (celery/app/base.py ``Celery.Task``: ``create_task_cls()``, a subclass of the
#: app's ``task_cls``, celery.app.task:Task unless the app is given another)
TASK_CLASSES = ("celery.Task", "celery.app.task.Task", "celery.Celery.Task")


class Celery(RetryAdapter):
    name = "celery"
    queued = True
    # `app.task` resolves to celery.Celery.task
    spellings = roles("celery.shared_task", "celery.Celery.task", role=Role.DECORATOR)
    trigger_modules = ("celery",)
    # the Django layout: ``app = Celery(...)`` in proj/celery.py, ``from .celery import app`` in tasks
    shared_instance_types = ("celery.Celery",)
    #: a task class spells the policy of the tasks built on it (:func:`own_autoretry`), also in a
    #: module that defines no task
    entry_points = TASK_CLASSES
    forwarded = {qualname: TASK_ATTRIBUTES + AUTORETRY_OPTIONS + (BASE_OPTION,) for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        if site.call is None:
            return None  # a bare ``@shared_task``: no autoretry_for, it runs once
        options = task_options(reader, site.call, site.scope)
        policy = self.read_options(site, reader, options)
        if policy is not None and not options.star and _policy_from_base(site.call) and \
                reported_at(reader, Args(site.call).expr(BASE_OPTION), site.scope):
            # every retry option comes from the ``base=`` class, which spells the policy: its faults
            # are the class's, reported once there (:func:`own_autoretry`), not at each task
            policy = dataclasses.replace(policy, adapter=INHERITED)
        return policy

    def read_options(self, site: Site, reader: PolicyReader, args: Args) -> Optional[RetryPolicy]:
        """The autoretry policy of a task whose options are ``args`` (its decorator's, over its
        ``base=`` class's attributes, or a task class's attributes), ``None`` without
        ``autoretry_for``; the values are read in ``site.scope``."""
        scope = site.scope
        if "autoretry_for" not in args:
            return None  # a task without autoretry_for runs once
        if args.star:
            return self.policy(site)
        kwargs = retry_kwargs(reader, args.expr("retry_kwargs"), scope) if "retry_kwargs" in args else Args(None)
        retries = task_max_retries(reader, args, scope)
        if kwargs is None:
            retries = UNKNOWN  # a ``retry_kwargs`` that cannot be read may override it
        elif kwargs.expr("max_retries") is not None:
            override = reader.count(kwargs, "max_retries", None, scope)
            retries = retries if override is None else override  # None: the task's own
        autoretry = args.expr("autoretry_for")
        retried = types_or_unknown(option_types(reader, args, "autoretry_for", scope), autoretry)
        if "dont_autoretry_for" in args and retried.types:
            excluded = option_types(reader, args, "dont_autoretry_for", scope)
            retried = dataclasses.replace(retried, excluded=excluded) if excluded else \
                dataclasses.replace(retried, filtered=True)
        return self.policy(site, attempts=retries + 1 if is_number(retries) else retries, max_delay_s=None,
                           wait=self._wait(reader, args, kwargs, scope), retried=retried)

    def _wait(self, reader: PolicyReader, args: Args, kwargs: Optional[Args], scope) -> Wait:
        backoff = reader.given(args, "retry_backoff", False, scope)
        jitter_on = reader.given(args, "retry_jitter", True, scope)
        if backoff is False or backoff is None or backoff == 0:
            default_s = default_delay(reader, args, scope)
            if kwargs is None:
                return Wait.unknown(args.arg("retry_kwargs"))
            delay = countdown(reader, kwargs, default_s, scope)
            return Wait(WaitShape.FIXED, Jitter.NO, lambda k: delay, args.arg("retry_backoff"), zero=delay == 0)
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
            if not _backs_off(policy):
                return None  # retry_jitter alone changes nothing: the countdown is fixed
            return remove_keyword_fix(policy.call, "retry_jitter",
                                      "Remove `retry_jitter=False` (celery jitters backoff by default)", fx)
        return super().fix(remedy, policy, fx, **params)

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        if remedy is Remedy.JITTER and not _backs_off(policy):
            return "set `retry_backoff=True`: celery draws the countdown at random only with backoff " \
                   "(`retry_jitter` alone changes nothing)"
        if remedy is Remedy.TIME_CAP and not _backs_off(policy):
            return "lower `max_retries` or the countdown (celery has no total-time cap)"
        return super().advice(remedy, policy, limit_s)

    advice_text = {
        Remedy.JITTER: "keep `retry_jitter=True` with `retry_backoff`",
        Remedy.TIME_CAP: "lower `max_retries`/`retry_backoff_max` (celery has no total-time cap)",
        Remedy.BOUNDS: "set `max_retries=` to a number (None means forever)",
    }


class InheritedAutoretry(Celery):
    """The autoretry policy of a task whose retry options all come from its ``base=`` task class
    (the decorator sets none of :data:`TASK_ATTRIBUTES` and :data:`AUTORETRY_OPTIONS`). The task's
    body is retried as any task's (RES401, RES402, RES301 follow it), but the policy's faults (no
    jitter, no time cap, a catch-all) are the class's: the retry-policy rules report them once, at
    the class (:func:`own_autoretry`), not at each of the tasks built on it."""

    reports_faults = False
    judged_where_spelled = True


class ManualRetry(Celery):
    """A task that retries itself: ``raise self.retry(exc=exc, countdown=...)`` in a bound task (or
    ``<task>.retry(...)`` by its name). The task body is the retried scope; its policy is read by
    :mod:`reslint.analysis.task_retries` from these facts."""

    label = "celery `self.retry()`"
    cap_label = "celery `self.retry()`"
    write_label = "a celery task that calls `self.retry()`"
    layer_label = "celery task retry"

    def read(self, site, reader):  # pragma: no cover - read by reslint.analysis.task_retries
        return None

    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        return None

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        return {
            Remedy.JITTER: "draw the countdown at random, e.g. `countdown=random.uniform(0, 2 ** "
                           "self.request.retries)` (full jitter)",
            Remedy.TIME_CAP: "lower `max_retries` or the countdowns, or give up once a deadline passed "
                             "(celery has no total-time cap)",
            Remedy.BOUNDS: "set the task's `max_retries=` to a number (None means forever)",
        }.get(remedy)


def _backs_off(policy: RetryPolicy) -> bool:
    """Whether a task's countdown is celery's backoff (its own schedule), not a fixed delay."""
    return policy.wait.shape is WaitShape.SCHEDULE


#: the method a task class runs as the task (celery/app/task.py ``Task.run``)
RUN_METHOD = "run"
#: the methods whose body runs each time a task of the class runs: ``run``, and ``__call__``, which
#: wraps it (celery/app/task.py ``Task.__call__`` calls ``self.run``; a base class overrides it to
#: retry every task built on it)
TASK_BODY_METHODS = frozenset({RUN_METHOD, "__call__"})


class TaskOptions(Args):
    """A task's options (:class:`Args`) with the exception types of those a task class of another
    module sets: ``types`` maps such an option (``autoretry_for``) to the qualified names that
    module read (:class:`TaskClassEntry`); its expression here is a ``...`` that names nothing."""

    def __init__(self, call: Optional[cst.Call], types: Optional[Dict[str, Tuple[str, ...]]] = None):
        super().__init__(call)
        self.types: Dict[str, Tuple[str, ...]] = dict(types or {})


def option_types(reader: PolicyReader, args: Args, name: str, scope) -> Optional[Tuple[str, ...]]:
    """The exception types the option ``name`` (``autoretry_for``) of ``args`` holds, read in
    ``scope`` or given by the task class of another module that sets it; ``None`` when unknown."""
    expr = args.expr(name)
    if isinstance(args, TaskOptions) and name in args.types:
        return args.types[name]
    return reader.exception_types(expr, scope)


def _policy_from_base(call: cst.Call) -> bool:
    """Whether the task decorator ``call`` names a ``base=`` class and sets none of the retry
    options itself (no ``**`` either): its policy is entirely the class's."""
    own = set(TASK_ATTRIBUTES + AUTORETRY_OPTIONS)
    keywords = [arg.keyword.value for arg in call.args if arg.keyword is not None]
    return BASE_OPTION in keywords and not own.intersection(keywords) and \
        not any(arg.star for arg in call.args)


def spelled_options(node: cst.ClassDef) -> Set[str]:
    """The retry options (:data:`TASK_ATTRIBUTES`, :data:`AUTORETRY_OPTIONS`) the class ``node``
    sets in its own body, read as :func:`_own_options` reads them (a plain assignment to one name)."""
    own = set(TASK_ATTRIBUTES + AUTORETRY_OPTIONS)
    found: Set[str] = set()
    for line in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        for stmt in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0].target, cst.Name) and stmt.targets[0].target.value in own:
                found.add(stmt.targets[0].target.value)
    return found


def own_autoretry(node: cst.ClassDef) -> bool:
    """Whether the class ``node`` sets ``autoretry_for`` in its own body: the class where a task
    class's autoretry policy is spelled, and reported."""
    return "autoretry_for" in spelled_options(node)


def reported_at(reader: PolicyReader, expr, scope) -> bool:
    """Whether the task class ``expr`` names (read in ``scope``: a class of this module, or a task
    class of another module of the project) sets ``autoretry_for`` in its own body, so that the
    retry-policy rules report its policy at it, where it is spelled; a class that takes the policy
    from a base or a mixin of its own does not (the tasks built on it are judged themselves)."""
    if expr is None:
        return False
    imported = _project_task_class(reader, expr, scope, want=False)
    if imported is not None:
        return imported.spells
    found = reader.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
    if not found or len(found) != 1 or found[0].kind != "class" or not isinstance(found[0].node, cst.ClassDef):
        return False
    node = found[0].node
    return own_autoretry(node) and _is_task_class(reader, node, found[0].scope, 0, False)


def task_options(reader: PolicyReader, call: Optional[cst.Call], scope) -> Args:
    """A task decorator's options (``call``'s keywords, empty for a bare ``@shared_task``), over the
    class attributes of its ``base=`` task class when reslint can read that class: defined in this
    module (with its bases), or in another module of the project (:func:`exported_task_class`,
    known once the project pass lints this module again). A base reslint cannot read (a
    third-party one, or one built on one) makes every option it does not see unknown."""
    options = TaskOptions(call)
    base = options.expr(BASE_OPTION)
    if base is None:
        return options
    attributes, types, known = _class_options(reader, base, scope, 0)
    for name, value in attributes.items():  # the decorator's own options win
        if name in options.by_name:
            continue
        options.by_name[name] = cst.Arg(value=value, keyword=cst.Name(name))
        if name in types:
            options.types[name] = types[name]
    options.star = options.star or not known
    return options


def task_class_options(reader: PolicyReader, node: cst.ClassDef, scope, want: bool = True) -> Optional[Args]:
    """The options of the task class ``node`` (defined in ``scope``): its class attributes over
    those of its bases (local, or task classes of other modules of the project), as
    :func:`task_options` gives a decorator's; ``None`` when it is no celery task class (none of
    its bases leads to :data:`TASK_CLASSES`). A base reslint cannot read makes every option it
    does not see unknown. ``want``: note an imported base for the project pass (see
    :func:`_project_task_class`)."""
    if not _is_task_class(reader, node, scope, 0, want):
        return None
    attributes, types, known = _own_options(reader, node, scope, 0)
    options = TaskOptions(cst.Call(func=cst.Name(node.name.value),
                                   args=[cst.Arg(value=value, keyword=cst.Name(name))
                                         for name, value in attributes.items()]), types)
    options.star = not known
    return options


def exported_task_class(reader: PolicyReader, node: cst.ClassDef, scope) -> Optional[TaskClassEntry]:
    """The task class ``node`` (defined at module level, ``scope``) as other modules of the project
    read it (:class:`TaskClassEntry`): each option its class attributes (and its bases') set, read
    here, where its names mean something; ``None`` when it is no celery task class."""
    options = task_class_options(reader, node, scope, want=False)
    if options is None:
        return None
    values, types = [], []
    for name in TASK_ATTRIBUTES + AUTORETRY_OPTIONS:
        expr = options.expr(name)
        if expr is None:
            continue
        if name in TYPE_OPTIONS:
            found = option_types(reader, options, name, scope)
            if found:
                types.append((name, tuple(found)))
            else:
                values.append((name, "..."))
        elif name == "retry_kwargs":
            values.append((name, _kwargs_source(reader, expr, scope)))
        else:
            values.append((name, _constant_source(reader.value(expr, scope))))
    return TaskClassEntry(node.name.value, tuple(values), tuple(types), known=not options.star,
                          spells=own_autoretry(node))


#: the largest number an exported option keeps (a larger one is no count or wait anyone reads)
_MAX_EXPORTED = 1e12


def _constant_source(value) -> str:
    """The source of a constant option value that names nothing (``5``, ``None``, ``True``),
    ``...`` for one that cannot be read (read as unknown where it is used)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and abs(value) <= _MAX_EXPORTED:
        return repr(value)
    return "..."


def _kwargs_source(reader: PolicyReader, expr, scope) -> str:
    """``retry_kwargs`` as a dict display of constants (:func:`_constant_source`), ``...`` when
    it cannot be read."""
    kwargs = retry_kwargs(reader, expr, scope)
    if kwargs is None:
        return "..."
    items = (f"{name!r}: {_constant_source(reader.value(arg.value, scope))}" for name, arg in kwargs.by_name.items())
    return "{" + ", ".join(items) + "}"


def _entry_options(entry: TaskClassEntry):
    """:func:`_class_options` of a task class of another module: its options as expressions that
    name nothing, its exception types aside."""
    attributes = {}
    for name, source in entry.options:
        try:
            attributes[name] = cst.parse_expression(source)
        except cst.ParserSyntaxError:
            attributes[name] = cst.Ellipsis()
    types = dict(entry.types)
    for name in types:
        attributes[name] = cst.Ellipsis()
    return attributes, types, entry.known


def _project_task_class(reader: PolicyReader, expr, scope, want: bool) -> Optional[TaskClassEntry]:
    """The task class of another module of the project that ``expr`` names (``RetryingTask`` after
    ``from .base import RetryingTask``, ``base.RetryingTask`` after ``from . import base``), as the
    project pass gives it (:meth:`UserCatalog.task_class`); ``None`` when ``expr`` names no
    imported name or the project pass has not said. With ``want``, such a name is noted for the
    project pass (:attr:`Context.wanted`), which lints this module again once it knows the class."""
    ctx = reader.ctx
    if isinstance(expr, cst.Name):
        found = ctx.lookup(expr.value, scope)
        qual = found[0].qualname if found and len(found) == 1 and found[0].kind == "import" else None
    elif isinstance(expr, cst.Attribute):
        qual = ctx.imported_attribute(expr, scope)
    else:
        qual = None
    if not qual or qual.startswith("."):
        return None
    entry = ctx.catalog.task_class(qual)
    if entry is None and want and len(ctx.wanted) < ctx.MAX_WANTED:
        ctx.wanted.add(qual)
    return entry


def _is_task_class(reader: PolicyReader, node: cst.ClassDef, scope, depth: int, want: bool) -> bool:
    """Whether a base of the class ``node`` is a task class of the library, a local one, or one of
    another module of the project."""
    for base in node.bases:
        if reader.qualname(base.value, scope) in TASK_CLASSES:
            return True
        found = reader.ctx.lookup(base.value.value, scope) if isinstance(base.value, cst.Name) else None
        if depth < 4 and found and len(found) == 1 and found[0].kind == "class" and \
                _is_task_class(reader, found[0].node, found[0].scope, depth + 1, want):
            return True
        if _project_task_class(reader, base.value, scope, want) is not None:
            return True
    return False


def _class_options(reader: PolicyReader, expr, scope, depth: int):
    """(``{option: value expression}`` set in the body of the class ``expr`` names and its bases,
    nearest first; ``{option: exception types}`` of those a task class of another module sets
    (:class:`TaskOptions`); whether every base is known)."""
    qual = reader.qualname(expr, scope)
    if qual in TASK_CLASSES:
        return {}, {}, True
    imported = _project_task_class(reader, expr, scope, want=True)
    if imported is not None:
        return _entry_options(imported)
    found = reader.ctx.lookup(expr.value, scope) if isinstance(expr, cst.Name) else None
    if depth > 4 or not found or len(found) != 1 or found[0].kind != "class":
        return {}, {}, False
    return _own_options(reader, found[0].node, found[0].scope, depth)


def _own_options(reader: PolicyReader, node: cst.ClassDef, scope, depth: int):
    """:func:`_class_options` of the class ``node``, defined in ``scope``."""
    out, types, known = {}, {}, True
    for base in reversed(node.bases):
        inherited, inherited_types, base_known = _class_options(reader, base.value, scope, depth + 1)
        for name in inherited:
            types.pop(name, None)  # a nearer base sets it again
        out.update(inherited)
        types.update(inherited_types)
        known = known and base_known
    for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    isinstance(small.targets[0].target, cst.Name) and \
                    small.targets[0].target.value in TASK_ATTRIBUTES + AUTORETRY_OPTIONS:
                out[small.targets[0].target.value] = small.value
                types.pop(small.targets[0].target.value, None)
    return out, types, known


def task_max_retries(reader: PolicyReader, options: Args, scope) -> object:
    """The task's ``max_retries`` from its decorator's options (3 by default, ``None``: forever)."""
    return reader.count(options, "max_retries", DEFAULTS["max_retries"], scope)


def countdown(reader: PolicyReader, retry: Args, default_s: object, scope) -> object:
    """The countdown (seconds) of a retry called with ``retry``'s keywords: ``countdown=``, else
    UNKNOWN for an ``eta=`` (a datetime), else ``default_s``, the task's ``default_retry_delay``."""
    if retry.expr("countdown") is not None:
        value = reader.number(retry, "countdown", None, scope=scope)
        return default_s if value is None else value  # None: the default
    if retry.expr("eta") is not None:
        return UNKNOWN
    return default_s


def default_delay(reader: PolicyReader, options: Args, scope) -> object:
    """The task's ``default_retry_delay`` (seconds; 180 by default) from its decorator's options."""
    return reader.number(options, "default_retry_delay", DEFAULTS["default_retry_delay"], scope=scope)


def retry_kwargs(reader: PolicyReader, expr, scope) -> Optional[Args]:
    """The keywords of ``retry_kwargs=`` (a dict display or ``dict(...)``, or a name bound once to
    one) as :class:`Args`, ``None`` when they cannot be read."""
    expr, scope = reader.ctx.resolve(expr, scope)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict" and \
            all(a.keyword is not None for a in expr.args):
        return Args(expr)
    if not isinstance(expr, cst.Dict):
        return None
    keywords = []
    for element in expr.elements:
        key = element.key if isinstance(element, cst.DictElement) else None
        if not (isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str) and
                key.evaluated_value.isidentifier()):
            return None
        keywords.append(cst.Arg(value=element.value, keyword=cst.Name(key.evaluated_value)))
    return Args(cst.Call(func=cst.Name("dict"), args=keywords))


ADAPTER = Celery()
MANUAL = ManualRetry()
INHERITED = InheritedAutoretry()
