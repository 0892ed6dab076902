"""What a library adapter is: the one place that knows one retry mechanism.

An adapter (a :class:`RetryAdapter` subclass, one per module of :mod:`reslint.libraries`)
answers every library-specific question the analysis and the rules ask:

- which qualified names spell a policy, and in which :class:`~reslint.model.policy.Role`
  (``spellings``), and which modules a file must import to hold one (``trigger_modules``);
- how to read a :class:`~reslint.model.policy.RetryPolicy` from a decorator or call
  (:meth:`RetryAdapter.read`, given a :class:`Site` and a
  :class:`~reslint.model.reader.PolicyReader`);
- what it raises on giving up, whether it retries a callable passed to it;
- how to spell each :class:`Remedy` as a fix (:meth:`RetryAdapter.fix`) and as advice
  (:meth:`RetryAdapter.advice`);
- the labels messages use.

Rules ask, adapters answer: a rule reads the model and calls ``policy.adapter.fix(...)``; it
never names a library. Adapters import the model, the catalog and the edit helpers, never the
registry (:mod:`reslint.libraries`) or the dispatcher (:mod:`reslint.analysis.retry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, FrozenSet, Mapping, Optional, Tuple

import libcst as cst

from reslint.catalog.retries import CATCH_ALL
from reslint.semantics.context import Context, Scope
from reslint.diagnostics import Applicability
from reslint.semantics.cstutil import add_keyword_arg
from reslint.semantics.edits import FixPlan, commented_change, remove_arg
from reslint.model.policy import RetryPolicy, Role
from reslint.model.remedy import FixContext, Remedy, UnsafeReplay  # noqa: F401 (adapters import them from here)
from reslint.model.reader import PolicyReader


@dataclass(frozen=True)
class Site:
    """Where a policy is spelled: its role, the qualified name it resolves to, the call (``None``
    for a bare ``@retry``), the node findings are anchored at and the scope it is read in."""

    role: Role
    qualname: str
    call: Optional[cst.Call]
    anchor: cst.CSTNode
    scope: Optional[Scope]


class RetryAdapter:
    """One retry mechanism. Subclasses set the class attributes and override :meth:`read`, and
    :meth:`fix`/:meth:`advice` for the remedies they can spell."""

    #: the short name (``tenacity``): ``Layer.library`` in summaries
    name: ClassVar[str] = ""
    #: qualified name -> the roles it can be spelled in (google's ``Retry`` is both a decorator
    #: and a policy object)
    spellings: ClassVar[Mapping[str, FrozenSet[Role]]] = {}
    #: top-level modules whose import can make this mechanism appear in a file (prefilter)
    trigger_modules: ClassVar[Tuple[str, ...]] = ()
    #: what a call raises once the retry gives up, when not ``reraise`` (tenacity's RetryError)
    give_up_error: ClassVar[Optional[str]] = None
    #: whether ``retry_call(fn)``-style callers or ``Retrying()(fn)`` retry a function passed in
    retries_callables: ClassVar[bool] = False
    #: qualified name of a caller -> the position of the function it retries among the positional
    #: arguments (0 when absent: ``retry_call(fn, ...)``; RQ's ``enqueue_in(delay, fn, ...)`` is 1)
    callable_positions: ClassVar[Mapping[str, int]] = {}
    #: qualified name of a caller -> the name of the parameter that takes that function, for a
    #: call that passes it by keyword (RQ's ``enqueue_call(func=job, ...)``)
    callable_keywords: ClassVar[Mapping[str, str]] = {}
    #: qualified name of a caller -> (its own parameters, in order, ``*args`` where its star
    #: parameter is; the star parameters that hand the rest on to the function it retries), for a
    #: caller that calls the function with the use's remaining arguments (RQ's ``enqueue(f, *args,
    #: **kwargs)``): a function of another module handed to it is retried code of the project pass
    #: (:meth:`reslint.analysis.retried.RetriedScopes._pass`); a caller missing here retries only
    #: the functions it is handed from its own module
    callable_arguments: ClassVar[Mapping[str, Tuple[Tuple[str, ...], Tuple[str, ...]]]] = {}
    #: types whose instances retry a function they are called with (``Retrying()(fn)``)
    callable_policies: ClassVar[Tuple[str, ...]] = ()
    #: method name -> the qualified name it spells, for a method of objects reslint cannot type
    #: (LangChain's ``runnable.with_retry()``): recognised by name in a file that imports one of
    #: ``trigger_modules``
    method_spellings: ClassVar[Mapping[str, str]] = {}
    #: whether the policy retries the object it is built from (:meth:`receiver`), not a scope
    retries_receiver: ClassVar[bool] = False
    #: the methods of the object such a policy builds that go through its retry (``invoke``): a call
    #: of one is a retry layer around the receiver; its other methods run the receiver once
    receiver_run_methods: ClassVar[FrozenSet[str]] = frozenset()
    #: qualified names besides :attr:`spellings` whose use can start a finding of this mechanism
    #: (arq's ``Retry``, raised by a job that retries itself): kept by the prefilter
    entry_points: ClassVar[Tuple[str, ...]] = ()
    #: dotted paths a framework imports by string and builds with no arguments (django_dramatiq's
    #: ``"MIDDLEWARE": ["dramatiq.middleware.Retries", ...]``), each in :attr:`spellings` as an
    #: object: the policy is read, and reported, at the string (:class:`Site` with no call)
    import_strings: ClassVar[Tuple[str, ...]] = ()
    #: types whose instances a project builds once and imports elsewhere, then spells policies with
    #: their methods (``from .celery import app`` ... ``@app.task(...)``): the project pass tells
    #: the importing modules what such a name is
    shared_instance_types: ClassVar[Tuple[str, ...]] = ()
    #: whether the retry rules judge a policy where it is used (``False``: a helper of the project,
    #: whose own loop is judged once, where it is written)
    reports_faults: ClassVar[bool] = True
    #: whether the policy is judged whole where it is spelled, by every rule (a task class's
    #: policy, reported at the class, not at each task built on it)
    judged_where_spelled: ClassVar[bool] = False
    #: whether a decorator retries a generator function's iteration (``False``: it wraps only the
    #: call, which creates the generator and raises nothing, so nothing is ever retried)
    retries_generators: ClassVar[bool] = True
    #: whether a decorator retries an ``async def`` function (``False``: a project helper whose
    #: wrapper is a plain function that calls it without awaiting: the call only creates the
    #: coroutine, which raises nothing there, so nothing is ever retried)
    retries_coroutines: bool = True

    # -- labels ------------------------------------------------------------------------------
    @property
    def label(self) -> str:
        """The policy in retry-rule messages: ``tenacity retry``."""
        return f"{self.name} retry"

    @property
    def cap_label(self) -> str:
        """The policy whose time cap bounds a call (RES104): ``tenacity retry``."""
        return f"{self.name} retry"

    @property
    def write_label(self) -> str:
        """The layer a write runs inside (RES402): ``a tenacity retry``."""
        return f"a {self.name} retry"

    @property
    def layer_label(self) -> str:
        """The layer in call chains when no function names it: ``tenacity retry``."""
        return f"{self.name} retry"

    #: whether the retries queue the work again (a task queue's task): nobody waits for it, so RES202
    #: judges its worst case by ``max-task-retry-time``, not ``max-retry-time``
    queued: ClassVar[bool] = False
    #: what a worst case above ``max-retry-time`` costs (RES202), after "worst case ... > N s; "; a
    #: :attr:`queued` policy's is said by the rule (nobody waits for a queued task)
    time_cap_why: ClassVar[str] = "a struggling dependency then holds the caller that long"

    # -- reading -----------------------------------------------------------------------------
    #: qualified name -> the names :meth:`read` (and :meth:`receiver`) take from a call of it, each
    #: a parameter of the library's callee (a positional argument is read by its parameter's name).
    #: tests/test_adapter_reads.py drives every reader and checks that it asks exactly these and
    #: :attr:`forwarded`; tests/test_catalog_reality.py checks them against the installed library
    keywords: ClassVar[Mapping[str, Tuple[str, ...]]] = {}
    #: qualified name -> names the reader takes from a call that the callee receives through
    #: ``**kwargs`` (backoff's wait-generator arguments, google's older ``deadline=``, celery's task
    #: options): each adapter's reality test says where they go
    forwarded: ClassVar[Mapping[str, Tuple[str, ...]]] = {}

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:  # pragma: no cover - abstract
        """The policy spelled at ``site``, or ``None`` when it does not retry (celery without
        ``autoretry_for``). An unreadable spelling is a policy with UNKNOWN parts, not None."""
        raise NotImplementedError

    def policy(self, site: Site, **facts) -> RetryPolicy:
        """A policy of this adapter at ``site`` (``facts``: the model's fields)."""
        return RetryPolicy(self, site.role, site.anchor, call=site.call, **facts)

    def receiver(self, policy: RetryPolicy) -> Optional[cst.BaseExpression]:
        """What a policy with :attr:`retries_receiver` retries (each call through it is an attempt)."""
        return None

    def wrapped_function(self, receiver: cst.BaseExpression, ctx: Context) -> Optional[cst.BaseExpression]:
        """The function a receiver runs when it wraps one (LangChain's ``RunnableLambda(fn)``), or ``None``."""
        return None

    # -- fixes and advice --------------------------------------------------------------------
    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        """A fix that applies ``remedy`` to ``policy``, or ``None`` when the library cannot spell it.
        The default narrows a catch-all exception name to ``params["transient"]``."""
        if remedy is Remedy.NARROW:
            return narrow_catch_all(policy.retried.node, policy, params["transient"], params["imports"], fx)
        return None

    #: what to do per remedy, in the library's words; ``{limit_s:g}`` (seconds) and ``{limit_ms}``
    #: (whole milliseconds) stand for the time cap the rule suggests
    advice_text: ClassVar[Mapping[Remedy, str]] = {}

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        """What to do, in the library's words (``add `max_time=30```), or ``None`` for the rule's
        generic advice. ``limit_s``: the time cap in seconds. Reads :attr:`advice_text`; an
        adapter whose advice depends on the policy overrides this."""
        text = self.advice_text.get(remedy)
        return text.format(limit_s=limit_s, limit_ms=int(limit_s * 1000)) if text is not None else None

    # -- clients that carry policies -------------------------------------------------------
    #: types of client objects policies are mounted on (a requests ``Session``)
    session_types: ClassVar[Tuple[str, ...]] = ()

    def mounted(self, ctx: Context, obj) -> Tuple[Tuple[cst.Call, cst.BaseExpression], ...]:
        """``(mounted constructor call, its retry argument)`` for each policy object mounted on the
        client ``obj`` names (a requests session's ``HTTPAdapter(max_retries=...)``); each request
        through ``obj`` is retried by them. Empty for libraries without mounts."""
        return ()

    # -- replays of non-idempotent requests (RES403) --------------------------------------------
    #: qualified names of configurations whose replays :meth:`unsafe_replay` judges
    replay_spellings: ClassVar[FrozenSet[str]] = frozenset()

    def unsafe_replay(self, call: cst.Call, qualname: str, ctx: Context) -> Optional[UnsafeReplay]:
        """What ``call`` (one of ``replay_spellings``) replays that a retry must not (POST, PATCH,
        errors raised after the request was sent), or ``None``."""
        return None

    # -- Retry-After (RES206) ----------------------------------------------------------------
    #: the keyword that turns Retry-After off (``respect_retry_after_header``), if any
    retry_after_switch: ClassVar[Optional[str]] = None
    #: the policy object in messages about that switch (``urllib3 Retry``)
    object_label: ClassVar[str] = ""


def narrow_catch_all(node, policy: RetryPolicy, transient: str, imports: Tuple[str, ...],
                     fx: Optional[FixContext] = None) -> Optional[FixPlan]:
    """Replace a catch-all exception name (``Exception``) at ``node`` by ``transient`` (its
    message says so when the argument that holds it carries a comment: :func:`commented_change`)."""
    if isinstance(node, (cst.Name, cst.Attribute)) and set(policy.retried.types) & CATCH_ALL:
        plan = FixPlan(f"Retry only `{transient}`", Applicability.UNSAFE, ((node, cst.parse_expression(transient)),),
                       imports)
        return commented_change(plan, policy.call, node, fx.statement if fx is not None else None)
    return None


def remove_keyword_fix(call: Optional[cst.Call], name: str, message: str,
                       fx: Optional[FixContext] = None) -> Optional[FixPlan]:
    """A fix that drops ``name=`` from ``call`` (``None`` when it is not there): safe, unless the
    argument carries a comment (see :func:`commented_change`; ``fx``: where the call is, for a
    comment after it). The comments inside the call that explain the argument go with it."""
    if call is None:
        return None
    statement = fx.statement if fx is not None else None
    fixed = remove_arg(call, name, statement)
    if fixed is call:
        return None
    arg = next(a for a in call.args if a.keyword is not None and a.keyword.value == name)
    return commented_change(FixPlan(message, Applicability.SAFE, ((call, fixed),)), call, arg, statement)


def replace_value_fix(plan: Optional[FixPlan], policy: RetryPolicy, node, fx: FixContext) -> Optional[FixPlan]:
    """``plan``, which replaces ``node`` (the value of an argument of the policy's call, or a part
    of it), made unsafe when that argument carries a comment (see :func:`commented_change`)."""
    return commented_change(plan, policy.call, node, fx.statement)


def add_keyword_fix(call: cst.Call, name: str, code: str, message: str) -> FixPlan:
    """A safe fix that adds ``name=code`` to ``call`` (``code``: the value's source text)."""
    return FixPlan(message, Applicability.SAFE, ((call, add_keyword_arg(call, name, cst.parse_expression(code))),))


def roles(*names: str, role: Role) -> dict:
    """``{qualname: frozenset({role})}`` for each name (for ``spellings``)."""
    return {name: frozenset({role}) for name in names}


def merge(*tables: Mapping[str, FrozenSet[Role]]) -> dict:
    """The union of spelling tables (a name in two of them has both roles)."""
    out: dict = {}
    for table in tables:
        for name, found in table.items():
            out[name] = out.get(name, frozenset()) | found
    return out
