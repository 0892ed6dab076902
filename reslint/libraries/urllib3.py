"""urllib3: the ``urllib3.Retry(...)`` policy object (given to a ``PoolManager`` or a requests
``HTTPAdapter``).

Facts from urllib3/util/retry.py (2.8.0): ``total=10`` retries (``False``: none, errors
raise at once); the wait before the k-th retry is 0 for the first and then
``min(backoff_factor * 2 ** (k - 1) + U(0, backoff_jitter), backoff_max)`` (0, 0, 120 s by
default); ``status_forcelist`` statuses are retried, connection errors always;
``respect_retry_after_header=True`` sleeps the server's ``Retry-After`` (for 413, 429, 503).
There is no time cap. ``backoff_jitter`` exists from urllib3 2.0 on.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.cstutil import add_keyword_arg, source
from reslint.diagnostics import Applicability
from reslint.semantics.edits import FixPlan, copyable
from reslint.catalog.idempotency import NON_IDEMPOTENT_METHODS
from reslint.libraries import replays
from reslint.libraries.base import (FixContext, Remedy, RetryAdapter, Site, UnsafeReplay, add_keyword_fix,
                                    remove_keyword_fix, roles)
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.project import pinned_below
from reslint.values import UNKNOWN, add, clamp, is_number, mul, plus_one, scaled_power, whole

#: urllib3/util/retry.py Retry (2.8.0)
DEFAULTS = {"total": 10, "backoff_factor": 0.0, "backoff_max": 120.0, "backoff_jitter": 0.0,
            "respect_retry_after_header": True}
#: Retry.__init__'s parameters in order (2.8.0)
POSITIONAL = ("total", "connect", "read", "redirect", "status", "other", "allowed_methods", "status_forcelist",
              "backoff_factor", "backoff_max", "raise_on_redirect", "raise_on_status", "history",
              "respect_retry_after_header", "remove_headers_on_redirect", "backoff_jitter")
#: what the reader takes from ``Retry(...)``
KEYWORDS = ("total", "respect_retry_after_header", "backoff_factor", "backoff_max", "backoff_jitter",
            "status_forcelist")
#: what :meth:`Urllib3.unsafe_replay` takes from it: the methods retried (``method_whitelist`` is
#: the name before 1.26, gone in 2.0)
REPLAY_KEYWORDS = ("allowed_methods",)
LEGACY_REPLAY_KEYWORDS = ("method_whitelist",)
#: the first major version with ``backoff_jitter``
JITTER_MAJOR = 2


class Urllib3(RetryAdapter):
    name = "urllib3"
    spellings = roles("urllib3.Retry", role=Role.OBJECT)
    trigger_modules = ("urllib3",)
    retry_after_switch = "respect_retry_after_header"
    object_label = "urllib3 Retry"
    replay_spellings = frozenset({"urllib3.Retry"})
    keywords = {qualname: KEYWORDS for qualname in spellings}

    def read(self, site: Site, reader: PolicyReader) -> RetryPolicy:
        call, scope = site.call, site.scope
        args = Args(call, POSITIONAL)
        if args.star:
            return self.policy(site)
        total = reader.given(args, "total", DEFAULTS["total"], scope)
        respect = reader.given(args, "respect_retry_after_header", DEFAULTS["respect_retry_after_header"], scope)
        return self.policy(site, attempts=attempts_of(total), max_delay_s=None,
                           wait=self._wait(reader, args, scope, None if respect is UNKNOWN else bool(respect)),
                           retried=self._retried(reader, args, scope))

    def _wait(self, reader: PolicyReader, args: Args, scope, reads_retry_after: Optional[bool]) -> Wait:
        factor = reader.number(args, "backoff_factor", DEFAULTS["backoff_factor"], scope=scope)
        cap = reader.number(args, "backoff_max", DEFAULTS["backoff_max"], scope=scope)
        jitter = reader.number(args, "backoff_jitter", DEFAULTS["backoff_jitter"], scope=scope)
        jitter_kind = Jitter.UNKNOWN if not is_number(jitter) else (Jitter.NO if jitter == 0 else Jitter.PARTIAL)
        # Retry.get_backoff_time is 0 until two attempts have failed (consecutive_errors_len <= 1)
        return Wait(WaitShape.SCHEDULE, jitter_kind,
                    lambda k: 0.0 if k == 1 else clamp(add(mul(factor, scaled_power(2.0, k - 1)), jitter), None, cap),
                    args.arg("backoff_factor"), zero=(factor == 0), reads_retry_after=reads_retry_after)

    def _retried(self, reader: PolicyReader, args: Args, scope) -> Retried:
        """Connection errors and the ``status_forcelist`` statuses."""
        given = "status_forcelist" in args
        forcelist = reader.value(args.expr("status_forcelist"), scope) if given else ()
        if isinstance(forcelist, tuple):
            statuses = frozenset(int(v) for v in forcelist if is_number(v))
        else:
            expr, where = reader.ctx.resolve(args.expr("status_forcelist"), scope)
            statuses = frozenset(reader.status_set(expr, where))
        return Retried(RetriedKind.STATUS, (), statuses, True, node=args.expr("status_forcelist"))

    # -- fixes -------------------------------------------------------------------------------
    def fix(self, remedy: Remedy, policy: RetryPolicy, fx: FixContext, **params) -> Optional[FixPlan]:
        call = policy.call
        if call is None:
            return None
        if remedy is Remedy.JITTER:
            return self._jitter(call, fx)
        if remedy is Remedy.BACKOFF:
            return self._backoff(call, fx)
        if remedy is Remedy.RETRY_AFTER:
            fixed = remove_keyword_fix(call, self.retry_after_switch, f"Remove `{self.retry_after_switch}=False`", fx)
            # an unchanged call still carries the message (the switch came by position or **kwargs)
            return fixed or FixPlan(f"Remove `{self.retry_after_switch}=False`", Applicability.SAFE, ((call, call),))
        return super().fix(remedy, policy, fx, **params)

    def _jitter(self, call: cst.Call, fx: FixContext) -> Optional[FixPlan]:
        """``backoff_jitter=`` as large as ``backoff_factor`` (urllib3 >= 2.0)."""
        if pinned_below(fx.settings.root, "urllib3", JITTER_MAJOR):
            return None
        factor = _keyword(call, "backoff_factor")
        if factor is not None and not copyable(factor):
            return None  # the jitter would evaluate the factor's expression a second time
        factor = source(factor) if factor is not None else "1"
        return add_keyword_fix(call, "backoff_jitter", factor, f"Add `backoff_jitter={factor}` (urllib3 >= 2.0)")

    def _backoff(self, call: cst.Call, fx: FixContext) -> Optional[FixPlan]:
        """``backoff_factor=0.5`` (and ``backoff_jitter=0.5`` where urllib3 >= 2.0 may be used)."""
        if _keyword(call, "backoff_factor") is not None:
            return None
        new = add_keyword_arg(call, "backoff_factor", cst.Float("0.5"))
        if pinned_below(fx.settings.root, "urllib3", JITTER_MAJOR):
            return FixPlan("Add `backoff_factor=0.5`", Applicability.SAFE, ((call, new),))
        new = add_keyword_arg(new, "backoff_jitter", cst.Float("0.5"))
        return FixPlan("Add `backoff_factor=0.5, backoff_jitter=0.5` (urllib3 >= 2.0)", Applicability.SAFE,
                       ((call, new),))

    def unsafe_replay(self, call: cst.Call, qualname: str, ctx) -> Optional[UnsafeReplay]:
        return _unsafe_methods(call, ctx)

    advice_text = {
        Remedy.JITTER: "add `backoff_jitter=` (urllib3 >= 2.0)",
        Remedy.TIME_CAP: "lower `total`/`backoff_factor`/`backoff_max` (urllib3 has no total-time cap) or bound "
                         "the calls with a deadline",
        Remedy.BACKOFF: "set `backoff_factor` (and `backoff_jitter`)",
        Remedy.RETRY_AFTER: "keep the default (True)",
    }


def _unsafe_methods(call: cst.Call, ctx) -> Optional[UnsafeReplay]:
    """``allowed_methods=`` (``method_whitelist=`` before 1.26) that lets POST or PATCH be replayed:
    ``None``, ``False`` or empty (every method), or a list naming them."""
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name not in REPLAY_KEYWORDS + LEGACY_REPLAY_KEYWORDS:
            continue
        value = ctx.value_of(arg.value)
        if value is None or value is False or value == () or replays.empty(ctx, arg.value):
            return UnsafeReplay(call, f"urllib3 `Retry({name}={source(arg.value)})` retries every method, POST and "
                                      f"PATCH included", "leave the default (idempotent methods only)",
                                replays.drop_keyword(call, name, ctx))
        # urllib3 compares method.upper() with the entries: only upper-case entries ever match
        unsafe = sorted(m for m in replays.methods(ctx, arg.value) if m in NON_IDEMPOTENT_METHODS)
        if unsafe:
            return UnsafeReplay(call, f"urllib3 `Retry({name}=...)` retries {', '.join(unsafe)}",
                                "retry idempotent methods only, or send an Idempotency-Key",
                                replays.without_unsafe(ctx, arg.value, unsafe, call))
    return None


def retries_attempts(expr: cst.BaseExpression, ctx) -> object:
    """Attempts of a client given ``retries=expr`` (a ``PoolManager``) or ``max_retries=expr`` (a
    requests ``HTTPAdapter``): a number of retries, ``False``, or a ``Retry(...)`` read by the
    file's policy dispatcher (``ctx.retries``); UNKNOWN otherwise."""
    value = ctx.value_of(expr)
    if value is False or is_number(value):
        return attempts_of(value)
    target = ctx.constructor_of(expr)
    policy = ctx.retries.for_call(target) if target is not None else None
    return policy.attempts if policy is not None else UNKNOWN


def attempts_of(total):
    """Attempts from ``Retry(total=...)``'s value: ``False`` is one attempt, N retries N + 1."""
    if total is False:
        return 1
    if is_number(total):
        return plus_one(whole(total))
    return UNKNOWN


def _keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


ADAPTER = Urllib3()
