"""What a rule can ask an adapter for: a :class:`Remedy` (a change that makes a retry policy
safer) spelled as a fix or advice, given a :class:`FixContext`.

Part of the model so that rules name remedies without importing any adapter.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from reslint.semantics.context import Context, Scope


class Remedy(enum.Enum):
    """A change that makes a retry policy safer; each adapter spells the ones it can."""

    JITTER = "add jitter"  # RES201 (a loop's fix also takes the sleep)
    TIME_CAP = "add a time cap"  # RES202 (limit_s)
    BOUNDS = "add an attempt cap and a time cap"  # RES203 (limit_s)
    COMBINE_STOPS = "stop when either condition holds"  # RES203 (a stop that needs all its conditions)
    NARROW = "narrow to transient errors"  # RES204 (transient, imports)
    BACKOFF = "add backoff"  # RES205
    RETRY_AFTER = "honour Retry-After"  # RES206
    EXCLUDE = "stop retrying an error"  # RES501 (error: the error as the file spells it, imports)


@dataclass(frozen=True)
class FixContext:
    """What a fix writer needs besides the policy: the file's context (names, imports), its
    settings (the project root for pinned versions), the scope the new code goes in and the
    statement that holds the policy's call, where a comment explaining an argument may follow
    it (``None``: the scope and the statement being visited)."""

    ctx: Context
    scope: Optional[Scope] = None
    where: Optional[object] = None

    @property
    def settings(self):
        return self.ctx.settings

    @property
    def statement(self):
        """The statement that holds the policy's call (:attr:`Context.statement` when visited)."""
        return self.where if self.where is not None else self.ctx.statement


@dataclass(frozen=True)
class UnsafeReplay:
    """A retry configuration that replays non-idempotent requests (RES403), as its adapter says
    it: ``what`` it replays (the message's start), ``advice`` (its end) and a ``fix``, if any."""

    node: object
    what: str
    advice: str
    fix: Optional[object] = None
