"""circuitbreaker: the ``@circuit`` decorator, or a ``CircuitBreaker`` (subclass) instance used as one.

Read in circuitbreaker.py (2.1.3): ``circuit`` is a decorator used bare or with arguments
(``failure_threshold``, ``recovery_timeout``, ``expected_exception``, ``name``,
``fallback_function``, ``cls``); ``CircuitBreaker.__call__`` decorates; ``CircuitBreaker.call(func,
...)`` calls through it. An open circuit calls ``fallback_function`` (or the class attribute
``FALLBACK_FUNCTION``) when one is set, and raises ``CircuitBreakerError`` only when none is.
https://github.com/fabfuel/circuitbreaker#usage
"""

from __future__ import annotations

from reslint.libraries.breaker_base import BreakerAdapter


class CircuitBreakerPackage(BreakerAdapter):
    name = "circuitbreaker"
    trigger_modules = ("circuitbreaker",)
    breaker_types = ("circuitbreaker.CircuitBreaker",)
    decorator_functions = ("circuitbreaker.circuit",)
    decorator_classes = ("circuitbreaker.CircuitBreaker",)
    call_methods = ("call",)
    open_errors = ("circuitbreaker.CircuitBreakerError",)
    fallback_keyword = "fallback_function"
    fallback_attribute = "FALLBACK_FUNCTION"


BREAKER = CircuitBreakerPackage()
