"""The retry policy model: the one shape every retry rule reads.

A :class:`RetryPolicy` is one retry mechanism instance, anchored at ``node`` (where its
findings go), built once by its library's adapter (or the loop analysis) and frozen:

- ``attempts``: an int, ``None`` for unbounded, or :data:`UNKNOWN`;
- ``max_delay_s``: the total-time cap in seconds, ``None`` for none, or :data:`UNKNOWN`;
- ``wait`` (:class:`Wait`): the largest wait after each failure, in seconds, whether it is
  jittered and whether it follows the server's ``Retry-After``;
- ``retried`` (:class:`Retried`): what is retried (exception types, statuses, a predicate);
- ``loop`` (:class:`LoopFacts`): for hand-rolled loops only, the nodes their findings go to.

Unknown parts stay unknown; rules never report an unknown value as the fault. The
arithmetic on such values is :mod:`reslint.values`.

This module sits above :mod:`reslint.values` and below the adapters (``reslint.libraries``):
it never imports an adapter, the registry or the dispatcher.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, FrozenSet, Mapping, Optional, Sequence, Tuple

import libcst as cst

from reslint.values import UNKNOWN, Number, is_number, total

if TYPE_CHECKING:  # the model names its adapter's type without importing the adapters
    from reslint.libraries.base import RetryAdapter

class Role(enum.Enum):
    """Where a policy is spelled, which decides what it retries."""

    DECORATOR = "decorator"  # @retry(...): the decorated function's body
    ITERATOR = "iterator"  # for attempt in Retrying(...): with attempt: the loop body
    CALLER = "caller"  # retry_call(fn, ...): fn's body
    OBJECT = "object"  # Retry(...) handed to a client: each request through it
    LOOP = "loop"  # a hand-rolled retry loop: the loop body


class Jitter(enum.Enum):
    """Whether the waits are drawn at random."""

    YES = "yes"
    NO = "no"
    PARTIAL = "partial"  # random, but collapses to a fixed cap
    UNKNOWN = "unknown"


class WaitShape(enum.Enum):
    """How a wait grows; :attr:`SCHEDULE` is a library's own formula (named by its adapter)."""

    NONE = "none"
    UNKNOWN = "unknown"
    FIXED = "fixed"
    RANDOM = "random"
    INCREMENTING = "incrementing"
    EXPONENTIAL = "exponential"
    RANDOM_EXPONENTIAL = "random_exponential"
    EXPONENTIAL_JITTER = "exponential_jitter"
    SUM = "sum"
    CHAIN = "chain"
    SCHEDULE = "schedule"
    LOOP = "loop"  # the sleeps of a hand-rolled loop


class RetriedKind(enum.Enum):
    """What a retry retries."""

    ANY = "any"  # every exception
    TYPES = "types"  # the exception types in ``Retried.types``
    FUNCTION = "function"  # a predicate function that was read (its types and statuses)
    RESULT = "result"  # a returned value, not an exception
    STATUS = "status"  # HTTP statuses (``Retried.statuses``) and connection errors
    UNKNOWN = "unknown"


#: the largest wait (seconds) after the k-th failed attempt (k = 1, 2, ...), or UNKNOWN/None
Bound = Callable[[int], Number]


@dataclass(frozen=True, eq=False)
class Wait:
    """The waits between attempts.

    ``bound(k)`` is the largest wait (seconds) after the k-th failed attempt (k = 1, 2, ...),
    ``None`` if unbounded or :data:`UNKNOWN`. ``node`` is the expression a fix rewrites
    (the ``wait=...`` value), if any; ``zero`` says every wait is 0; ``reads_retry_after``
    whether a wait follows the server's ``Retry-After`` (``None``: cannot tell); ``trailing``
    that the last failed attempt waits too before the retry gives up (a hand-rolled loop that
    sleeps at the end of every failed pass), so ``bound(attempts)`` is waited as well.
    """

    shape: WaitShape
    jitter: Jitter
    bound: Bound
    node: Optional[cst.CSTNode] = None
    zero: bool = False
    reads_retry_after: Optional[bool] = False
    trailing: bool = False

    @staticmethod
    def none(node=None) -> "Wait":
        return Wait(WaitShape.NONE, Jitter.NO, lambda k: 0.0, node, zero=True)

    @staticmethod
    def unknown(node=None) -> "Wait":
        return Wait(WaitShape.UNKNOWN, Jitter.UNKNOWN, lambda k: UNKNOWN, node, reads_retry_after=None)


@dataclass(frozen=True, eq=False)
class Retried:
    """What a retry retries.

    ``types`` are canonical qualified names of exception classes; ``statuses`` the HTTP
    codes it retries; ``checks_status`` whether its predicate inspects a status code;
    ``node`` the expression that says it (for fixes); ``default`` whether it is the
    library's default (nothing was passed). ``excluded`` are exception types it never
    retries (tenacity ``retry_if_not_exception_type``); ``filtered`` says a predicate
    decides per error to give up (backoff ``giveup=``), so any type may be excluded.
    ``reasks`` says the retried operation parses a model's reply into a schema, so part of what
    a broad predicate retries is a parse failure another attempt can fix (LangChain
    ``with_structured_output``). ``classified`` says the retried code's broad ``except`` handlers
    give up on the errors a test of their own picks out (``if not is_transient(e): raise``),
    which reslint does not read. ``inherited`` says the predicate is another object's, which is
    judged where it is built (a dramatiq actor that gives no retry option is retried as its
    broker's ``Retries`` middleware says).
    """

    kind: RetriedKind
    types: Tuple[str, ...] = ()
    statuses: FrozenSet[int] = frozenset()
    checks_status: bool = False
    node: Optional[cst.CSTNode] = None
    default: bool = False
    excluded: Tuple[str, ...] = ()
    filtered: bool = False
    reasks: bool = False
    classified: bool = False
    inherited: bool = False

    @property
    def retries_statuses(self) -> bool:
        """Whether HTTP statuses are retried (not only connection errors)."""
        return self.kind is RetriedKind.STATUS and bool(self.statuses)


@dataclass(frozen=True, eq=False)
class LoopFacts:
    """What only a hand-rolled loop has: the nodes its findings go to.

    ``sleeps`` are the sleep calls of the loop body (jitter and Retry-After findings go
    there), ``handlers`` the ``except`` handlers that go round again (what is retried);
    ``sleeps_in_handlers`` the ``id()`` of the sleeps inside a handler, ``sleeps_after_rate_limit``
    those inside a handler that catches an error the try raises on a 429 (``if r.status_code ==
    429: raise RateLimited()``, ``except RateLimited: sleep(...)``); ``raise_for_status``
    whether a try body calls ``raise_for_status()``; ``aimed_at_rate_limit`` whether the
    loop handles 429 or a rate-limit error; ``time_capped`` whether it compares a clock with
    a bound (the bound itself may be unknown: then ``max_delay_s`` is UNKNOWN); ``poll`` whether
    it waits for a condition (a success status it compares with) and catches no fault.
    """

    sleeps: Tuple[cst.Call, ...] = ()
    handlers: Tuple[cst.ExceptHandler, ...] = ()
    sleeps_in_handlers: FrozenSet[int] = frozenset()
    sleeps_after_rate_limit: FrozenSet[int] = frozenset()
    raise_for_status: bool = False
    aimed_at_rate_limit: bool = False
    time_capped: bool = False
    poll: bool = False
    #: the name that counts attempts when it is not a ``for`` loop's target (a recursion's counter
    #: parameter): a sleep computed from it grows with the attempts
    counter: Optional[str] = None
    #: the parameter values the loop was read under (a retry helper's defaults, see
    #: ``Context.bound_params``): what a rule re-reading its sleeps must bind too
    bound: Optional[Mapping] = None


@dataclass(frozen=True, eq=False)
class RetryPolicy:
    """One retry mechanism instance, anchored at ``node`` (where its findings go).

    ``adapter`` is the mechanism's adapter (:class:`reslint.libraries.base.RetryAdapter`): rules
    ask it for labels, fixes and advice, never for its name. ``call`` is the constructor or decorator call and
    ``stop_node`` the ``stop=`` expression, for fixes. ``stop_all`` flags tenacity's
    ``stop=a & b`` trap (it stops only when both hold); ``reraise`` is False when the library
    raises its own give-up error; ``connect_only`` when only connection failures are retried.
    Compared by identity: the same spelling read twice is one policy.
    """

    adapter: "RetryAdapter"
    role: Role
    node: cst.CSTNode
    attempts: Number = UNKNOWN
    max_delay_s: Number = UNKNOWN
    wait: Wait = Wait.unknown()
    retried: Retried = Retried(RetriedKind.UNKNOWN)
    stop_all: bool = False
    reraise: bool = True
    connect_only: bool = False
    call: Optional[cst.Call] = None
    stop_node: Optional[cst.CSTNode] = None
    loop: Optional[LoopFacts] = None

    @property
    def library(self) -> str:
        """The adapter's short name (``tenacity``, ``loop``): data for summaries, never a branch."""
        return self.adapter.name

    @property
    def is_loop(self) -> bool:
        return self.loop is not None

    @property
    def has_attempt_cap(self) -> bool:
        return is_number(self.attempts)

    @property
    def has_time_cap(self) -> bool:
        """A total-time cap exists (its size may be unknown for hand-rolled deadlines)."""
        return is_number(self.max_delay_s) or (self.loop is not None and self.loop.time_capped)

    @property
    def retries(self) -> bool:
        """Whether the policy can make more than one attempt."""
        return not (isinstance(self.attempts, int) and self.attempts <= 1)

    @property
    def wait_name(self) -> str:
        """The wait's shape for messages: ``exponential``, or the library for its own schedule."""
        return self.adapter.name if self.wait.shape is WaitShape.SCHEDULE else self.wait.shape.value


# -- combinators: waits and predicates built from parts -------------------------------------------
def _sum_jitter(parts: Sequence[Wait]) -> Jitter:
    jitters = {p.jitter for p in parts}
    for jitter in (Jitter.YES, Jitter.UNKNOWN, Jitter.PARTIAL):
        if jitter in jitters:
            return jitter
    return Jitter.NO


def wait_sum(parts: Sequence[Wait], node) -> Wait:
    """The waits of ``a + b``: each bound is the sum of the parts' bounds; one random part
    jitters the whole."""
    parts = tuple(parts)
    reads = None if any(p.reads_retry_after is None for p in parts) else any(p.reads_retry_after for p in parts)
    return Wait(WaitShape.SUM, _sum_jitter(parts), lambda k: total([p.bound(k) for p in parts]), node,
                zero=all(p.zero for p in parts), reads_retry_after=reads)


def wait_chain(parts: Sequence[Wait], node) -> Wait:
    """The waits of a chain: the k-th part after the k-th failure, the last one after that."""
    parts = tuple(parts)
    jitters = {p.jitter for p in parts}
    if len(jitters) == 1:
        jitter = jitters.pop()
    else:
        jitter = Jitter.UNKNOWN if Jitter.UNKNOWN in jitters else Jitter.PARTIAL
    return Wait(WaitShape.CHAIN, jitter, lambda k: parts[min(k, len(parts)) - 1].bound(k), node,
                zero=all(p.zero for p in parts))


def retried_union(parts: Sequence[Retried], node) -> Retried:
    """What ``a | b`` (or ``a & b``, read generously) of predicates retries."""
    if any(p.kind is RetriedKind.UNKNOWN for p in parts):
        return Retried(RetriedKind.UNKNOWN, node=node)
    # read generously for exclusions too: a type one part excludes counts as excluded
    excluded = tuple(dict.fromkeys(t for p in parts for t in p.excluded))
    filtered = any(p.filtered for p in parts)
    if any(p.kind is RetriedKind.ANY for p in parts):
        return Retried(RetriedKind.ANY, ("Exception",), node=node, excluded=excluded, filtered=filtered)
    types = tuple(t for p in parts for t in p.types)
    statuses = frozenset(s for p in parts for s in p.statuses)
    return Retried(RetriedKind.FUNCTION, types, statuses, any(p.checks_status for p in parts), node=node,
                   excluded=excluded, filtered=filtered)


def types_or_unknown(types: Optional[Tuple[str, ...]], node, default: bool = False) -> Retried:
    """``Retried(TYPES, types)`` when the types are known and not empty, else UNKNOWN."""
    if types:
        return Retried(RetriedKind.TYPES, types, node=node, default=default)
    return Retried(RetriedKind.UNKNOWN, node=node)


__all__ = ["Bound", "Jitter", "LoopFacts", "Retried", "RetriedKind", "RetryPolicy", "Role", "Wait", "WaitShape",
           "retried_union", "types_or_unknown", "wait_chain", "wait_sum"]
