"""The project pass: a call graph over module summaries, and nested retry layers (RES301).

Runs in the parent process over :class:`~reslint.analysis.facts.ModuleSummary`
objects only (never reparsing). Callees are resolved across modules through each
module's import table (absolute and relative imports, ``__init__`` re-exports,
``from x import *``); unresolved calls are unknown and never lead to a finding.
From every call site inside a retried scope, a memoised search finds the chain of
retry layers it reaches; attempts multiply only when the outer layer catches what
the inner one raises when it gives up (DESIGN section 2, "Retry-layer arithmetic").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from reslint.analysis.facts import ANY, UNKNOWN_TYPES, CallSite, FixedTimeout, KeyMint, KeyReturn, Layer, \
    ModuleSummary
from reslint.catalog.clients import EXCEPTION_BASES, REQUEST_METHODS
from reslint.catalog.user import TaskClassEntry

MAX_DEPTH = 12
#: what an answer of :meth:`CallGraph.follow` returns to go on following imports
FOLLOW = object()
MAX_CHAINS = 8
#: how many calls deep RES105 follows a budget across modules
MAX_BUDGET_DEPTH = 4


@dataclass(frozen=True)
class Hop:
    """One retry layer on a chain, with the module it is in."""

    path: str
    layer: Layer


@dataclass(frozen=True)
class Nesting:
    """A call site in a retried scope and the chain of layers it multiplies (outermost first)."""

    summary: ModuleSummary
    site: CallSite
    chain: Tuple[Hop, ...]

    @property
    def product(self) -> int:
        """The calls to the innermost layer per call of the outermost: the product of the
        layers' attempts; 0 when a layer retries without end, -1 when a layer's count is unknown
        (and none is endless)."""
        counts = [hop.layer.attempts for hop in self.chain]
        if UNBOUNDED_ATTEMPTS in counts:
            return UNBOUNDED_ATTEMPTS
        if UNKNOWN_ATTEMPTS in counts:
            return UNKNOWN_ATTEMPTS
        total = 1
        for count in counts:
            total *= count
        return total

    @property
    def known_product(self) -> int:
        """The product of the attempts of the layers whose count is known."""
        return _product(hop for hop in self.chain if hop.layer.attempts > 1)


#: :attr:`Layer.attempts <reslint.analysis.facts.Layer>` of a layer that retries without end
#: (``while True``) and of one whose count is unknown (``range(n)`` of a parameter)
UNBOUNDED_ATTEMPTS, UNKNOWN_ATTEMPTS = 0, -1


def _retries(layer: Layer) -> bool:
    """Whether ``layer`` makes more than one attempt, or may: a count unknown here or no count."""
    return layer.attempts > 1 or layer.attempts in (UNBOUNDED_ATTEMPTS, UNKNOWN_ATTEMPTS)


def _product(chain: Iterable[Hop]) -> int:
    total = 1
    for hop in chain:
        total *= max(hop.layer.attempts, 1)
    return total


def catches(outer: Layer, inner: Layer, expand=lambda types: types) -> bool:
    """Whether ``outer`` retries what ``inner`` raises once it gives up (unknown: assume yes).
    ``expand`` replaces names of exception tuples defined in other modules by their members;
    an outer layer that catches nothing (a poll) retries nothing the inner one raises."""
    if not outer.catches:
        return False
    if outer.catches in (ANY, UNKNOWN_TYPES) or inner.raises in (ANY, UNKNOWN_TYPES):
        return True
    caught = set(expand(outer.catches))
    for raised in expand(inner.raises):
        if raised in caught or caught & set(EXCEPTION_BASES.get(raised, ())):
            return True
    return False


class CallGraph:
    """Functions and call sites of the project, keyed by absolute qualified name.

    ``summaries`` are the modules every search may start from (those with retried
    scopes among them); ``load(module name) -> ModuleSummary | None`` supplies other
    modules when a name is first resolved into them, so modules no chain reaches are
    never summarised. ``other_names(summary)``: the other names a module is imported by
    (``app.mailer`` for ``mailer.py`` in the namespace package ``app``, PEP 420).

    Two modules of one name (loose modules ``b/example.py`` and ``z/example.py``, a package and a
    module) are kept apart: each is known by a name of its own (:meth:`ModuleSummary.renamed
    <reslint.analysis.facts.ModuleSummary.renamed>`), so its calls of its own functions are followed,
    and the name they share leads nowhere (which one an import finds depends on how the importing
    code is run); so does another name two modules share.
    """

    def __init__(self, summaries: Iterable[ModuleSummary],
                 load: Optional[Callable[[str], Optional[ModuleSummary]]] = None,
                 other_names: Optional[Callable[[ModuleSummary], Iterable[str]]] = None):
        self.summaries = list(summaries)
        self.modules: Dict[str, ModuleSummary] = {}
        #: another name of a module -> its name (the one its functions are qualified with)
        self.aliases: Dict[str, str] = {}
        self._other_names = other_names
        self.functions: Dict[str, Tuple[ModuleSummary, object]] = {}
        self.sites: Dict[str, List[CallSite]] = {}
        self.exception_names: Dict[str, Tuple[str, ...]] = {}
        #: module-level numbers of the project (``app.settings.BASE_DELAY`` -> 2.0)
        self.constants: Dict[str, float] = {}
        #: module-level instances of shared types (``proj.celery.app`` -> ``celery.Celery``)
        self.instances: Dict[str, str] = {}
        #: the runs of arq jobs listed by another module's settings (:meth:`job_runs`), built on first use
        self._job_runs: Optional[Dict[str, int]] = None
        #: module-level celery task classes of the project (``tasks.base.RetryingTask`` -> its options)
        self.task_classes: Dict[str, TaskClassEntry] = {}
        #: names some module assigns from outside (``settings.TIMEOUT = 5``): not constants
        self.rebound: Set[str] = set()
        #: RES105: per function, its first constant-timeout call; the functions given a budget
        self.fixed_timeouts: Dict[str, Tuple[ModuleSummary, FixedTimeout]] = {}
        self.budgeted: Set[str] = set()
        self._fixed_below: Dict[str, Optional[Tuple[Tuple[str, ...], ModuleSummary, FixedTimeout]]] = {}
        self._reach: Dict[str, List[Tuple[Hop, ...]]] = {}
        self._load = load
        #: names two modules have (given, loaded or other names): they resolve to neither
        self.ambiguous: Set[str] = set()
        #: the path of each module -> the name it is known by here
        self._paths: Dict[str, str] = {}
        self._apart_count = 0
        paths: Dict[str, Set[str]] = {}
        for summary in self.summaries:
            paths.setdefault(summary.module, set()).add(summary.path)
        self.ambiguous.update(name for name, found in paths.items() if len(found) > 1)
        self.summaries = [self._apart(summary) if summary.module in self.ambiguous else summary
                          for summary in self.summaries]
        for summary in self.summaries:
            self._add(summary)

    def _apart(self, summary: ModuleSummary) -> ModuleSummary:
        """``summary`` known by a name of its own, as its name is another module's too: the name
        with a number (``example/2``), which no module has (a file name holds no ``/``)."""
        self._apart_count += 1
        return summary.renamed(f"{summary.module}/{self._apart_count}")

    def _add(self, summary: ModuleSummary) -> None:
        self.modules[summary.module] = summary
        self._paths[summary.path] = summary.module
        for name in self._other_names(summary) if self._other_names is not None else ():
            if self.aliases.setdefault(name, summary.module) != summary.module:
                self.ambiguous.add(name)
        for function in summary.functions:
            self.functions[function.qualname] = (summary, function)
        for site in summary.calls:
            # function names are already qualified; the module's own code is no function of a
            # package's (a function ``pkg.sub`` beside the module ``pkg/sub.py``)
            owner = site.function or f"{summary.module}.<module>"
            self.sites.setdefault(owner, []).append(site)
        for name, types in summary.exception_names:
            self.exception_names[f"{summary.module}.{name}"] = types
        if not summary.star_imports:  # ``from .local_settings import *`` may bind any of them again
            for name, value in summary.constants:
                self.constants[f"{summary.module}.{name}"] = value
        for name, kind in summary.instances:
            self.instances[f"{summary.module}.{name}"] = kind
        for entry in summary.task_classes:
            self.task_classes[f"{summary.module}.{entry.name}"] = entry
        self.rebound.update(summary.rebinds)
        for fixed in summary.fixed_timeouts:
            self.fixed_timeouts.setdefault(fixed.function, (summary, fixed))
        self.budgeted.update(summary.budgeted)

    def module(self, name: str) -> Optional[ModuleSummary]:
        """The summary of module ``name`` (or of the module known by that other name), loaded on
        first use; ``None`` outside the project."""
        if name in self.ambiguous:
            return None
        summary = self.modules.get(self.aliases.get(name, name))
        if summary is None and self._load is not None:
            summary = self._load(name)
            if summary is None:
                return None
            if summary.path in self._paths:
                return self.modules[self._paths[summary.path]]  # loaded before under its other name
            if summary.module in self.modules or summary.module in self.ambiguous:
                # another module has its name (a module given keeps it): this one is known here by
                # the name asked for only
                summary = self._apart(summary)
                self.aliases[name] = summary.module
            self._add(summary)
        return summary

    def expand(self, types: Tuple[str, ...], depth: int = 0) -> Tuple[str, ...]:
        """Exception names with project constants (``shop.http_layer.TRANSIENT``) replaced by members."""
        out = []
        for name in types:
            target = self._constant(name)
            if target is not None and depth < MAX_DEPTH:
                out.extend(self.expand(self.exception_names[target], depth + 1))
            else:
                out.append(name)
        return tuple(out)

    def number(self, name: str) -> Optional[float]:
        """The number the project binds to ``name`` at module level (following imports and
        re-exports: ``app.BASE_DELAY`` re-exported from ``app.settings``), or ``None``."""
        found = self.follow(name, lambda name, summary, rest: name if name in self.constants else FOLLOW, stars=True)
        if found is None or found in self.rebound or name in self.rebound:
            return None
        return self.constants[found]

    def instance(self, name: str) -> Optional[str]:
        """The type of the instance the project binds to ``name`` at module level (following
        imports and re-exports: ``proj.celery_app`` re-exported from ``proj.celery``), or ``None``."""
        found = self.follow(name, lambda name, summary, rest: name if name in self.instances else FOLLOW, stars=True)
        if found is None or found in self.rebound or name in self.rebound:
            return None
        return self.instances[found]

    def job_runs(self, name: str) -> Optional[int]:
        """The runs the project's arq settings classes give the job function ``name`` (a qualified
        name), when the modules that list it imported agree (``ModuleSummary.job_runs``, names
        followed through re-exports to the function), or ``None``."""
        if self._job_runs is None:
            runs: Dict[str, int] = {}
            disagree: Set[str] = set()
            for summary in list(self.summaries):
                for listed, count in summary.job_runs:
                    target = self.resolve(listed) or listed
                    if runs.setdefault(target, count) != count:
                        disagree.add(target)
            self._job_runs = {target: count for target, count in runs.items() if target not in disagree}
        return self._job_runs.get(self.resolve(name) or name)

    def task_class(self, name: str) -> Optional[TaskClassEntry]:
        """The celery task class the project defines as ``name`` at module level (following
        imports and re-exports: ``tasks.RetryingTask`` re-exported from ``tasks.base``), or ``None``."""
        found = self.follow(name, lambda name, summary, rest: name if name in self.task_classes else FOLLOW,
                            stars=True)
        return self.task_classes[found] if found is not None else None

    def _constant(self, name: str) -> Optional[str]:
        """The qualified name of the project constant of exception types ``name`` refers to."""
        return self.follow(name, lambda name, summary, rest: name if name in self.exception_names else FOLLOW)

    def resolve(self, name: Optional[str]) -> Optional[str]:
        """The qualified name of the function ``name`` refers to, following re-exports."""
        return self.follow(name, lambda name, summary, rest: name if name in self.functions else FOLLOW,
                           stars=True)

    def follow(self, name: Optional[str], answer: Callable[[str, Optional[ModuleSummary], Tuple[str, ...]], object],
               keep: int = 1, stars: bool = False, depth: int = 0):
        """Follow the dotted name ``name`` through the project's modules and their imports.

        ``answer(name, summary, rest)`` is asked first with ``summary=None`` (is ``name`` known as
        it is?), then for the longest prefix of ``name`` that is a project module, with the parts
        after it (``rest``, at least ``keep`` of them); it returns the result, or :data:`FOLLOW` to
        go on: then the import that binds ``rest[0]`` in that module is followed (and, with
        ``stars``, each ``from m import *``). ``None`` when nothing answers within
        :data:`MAX_DEPTH` imports."""
        if name is None or depth > MAX_DEPTH:
            return None
        found = answer(name, None, ())
        if found is not FOLLOW:
            return found
        parts = name.split(".")
        for cut in range(len(parts) - keep, 0, -1):
            prefix = ".".join(parts[:cut])
            summary = self.module(prefix)
            if summary is None:
                continue
            rest = tuple(parts[cut:])
            if summary.module != prefix:  # imported by another name: go on with the one it is known by
                return self.follow(".".join([summary.module, *rest]), answer, keep, stars, depth + 1)
            found = answer(name, summary, rest)
            if found is not FOLLOW:
                return found
            imports = dict(summary.imports)
            if rest[0] in imports and imports[rest[0]] != name:
                return self.follow(".".join([imports[rest[0]], *rest[1:]]), answer, keep, stars, depth + 1)
            for star in summary.star_imports if stars else ():
                found = self.follow(".".join([star, *rest]), answer, keep, stars, depth + 1)
                if found:
                    return found
            return None
        return None

    def _site_chains(self, summary: ModuleSummary, site: CallSite, depth: int) -> List[Tuple[Hop, ...]]:
        """Chains of layers a call site reaches beyond the layers around it."""
        if site.client_layer is not None:
            return [_entered(summary, site.client_layer)]
        target = self.resolve(site.callee)
        if target is not None:
            return self.reach(target, depth + 1)
        client = self._client_object(site.callee)
        return [client] if client else []

    def _client_object(self, name: Optional[str]) -> Optional[Tuple[Hop, ...]]:
        """``client.llm.chat.completions.create`` → the layers of ``llm``, a retrying client defined
        at module level in ``client`` (followed through imports): its own, and those it wraps (a
        model object built with ``with_retry`` around a chat model that retries inside)."""
        def answer(name: str, summary: Optional[ModuleSummary], rest: Tuple[str, ...]):
            objects = dict(summary.client_objects) if summary is not None else {}
            if rest[:1] and rest[0] in objects:
                entered = objects[rest[0]]
                seen = 0
                while entered is not None and seen <= MAX_DEPTH:
                    layer = summary.layers[entered]
                    if layer.methods is None or rest[-1] in layer.methods:
                        break
                    entered, seen = layer.wraps, seen + 1  # a method its retry does not override (stream)
                if entered is None or seen > MAX_DEPTH:
                    return None
                methods = REQUEST_METHODS.get(summary.layers[entered].library)  # what sends a request
                return None if methods is not None and rest[-1] not in methods else _entered(summary, entered)
            return FOLLOW

        return self.follow(name, answer, keep=2)

    def reach(self, function: str, depth: int = 0) -> List[Tuple[Hop, ...]]:
        """The chains of retry layers a call to ``function`` goes through (each cut where an
        outer layer would not catch what the next raises), largest products first, at most
        :data:`MAX_CHAINS`; an outer caller picks the best chain it actually multiplies."""
        if function in self._reach:
            return self._reach[function]
        if depth > MAX_DEPTH:
            return []
        self._reach[function] = []  # cycle guard
        summary, info = self.functions[function]
        chains: List[Tuple[Hop, ...]] = []
        for site in self.sites.get(function, ()):
            local = tuple(Hop(summary.path, summary.layers[i]) for i in site.retried_by if i != info.layer)
            for inner in self._site_chains(summary, site, depth):
                chains.append(_multiplying(local + inner, self.expand))
        if info.layer is not None:
            own = Hop(summary.path, summary.layers[info.layer])
            chains = [_multiplying((own,) + chain, self.expand) for chain in chains] or [(own,)]
        unique = sorted(set(chains), key=lambda c: (-_product(c), len(c)))[:MAX_CHAINS]
        self._reach[function] = unique
        return unique

    def fixed_timeout_below(self, function: str, depth: int = 0
                            ) -> Optional[Tuple[Tuple[str, ...], ModuleSummary, FixedTimeout]]:
        """The constant-timeout call that a call to ``function`` reaches (RES105 across modules):
        ``(the functions on the way, first ``function``; the module of the call; the call)``, or
        ``None``. A function given a budget of its own is judged on its own, so the search stops
        there; at most :data:`MAX_BUDGET_DEPTH` calls deep."""
        if function in self._fixed_below:
            return self._fixed_below[function]
        if depth > MAX_BUDGET_DEPTH or function in self.budgeted:
            return None
        self._fixed_below[function] = None  # cycle guard
        found = None
        if function in self.fixed_timeouts:
            summary, fixed = self.fixed_timeouts[function]
            found = ((function,), summary, fixed)
        else:
            for site in self.sites.get(function, ()):
                target = self.resolve(site.callee)
                below = self.fixed_timeout_below(target, depth + 1) if target not in (None, function) else None
                if below is not None:
                    found = ((function,) + below[0], below[1], below[2])
                    break
        self._fixed_below[function] = found
        return found

    def writes_below(self, function: str) -> List[Tuple[ModuleSummary, CallSite, Tuple[str, ...]]]:
        """Keyless writes in ``function`` and the functions it calls (outside their own retries),
        with the chain of function names leading to each."""
        return self._below(function, lambda summary, name: [s for s in self.sites.get(name, ()) if s.write], set())

    def keys_below(self, function: str) -> List[Tuple[ModuleSummary, KeyMint, Tuple[str, ...]]]:
        """Keys minted afresh for a write in ``function`` and the functions it calls (outside their
        own retries), with the chain of function names leading to each."""
        return self._below(function, lambda summary, name: [m for m in summary.key_mints if m.function == name],
                           set())

    def _below(self, function: str, own, seen: Set[str]) -> list:
        """``(module, item, path of functions)`` for each item ``own(module summary, function)`` gives
        of ``function`` and of the functions it calls (not through their own retries)."""
        if function in seen or len(seen) > 200:
            return []
        seen.add(function)
        summary, _ = self.functions[function]
        out = [(summary, item, (function,)) for item in own(summary, function)]
        for site in self.sites.get(function, ()):
            if site.write is not None or site.retried_by:
                continue
            target = self.resolve(site.callee)
            if target is not None:
                out.extend((s, item, (function,) + path) for s, item, path in self._below(target, own, seen))
        return out

    def retried_writes(self):
        """(outer layer, write summary, write site, path of functions, path of the outer layer's
        file, the retried call site the path starts at) for keyless writes that a retry reaches
        through calls (RES402 through the call graph)."""
        out = []
        for summary in self.summaries:
            for site in summary.calls:
                if not site.retried_by:
                    continue
                target = self.resolve(site.callee)
                if target is None:
                    continue
                outer = summary.layers[site.retried_by[-1]]
                for write_summary, write, path in self.writes_below(target):
                    out.append((outer, write_summary, write, path, summary.path, site))
        return out

    def retried_keys(self):
        """(outer layer, module of the retried call, the call, module of the key, the
        :class:`KeyMint`, path of functions) for keys minted afresh in functions that a retry
        reaches through calls (RES401 through the call graph)."""
        out = []
        for summary in self.summaries:
            for site in summary.calls:
                target = self.resolve(site.callee) if site.retried_by else None
                if target is None:
                    continue
                outer = summary.layers[site.retried_by[-1]]
                for mint_summary, mint, path in self.keys_below(target):
                    out.append((outer, summary, site, mint_summary, mint, path))
        return out

    def key_sources(self, callee: Optional[str], kind: str, depth: int = 0
                    ) -> List[Tuple[ModuleSummary, KeyReturn, Tuple[str, ...]]]:
        """Where a key taken from a call to ``callee`` is minted afresh on every call (RES401 across
        modules): ``(module, the fresh KeyReturn, path of functions)``, following helpers that return
        another module's helper's result. ``kind``: ``"value"`` (the key) or ``"dict"`` (a dict with one)."""
        target = self.resolve(callee)
        if target is None or depth > MAX_DEPTH:
            return []
        summary, _ = self.functions[target]
        out = []
        for returned in summary.key_returns:
            if returned.function != target or returned.kind != kind:
                continue
            if returned.what == "fresh":
                out.append((summary, returned, (target,)))
            elif returned.what == "external":
                out.extend((s, r, (target,) + path) for s, r, path in self.key_sources(returned.name, "value",
                                                                                        depth + 1))
        return out

    def returns_key_dict(self, callee: Optional[str]) -> Optional[bool]:
        """Whether the project function ``callee`` returns a dict with an idempotency key (``None``:
        not a function of the project)."""
        target = self.resolve(callee)
        if target is None:
            return None
        summary, _ = self.functions[target]
        return any(r.function == target and r.kind == "dict" for r in summary.key_returns)

    def nestings(self) -> List[Nesting]:
        """Every call site inside a retried scope that reaches another retry layer."""
        out = []
        for summary in self.summaries:
            for site in summary.calls:
                if not site.retried_by:
                    continue
                if site.function and self.resolve(site.callee) == site.function:
                    continue  # a function calling itself: the same layer's next attempt, not a nested one
                outer = tuple(Hop(summary.path, summary.layers[i]) for i in site.retried_by)
                best: Tuple[Hop, ...] = ()
                for inner in self._site_chains(summary, site, 0):
                    chain = _multiplying(outer + inner, self.expand)
                    # the largest known product, then the longest chain: a layer of unknown or no
                    # count (1 in the product) still makes a chain longer than none
                    if len(chain) > len(outer) and (_product(chain), len(chain)) > (_product(best), len(best)):
                        best = chain
                if best and all(_retries(h.layer) for h in best):
                    out.append(Nesting(summary, site, best))
        return out


def _entered(summary: ModuleSummary, layer: int) -> Tuple[Hop, ...]:
    """The layers a call entering ``layer`` goes through: it, and those it wraps (a runnable's retry
    around a chat model that retries inside)."""
    hops = []
    while layer is not None and len(hops) <= MAX_DEPTH:
        hops.append(Hop(summary.path, summary.layers[layer]))
        layer = summary.layers[layer].wraps
    return tuple(hops)


def _multiplying(chain: Tuple[Hop, ...], expand) -> Tuple[Hop, ...]:
    """Cut the chain where an outer layer does not catch what the next one raises."""
    for index in range(len(chain) - 1):
        if not catches(chain[index].layer, chain[index + 1].layer, expand):
            return chain[:index + 1]
    return chain
