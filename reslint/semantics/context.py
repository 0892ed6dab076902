"""The per-file semantic model: scopes, bindings, imports, and name resolution.

Built once per file by a walk over *statements only* (cheap: expressions are not
descended into), before the rules' single batched visit. Rules then ask it three
questions, each with one answer for the whole code base:

- :meth:`Context.qualname` — "what does this expression name?" (``r.get`` →
  ``requests.get``; ``self.session.get`` → ``requests.Session.get``);
- :meth:`Context.type_of` — "what object is this?" (``requests.Session()`` →
  ``requests.Session``), following locals, ``with … as``, ``self.x`` set in a
  method, and module globals;
- :meth:`Context.value_of` / :meth:`Context.resolve` — "what constant or
  expression does this name stand for?", following a name only when it is bound
  exactly once in its scope (a module constant, a local bound once).

No LibCST metadata provider is used (``QualifiedNameProvider`` costs 5-8x a
parse, see ``research/architecture-anchors.md``). Parameters, ``**kwargs`` and
names bound more than once resolve to "unknown" (``None``/:data:`UNKNOWN`),
never to a guess.
"""

from __future__ import annotations

import builtins

from contextlib import contextmanager
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst

from reslint.catalog import TIMEOUT_INJECTION_HOOKS, canonical, instance_type
from reslint.catalog.idempotency import ANNOTATION_TYPES
from reslint.catalog.user import EMPTY as EMPTY_CATALOG, UserCatalog
from reslint.semantics.prefilter import absolute_module
from reslint.values import UNKNOWN, arithmetic, bounded, spelled_as_constant  # noqa: F401 (UNKNOWN is re-exported)


class Binding:
    """One binding of a name: an assignment, import, parameter, def, ``with … as`` target…

    ``kind`` is one of ``assign``, ``aug``, ``import``, ``param``, ``def``,
    ``class``, ``for``, ``with``, ``unpack``, ``except``, ``other``. ``value`` is
    the bound expression when there is one; ``qualname`` the imported dotted name
    for imports (relative imports keep their leading dots).
    """

    __slots__ = ("kind", "value", "qualname", "node", "scope")

    def __init__(self, kind: str, value=None, qualname: Optional[str] = None, node=None, scope=None):
        self.kind = kind
        self.value = value
        self.qualname = qualname
        self.node = node
        self.scope = scope


class Scope:
    """A module, class, function, lambda or comprehension scope and its bindings."""

    __slots__ = ("kind", "node", "parent", "bindings", "global_names", "attrs", "self_name", "class_scope",
                 "mounts", "name")

    def __init__(self, kind: str, node, parent: Optional["Scope"], name: str = ""):
        self.kind = kind
        self.node = node
        self.parent = parent
        self.name = name
        self.bindings: Dict[str, List[Binding]] = {}
        self.global_names: Set[str] = set()
        #: class scopes: ``self.<attr>`` bindings made in any method
        self.attrs: Dict[str, List[Binding]] = {}
        #: method scopes: the name of the first parameter (``self``/``cls``)
        self.self_name: Optional[str] = None
        self.class_scope: Optional[Scope] = None
        #: ``x.mount(prefix, adapter)`` calls, keyed by receiver ("name" or "self.attr")
        self.mounts: Dict[str, List[cst.BaseExpression]] = {}

    def bind(self, name: str, binding: Binding) -> None:
        binding.scope = self
        self.bindings.setdefault(name, []).append(binding)

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def dotted_name(node) -> Optional[str]:
    """``a.b.c`` as text for Name/Attribute chains, else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


_dotted = dotted_name


def _import_from_module(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    mod = _dotted(node.module) if node.module is not None else ""
    return f"{dots}{mod or ''}"


class SemanticModel:
    """Scopes and bindings of one module, keyed by the node that opens each scope.

    ``module_name`` is the module's dotted name (used to name local classes).
    Raises nothing on odd code: anything it does not understand is "other".
    """

    def __init__(self, module: cst.Module, module_name: str = "__main__", is_package: bool = False):
        self.module_name = module_name
        self.is_package = is_package
        self.module_scope = Scope("module", module, None, module_name)
        #: id(body node) -> scope, for FunctionDef/ClassDef bodies and Lambda bodies
        self.scopes: Dict[int, Scope] = {id(module): self.module_scope}
        #: local classes: qualified name -> ClassDef node, and their scope
        self.classes: Dict[str, Tuple[cst.ClassDef, Scope]] = {}
        self.star_imports: List[str] = []
        #: dotted modules imported without an alias (``import botocore.config``)
        self.imported_modules: Set[str] = set()
        #: the top-level package of every import, at any scope (``tenacity`` for ``from tenacity.x import y``)
        self.import_roots: Set[str] = set()
        #: calls that are whole statements (``x.mount(...)``, ``socket.setdefaulttimeout(...)``)
        self.expression_calls: List[Tuple[cst.Call, Scope]] = []
        #: assignments to an attribute of a name (``litellm.num_retries = 3``): (target, value, scope)
        self.attribute_assignments: List[Tuple[cst.Attribute, cst.BaseExpression, Scope]] = []
        self._walk(module.body, self.module_scope)

    # -- building -----------------------------------------------------------------
    def _walk(self, body: Iterable, scope: Scope) -> None:
        for stmt in body:
            self._statement(stmt, scope)

    def _target_scope(self, name: str, scope: Scope) -> Scope:
        return scope.module if name in scope.global_names else scope

    def _bind_target(self, target, binding_kind: str, value, stmt, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            self._target_scope(target.value, scope).bind(target.value, Binding(binding_kind, value, node=stmt))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                inner = element.value
                if isinstance(inner, cst.StarredElement):
                    inner = inner.value
                self._bind_target(inner, "unpack", None, stmt, scope)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, "unpack", None, stmt, scope)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            cls = scope.class_scope
            if cls is not None and target.value.value == scope.self_name:
                b = Binding(binding_kind, value, node=stmt, scope=scope)
                cls.attrs.setdefault(target.attr.value, []).append(b)

    def _small(self, small, stmt, scope: Scope) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._bind_target(t.target, "assign", small.value, stmt, scope)
                if isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name):
                    self.attribute_assignments.append((t.target, small.value, scope))
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._bind_target(small.target, "assign", small.value, stmt, scope)
        elif isinstance(small, cst.AugAssign):
            self._bind_target(small.target, "aug", None, stmt, scope)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                full = _dotted(alias.name) or ""
                self.import_roots.add(full.split(".")[0])
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    name, qual = alias.asname.name.value, full
                else:
                    name = qual = full.split(".")[0]
                    self.imported_modules.add(full)
                self._target_scope(name, scope).bind(name, Binding("import", qualname=qual, node=stmt))
        elif isinstance(small, cst.ImportFrom):
            base = _import_from_module(small)
            self.import_roots.add(base.lstrip(".").split(".")[0])
            if isinstance(small.names, cst.ImportStar):
                self.star_imports.append(base)
                return
            base = absolute_module(base, self.module_name, self.is_package)
            for alias in small.names:
                imported = _dotted(alias.name) or ""
                name = imported
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    name = alias.asname.name.value
                qual = f"{base}.{imported}" if base and not base.endswith(".") else f"{base}{imported}"
                self._target_scope(name, scope).bind(name, Binding("import", qualname=qual, node=stmt))
        elif isinstance(small, cst.Global):
            scope.global_names.update(n.name.value for n in small.names)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self.expression_calls.append((small.value, scope))
            self._record_mount(small.value, scope)

    def _record_mount(self, call: cst.Call, scope: Scope) -> None:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "mount" and len(call.args) >= 2):
            return
        key = _dotted(func.value)
        if key is None:
            return
        owner = scope
        if key.startswith(f"{scope.self_name}.") and scope.class_scope is not None:
            owner, key = scope.class_scope, "self." + key.split(".", 1)[1]
        owner.mounts.setdefault(key, []).append(call.args[1].value)

    def _function(self, node: cst.FunctionDef, scope: Scope) -> None:
        scope.bind(node.name.value, Binding("def", node, node=node))
        fscope = Scope("function", node, scope, node.name.value)
        params = node.params
        ordered = list(params.posonly_params) + list(params.params)
        for p in ordered + list(params.kwonly_params):
            fscope.bind(p.name.value, Binding("param", node=node))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                fscope.bind(star.name.value, Binding("param", node=node))
        if scope.kind == "class":
            fscope.class_scope = scope
            is_static = any(_dotted(d.decorator) == "staticmethod" for d in node.decorators)
            if ordered and not is_static:
                fscope.self_name = ordered[0].name.value
        self.scopes[id(node.body)] = fscope
        self._walk_block(node.body, fscope)

    def _class(self, node: cst.ClassDef, scope: Scope) -> None:
        scope.bind(node.name.value, Binding("class", node, node=node))
        qual = f"{scope.name}.{node.name.value}" if scope.kind in ("module", "class") else node.name.value
        cscope = Scope("class", node, scope, qual)
        self.scopes[id(node.body)] = cscope
        self.classes[qual] = (node, cscope)
        self._walk_block(node.body, cscope)

    def _walk_block(self, block, scope: Scope) -> None:
        if isinstance(block, cst.IndentedBlock):
            self._walk(block.body, scope)
        elif isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self._small(small, block, scope)

    def _statement(self, stmt, scope: Scope) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, stmt, scope)
        elif isinstance(stmt, cst.FunctionDef):
            self._function(stmt, scope)
        elif isinstance(stmt, cst.ClassDef):
            self._class(stmt, scope)
        elif isinstance(stmt, cst.For):
            self._bind_target(stmt.target, "for", None, stmt, scope)
            self._walk_block(stmt.body, scope)
            if stmt.orelse is not None:
                self._walk_block(stmt.orelse.body, scope)
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    self._bind_target(item.asname.name, "with", item.item, stmt, scope)
            self._walk_block(stmt.body, scope)
        elif isinstance(stmt, (cst.If, cst.While)):
            self._walk_block(stmt.body, scope)
            orelse = stmt.orelse
            while orelse is not None:
                self._walk_block(orelse.body, scope)
                orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self._walk_block(stmt.body, scope)
            for handler in stmt.handlers:
                if handler.name is not None:
                    self._bind_target(handler.name.name, "except", None, stmt, scope)
                self._walk_block(handler.body, scope)
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self._walk_block(extra.body, scope)
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                self._walk_block(case.body, scope)


_STATEMENT_TYPES: Dict[type, bool] = {}
#: expression nodes that open a scope of their own during the walk
_NEW_SCOPES = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


def _is_statement(cls: type) -> bool:
    """``issubclass(cls, (SimpleStatementLine, BaseCompoundStatement))``, memoised (ABC checks are slow)."""
    known = _STATEMENT_TYPES.get(cls)
    if known is None:
        known = _STATEMENT_TYPES[cls] = issubclass(cls, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return known


class Context:
    """What rules ask during the visit: the current scope and name resolution.

    The engine keeps ``scope`` current through the batched visit's
    ``before_visit``/``after_leave`` hooks; rules never track scopes themselves.
    """

    #: at most this many wanted names are kept per module (a summary stays small)
    MAX_WANTED = 256
    #: the work one :meth:`value_of` may do (nodes visited)
    MAX_VALUE_STEPS = 5000

    def __init__(self, model: SemanticModel, settings=None):
        self.model = model
        self.settings = settings
        self.scope: Scope = model.module_scope
        self._stack: List[Tuple[object, Scope]] = []
        self._statements: List[cst.CSTNode] = []
        #: set by the engine when a rule needs retries: the extractor and the retried scopes
        self.retries = None
        self.retried = None
        #: retry and deadline scopes around the node being visited (outermost first)
        self.retry_scopes: List[object] = []
        self.deadlines: List[object] = []
        self._opened: List[Tuple[object, int, int]] = []
        self.cache: Dict[Tuple[str, int], object] = {}
        self._qualnames: Dict[Tuple[int, int], Optional[str]] = {}
        #: (id(function scope), parameter name) -> the value a use site passes: set while a retry
        #: helper's policy is read for one use (:meth:`bound_params`), empty otherwise
        self.param_values: Dict[Tuple[int, str], object] = {}
        #: qualified names of imported names whose value :meth:`value_of` was asked for and did
        #: not know (``from .settings import BASE_DELAY``): the project pass looks them up among
        #: the project's module constants (:attr:`UserCatalog.constants`) and lints this module again
        self.wanted: Set[str] = set()
        #: set by RES105 when the module's walk ends: ``(fixed timeouts, budgeted functions, budget
        #: calls)`` as ``(fields, node, unit)`` triples (nodes for their positions), for the project pass
        self.deadline_facts: Optional[Tuple[list, tuple, list]] = None
        self._value_steps = 0

    @property
    def catalog(self) -> UserCatalog:
        """The project's own catalog entries (``[tool.reslint.catalog]`` and what the project pass
        inferred), empty without settings."""
        found = getattr(self.settings, "catalog", None)
        return found if isinstance(found, UserCatalog) else EMPTY_CATALOG

    # -- scope tracking (called by the engine) ---------------------------------------
    @property
    def statement(self):
        """The innermost statement being visited (where a fix's edit is computed)."""
        return self._statements[-1] if self._statements else None

    @property
    def statements(self) -> Tuple[cst.CSTNode, ...]:
        """The statements that enclose the node being visited, outermost first (compound
        statements such as ``if`` and ``try``, then the innermost statement line)."""
        return tuple(self._statements)

    @property
    def unit(self):
        """The statement whose rendering holds the node being visited: the top-level
        statement, or a member of a top-level class body (nested classes alike); the unit
        of :class:`reslint.engine.positions.Positions`."""
        statements = self._statements
        k = 0
        while k + 1 < len(statements) and type(statements[k]) is cst.ClassDef:
            k += 1
        return statements[k] if statements else None

    def enter(self, node) -> None:
        if _is_statement(type(node)):
            self._statements.append(node)
        opened = self.retried.opened.get(id(node)) if self.retried is not None else None
        if opened:
            self._opened.append((node, len(self.retry_scopes), len(self.deadlines)))
            for entry in opened:
                (self.deadlines if hasattr(entry, "seconds") else self.retry_scopes).append(entry)
        scope = self.model.scopes.get(id(node))
        if scope is None:
            if type(node) not in _NEW_SCOPES:
                return
            if isinstance(node, cst.Lambda):
                scope = Scope("lambda", node, self.scope)
                for p in list(node.params.posonly_params) + list(node.params.params) + list(node.params.kwonly_params):
                    scope.bind(p.name.value, Binding("param"))
                for star in (node.params.star_arg, node.params.star_kwarg):
                    if isinstance(star, cst.Param):
                        scope.bind(star.name.value, Binding("param"))
            elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                scope = Scope("comprehension", node, self.scope)
                comp = node.for_in
                while comp is not None:
                    SemanticModel._bind_target(self.model, comp.target, "for", None, node, scope)
                    comp = comp.inner_for_in
            else:
                return
        self._stack.append((node, self.scope))
        self.scope = scope

    def leave(self, node) -> None:
        if self._statements and self._statements[-1] is node:
            self._statements.pop()
        if self._opened and self._opened[-1][0] is node:
            _, retries, deadlines = self._opened.pop()
            del self.retry_scopes[retries:]
            del self.deadlines[deadlines:]
        if self._stack and self._stack[-1][0] is node:
            self.scope = self._stack.pop()[1]

    # -- resolution ---------------------------------------------------------------------
    @contextmanager
    def in_scope(self, scope: Optional[Scope]) -> Iterator[None]:
        """Resolve names in ``scope`` for the block (an analysis reading code other than the node
        being visited: a loop's body, a module binding), then restore the visit's scope, also on
        an error."""
        saved, self.scope = self.scope, scope
        try:
            yield
        finally:
            self.scope = saved

    def opened_scope(self, node, default: Optional[Scope] = None) -> Optional[Scope]:
        """The scope of names ``node`` opens (a function's body, a module, a class body, as the
        semantic model recorded it), or ``default`` when it opens none: a retried scope's own
        names are read in it."""
        return self.model.scopes.get(id(node), default)

    def builtin(self, expr, scope: Optional[Scope] = None) -> str:
        """``builtins.open`` when ``expr`` is the name of a builtin (``open``, ``print``, ``map``) that
        no binding seen from ``scope`` shadows, else ``""``: :meth:`qualname` answers ``None`` for
        builtins, which are no import."""
        if isinstance(expr, cst.Name) and hasattr(builtins, expr.value) and self.lookup(expr.value, scope) is None:
            return f"builtins.{expr.value}"
        return ""

    def lookup(self, name: str, scope: Optional[Scope] = None) -> Optional[List[Binding]]:
        """The bindings ``name`` refers to from ``scope`` (Python's LEGB rule), or ``None``."""
        scope = scope or self.scope
        first = True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            if name in scope.global_names:
                scope = scope.module
                first = False
                continue
            found = scope.bindings.get(name)
            if found:
                return found
            first = False
            scope = scope.parent
        return None

    def single(self, name: str, scope: Optional[Scope] = None) -> Optional[Binding]:
        """The binding of ``name`` when it is bound exactly once by a plain assignment."""
        found = self.lookup(name, scope)
        if found and len(found) == 1 and found[0].kind == "assign":
            return found[0]
        return None

    def resolve(self, expr, scope: Optional[Scope] = None, depth: int = 0):
        """Follow a name bound once to its expression; return ``(expr, scope)``."""
        scope = scope or self.scope
        while isinstance(expr, cst.Name) and depth < 8:
            binding = self.single(expr.value, scope)
            if binding is None or binding.value is None:
                break
            expr, scope, depth = binding.value, binding.scope, depth + 1
        return expr, scope

    def qualname(self, expr, scope: Optional[Scope] = None, depth: int = 0) -> Optional[str]:
        """The canonical dotted name an expression refers to, or ``None`` when unknown."""
        if depth > 8:
            return None
        scope = scope or self.scope
        if depth == 0:  # rules ask about the same node many times: answer once per node and scope
            key = (id(expr), id(scope))
            memo = self._qualnames
            if key not in memo:
                memo[key] = self._qualname(expr, scope, 0)
            return memo[key]
        return self._qualname(expr, scope, depth)

    def _qualname(self, expr, scope: Scope, depth: int) -> Optional[str]:
        if isinstance(expr, cst.Name):
            found = self.lookup(expr.value, scope)
            if not found:
                return None
            quals = set()
            for b in found:
                if b.kind == "import":
                    quals.add(b.qualname)
                elif b.kind in ("class", "def"):
                    quals.add(self._local_class_name(b))
                elif b.kind == "assign" and len(found) == 1 and isinstance(b.value, (cst.Name, cst.Attribute)):
                    quals.add(self.qualname(b.value, b.scope, depth + 1))
                else:
                    return None
            if len(quals) != 1:
                return None
            qual = quals.pop()
            return self._aliased(canonical(qual)) if qual else None
        if isinstance(expr, cst.Attribute):
            if isinstance(expr.value, cst.Name):
                cls = self._self_class(expr.value.value, scope)
                found = cls.bindings.get(expr.attr.value) if cls is not None else None
                if found and all(b.kind == "def" for b in found):
                    return f"{cls.name}.{expr.attr.value}"  # self.method() of this class
            base = self.qualname(expr.value, scope, depth + 1)
            if base is not None and self.catalog.instances:
                # ``app.task`` after ``from .celery import app``: the type of the instance it names
                base = self.catalog.instance(base) or base
            if base is None:
                base = self.type_of(expr.value, scope, depth + 1)
            if base is None:
                return None
            return self._aliased(canonical(f"{base}.{expr.attr.value}"))
        return None

    def _aliased(self, qual: str) -> str:
        """``qual``, or the library callable it stands for when another module of the project says
        so (``tasks.task`` after ``from app import tasks``, a factory handing its ``**kwargs`` to
        ``celery_app.task``: ``celery.Celery.task``; :meth:`UserCatalog.alias`)."""
        if not self.catalog.instances:
            return qual
        return self.catalog.alias(qual) or qual

    def _local_class_name(self, binding: Binding) -> Optional[str]:
        scope = binding.scope
        name = binding.node.name.value
        if scope.kind in ("module", "class"):
            return f"{scope.name}.{name}"
        return None

    def type_of(self, expr, scope: Optional[Scope] = None, depth: int = 0) -> Optional[str]:
        """The canonical type of the object an expression evaluates to, or ``None``."""
        if depth > 8:
            return None
        scope = scope or self.scope
        if isinstance(expr, cst.Call):
            callee = self.qualname(expr.func, scope, depth + 1)
            if callee is None:
                return None
            local = self.model.classes.get(callee)
            if local is not None:
                return self._local_class_type(callee, *local, depth=depth)
            return instance_type(callee)
        if isinstance(expr, cst.Await):
            return None
        if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.Or) and \
                isinstance(expr.right, cst.Call):
            # ``session or requests.Session()``: the default's type, unless the given object is
            # known to be of another (a caller's object of unknown type stands in for the default);
            # not ``session or SHARED`` (an object configured elsewhere: adapters mounted on it)
            default = self.type_of(expr.right, scope, depth + 1)
            given = self.type_of(expr.left, scope, depth + 1)
            return default if given in (None, default) else None
        if isinstance(expr, cst.Name):
            found = self.lookup(expr.value, scope)
            return self._type_of_bindings(found, depth)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            cls = self._self_class(expr.value.value, scope)
            if cls is not None:
                return self._type_of_bindings(cls.attrs.get(expr.attr.value), depth, stored=True)
        return None

    def _type_of_bindings(self, found: Optional[List[Binding]], depth: int, stored: bool = False) -> Optional[str]:
        """The one type of the values ``found`` binds; ``stored``: they are an attribute's
        (``self.session = session``), where a parameter stored counts as its annotation says."""
        if not found:
            return None
        types = set()
        for b in found:
            if b.kind not in ("assign", "with") or b.value is None:
                return None
            found_type = self.type_of(b.value, b.scope, depth + 1)
            if found_type is None and stored:
                found_type = self._annotated_type(b.value, b.scope, depth)
            types.add(found_type)
        if len(types) != 1:
            return None
        return types.pop()

    def _annotated_type(self, expr, scope: Optional[Scope], depth: int) -> Optional[str]:
        """The class a parameter's annotation names itself (``session: ClientSession``) when ``expr``
        is that parameter, bound nowhere else, and the class is one the catalog trusts an
        annotation for (``ANNOTATION_TYPES``); ``None`` for an annotation that names several types
        or none (``Optional[X]``, ``X | None``, a string)."""
        if not isinstance(expr, cst.Name):
            return None
        found = self.lookup(expr.value, scope)
        if not found or len(found) != 1 or found[0].kind != "param" or not isinstance(found[0].node, cst.FunctionDef):
            return None
        params = found[0].node.params
        param = next((p for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                      if p.name.value == expr.value), None)
        annotation = param.annotation.annotation if param is not None and param.annotation is not None else None
        if not isinstance(annotation, (cst.Name, cst.Attribute)):
            return None
        qual = self.qualname(annotation, scope.parent if scope is not None else None, depth + 1)
        return qual if qual in ANNOTATION_TYPES else None

    def self_attribute(self, expr, scope: Optional[Scope] = None) -> Optional[List[Binding]]:
        """The bindings of ``self.x`` (``expr``) in the class of the enclosing method (every
        ``self.x = ...`` of the class), or ``None`` when ``expr`` is no attribute of ``self``."""
        scope = scope or self.scope
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)):
            return None
        cls = self._self_class(expr.value.value, scope)
        return cls.attrs.get(expr.attr.value) if cls is not None else None

    def _self_class(self, name: str, scope: Scope) -> Optional[Scope]:
        """The class scope when ``name`` is the ``self`` of the enclosing method, also from a
        function nested in it that does not bind ``name`` itself (a closure over ``self``)."""
        while scope is not None:
            if scope.kind == "function" and scope.self_name == name:
                return scope.class_scope
            if scope.kind not in ("lambda", "comprehension", "function") or name in scope.bindings:
                return None
            scope = scope.parent
        return None

    def _local_class_type(self, qual: str, node: cst.ClassDef, cscope: Scope, depth: int) -> Optional[str]:
        """A local subclass of a catalog type counts as that type unless it may change the
        behaviour that matters (for sessions: inject a default timeout by overriding hooks)."""
        for base in node.bases:
            base_type = self.qualname(base.value, cscope.parent, depth + 1)
            if base_type is None:
                continue
            base_type = instance_type(base_type)
            hooks = TIMEOUT_INJECTION_HOOKS.get(base_type)
            if hooks is None:
                continue
            overridden = any(name in cscope.bindings for name in hooks)
            return qual if overridden else base_type
        return qual

    def constructor_of(self, expr, scope: Optional[Scope] = None, depth: int = 0) -> Optional[cst.Call]:
        """The call that built the object ``expr`` names (a local, ``with … as``, ``self.x``,
        a module global bound once), or ``None``."""
        scope = scope or self.scope
        if depth > 8:
            return None
        if isinstance(expr, cst.Call):
            return expr
        found = None
        if isinstance(expr, cst.Name):
            found = self.lookup(expr.value, scope)
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            cls = self._self_class(expr.value.value, scope)
            found = cls.attrs.get(expr.attr.value) if cls is not None else None
        if not found or len(found) != 1 or found[0].kind not in ("assign", "with") or found[0].value is None:
            return None
        return self.constructor_of(found[0].value, found[0].scope, depth + 1)

    def constructors_of(self, expr, scope: Optional[Scope] = None) -> Optional[List[Optional[cst.Call]]]:
        """The call that may have built the object ``expr`` names, per binding, when it is bound in
        several places (``client = OpenAI(key)`` in one branch, ``client = state.client`` in
        another), each followed as :meth:`constructor_of` follows one; ``None`` for a binding that
        is no call reslint can follow (a parameter, another object's attribute). ``None`` when
        ``expr`` is no name bound here."""
        scope = scope or self.scope
        one = self.constructor_of(expr, scope)
        if one is not None:
            return [one]
        if not isinstance(expr, cst.Name):
            return None
        found = self.lookup(expr.value, scope)
        if not found:
            return None
        return [self.constructor_of(b.value, b.scope, 1) if b.kind in ("assign", "with") and b.value is not None
                else None for b in found]

    def mounts_of(self, expr, scope: Optional[Scope] = None) -> Optional[List[cst.BaseExpression]]:
        """Adapters mounted on the object ``expr`` names (``name.mount(p, a)`` or ``self.x.mount``)."""
        scope = scope or self.scope
        if isinstance(expr, cst.Name):
            found = self.lookup(expr.value, scope)
            if not found:
                return None
            return found[0].scope.mounts.get(expr.value, [])
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            cls = self._self_class(expr.value.value, scope)
            if cls is not None:
                return cls.mounts.get("self." + expr.attr.value, [])
        return None

    def param_default(self, expr, scope: Optional[Scope] = None):
        """The constant default of the parameter ``expr`` names (``max_retries=3`` for ``max_retries``),
        else :data:`UNKNOWN` (not a parameter, no default, or a default that is no constant)."""
        if not isinstance(expr, cst.Name):
            return UNKNOWN
        found = self.lookup(expr.value, scope or self.scope)
        if not found or len(found) != 1 or found[0].kind != "param" or \
                not isinstance(found[0].node, (cst.FunctionDef, cst.Lambda)):
            return UNKNOWN
        params = found[0].node.params
        for param in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if param.name.value == expr.value and param.default is not None:
                return self.value_of(param.default, found[0].scope.parent)
        return UNKNOWN

    def value_of(self, expr, scope: Optional[Scope] = None, depth: int = 0):
        """The constant value of an expression (numbers, strings, None, bools, tuples), or
        :data:`UNKNOWN`. Names are followed only when bound exactly once. An imported name is
        looked up among the project's constants the project pass supplied; one not known there
        and spelled as a constant is noted in :attr:`wanted`. One evaluation takes at most
        :attr:`MAX_VALUE_STEPS` steps (tuples of tuples that reuse each other grow exponentially)."""
        if depth == 0:
            self._value_steps = 0
        self._value_steps += 1
        if depth > 12 or self._value_steps > self.MAX_VALUE_STEPS:
            return UNKNOWN
        scope = scope or self.scope
        if isinstance(expr, (cst.Integer, cst.Float)):
            return bounded(expr.evaluated_value)
        if isinstance(expr, cst.Name):
            if expr.value in ("None", "True", "False"):
                return {"None": None, "True": True, "False": False}[expr.value]
            imported = self._imported(expr.value, scope)
            if imported is not None:
                return self._imported_value(imported)
            binding = self.single(expr.value, scope)
            if binding is None or binding.value is None:
                return self._bound_param(expr.value, scope) if self.param_values else UNKNOWN
            return self.value_of(binding.value, binding.scope, depth + 1)
        if isinstance(expr, cst.Attribute):
            qual = self.imported_attribute(expr, scope)
            return UNKNOWN if qual is None else self._imported_value(qual)
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
            try:
                return expr.evaluated_value
            except Exception:  # noqa: BLE001 - odd escapes: unknown, not a crash
                return UNKNOWN
        if isinstance(expr, cst.UnaryOperation):
            inner = self.value_of(expr.expression, scope, depth + 1)
            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                if isinstance(expr.operator, cst.Minus):
                    return -inner
                if isinstance(expr.operator, cst.Plus):
                    return inner
            return UNKNOWN
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, scope, depth)
        if isinstance(expr, (cst.Tuple, cst.List)):
            values = []
            for element in expr.elements:
                if isinstance(element, cst.StarredElement):
                    return UNKNOWN
                values.append(self.value_of(element.value, scope, depth + 1))
            return tuple(values)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("float", "int"):
            if len(expr.args) == 1 and not expr.args[0].keyword and not expr.args[0].star:
                inner = self.value_of(expr.args[0].value, scope, depth + 1)
                if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                    return float(inner) if expr.func.value == "float" else int(inner)
            return UNKNOWN
        return UNKNOWN


    def _imported_value(self, qualname: str):
        """The number a project module binds to ``qualname``, when the project pass has told
        (:attr:`UserCatalog.constants`); else :data:`UNKNOWN`, and the name is noted as wanted."""
        if qualname.startswith("."):
            return UNKNOWN  # a relative import above the top package: nothing to look up
        value = self.catalog.constant(qualname)
        if value is not None:
            return value
        # only names spelled as constants (PEP 8: ``BASE_DELAY``, ``_DEFAULT_TIMEOUT``) are looked up:
        # an exception or a class named in a tuple is no number, and each lookup may read a module
        if spelled_as_constant(qualname.rsplit(".", 1)[-1]) and len(self.wanted) < self.MAX_WANTED:
            self.wanted.add(qualname)
        return UNKNOWN

    def imported_attribute(self, expr: cst.Attribute, scope: Scope) -> Optional[str]:
        """``settings.BASE_DELAY`` where ``settings`` is an imported module (or ``app.settings.X``
        after ``import app.settings``): the dotted name, else ``None``."""
        parts = []
        node = expr
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name) or len(parts) > 6:
            return None
        imported = self._imported(node.value, scope)
        return None if imported is None else ".".join([imported, *reversed(parts)])

    def _imported(self, name: str, scope: Scope) -> Optional[str]:
        """The dotted name ``name`` is imported as, when one import is its only binding."""
        found = self.lookup(name, scope)
        if found and len(found) == 1 and found[0].kind == "import" and found[0].qualname:
            return found[0].qualname
        return None

    def _bound_param(self, name: str, scope: Scope):
        """The value a use site binds to the parameter ``name`` (see :attr:`param_values`)."""
        found = self.lookup(name, scope)
        if found and all(b.kind == "param" for b in found):
            return self.param_values.get((id(found[0].scope), name), UNKNOWN)
        return UNKNOWN

    def bound_params(self, values: Dict[Tuple[int, str], object]):
        """A context manager: while it is open, :meth:`value_of` reads each parameter in
        ``values`` as the value given (a retry helper read for one use site)."""
        return _BoundParams(self, values)

    def _binary(self, expr: cst.BinaryOperation, scope: Scope, depth: int):
        left = self.value_of(expr.left, scope, depth + 1)
        right = self.value_of(expr.right, scope, depth + 1)
        return arithmetic(expr.operator, left, right)

    def string_text(self, expr, scope: Optional[Scope] = None) -> Optional[str]:
        """The literal text of a string, f-string (static parts only) or constant name."""
        expr, scope = self.resolve(expr, scope)
        if isinstance(expr, cst.FormattedString):
            return "".join(p.value for p in expr.parts if isinstance(p, cst.FormattedStringText))
        if isinstance(expr, cst.ConcatenatedString):
            left, right = self.string_text(expr.left, scope), self.string_text(expr.right, scope)
            return None if left is None or right is None else left + right
        value = self.value_of(expr, scope)
        return value if isinstance(value, str) else None


class _BoundParams:
    def __init__(self, ctx: Context, values):
        self.ctx, self.values, self.saved = ctx, values, None

    def __enter__(self):
        self.saved, self.ctx.param_values = self.ctx.param_values, dict(self.values)
        return self

    def __exit__(self, *exc):
        self.ctx.param_values = self.saved
        return False
