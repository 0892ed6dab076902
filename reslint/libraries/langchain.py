"""LangChain: ``runnable.with_retry(...)`` and ``RunnableRetry(bound=..., ...)``.

Facts (with their sources) are in :mod:`reslint.catalog.langchain`: 3 attempts, every ``Exception``
retried, tenacity's ``wait_exponential_jitter`` between attempts (``wait_exponential_jitter=False``:
no wait at all), no time cap. The policy retries the Runnable it is called on (or ``bound=``): a chat
model there is a client that retries inside (RES301). Running the Runnable it builds
(``retried.invoke(q)``, :attr:`LangChain.receiver_run_methods`) inside another retry adds its attempts to
that chain, around the chat model's own.

``with_retry`` is a method of every Runnable, and what it is called on is rarely a name reslint can
type (``prompt | llm``, ``init_chat_model(...)``, ``llm.with_structured_output(S)``): it is
recognised by its name (:attr:`LangChain.method_spellings`) in a file that imports LangChain.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from reslint.catalog import langchain as cat
from reslint.libraries.base import Remedy, RetryAdapter, Site, roles
from reslint.semantics.context import Context
from reslint.model.policy import Jitter, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import Args, PolicyReader
from reslint.values import UNKNOWN, add, clamp, is_number, mul, scaled_power

#: how many builder calls ``_parses_reply`` looks through (``a.b(...).c(...)...``)
_MAX_BUILDERS = 16

WITH_RETRY = "langchain_core.runnables.Runnable.with_retry"
RUNNABLE_RETRY = "langchain_core.runnables.RunnableRetry"
#: ``RunnableRetry``'s field holding the Runnable it retries (:meth:`LangChain.receiver`)
BOUND = "bound"
#: what the reader (and :meth:`LangChain.receiver`) take from each spelling
KEYWORDS = {WITH_RETRY: tuple(cat.RUNNABLE_RETRY_FIELDS), RUNNABLE_RETRY: (BOUND, *cat.RUNNABLE_RETRY_FIELDS.values())}


class LangChain(RetryAdapter):
    name = "langchain"
    spellings = roles(WITH_RETRY, RUNNABLE_RETRY, role=Role.OBJECT)
    method_spellings = {"with_retry": WITH_RETRY}
    trigger_modules = ("langchain_core", "langchain", "langchain_openai", "langchain_anthropic", "langchain_community")
    retries_receiver = True
    receiver_run_methods = cat.RETRIED_RUN_METHODS
    keywords = KEYWORDS

    @property
    def label(self) -> str:
        return "LangChain `with_retry`"

    @property
    def layer_label(self) -> str:
        return "LangChain with_retry"

    def read(self, site: Site, reader: PolicyReader) -> Optional[RetryPolicy]:
        call, scope = site.call, site.scope
        args = Args(call)
        if call is None or args.star:
            return self.policy(site)
        names = cat.RUNNABLE_RETRY_FIELDS if site.qualname == RUNNABLE_RETRY else {k: k for k in cat.RUNNABLE_RETRY_FIELDS}
        attempts = reader.count(args, names["stop_after_attempt"], cat.WITH_RETRY_DEFAULTS["stop_after_attempt"], scope)
        if attempts == 0:  # `if self.max_attempt_number:`: no stop at all
            attempts = None
        return self.policy(site, attempts=attempts, max_delay_s=None,
                           wait=self._wait(reader, args, names, scope),
                           retried=self._retried(reader, args.expr(names["retry_if_exception_type"]), scope,
                                                 self._parses_reply(site, reader.ctx)))

    def _wait(self, reader: PolicyReader, args: Args, names, scope) -> Wait:
        switch = names["wait_exponential_jitter"]
        on = reader.given(args, switch, cat.WITH_RETRY_DEFAULTS["wait_exponential_jitter"], scope)
        if on is UNKNOWN:
            return Wait.unknown(args.arg(switch))
        if not on:
            return Wait.none(args.arg(switch))
        params = dict(cat.JITTER_PARAMS)
        given = args.expr(names["exponential_jitter_params"])
        if given is not None:
            given, gscope = reader.ctx.resolve(given, scope)
            if not isinstance(given, cst.Dict):
                return Wait.unknown(args.arg(names["exponential_jitter_params"]))
            for element in given.elements:
                key = reader.value(element.key, gscope) if isinstance(element, cst.DictElement) else UNKNOWN
                key = "initial" if key == "multiplier" else key  # tenacity 9.1's name for it
                if key not in params:
                    return Wait.unknown(args.arg(names["exponential_jitter_params"]))
                value = reader.value(element.value, gscope)
                params[key] = float(value) if is_number(value) else (None if value is None else UNKNOWN)
        p = params
        return Wait(WaitShape.EXPONENTIAL_JITTER, Jitter.PARTIAL,
                    lambda k: clamp(add(mul(p["initial"], scaled_power(p["exp_base"], k - 1)), p["jitter"]), None,
                                    p["max"]), args.arg(switch))

    def _retried(self, reader: PolicyReader, expr, scope, reasks: bool) -> Retried:
        if expr is None:
            return Retried(RetriedKind.ANY, ("Exception",), default=True, reasks=reasks)
        types = reader.exception_types(expr, scope)
        if types is None:
            return dataclasses.replace(reader.predicate_function(expr, scope, expr), reasks=reasks)
        return Retried(RetriedKind.TYPES, types, node=expr, reasks=reasks)

    def _parses_reply(self, site: Site, ctx: Context) -> bool:
        """Whether the Runnable retried is built by ``with_structured_output`` (catalog
        ``STRUCTURED_OUTPUT_METHODS``): ``model.with_structured_output(S).with_retry()``, also
        through names (``structured = model.with_structured_output(S)``) and other builder
        methods in between (``.with_config(...)``)."""
        call = site.call
        if call is None or not isinstance(call.func, cst.Attribute):
            return False
        node, scope, seen = call.func.value, site.scope, 0
        while seen < _MAX_BUILDERS:
            seen += 1
            node, scope = ctx.resolve(node, scope)
            if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                return False
            if node.func.attr.value in cat.STRUCTURED_OUTPUT_METHODS:
                return True
            node = node.func.value
        return False

    def advice(self, remedy: Remedy, policy: RetryPolicy, limit_s: float = 0.0) -> Optional[str]:
        if remedy is Remedy.TIME_CAP:
            return (f"`with_retry` cannot cap total time: lower `stop_after_attempt`, or bound each attempt with the "
                    f"model's `timeout=` so that attempts x timeout stays under {limit_s:g} s")
        if remedy is Remedy.NARROW:
            return "pass `retry_if_exception_type=` the transient errors (rate limits, timeouts, 5xx)"
        if remedy is Remedy.BACKOFF:
            return "keep `wait_exponential_jitter=True` (the default)"
        return None

    def receiver(self, policy: RetryPolicy) -> Optional[cst.BaseExpression]:
        """What the policy retries: the object ``with_retry`` is called on, or ``bound=`` of a
        ``RunnableRetry(...)``."""
        call = policy.call
        if call is None:
            return None
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in self.method_spellings:
            return call.func.value
        return Args(call).expr(BOUND)

    def wrapped_function(self, receiver: cst.BaseExpression, ctx: Context) -> Optional[cst.BaseExpression]:
        """``RunnableLambda(fn)`` (also bound to a name): ``fn``, which each attempt calls."""
        receiver, scope = ctx.resolve(receiver)
        if not isinstance(receiver, cst.Call) or ctx.qualname(receiver.func, scope) not in cat.FUNCTION_RUNNABLES:
            return None
        function = Args(receiver, ("func",)).expr("func")
        return function if isinstance(function, (cst.Name, cst.Attribute)) else None


ADAPTER = LangChain()
