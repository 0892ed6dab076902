"""purgatory: breaker factories whose call is a decorator (``@factory("name")``) and whose
``get_breaker("name")`` guards a ``with`` block.

Read in purgatory/service/_sync/circuitbreaker.py and _async/circuitbreaker.py (3.0.1):
``SyncCircuitBreakerFactory.__call__(circuit, ...)`` returns a decorator, ``get_breaker(circuit)``
a breaker used as a context manager (``async with await factory.get_breaker(...)`` for the async
factory); an open breaker raises ``purgatory.domain.model.OpenedState``, an exception.
https://mardiros.github.io/purgatory/user/introduction.html
"""

from __future__ import annotations

from reslint.libraries.breaker_base import BreakerAdapter


class Purgatory(BreakerAdapter):
    name = "purgatory"
    trigger_modules = ("purgatory",)
    decorator_factories = ("purgatory.SyncCircuitBreakerFactory", "purgatory.AsyncCircuitBreakerFactory")
    context_methods = ("get_breaker",)
    open_errors = ("purgatory.domain.model.OpenedState",)


BREAKER = Purgatory()
