"""Module summaries: the plain, picklable facts the project pass needs from each file.

Made during the per-file walk (:class:`reslint.analysis.summary.SummaryCollector`) and
cached with the file's findings, so a project-wide pass (RES105, RES301, RES401, RES402) never
reparses: functions with their retry layer, retry layers (decorators, loops, clients
that retry inside) and call sites with their resolved callee, the local layers around
them and the client layer they enter. No LibCST here: a re-run served by the cache
unpickles these without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

from reslint.catalog.user import HelperEntry, TaskClassEntry

#: why a replayed write is a fault, and what to do (RES402): one wording for the per-file
#: finding and the project pass's
WRITE_WHY = ("a timeout, a dropped connection or a 5xx answer leaves the outcome unknown, and when the first "
             "attempt did succeed the replay performs the write again (a duplicate row, charge, message or mail)")
#: the same, for a retry that goes round only on an answer's status
STATUS_WRITE_WHY = ("a 5xx answer (a gateway's 502 or 504 too) does not say whether the server acted, and when it "
                    "did the replay performs the write again (a duplicate row, charge, message or mail)")
WRITE_FIX = ("send a stable idempotency key minted once before the first attempt, make the write idempotent "
             "(ON CONFLICT, PUT), or do not retry it")

#: why an ignored time budget is a fault (RES105): one wording for the per-file finding and the project pass's
DEADLINE_WHY = ("when the caller gives up first, this call keeps waiting (holding a connection and a worker) for an "
                "answer no one will read")

ANY = ("*",)  # catches or raises any exception
UNKNOWN_TYPES = ("?",)


@dataclass(frozen=True)
class Layer:
    """A retry layer: ``attempts`` (-1 unknown, 0 unbounded), what it ``catches`` and what it
    ``raises`` after giving up (exception qualified names, ``("*",)`` any, ``("?",)`` unknown,
    ``()`` none: a poll that catches nothing)."""

    id: int
    label: str
    library: str
    attempts: int
    catches: Tuple[str, ...]
    raises: Tuple[str, ...]
    row: int = 0
    column: int = 0
    off: str = ""
    cap: str = ""  # "20 s time cap", "no time cap" or "" (unknown), for messages and graphs
    #: the id of the layer each attempt goes through (a runnable's retry around a chat model that
    #: retries inside): a call entering this layer enters that one too
    wraps: Optional[int] = None
    #: the methods of the object that go through this layer (a ``with_retry`` runnable's
    #: ``invoke``, ``batch``...; its other methods run what it wraps once); ``None``: every one
    methods: Optional[Tuple[str, ...]] = None

    @property
    def retry(self) -> str:
        """The layer as a message names a retry: ``notify retry`` for a decorated function,
        ``digest retry loop`` (not ``digest retry loop retry``) for a loop."""
        return self.label if "retry" in self.label.split() else f"{self.label} retry"


@dataclass(frozen=True)
class CallSite:
    """A call: resolved ``callee`` (absolute dotted name or None), the ids of the module's layers
    around it (outermost first), the client layer it enters (if any), and where it is."""

    callee: Optional[str]
    function: str
    retried_by: Tuple[int, ...] = ()
    client_layer: Optional[int] = None
    row: int = 0
    column: int = 0
    end_row: int = 0
    end_column: int = 0
    #: a keyless non-idempotent write (``HTTP POST``...) outside any local retry, for RES402
    #: through the call graph
    write: Optional[str] = None
    #: for a :attr:`write` whose target (a tool's name) is a parameter of ``function``: that
    #: parameter's position as callers count it (``""``: keyword-only) and its name
    target_param: Tuple[str, ...] = ()
    #: the constant strings a call in a retried scope passes, as ``(slot, value)``: ``slot`` is a
    #: position (``"1"``) or a keyword; its callee may take one as the target of a write
    strings: Tuple[Tuple[str, str], ...] = ()

    def passed(self, param: Tuple[str, ...]) -> Optional[str]:
        """The constant string this call passes for its callee's parameter ``param`` (a
        :attr:`target_param`), or ``None`` when it passes none that is known."""
        if len(param) != 2:
            return None
        position, name = param
        given = dict(self.strings)
        return given.get(name) or (given.get(position) if position else None)


@dataclass(frozen=True)
class Function:
    qualname: str
    layer: Optional[int]
    row: int = 0


@dataclass(frozen=True)
class KeyCall:
    """In a retried scope, the key of a write (``kind`` ``"value"``) or its header/body dict
    (``"dict"``) comes from a call to ``callee``, a function of another module (RES401 across
    modules); ``write`` describes the write (``HTTP POST``)."""

    callee: str
    kind: str
    write: str
    row: int = 0
    column: int = 0


@dataclass(frozen=True)
class KeyReturn:
    """What ``function`` returns as a key: ``kind`` ``"value"`` (the key itself) or ``"dict"``
    (a header/body dict with a key); ``what`` is ``"fresh"`` (minted by the generator ``name`` at
    the position given), ``"external"`` (the result of ``name``, a function of another module) or
    ``"stable"`` (a dict key that is neither)."""

    function: str
    kind: str
    what: str
    name: str = ""
    row: int = 0
    column: int = 0
    end_row: int = 0
    end_column: int = 0


@dataclass(frozen=True)
class KeyMint:
    """In ``function``, outside any retry, a write (``write``: ``HTTP POST``) sends an idempotency
    key minted on every call, by the generator ``name`` at the position given: a retry that reaches
    ``function`` through calls mints a new key on every attempt (RES401 in the project pass)."""

    function: str
    write: str
    name: str
    row: int = 0
    column: int = 0
    end_row: int = 0
    end_column: int = 0


@dataclass(frozen=True)
class PendingWrite:
    """A keyless write in a retried scope whose header/body dicts come from functions of other
    modules (``callees``): RES402 unless one of them returns a dict with a key (project pass)."""

    callees: Tuple[str, ...]
    message: str
    row: int = 0
    column: int = 0
    end_row: int = 0
    end_column: int = 0


@dataclass(frozen=True)
class FixedTimeout:
    """A blocking network or database call with a constant timeout in ``function``, a function given
    no time budget of its own (RES105 across modules): ``call`` as messages show it
    (``requests.get``), ``argument`` as written (``timeout=10``)."""

    function: str
    call: str
    argument: str
    row: int = 0
    column: int = 0


@dataclass(frozen=True)
class BudgetCall:
    """In ``function``, given a time budget it never reads (``budget``: how messages name it), a call
    to ``callee``, a project function the file alone cannot follow (another module's, or a local
    helper whose calls leave the module): RES105 when the call graph reaches a :class:`FixedTimeout`."""

    function: str
    callee: str
    budget: str
    row: int = 0
    column: int = 0
    end_row: int = 0
    end_column: int = 0


@dataclass(frozen=True)
class ModuleSummary:
    """Everything the project pass knows about one module (plain data)."""

    module: str
    path: str
    is_package: bool
    imports: Tuple[Tuple[str, str], ...]
    star_imports: Tuple[str, ...]
    functions: Tuple[Function, ...]
    layers: Tuple[Layer, ...]
    calls: Tuple[CallSite, ...]
    suppressions: Tuple[Tuple[int, Optional[Tuple[str, ...]], bool], ...] = ()
    file_codes: Tuple[str, ...] = ()
    file_all: bool = False
    #: module-level names bound once to exception classes or tuples of them (``TRANSIENT``)
    exception_names: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    #: module-level names bound to clients that retry inside, and their layer (for other modules)
    client_objects: Tuple[Tuple[str, int], ...] = ()
    #: RES401/RES402 across modules: keys taken from other modules' functions in retried scopes,
    #: what this module's functions return as keys, and writes whose key depends on other modules
    key_calls: Tuple[KeyCall, ...] = ()
    key_returns: Tuple[KeyReturn, ...] = ()
    pending_writes: Tuple[PendingWrite, ...] = ()
    #: the retry helpers this module defines (decorators, factories, callers), inferred from their
    #: bodies: the project pass lints the modules that use them again with these as catalog entries
    helpers: Tuple[HelperEntry, ...] = ()
    #: module-level names bound once to a number (``BASE_DELAY = 2``), for the modules that import them
    constants: Tuple[Tuple[str, float], ...] = ()
    #: module-level names bound once to an instance of a shared type (``app = Celery(...)``: ``("app",
    #: "celery.Celery")``), for the modules that import them
    instances: Tuple[Tuple[str, str], ...] = ()
    #: imported names whose value a rule asked for and this module could not know (qualified names,
    #: as imported): the project pass lints the module again when another module defines one
    wanted: Tuple[str, ...] = ()
    #: functions of other modules this module's arq settings classes list in ``functions``, with the
    #: runs each gives (``("shop.jobs.push", 5)``), for the modules that define them
    job_runs: Tuple[Tuple[str, int], ...] = ()
    #: names of other modules this module assigns (``settings.TIMEOUT = 5``): no constants
    rebinds: Tuple[str, ...] = ()
    #: RES105 across modules: this module's functions that make a blocking call with a constant
    #: timeout, those given a budget of their own (a chain stops there), and the calls of functions
    #: that ignore their budget into code this file cannot follow
    fixed_timeouts: Tuple[FixedTimeout, ...] = ()
    budgeted: Tuple[str, ...] = ()
    budget_calls: Tuple[BudgetCall, ...] = ()
    #: writes outside any retry whose key their function mints afresh (RES401 through the call graph)
    key_mints: Tuple[KeyMint, ...] = ()
    #: module-level celery task classes, by their name here, with the options their class
    #: attributes set: other modules' tasks built on one (``base=RetryingTask``) read them
    task_classes: Tuple[TaskClassEntry, ...] = ()

    def renamed(self, module: str) -> "ModuleSummary":
        """This summary with the names it defines qualified by ``module`` rather than its own name
        (``example.summarise`` is ``module.summarise``): the call graph keeps two modules of one name
        (``b/example.py`` and ``z/example.py``) apart so. Names of other modules, and of this one's
        submodules (``pkg.sub.f`` in ``pkg/__init__.py``), stay as they are."""
        own = {self._top(function.qualname) for function in self.functions}
        own.update(name for table in (self.exception_names, self.client_objects, self.constants, self.instances)
                   for name, _ in table)
        own.update(entry.name for entry in self.task_classes)
        own.discard(None)

        def name(qualified: str) -> str:
            return module + qualified[len(self.module):] if self._top(qualified) in own else qualified

        def names(qualified: Tuple[str, ...]) -> Tuple[str, ...]:
            return tuple(name(n) for n in qualified)

        return replace(
            self, module=module,
            functions=tuple(replace(f, qualname=name(f.qualname)) for f in self.functions),
            layers=tuple(replace(layer, catches=names(layer.catches), raises=names(layer.raises))
                         for layer in self.layers),
            calls=tuple(replace(site, callee=name(site.callee) if site.callee else site.callee,
                                function=name(site.function) if site.function else site.function)
                        for site in self.calls),
            exception_names=tuple((n, names(types)) for n, types in self.exception_names),
            key_calls=tuple(replace(call, callee=name(call.callee)) for call in self.key_calls),
            key_returns=tuple(replace(r, function=name(r.function), name=name(r.name)) for r in self.key_returns),
            pending_writes=tuple(replace(w, callees=names(w.callees)) for w in self.pending_writes),
            rebinds=names(self.rebinds),
            fixed_timeouts=tuple(replace(f, function=name(f.function)) for f in self.fixed_timeouts),
            budgeted=names(self.budgeted),
            budget_calls=tuple(replace(c, function=name(c.function), callee=name(c.callee))
                               for c in self.budget_calls),
            key_mints=tuple(replace(m, function=name(m.function)) for m in self.key_mints),
            task_classes=tuple(replace(t, types=tuple((option, names(types)) for option, types in t.types))
                               for t in self.task_classes),
        )

    def _top(self, qualified: str) -> Optional[str]:
        """The name right below this module in ``qualified`` (``summarise`` in
        ``example.summarise.<locals>.f``), or ``None`` for a name of another module."""
        if not qualified.startswith(self.module + "."):
            return None
        return qualified[len(self.module) + 1:].split(".", 1)[0]
