"""pybreaker: ``CircuitBreaker`` objects used as ``@breaker``, ``breaker.call(fn)`` or ``with breaker.calling():``.

Read in pybreaker/__init__.py (1.4.1): ``CircuitBreaker.__call__`` decorates a function,
``call``/``call_async`` call one through the breaker, ``calling()`` is a context manager;
an open breaker raises ``CircuitBreakerError`` from ``CircuitOpenState.before_call`` (also
after ``throw_new_error_on_trip=False``, which only changes the error raised on the trip
itself). https://github.com/danielfm/pybreaker#usage
"""

from __future__ import annotations

from reslint.libraries.breaker_base import BreakerAdapter


class PyBreaker(BreakerAdapter):
    name = "pybreaker"
    trigger_modules = ("pybreaker",)
    breaker_types = ("pybreaker.CircuitBreaker",)
    call_methods = ("call", "call_async")
    context_methods = ("calling",)
    open_errors = ("pybreaker.CircuitBreakerError",)


BREAKER = PyBreaker()
