"""aiobreaker: pybreaker's asyncio fork, ``CircuitBreaker`` objects used as ``@breaker`` or ``breaker.call_async(fn)``.

Read in aiobreaker/circuitbreaker.py and aiobreaker/state.py (1.2.0): ``CircuitBreaker.__call__``
decorates a function or coroutine, ``call``/``call_async`` call one through the breaker; an open
breaker raises ``CircuitBreakerError`` (defined in ``aiobreaker.state``, re-exported by the package).
https://aiobreaker.netlify.app/
"""

from __future__ import annotations

from reslint.libraries.breaker_base import BreakerAdapter


class AioBreaker(BreakerAdapter):
    name = "aiobreaker"
    trigger_modules = ("aiobreaker",)
    breaker_types = ("aiobreaker.CircuitBreaker", "aiobreaker.circuitbreaker.CircuitBreaker")
    call_methods = ("call", "call_async")
    open_errors = ("aiobreaker.CircuitBreakerError", "aiobreaker.state.CircuitBreakerError")


BREAKER = AioBreaker()
