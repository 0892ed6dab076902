"""RES101 missing-timeout: a blocking call (or a client constructor) with no timeout."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.budget import fitted_timeout_s, retry_time_limit_s, retry_time_setting
from reslint.analysis.deadlines import grpc_deadline_value
from reslint.analysis.timeouts import MISSING, called_name, read_call_timeout, subscription
from reslint.catalog import ONCE_DONE_METHODS
from reslint.catalog import django_mail as mail
from reslint.catalog.model import CEILING_CATEGORIES
from reslint.diagnostics import Applicability
from reslint.rules.base import Rule
from reslint.rules.timeout_fixes import add_timeout_fix, add_value_fix, ceiling_name
from reslint.semantics.cstutil import source
from reslint.semantics.walk import expressions, nodes_within, overwritten_values, statement_blocks
from reslint.values import is_number


class MissingTimeout(Rule):
    code = "RES101"
    fix_applicability = Applicability.UNSAFE
    needs_retries = True  # the deadline scopes around a call (``with gevent.Timeout(5):``)

    def __init__(self, ctx, reports):
        super().__init__(ctx, reports)
        self._done = set()  # (scope, receiver) of objects already reaped (Popen.wait/communicate/kill)

    def _passed(self, passed) -> None:
        """A library's callable handed to a retry helper with its arguments (``retry_call(requests.get,
        url)``): the call the helper makes has no timeout when the use passes none. Reported at the
        use, with no fix (whether a keyword added there reaches the callable is the helper's
        business)."""
        reading = read_call_timeout(passed.call, self.ctx)
        if reading is None or reading.state != MISSING or reading.spec.carrier or \
                self._under_deadline(passed.use, False):
            return
        param = reading.spec.params[0].name
        self.report(passed.use, f"`{reading.spec.qualname}` call, which `{source(passed.use.func)}` makes on each "
                                f"attempt, has no timeout: {self._why(reading)}; pass `{param}=` with its other "
                                f"arguments")

    def _why(self, reading) -> str:
        """Why a missing timeout hurts: a wait without end, or a library default above the ceiling."""
        spec = reading.spec
        if not reading.unbounded:
            return f"{reading.reason}, above {ceiling_name(spec.category)} " \
                   f"({self.settings.max_timeout_for(spec.category):g} s)"
        if spec.category not in CEILING_CATEGORIES:
            return reading.reason
        return reading.reason + (", so one stuck server holds every call on it, and the workers running them, forever"
                                 if spec.carrier else ", so one stuck server holds this call, and the worker running "
                                                      "it, forever")

    def _already_done(self, node: cst.Call) -> bool:
        """A ``wait()`` after ``communicate()`` (or ``kill()``) on the same Popen returns at once."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return False
        owner = self.ctx.type_of(func.value)
        methods = ONCE_DONE_METHODS.get(owner or "")
        if not methods or func.attr.value not in methods:
            return False
        key = (id(self.ctx.scope), func.value.value)
        done = key in self._done
        self._done.add(key)
        return done

    def _under_deadline(self, node: cst.Call, carrier: bool) -> bool:
        """Whether a finite deadline around the call bounds it: a green thread's timeout bounds
        any call in it; ``asyncio.timeout()`` and the like only a call that is awaited, or an
        async client opened by an ``async with`` in it (``async with asyncio.timeout(30): async
        with ClientSession(read, write) as session:``), which is closed before the deadline ends
        and whose calls are all awaited inside it."""
        deadlines = [d for d in self.ctx.deadlines if is_number(d.seconds)]
        statement = self.ctx.statement
        if carrier:  # a client outlives a deadline unless it is closed inside it, in the same function
            scope = self.ctx.scope
            inside = {id(n) for n in nodes_within(scope.node)} if scope is not None and scope.kind == "function" \
                else None
            return statement is not None and isinstance(statement, cst.With) and statement.asynchronous is not None \
                and any(item.item is node for item in statement.items) \
                and any(inside is None or id(d.node) in inside for d in deadlines)
        if any(d.blocking for d in deadlines):
            return True
        if not deadlines or statement is None:
            return False
        return any(isinstance(n, cst.Await) and n.expression is node for n in expressions(statement))

    def _overwritten(self, node: cst.Call, spec) -> bool:
        """A client built and bound to a name that the next statement binds again without reading
        it (``model = ChatOpenAI(...)`` then ``model = ChatAnthropic(...)``): it never sends a
        request, so it needs no timeout. A client that connects when it is built still waits."""
        if not spec.carrier or spec.opens_connection:
            return False
        key = ("overwritten-values",)
        if key not in self.ctx.cache:
            self.ctx.cache[key] = overwritten_values(self.ctx.model.module_scope.node)
        return id(node) in self.ctx.cache[key]

    def visit_Assign(self, node: cst.Assign) -> None:
        """A Django settings module that sends mail over SMTP with no ``EMAIL_TIMEOUT``
        (:mod:`reslint.catalog.django_mail`). Whether another settings module of the project sets
        it is asked after the cache (:meth:`reslint.engine.runner.Runner.leave_out_set_elsewhere`)."""
        scope = self.ctx.scope
        if scope is None or scope.kind != "module" or len(node.targets) != 1:
            return
        target = node.targets[0].target
        if not (isinstance(target, cst.Name) and target.value == mail.HOST_SETTING):
            return
        if not self._sends_smtp_mail(scope.node, node):
            return
        self.report(target, f"{mail.FINDING_PREFIX}: Django's SMTP backend then opens its connections with no "
                            f"timeout (its default is `None`), so a mail server that stops answering holds the "
                            f"request or the worker sending the mail forever; set `{mail.TIMEOUT_SETTING} = "
                            f"{self.settings.default_timeout:g}` beside it")

    def _sends_smtp_mail(self, module: cst.Module, assign: cst.Assign) -> bool:
        """Whether ``assign`` (``EMAIL_HOST = ...``) is in a Django settings module (it names Django,
        or its dotted name has a part naming settings) of a deployed site (not a local or test
        module, nor in a branch only ``DEBUG`` takes) that gives ``EMAIL_TIMEOUT`` no value (or
        ``None``), and sends through the SMTP backend: under ``if EMAIL_BACKEND ==
        "...smtp.EmailBackend":``, or the module sets no backend outside ``DEBUG`` branches, or a value
        it sets there spells the SMTP one (a literal, an environment read's default, a constant)."""
        parts = self.ctx.model.module_name.rstrip("/").split(".")
        pieces = parts[-1].lower().replace("-", "_").split("_")
        if any(piece in mail.LOCAL_SETTINGS or piece.startswith(("test", "local")) for piece in pieces):
            return False
        key = ("django-mail-module", id(module))
        if key not in self.ctx.cache:
            code = module.code
            django = "django" in code or any("settings" in part.lower() for part in parts)
            tests: dict = {}  # id(assignment) -> ((test, taken), ...) of the ``if`` branches around it
            values: dict = {mail.BACKEND_SETTING: [], mail.TIMEOUT_SETTING: []}  # setting -> [(value, around)]
            self._module_assignments(module.body, (), tests, values)
            timeouts = values[mail.TIMEOUT_SETTING]
            # a value other than ``None``, or a spelling that is no plain assignment (``vars().update``)
            timed = any(not (isinstance(v, cst.Name) and v.value == "None") for v, _ in timeouts) or \
                (not timeouts and mail.TIMEOUT_SETTING in code)
            backends = [self._strings(v) for v, around in values[mail.BACKEND_SETTING] if not _debug_only(around)]
            self.ctx.cache[key] = (django and not timed, tests, backends)
        usable, tests, backends = self.ctx.cache[key]
        if not usable:
            return False
        around = tests.get(id(assign), ())
        if _debug_only(around):
            return False  # a developer's mail catcher
        if any(taken and mail.SMTP_BACKEND in text for test, taken in around for text in self._strings(test)):
            return True  # ``if EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend":``
        return not backends or any(mail.SMTP_BACKEND in text for texts in backends for text in texts)

    def _module_assignments(self, body, around, tests: dict, values: dict) -> None:
        """The module-level assignments of ``body``, in ``if``/``else``/``try``/``with`` blocks too (not
        in functions or classes): each one's enclosing tests, with whether the branch is the one taken
        when the test holds, into ``tests``; the values of the settings ``values`` names, with theirs."""
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if not isinstance(small, cst.Assign):
                        continue
                    tests[id(small)] = around
                    for target in small.targets:
                        if isinstance(target.target, cst.Name) and target.target.value in values:
                            values[target.target.value].append((small.value, around))
            elif isinstance(statement, cst.If):
                branch, before = statement, around
                while isinstance(branch, cst.If):
                    self._module_assignments(branch.body.body, before + ((branch.test, True),), tests, values)
                    before = before + ((branch.test, False),)
                    branch = branch.orelse
                if isinstance(branch, cst.Else):
                    self._module_assignments(branch.body.body, before, tests, values)
            elif isinstance(statement, (cst.Try, cst.With)):
                for block in statement_blocks(statement):
                    self._module_assignments(block.body, around, tests, values)

    def _strings(self, expr, depth: int = 0) -> list:
        """The strings ``expr`` spells: its literals, and the module constants it names."""
        out = []
        for n in expressions(expr):
            if isinstance(n, cst.SimpleString) and isinstance(n.evaluated_value, str):
                out.append(n.evaluated_value)
            elif isinstance(n, cst.Name) and depth < 4:
                value, _ = self.ctx.resolve(n)
                if value is not n:
                    out.extend(self._strings(value, depth + 1))
        return out

    def visit_Call(self, node: cst.Call) -> None:
        retried = self.ctx.retried
        passed = retried.passed_call(node) if retried is not None else None
        if passed is not None:
            self._passed(passed)
        reading = read_call_timeout(node, self.ctx)
        if self._already_done(node) or reading is None or reading.state != MISSING:
            return
        spec = reading.spec
        if self._under_deadline(node, spec.carrier) or self._overwritten(node, spec):
            return
        if subscription(node, self.ctx):
            return  # an event stream a generator yields from: a deadline would end it
        what = "client" if spec.carrier else "call"
        why = self._why(reading)
        param = spec.params[0].name
        deadline = grpc_deadline_value(node, spec, self.ctx)
        if deadline is not None:  # in a gRPC servicer: the caller's deadline is the timeout to pass on
            self.report(node, f"`{source(node.func)}` {what} has no timeout: {why}; pass the caller's deadline on, "
                              f"`{param}={deadline}`", fix=add_value_fix(node, param, deadline))
            return
        fitted = self._fitted_timeout(spec)
        seconds = None
        advice = f"`{param}=`"
        if fitted is not None:
            seconds, setting, limit = fitted
            advice += f" (at most {seconds:g} s: the retry around it must end within {setting} ({limit:g} s))"
        advice += f", or {reading.advice}" if reading.advice else ""
        self.report(
            node,
            f"`{called_name(node, spec)}` {what} has no timeout: {why}; pass {advice}",
            fix=add_timeout_fix(node, reading, self.ctx, seconds_s=seconds),
        )

    def _fitted_timeout(self, spec):
        """``(seconds, setting, limit_s)`` when a retry around the call (an attempt cap, no time
        cap) would outlast its cap (``setting``, ``limit_s`` seconds) with the calls written in the
        retried body at their category's ``default-timeout``: the timeout that fits
        (:func:`fitted_timeout_s`; the shortest over nested retries), shorter than that default;
        ``None`` otherwise."""
        best = None
        if spec.category not in CEILING_CATEGORIES:
            return None
        for entry in self.ctx.retry_scopes:
            policy = getattr(entry, "policy", None)
            # the body the call is written in (a shared decorator retries each of its functions); a
            # local function the retried code calls is part of that code's attempt
            body = None if getattr(entry, "reached", False) else getattr(entry, "node", None)
            seconds = fitted_timeout_s(policy, self.ctx, body) if policy is not None else None
            if seconds is None or seconds >= self.settings.default_timeout_for(spec.category):
                continue
            if best is None or seconds < best[0]:
                best = (seconds, retry_time_setting(policy), retry_time_limit_s(policy, self.settings))
        return best


def _debug_only(around) -> bool:
    """Whether a branch runs only when ``DEBUG`` holds: under ``if DEBUG:`` (or a test that needs it,
    ``if DEBUG and ...``), or the ``else`` of ``if not DEBUG:``."""
    for test, taken in around:
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated else test
        needs = isinstance(inner, cst.Name) and inner.value == "DEBUG" or (
            isinstance(inner, cst.BooleanOperation) and isinstance(inner.operator, cst.And) and any(
                isinstance(side, cst.Name) and side.value == "DEBUG" for side in (inner.left, inner.right)))
        if needs and taken != negated:
            return True
    return False
