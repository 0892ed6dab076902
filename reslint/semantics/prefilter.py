"""The prefilter: which files can hold a finding, decided before LibCST parses anything.

Two stages, each sound for the per-file rules (a file they skip cannot hold a finding):

1. :class:`Trigger`, on the text: the file imports a module some enabled rule looks
   for (and, for ``module:name|name`` entries, spells one of the names).
2. :class:`Relevance`, on the file's :mod:`ast` (the tree the syntax check builds
   anyway): something called, a decorator or a class base resolves, through the
   file's imports, to a catalog entry point (:func:`reslint.catalog.entry_points`), a
   local definition has such a name (the library's own code: ``requests/sessions.py``),
   or a loop has the shape of a hand-rolled retry. ``ast`` costs a sixth of a LibCST parse, and three in four
   files that pass stage 1 stop here.

Why stage 2 is sound: every qualified name the rules resolve
(:meth:`reslint.semantics.context.Context.qualname`, ``type_of``) starts from an import
binding, a local definition, or a name bound to one of those by assignment, and is
then only extended by attributes (``requests.Session().get``: ``requests.Session``
plus ``get``) or mapped by ``FACTORIES``/``ALIASES``. So a catalog name can only be
reached from a reference that equals it, lies under it, or is a prefix of it. And the
rules only ask about calls, decorators and the types of objects built by a call
(a class base makes a local class stand for its base): an annotation, an ``except``
clause or an ``isinstance`` test alone never leads to a finding. A
hand-rolled retry loop (:mod:`reslint.analysis.loops`) needs a ``return``/``break``
in its body and either a ``try`` or a sleep (itself an entry point).

Skipped files still reach the project rules: the call graph loads a module the
first time a chain from a retried call site reaches it (DESIGN section 2).
"""

from __future__ import annotations

import ast
import keyword
import os
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

#: the head of an import statement (a parenthesised name list continues on other lines,
#: but the module is on the first)
_IMPORT_LINE = re.compile(r"[ \t]*(?:from|import)[ \t][^\n#]*")


def _import_lines(text: str) -> str:
    """The heads of the import statements of ``text``, one per line: every one holds the
    word ``import``, found with ``str.find`` (a multi-line pattern tries every position)."""
    out = []
    at = text.find("import")
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end == -1:
            end = len(text)
        match = _IMPORT_LINE.match(text, start, end)
        if match is not None:
            out.append(match.group(0))
        at = text.find("import", end)
    return "\n".join(out)


def _names(names: Sequence[str]) -> "re.Pattern[str]":
    return re.compile(rf"\b(?:{'|'.join(names)})\b")


class Trigger:
    """Stage 1, the import prefilter: does a file import a module some enabled rule looks for?

    Entries are ``module`` (any import of it) or ``module:name|name`` (an import of it
    and one of the names somewhere in the text). Sound for per-file rules: a call can
    only resolve to a catalog name through an import in the same file, and its last
    name is spelled where it is called or imported.
    """

    def __init__(self, entries: Iterable[str]):
        plain, worded = set(), {}
        for entry in entries:
            module, _, words = entry.partition(":")
            if words:
                worded.setdefault(module, set()).update(words.split("|"))
            else:
                plain.add(module)
        #: one pattern for every module, a group each: group k names ``self._modules[k - 1]``
        self._modules = sorted(plain | set(worded))
        self._imported = re.compile(r"\b(?:" + "|".join(f"({m})" for m in self._modules) + r")\b")
        #: per module: ``None`` (any import) or the names it needs in the text
        self._needs = {module: None if module in plain else frozenset(worded[module]) for module in self._modules}
        #: the names a set of imported modules needs, as one pattern (one scan of the text)
        self._patterns: Dict[FrozenSet[str], "re.Pattern[str]"] = {}

    def search(self, text: str) -> bool:
        imports = _import_lines(text)
        names: Set[str] = set()
        for match in self._imported.finditer(imports):
            needs = self._needs[self._modules[match.lastindex - 1]]
            if needs is None:
                return True
            names |= needs
        if not any(name in text for name in names):  # substring tests are far cheaper than the pattern
            return False
        key = frozenset(names)
        pattern = self._patterns.get(key)
        if pattern is None:
            pattern = self._patterns[key] = _names(sorted(key))
        return pattern.search(text) is not None


def module_name(path: str, packages: Optional[Dict[str, Tuple[str, ...]]] = None) -> Tuple[str, bool]:
    """(dotted module name, is package) of a file: its directory chain of packages
    (directories with ``__init__.py``) up to the first that is not one. ``packages``: a
    dict that remembers each directory's chain, for a run that names many files."""
    directory, filename = os.path.split(os.path.abspath(path))
    stem = filename.rsplit(".", 1)[0]
    is_package = stem == "__init__"
    parts = list(_packages(directory, {} if packages is None else packages)) + ([] if is_package else [stem])
    return ".".join(p for p in parts if p) or "__main__", is_package


def namespace_name(path: str, root: str, packages: Optional[Dict[str, Tuple[str, ...]]] = None,
                   named: Optional[Tuple[str, bool]] = None) -> Optional[str]:
    """The dotted name other modules import a file by from ``root`` (absolute) through namespace
    packages (PEP 420: directories without ``__init__.py``): ``root/app/mailer.py`` is
    ``app.mailer``, ``root/ns/pkg/mod.py`` with ``pkg/__init__.py`` is ``ns.pkg.mod``. ``None``
    when that is its :func:`module_name` (its top package, or the file, is right in ``root``), when
    it is not below ``root``, or when a directory on the way is no identifier (``my-scripts``).
    ``named``: the file's :func:`module_name` when the caller has it."""
    name, is_package = named if named is not None else module_name(path, packages)
    if name == "__main__":
        return None
    prefix = namespace_prefix(os.path.dirname(os.path.abspath(path)), package_depth(name, is_package),
                              os.path.abspath(root))
    return f"{prefix}.{name}" if prefix is not None else None


def package_depth(name: str, is_package: bool) -> int:
    """How many directories up from a module's own directory its top package's parent is (the
    number of packages its :func:`module_name` ``name`` goes through); the same for every module
    of one directory."""
    return name.count(".") + (1 if is_package else 0)


def namespace_prefix(directory: str, depth: int, root: str) -> Optional[str]:
    """The dotted path through namespace packages from ``root`` to the directory that holds the
    top package of the modules in ``directory`` (both absolute and normalised), ``depth``
    (:func:`package_depth`) directories up: ``root/ns/pkg`` at depth 1 gives ``ns``. ``None`` when
    that directory is ``root`` itself or not below it, or a directory on the way is no identifier.
    One answer serves every module of ``directory`` (a project of thousands of files asks once per
    directory)."""
    top = directory
    for _ in range(depth):
        top = os.path.dirname(top)
    below = os.path.join(root, "")
    if top == root or not top.startswith(below):
        return None
    parts = top[len(below):].split(os.sep)
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
        return None
    return ".".join(parts)


def _packages(directory: str, known: Dict[str, Tuple[str, ...]]) -> Tuple[str, ...]:
    """The package names from the outermost package down to ``directory`` (empty when it is
    not a package)."""
    found = known.get(directory)
    if found is None:
        parent, package = os.path.split(directory)
        if not package or not os.path.isfile(os.path.join(directory, "__init__.py")):
            found = ()
        else:
            found = _packages(parent, known) + (package,)
        known[directory] = found
    return found


def absolute_module(module: str, module_name: str, is_package: bool) -> str:
    """``.http_layer`` imported in package ``shop`` → ``shop.http_layer``; an absolute name
    is returned unchanged, and one beyond the top-level package stays relative."""
    dots = len(module) - len(module.lstrip("."))
    if not dots:
        return module
    package = module_name if is_package else module_name.rpartition(".")[0]
    parts = package.split(".") if package else []
    if dots - 1 > len(parts):
        return module
    base = parts[:len(parts) - (dots - 1)] if dots > 1 else parts
    rest = module[dots:]
    return ".".join(p for p in (".".join(base), rest) if p)


# node types, looked up once: the walk below is the hot loop of stage 2
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_EXITS = frozenset({ast.Return, ast.Break})
_LEAVES = _EXITS | {ast.Raise}
_TRIES = frozenset({ast.Try} | ({ast.TryStar} if hasattr(ast, "TryStar") else set()))
_LOOPS = frozenset({ast.For, ast.AsyncFor, ast.While})


#: per node type, the fields that can hold a call, a definition, an import or a loop (not
#: ``ctx``, operators, names as strings): ``ast.iter_child_nodes`` was the walk's main cost
_FIELDS: Dict[type, Tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind"})


def _fields(kind: type) -> Tuple[str, ...]:
    fields = _FIELDS[kind] = tuple(name for name in kind._fields if name not in _LEAF_FIELDS)
    return fields


class Relevance:
    """Stage 2: does a parsed file reference anything an enabled rule looks at?

    ``names``: canonical qualified names of entry points (a name covers everything
    under it: ``stripe`` covers ``stripe.Charge.create``); ``canonical``: the catalog's
    alias mapping (:func:`reslint.catalog.canonical`); ``loops``: whether hand-rolled
    retry loops matter (a retry, idempotency or project rule is enabled); ``check_then_act``:
    the shape that keeps a file for RES404's row checks (:class:`CheckThenAct`).
    """

    def __init__(self, names: Iterable[str], canonical, loops: bool, check_then_act: Optional["CheckThenAct"] = None):
        self.names = frozenset(names)
        #: the shape of a check-then-act on a model's rows (RES404), whose model is the project's own
        #: class: no import names its manager, so the file is kept by its shape
        self.check_then_act = check_then_act
        self.prefixes = frozenset(".".join(n.split(".")[:cut]) for n in self.names
                                  for cut in range(1, n.count(".") + 1))
        self.canonical = canonical
        self.loops = loops

    def wanted(self, tree: ast.Module, module: str, is_package: bool) -> bool:
        """Whether the per-file rules must see this module (``module``: its dotted name)."""
        scan = _Scan(module, is_package, self.loops)
        scan.run(tree)
        if scan.retry_loop or scan.recalled & scan.defined:
            return True
        if any(self._matches(qual) for qual in scan.definitions):
            return True
        for base in scan.star_imports:  # ``from requests import *``: anything in the module
            if self._matches(base, prefix_only=True):
                return True
        if self.check_then_act is not None and self.check_then_act.found(tree, scan.references):
            return True
        bindings = scan.resolve_aliases()
        for root, rest in scan.references:
            for qual in bindings.get(root, ()):
                if self._matches(f"{qual}.{rest}" if rest else qual):
                    return True
        return False

    def _matches(self, qual: str, prefix_only: bool = False) -> bool:
        qual = self.canonical(qual)
        if qual in self.prefixes or "_pb2_grpc" in qual:
            return True
        if prefix_only:
            return qual in self.names
        if qual in self.names:
            return True
        cut = qual.rfind(".")
        while cut > 0:  # under an entry point: a method of an entry class
            qual = qual[:cut]
            if qual in self.names:
                return True
            cut = qual.rfind(".")
        return False


@dataclass(frozen=True)
class CheckThenAct:
    """The necessary shape of a check-then-act on a model's rows (RES404), for a model no import names:
    a called chain through one of ``managers`` (``Model.objects.filter``, ``session.query``), a call of
    one of ``writes`` (``.create()``, ``.save()``, ``.add()``), a call of one of ``reads`` (``.exists()``)
    in an ``if`` test, a ``return`` or an assignment (the guard, or a helper that returns it), and the
    rule's context in the same function: an identifier or a string holding one of ``words``, a
    function name holding one of ``function_words``, or an identifier in ``names`` (a task decorator)."""

    managers: FrozenSet[str]
    reads: FrozenSet[str]
    writes: FrozenSet[str]
    words: Tuple[str, ...] = ()
    names: FrozenSet[str] = frozenset()
    function_words: Tuple[str, ...] = ()

    def found(self, tree: ast.Module, references) -> bool:
        if not any(self.managers.intersection(rest.split(".")) for _, rest in references):
            return False
        if not any(rest.rsplit(".", 1)[-1] in self.writes for _, rest in references if rest):
            return False
        # the guard (or a helper returning it) and the context in one function
        return any(type(node) in (ast.FunctionDef, ast.AsyncFunctionDef) and self._guarded(node)
                   for node in ast.walk(tree))

    def _guarded(self, function) -> bool:
        guard = False
        context = any(w in function.name.lower() for w in self.function_words) or \
            any(self._context(n) for d in function.decorator_list for n in ast.walk(d))
        for node in ast.walk(function):
            kind = type(node)
            if not guard:
                value = node.test if kind is ast.If else node.value if kind in (ast.Return, ast.Assign) else None
                guard = value is not None and any(type(n) is ast.Call and type(n.func) is ast.Attribute and
                                                  n.func.attr in self.reads for n in ast.walk(value))
            if not context and kind is ast.Call:
                context = any(self._context(n) for n in _call_names(node))
            if guard and context:
                return True
        return False

    def _context(self, node) -> bool:
        text = node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else \
            node.arg if type(node) is ast.keyword else None
        return text is not None and (text in self.names or any(w in text.lower() for w in self.words))


def _call_names(call: ast.Call) -> List[ast.AST]:
    """The names a call spells where RES404 reads its context: its callee chain (a model, a helper, a
    manager), its keywords (the fields) and its plain-name arguments (``query(Model)``)."""
    out: List[ast.AST] = [k for k in call.keywords if k.arg]
    out += [a for a in call.args if type(a) is ast.Name]
    func = call.func
    while type(func) is ast.Attribute:
        out.append(func)
        func = func.value
    if type(func) is ast.Name:
        out.append(func)
    return out


class _Scan:
    """One walk over a module's ast, collecting what :meth:`Relevance.wanted` decides on."""

    def __init__(self, module: str, is_package: bool, loops: bool):
        self.module, self.is_package, self.loops = module, is_package, loops
        #: local name -> qualified names it may be bound to by an import
        self.imports: Dict[str, Set[str]] = {}
        #: ``x = a.b.c``: local name -> (root, rest) chains it may be bound to
        self.aliases: Dict[str, Set[Tuple[str, str]]] = {}
        self.star_imports: List[str] = []
        #: qualified names of module-level and class-level definitions (``pkg.mod.Class.method``)
        self.definitions: List[str] = []
        #: every ``a.b.c`` chain that is called, is a decorator or a class base: (root name,
        #: ``b.c``); only those reach a finding (:meth:`Relevance.wanted`)
        self.references: Set[Tuple[str, str]] = set()
        self.retry_loop = False
        #: names of functions defined, and names called from an ``except`` handler with an argument
        #: ``name ± number`` (a retry by recursion calls itself so)
        self.defined: Set[str] = set()
        self.recalled: Set[str] = set()

    def run(self, tree: ast.Module) -> None:
        stack: List[Tuple[ast.AST, Optional[str]]] = [(tree, self.module)]
        used = self.references
        while stack:
            node, path = stack.pop()
            kind = type(node)
            if kind is ast.Attribute:  # a chain's inner links hold no call: only its base may
                value = node.value
                while type(value) is ast.Attribute:
                    value = value.value
                if type(value) is not ast.Name:
                    stack.append((value, path))
                continue
            if kind is ast.Name:
                continue
            if kind is ast.Call:
                chain = _chain(node.func)
                if chain is not None:
                    used.add(chain)
            elif kind is ast.Import:
                self._import(node)
                continue
            elif kind is ast.ImportFrom:
                self._import_from(node)
                continue
            elif (kind is ast.Assign or kind is ast.AnnAssign) and type(node.value) in (ast.Name, ast.Attribute):
                chain = _chain(node.value)
                if chain is not None:
                    for target in node.targets if kind is ast.Assign else [node.target]:
                        if type(target) is ast.Name:
                            self.aliases.setdefault(target.id, set()).add(chain)
            elif kind is ast.ExceptHandler and self.loops:
                self.recalled.update(_counted_calls(node))
            elif kind is ast.ClassDef or kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                if kind is not ast.ClassDef:
                    self.defined.add(node.name)
                inner = f"{path}.{node.name}" if path is not None else None
                if inner is not None:
                    self.definitions.append(inner)
                for expr in node.decorator_list + (node.bases if kind is ast.ClassDef else []):
                    chain = _chain(expr)
                    if chain is not None:
                        used.add(chain)
                # a class body keeps naming its members; a function body's names are local
                path = inner if kind is ast.ClassDef else None
            elif self.loops and kind in _LOOPS and _retry_shaped(node):
                self.retry_loop = True
                return
            fields = _FIELDS.get(kind)
            for name in fields if fields is not None else _fields(kind):
                value = getattr(node, name, None)
                if type(value) is list:
                    stack.extend((item, path) for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append((value, path))

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.imports.setdefault(alias.asname, set()).add(alias.name)
            else:
                root = alias.name.split(".")[0]
                self.imports.setdefault(root, set()).add(root)

    def _import_from(self, node: ast.ImportFrom) -> None:
        base = absolute_module("." * (node.level or 0) + (node.module or ""), self.module, self.is_package)
        for alias in node.names:
            if alias.name == "*":
                self.star_imports.append(base)
                continue
            qual = f"{base}.{alias.name}" if base and not base.endswith(".") else f"{base}{alias.name}"
            self.imports.setdefault(alias.asname or alias.name, set()).add(qual)

    def resolve_aliases(self) -> Dict[str, Set[str]]:
        """Import bindings plus names assigned an imported chain (``Session = requests.Session``),
        followed as deep as :meth:`reslint.semantics.context.Context.qualname` follows them (8 steps)."""
        bindings = {name: set(quals) for name, quals in self.imports.items()}
        changed, depth = True, 0
        while changed and depth < 8:
            changed, depth = False, depth + 1
            for name, chains in self.aliases.items():
                for root, rest in chains:
                    for qual in list(bindings.get(root, ())):
                        full = f"{qual}.{rest}" if rest else qual
                        if full not in bindings.setdefault(name, set()):
                            bindings[name].add(full)
                            changed = True
        return bindings


def _chain(node) -> Optional[Tuple[str, str]]:
    rest = []
    while type(node) is ast.Attribute:
        rest.append(node.attr)
        node = node.value
    return (node.id, ".".join(reversed(rest))) if type(node) is ast.Name else None


def _counted_calls(handler) -> Set[str]:
    """The last names of the functions an ``except`` handler calls with an argument ``name ± number``
    (``push(batch, attempt + 1)``, ``self.send(retries=retries - 1)``)."""
    out = set()
    nodes = _own_nodes(handler.body)
    counts = any(type(n) is ast.AugAssign for n in nodes)  # ``count -= 1``, then a call under ``if count > 0``
    for node in nodes:
        if type(node) is ast.Call:
            func = node.func
            name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
            if name is not None and counts:
                out.add(name)
            elif name is not None and any(
                    type(arg) is ast.BinOp and type(arg.op) in (ast.Add, ast.Sub) and type(arg.left) is ast.Name
                    and type(arg.right) is ast.Constant
                    for arg in node.args + [k.value for k in node.keywords]):
                out.add(name)
    return out


#: an argument ``± number`` (text): a retry by recursion passes ``attempt + 1``; a pattern that starts
#: with a sign is scanned fast (one starting with a word character tried every position of a file)
_COUNTED_ARGUMENT = re.compile(r"[-+] *\d+ *[,)]")
_CALLEE = re.compile(r"(\w+) *\(")


def may_retry_by_recursion(text: str) -> bool:
    """Whether ``text`` may hold a function that retries by calling itself with a counter from an
    ``except`` handler: it has ``except``, and a function it defines is called within 300
    characters before a ``± number`` argument (the text stage's counterpart of
    :func:`_counted_calls`; a superset: the call may span lines and hold nested calls)."""
    if "except" not in text:
        return False
    seen: Set[str] = set()
    for match in _COUNTED_ARGUMENT.finditer(text):
        for name in _CALLEE.findall(text, max(0, match.start() - 300), match.start()):
            if name not in seen:
                seen.add(name)
                if f"def {name}(" in text:
                    return True
    return False


def _retry_shaped(loop) -> bool:
    """A loop that may be a hand-rolled retry, by the necessary conditions of
    :meth:`reslint.analysis.loops.LoopAnalyzer.policy`: a ``while`` or a ``for`` over
    ``range(...)`` or ``count(...)``, whose own body (not nested functions or loops) leaves with
    ``return``/``break`` (or, in ``while not done:``, assigns the flag it tests), and either holds a ``try`` whose success leaves the loop and whose
    failure may go round again, or compares a ``.status``/``.status_code`` (a status check,
    then a sleep)."""
    if type(loop) is not ast.While and not (type(loop.iter) is ast.Call and _counter_name(loop.iter.func)):
        return False
    flag = _flag_name(loop.test) if type(loop) is ast.While else None
    exits = again = False
    for node in _own_nodes(loop.body):
        kind = type(node)
        if kind in _EXITS or (flag is not None and kind is ast.Assign and any(
                type(t) is ast.Name and t.id == flag for t in node.targets)):
            exits = True
        elif kind in _TRIES:
            again = again or _retry_try(node, flag)
        elif kind is ast.Compare:
            again = again or any(type(n) is ast.Attribute and n.attr in ("status", "status_code")
                                 for n in ast.walk(node))
        if exits and again:
            return True
    return False


def _counter_name(func) -> bool:
    """``range(...)``, or an endless counter spelled ``count(...)`` / ``itertools.count(...)`` (a
    superset of the names :data:`reslint.catalog.retries.COUNTERS` resolves)."""
    name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
    return name in ("range", "count")


def _flag_name(test) -> Optional[str]:
    """The name a ``while not done:`` / ``while running:`` loop tests (assigning it may leave)."""
    if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        test = test.operand
    return test.id if type(test) is ast.Name else None


def _retry_try(node, flag: Optional[str] = None) -> bool:
    """A ``try`` that leaves the loop on success (from its body or ``else``, or after it: a
    handler ending in ``continue`` goes round, and the ``return r`` after the try is the success)
    and has a handler that may not leave: its last statement does not, or a ``continue`` of the
    loop goes round before it (``if attempt < n: sleep(...); continue`` then ``raise``)."""
    leaves = any(type(n) in _EXITS or (flag is not None and type(n) is ast.Assign and any(
        type(t) is ast.Name and t.id == flag for t in n.targets)) for n in _own_nodes(node.body + node.orelse)) \
        or any(any(type(n) is ast.Continue for n in _own_nodes(h.body)) for h in node.handlers)
    return leaves and any(not (h.body and type(h.body[-1]) in _LEAVES)
                          or any(type(n) is ast.Continue for n in _own_nodes(h.body)) for h in node.handlers)


def _own_nodes(body) -> List[ast.AST]:
    out, stack = [], list(body)
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, _SCOPES) and type(node) not in _LOOPS:
            stack.extend(ast.iter_child_nodes(node))
    return out


#: RES105's ``budget-parameters`` by default: parameter names that hold a time budget, as shell-style
#: patterns matched case-insensitively (read by :mod:`reslint.analysis.deadlines`, and by the project
#: pass to find the modules of functions given one)
DEFAULT_BUDGET_PARAMETERS: Tuple[str, ...] = (
    "timeout", "timeout_*", "*_timeout", "deadline", "deadline_*", "*_deadline", "budget", "budget_*", "*_budget",
    "remaining", "remaining_time", "remaining_s", "time_remaining", "time_left",  # not `retries_remaining`
)


def budget_cores(patterns: Sequence[str]) -> Tuple[str, ...]:
    """The longest literal run of each of RES105's shell-style ``budget-parameters`` patterns,
    lower-cased (a character set ``[ao]`` is no literal): a text that holds none of them names no
    budget parameter."""
    return tuple(sorted({max(re.split(r"[*?]", re.sub(r"\[[^\]]*\]", "*", p.lower())), key=len)
                         for p in patterns}))


class BudgetCallers:
    """The text shape of a module that may call, from a function given a time budget, a project
    function known to call with a fixed timeout (RES105 across modules), for the project pass to
    choose which modules the import prefilter skipped it parses. A superset: the file defines a
    function, an import line names one of ``modules`` (the last part of a module's name) or
    ``functions`` (their last names: ``from . import fetch``), the text holds the literal part of
    one of the budget ``patterns`` (RES105's shell-style ``budget-parameters``, case-insensitively),
    and it spells one of the ``functions`` as a word. Cheap tests first: most files stop at a
    substring test for the functions' names, before their import lines are read."""

    def __init__(self, patterns: Sequence[str], modules: Iterable[str], functions: Iterable[str]):
        self._imported = frozenset(modules) | frozenset(functions)
        self._cores = budget_cores(patterns)
        names = sorted(frozenset(functions))
        self._names = tuple(names)
        self._functions = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None

    def search(self, text: str) -> bool:
        if self._functions is None or "def " not in text or not any(name in text for name in self._names):
            return False
        if self._imported.isdisjoint(re.findall(r"\w+", _import_lines(text))):
            return False
        lowered = text.lower()
        if not any(core in lowered for core in self._cores):
            return False
        return self._functions.search(text) is not None
