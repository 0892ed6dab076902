"""Worst-case time: one place for the arithmetic behind RES104 and RES202.

Per attempt, a call costs the sum of its timeout phases (requests connect + read,
httpx's four phases, botocore connect + read); between attempts, the largest
wait the policy can draw; server-sent ``Retry-After`` waits are left out
(RES206 covers them). All values are seconds; ``None`` means unbounded and
:data:`~reslint.semantics.context.UNKNOWN` unknown (DESIGN section 2, "Worst-case time").
"""

from __future__ import annotations

import math
from typing import Optional

import libcst as cst

from reslint.analysis.loops import own_nodes
from reslint.analysis.timeouts import read_call_timeout
from reslint.catalog import lookup_timeout_call
from reslint.catalog.model import CEILING_CATEGORIES, INHERITED
from reslint.semantics.arguments import find_argument
from reslint.semantics.context import Context
from reslint.model.policy import RetryPolicy
from reslint.values import UNKNOWN, is_number
from reslint.semantics.walk import expressions

MAX_WAITS = 10_000  # an attempt cap above this is treated as unbounded for the arithmetic


def call_time(call: cst.Call, ctx: Context, fixed_s: Optional[float] = None, scope=None):
    """Seconds one attempt of ``call`` can take (sum of phases), ``None`` when the call
    is not a timeout-bearing call in the catalog, UNKNOWN when it cannot be read.
    A call on a client that carries the timeout (``client.get()``) costs what the
    client's constructor says. ``fixed_s``: a call that waits forever (RES101) costs what it
    would with the timeout its fix gives it, per phase: its category's ``default-timeout``, or
    ``fixed_s`` seconds when that is shorter (``math.inf``: the default); ``None``: UNKNOWN.
    ``scope``: the scope the call is in, where its client's name is looked up (by default the
    one being visited; a rule that reads a function's body after the walk passes it)."""
    reading = read_call_timeout(call, ctx)
    if reading is not None and not reading.spec.blocks:
        return None  # sets a timeout for later calls (``client.with_options(timeout=30)``), waits on nothing
    if reading is not None and reading.spec.carrier and not _opens_connection(call, reading.spec):
        return None  # builds a client that connects on its first request: the requests wait, not this
    if reading is not None and reading.per_attempt_s is not None:
        return reading.per_attempt_s
    if fixed_s is not None and reading is not None and reading.unbounded and ctx.settings is not None:
        return min(ctx.settings.default_timeout_for(reading.spec.category), fixed_s) * reading.spec.number_phases
    inherits = reading is None or reading.spec.default_s == INHERITED
    if inherits and isinstance(call.func, cst.Attribute):
        # a catalog request (``client.chat.completions.create``) inherits through its resource path;
        # any other method only from the object it is called on (``session.headers.update`` is no request)
        constructor = _carrier_of(call.func.value, ctx, scope) if reading is not None else \
            ctx.constructor_of(call.func.value, scope)
        built = read_call_timeout(constructor, ctx) if constructor is not None else None
        if built is not None and built.spec.carrier:
            return built.per_attempt_s if built.per_attempt_s is not None else UNKNOWN
        if constructor is None:
            longest = _longest_of_clients(call, ctx, scope, through_resources=reading is not None)
            if longest is not None:
                return longest
    return None if reading is None else UNKNOWN


def _longest_of_clients(call: cst.Call, ctx: Context, scope=None, through_resources: bool = False):
    """For a request on a name bound to one of several clients (``client = OpenAI(key)`` or
    ``client = OpenAI(key, base_url=url)``, by branch), the longest attempt any of them allows:
    the worst case is at least that, also when another binding cannot be read (a parameter,
    another object's attribute), and the worst case is only ever used to show a retry or a
    timeout too long (an unknown time and a short one are never reported); UNKNOWN when none of
    the clients' times can be read; ``None`` when none is a timeout-carrying client, or the call
    is no request of theirs. ``through_resources``: the call is known as a catalog request, which
    reaches its client through a resource path (``client.images.generate``); otherwise a method
    counts when it is called on the client itself (as in :func:`call_time`) or when its path is a
    catalog request of one of the clients (``images.generate`` of an ``openai.OpenAI``)."""
    expr, path = call.func.value, [call.func.attr.value]
    while isinstance(expr, cst.Attribute) and not _bound_attribute(expr, ctx, scope):
        path.insert(0, expr.attr.value)
        expr = expr.value  # ``client.images`` → ``client``
    constructors = ctx.constructors_of(expr, scope) if isinstance(expr, cst.Name) else None
    if constructors is None:
        return None
    readings = [read_call_timeout(c, ctx) if c is not None else None for c in constructors]
    clients = [r for r in readings if r is not None and r.spec.carrier]
    method = ".".join(path)
    if not clients or not (through_resources or len(path) == 1 or
                           any(lookup_timeout_call(f"{r.spec.qualname}.{method}") for r in clients)):
        return None
    known = [r.per_attempt_s for r in clients if r.per_attempt_s is not None]
    return max(known) if known else UNKNOWN


def _opens_connection(call: cst.Call, spec) -> bool:
    """Whether constructing the carrier ``call`` (of catalog ``spec``) connects, and so waits."""
    if spec.opens_connection:
        return True
    return spec.connects_with is not None and find_argument(call, *spec.connects_with) is not None


def _carrier_of(expr, ctx: Context, scope=None):
    """The call whose timeout a request on ``expr`` inherits: the client's constructor, through a
    resource path (``client.chat.completions``) and ``client.with_options(timeout=...)`` copies
    (the copy's timeout when it sets one)."""
    for _ in range(12):
        if isinstance(expr, cst.Attribute) and not _bound_attribute(expr, ctx, scope):
            expr = expr.value
            continue
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            reading = read_call_timeout(expr, ctx)
            if reading is not None and not reading.spec.blocks and reading.state != "missing" and \
                    reading.per_attempt_s is not None:
                return expr  # with_options(timeout=30): the copy's own timeout
            if reading is not None and not reading.spec.blocks:
                expr = expr.func.value
                continue
        break
    return ctx.constructor_of(expr, scope)


def _bound_attribute(expr: cst.Attribute, ctx: Context, scope=None) -> bool:
    """Whether ``expr`` is ``self.x`` bound in its class (then it names an object of its own)."""
    return isinstance(expr.value, cst.Name) and ctx.constructor_of(expr, scope) is not None


def body_time(body, ctx: Context, scope=None, depth: int = 0, empty=UNKNOWN, fixed_s: Optional[float] = None):
    """Seconds one run of a block can take: the sum of its timed calls (catalog calls, and
    calls to functions of this module, followed through). UNKNOWN when a part is unknown
    or a timed call sits in a loop over data; ``empty`` when no timed call is seen;
    ``fixed_s`` as for :func:`call_time`, for the calls written in the block (the functions it
    calls count theirs at their ``default-timeout``: RES101's fix does not see the retry there)."""
    total, seen = 0.0, False
    for node in own_nodes(body):
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            if any(call_time(n, ctx, scope=scope) is not None for n in _calls(node)):
                return UNKNOWN  # repeated once per item: unknown count
            continue
        if not isinstance(node, cst.Call):
            continue
        seconds = call_time(node, ctx, fixed_s, scope)
        if seconds is None:  # a function it calls: its calls get their default-timeout from RES101's fix
            seconds = function_time(node, ctx, scope, depth, math.inf if fixed_s is not None else None)
        if seconds is None:
            continue
        if not is_number(seconds):
            return UNKNOWN
        total, seen = total + seconds, True
    return total if seen else empty


def known_body_time(body, ctx: Context, scope=None, fixed_s: Optional[float] = None):
    """The part of one run's time reslint can show: the sum of timed calls, 0 when the
    block has none (calls reslint does not know add nothing), UNKNOWN when a timed call's
    timeout cannot be read; ``fixed_s`` as for :func:`call_time`."""
    return body_time(body, ctx, scope, empty=0.0, fixed_s=fixed_s)


def _calls(node):
    return [n for n in expressions(node) if isinstance(n, cst.Call)]


def function_time(call: cst.Call, ctx: Context, scope=None, depth: int = 0, fixed_s: Optional[float] = None):
    """Worst-case seconds of a call to a function defined in this module (None if it is
    not one): its body's time, multiplied out by its own retry policy if decorated;
    ``fixed_s`` as for :func:`call_time`."""
    if depth > 6 or ctx.retried is None:
        return None
    func = call.func
    found = ctx.lookup(func.value, scope) if isinstance(func, cst.Name) else None
    if not found or len(found) != 1 or found[0].kind != "def":
        return None
    node: cst.FunctionDef = found[0].node
    outer = scope or ctx.scope
    while outer is not None:
        if outer.node is node:
            return None  # a function calling itself (a retry by recursion): its next run, not part of this one
        outer = outer.parent
    # once per function and depth, not per call: the answer depends on nothing else, and a body
    # calling a long helper thousands of times (or helpers nested six deep) summed it each time
    key = ("function-time", id(node), depth, fixed_s)
    if key not in ctx.cache:
        ctx.cache[key] = _function_time(node, ctx, depth, fixed_s)
    return ctx.cache[key]


def _function_time(node: cst.FunctionDef, ctx: Context, depth: int, fixed_s: Optional[float]):
    inner_scope = ctx.opened_scope(node.body)
    per_run = body_time(node.body, ctx, inner_scope, depth + 1, empty=None, fixed_s=fixed_s)
    if per_run is None:
        return None  # no timed call inside: not part of the estimate
    for entry in ctx.retried.opened.get(id(node.body), ()):
        policy = getattr(entry, "policy", None)
        if policy is not None and not getattr(entry, "reached", False):
            # (a local function the retried code calls runs once per attempt of that retry, not retried by it)
            return retried_time(policy, per_run)
    return per_run


def retried_time(policy: RetryPolicy, per_attempt_s):
    """Worst-case seconds of a retried operation: the attempt-based worst case, or the
    time cap plus one attempt and one wait (caps are checked between attempts)."""
    by_attempts = worst_case(policy, per_attempt_s)
    if not is_number(policy.max_delay_s):
        return by_attempts
    if not is_number(per_attempt_s):
        return UNKNOWN
    waits = [policy.wait.bound(k) for k in (1, 2, 3)]
    overshoot = max((w for w in waits if is_number(w)), default=0.0)
    by_cap = policy.max_delay_s + per_attempt_s + overshoot
    return min(by_attempts, by_cap) if is_number(by_attempts) else by_cap


def total_wait(policy: RetryPolicy):
    """The sum of the largest waits between attempts (seconds), None if unbounded."""
    attempts = policy.attempts
    if attempts is None:
        return None
    if not is_number(attempts):
        return UNKNOWN
    if attempts > MAX_WAITS:
        return None
    if attempts < 1 or (attempts == 1 and not policy.wait.trailing):  # no wait (also -inf from `max_retries=-(10 ** 400)`, which range() cannot take)
        return 0.0
    total = 0.0
    for k in range(1, int(attempts) + (1 if policy.wait.trailing else 0)):
        bound = policy.wait.bound(k)
        if bound is UNKNOWN:
            return UNKNOWN
        if bound is None or bound == float("inf"):
            return None
        total += bound
    return total


def longest_wait(policy: RetryPolicy):
    """The longest single wait (seconds) between two attempts that the retry can reach: ``None`` if
    unbounded, :data:`UNKNOWN` if a wait or the attempt cap is unknown, ``0.0`` with no wait.

    A wait after attempt k is only reached while the time cap (``max_delay_s``) has not run out
    before it, so the earlier waits' sum must be under the cap; attempts are otherwise capped by
    ``attempts`` (and looked at up to 64 waits). Attempt time is not counted (the waits
    alone are a lower bound on how far apart two attempts are). A cap of unknown length lets only
    the first wait count: it is the one sure to come."""
    attempts = policy.attempts
    if attempts is not None and not is_number(attempts):
        return UNKNOWN
    cap = policy.max_delay_s if is_number(policy.max_delay_s) else None
    # a trailing wait (after the last attempt) comes before no attempt: only attempts - 1 waits count;
    # with no attempt cap, the first _UNCAPPED waits (growing waits are past any record's life by then)
    last = _UNCAPPED if attempts is None or attempts > _UNCAPPED else int(attempts) - 1
    if policy.max_delay_s is UNKNOWN:
        last = min(last, 1)  # a cap of unknown length: only the first wait is sure to come
    longest, elapsed = 0.0, 0.0
    for k in range(1, last + 1):
        if cap is not None and elapsed >= cap:
            break  # the cap stops the retry before this wait
        try:
            bound = policy.wait.bound(k)
        except OverflowError:  # a wait too large for a float
            return None
        if bound is UNKNOWN:
            return UNKNOWN
        if bound is None or bound >= _FOREVER_S:
            return None
        longest, elapsed = max(longest, bound), elapsed + bound
    return longest


_FOREVER_S = 10.0 ** 9  # about 32 years: a wait this long is as good as unbounded
_UNCAPPED = 64  # waits looked at when the attempts are not capped (2 ** 63 s is past _FOREVER_S)


def worst_case(policy: RetryPolicy, per_attempt_s):
    """attempts x per-attempt time + waits (seconds), None if unbounded, else UNKNOWN."""
    waits = total_wait(policy)
    if waits is None or policy.attempts is None:
        return None
    if waits is UNKNOWN or not is_number(per_attempt_s) or not is_number(policy.attempts):
        return UNKNOWN
    return policy.attempts * per_attempt_s + waits


#: the shortest timeout (seconds, per phase) a RES101 fix gives a call so that the retry around it
#: keeps its worst case within its cap; below it the retry itself is too long (RES202)
MIN_FITTED_TIMEOUT_S = 1.0


def caps_attempts_only(policy: RetryPolicy) -> bool:
    """Whether ``policy`` retries with a known attempt cap and no total-time cap (nor a time cap
    of unknown length), and not only connection errors: the retries whose worst case RES202
    judges against the cap."""
    return is_number(policy.attempts) and bool(policy.retries) and not policy.has_time_cap and \
        not policy.connect_only and policy.max_delay_s is not UNKNOWN


def retry_time_limit_s(policy: RetryPolicy, settings) -> float:
    """The cap (seconds) a retry's worst case is judged against: ``max-task-retry-time`` for a
    task queue's retries (the task is queued again), ``max-retry-time`` for the others."""
    return settings.max_task_retry_time if policy.adapter.queued else settings.max_retry_time


def retry_time_setting(policy: RetryPolicy) -> str:
    """The setting :func:`retry_time_limit_s` reads for ``policy``, as messages name it."""
    return "max-task-retry-time" if policy.adapter.queued else "max-retry-time"


def fitted_timeout_s(policy: RetryPolicy, ctx: Context, body=None) -> Optional[float]:
    """The timeout (whole seconds, per phase) that the calls waiting forever (RES101) written in
    ``body`` (by default the scope ``policy`` retries; a decorator shared by several functions
    retries each body) may get so that the retry's worst case stays within its cap, when their
    category's ``default-timeout`` does not: the largest such value from
    :data:`MIN_FITTED_TIMEOUT_S` up. Calls in the functions the body calls are counted at their
    ``default-timeout`` (RES101's fix gives them that, as it does not see the retry there).
    ``None`` when no value is needed (the defaults fit, the policy caps total time or is a poll,
    the body has no such call), when none fits (the retry is too long whatever the calls'
    timeouts: RES202 reports it), when RES101 is off or a call waiting forever is one RES101's fix
    does not bound (a subprocess). Budgets shrink down the call chain: a call's timeout is what
    its retry leaves each attempt. Cached per (policy, body).

    Errors: none; an unreadable part of the body gives ``None``."""
    retried = ctx.retried
    if retried is None or ctx.settings is None or not caps_attempts_only(policy) or retried.is_poll(policy) \
            or retried.retries_nothing(policy) or FIXING_RULE not in ctx.settings.enabled:
        return None
    if body is None:
        scope = retried.scope_of(policy)
        if scope is None:
            return None
        body = scope.node
    key = ("fitted-timeout", id(policy), id(body))
    if key not in ctx.cache:
        ctx.cache[key] = _fitted_timeout_s(policy, ctx, body)
    return ctx.cache[key]


#: the rule whose fix gives a call its timeout (RES202 counts on it only when it is on)
FIXING_RULE = "RES101"


def _fitted_timeout_s(policy: RetryPolicy, ctx: Context, body) -> Optional[float]:
    limit = retry_time_limit_s(policy, ctx.settings)
    inner = ctx.opened_scope(body)
    if not _fixes_bound_every_wait(body, ctx, inner):
        return None

    def fits(seconds: float) -> Optional[bool]:
        total = worst_case(policy, known_body_time(body, ctx, inner, fixed_s=seconds))
        return total <= limit if is_number(total) else None

    if fits(math.inf) is not False or not fits(MIN_FITTED_TIMEOUT_S):
        return None
    settings = ctx.settings
    low = int(MIN_FITTED_TIMEOUT_S)
    high = int(max([settings.default_timeout] + [settings.default_timeout_for(c) for c in CEILING_CATEGORIES]))
    while low < high:  # the largest whole number of seconds that fits: the time grows with it
        middle = (low + high + 1) // 2
        if fits(float(middle)):
            low = middle
        else:
            high = middle - 1
    return float(low)


def _fixes_bound_every_wait(body, ctx: Context, scope) -> bool:
    """Whether every call written in ``body`` that waits forever is of a category whose RES101
    fix adds a timeout (a network, database or model call; a subprocess is reported and fixed
    only when its program talks to the network)."""
    with ctx.in_scope(scope):
        for node in own_nodes(body):
            if isinstance(node, cst.Call):
                reading = read_call_timeout(node, ctx)
                if reading is not None and reading.unbounded and reading.spec.category not in CEILING_CATEGORIES:
                    return False
    return True


def fmt(seconds) -> str:
    """``12.0`` → ``12 s``; ``13.05`` → ``13.05 s``; from two hours on, the hours or days too
    (``4007010 s (46.4 days)``), below 10**15 s in whole digits rather than ``4.00701e+06``."""
    if not is_number(seconds):
        return "unknown"
    rounded = round(float(seconds), 2)
    if abs(rounded) < 7200 or abs(rounded) >= 1e15:
        return f"{rounded:g} s"
    unit, size = ("days", 86400) if abs(rounded) >= 2 * 86400 else ("h", 3600)
    return f"{rounded:.0f} s ({rounded / size:.3g} {unit})"


def count_text(count) -> str:
    """``6`` → ``6``; a huge count as ``1e+100`` rather than its hundred digits."""
    if isinstance(count, int) and abs(count) < 10 ** 15:
        return str(count)
    try:
        return f"{count:g}"
    except OverflowError:  # an int beyond the float range
        return "more than 1e+308"


def describe(policy: RetryPolicy, per_attempt_s) -> str:
    """``6 attempts × 13.05 s + up to 23 s of waits = 101.3 s`` (parts unknown are said so)."""
    waits = total_wait(policy)
    attempts = count_text(policy.attempts) if is_number(policy.attempts) else "?"
    per = fmt(per_attempt_s) if is_number(per_attempt_s) else "an unknown time"
    wait_text = f"up to {fmt(waits)} of waits" if is_number(waits) else "unbounded waits" if waits is None else \
        "waits of unknown length"
    total = worst_case(policy, per_attempt_s)
    tail = f" = {fmt(total)}" if is_number(total) else ""
    if per_attempt_s == 0 and is_number(waits):  # no timed call seen in the attempts: the waits alone
        return f"{attempts} attempts with {wait_text} (the attempts' own time not counted)"
    return f"{attempts} attempts × {per} + {wait_text}{tail}"
