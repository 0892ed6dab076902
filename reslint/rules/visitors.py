"""The per-file rules, LibCST visitors one module each. ``ALL_RULES`` is their registry, in code order.

RES000 (syntax-error) is reported by the engine itself, not by a visitor; the project rules
(RES301, and the cross-module halves of RES401/RES402) are in :mod:`reslint.rules.project`.
"""

from __future__ import annotations

from typing import List, Type

from reslint.rules.base import Rule
from reslint.rules.res101_missing_timeout import MissingTimeout
from reslint.rules.res102_disabled_timeout import DisabledTimeout
from reslint.rules.res103_excessive_timeout import ExcessiveTimeout
from reslint.rules.res104_timeout_exceeds_deadline import TimeoutExceedsDeadline
from reslint.rules.res105_deadline_not_propagated import DeadlineNotPropagated
from reslint.rules.res201_retry_without_jitter import RetryWithoutJitter
from reslint.rules.res202_retry_without_time_cap import RetryWithoutTimeCap
from reslint.rules.res203_unbounded_retry import UnboundedRetry
from reslint.rules.res204_retry_on_any_error import RetryOnAnyError
from reslint.rules.res205_retry_without_backoff import RetryWithoutBackoff
from reslint.rules.res206_retry_after_ignored import RetryAfterIgnored
from reslint.rules.res401_idempotency_key_in_retry import IdempotencyKeyInRetry
from reslint.rules.res402_non_idempotent_retry import NonIdempotentRetry
from reslint.rules.res403_unsafe_retry_methods import UnsafeRetryMethods
from reslint.rules.res404_non_atomic_dedup import NonAtomicDedup
from reslint.rules.res501_retry_on_open_circuit import RetryOnOpenCircuit

ALL_RULES: List[Type[Rule]] = [
    MissingTimeout, DisabledTimeout, ExcessiveTimeout, TimeoutExceedsDeadline, DeadlineNotPropagated, RetryWithoutJitter,
    RetryWithoutTimeCap, UnboundedRetry, RetryOnAnyError, RetryWithoutBackoff, RetryAfterIgnored,
    IdempotencyKeyInRetry, NonIdempotentRetry, UnsafeRetryMethods, NonAtomicDedup, RetryOnOpenCircuit,
]
