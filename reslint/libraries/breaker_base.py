"""What a circuit-breaker adapter is: the one place that knows one breaker library (RES501).

A breaker is not a retry: it counts failures and, once open, refuses calls at once with its
own error. RES501 asks two questions of a breaker library, and its adapter (a
:class:`BreakerAdapter`, ``BREAKER = ...`` in one module of :mod:`reslint.libraries`) answers
them as data, each with its source:

- how a call is guarded by a breaker: a decorator (``@breaker``, ``@circuit``, a factory's
  ``@factory("name")``), a method that calls a function through it (``breaker.call(fn)``) or a
  context manager (``with breaker.calling():``);
- which error it raises when it is open (``open_errors``), and what makes it raise none
  (``fallback_keyword``: ``@circuit(fallback_function=f)`` calls ``f`` instead).

Types are canonical qualified names (``pybreaker.CircuitBreaker``); an instance's type is
what :meth:`reslint.semantics.context.Context.type_of` says.
"""

from __future__ import annotations

from typing import ClassVar, Optional, Tuple


class BreakerAdapter:
    """One circuit-breaker library. Subclasses set the class attributes; nothing is computed."""

    #: the short name, for messages (``pybreaker``)
    name: ClassVar[str] = ""
    #: top-level modules a file imports to use it (the prefilter's triggers)
    trigger_modules: ClassVar[Tuple[str, ...]] = ()
    #: types whose instances are breakers: ``@breaker`` guards the function, ``breaker.call(fn)`` a call
    breaker_types: ClassVar[Tuple[str, ...]] = ()
    #: functions that are a breaker decorator, bare (``@circuit``) or called (``@circuit(...)``)
    decorator_functions: ClassVar[Tuple[str, ...]] = ()
    #: breaker classes whose instance, built in the decorator (``@CircuitBreaker(...)``), is one
    decorator_classes: ClassVar[Tuple[str, ...]] = ()
    #: types whose instances, called, make a breaker decorator (``@factory("payments")``)
    decorator_factories: ClassVar[Tuple[str, ...]] = ()
    #: methods of a breaker that call the function given to them through it
    call_methods: ClassVar[Tuple[str, ...]] = ()
    #: methods of a breaker (or of a factory type) whose value guards a ``with`` block
    context_methods: ClassVar[Tuple[str, ...]] = ()
    #: the error raised, with its import spellings, when a call is refused because the breaker is open
    open_errors: ClassVar[Tuple[str, ...]] = ()
    #: a keyword of the decorator or constructor that replaces the error with a fallback call
    fallback_keyword: ClassVar[Optional[str]] = None
    #: a class attribute of a breaker subclass that does the same (``FALLBACK_FUNCTION``)
    fallback_attribute: ClassVar[Optional[str]] = None

    @property
    def open_error(self) -> str:
        """The open-circuit error as a fix spells it (the first of :attr:`open_errors`)."""
        return self.open_errors[0]
