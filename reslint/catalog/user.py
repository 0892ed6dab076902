"""The project's own catalog entries: ``[tool.reslint.catalog]``.

What reslint knows about third-party APIs is data (the rest of this package); a project adds its
own in the same terms: its retry decorators and helpers, its wrappers of blocking calls that take
a timeout, its non-idempotent operations (writes), the parameters that carry an idempotency key,
and its clients that retry inside. Each table is an array of tables (or a list of names), every
entry naming a canonical qualified name as the project's code spells it in an import
(``myapp.net.retrying``)::

    [[tool.reslint.catalog.retry-helpers]]
    name = "myapp.net.retrying"       # @retrying / @retrying(...): the decorated function is retried
    attempts = 3                      # attempts when the use passes none
    attempts-param = "tries"          # a use passing tries=N makes N attempts
    max-delay = 30                    # total time cap in seconds (absent: none)
    jitter = false                    # deterministic waits (absent: unknown)
    retry-on = ["requests.RequestException"]

    [[tool.reslint.catalog.retry-helpers]]
    name = "myapp.net.call_with_retries"
    kind = "caller"                   # call_with_retries(fn, ...): fn is retried
    callable-position = 0

    [[tool.reslint.catalog.timeout-calls]]
    name = "myapp.net.download"       # blocks on the network; `timeout=` bounds it
    param = "timeout"
    position = 1

    [tool.reslint.catalog]
    writes = ["myapp.billing.charge"]          # a replay performs it again
    key-params = ["dedupe_token"]              # a key sent this way makes a write idempotent

    [[tool.reslint.catalog.retrying-clients]]
    name = "myapp.clients.Api"        # each call on an Api(...) retries inside
    attempts = 3
    param = "max_retries"             # attempts = max_retries + 1
    off = "max_retries=0"

    [tool.reslint.catalog]
    read-only-tools = ["search", "get_*"]      # MCP tools a replay cannot harm (fnmatch patterns)

The parsed form is plain, hashable data (part of the settings and of the cache key). The project
pass adds entries of its own: helpers of another module that it inferred from their bodies
(:mod:`reslint.analysis.helpers`), marked ``inferred`` so that their faults are reported once, in
the helper, and not at every use; the numbers and instances other modules bind; and the celery
task classes other modules define (:class:`TaskClassEntry`).
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Dict, FrozenSet, Optional, Tuple

from reslint.catalog.clients import COUNTS_RETRIES, RetryingClient
from reslint.catalog.idempotency import normalise
from reslint.catalog.model import CATEGORIES, TimeoutParam, TimeoutSpec

#: ``kind`` of a retry helper: used as ``@name``/``@name(...)``, or called with the callable
DECORATOR, CALLER = "decorator", "caller"


@dataclass(frozen=True)
class HelperEntry:
    """A retry decorator or helper of the project.

    ``attempts``: attempts when the use passes none (``None``: unknown; ``0``: unbounded);
    ``attempts_param``/``attempts_position``: the parameter (name, position among the factory's
    or caller's arguments) a use sets the attempts with, read as ``scale * value + offset``;
    ``max_delay_s``: its total time cap (``None``: none; ``-1``: unknown); ``jitter``: whether it
    jitters its waits (``None``: unknown); ``retry_on``: what it retries (empty: unknown; a
    catch-all name: any error); ``callable_position``: where a caller takes the callable;
    ``inferred``: found by reslint in another module (its faults are reported there); ``params``:
    a caller's parameters as its ``def`` spells them (``("fn", "*args", "**kwargs")``), and
    ``passes``: those of its star parameters it calls the callable with, as they are (``None``: it
    calls it with something else, or it is not known), so that a use's other arguments are the
    callable's (``retry_call(requests.post, url, json=body)`` posts ``url``); ``sync_wrapper``: see
    :func:`reslint.analysis.helpers.sync_wrapper`."""

    name: str
    kind: str = DECORATOR
    attempts: Optional[int] = None
    attempts_param: str = ""
    attempts_position: int = -1
    attempts_scale: float = 1.0
    attempts_offset: float = 0.0
    max_delay_s: Optional[float] = None
    jitter: Optional[bool] = None
    retry_on: Tuple[str, ...] = ()
    raises: Tuple[str, ...] = ()
    callable_position: int = 0
    inferred: bool = False
    params: Tuple[str, ...] = ()
    passes: Optional[Tuple[str, ...]] = None
    #: a decorator whose plain ``def`` wrapper calls the decorated function without awaiting it: it
    #: retries no ``async def`` function (inferred only)
    sync_wrapper: bool = False


@dataclass(frozen=True)
class TimeoutEntry:
    """A call of the project that blocks and takes a timeout (``param`` at ``position``); without it,
    it waits forever (``default_s`` ``None``) or ``default_s`` seconds."""

    name: str
    param: str = "timeout"
    position: Optional[int] = None
    default_s: Optional[float] = None
    category: str = "network"


@dataclass(frozen=True)
class TaskClassEntry:
    """A celery task class of the project (``class RetryingTask(Task): autoretry_for = (...)``) as a
    task of another module built on it (``@shared_task(base=RetryingTask)``) reads it: the task
    options its class attributes set, its own over its bases' (:func:`reslint.libraries.celery.
    exported_task_class`). Never declared: the project pass adds these for the modules that
    import one, by the qualified name they import it as.

    ``options``: ``(option, value)`` with the value as the source of a constant that names nothing
    (``5``, ``None``, ``True``, ``{'max_retries': 5}``), ``...`` where it cannot be read;
    ``types``: ``(option, qualified names)`` for the exception types of ``autoretry_for`` and
    ``dont_autoretry_for`` as the class's module reads them; ``known``: whether every base of the
    class is known (else the options it does not set are unknown too); ``spells``: whether the
    class sets ``autoretry_for`` in its own body, so that its module reports the policy's faults
    at it (:func:`reslint.libraries.celery.own_autoretry`)."""

    name: str
    options: Tuple[Tuple[str, str], ...] = ()
    types: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    known: bool = True
    spells: bool = False


@dataclass(frozen=True)
class ClientEntry:
    """A client constructor of the project whose calls retry inside: ``attempts`` by default, set by
    ``param`` (a number of retries: attempts = value + 1), turned off with ``off``."""

    name: str
    attempts: int = 2
    param: Optional[str] = None
    off: str = ""
    raises: Tuple[str, ...] = ()


#: marks an entry of :attr:`UserCatalog.instances` that names a callable, not a type
ALIAS_MARK = "="


@dataclass(frozen=True)
class UserCatalog:
    """``[tool.reslint.catalog]``, validated."""

    retry_helpers: Tuple[HelperEntry, ...] = ()
    timeout_calls: Tuple[TimeoutEntry, ...] = ()
    writes: Tuple[str, ...] = ()
    key_params: Tuple[str, ...] = ()
    retrying_clients: Tuple[ClientEntry, ...] = ()
    #: MCP tools (names or ``fnmatch`` patterns) whose calls a replay cannot harm: read-only or
    #: idempotent (what a server's ``readOnlyHint``/``idempotentHint`` annotations would say)
    read_only_tools: Tuple[str, ...] = ()
    #: numbers other modules of the project bind once at module level (``BASE_DELAY = 2``), by
    #: qualified name: added by the project pass for the modules that read them (never declared)
    constants: Tuple[Tuple[str, float], ...] = ()
    #: instances other modules of the project bind once at module level (``app = Celery(...)``), by
    #: qualified name -> their type: added by the project pass for the modules that import them. A
    #: type that starts with :data:`ALIAS_MARK` names instead the library callable a project function
    #: stands for (a decorator factory that hands its ``**kwargs`` to ``celery_app.task``:
    #: ``"=celery.Celery.task"``, :meth:`alias`)
    instances: Tuple[Tuple[str, str], ...] = ()
    #: arq jobs whose runs a settings class of another module of the project gives (``worker.py``
    #: lists ``shop.jobs.push``), by qualified name -> runs (at least 1): added by the project pass
    #: for the jobs' modules (never declared)
    job_runs: Tuple[Tuple[str, int], ...] = ()
    #: celery task classes other modules of the project define, by the qualified name a module
    #: imports them as: added by the project pass for the modules whose tasks are built on one
    task_classes: Tuple[TaskClassEntry, ...] = ()
    #: where each table came from, for messages: not compared
    source: str = field(default="", compare=False)

    def __bool__(self) -> bool:
        return bool(self.retry_helpers or self.timeout_calls or self.writes or self.key_params or
                    self.retrying_clients or self.read_only_tools)

    # -- lookups (built once per catalog) -------------------------------------------------
    def helper(self, qualname: Optional[str]) -> Optional[HelperEntry]:
        return _index(self)[0].get(qualname or "")

    def timeout(self, qualname: Optional[str]) -> Optional[TimeoutSpec]:
        """The declared timeout call ``qualname`` as a catalog :class:`TimeoutSpec`."""
        return _index(self)[1].get(qualname or "")

    def client(self, qualname: Optional[str]) -> Optional[RetryingClient]:
        """The declared retrying client ``qualname`` as a catalog :class:`RetryingClient`."""
        return _index(self)[2].get(qualname or "")

    @property
    def key_names(self) -> FrozenSet[str]:
        """The declared key parameters, normalised as the catalog's key names are."""
        return _index(self)[5]

    def read_only_tool(self, name: str) -> bool:
        """Whether the tool ``name`` is declared read-only (a name or an ``fnmatch`` pattern)."""
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.read_only_tools)

    @property
    def write_names(self) -> FrozenSet[str]:
        return _index(self)[3]

    @property
    def names(self) -> FrozenSet[str]:
        """Every qualified name an entry declares (prefilter entry points)."""
        return _index(self)[4]

    def constant(self, qualname: str):
        """The number another module binds to ``qualname`` (an ``int`` when it is whole), or ``None``."""
        return _constants(self.constants).get(qualname)

    def with_constants(self, constants: Dict[str, float]) -> "UserCatalog":
        """This catalog with the project constants ``constants`` (qualified name -> number) added."""
        if not constants:
            return self
        merged = dict(self.constants)
        merged.update(constants)
        return replace(self, constants=tuple(sorted(merged.items())))

    def instance(self, qualname: str) -> Optional[str]:
        """The type of the instance another module binds to ``qualname``, or ``None``."""
        found = dict(self.instances).get(qualname)
        return None if found is None or found.startswith(ALIAS_MARK) else found

    def alias(self, qualname: str) -> Optional[str]:
        """The library callable (a qualified name) the project function ``qualname`` of another
        module stands for, or ``None``."""
        found = dict(self.instances).get(qualname)
        return found[len(ALIAS_MARK):] if found is not None and found.startswith(ALIAS_MARK) else None

    def with_instances(self, instances: Dict[str, str]) -> "UserCatalog":
        """This catalog with the project instances ``instances`` (qualified name -> type) added."""
        if not instances:
            return self
        merged = dict(self.instances)
        merged.update(instances)
        return replace(self, instances=tuple(sorted(merged.items())))

    def job_runs_of(self, qualname: str) -> Optional[int]:
        """The runs another module's arq settings give the job ``qualname``, or ``None``."""
        return dict(self.job_runs).get(qualname)

    def with_job_runs(self, job_runs: Dict[str, int]) -> "UserCatalog":
        """This catalog with the project's arq job runs ``job_runs`` (qualified name -> runs) added."""
        if not job_runs:
            return self
        merged = dict(self.job_runs)
        merged.update(job_runs)
        return replace(self, job_runs=tuple(sorted(merged.items())))

    def task_class(self, qualname: str) -> Optional[TaskClassEntry]:
        """The task class another module of the project defines as ``qualname``, or ``None``."""
        return next((entry for entry in self.task_classes if entry.name == qualname), None)

    def with_task_classes(self, task_classes: Dict[str, TaskClassEntry]) -> "UserCatalog":
        """This catalog with the project task classes ``task_classes`` (qualified name -> entry) added."""
        if not task_classes:
            return self
        merged = {entry.name: entry for entry in self.task_classes}
        merged.update((name, replace(entry, name=name)) for name, entry in task_classes.items())
        return replace(self, task_classes=tuple(merged[name] for name in sorted(merged)))

    def with_helpers(self, helpers: Tuple[HelperEntry, ...]) -> "UserCatalog":
        """This catalog with ``helpers`` added (a declared helper of the same name wins)."""
        known = {h.name for h in self.retry_helpers}
        extra = tuple(h for h in helpers if h.name not in known)
        return replace(self, retry_helpers=self.retry_helpers + extra) if extra else self

    def to_table(self) -> Dict[str, Any]:
        """The catalog as TOML would spell it (for ``reslint show-settings``): declared entries only."""
        out: Dict[str, Any] = {}
        helpers = [_helper_table(h) for h in self.retry_helpers if not h.inferred]
        if helpers:
            out["retry-helpers"] = helpers
        if self.timeout_calls:
            out["timeout-calls"] = [_drop_none({"name": t.name, "param": t.param, "position": t.position,
                                                "default": t.default_s, "category": t.category})
                                    for t in self.timeout_calls]
        if self.writes:
            out["writes"] = list(self.writes)
        if self.key_params:
            out["key-params"] = list(self.key_params)
        if self.retrying_clients:
            out["retrying-clients"] = [_drop_none({"name": c.name, "attempts": c.attempts, "param": c.param,
                                                   "off": c.off or None, "raises": list(c.raises) or None})
                                       for c in self.retrying_clients]
        if self.read_only_tools:
            out["read-only-tools"] = list(self.read_only_tools)
        return out


EMPTY = UserCatalog()


@lru_cache(maxsize=64)
def _constants(pairs: Tuple[Tuple[str, float], ...]) -> Dict[str, float]:
    # a whole number comes back from the cache as a float: an attempt count must stay an int
    return {name: int(value) if float(value).is_integer() else value for name, value in pairs}


@lru_cache(maxsize=32)
def _index(catalog: UserCatalog):
    helpers = {h.name: h for h in catalog.retry_helpers}
    source = f"{catalog.source or 'the configuration'}: [tool.reslint.catalog]"
    timeouts = {t.name: TimeoutSpec(t.name, (TimeoutParam(t.param, t.position),), t.default_s, source,
                                    category=t.category) for t in catalog.timeout_calls}
    clients = {c.name: RetryingClient(c.name, c.param, COUNTS_RETRIES, c.attempts, c.raises or ("*",),
                                      c.off or (f"{c.param}=0" if c.param else ""), source)
               for c in catalog.retrying_clients}
    writes = frozenset(catalog.writes)
    names = frozenset(helpers) | frozenset(timeouts) | frozenset(clients) | writes
    keys = frozenset(normalise(k) for k in catalog.key_params)
    return helpers, timeouts, clients, writes, names, keys


def _drop_none(table: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in table.items() if v is not None}


def _helper_table(h: HelperEntry) -> Dict[str, Any]:
    return _drop_none({
        "name": h.name, "kind": h.kind, "attempts": h.attempts, "attempts-param": h.attempts_param or None,
        "attempts-position": h.attempts_position if h.attempts_position >= 0 else None,
        "max-delay": h.max_delay_s, "jitter": h.jitter, "retry-on": list(h.retry_on) or None,
        "callable-position": h.callable_position if h.kind == CALLER else None,
    })


# -- parsing ------------------------------------------------------------------------------------
class CatalogError(ValueError):
    """A bad ``[tool.reslint.catalog]`` entry; the message names the key."""


_NAME = "a qualified name such as \"myapp.net.retrying\""


def _qualname(value: Any, key: str) -> str:
    parts = value.split(".") if isinstance(value, str) else []
    if not parts or not all(p.isidentifier() for p in parts):
        raise CatalogError(f"`{key}` must be {_NAME}, got {value!r}")
    return value


def _int(value: Any, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CatalogError(f"`{key}` must be a whole number >= {minimum}, got {value!r}")
    return value


def _seconds(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise CatalogError(f"`{key}` must be a positive number of seconds, got {value!r}")
    return float(value)


def _names(value: Any, key: str) -> Tuple[str, ...]:
    if not isinstance(value, list):
        raise CatalogError(f"`{key}` must be a list of qualified names, got {value!r}")
    return tuple(_qualname(v, f"{key}[{i}]") for i, v in enumerate(value))


def _words(value: Any, key: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise CatalogError(f"`{key}` must be a list of names, got {value!r}")
    return tuple(value)


def _entries(value: Any, key: str, known: Tuple[str, ...]):
    """The tables of an array of tables, each checked for unknown keys and a ``name``."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise CatalogError(f"`{key}` must be an array of tables (`[[{key}]]`), got {value!r}")
    for index, table in enumerate(value):
        where = f"{key}[{index}]"
        for name in table:
            if name not in known:
                raise CatalogError(f"unknown key `{where}.{name}` (known keys: {', '.join(known)})")
        if "name" not in table:
            raise CatalogError(f"`{where}` needs a `name` ({_NAME})")
        yield where, table


_HELPER_KEYS = ("name", "kind", "attempts", "attempts-param", "attempts-position", "max-delay", "jitter", "retry-on",
                "callable-position")
_TIMEOUT_KEYS = ("name", "param", "position", "default", "category")
_CLIENT_KEYS = ("name", "attempts", "param", "off", "raises")
TABLES = ("retry-helpers", "timeout-calls", "writes", "key-params", "retrying-clients", "read-only-tools")


def parse(table: Any, key: str) -> UserCatalog:
    """Validate ``[tool.reslint.catalog]`` (``key``: its dotted name, for messages)."""
    if not isinstance(table, dict):
        raise CatalogError(f"`{key}` must be a table, got {table!r}")
    for name in table:
        if name not in TABLES:
            raise CatalogError(f"unknown key `{key}.{name}` (known keys: {', '.join(TABLES)})")
    helpers, timeouts, clients = [], [], []
    for where, entry in _entries(table.get("retry-helpers", []), f"{key}.retry-helpers", _HELPER_KEYS):
        helpers.append(_helper(entry, where))
    for where, entry in _entries(table.get("timeout-calls", []), f"{key}.timeout-calls", _TIMEOUT_KEYS):
        timeouts.append(_timeout(entry, where))
    for where, entry in _entries(table.get("retrying-clients", []), f"{key}.retrying-clients", _CLIENT_KEYS):
        clients.append(_client(entry, where))
    writes = _names(table.get("writes", []), f"{key}.writes")
    key_params = _words(table.get("key-params", []), f"{key}.key-params")
    read_only_tools = _words(table.get("read-only-tools", []), f"{key}.read-only-tools")
    for kind, entries in (("retry-helpers", helpers), ("timeout-calls", timeouts), ("retrying-clients", clients)):
        seen = set()
        for entry in entries:
            if entry.name in seen:
                raise CatalogError(f"`{key}.{kind}` names {entry.name!r} twice")
            seen.add(entry.name)
    return UserCatalog(tuple(helpers), tuple(timeouts), writes, key_params, tuple(clients),
                       read_only_tools=read_only_tools)


def _helper(entry: Dict[str, Any], where: str) -> HelperEntry:
    kind = entry.get("kind", DECORATOR)
    if kind not in (DECORATOR, CALLER):
        raise CatalogError(f"`{where}.kind` must be \"decorator\" or \"caller\", got {kind!r}")
    attempts = _int(entry["attempts"], f"{where}.attempts", 1) if "attempts" in entry else None
    param = entry.get("attempts-param", "")
    if not isinstance(param, str) or (param and not param.isidentifier()):
        raise CatalogError(f"`{where}.attempts-param` must be a parameter name, got {param!r}")
    position = _int(entry["attempts-position"], f"{where}.attempts-position", 0) \
        if "attempts-position" in entry else -1
    if position >= 0 and not param:
        raise CatalogError(f"`{where}.attempts-position` needs `attempts-param` (the parameter's name)")
    delay = _seconds(entry["max-delay"], f"{where}.max-delay") if "max-delay" in entry else None
    jitter = entry.get("jitter")
    if jitter is not None and not isinstance(jitter, bool):
        raise CatalogError(f"`{where}.jitter` must be true or false, got {jitter!r}")
    callable_position = _int(entry.get("callable-position", 0), f"{where}.callable-position", 0)
    if "callable-position" in entry and kind != CALLER:
        raise CatalogError(f"`{where}.callable-position` applies to `kind = \"caller\"` only")
    return HelperEntry(_qualname(entry["name"], f"{where}.name"), kind, attempts, param, position, 1.0, 0.0, delay,
                       jitter, _names(entry.get("retry-on", []), f"{where}.retry-on"), (), callable_position)


def _timeout(entry: Dict[str, Any], where: str) -> TimeoutEntry:
    param = entry.get("param", "timeout")
    if not isinstance(param, str) or not param.isidentifier():
        raise CatalogError(f"`{where}.param` must be a parameter name, got {param!r}")
    position = _int(entry["position"], f"{where}.position", 0) if "position" in entry else None
    default = entry.get("default", "none")
    if default != "none":
        default = _seconds(default, f"{where}.default") if not isinstance(default, str) else \
            _bad(f"`{where}.default` must be \"none\" (waits forever) or seconds, got {default!r}")
    category = entry.get("category", "network")
    if category not in CATEGORIES:
        raise CatalogError(f"`{where}.category` must be one of {', '.join(CATEGORIES)}, got {category!r}")
    return TimeoutEntry(_qualname(entry["name"], f"{where}.name"), param, position,
                        None if default == "none" else default, category)


def _client(entry: Dict[str, Any], where: str) -> ClientEntry:
    attempts = _int(entry.get("attempts", 2), f"{where}.attempts", 1)
    param = entry.get("param")
    if param is not None and (not isinstance(param, str) or not param.isidentifier()):
        raise CatalogError(f"`{where}.param` must be a parameter name, got {param!r}")
    off = entry.get("off", "")
    if not isinstance(off, str):
        raise CatalogError(f"`{where}.off` must be a string (how to turn its retries off), got {off!r}")
    return ClientEntry(_qualname(entry["name"], f"{where}.name"), attempts, param, off,
                       _names(entry.get("raises", []), f"{where}.raises"))


def _bad(message: str):
    raise CatalogError(message)
