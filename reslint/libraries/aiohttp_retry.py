"""aiohttp_retry: ``RetryClient(retry_options=ExponentialRetry(...))`` and its option classes.

Only what RES403 asks is modelled (which requests are replayed); its waits and caps are not
read as a retry policy yet. Facts from aiohttp_retry/client.py and retry_options.py (2.9.1),
in the catalog (``AIOHTTP_RETRY_*``): a response is retried when its method is in ``methods``
(default: every verb) and its status is a 5xx (``retry_all_server_errors=True``), in
``statuses``, or a callback says so; an exception in ``exceptions`` (default: none) is retried
for every method; ``attempts`` counts the first call (3).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.catalog import idempotency as cat
from reslint.semantics.context import Context
from reslint.libraries import replays
from reslint.libraries.base import RetryAdapter, UnsafeReplay

#: what to pass instead of the defaults
SAFE_METHODS = "{'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'}"


class AiohttpRetry(RetryAdapter):
    name = "aiohttp_retry"
    replay_spellings = frozenset(cat.AIOHTTP_RETRY_OPTIONS | {cat.AIOHTTP_RETRY_CLIENT})

    def read(self, site, reader):  # pragma: no cover - no retry policy is read from it yet
        return None

    def unsafe_replay(self, call: cst.Call, qualname: str, ctx: Context) -> Optional[UnsafeReplay]:
        if qualname == cat.AIOHTTP_RETRY_CLIENT:
            return _default_client(call)
        return _options(call, qualname, ctx)


def _default_client(call: cst.Call) -> Optional[UnsafeReplay]:
    """``RetryClient()`` without ``retry_options``: ``ExponentialRetry()``, every method."""
    if any(a.keyword is not None and a.keyword.value == "retry_options" for a in call.args) or \
            any(a.star for a in call.args):
        return None
    return UnsafeReplay(call, "`RetryClient()` uses `ExponentialRetry()`, which retries every method, POST and PATCH "
                              "included", f"pass `retry_options=ExponentialRetry(methods={SAFE_METHODS})`")


def _options(call: cst.Call, qualname: str, ctx: Context) -> Optional[UnsafeReplay]:
    """An option object that replays POST/PATCH after a 5xx, or after an error raised once the
    request was sent."""
    if any(a.star for a in call.args):
        return None
    args = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    attempts = ctx.value_of(args["attempts"]) if "attempts" in args else \
        (ctx.value_of(call.args[0].value) if call.args and call.args[0].keyword is None
         else cat.AIOHTTP_RETRY_DEFAULT_ATTEMPTS)
    if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts <= 1:
        return None  # one attempt: nothing is replayed
    problems, fix = [], None
    if _retries_responses(args, ctx):
        arg = args.get("methods")
        if arg is None or ctx.value_of(arg) is None:
            problems.append("without `methods=` it retries every method after a 5xx, POST and PATCH included")
        else:
            unsafe = sorted(m for m in replays.methods(ctx, arg) if m.upper() in cat.NON_IDEMPOTENT_METHODS)
            if unsafe:
                problems.append(f"`methods=` retries {', '.join(unsafe)} after a 5xx")
                fix = replays.without_unsafe(ctx, arg, unsafe, call)
    replayed = _sent_exceptions(args.get("exceptions"), ctx)
    if replayed:
        problems.append(f"`exceptions=` retries {', '.join(f'`{e}`' for e in replayed)} for every method, "
                        f"POST and PATCH included (aiohttp_retry applies `methods=` to responses only)")
    if not problems:
        return None
    advice = f"pass `methods={SAFE_METHODS}`" if not replayed else \
        "list only errors raised before the request is sent (`aiohttp.ClientConnectorError`) in `exceptions=`, " \
        "or send an Idempotency-Key"
    return UnsafeReplay(call, f"`{qualname.rsplit('.', 1)[1]}`: {'; '.join(problems)}", advice, fix)


def _retries_responses(args, ctx: Context) -> bool:
    """Whether some response is retried: a 5xx (``retry_all_server_errors`` not False), ``statuses`` or a callback."""
    if "retry_all_server_errors" not in args or ctx.value_of(args["retry_all_server_errors"]) is not False:
        return True
    statuses = args.get("statuses")
    if statuses is not None and ctx.value_of(statuses) is not None and not replays.empty(ctx, statuses):
        return True
    callback = args.get("evaluate_response_callback")
    return callback is not None and ctx.value_of(callback) is not None


def _sent_exceptions(expr, ctx: Context):
    """The retried exceptions that can be raised after the request was sent (names), when all are known."""
    if expr is None:
        return []
    expr, scope = replays.collection(ctx, expr)
    if expr is None:
        return []  # unknown: never reported
    names = []
    for element in expr.elements:
        qual = ctx.qualname(element.value, scope) if isinstance(element, cst.Element) else None
        if qual is None:
            return []
        names.append(qual)
    return [n for n in names if n not in cat.NOT_SENT_ERRORS]


ADAPTER = AiohttpRetry()
