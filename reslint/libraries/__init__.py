"""The registry of library adapters: one module per retry mechanism (:mod:`reslint.libraries.base`).

:data:`ADAPTERS` is the explicit list (as :data:`reslint.rules.visitors.ALL_RULES` is for rules); every
table the analysis and the prefilter need is derived from it, so adding a library is adding
its module here. A qualified name belongs to exactly one adapter.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Optional, Tuple

from reslint.catalog.clients import COUNTS_CONFIG, COUNTS_OWN_POLICY, COUNTS_RETRY_OBJECT, RetryingClient
from reslint.catalog.retries import SLEEPS
from reslint.libraries import (
    aiobreaker, aiohttp_retry, arq, backoff, botocore, celery, circuitbreaker, django_rq, dramatiq, google_api_core,
    handrolled, httpx, huey, langchain, opnieuw, purgatory, pybreaker, redo, requests, retry_package, retrying, rq,
    stamina, tenacity, urllib3,
)
from reslint.libraries.base import RetryAdapter
from reslint.libraries.breaker_base import BreakerAdapter
from reslint.model.policy import Role
from reslint.values import UNKNOWN, Number, is_number

#: the adapters of library retry mechanisms (the order is the prefilter's trigger order)
ADAPTERS: Tuple[RetryAdapter, ...] = (
    tenacity.ADAPTER, backoff.ADAPTER, stamina.ADAPTER, retrying.ADAPTER, retry_package.ADAPTER, opnieuw.ADAPTER,
    redo.ADAPTER, urllib3.ADAPTER, requests.ADAPTER, httpx.ADAPTER, celery.ADAPTER, dramatiq.ADAPTER, huey.ADAPTER,
    rq.ADAPTER, django_rq.ADAPTER, arq.ADAPTER, google_api_core.ADAPTER, dramatiq.MIDDLEWARE,
    langchain.ADAPTER, dramatiq.SETTINGS_MIDDLEWARE,
)
#: hand-rolled loops (read by the loop analysis, not from a qualified name)
HAND_ROLLED: RetryAdapter = handrolled.ADAPTER
#: hand-rolled loops that wait for a condition (polls, not retries)
POLLING: RetryAdapter = handrolled.POLLING
#: functions that retry by calling themselves, and the project's own retry helpers (one adapter each)
RECURSIVE: RetryAdapter = handrolled.RECURSIVE
#: tasks that retry by queueing themselves again
REQUEUED: RetryAdapter = handrolled.REQUEUED
helper_adapter = handrolled.helper_adapter
#: adapters of clients whose retries are judged (RES403) but not read as a policy yet
CLIENT_ADAPTERS: Tuple[RetryAdapter, ...] = (aiohttp_retry.ADAPTER,)

#: the adapters of circuit-breaker libraries (RES501), one module each
BREAKERS: Tuple[BreakerAdapter, ...] = (pybreaker.BREAKER, circuitbreaker.BREAKER, aiobreaker.BREAKER, purgatory.BREAKER)
#: the modules a file imports to use a breaker (``reslint.catalog.triggers`` spells them as data too)
BREAKER_TRIGGERS: Tuple[str, ...] = tuple(dict.fromkeys(m for b in BREAKERS for m in b.trigger_modules))
#: every open-circuit error -> the breaker adapter that raises it
OPEN_ERRORS: Dict[str, BreakerAdapter] = {error: b for b in BREAKERS for error in b.open_errors}

#: qualified name -> the adapter that judges what it replays (RES403)
REPLAYS: Dict[str, RetryAdapter] = {q: a for a in (*ADAPTERS, *CLIENT_ADAPTERS) for q in a.replay_spellings}


def _by_qualname() -> Dict[str, Tuple[RetryAdapter, FrozenSet[Role]]]:
    out: Dict[str, Tuple[RetryAdapter, FrozenSet[Role]]] = {}
    for adapter in ADAPTERS:
        for qualname, found in adapter.spellings.items():
            if qualname in out:
                raise ValueError(f"{qualname} is claimed by {out[qualname][0].name} and {adapter.name}")
            out[qualname] = (adapter, found)
    return out


#: qualified name -> (its adapter, the roles it is spelled in)
BY_QUALNAME: Dict[str, Tuple[RetryAdapter, FrozenSet[Role]]] = _by_qualname()


def lookup(qualname: str, role_of_call: Tuple[Role, ...]) -> Optional[Tuple[RetryAdapter, Role]]:
    """The adapter of ``qualname`` and the first of ``role_of_call`` it is spelled in, or ``None``."""
    found = BY_QUALNAME.get(qualname)
    if found is None:
        return None
    adapter, roles = found
    for role in role_of_call:
        if role in roles:
            return adapter, role
    return None


#: method name -> (its adapter, the qualified name it spells): methods recognised by name
METHODS: Dict[str, Tuple[RetryAdapter, str]] = {m: (a, q) for a in ADAPTERS for m, q in a.method_spellings.items()}


def lookup_method(method: str, import_roots, role_of_call: Tuple[Role, ...]) -> Optional[Tuple[RetryAdapter, str, Role]]:
    """The adapter, qualified name and role of a method recognised by its name (``with_retry``) in a
    file importing ``import_roots`` (top-level packages), or ``None``."""
    found = METHODS.get(method)
    if found is None or not set(found[0].trigger_modules) & set(import_roots):
        return None
    role = lookup(found[1], role_of_call)
    return (found[0], found[1], role[1]) if role is not None else None


def qualnames(role: Role) -> Tuple[str, ...]:
    """Every qualified name spelled in ``role``, in adapter order."""
    return tuple(name for name, (_, roles) in BY_QUALNAME.items() if role in roles)


#: Modules whose import can make a retry finding possible: retry libraries, clients with retry
#: options, and the sleeps of hand-rolled loops (``time:sleep``).
#: (``reslint.catalog.triggers`` spells the same list as data, for the processes that load no
#: LibCST; a test keeps the two equal)
RETRY_TRIGGERS: Tuple[str, ...] = tuple(dict.fromkeys(m for a in ADAPTERS for m in a.trigger_modules)) + tuple(
    sorted(f"{qualname.split('.')[0]}:{qualname.rsplit('.', 1)[1]}" for qualname in SLEEPS))

#: types whose instances other modules of a project import to spell policies with their methods
#: (``celery.Celery``), and method name -> those types (``task``: a policy spelled ``app.task(...)``)
SHARED_INSTANCE_TYPES: FrozenSet[str] = frozenset(t for a in ADAPTERS for t in a.shared_instance_types)
INSTANCE_METHODS: Dict[str, FrozenSet[str]] = {}
for _qualname in BY_QUALNAME:
    _owner, _, _method = _qualname.rpartition(".")
    if _owner in SHARED_INSTANCE_TYPES:
        INSTANCE_METHODS[_method] = INSTANCE_METHODS.get(_method, frozenset()) | {_owner}

#: the names a project function that stands for a task queue's decorator shares with it: the
#: shared instances' decorator methods (``task`` of ``app.task``) and the last part of the task
#: queues' decorator functions (``actor`` of ``dramatiq.actor``). A decorator of such a name imported
#: from another module of the project (``from app.worker import actor``) is looked up there.
TASK_DECORATOR_NAMES: FrozenSet[str] = frozenset(INSTANCE_METHODS) | frozenset(
    qualname.rsplit(".", 1)[-1] for qualname, (adapter, roles) in BY_QUALNAME.items()
    if adapter.queued and Role.DECORATOR in roles and "." in qualname)

#: dotted path -> (its adapter, the qualified name it spells): policies a framework builds from a
#: string in the project's settings (:attr:`RetryAdapter.import_strings`)
IMPORT_STRINGS: Dict[str, Tuple[RetryAdapter, str]] = {text: (a, text) for a in ADAPTERS for text in a.import_strings}

#: names besides the spellings that can start a finding (``arq.Retry``, raised by a job): the prefilter's
ENTRY_POINTS: FrozenSet[str] = frozenset(n for a in ADAPTERS for n in a.entry_points)
#: top-level modules of libraries that retry a function passed to them (``retry_call(fn)``)
CALLER_ROOTS: FrozenSet[str] = frozenset(m for a in ADAPTERS if a.retries_callables for m in a.trigger_modules)
#: types whose instances, called with a function, retry it (``Retrying()(fn)``)
CALLABLE_POLICIES: FrozenSet[str] = frozenset(q for a in ADAPTERS for q in a.callable_policies)
#: what a library raises when it gives up (unless told to re-raise), by adapter name
GIVE_UP_ERRORS: Dict[str, str] = {a.name: a.give_up_error for a in ADAPTERS if a.give_up_error}


def session_adapter(*types: Optional[str]) -> Optional[RetryAdapter]:
    """The adapter whose client objects carry mounted policies, for an object of one of ``types``
    (its constructor's qualified name, its inferred type), or ``None``."""
    for adapter in ADAPTERS:
        if any(t in adapter.session_types for t in types if t):
            return adapter
    return None


def client_attempts(client: RetryingClient, constructor, ctx) -> Number:
    """Attempts each call on a client built by ``constructor`` makes (a catalog
    :class:`~reslint.catalog.clients.RetryingClient`), read the way its ``counts`` says."""
    arg = next((a for a in constructor.args if a.keyword is not None and a.keyword.value == client.param), None)
    if any(a.star == "**" for a in constructor.args) and arg is None:
        return UNKNOWN
    if client.counts == COUNTS_CONFIG:
        return botocore.config_attempts(arg, ctx)
    if client.counts == COUNTS_OWN_POLICY:
        policy = ctx.retries.for_call(constructor)
        return policy.attempts if policy is not None else client.default_attempts
    if arg is None:
        return client.default_attempts
    if client.counts == COUNTS_RETRY_OBJECT:
        return urllib3.retries_attempts(arg.value, ctx)
    value = ctx.value_of(arg.value)
    return int(value) + 1 if is_number(value) else UNKNOWN
