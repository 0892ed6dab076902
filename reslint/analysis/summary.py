"""Module summaries (:mod:`reslint.analysis.facts`), made during the per-file walk by
:class:`SummaryCollector`, an engine visitor that runs beside the rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import libcst as cst

from reslint import libraries
from reslint.catalog import canonical, retries as retry_catalog
from reslint.catalog.clients import ADAPTER_RAISES, COUNTS_RETRIES, REQUEST_METHODS, RETRYING_CLIENTS
from reslint.analysis.model_calls import call_attempts, retrying_call, unpacked_keywords
from reslint.analysis.facts import ANY, UNKNOWN_TYPES, BudgetCall, CallSite, FixedTimeout, Function, KeyCall, \
    KeyMint, KeyReturn, Layer, ModuleSummary, PendingWrite
from reslint.libraries import arq
from reslint.model.reader import PolicyReader
from reslint.semantics.context import Context
from reslint.semantics.walk import children, expressions
from reslint.model.policy import RetriedKind, RetryPolicy, Role
from reslint.values import UNKNOWN, is_number, spelled_as_constant

#: the methods that run a framework's model object (LangChain ``invoke``, LlamaIndex ``complete``...)
_RUN_METHODS = frozenset(m for library, methods in REQUEST_METHODS.items() if library in RETRYING_CLIENTS
                         for m in methods)
#: what :meth:`SummaryCollector._receiver_layer` answers for a call that builds no such policy
_NOT_A_POLICY = object()


@dataclass
class _PendingCall:
    node: cst.Call
    callee: Optional[str]
    function: str
    retried_by: Tuple[int, ...]
    client_layer: Optional[int]
    write: Optional[str] = None
    target_param: Tuple[str, ...] = ()
    strings: Tuple[Tuple[str, str], ...] = ()


class SummaryCollector:
    """Collects a :class:`ModuleSummary` during the walk (needs the retried scopes)."""

    code = ""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._layers: List[dict] = []
        self._layer_ids: Dict[int, int] = {}
        self._calls: List[_PendingCall] = []
        #: (fields, node) pairs; positions are added in :meth:`summary`
        self._key_calls: List[Tuple[dict, cst.CSTNode]] = []
        self._key_returns: List[Tuple[dict, cst.CSTNode]] = []
        self._pending_writes: List[Tuple[dict, cst.CSTNode]] = []
        self._key_mints: List[Tuple[dict, cst.CSTNode]] = []
        self._bodies: Dict[int, _FunctionBody] = {}
        #: the statements whose rendering holds the recorded nodes (``Context.unit``): the
        #: only ones whose positions :meth:`summary` reads
        self.units: List[cst.CSTNode] = []

    # -- layers ----------------------------------------------------------------------
    def layer_of(self, policy: RetryPolicy, scope=None) -> int:
        """The layer of ``policy``; ``scope``: the retried scope it is asked for. A decorator bound
        once and applied to several functions (``api_retry = retry(...)``, then ``@api_retry``) is
        a layer per function, labelled by the function and placed at its decorator: a chain
        through two of them names both, and shows where each is applied."""
        decorator = _shared_decorator(policy, scope)
        key = (id(policy), id(decorator)) if decorator is not None else id(policy)
        if key not in self._layer_ids:
            catches = _catches(policy)
            raises = catches
            if policy.adapter.give_up_error and not policy.reraise:
                raises = (policy.adapter.give_up_error,)
            attempts = policy.attempts
            delay = policy.max_delay_s
            cap = f"{delay:g} s time cap" if is_number(delay) else ("no time cap" if delay is None else "")
            label = scope.function.name.value if decorator is not None else _policy_label(policy, self.ctx)
            self._layer_ids[key] = self._add_layer(
                label=label, library=policy.library,
                attempts=int(attempts) if is_number(attempts) else (0 if attempts is None else -1),
                catches=catches, raises=raises, node=decorator if decorator is not None else policy.node, cap=cap)
        return self._layer_ids[key]

    def _add_layer(self, **fields) -> int:
        fields["id"] = len(self._layers)
        self._layers.append(fields)
        self.units.append(self.ctx.unit)
        return fields["id"]

    # -- the walk --------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        passed = ctx.retried.passed_call(node) if ctx.retried is not None else None
        if passed is not None:
            self._passed(passed)
        callee = ctx.qualname(node.func)
        client = self._client_layer(node)
        if client is None:
            client = self._call_layer(node, callee)
        self._receiver_retry(node)
        write, target = None, ()
        if not ctx.retry_scopes:  # writes inside a local retry are RES402's per-file business
            from reslint.analysis.idempotency import analysis

            idempotency = analysis(ctx)
            kind = idempotency.write_kind(node)
            if kind is not None and not idempotency.keys(node):
                write, target = kind, idempotency.tool_parameter(node) or ()
            elif kind is not None:
                self._minted_keys(node, kind, idempotency)
        else:
            self._retried_keys(node)
        if callee is None and client is None and write is None:
            return
        # a poll is no retry layer: each of its passes is a new request by design, as RES401 and RES402
        # read it in a file (DESIGN "Polls are not retries")
        retried_by = tuple(self.layer_of(scope.policy, scope) for scope in ctx.retry_scopes if not scope.poll)
        if retried_by or write:
            self.units.append(self.ctx.unit)
        strings = _passed_strings(node, ctx) if retried_by and callee is not None else ()
        self._calls.append(_PendingCall(node, callee, function_name(ctx), retried_by, client, write, target, strings))

    def _passed(self, passed) -> None:
        """The call a retry helper makes of a callable it is handed (``retry_call(s3.get_object,
        Bucket=b, Key=k)``), as a call site at the helper's call, retried by the helper: the client
        layer it reaches, or the function of another module the call graph follows."""
        call = passed.call
        callee = self.ctx.qualname(call.func)
        client = self._client_layer(call)
        if client is None:
            client = self._call_layer(call, callee)
        if callee is None and client is None:
            return
        scopes = list(self.ctx.retry_scopes) + [passed.scope]
        self.units.append(self.ctx.unit)
        self._calls.append(_PendingCall(passed.use, callee, function_name(self.ctx),
                                        tuple(self.layer_of(scope.policy, scope) for scope in scopes), client))

    def _minted_keys(self, node: cst.Call, kind: str, idempotency) -> None:
        """The keys a write outside any retry sends that its function (a module-level function or a
        method) mints on every call: a retry reaching the function through calls mints a new one on
        every attempt (:class:`KeyMint`)."""
        scope = self.ctx.scope
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        if scope is None or scope.kind != "function" or scope.parent is None or \
                scope.parent.kind not in ("module", "class"):
            return
        body = self._bodies.setdefault(id(scope.node), _FunctionBody(scope.node.body))
        function = function_name(self.ctx)
        for use in idempotency.keys(node, body):
            if use.outside:
                continue  # bound outside the function: once per process, not per call
            for minted in idempotency.trace(use.expr, body, use.scope, via=use.helper, stmt=use.added_by):
                if minted.kind == "fresh":
                    self.units.append(self.ctx.unit)
                    self._key_mints.append((dict(function=function, write=kind, name=minted.name), minted.call))

    def _retried_keys(self, node: cst.Call) -> None:
        """Keys of a retried write that come from other modules' functions (RES401), and a keyless
        write whose dicts do (RES402 decided in the project pass)."""
        from reslint.analysis.idempotency import analysis, deferred_dict_calls, keyless_write_message

        idempotency = analysis(self.ctx)
        kind = idempotency.write_kind(node)
        if kind is None:
            return
        scope = self.ctx.retry_scopes[-1]
        uses = idempotency.keys(node, scope)
        for use in uses:
            if use.outside:
                continue
            for minted in idempotency.trace(use.expr, scope, use.scope, via=use.helper, stmt=use.added_by):
                if minted.kind == "external":
                    self.units.append(self.ctx.unit)
                    self._key_calls.append((dict(callee=minted.name, kind="value", write=kind), minted.call))
        external = deferred_dict_calls(idempotency, node, uses)
        for call, callee in external:
            self.units.append(self.ctx.unit)
            self._key_calls.append((dict(callee=callee, kind="dict", write=kind), call))
        text = keyless_write_message(kind, scope.policy) if external else None
        if text is not None:
            self.units.append(self.ctx.unit)
            self._pending_writes.append((dict(callees=tuple(c for _, c in external), message=text), node))

    def visit_Return(self, node: cst.Return) -> None:
        """What a module-level function or method returns as a key (for callers in other modules)."""
        scope = self.ctx.scope
        if node.value is None or scope.kind != "function" or scope.parent is None or \
                scope.parent.kind not in ("module", "class"):
            return
        from reslint.analysis.idempotency import analysis

        idempotency = analysis(self.ctx)
        function = function_name(self.ctx)
        via = scope.name
        before = len(self._key_returns)
        for minted in idempotency.trace(node.value, None, scope, via=via):
            self._key_returns.append((dict(function=function, kind="value", what=minted.kind, name=minted.name),
                                      minted.call))
        for use in idempotency.dict_keys(node.value, scope, 0, via, None, False):
            found = idempotency.trace(use.expr, None, use.scope, via=via)
            for minted in found:
                self._key_returns.append((dict(function=function, kind="dict", what=minted.kind, name=minted.name),
                                          minted.call))
            if not found:
                self._key_returns.append((dict(function=function, kind="dict", what="stable"), use.expr))
        if any(fields["what"] == "fresh" for fields, _ in self._key_returns[before:]):
            self.units.append(self.ctx.unit)  # only a fresh key's position is ever shown

    def _client_layer(self, node: cst.Call, any_method: bool = False) -> Optional[int]:
        """The layer of a client that retries inside, when ``node`` is a call on one (``any_method``:
        whatever method it calls, for a client object other modules may use)."""
        func = node.func
        if not isinstance(func, cst.Attribute):
            return None
        if isinstance(func.value, cst.Call) and func.attr.value in _RUN_METHODS:
            # a model object built where it runs (``llm.with_retry(...).invoke(q)``)
            built = self._wrapped_client(func.value, 0, method=func.attr.value)
            if built is not None:
                return built
        base = func.value
        override = None
        while isinstance(base, (cst.Attribute, cst.Call)):
            if isinstance(base, cst.Call):
                if isinstance(base.func, cst.Attribute) and base.func.attr.value == "with_options":
                    arg = next((a for a in base.args if a.keyword is not None and a.keyword.value == "max_retries"),
                               None)
                    if arg is not None:  # a per-call override: client.with_options(max_retries=N)
                        value = self.ctx.value_of(arg.value)
                        if not is_number(value) or value < 1:
                            return None
                        override = int(value) + 1
                base = base.func
            base = base.value if isinstance(base, cst.Attribute) else base
        constructor = self.ctx.constructor_of(base)
        if constructor is None or self._derived(constructor) or self._retries_receiver(constructor):
            # a model object derived from a framework's model (``s = llm.with_structured_output(S)``,
            # ``chain = prompt | llm``, ``RunnableRetry(bound=llm)``), run by a method that sends its request
            return self._wrapped_client(base, 0, method=func.attr.value) if func.attr.value in _RUN_METHODS else None
        qual = self.ctx.qualname(constructor.func)
        qual = canonical(qual) if qual else None
        session = libraries.session_adapter(qual, self.ctx.type_of(base))
        if session is not None:
            return self._mounted_layer(session, base) if session.sends_request(func.attr.value) else None
        if func.attr.value in ("mount", "close", "with_options", "copy"):
            return None
        methods = REQUEST_METHODS.get(qual or "")
        if methods is not None and not any_method and func.attr.value not in methods:
            return None  # a model object's method that builds or reads, sending no request
        client = RETRYING_CLIENTS.get(qual or "") or self.ctx.catalog.client(qual)
        if client is not None and override is None and client.per_request:
            override = _per_request_retries(node, client.param, self.ctx)
            if override is not None and (not is_number(override) or override <= 1):
                return None  # the request sends itself once, or may say so through **kwargs
        return self._constructor_layer(constructor, qual, override)

    def _constructor_layer(self, constructor: cst.Call, qual: Optional[str], override=None) -> Optional[int]:
        """The layer of the retrying client ``constructor`` builds (``qual``: its name), or ``None``."""
        client = RETRYING_CLIENTS.get(qual or "") or self.ctx.catalog.client(qual)
        if client is None:
            return None
        attempts = override or _unpacked_attempts(client, constructor, self.ctx) or \
            libraries.client_attempts(client, constructor, self.ctx)
        if not is_number(attempts) or attempts <= 1:
            return None
        key = (id(constructor), attempts)
        if key not in self._layer_ids:
            self._layer_ids[key] = self._add_layer(
                label=f"{qual.split('.')[0]} client", library=qual, attempts=int(attempts), catches=ANY,
                raises=client.raises, node=constructor, off=client.off)
        return self._layer_ids[key]

    def _derived(self, constructor: cst.Call) -> bool:
        """Whether ``constructor`` is a method call on another object (``llm.bind_tools(t)``), not a
        client's constructor."""
        if not isinstance(constructor.func, cst.Attribute):
            return False
        qual = self.ctx.qualname(constructor.func)
        qual = canonical(qual) if qual else None
        return qual not in RETRYING_CLIENTS and self.ctx.catalog.client(qual) is None and \
            self.ctx.constructor_of(constructor.func.value) is not None

    def _retries_receiver(self, call: cst.Call) -> bool:
        """Whether ``call`` builds a policy that retries the object it is given (``RunnableRetry(bound=llm)``)."""
        retries = self.ctx.retries
        policy = retries.for_call(call) if retries is not None else None
        return policy is not None and policy.adapter.retries_receiver

    def _receiver_retry(self, node: cst.Call) -> None:
        """A policy that retries the object it is built from (``llm.with_retry()``): when that object
        is (or chains, ``prompt | llm``) a client that retries inside, the policy's call is a site
        retried by the policy that reaches the client's layer (RES301 reports it there)."""
        retries = self.ctx.retries
        policy = retries.for_call(node, self.ctx.scope) if retries is not None else None
        if policy is None or not policy.adapter.retries_receiver:
            return
        receiver = policy.adapter.receiver(policy)
        if receiver is None:
            return
        layer = self._wrapped_client(receiver, 0)
        callee = None
        if layer is None:  # a function wrapped as a runnable (``RunnableLambda(fn)``): the call graph follows fn
            function = policy.adapter.wrapped_function(receiver, self.ctx)
            callee = self.ctx.qualname(function) if function is not None else None
            if callee is None:
                return
        self.units.append(self.ctx.unit)
        self._calls.append(_PendingCall(node, callee, function_name(self.ctx), (self._around(policy, layer),), layer))

    def _wrapped_client(self, expr, depth: int, scope=None, method: Optional[str] = None) -> Optional[int]:
        """The outermost retry layer that running ``expr`` with ``method`` enters: a retrying client
        itself, one derived from it (``llm.bind_tools(t)``, ``llm.with_structured_output(S)``), a step of
        a chain (``prompt | llm | parser``), or a policy that retries such an object
        (``llm.with_retry(...)``, when ``method`` goes through its retry; ``None``: run by a retry
        around it, which does), followed through names bound once."""
        if depth > 8:
            return None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._wrapped_client(expr.left, depth + 1, scope, method) or \
                self._wrapped_client(expr.right, depth + 1, scope, method)
        if isinstance(expr, cst.Call):
            qual = self.ctx.qualname(expr.func, scope)
            qual = canonical(qual) if qual else None
            if qual in RETRYING_CLIENTS or self.ctx.catalog.client(qual) is not None:
                return self._constructor_layer(expr, qual)
            retried = self._receiver_layer(expr, depth, scope, method)
            if retried is not _NOT_A_POLICY:
                return retried
            if isinstance(expr.func, cst.Attribute):
                return self._wrapped_client(expr.func.value, depth + 1, scope, method)
            return None
        if isinstance(expr, cst.Name):
            bound, bound_scope = self.ctx.resolve(expr, scope)
            return self._wrapped_client(bound, depth + 1, bound_scope, method) if bound is not expr else None
        if isinstance(expr, cst.Attribute):
            constructor = self.ctx.constructor_of(expr, scope)
            return self._wrapped_client(constructor, depth + 1, scope, method) if constructor is not None else None
        return None

    def _receiver_layer(self, call: cst.Call, depth: int, scope, method: Optional[str]):
        """For ``call`` building a policy that retries its receiver (``llm.with_retry(...)``): the
        layer running it with ``method`` enters (the policy's, around the receiver's, or only the
        receiver's when ``method`` does not go through the retry or it makes one attempt).
        :data:`_NOT_A_POLICY` when ``call`` builds no such policy."""
        retries = self.ctx.retries
        policy = retries.for_call(call, scope) if retries is not None else None
        if policy is None or not policy.adapter.retries_receiver:
            return _NOT_A_POLICY
        receiver = policy.adapter.receiver(policy)
        # each attempt runs the receiver through the retry's own method (``invoke``)
        inner = self._wrapped_client(receiver, depth + 1, scope) if receiver is not None else None
        if (method is not None and method not in policy.adapter.receiver_run_methods) or not policy.retries:
            return inner
        return self._around(policy, inner)

    def _around(self, policy: RetryPolicy, inner: Optional[int]) -> int:
        """The layer of ``policy``, which retries an object whose calls enter the layer ``inner``."""
        layer = self.layer_of(policy)
        if inner is not None:
            self._layers[layer]["wraps"] = inner
        self._layers[layer]["methods"] = tuple(sorted(policy.adapter.receiver_run_methods))
        return layer

    def _call_layer(self, node: cst.Call, callee: Optional[str]) -> Optional[int]:
        """The layer of a call that retries inside by its own arguments (``litellm.completion(num_retries=3)``)."""
        spec = retrying_call(canonical(callee) if callee else None)
        if spec is None:
            return None
        attempts = call_attempts(node, spec, self.ctx)
        if not is_number(attempts) or attempts <= 1:
            return None
        key = (id(node), attempts)
        if key not in self._layer_ids:
            self._layer_ids[key] = self._add_layer(
                label=spec.qualname,
                library=spec.qualname, attempts=int(attempts), catches=ANY, raises=spec.raises, node=node,
                off=spec.off)
        return self._layer_ids[key]

    def _mounted_layer(self, adapter, session) -> Optional[int]:
        """The layer of the policies mounted on a client object (a session's adapters): the last
        one that retries."""
        best = None
        for mount_call, retry_expr in adapter.mounted(self.ctx, session):
            attempts = adapter.mounted_attempts(retry_expr, self.ctx)
            if not is_number(attempts) or attempts <= 1:
                continue
            key = id(mount_call)
            if key not in self._layer_ids:
                self._layer_ids[key] = self._add_layer(
                    label=adapter.mounted_label(attempts), library=adapter.name, attempts=int(attempts),
                    catches=ANY, raises=ADAPTER_RAISES, node=mount_call, off=adapter.mount_off)
            best = self._layer_ids[key]
        return best

    # -- the result -------------------------------------------------------------------
    def summary(self, display: str, positions, suppressions) -> ModuleSummary:
        """Build the summary; ``positions`` (node -> CodeRange) is needed only when a call
        is retried or a layer exists, so clean files pay nothing for it."""
        model = self.ctx.model
        fixed, budgeted, budget_calls = self.ctx.deadline_facts or ((), (), ())
        for _, _, unit in list(fixed) + list(budget_calls):
            self.units.append(unit)
        functions = []
        for qual, layer in self._functions():
            functions.append(Function(qual, layer))
        client_objects = self._client_objects()
        if positions is not None:
            positions.cover(self.units)
        layers = []
        for fields in self._layers:
            node = fields.pop("node")
            span = positions.get(node) if positions is not None else None
            layers.append(Layer(row=span.start.line if span else 0, column=span.start.column + 1 if span else 0,
                                **fields))
        calls = []
        for call in self._calls:
            span = positions.get(call.node) if positions is not None and (call.retried_by or call.write) else None
            calls.append(CallSite(call.callee, call.function, call.retried_by, call.client_layer,
                                  span.start.line if span else 0, span.start.column + 1 if span else 0,
                                  span.end.line if span else 0, span.end.column + 1 if span else 0, call.write,
                                  call.target_param, call.strings))
        imports = tuple((name, b[0].qualname) for name, b in model.module_scope.bindings.items()
                        if len(b) == 1 and b[0].kind == "import" and b[0].qualname)
        lines, file_codes, file_all = (), (), False
        if suppressions is not None:
            lines = tuple((row, tuple(sorted(d.codes)) if d.codes is not None else None, d.own_line)
                          for row, d in sorted(suppressions.lines.items()))
            file_codes, file_all = tuple(sorted(suppressions.file_codes)), suppressions.file_all
        job_runs = arq.listed_jobs(PolicyReader(self.ctx))  # before ``wanted``: it may ask for constants
        return ModuleSummary(model.module_name, display, model.is_package, imports, tuple(model.star_imports),
                             tuple(functions), tuple(layers), tuple(calls), lines, file_codes, file_all,
                             self._exception_names(), client_objects,
                             key_calls=_placed(KeyCall, self._key_calls, positions, end=False),
                             key_returns=_placed(KeyReturn, self._key_returns, positions,
                                                 shown=lambda fields: fields["what"] == "fresh"),
                             pending_writes=_placed(PendingWrite, self._pending_writes, positions),
                             helpers=self._helpers(), constants=self._constants(), instances=self._instances(),
                             wanted=tuple(sorted(self.ctx.wanted)), rebinds=self._rebinds(),
                             job_runs=job_runs,
                             fixed_timeouts=_placed(FixedTimeout, [(f, n) for f, n, _ in fixed], positions, end=False),
                             budgeted=budgeted,
                             budget_calls=_placed(BudgetCall, [(f, n) for f, n, _ in budget_calls], positions),
                             key_mints=_placed(KeyMint, self._key_mints, positions),
                             task_classes=self._task_classes())

    #: a constant larger than this is not a wait or a count anyone reads (and stays out of the cache)
    MAX_CONSTANT = 1e12
    #: at most this many constants per module are kept (a generated module may bind thousands:
    #: protobuf field numbers, lookup tables); only names spelled as constants are kept at all
    MAX_CONSTANTS = 2000

    def _constants(self):
        """Module-level names spelled as constants (``UPPER_CASE``) bound once to a finite number
        (not a bool), in source order."""
        out = []
        scope = self.ctx.model.module_scope
        for name, bindings in scope.bindings.items():
            if len(out) >= self.MAX_CONSTANTS:
                break
            if not spelled_as_constant(name):
                continue
            if len(bindings) != 1 or bindings[0].kind != "assign" or name in scope.global_names:
                continue
            if not _numeric_shape(bindings[0].value):
                continue  # a tuple, a dict, a call: no number, and nothing to evaluate
            value = self.ctx.value_of(bindings[0].value, scope)
            if is_number(value) and not isinstance(value, bool) and abs(value) <= self.MAX_CONSTANT:
                out.append((name, float(value)))
        return tuple(out)

    def _rebinds(self):
        """``settings.TIMEOUT = 5`` (anywhere in this module): the imported names it assigns."""
        out = set()
        for target, _, scope in self.ctx.model.attribute_assignments:
            qual = self.ctx.imported_attribute(target, scope)
            if qual is not None and len(out) < self.ctx.MAX_WANTED:
                out.add(qual)
        return tuple(sorted(out))

    def _helpers(self):
        """The retry helpers of this module, as catalog entries (see :mod:`reslint.analysis.helpers`)."""
        retried = self.ctx.retried
        if retried is None or not retried.found_helpers:
            return ()
        return tuple(retried.helpers.entry(helper) for helper in retried.found_helpers.values())

    def _client_objects(self):
        """Module-level clients that retry inside, so that calls on them from other modules count:
        a client (any method), or a model object run with ``invoke`` (one derived from a client,
        ``llm.bind_tools(t)``, or a policy that retries one, ``llm.with_retry(...)``: its layer is
        the policy's, around the client's)."""
        out = []
        scope = self.ctx.model.module_scope
        for name, bindings in scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, cst.Call):
                continue
            layer = None
            with self.ctx.in_scope(scope):
                for method in ("post", "invoke"):
                    probe = cst.Call(func=cst.Attribute(value=cst.Name(name), attr=cst.Name(method)))
                    layer = self._client_layer(probe, any_method=True)
                    if layer is not None:
                        break
            if layer is not None:
                self.units.append(bindings[0].node)
                out.append((name, layer))
        return tuple(out)

    def _instances(self):
        """Module-level names bound once to an instance of a type other modules spell policies with
        (``app = Celery("proj")``), with that type."""
        out = []
        scope = self.ctx.model.module_scope
        for name, bindings in scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, cst.Call):
                continue
            found = self.ctx.type_of(bindings[0].value, scope)
            if found in libraries.SHARED_INSTANCE_TYPES:
                out.append((name, found))
        out.extend(self._decorator_factories())
        return tuple(out)

    def _decorator_factories(self) -> List[Tuple[str, str]]:
        """Module-level functions that stand for a library's decorator method: ``def task(**kwargs):``
        whose body (its inner decorator's included) calls ``<app>.task(**kwargs)`` with the same
        keywords, in a module that imports that library (the app may come from a registry, its type
        unknown here). Entries as :attr:`UserCatalog.instances` spells a callable (``("task",
        "=celery.Celery.task")``): a use ``@tasks.task(autoretry_for=...)`` is that decorator."""
        from reslint.catalog.user import ALIAS_MARK

        scope = self.ctx.model.module_scope
        imported = {b.qualname.split(".")[0] for bindings in scope.bindings.values() for b in bindings
                    if b.kind == "import" and b.qualname}
        out = []
        for name, bindings in scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "def":
                continue
            star = bindings[0].node.params.star_kwarg
            if not isinstance(star, cst.Param):
                continue
            target = self._forwarded_decorator(bindings[0].node, star.name.value, imported)
            if target is not None:
                out.append((name, ALIAS_MARK + target))
        return out

    def _forwarded_decorator(self, func: cst.FunctionDef, keywords: str, imported) -> Optional[str]:
        """The library decorator method ``func`` hands its ``**keywords`` to (``app.task(**kwargs)``),
        when exactly one is found in its body and the options a use passes are that decorator's own,
        else ``None`` (:meth:`_sets_options`)."""
        found: Dict[str, List[cst.Call]] = {}
        stack = [func.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                    any(a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == keywords
                        for a in node.args):
                # a task queue's decorator function (``dramatiq.actor(wrapper, **options)``, imported
                # under another name): the function it is handed is a task with those options
                qual = self.ctx.qualname(node.func, self.ctx.opened_scope(func.body))
                known = libraries.lookup(qual, (Role.DECORATOR,)) if qual is not None else None
                if known is not None and known[0].queued:
                    found.setdefault(qual, []).append(node)
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    any(a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == keywords
                        for a in node.args):
                owners = libraries.INSTANCE_METHODS.get(node.func.attr.value, frozenset())
                qual = self.ctx.qualname(node.func, self.ctx.opened_scope(func.body))
                known = libraries.lookup(qual, (Role.DECORATOR,)) if qual is not None else None
                if qual is not None and qual.rsplit(".", 1)[0] in owners:
                    found.setdefault(qual, []).append(node)
                elif known is not None and known[0].queued:
                    found.setdefault(qual, []).append(node)  # ``dramatiq.actor(fn, **options)`` through its module
                elif qual is None:
                    for owner in owners:
                        if owner.split(".")[0] in imported:
                            found.setdefault(f"{owner}.{node.func.attr.value}", []).append(node)
            stack.extend(children(node))
        if len(found) != 1:
            return None
        [(qual, calls)] = found.items()
        return None if self._sets_options(func, keywords, qual, calls) else qual

    @staticmethod
    def _sets_options(func: cst.FunctionDef, keywords: str, qual: str, calls: List[cst.Call]) -> bool:
        """Whether ``func`` decides retry options itself, so a use's options are not the library
        decorator's alone: the forwarded call passes one of them (``max_retries=0``, ``retry_when=``),
        ``func`` sets one in its ``**keywords`` (``kwargs.setdefault("max_retries", 5)``,
        ``kwargs["retry_when"] = ...``), also from a parameter of ``func`` under another name
        (``max_retries=retries``: a use's ``retries=5`` is no option of the library). A parameter handed
        on as another option (``queue=q``) changes no retry."""
        known = libraries.lookup(qual, (Role.DECORATOR,))
        options = set(known[0].keywords.get(qual, ()) + known[0].forwarded.get(qual, ())) if known else set()
        for call in calls:
            for arg in call.args:
                if arg.keyword is None:
                    continue
                if arg.keyword.value in options:
                    return True
        for node in expressions(func.body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    isinstance(node.func.value, cst.Name) and node.func.value.value == keywords and \
                    node.func.attr.value in ("setdefault", "update") and node.args:
                first = node.args[0].value
                if node.func.attr.value == "update" or (isinstance(first, cst.SimpleString) and
                                                        first.evaluated_value in options):
                    return True
            if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Subscript) and \
                    isinstance(node.target.value, cst.Name) and node.target.value.value == keywords:
                return True
        return False

    def _task_classes(self):
        """Module-level celery task classes, with the options other modules' tasks built on one
        read (:func:`reslint.libraries.celery.exported_task_class`)."""
        from reslint.libraries import celery
        from reslint.model.reader import PolicyReader

        out = []
        scope = self.ctx.model.module_scope
        reader = None
        for name, bindings in scope.bindings.items():
            if len(bindings) != 1 or bindings[0].kind != "class" or not bindings[0].node.bases:
                continue
            reader = reader or PolicyReader(self.ctx)
            entry = celery.exported_task_class(reader, bindings[0].node, scope)
            if entry is not None:
                out.append(entry)
        return tuple(out)

    def _exception_names(self):
        out = []
        scope = self.ctx.model.module_scope
        for name, bindings in scope.bindings.items():
            if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(
                    bindings[0].value, (cst.Tuple, cst.Name, cst.Attribute)):
                types = self.ctx.retries.exception_types(bindings[0].value, scope)
                if types:
                    out.append((name, tuple(types)))
        return tuple(out)

    @property
    def needs_positions(self) -> bool:
        """Whether anything the project pass may report or cite is recorded (a key return
        other than a fresh one only leads to another module: its position is never shown)."""
        return bool(self._layers or self._key_calls or self._pending_writes or self._key_mints) or \
            bool(self.ctx.deadline_facts and (self.ctx.deadline_facts[0] or self.ctx.deadline_facts[2])) or \
            any(fields["what"] == "fresh" for fields, _ in self._key_returns) or \
            any(c.retried_by or c.write for c in self._calls)

    def _functions(self):
        """(qualified name, decorator layer id) of every function and method. A task queue's retry
        (a celery task, an RQ job enqueued with ``retry=``) is no layer of the function: a call
        of the function runs it once, in the caller; only the worker retries it, for each message."""
        retried = self.ctx.retried
        out = []
        stack = [(self.ctx.model.module_scope.node.body, self.ctx.model.module_name)]
        while stack:
            body, prefix = stack.pop()
            for stmt in body:
                if isinstance(stmt, cst.FunctionDef):
                    layer = None
                    for entry in retried.opened.get(id(stmt.body), ()) if retried is not None else ():
                        if getattr(entry, "function", None) is stmt and not entry.policy.adapter.queued:
                            layer = self.layer_of(entry.policy, entry)
                            break
                    if layer is not None:
                        self.units.append(stmt)
                    out.append((f"{prefix}.{stmt.name.value}", layer))
                elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                    stack.append((stmt.body.body, f"{prefix}.{stmt.name.value}"))
        return out


@dataclass
class _FunctionBody:
    """A function's body, asked about as a retried scope would be (:meth:`Idempotency.keys`): what is
    bound in it runs on every call."""

    node: cst.CSTNode


#: the longest constant string a call site keeps (:attr:`CallSite.strings`): names, not documents
_MAX_PASSED_STRING = 200


def _passed_strings(call: cst.Call, ctx: Context) -> Tuple[Tuple[str, str], ...]:
    """The constant strings ``call`` passes, as ``(position or keyword, value)``; positions after a
    ``*args`` are not known and are left out."""
    out = []
    position: Optional[int] = 0
    for arg in call.args:
        if arg.star:
            position = None if arg.star == "*" else position
            continue
        slot = arg.keyword.value if arg.keyword is not None else (str(position) if position is not None else None)
        if arg.keyword is None and position is not None:
            position += 1
        value = ctx.value_of(arg.value) if slot is not None else None
        if isinstance(value, str) and len(value) <= _MAX_PASSED_STRING:
            out.append((slot, value))
    return tuple(out)


def _unpacked_attempts(client, constructor: cst.Call, ctx: Context) -> Optional[int]:
    """Attempts of a client that counts retries, built with ``**config`` where the config is a
    visible dict (``OpenAI(**{"max_retries": 0})``); ``None`` when that does not apply."""
    if client.counts != COUNTS_RETRIES or not any(a.star == "**" for a in constructor.args) or \
            any(a.keyword is not None and a.keyword.value == client.param for a in constructor.args):
        return None
    unpacked = unpacked_keywords(constructor, ctx)
    if unpacked is None:
        return None
    if client.param not in unpacked:
        return client.default_attempts
    if unpacked[client.param] is None:
        return None  # set by an item assignment somewhere: unknown
    value = ctx.value_of(unpacked[client.param])
    return int(value) + 1 if is_number(value) else None


def _per_request_retries(node: cst.Call, param: Optional[str], ctx: Context):
    """Attempts a request sets for itself with the client's own retries keyword (a litellm
    Router's ``router.completion(num_retries=0)``): a number, ``UNKNOWN`` (not a constant, or
    maybe in ``**kwargs``), or ``None`` when it certainly passes none."""
    arg = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == param), None) \
        if param else None
    if arg is None and any(a.star == "**" for a in node.args):
        unpacked = unpacked_keywords(node, ctx)
        if unpacked is None or (param in unpacked and unpacked[param] is None):
            return UNKNOWN
        arg = unpacked.get(param)
    if arg is None:
        return None
    value = ctx.value_of(arg)
    return int(value) + 1 if is_number(value) else UNKNOWN


def _placed(cls, items, positions, end: bool = True, shown=None) -> tuple:
    """Build ``cls(**fields, row=..., column=...)`` for each ``(fields, node)`` (unique, in order);
    ``shown(fields)`` says whether the position is ever shown (else it is 0)."""
    out = []
    seen = set()  # the items are frozen dataclasses: a set, not `item in out` (quadratic in a file's items)
    for fields, node in items:
        span = positions.get(node) if positions is not None and (shown is None or shown(fields)) else None
        place = dict(row=span.start.line if span else 0, column=span.start.column + 1 if span else 0)
        if end:
            place.update(end_row=span.end.line if span else 0, end_column=span.end.column + 1 if span else 0)
        item = cls(**fields, **place)
        if item not in seen:
            seen.add(item)
            out.append(item)
    return tuple(out)


def function_name(ctx: Context) -> str:
    """The qualified name of the function whose code is being visited (``shop.sync.push``,
    ``shop.sync.Client.send``; a nested function by its own name), ``""`` at module or class level."""
    scope = ctx.scope
    while scope is not None and scope.kind in ("lambda", "comprehension"):
        scope = scope.parent
    if scope is None or scope.kind != "function":
        return ""
    parent = scope.parent
    return f"{parent.name}.{scope.name}" if parent is not None and parent.kind in ("module", "class") else scope.name


def _catches(policy: RetryPolicy) -> Tuple[str, ...]:
    retried = policy.retried
    if retried.kind is RetriedKind.ANY:
        return ANY
    if retried.kind in (RetriedKind.TYPES, RetriedKind.FUNCTION) and retried.types:
        if set(retried.types) & retry_catalog.CATCH_ALL:
            return ANY
        return tuple(retried.types)
    if retried.kind is RetriedKind.STATUS:
        return ANY  # status retries raise the client's errors after giving up
    if retried.kind is RetriedKind.RESULT and policy.loop is not None and not policy.loop.handlers:
        return ()  # a loop waiting for a returned value catches nothing: an inner layer's error leaves it
    return UNKNOWN_TYPES


def _shared_decorator(policy: RetryPolicy, scope) -> Optional[cst.BaseExpression]:
    """The decorator of the function ``scope`` retries when it applies a policy spelled elsewhere
    (``@api_retry``, the policy anchored at ``api_retry = retry(...)``), else ``None``."""
    decorator = getattr(scope, "decorator", None)
    if decorator is None or decorator is policy.node or scope.function is None:
        return None
    return decorator


def _policy_label(policy: RetryPolicy, ctx: Context) -> str:
    scope = ctx.retried.scope_of(policy) if ctx.retried is not None else None
    if scope is not None and scope.function is not None:
        return scope.function.name.value
    function = ctx.retried.function_of(policy) if ctx.retried is not None else ""
    kind = policy.adapter.layer_label
    return f"{function} {kind}" if function else kind


def _numeric_shape(expr, depth: int = 0) -> bool:
    """Whether an expression can only be a number if it is a constant at all: a literal, a sign,
    arithmetic, a name or attribute, ``int(...)``/``float(...)`` of one (so a module's tuples and
    tables are never evaluated: nested tuples that reuse each other grow exponentially)."""
    if depth > 20:
        return False
    if isinstance(expr, (cst.Integer, cst.Float, cst.Name, cst.Attribute)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _numeric_shape(expr.expression, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        return _numeric_shape(expr.left, depth + 1) and _numeric_shape(expr.right, depth + 1)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("int", "float"):
        return len(expr.args) == 1 and _numeric_shape(expr.args[0].value, depth + 1)
    return False
