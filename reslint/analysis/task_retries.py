"""Retries a task queue's task asks for itself: celery's ``raise self.retry(exc=exc, countdown=...)``,
arq's ``raise Retry(defer=...)``.

A celery task (``@app.task``, ``@shared_task``) that calls ``retry`` on itself — on its first
parameter when it is bound (``bind=True``), or on its own name, directly or through a function of
the module it passes itself to (``retry_later(self, exc)``) — is re-queued and run again: its body
is the retried scope, whatever its decorator says. So is the ``run`` method of a task class
(``class ChargeTask(Task):``), always bound, whose class attributes are its options; such a class
with ``autoretry_for`` is also retried as a decorated task is (:meth:`TaskRetries.class_autoretry`).
The policy is read from the facts in :mod:`reslint.libraries.celery`:

- attempts: the retry call's ``max_retries=`` when it is not ``None``, else the task's
  (``max_retries=`` of the decorator, 3 by default; ``None`` is forever), plus the first run;
- waits: the retry call's ``countdown=`` (read with ``self.request.retries`` counting the retries
  made so far: ``2 ** self.request.retries`` waits 1, 2, 4 ... s), an ``eta=`` is unknown, and no
  countdown is the task's ``default_retry_delay`` (180 s); jittered only when drawn at random;
- what is retried: the types of the ``except`` handlers that call the retry. A retry called outside
  any handler retries a failed response when an ``if`` around it tests one (``if
  response.status_code != 200:``); otherwise (``if not ready: raise self.retry(countdown=5)``) it
  waits for a condition: it is a poll.

An arq job (an ``async def`` whose first parameter is the job context) that raises ``arq.Retry``
is run again the same way (:mod:`reslint.libraries.arq`): its attempts are the ``max_tries`` the
worker settings class of its module gives it (its ``func(job, max_tries=...)`` entry, else the
class's ``max_tries``, else 5), else the one of another module of the project that lists it imported
(``worker.py``; told by the project pass), unknown when no class lists it; its waits ``defer=``
read with ``ctx["job_try"]`` counting the runs (1 on the first), none at once.

The policy is anchored at the first retry call, where its findings go.
"""

from __future__ import annotations

import dataclasses

from typing import List, Optional, Tuple

import libcst as cst

from reslint.analysis.loops import LoopAnalyzer, checks_response
from reslint.libraries import arq, celery
from reslint.libraries.base import Site
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.semantics.context import Context, Scope
from reslint.semantics.walk import children, nodes_within
from reslint.values import UNKNOWN, is_number

#: what ``self.request.retries`` is spelled as in a countdown, with the task's name for ``self``
_RETRIES = "{task}.request.retries"


class TaskRetries:
    """Reads the retry policy of celery tasks that call ``retry`` on themselves (one per module)."""

    def __init__(self, ctx: Context, loops: LoopAnalyzer):
        self.ctx = ctx
        self.loops = loops
        self.reader = PolicyReader(ctx)
        self._arq_imported = "arq" in ctx.model.import_roots

    def _arq(self, func: cst.FunctionDef) -> Optional[RetryPolicy]:
        """An ``async def job(ctx, ...)`` that raises arq's ``Retry``: run again while
        ``ctx["job_try"]`` is within ``max_tries`` (:func:`reslint.libraries.arq.max_tries`)."""
        inner = self.ctx.opened_scope(func.body)
        params = list(func.params.posonly_params) + list(func.params.params)
        if func.asynchronous is None or inner is None or not params:
            return None
        found = [(raised, handler) for raised, handler in _raises(func.body)
                 if self.ctx.qualname(raised.func, inner) in arq.RETRY_CLASSES]
        if not found:
            return None
        handled = [(call, handler) for call, handler in found if handler is not None]
        call = (handled or found)[0][0]
        if handled:
            handlers = list(dict.fromkeys(h for _, h in handled))
            retried, _ = self.loops.retried(handlers, [n for h in handlers for n in nodes_within(h.body)], inner)
        else:  # ``if not ready: raise Retry(defer=5)``: a wait for a condition, unless a status fails
            retried = _unhandled(call, func.body)
        retry = Args(call, arq.RETRY_PARAMETERS)
        expr = retry.expr("defer")
        if expr is None or (isinstance(expr, cst.Name) and expr.value == "None"):
            wait = Wait.none(call)  # run again at once
        else:
            # the k-th failed run sees ctx["job_try"] == k
            wait = self._counted_wait(expr, inner, f"{params[0].name.value}['{arq.TRY_KEY}']", 0)
        return RetryPolicy(arq.ADAPTER, Role.DECORATOR, call, attempts=arq.max_tries(self.reader, func),
                           max_delay_s=None, wait=wait, retried=retried, call=call)

    def _counted_wait(self, expr, inner: Scope, counter: str, offset: int) -> Wait:
        """The waits of a delay expression ``expr`` that reads an attempt ``counter`` (spelled as
        its source), which holds ``k + offset`` when the k-th attempt has failed."""
        loops = self.loops
        reads = loops.reads_retry_after(expr, inner)

        def bound(k: int):
            return loops.max_value(expr, inner, counter, k + offset)

        first = bound(1)
        if loops.jittered(expr, inner):
            jitter = Jitter.YES
        elif is_number(first):
            jitter = Jitter.NO
        else:
            jitter = Jitter.UNKNOWN  # a delay from a parameter or a call may already be random
        shape = WaitShape.FIXED if is_number(first) and first == bound(2) == bound(3) else WaitShape.SCHEDULE
        return Wait(shape, jitter, bound, expr, zero=first == 0 and bound(2) == 0, reads_retry_after=reads)

    def policy(self, func: cst.FunctionDef, scope: Scope) -> Optional[RetryPolicy]:
        """The policy of ``func`` (defined in ``scope``) when it is a celery task that calls
        ``retry`` on itself, or an arq job that raises ``Retry``, else ``None``."""
        options = self._task_options(func, scope)
        bound = False
        if options is None:  # a task class's ``run(self, ...)``: bound to the task
            options = self.class_task_options(func, scope)
            bound = options is not None
        if options is None:
            return self._arq(func) if self._arq_imported else None
        inner = self.ctx.opened_scope(func.body)
        task = _first_parameter(func) if bound else self._task_name(func, options, scope)
        if inner is None or task is None:
            return None
        # (the retry call, the handler around it in the task, the task's call of a helper that makes it)
        found = [(call, handler, None) for call, handler in _retry_calls(func.body, task)]
        # the name the task has where the retry call is made, and the scope it is read in
        where = (task, inner)
        if not found:  # ``handle_failure(self, exc)``, a function of the module that retries the task it gets
            through = self._through_helper(func.body, task, inner)
            if through is None:
                return None
            found, where = through
        handled = [(call, handler) for call, handler, _ in found if handler is not None]
        call, _, helper_call = ([f for f in found if f[1] is not None] or found)[0]
        retry = Args(call, celery.RETRY_PARAMETERS)
        attempts = celery.task_max_retries(self.reader, options, scope)
        if retry.star:
            attempts = UNKNOWN  # ``**self.retry_kwargs`` may pass ``max_retries``
        elif retry.expr("max_retries") is not None:
            override = self.reader.count(retry, "max_retries", None, where[1])
            attempts = attempts if override is None else override
        attempts = attempts + 1 if is_number(attempts) else attempts
        if handled:
            handlers = list(dict.fromkeys(h for _, h in handled))
            nodes = [n for h in handlers for n in nodes_within(h.body)]
            retried, _ = self.loops.retried(handlers, nodes, inner)
        else:  # ``if not ready: raise self.retry(countdown=5)``: a wait for a condition, unless a status fails
            retried = _unhandled(helper_call or call, func.body)
        # through a helper, the findings go where the task calls it: each task is its own layer
        return RetryPolicy(celery.MANUAL, Role.DECORATOR, helper_call or call, attempts=attempts, max_delay_s=None,
                           wait=self._wait(retry, options, where[0], where[1], scope), retried=retried, call=call)

    def class_task_options(self, func: cst.FunctionDef, scope: Scope) -> Optional[Args]:
        """The options of the task class whose ``run`` (or ``__call__``, which wraps it) method
        ``func`` is (defined in ``scope``, the class's), or ``None`` when ``func`` is neither."""
        if func.name.value not in celery.TASK_BODY_METHODS or scope.kind != "class" or \
                not isinstance(scope.node, cst.ClassDef) or scope.parent is None:
            return None
        return celery.task_class_options(self.reader, scope.node, scope.parent)

    def class_autoretry(self, func: cst.FunctionDef, scope: Scope) -> Optional[RetryPolicy]:
        """The ``autoretry_for`` policy of the task class whose ``run`` method ``func`` is, read
        from its class attributes as a decorator's options are, and anchored at the class (where
        they are spelled); ``None`` when ``func`` is no such ``run``."""
        options = self.class_task_options(func, scope)
        if options is None:
            return None
        site = Site(Role.DECORATOR, celery.TASK_CLASSES[0], None, scope.node, scope)
        policy = celery.ADAPTER.read_options(site, self.reader, options)
        node = scope.node
        if policy is not None and not options.star and not celery.spelled_options(node) and \
                len(node.bases) == 1 and celery.reported_at(self.reader, node.bases[0].value, scope.parent):
            # every option comes from the one base task class, which spells it: reported there, once
            policy = dataclasses.replace(policy, adapter=celery.INHERITED)
        return policy

    def base_autoretry(self, node: cst.ClassDef, scope: Scope) -> Optional[RetryPolicy]:
        """The ``autoretry_for`` policy a task class ``node`` (defined in ``scope``) spells in its
        own body for the tasks built on it (``base=`` or a subclass), when it has no ``run`` of its
        own (a task class with one is read by :meth:`class_autoretry`): anchored at the class, where
        the retry-policy rules report its faults once; ``None`` otherwise. It opens no retried scope:
        the tasks' bodies are theirs (:data:`reslint.libraries.celery.INHERITED`)."""
        if not celery.own_autoretry(node) or any(
                isinstance(stmt, cst.FunctionDef) and stmt.name.value == celery.RUN_METHOD for stmt in node.body.body):
            return None
        options = celery.task_class_options(self.reader, node, scope)
        if options is None:
            return None
        site = Site(Role.DECORATOR, celery.TASK_CLASSES[0], None, node, scope)
        return celery.ADAPTER.read_options(site, self.reader, options)

    def _through_helper(self, body, task: str, inner: Scope):
        """``([(the helper's retry call, the task's handler around the helper call, the helper
        call)], (the helper's name for the task, its scope))`` when the task body passes the task
        to a function of this module that calls ``retry`` on that parameter, else ``None``."""
        for helper_call, handler in _calls_passing(body, task):
            helper = self.loops.local_def(helper_call, inner)
            helper_scope = self.ctx.opened_scope(helper.body) if helper is not None else None
            if helper_scope is None:
                continue
            params = [p.name.value for p in list(helper.params.posonly_params) + list(helper.params.params)]
            if params and params[0] in ("self", "cls") and isinstance(helper_call.func, cst.Attribute):
                params = params[1:]
            name = None
            for index, arg in enumerate(helper_call.args):
                if isinstance(arg.value, cst.Name) and arg.value.value == task:
                    name = arg.keyword.value if arg.keyword is not None else \
                        params[index] if index < len(params) and arg.keyword is None and not arg.star else None
            retries = _retry_calls(helper.body, name) if name is not None else []
            if retries:
                return [(retries[0][0], handler, helper_call)], (name, helper_scope)
        return None

    def _task_options(self, func: cst.FunctionDef, scope: Scope) -> Optional[Args]:
        """The options of ``func``'s celery task decorator (empty for a bare ``@shared_task``), or
        ``None`` when it is not a celery task."""
        for decorator in func.decorators:
            expr = decorator.decorator
            call = expr if isinstance(expr, cst.Call) else None
            qual = self.ctx.qualname(call.func if call is not None else expr, scope)
            if qual in celery.ADAPTER.spellings:
                return celery.task_options(self.reader, call, scope)
        return None

    def _task_name(self, func: cst.FunctionDef, options: Args, scope: Scope) -> Optional[str]:
        """What the task is called in its body: its first parameter when bound, else its name."""
        bind = self.reader.given(options, celery.BIND_OPTION, False, scope)
        if bind is UNKNOWN:
            return None
        if not bind:
            return func.name.value
        return _first_parameter(func)

    def _wait(self, retry: Args, options: Args, task: str, inner: Scope, scope: Scope) -> Wait:
        expr = retry.expr("countdown")
        if expr is None or (isinstance(expr, cst.Name) and expr.value == "None"):
            delay = celery.countdown(self.reader, retry, celery.default_delay(self.reader, options, scope), scope)
            return Wait(WaitShape.FIXED, Jitter.NO if is_number(delay) else Jitter.UNKNOWN, lambda k: delay,
                        retry.arg("eta"), zero=delay == 0)
        # the k-th failure is seen with k - 1 retries made
        return self._counted_wait(expr, inner, _RETRIES.format(task=task), -1)


def _first_parameter(func: cst.FunctionDef) -> Optional[str]:
    """The name of a function's first parameter (the task, when it is bound), if any."""
    params = list(func.params.posonly_params) + list(func.params.params)
    return params[0].name.value if params else None


def _handled(body, pick) -> List[Tuple[cst.Call, Optional[cst.ExceptHandler]]]:
    """``(call, the innermost except handler around it or None)`` for each node of a task or job
    body that ``pick`` maps to a call (``pick(node)``: the call, or ``None``), in source order, not
    in the functions, classes or lambdas it defines."""
    out: List[Tuple[cst.Call, Optional[cst.ExceptHandler]]] = []

    def walk(node, handler):
        for child in children(node):
            if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            picked = pick(child)
            if picked is not None:
                out.append((picked, handler))
            walk(child, child if isinstance(child, cst.ExceptHandler) else handler)

    walk(body, None)
    return out


def _retry_calls(body, task: str) -> List[Tuple[cst.Call, Optional[cst.ExceptHandler]]]:
    """Each ``<task>.retry(...)`` call of a task body, with its handler (:func:`_handled`)."""
    return _handled(body, lambda node: node if isinstance(node, cst.Call) and _is_retry(node, task) else None)


def _unhandled(call: cst.Call, body) -> Retried:
    """What a retry asked for outside any ``except`` handler retries: a failed response when an
    ``if`` around it tests one (``if response.status_code != 200: raise Retry(...)``), else a
    condition it waits for (``if not ready: ...``: a poll)."""
    stack = [(body, None)]
    while stack:
        node, test = stack.pop()
        if node is call:
            if test is not None and checks_response(test):
                return Retried(RetriedKind.STATUS, checks_status=True, node=test)
            return Retried(RetriedKind.RESULT, node=call)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not body:
            continue
        inner = node.test if isinstance(node, cst.If) else test
        stack.extend((child, inner if child is not getattr(node, "test", None) else test) for child in children(node))
    return Retried(RetriedKind.RESULT, node=call)


def _calls_passing(body, name: str) -> List[Tuple[cst.Call, Optional[cst.ExceptHandler]]]:
    """Each call of a task body that passes ``name`` (the task) as an argument, with its handler."""
    return _handled(body, lambda node: node if isinstance(node, cst.Call) and any(
        isinstance(a.value, cst.Name) and a.value.value == name for a in node.args) else None)


def _raises(body) -> List[Tuple[cst.Call, Optional[cst.ExceptHandler]]]:
    """The call raised by each ``raise X(...)`` of a function body, with its handler."""
    return _handled(body, lambda node: node.exc if isinstance(node, cst.Raise) and isinstance(node.exc, cst.Call)
                    else None)


def _is_retry(call: cst.Call, task: str) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == celery.RETRY_METHOD and \
        isinstance(func.value, cst.Name) and func.value.value == task
