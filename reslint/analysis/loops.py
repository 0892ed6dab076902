"""Hand-rolled retry loops: ``for attempt in range(n)`` / ``itertools.count()`` / ``while`` loops
that retry.

A loop is a retry loop when success leaves it (``return``/``break``, or ``done = True`` in
``while not done:``) and a failure goes round again: an ``except`` handler that does not always
leave, or a sleep before the next iteration (a status check, then ``sleep``). A ``while`` loop
with no sleep retries only when its success always leaves and its handler goes round at once
(:meth:`LoopAnalyzer._hot_retry`). Loops over data (``for item in items``, ``range(len(items))``)
are never retry loops, nor is a loop that takes the next item of work each pass (a queue's
``get()``, ``recv()``, ``self._get_next_task()``) and tries it, nor a periodic task that sleeps, works
and goes round until it is stopped (:func:`_leaves_on_an_answer`). The attempt number is a ``for`` target or a counter kept by hand
(``attempt += 1``), whichever the waits and give-up tests read. Shapes and static tests
follow ``research/retry-semantics.md`` section 1.17.

A ``while`` loop that catches nothing and waits for what a remote call returns, with no way
out but that answer (``while not s.get(url).ok: sleep(5)``), is a poll with no deadline
(:meth:`LoopAnalyzer.endless_poll`): no retry, but RES203 judges it.

Anchors (DESIGN section 2): the loop statement for bounds and backoff, the
``sleep`` call for jitter and Retry-After, the ``except`` handler for what is
retried.
"""

from __future__ import annotations

import builtins
import math
import re
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from reslint.catalog import retries as cat
from reslint.catalog.clients import EXCEPTION_BASES
from reslint.catalog.timeouts import MODEL_PROBES, MODEL_STORE_KEYWORD
from reslint.semantics.context import Context
from reslint.semantics.cstutil import source
from reslint.libraries import HAND_ROLLED, OPEN_ERRORS, POLLING
from reslint.model.policy import Jitter, LoopFacts, Retried, RetriedKind, RetryPolicy, Role, Wait, WaitShape
from reslint.model.reader import PolicyReader
from reslint.values import UNKNOWN, arithmetic, is_number, spelled_as_constant
from reslint.semantics.walk import children, expressions, nodes_within, read_name_nodes, statement_blocks

_EXITS = (cst.Return, cst.Break)
#: methods that take the next item of work off a queue or a channel (:meth:`LoopAnalyzer._takes_next_item`)
_NEXT_ITEM_METHODS = frozenset({"dequeue", "popleft", "recv", "next_item"})
#: a name that says the item is the next one of a queue, not a resource fetched again: ``next_task``,
#: ``get_next_job``, ``take_pending_message``, ``_get_returned_task`` (not ``get_events``, ``get_job``)
_NEXT_ITEM = re.compile(r"(?:(?:get|fetch|take|pop|receive|read|wait_for)_)?(?:next|returned|pending|queued)_"
                        r"(?:task|job|message|event|item|work)s?")
#: the keywords a take of the next item may pass: how long to wait for one
_WAIT_KEYWORDS = frozenset({"timeout", "block"})
#: exception names that mean "nothing there yet" (a wait for data, not a failure to retry)
_WAIT_ERROR_SUFFIXES = ("Empty", "EmptyError", "Full", "WouldBlock", "NotReady")


def _finite(value) -> bool:
    """A number a loop bound can be counted from: not ``inf`` or NaN (``range(10 ** 400)`` is
    evaluated as ``inf``, which ``int()`` cannot take)."""
    return is_number(value) and (isinstance(value, int) or math.isfinite(value))


def own_nodes(body) -> List[cst.CSTNode]:
    """Nodes of a loop body, not descending into nested functions, classes or loops."""
    out: List[cst.CSTNode] = []
    stack = list(reversed(children(body)))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While)):
            continue
        stack.extend(reversed(children(node)))
    return out


def _sleeps_before_leaving(node: cst.Try) -> List[cst.Call]:
    """The sleeps of a try's body that run only once the attempt has succeeded: a statement that is
    a bare call, after which the body only logs and leaves (``op(); time.sleep(1); log.info("ready");
    return``): a settling pause, not a wait between attempts."""
    body = list(node.body.body)
    if not body or not _leaves_with_nothing_to_do(body[-1]):
        return []
    found: List[cst.Call] = []
    for index, statement in enumerate(body[:-1]):
        call = _bare_call(statement)
        if call is None or index == 0:
            continue
        if all(_logs_only(after) for after in body[index + 1:-1]):
            found.append(call)
    return found


def _leaves_with_nothing_to_do(statement) -> bool:
    """``return``, ``break`` or ``return value`` of a name or a constant: a statement that leaves the
    loop doing no work (``return session.get(url)`` is the attempt itself)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Break):
        return True
    return isinstance(small, cst.Return) and (small.value is None or isinstance(
        small.value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)))


def _bare_call(statement) -> Optional[cst.Call]:
    """The call a statement consists of (``time.sleep(1)``, ``await asyncio.sleep(1)``), else ``None``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 or \
            not isinstance(statement.body[0], cst.Expr):
        return None
    value = statement.body[0].value
    value = value.expression if isinstance(value, cst.Await) else value
    return value if isinstance(value, cst.Call) else None


def _logs_only(statement) -> bool:
    """A statement that only logs (``log.info(...)``, ``print(...)``)."""
    call = _bare_call(statement)
    return call is not None and logs(call)


def logs(call: cst.Call) -> bool:
    """A log line: ``log.info(...)``, ``logger.warning(...)``, ``print(...)``."""
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value in _LOG_METHODS) or \
        (isinstance(func, cst.Name) and func.value == "print")



def always_leaves(block) -> bool:
    """Whether a block (an indented block or a one-line suite) always raises, returns or breaks:
    its last statement does, and no ``continue`` before it (of the loop around the block, not
    of a loop inside it) goes round first (``if attempt < n: sleep(...); continue`` then
    ``break``: the handler of a retry that gives up with ``break``)."""
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if not body or not _statement_leaves(body[-1]):
        return False
    return not any(isinstance(node, cst.Continue) for stmt in body[:-1] if not isinstance(stmt, _OWN_LOOP)
                   for node in nodes_within(stmt, _OWN_LOOP))


#: what a ``continue`` inside does not belong to the loop around a block
_OWN_LOOP = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _statement_leaves(last) -> bool:
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(s, (cst.Raise, cst.Return, cst.Break)) for s in last.body)
    if isinstance(last, (cst.Raise, cst.Return, cst.Break)):
        return True
    if isinstance(last, cst.If) and last.orelse is not None:
        orelse = last.orelse
        other = _statement_leaves(orelse) if isinstance(orelse, cst.If) else always_leaves(orelse.body)
        return always_leaves(last.body) and other
    return False


def exits_on_success(node: cst.Try, flag=None, loop=None) -> bool:
    """Whether a return or break in the try body or its ``else`` leaves the loop on success
    (``flag``: (name, value) of a ``while not done:`` loop, whose ``done = True`` leaves it), or,
    given the ``loop``, the statements after the try do (:func:`_leaves_after`)."""
    blocks = [node.body] + ([node.orelse.body] if node.orelse is not None else [])
    return any(isinstance(n, _EXITS) or _sets_flag(n, flag) for block in blocks for n in own_nodes(block)) or \
        (loop is not None and _leaves_after(loop, node, flag))


def _leaves_after(loop, node: cst.Try, flag) -> bool:
    """``try: r = op() / except E: ...; continue`` then ``return r`` (or ``break``, or the loop's
    flag set) after the try, in the loop body itself: the attempt's success leaves the loop after
    the try, and every handler that does not leave goes round with its last ``continue``. A
    handler that falls through would reach the exit too: then a failure leaves as well, and
    nothing is retried."""
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
    index = next((i for i, stmt in enumerate(body) if stmt is node), None)
    if index is None:
        return False
    for handler in node.handlers:
        block = handler.body.body if isinstance(handler.body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
        last = block[-1] if block else None  # ``except E:\n    continue`` or ``except E: continue``
        goes_round = isinstance(last, cst.Continue) or (
            isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Continue)) or \
            _gated_continue(handler) is not None  # ``if attempt < n: sleep(...); continue`` then ``raise``
        if not goes_round and not always_leaves(handler.body):
            return False
    for stmt in body[index + 1:]:
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(small, (cst.Return, cst.Break)) or _sets_flag(small, flag) for small in stmt.body):
            return True
    return False


def _sets_flag(node, flag) -> bool:
    """``done = True`` for the flag ``("done", True)`` of a ``while not done:`` loop."""
    if flag is None or not isinstance(node, cst.Assign):
        return False
    name, value = flag
    return isinstance(node.value, cst.Name) and node.value.value == str(value) and any(
        isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)


def _runs_once(loop: cst.While, flag) -> bool:
    """Whether every pass of ``while not done:`` sets ``done = True`` at the top level of its body
    with no ``continue`` of this loop that could skip it: the body runs once."""
    if not isinstance(loop.body, cst.IndentedBlock) or not any(
            isinstance(stmt, cst.SimpleStatementLine) and any(_sets_flag(small, flag) for small in stmt.body)
            for stmt in loop.body.body):
        return False
    inner_scopes_and_loops = (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
    return not any(isinstance(node, cst.Continue) for node in nodes_within(loop.body, inner_scopes_and_loops))


def _success_leaves(node: cst.Try, flag, loop=None) -> bool:
    """The try's success path always leaves the loop: its body ends with ``return``/``break`` (or
    sets the loop's flag), or its ``else`` always leaves, or (given the ``loop``) the statements
    after it do (:func:`_leaves_after`). A ``break`` under an ``if`` in the body (a quit command,
    an end of data) is not the success of an attempt."""
    def ends(block) -> bool:
        body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
        if not body:
            return False
        last = body[-1]
        smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
        return _statement_leaves(last) or any(_sets_flag(small, flag) for small in smalls)
    return ends(node.body) or (node.orelse is not None and ends(node.orelse.body)) or \
        (loop is not None and _leaves_after(loop, node, flag))


def _leaves_on_an_answer(loop) -> bool:
    """Whether the loop leaves (``return``, ``break``) outside its handlers under a test that reads
    what its own work produced: a call (``if r.json()["state"] == "done": return``) or a name the
    loop body binds (``status = client.get(...)``, then ``if status.ok: break``). A loop that goes
    round after its work succeeds and leaves only on state it does not produce (``if not
    self.pool: break``) or when cancelled (``except CancelledError: break``) is a periodic task:
    it runs until it is stopped and waits for no condition."""
    nodes = own_nodes(loop.body)
    # what the loop's work produces: the names it binds, and the objects its calls act on
    # (``instance.reload()``, then ``if instance.state["Name"] == "running": return``)
    bound = _bound_names(nodes) | _for_targets(loop.body) | {
        n.func.value.value for n in nodes if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
        and isinstance(n.func.value, cst.Name)}

    def answers(test) -> bool:
        return any(isinstance(n, cst.Call) or (isinstance(n, cst.Name) and n.value in bound)
                   for n in nodes_within(test))

    # its handlers leave on a fault, not on an answer
    handled = {id(n) for node in nodes if isinstance(node, cst.Try) for h in node.handlers for n in own_nodes(h.body)}
    return any(isinstance(exit_, _EXITS) and id(exit_) not in handled and tests and any(answers(t) for t in tests)
               for exit_, tests in _control_flow(_statements(loop.body)))


def _for_targets(body) -> set:
    """The names the ``for`` statements of a loop body bind as their targets."""
    return {n.value for node in own_nodes(body) if isinstance(node, cst.For)
            for n in expressions(node.target) if isinstance(n, cst.Name)}


def _position(nodes, targets) -> int:
    """The index in ``nodes`` (the loop body in source order) of the first of ``targets``."""
    ids = {id(t) for t in targets}
    return next((i for i, n in enumerate(nodes) if id(n) in ids), len(nodes))


def _stepped_before(nodes, var: str, sleeps) -> bool:
    """``attempt += 1`` comes before the first sleep of the loop body."""
    steps = [n for n in nodes if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)
             and n.target.value == var]
    return bool(steps) and _position(nodes, steps) < _position(nodes, sleeps)


def _sleeps_guarded(nodes, sleeps, counts) -> bool:
    """Whether the last failed attempt can leave before it sleeps: a give-up branch on the attempt
    number (``if attempt == n - 1: raise``) comes before the first sleep, or a test of the attempt
    number decides whether to sleep (``if attempt < n - 1: sleep(...)``). ``counts`` says whether a
    test reads the attempt number. A status check that leaves (``if r.status_code != 503: return
    r``, ``if r.status_code == 503: raise ValueError()`` inside the try) is a success exit or a
    failure, not a give-up: the last failed attempt still sleeps."""
    first = _position(nodes, sleeps)
    sleep_ids = {id(s) for s in sleeps}
    for index, node in enumerate(nodes):
        if not isinstance(node, cst.If) or not counts(node.test):
            continue
        if index < first and _one_branch_leaves(node):
            return True
        if any(id(n) in sleep_ids for n in own_nodes(node.body)) or (
                node.orelse is not None and any(id(n) in sleep_ids for n in own_nodes(node.orelse))):
            return True
    return False


def _changes_the_request(handler: cst.ExceptHandler, node: cst.Try) -> bool:
    """The handler appends to, extends or rebinds a name the try body passes to a call."""
    changed = set()
    for n in own_nodes(handler.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and \
                n.func.attr.value in ("append", "extend", "insert", "update") and isinstance(n.func.value, cst.Name):
            changed.add(n.func.value.value)
        elif isinstance(n, cst.Assign):
            changed.update(t.target.value for t in n.targets if isinstance(t.target, cst.Name))
    if not changed:
        return False
    for n in own_nodes(node.body):
        if isinstance(n, cst.Call) and any(isinstance(m, cst.Name) and m.value in changed
                                           for arg in n.args for m in expressions(arg.value)):
            return True
    return False


#: words in the name of a call that may pause a loop (its last part: ``extractor.sleep``, ``_backoff``)
_SLEEP_WORDS = ("sleep", "backoff")
_HOT_WAIT_WORDS = _SLEEP_WORDS + ("wait", "delay", "pause", "throttle")


def _names_a_wait(func, words) -> bool:
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
    name = name.lower()
    return any(word in name for word in words)


def _depends_on(expr, names, scope, ctx: Context, depth: int = 0) -> bool:
    """Whether ``expr`` uses one of ``names`` (parameters), directly or through the locals it
    reads (``parsed = parse(retry_after)`` ... ``return parsed``)."""
    if not names:
        return False
    for node in expressions(expr):
        if isinstance(node, cst.Name):
            if node.value in names:
                return True
            if depth < 4:
                for binding in ctx.lookup(node.value, scope) or ():
                    if binding.kind == "assign" and binding.value is not None and \
                            _depends_on(binding.value, names, binding.scope, ctx, depth + 1):
                        return True
    return False


def _statements_before(block, target) -> List[cst.CSTNode]:
    """The statements that run before ``target`` on its way through ``block``: in each block
    around it (not into nested functions), those before the statement that holds it."""
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    for index, stmt in enumerate(body):
        if any(n is target for n in own_nodes(stmt)) or stmt is target:
            out = list(body[:index])
            for inner in _blocks(stmt):
                if any(n is target for n in own_nodes(inner)):
                    out += _statements_before(inner, target)
            return out
    return []


def _blocks(stmt) -> List[cst.CSTNode]:
    """The indented blocks of a compound statement (``if``/``elif``/``else``, ``try`` parts, ``with``)."""
    out = []
    if isinstance(stmt, cst.If):
        out.append(stmt.body)
        orelse = stmt.orelse
        while orelse is not None:
            out.append(orelse.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        out += [stmt.body] + [h.body for h in stmt.handlers]
        out += [b.body for b in (stmt.orelse, stmt.finalbody) if b is not None]
    elif isinstance(stmt, cst.With):
        out.append(stmt.body)
    return out


#: builtins that compute a value from their arguments: a poll's test may read them
#: (``len(job["items"]) > 0``) and still test only the answer (``next`` or ``input`` would not)
_PURE_BUILTINS = frozenset({"abs", "all", "any", "bool", "dict", "float", "getattr", "hasattr", "int",
                            "isinstance", "len", "list", "max", "min", "repr", "set", "sorted", "str",
                            "tuple", "type"})
#: logger methods (``logging.Logger``: https://docs.python.org/3/library/logging.html#logger-objects)
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
#: calls that cannot pause a loop: a logger, bookkeeping on a builtin container or string, cleanup
_QUIET_METHODS = _LOG_METHODS | {"append", "extend", "add", "insert", "update", "pop", "clear", "format", "join",
                                 "close", "rollback"}


def _foreign(error: str, own: str) -> bool:
    """An exception type raised by I/O or a library, not this project's own: a qualified name
    outside the project's package, or a real builtin (a bare name that is not one came from a
    ``from .errors import *`` reslint did not follow)."""
    if "." not in error:
        return hasattr(builtins, error)
    return not error.startswith(own)


def _raises(block) -> bool:
    """A block whose last statement raises."""
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(small, cst.Raise) for small in last.body)
    return False


def _one_branch_leaves(node: cst.If) -> bool:
    """``if x: raise`` or ``if x: ... else: raise``: a give-up branch."""
    if always_leaves(node.body):
        return True
    return isinstance(node.orelse, cst.Else) and always_leaves(node.orelse.body)


class LoopAnalyzer:
    """Reads the retry policy of a hand-rolled loop, or decides it is not one."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.reader = PolicyReader(ctx)

    def policy(self, loop, scope, deadline_s=None) -> Optional[RetryPolicy]:
        """The loop's policy, or ``None`` when it is not a retry loop. ``deadline_s``
        is a time cap enclosing the whole loop (``asyncio.timeout(T)``)."""
        wanted = set(self.ctx.wanted)
        found = self._policy(loop, scope, deadline_s)
        if found is None:  # a data loop's ``range(N_ITEMS)``: no other module need be read for it
            self.ctx.wanted.intersection_update(wanted)
        return found

    def _policy(self, loop, scope, deadline_s=None) -> Optional[RetryPolicy]:
        counted = self._counted(loop, scope)
        if counted is None:
            return None
        attempts, var, start = counted
        nodes = own_nodes(loop.body)
        if any(self._asks(own_nodes(t.body), scope) for t in self.tries(loop.body)):
            return None  # an interactive session: each pass runs on what the person types
        flag = self._flag(loop, scope)
        if flag is not None and _runs_once(loop, flag):
            return None  # ``while not retried: ...; retried = True``: one pass, nothing is retried
        exits = any(isinstance(n, _EXITS) or _sets_flag(n, flag) for n in nodes)
        if not exits:  # ``while not s.get(url).ok: sleep(5)``: the condition is the only way out
            return self.endless_poll(loop, nodes, scope) if flag is None and deadline_s is None else None
        sleeps = [n for n in nodes if isinstance(n, cst.Call) and self.ctx.qualname(n.func, scope) in cat.SLEEPS]
        # a try drives the retry when success leaves the loop from it (``try: return op()``, or an
        # ``else: break``); a try around logging or bookkeeping inside a poll does not
        tries = [t for t in self.tries(loop.body) if exits_on_success(t, flag, loop)]
        helper_sleeps = self.pausing_calls(nodes, sleeps, scope)
        settling = {id(s) for t in tries for s in _sleeps_before_leaving(t)}
        sleeps = [s for s in sleeps if id(s) not in settling]  # run once, after success: no wait between attempts
        handlers = [h for t in tries for h in t.handlers if not always_leaves(h.body)]
        handler_ids = {id(h) for h in handlers}  # not `h in handlers`, once per handler of every try
        if handlers and all(_changes_the_request(h, t) for t in tries for h in t.handlers if id(h) in handler_ids):
            return None  # each pass sends a corrected request (an LLM re-prompt): not a blind retry
        if handlers and all(self.local_errors_only(h, scope) or self._timed_wait(h, tries, scope) for h in handlers):
            return None  # IndexError, KeyError, queue.Empty…: a search or a wait, not a retry of I/O
        # the loop variable, and the names computed from it in the loop (``this_port = port + i``,
        # ``host = hosts[i]``; not a text that only names the attempt, ``key = f"{attempt}-..."``)
        per_pass = ({var} | _derived_names(nodes, lambda value, names: isinstance(
            value, (cst.BinaryOperation, cst.Subscript)) and _reads(value, names | {var}))) \
            if var is not None else set()
        if var is not None and any(self._uses(t.body, per_pass) for t in tries):
            return None  # the attempt changes what is tried (os.fstat(fd + i)): a search over items
        if self._new_candidate(loop, tries, var, scope):
            return None  # port = random.randint(...), url = urls[attempt], page = next(pages): a search
        status_checks = any(isinstance(n, cst.Comparison) and _compares_http_status(n, self.ctx, scope) for n in nodes)
        if not handlers and not ((sleeps or helper_sleeps) and status_checks):
            # a poll or a scheduler loop, not a retry after a failure: judged only when it polls a
            # remote call with no way out but the condition it waits for
            return self.endless_poll(loop, nodes, scope) if flag is None and deadline_s is None else None
        if isinstance(loop, cst.While) and not (sleeps or helper_sleeps) and \
                not self._hot_retry(tries, handlers, nodes, scope, flag, loop):
            return None  # readiness and generator loops: a `while` retry waits between attempts
        capped, cap = self.time_cap(loop, nodes, scope)
        if sleeps and not helper_sleeps and self._constant(sleeps, scope) and capped:
            return None  # sleeping a constant interval until a deadline: a wait for readiness
        if attempts is None or attempts is UNKNOWN:
            guarded = self._guard(nodes, scope, handlers)
            if guarded is not None:
                attempts = guarded
        counter = var if isinstance(loop, cst.While) else None
        if var is None and isinstance(loop, cst.While):
            counter = self._guard_counter(nodes, scope, handlers)
            if counter is not None:
                initial = self._initial(counter, scope)
                var, start = counter, int(initial) if _finite(initial) else 0
        if deadline_s is not None:
            capped, cap = True, deadline_s
        # the attempt number at a sleep: a ``for`` target is 1 short of the pass count (``range(5)``
        # sleeps with 0..4); a counter kept by hand is so only when it is stepped after the sleep
        stepped_first = isinstance(loop, cst.While) and var is not None and _stepped_before(nodes, var, sleeps)
        # what numbers the attempts: the loop variable or a name stepped by hand (``tries -= 1``)
        counters = {n.target.value for n in nodes if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)}
        counters |= {var} if var is not None else set()
        spared = _sleeps_guarded(nodes, sleeps, lambda test: _depends_on(test, counters, scope, self.ctx))
        wait = self.wait(sleeps, var, start, scope, while_loop=stepped_first, trailing=bool(sleeps) and not spared)
        if helper_sleeps:
            wait = Wait.unknown(helper_sleeps[0])  # a helper sleeps: how long is unknown here
        elif not sleeps and not all(self.quiet(h, scope) for h in handlers):
            wait = Wait.unknown(loop)  # no sleep here, but a handler calls what may wait (a reconnect)
        retried, aimed = self.retried(handlers, nodes, scope)
        in_handlers = {id(n) for h in handlers for n in own_nodes(h.body)}
        # ``if r.status_code == 429: raise RateLimited()`` in the try (or a function it calls) and
        # ``except RateLimited:``: a 429 goes round through that handler, and through the statements
        # after the try when the handler falls through to them (not when it ends in ``continue``)
        limited = self._rate_limit_handlers(tries, handlers, scope)
        after_429 = {id(n) for h in limited for n in own_nodes(h.body)}
        aimed = aimed or any(not _leaves(h.body) for h in limited)
        # no handler and only success statuses compared (``if r.status_code == 200: return``):
        # it waits for a condition, it does not retry a fault
        poll = not handlers and bool(retried.statuses) and all(s < 400 for s in retried.statuses)
        # it goes round after a call that succeeded too: success leaves only when a returned value
        # says so (``if status["state"] == "success": return``), and it sleeps outside its handlers;
        # the errors it tolerates on the way are a poll's, as tenacity's ``retry_if_result`` (DESIGN)
        waits_round = bool(handlers) and not any(_success_leaves(t, flag, loop) for t in tries) \
            and not any(isinstance(n, cst.If) and checks_response(n.test) for n in nodes) \
            and any(id(n) not in in_handlers for n in sleeps + helper_sleeps)
        if waits_round and flag is None and not _leaves_on_an_answer(loop):
            return None  # a periodic task (sleep, work, again, until stopped): it waits for nothing
        poll = poll or waits_round
        # ``try: client.ping(); break / except Exception: sleep(5)``: it learns only that the server
        # answers, so every error it catches means "not ready yet"
        poll = poll or (bool(handlers) and bool(tries) and all(self.probes(t, scope) for t in tries)
                        and self._quiet_outside(loop, tries, scope))
        facts = LoopFacts(sleeps=tuple(sleeps), handlers=tuple(handlers), aimed_at_rate_limit=aimed,
                          sleeps_in_handlers=frozenset(id(s) for s in sleeps if id(s) in in_handlers),
                          sleeps_after_rate_limit=frozenset(id(s) for s in sleeps if id(s) in after_429),
                          raise_for_status=unguarded_raise_for_status(loop.body, self.ctx, scope, in_try=True),
                          time_capped=capped, poll=poll, counter=counter,
                          bound=dict(self.ctx.param_values) or None)
        return RetryPolicy(POLLING if poll else HAND_ROLLED, Role.LOOP, loop, attempts=attempts,
                           max_delay_s=cap if capped else None, wait=wait, retried=retried, loop=facts)

    def probes(self, node: cst.Try, scope) -> bool:
        """Whether a try's attempt only tests that a server answers: a readiness probe.

        Its body (and ``else``) runs straight through, statement by statement: calls whose value is
        dropped (``client.ping()``, ``session.get(url).raise_for_status()``), ``with`` blocks made of
        the same (``with redis.Redis() as r: r.ping()``), a name bound to a constant (``ready = True``)
        or to a call's value that is read only as the receiver of dropped calls in this try
        (``conn = psycopg2.connect(dsn); conn.close()``), and a last statement that leaves with
        nothing (``break``, ``return``, ``return True``). Its calls ask a server whether it is up and
        change nothing (:meth:`_probe_call`: ``ping()``, a GET, a connection opened and closed), or
        sleep and log; a PUT, an upload or a call of the project's own functions is no probe. The loop carries nothing out of the
        attempt but "it answered", so it is a wait for readiness (DESIGN "Polls are not
        retries"): a connection refused or a shard not yet allocated is the condition it waits
        on, whatever the handler catches."""
        blocks = [node.body] + ([node.orelse.body] if node.orelse is not None else [])
        statements = [stmt for block in blocks for stmt in _statements(block)]
        if not statements or not _leaves_with_nothing_to_do(statements[-1]):
            return False
        dropped: List[cst.Call] = []
        receivers: Dict[str, cst.Call] = {}
        pending = statements[:-1]
        while pending:
            stmt = pending.pop(0)
            if isinstance(stmt, cst.With):
                for item in stmt.items:
                    call = item.item.expression if isinstance(item.item, cst.Await) else item.item
                    if not isinstance(call, cst.Call):
                        return False
                    dropped.append(call)
                    if item.asname is not None:
                        if not isinstance(item.asname.name, cst.Name):
                            return False
                        receivers[item.asname.name.value] = call
                pending[:0] = _statements(stmt.body)
                continue
            if isinstance(stmt, cst.If):
                # a choice of probe by configuration (``if fmt == CHAT: ... elif ...``): each branch is
                # held to the same rules, and no test calls anything
                branches, clause = [], stmt
                while True:
                    if any(isinstance(n, cst.Call) for n in expressions(clause.test)):
                        return False
                    branches += _statements(clause.body)
                    if isinstance(clause.orelse, cst.If):
                        clause = clause.orelse
                        continue
                    if clause.orelse is not None:
                        branches += _statements(clause.orelse.body)
                    break
                pending[:0] = branches
                continue
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                return False
            small = stmt.body[0]
            call = _bare_call(stmt)
            if isinstance(small, cst.Pass):
                continue
            if call is not None:
                dropped.append(call)
            elif isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                    isinstance(small.targets[0].target, cst.Name):
                value = small.value.expression if isinstance(small.value, cst.Await) else small.value
                if isinstance(value, cst.Call):
                    dropped.append(value)
                    receivers[small.targets[0].target.value] = value
                elif not _constant(self.ctx.value_of(value, scope)) and \
                        not (isinstance(value, cst.Name) and value.value in ("True", "False", "None")):
                    return False
            else:
                return False
        if receivers and not self._only_receivers(node, receivers, scope):
            return False
        calls = [n for call in dropped for n in expressions(call) if isinstance(n, cst.Call)]  # ``get(u).raise_for_status()``
        kinds = [self._probe_call(call, scope, model_requests=True) for call in calls]
        return None not in kinds and "probe" in kinds

    def _probe_call(self, call: cst.Call, scope, model_requests: bool = False) -> Optional[str]:
        """What a call of a readiness probe is: ``"probe"`` when it asks a server whether it is up
        and changes nothing (an HTTP GET, HEAD or OPTIONS, a method of ``PROBE_METHODS``, building
        a client or opening a connection, a model request, whose answer the probe drops), ``"quiet"`` for a sleep, a logger, ``print``,
        ``raise_for_status()`` or ``close()``, and ``None`` for anything else (a PUT, an upload,
        a project function: what it does is not known here)."""
        from reslint.analysis.timeouts import read_call_timeout  # timeouts read loops: imported when needed
        from reslint.analysis.idempotency import request_method
        from reslint.catalog.idempotency import HTTP_CALLS
        from reslint.catalog.names import FACTORIES

        qual = self.ctx.qualname(call.func, scope)
        func = call.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if qual in cat.SLEEPS or method in _LOG_METHODS or method in ("raise_for_status", "close") or \
                (isinstance(func, cst.Name) and func.value in ("print", "len")):
            return "quiet"
        own = self.local_def(call, scope) is not None or (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"))
        if own:
            return None  # the project's own function or method: what it does is not known here
        if method in cat.PROBE_METHODS:
            return "probe"
        if qual in HTTP_CALLS:
            return "probe" if request_method(call, self.ctx, scope) in ("GET", "HEAD", "OPTIONS") else None
        with self.ctx.in_scope(scope):
            reading = read_call_timeout(call, self.ctx)
        opens = reading is not None and reading.spec.category != "subprocess" and \
            (reading.spec.carrier or qual in FACTORIES)  # a client built, a connection opened
        # inside the attempt, a model request whose answer is dropped (``create(..., max_tokens=1)``):
        # it asks whether the endpoint serves, and computes an answer it keeps nowhere (catalog
        # MODEL_PROBES; not with ``store=``, not a write the project declares)
        asks_a_model = model_requests and reading is not None and reading.spec.qualname in MODEL_PROBES and \
            not any(a.keyword is not None and a.keyword.value == MODEL_STORE_KEYWORD for a in call.args) and \
            not any(a.star == "**" for a in call.args) and self._writes(call, scope) is None
        return "probe" if opens or asks_a_model else None

    def _writes(self, call: cst.Call, scope):
        """The kind of write ``call`` is (catalog or the project's declared writes), or ``None``."""
        from reslint.analysis.idempotency import analysis

        with self.ctx.in_scope(scope):
            return analysis(self.ctx).write_kind(call)

    def _quiet_outside(self, loop, tries: List[cst.Try], scope) -> bool:
        """Whether the calls of a loop outside its tries (not in their handlers either, which may
        reconnect) are readiness probes or quiet ones (:meth:`_probe_call`): a POST sent before the
        ``try: ping()`` makes the loop a retry of that POST."""
        inside = {id(n) for t in tries for n in own_nodes(t)} | {id(t) for t in tries}
        outside = [n for n in own_nodes(loop.body) if id(n) not in inside and isinstance(n, cst.Call)]
        if isinstance(loop, cst.While):
            outside += [n for n in expressions(loop.test) if isinstance(n, cst.Call)]
        return all(self._probe_call(call, scope) is not None for call in outside)

    def _only_receivers(self, node: cst.Try, receivers: Dict[str, cst.Call], scope) -> bool:
        """Whether each of ``receivers`` (names a probe binds) is read in its function only as
        the receiver of a call whose value is dropped in the try ``node`` (``conn.close()``)."""
        root = scope.node if scope is not None and scope.node is not None else node
        inside = {id(n) for n in nodes_within(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))}
        allowed = set()
        for stmt in nodes_within(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            call = _bare_call(stmt) if isinstance(stmt, cst.SimpleStatementLine) else None
            if call is not None and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
                allowed.add(id(call.func.value))
        bound = {id(n.target) for n in expressions(root) if isinstance(n, cst.AssignTarget)} | \
            {id(n.name) for n in expressions(root) if isinstance(n, cst.AsName)}
        for name in read_name_nodes(root):
            if name.value in receivers and id(name) not in bound and (id(name) not in inside or id(name) not in allowed):
                return False
        return True

    def tries(self, body) -> List[cst.Try]:
        """``try`` statements of the loop body, not those nested in a handler (cleanup)."""
        out, stack = [], list(children(body))
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While, cst.ExceptHandler,
                                 cst.Finally)):
                continue
            if isinstance(node, cst.Try):
                out.append(node)
            stack.extend(children(node))
        return out

    def pausing_calls(self, nodes, sleeps: List[cst.Call], scope) -> List[cst.Call]:
        """The calls among ``nodes``, besides the library ``sleeps`` and what their arguments call
        (``sleep(backoff_for(attempt))``), that pause for a time unknown here: a function of this
        module whose body sleeps, or a call reslint cannot follow whose name says it sleeps
        (``sleep_after_rate_limit_exception(client)``)."""
        sleep_ids = {id(n) for n in sleeps}  # not `n not in sleeps`: quadratic in a loop of many sleeps
        in_sleeps = {id(n) for s in sleeps for n in own_nodes(s)}
        return [n for n in nodes if isinstance(n, cst.Call) and id(n) not in sleep_ids
                and (self._sleeps_inside(n, scope) or (id(n) not in in_sleeps and self._named_sleep(n, scope)))]

    def _sleeps_inside(self, call: cst.Call, scope) -> bool:
        """A call to a function or method of this module whose body sleeps (``self._jitter_sleep(i)``)."""
        qual = self.ctx.qualname(call.func, scope)
        if qual is None or qual in cat.SLEEPS:
            return False
        func = None
        if isinstance(call.func, cst.Name):
            found = self.ctx.lookup(call.func.value, scope)
            func = found[0].node if found and len(found) == 1 and found[0].kind == "def" else None
        elif isinstance(call.func, cst.Attribute):
            owner = self._owner_class(qual)
            if owner is not None:
                found = owner[1].bindings.get(call.func.attr.value)
                func = found[0].node if found and found[0].kind == "def" else None
        if not isinstance(func, cst.FunctionDef):
            return False
        # once per function, not per call: a loop calling a long helper thousands of times scanned
        # the helper's body each time (minutes for a 70 kB file)
        key = ("sleeps-inside", id(func))
        if key not in self.ctx.cache:
            inner = self.ctx.opened_scope(func.body, scope)
            self.ctx.cache[key] = any(isinstance(n, cst.Call) and self.ctx.qualname(n.func, inner) in cat.SLEEPS
                                      for n in own_nodes(func.body))
        return self.ctx.cache[key]

    def _named_sleep(self, call: cst.Call, scope) -> bool:
        """A call reslint cannot follow whose name says it sleeps (``extractor.sleep(t, "retry")``,
        ``self._backoff(attempt)`` of another object): a wait of unknown length, not none."""
        if not _names_a_wait(call.func, _SLEEP_WORDS):
            return False
        return self.local_def(call, scope) is None  # a local one is read by _sleeps_inside

    def _owner_class(self, qual: str):
        """The (node, scope) of the local class whose qualified name, followed by ``.``, starts
        ``qual`` (the last such class in definition order), or ``None``. Those names are the
        prefixes of ``qual`` that end before a dot: looked up, not compared with every class of
        the module once per call."""
        classes = self.ctx.model.classes
        key = ("class-order", id(classes))
        if key not in self.ctx.cache:
            self.ctx.cache[key] = {name: index for index, name in enumerate(classes)}
        order = self.ctx.cache[key]
        prefixes = [qual[:i] for i, char in enumerate(qual) if char == "." and qual[:i] in order]
        return classes[max(prefixes, key=order.__getitem__)] if prefixes else None

    def _constant(self, sleeps, scope) -> bool:
        """Every sleep is a known constant (no loop variable, no random draw)."""
        for sleep in sleeps:
            arg = sleep.args[0].value if sleep.args and not sleep.args[0].star else None
            if arg is None or not is_number(self.ctx.value_of(arg, scope)):
                return False
        return True

    # -- bounds ----------------------------------------------------------------------
    def _counted(self, loop, scope) -> Optional[Tuple[object, Optional[str], int]]:
        """(attempts, loop variable, its first value) for loops that can retry; None for data loops."""
        if isinstance(loop, cst.For):
            it = loop.iter
            var = loop.target.value if isinstance(loop.target, cst.Name) else None
            if isinstance(it, cst.Call) and self.ctx.qualname(it.func, scope) in cat.COUNTERS:
                return self._endless(it, var, scope)
            if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"
                    and self.ctx.lookup("range", scope) is None):
                return None
            values = [self.ctx.value_of(a.value, scope) for a in it.args if not a.keyword and not a.star]
            if len(values) != len(it.args) or not values or not all(_finite(v) for v in values):
                # range(n) over a computed n (a parameter, an attribute, a setting): the attempts are
                # unknown; range(len(items)) walks the items
                if any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "len"
                       for a in it.args for n in expressions(a.value)):
                    return None
                return UNKNOWN, var, 0
            start, stop, step = (0, values[0], 1) if len(values) == 1 else (values[0], values[1],
                                                                             values[2] if len(values) > 2 else 1)
            if step == 0:
                return UNKNOWN, var, 0
            return max(0, math.ceil((stop - start) / step)), var, int(start)
        if isinstance(loop, cst.While):
            test = loop.test
            value = self.ctx.value_of(test, scope)
            if value is True or (is_number(value) and value) or self._flag(loop, scope) is not None:
                return None, None, 0  # ``while True:``, ``while not done:``: no attempt cap
            counter = self._counter_bound(test, loop, scope)
            if counter is not None:
                return counter
            return UNKNOWN, None, 0
        return None

    def _endless(self, it: cst.Call, var, scope):
        """``itertools.count(start)``: no attempt cap; the attempt number starts at ``start``
        (a step other than the default leaves the number unread)."""
        start, step = cat.COUNTERS[self.ctx.qualname(it.func, scope)]
        values = [self.ctx.value_of(a.value, scope) for a in it.args if not a.star]
        if any(a.keyword is not None for a in it.args) or len(values) > 2 or \
                not all(_finite(v) for v in values) or (len(values) == 2 and values[1] != step):
            return None, None, 0
        return None, var, int(values[0]) if values else start

    def _flag(self, loop, scope):
        """(name, the value that leaves) for ``while not done:`` / ``while running:`` over a local
        bound only to ``True``/``False``, else ``None``."""
        if not isinstance(loop, cst.While):
            return None
        test, leaving = loop.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, leaving = test.expression, True
        if not isinstance(test, cst.Name):
            return None
        found = self.ctx.lookup(test.value, scope) or ()
        if not found or any(b.kind != "assign" or not isinstance(b.value, cst.Name)
                            or b.value.value not in ("True", "False") for b in found):
            return None
        return test.value, leaving

    def _hot_retry(self, tries, handlers, nodes, scope, flag, loop=None) -> bool:
        """A ``while`` loop with no sleep that still retries a fault: a try whose success always
        leaves (``return op()``, ``break`` or ``done = True`` at its end) and whose handler goes
        round at once (``continue``, ``pass``). Not a read that times out to look again
        (``except socket.timeout: continue``), a prompt until the answer parses, or a search that
        draws a new candidate each pass (a free port, a unique name)."""
        if not handlers or not any(_success_leaves(t, flag, loop) for t in tries):
            return False
        own = self.ctx.model.module_name.split(".")[0] + "."
        faults = False
        for handler in handlers:
            found = self._handler_types(handler.type, scope) if handler.type is not None else ["BaseException"]
            if found is not None and found and all(t in cat.READ_TIMEOUT_ERRORS for t in found):
                return False
            # the project's own exceptions (``except RestartExtraction: pass``) steer the control
            # flow; a retry with no pause at all is one of a fault raised by I/O or a library
            faults = faults or (found is not None and any(_foreign(t, own) for t in found))
        if not faults or not all(self.quiet(h, scope) for h in handlers):
            return False
        if not self._remote(tries, handlers, scope):
            return False  # ``except Exception: pass`` around a key press or a parse: not a remote fault
        for node in nodes:
            if isinstance(node, cst.Call) and _names_a_wait(node.func, _HOT_WAIT_WORDS):
                return False  # ``extractor.sleep(...)``, ``self.wait(...)``: it may well pause
            if isinstance(node, cst.Call) and self._call_qualname(node, scope) in cat.RANDOM_DRAWS:
                return False
        return True

    def _call_qualname(self, call: cst.Call, scope) -> Optional[str]:
        """The qualified name of what ``call`` calls, builtins included (``builtins.input``)."""
        return self.ctx.qualname(call.func, scope) or self.ctx.builtin(call.func, scope) or None

    def _asks(self, nodes, scope) -> bool:
        """Whether ``nodes`` (a ``try`` body of the loop) ask a person for input (``input()``,
        ``getpass()``): the pass runs on the person's answer (a prompt until it parses, an interactive
        session), and a failure waits for the next command, not for a retry. A prompt elsewhere (a
        handler asking "retry?") leaves the loop a retry, whose writes replay as any other's."""
        return any(isinstance(n, cst.Call) and self._call_qualname(n, scope) in cat.PROMPTS for n in nodes)

    def _remote(self, tries, handlers, scope) -> bool:
        """The loop retries a remote call: a try body makes a call the catalog times (a request, a
        query, a model call; calls to this module's functions followed), or a handler catches a
        connection error (a builtin one or a client library's transient error)."""
        from reslint.analysis.budget import body_time  # budget reads loops: imported when needed

        for handler in handlers:
            found = self._handler_types(handler.type, scope) if handler.type is not None else None
            if found and any(t in cat.CONNECTION_ERRORS or t in cat.TRANSIENT_ERROR_NAMES for t in found):
                return True
        return any(body_time(t.body, self.ctx, scope, empty=None) is not None for t in tries)

    def quiet(self, handler: cst.ExceptHandler, scope) -> bool:
        """A handler that goes round at once: it calls nothing but a logger or ``print`` (the
        project's own calls in it, a reconnect, a host switch, may well wait). A call that only
        fetches the logger (``get_logger().warning(...)``) is a logger's."""
        nodes = own_nodes(handler.body)
        loggers = {id(n.func.value) for n in nodes if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                   and n.func.attr.value in _LOG_METHODS and isinstance(n.func.value, cst.Call)}
        for node in nodes:
            if not isinstance(node, cst.Call) or id(node) in loggers:
                continue
            func = node.func
            if self.ctx.builtin(func, scope):
                continue  # print, str, len, isinstance…
            if isinstance(func, cst.Attribute) and func.attr.value in _QUIET_METHODS:
                continue
            return False
        return True

    def _counter_bound(self, test, loop, scope):
        """``while attempt < N`` with ``attempt`` changed in the loop: (N - start, name, start)."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)):
            return None
        name = test.left.value
        if not any(isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name) and n.target.value == name
                   for n in own_nodes(loop.body)):
            return None
        op = test.comparisons[0].operator
        bound = self.ctx.value_of(test.comparisons[0].comparator, scope)
        start = self._initial(name, scope)
        if not (_finite(bound) and _finite(start)):
            return UNKNOWN, name, 0
        if isinstance(op, cst.LessThan):
            return max(0, int(bound - start)), name, int(start)
        if isinstance(op, cst.LessThanEqual):
            return max(0, int(bound - start + 1)), name, int(start)
        if isinstance(op, cst.GreaterThan):
            return max(0, int(start - bound)), name, int(start)
        if isinstance(op, cst.GreaterThanEqual):
            return max(0, int(start - bound + 1)), name, int(start)
        return UNKNOWN, name, 0

    def _initial(self, name: str, scope):
        found = self.ctx.lookup(name, scope) or []
        plain = [b for b in found if b.kind == "assign"]
        return self.ctx.value_of(plain[0].value, plain[0].scope) if len(plain) == 1 else UNKNOWN

    def _guard(self, nodes, scope, handlers):
        """``if attempt >= N: raise`` inside a ``while True`` loop with a counter: N attempts.
        Any other give-up test on the failure path bounds the loop by something unknown."""
        return self._guarded(nodes, scope, handlers)[0]

    def _guard_counter(self, nodes, scope, handlers) -> Optional[str]:
        """The counter a give-up test of :meth:`_guard` compares (``attempt`` in ``if attempt >= N:
        raise``): the attempt number of a ``while True`` loop."""
        return self._guarded(nodes, scope, handlers)[1]

    def _guarded(self, nodes, scope, handlers):
        counters = {n.target.value for n in nodes if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)}
        for node in nodes:
            if isinstance(node, cst.If) and isinstance(node.test, cst.Comparison) and _one_branch_leaves(node):
                test = node.test
                if isinstance(test.left, cst.Name) and test.left.value in counters and len(test.comparisons) == 1:
                    bound = self.ctx.value_of(test.comparisons[0].comparator, scope)
                    return (int(bound) if _finite(bound) else UNKNOWN), test.left.value
        for handler in handlers:
            for node in own_nodes(handler.body):
                if isinstance(node, cst.Call) and counters:
                    found = self._helper_guard(node, counters, scope)
                    if found is not None:
                        return found
        for handler in handlers:
            if any(isinstance(n, cst.If) and _one_branch_leaves(n) for n in own_nodes(handler.body)):
                return UNKNOWN, None
        for handler in handlers:
            gate = _gated_continue(handler)
            if gate is not None:  # ``if attempt < N: sleep(...); continue`` then ``raise``: N attempts
                for part in _conjuncts(gate.test):
                    if isinstance(part, cst.Comparison) and len(part.comparisons) == 1 and \
                            isinstance(part.left, cst.Name) and part.left.value in counters:
                        bound = self.ctx.value_of(part.comparisons[0].comparator, scope)
                        op = part.comparisons[0].operator
                        if _finite(bound) and isinstance(op, (cst.LessThan, cst.LessThanEqual)):
                            return int(bound) + (1 if isinstance(op, cst.LessThanEqual) else 0), part.left.value
                return UNKNOWN, None  # it goes round only while a test holds: capped by something unknown
        return None, None

    def _helper_guard(self, call: cst.Call, counters, scope):
        """(N, counter) when a handler hands the counter to a function of this module that raises
        once it reaches N (``_backoff_or_raise(error, attempt)`` with ``if attempt >= MAX: raise``,
        alone or as one side of an ``or``): the helper caps the attempts. ``None`` otherwise."""
        func = self.local_def(call, scope)
        if func is None:
            return None
        positional = [p.name.value for p in func.params.params]
        if positional and positional[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            positional = positional[1:]
        passed = {}
        for index, arg in enumerate(call.args):
            if arg.star or not isinstance(arg.value, cst.Name) or arg.value.value not in counters:
                continue
            if arg.keyword is not None:
                passed[arg.keyword.value] = arg.value.value
            elif index < len(positional):
                passed[positional[index]] = arg.value.value
        if not passed:
            return None
        inner = self.ctx.opened_scope(func.body, scope)
        for node in own_nodes(func.body):
            if not (isinstance(node, cst.If) and _raises(node.body)):
                continue
            tests = [node.test]
            while tests and isinstance(tests[-1], cst.BooleanOperation) and isinstance(tests[-1].operator, cst.Or):
                last = tests.pop()
                tests += [last.left, last.right]
            for test in tests:
                if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
                        isinstance(test.left, cst.Name) and test.left.value in passed and \
                        isinstance(test.comparisons[0].operator, (cst.GreaterThan, cst.GreaterThanEqual, cst.Equal)):
                    bound = self.ctx.value_of(test.comparisons[0].comparator, inner)
                    return (int(bound) if _finite(bound) else UNKNOWN), passed[test.left.value]
        return None

    def local_def(self, call: cst.Call, scope) -> Optional[cst.FunctionDef]:
        """The function of this module a call names (a local or module function, ``self.method``)."""
        if isinstance(call.func, cst.Name):
            found = self.ctx.lookup(call.func.value, scope)
            func = found[0].node if found and len(found) == 1 and found[0].kind == "def" else None
        elif isinstance(call.func, cst.Attribute):
            qual = self.ctx.qualname(call.func, scope)
            owner = self._owner_class(qual) if qual is not None else None
            found = owner[1].bindings.get(call.func.attr.value) if owner is not None else None
            func = found[0].node if found and found[0].kind == "def" else None
        else:
            func = None
        return func if isinstance(func, cst.FunctionDef) else None

    def time_cap(self, loop, nodes, scope) -> Tuple[bool, object]:
        """Whether the loop compares a clock with a bound, and the bound in seconds if known."""
        tests = [loop.test] if isinstance(loop, cst.While) else []
        tests += [n.test for n in nodes if isinstance(n, (cst.If, cst.While))]
        for test in tests:
            if any(isinstance(n, cst.Call) and self._is_clock(n, scope) for n in expressions(test)):
                return True, self._deadline_seconds(test, scope)
            for name in (n for n in expressions(test) if isinstance(n, cst.Name)):
                for binding in self.ctx.lookup(name.value, scope) or ():
                    if binding.kind == "assign" and binding.value is not None and any(
                            isinstance(n, cst.Call) and self._is_clock(n, binding.scope)
                            for n in expressions(binding.value)):
                        return True, UNKNOWN  # remaining = deadline - time.monotonic(); if remaining <= 0
        return False, None

    def _is_clock(self, call: cst.Call, scope) -> bool:
        qual = self.ctx.qualname(call.func, scope)
        return qual in cat.CLOCKS or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "time"
                                      and qual is None)

    def _deadline_seconds(self, test, scope):
        """T from ``deadline = time.monotonic() + T`` when the test compares with ``deadline``."""
        for node in expressions(test):
            if isinstance(node, cst.Name):
                binding = self.ctx.single(node.value, scope)
                value = binding.value if binding is not None else None
                if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) and \
                        isinstance(value.left, cst.Call) and self._is_clock(value.left, binding.scope):
                    seconds = self.ctx.value_of(value.right, binding.scope)
                    if is_number(seconds):
                        return float(seconds)
        return UNKNOWN

    # -- waits -----------------------------------------------------------------------
    def wait(self, sleeps: List[cst.Call], var, start: int, scope, while_loop: bool = False,
             trailing: bool = False) -> Wait:
        """The loop's waits; ``while_loop``: the attempt number is stepped before the sleep (the
        k-th sleep sees ``start + k``, else ``start + k - 1``); ``trailing``: the last failed
        attempt sleeps too before the loop gives up."""
        if not sleeps:
            return Wait.none()
        args = [s.args[0].value if s.args and not s.args[0].star else None for s in sleeps]
        if any(a is None for a in args):
            return Wait.unknown(sleeps[0])
        reads = any(self.reads_retry_after(a, scope) for a in args)
        offset = 0 if while_loop else -1
        if all(self.jittered(a, scope) for a in args):
            jitter = Jitter.YES
        elif all(is_number(self.max_value(a, scope, var, start + 1 + offset)) for a in args):
            jitter = Jitter.NO  # fully known and no random draw: deterministic
        else:
            jitter = Jitter.UNKNOWN  # a delay from a parameter or a call may already be random

        def bound(k: int):
            values = [self.max_value(a, scope, var, start + k + offset) for a in args]
            if any(v is UNKNOWN for v in values):
                return UNKNOWN
            return max(values)

        zero = all(self.ctx.value_of(a, scope) == 0 for a in args)
        return Wait(WaitShape.LOOP, jitter, bound, sleeps[0], zero=zero, reads_retry_after=reads, trailing=trailing)

    def _inline(self, expr, scope, depth=0):
        if isinstance(expr, cst.Name) and depth < 6:
            binding = self.ctx.single(expr.value, scope)
            if binding is not None and binding.value is not None:
                return binding.value, binding.scope
        return expr, scope

    def jittered(self, expr, scope, depth: int = 0) -> bool:
        """Whether a sleep expression draws at random (a catalog ``RANDOM_DRAWS`` call), directly
        or through a local bound once to one."""
        for node in expressions(expr):
            if isinstance(node, cst.Call) and self.ctx.qualname(node.func, scope) in cat.RANDOM_DRAWS:
                return True
            if isinstance(node, cst.Name) and depth < 4:
                inner, inner_scope = self._inline(node, scope)
                if inner is not node and self.jittered(inner, inner_scope, depth + 1):
                    return True
        return False

    def reads_retry_after(self, expr, scope, depth: int = 0) -> bool:
        """Whether a wait comes from the server: ``Retry-After`` or a rate-limit reset header,
        read directly, through a local assigned from one (on any branch), or returned by a
        function of this module that the wait calls (``_backoff_seconds(response, attempt)``)."""
        keywords = {id(a.keyword) for n in expressions(expr) if isinstance(n, cst.Call) for a in n.args
                    if a.keyword is not None}  # ``f(retry_after=None)`` names a parameter, reads nothing
        for node in expressions(expr):
            if isinstance(node, cst.SimpleString) and any(h in node.value.lower() for h in cat.SERVER_WAIT_HEADERS):
                return True
            if isinstance(node, cst.Attribute) and node.attr.value in ("retry_after", "reset", "reset_time"):
                return True
            if isinstance(node, cst.Name) and depth < 4 and id(node) not in keywords:
                for binding in self.ctx.lookup(node.value, scope) or ():
                    if binding.value is not None and binding.kind == "assign" and \
                            self.reads_retry_after(binding.value, binding.scope, depth + 1):
                        return True
            if isinstance(node, cst.Call) and depth < 4:
                returned = self._returned(node, scope)
                if returned and any(self.reads_retry_after(v, inner, depth + 1) for v, inner in returned):
                    return True
        return False

    def _returned(self, call: cst.Call, scope) -> List[Tuple[cst.BaseExpression, Scope]]:
        """``(value, the function's scope)`` of each ``return`` of the function of this module that
        ``call`` names (not of functions nested in it); empty when it names none."""
        func = self.local_def(call, scope)
        if func is None:
            return []
        inner = self.ctx.opened_scope(func.body, scope)
        return [(n.value, inner) for n in own_nodes(func.body) if isinstance(n, cst.Return) and n.value is not None]

    def _retry_after_params(self, call: cst.Call, scope) -> frozenset:
        """The parameters of the function ``call`` names that receive an argument reading the
        server's wait (``_backoff_seconds(attempt, retry_after)``)."""
        func = self.local_def(call, scope)
        if func is None:
            return frozenset()
        params = [p.name.value for p in list(func.params.posonly_params) + list(func.params.params)]
        if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            params = params[1:]
        out = set()
        for index, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
            if index < len(params) and self.reads_retry_after(arg.value, scope):
                out.add(params[index])
        out.update(a.keyword.value for a in call.args if a.keyword is not None and self.reads_retry_after(a.value, scope))
        return frozenset(out)

    def reaching_value(self, name: cst.Name, sleep: cst.Call, loop) -> Optional[cst.BaseExpression]:
        """The value ``name`` holds at ``sleep(name)`` in ``loop``'s body: that of the last plain
        assignment to it among the statements run before the sleep on its way there
        (``wait = min(wait, cap)`` after ``wait = retry_after``), or ``None`` when none is found
        or a compound statement on the way may bind it on one of its branches."""
        found = None
        for stmt in _statements_before(getattr(loop, "body", None), sleep):
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                            isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name.value:
                        found = small.value
            elif any(isinstance(n, cst.Name) and n.value == name.value and isinstance(p, (cst.AssignTarget, cst.AugAssign))
                     for p in own_nodes(stmt) for n in children(p)):
                found = None
        return found

    def retry_after_capped(self, expr, scope, depth: int = 0) -> bool:
        """Whether a sleep that reads Retry-After bounds it (``min(value, CAP)``, CAP a number, a
        constant or a parameter with a numeric default), on every binding of the names it goes
        through, or on every return of the function of this module it calls."""
        for node in expressions(expr):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "min":
                if any(is_number(self.ctx.value_of(a.value, scope)) or self._is_name_constant(a.value, scope)
                       or is_number(self.ctx.param_default(a.value, scope)) for a in node.args):
                    return True
        if isinstance(expr, cst.Call) and depth < 4:
            returned = self._returned(expr, scope)
            if returned:  # every return that carries the server's wait is capped
                given = self._retry_after_params(expr, scope)
                return all(self.retry_after_capped(v, inner, depth + 1) or
                           not (self.reads_retry_after(v, inner) or _depends_on(v, given, inner, self.ctx))
                           for v, inner in returned)
        if isinstance(expr, cst.Name) and depth < 4:
            reading = [b for b in self.ctx.lookup(expr.value, scope) or ()
                       if b.value is not None and self.reads_retry_after(b.value, b.scope)]
            return bool(reading) and all(self.retry_after_capped(b.value, b.scope, depth + 1) for b in reading)
        for node in expressions(expr):
            if isinstance(node, cst.Name) and node is not expr and depth < 4 and \
                    self.reads_retry_after(node, scope) and self.retry_after_capped(node, scope, depth + 1):
                return True
        return False

    def capped_before(self, loop, sleep: cst.Call, scope) -> bool:
        """Whether a give-up test bounds the sleep's value before it is slept: ``if wait > 20:
        raise ...`` (or ``return``/``break``), on the path to ``sleep(wait)``, with a known bound."""
        arg = sleep.args[0].value if sleep.args and not sleep.args[0].star else None
        if not isinstance(arg, cst.Name):
            return False
        for stmt in _statements_before(loop.body, sleep):
            if not (isinstance(stmt, cst.If) and isinstance(stmt.test, cst.Comparison) and always_leaves(stmt.body)
                    and len(stmt.test.comparisons) == 1):
                continue
            test, target = stmt.test, stmt.test.comparisons[0]
            if isinstance(test.left, cst.Name) and test.left.value == arg.value and \
                    isinstance(target.operator, (cst.GreaterThan, cst.GreaterThanEqual)):
                bound = target.comparator
            elif isinstance(target.comparator, cst.Name) and target.comparator.value == arg.value and \
                    isinstance(target.operator, (cst.LessThan, cst.LessThanEqual)):
                bound = test.left
            else:
                continue
            if _finite(self.ctx.value_of(bound, scope)) or self._is_name_constant(bound, scope):
                return True
        return False

    def _is_name_constant(self, expr, scope) -> bool:
        return isinstance(expr, cst.Name) and spelled_as_constant(expr.value)

    def max_value(self, expr, scope, var, k, depth: int = 0):
        """Largest value of a sleep expression when the loop variable is ``k`` (seconds)."""
        if depth > 8:
            return UNKNOWN
        if isinstance(expr, cst.Name):
            if expr.value == var:
                return float(k)
            inner, inner_scope = self._inline(expr, scope)
            if inner is expr:
                value = self.ctx.value_of(expr, scope)
                return float(value) if is_number(value) else UNKNOWN
            return self.max_value(inner, inner_scope, var, k, depth + 1)
        if isinstance(expr, (cst.Integer, cst.Float)):
            return float(expr.evaluated_value)
        if isinstance(expr, cst.Subscript) and var is not None and "[" in var and \
                source(expr).replace('"', "'") == var:
            return float(k)  # a counter spelled as a subscript (arq's ``ctx["job_try"]``)
        if isinstance(expr, cst.Attribute):  # ``settings.BASE_DELAY``: a constant of another module
            if var is not None and "." in var and source(expr) == var:
                return float(k)  # a counter spelled as an attribute (``self.request.retries``)
            value = self.ctx.value_of(expr, scope)
            return float(value) if is_number(value) else UNKNOWN
        if isinstance(expr, cst.BinaryOperation):
            left = self.max_value(expr.left, scope, var, k, depth + 1)
            right = self.max_value(expr.right, scope, var, k, depth + 1)
            value = arithmetic(expr.operator, left, right)
            return float(value) if is_number(value) else UNKNOWN
        if isinstance(expr, cst.Call):
            if self.reads_retry_after(expr, scope):
                return 0.0  # server-sent waits are left out of the worst case (RES206 covers them)
            qual = self.ctx.qualname(expr.func, scope)
            values = [self.max_value(a.value, scope, var, k, depth + 1) for a in expr.args if not a.keyword]
            if isinstance(expr.func, cst.Name) and expr.func.value in ("min", "max", "float", "int") and values:
                if any(v is UNKNOWN for v in values):
                    # min(x, CAP) is at most CAP even when x is unknown
                    if expr.func.value == "min":
                        known = [v for v in values if v is not UNKNOWN]
                        return min(known) if known else UNKNOWN
                    return UNKNOWN
                return {"min": min, "max": max, "float": float, "int": int}[expr.func.value](
                    values if expr.func.value in ("min", "max") else values[0])
            if qual in ("random.uniform", "random.randint", "random.triangular") and len(values) >= 2:
                return UNKNOWN if UNKNOWN in values[:2] else max(values[:2])
            if qual == "random.random":
                return 1.0
            return UNKNOWN
        return UNKNOWN

    def local_errors_only(self, handler, scope) -> bool:
        if handler.type is None:
            return False
        found = self._handler_types(handler.type, scope)
        if found is None:  # self.queue.Empty: judge by the name as written
            text = source(handler.type)
            found = [part.strip() for part in text.strip("()").split(",") if part.strip()]
        return bool(found) and all(t in cat.LOCAL_ERRORS or t.rsplit(".", 1)[-1].endswith(_WAIT_ERROR_SUFFIXES)
                                   for t in found)

    def _timed_wait(self, handler, tries, scope) -> bool:
        """``try: await asyncio.wait_for(event.wait(), timeout=slice) except TimeoutError: continue``:
        the timeout ends a slice of a wait for the process's own state (an event, a queue, a lock),
        it is no fault of a remote call."""
        if handler.type is None:
            return False
        found = self._handler_types(handler.type, scope)
        if not found or not all(t in cat.READ_TIMEOUT_ERRORS for t in found):
            return False
        attempt = next((t for t in tries if any(h is handler for h in t.handlers)), None)
        if attempt is None:
            return False
        calls = [n for n in own_nodes(attempt.body) if isinstance(n, cst.Call)]
        waits = [c for c in calls if self.ctx.qualname(c.func, scope) in cat.TIMED_WAITS]
        if not waits:
            return False
        local = set()
        for wait in waits:
            inner = wait.args[0].value if wait.args and not wait.args[0].keyword else None
            if not (isinstance(inner, cst.Await) or isinstance(inner, cst.Call)):
                return False
            inner = inner.expression if isinstance(inner, cst.Await) else inner
            if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and not inner.args
                    and inner.func.attr.value in cat.LOCAL_WAIT_METHODS):
                return False
            if inner.func.attr.value != "wait" and not self._local_primitive(inner.func.value, scope):
                return False  # ``pool.acquire()``, a broker's ``queue.get()``: they may go to the network
            local.add(id(inner))
        # nothing else in the try that could fail remotely: only the waits and what they await
        return all(id(c) in local or c in waits for c in calls)

    def _local_primitive(self, expr, scope) -> bool:
        """Whether ``expr`` is an asyncio or threading primitive or queue of this process: built
        here by one (``asyncio.Queue()``) or a parameter annotated as one."""
        built = self.ctx.constructor_of(expr, scope)
        if built is not None:
            return self.ctx.qualname(built.func, scope) in cat.LOCAL_PRIMITIVES
        if isinstance(expr, cst.Name):
            found = self.ctx.lookup(expr.value, scope)
            if found and len(found) == 1 and found[0].kind == "param" and isinstance(found[0].node, cst.Param):
                note = found[0].node.annotation
                return note is not None and any(
                    self.ctx.qualname(n, scope) in cat.LOCAL_PRIMITIVES for n in expressions(note.annotation)
                    if isinstance(n, (cst.Name, cst.Attribute)))
        return False

    def _handler_types(self, expr, scope) -> Optional[List[str]]:
        found = self.reader.exception_types(expr, scope)
        return list(found) if found is not None else None

    def _new_candidate(self, loop, tries, var, scope) -> bool:
        """Whether each pass tries something new: a name the loop body binds, before a try, to a
        random draw, ``next(...)``, an item picked with the loop variable or the next item
        of a queue or channel (:meth:`_takes_next_item`), is a positional argument of a call in that
        try (``s.bind(("", port))``, ``session.get(url)``, ``self.handle(task)``). A fresh key sent by
        keyword (``headers={"Idempotency-Key": key}``) does not make a search."""
        nodes = own_nodes(loop.body)  # in source order
        fresh: Dict[str, int] = {}  # name -> where it is first bound to something new
        for index, node in enumerate(nodes):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0].target, cst.Name) and self._draws(node.value, var, scope):
                fresh.setdefault(node.targets[0].target.value, index)
        if not fresh:
            return False
        for try_node in tries:
            # taken before the try: a name bound in it (``reply = ws.recv()`` after ``ws.send(...)``)
            # is part of the attempt, which is the same each pass
            start = next((i for i, n in enumerate(nodes) if n is try_node), len(nodes))
            names = {name for name, at in fresh.items() if at < start}
            if names and self._passes_positionally(try_node.body, names):
                return True
        return False

    def _draws(self, expr, var, scope) -> bool:
        """A random draw, ``next(...)``, the next item of a queue or channel, or a subscript with the
        loop variable, in ``expr``."""
        for node in expressions(expr):
            if isinstance(node, cst.Call):
                qual = self.ctx.qualname(node.func, scope)
                if qual in cat.RANDOM_DRAWS or (isinstance(node.func, cst.Name) and node.func.value == "next"
                                                and self.ctx.lookup("next", scope) is None):
                    return True
                if self._takes_next_item(node, scope):
                    return True
            if var is not None and isinstance(node, cst.Subscript) and any(
                    isinstance(n, cst.Name) and n.value == var for e in node.slice for n in expressions(e)):
                return True
        return False

    def _takes_next_item(self, call: cst.Call, scope) -> bool:
        """A call that takes the next item of work, with no positional argument: ``get``/``get_nowait``
        of a queue of this process (``asyncio.Queue``, ``queue.Queue``), or a method named so
        (``recv()``, ``dequeue()``, ``self._get_returned_task()``, ``broker.next_message()``:
        :data:`_NEXT_ITEM`): each pass of a loop that works on what it returns handles another item,
        so a failure is not retried."""
        func = call.func
        if not isinstance(func, cst.Attribute) or any(
                arg.keyword is None or arg.keyword.value not in _WAIT_KEYWORDS for arg in call.args):
            return False  # ``client.get_job(job_id)``, ``get_job(job_id=...)``: the one the caller names
        name = func.attr.value.lstrip("_")
        if name in ("get", "get_nowait"):
            return self._local_primitive(func.value, scope)
        return name in _NEXT_ITEM_METHODS or _NEXT_ITEM.fullmatch(name) is not None

    @staticmethod
    def _passes_positionally(body, names) -> bool:
        for node in own_nodes(body):
            if isinstance(node, cst.Call):
                for arg in node.args:
                    if arg.keyword is None and any(isinstance(n, cst.Name) and n.value in names
                                                   for n in expressions(arg.value)):
                        return True
        return False

    def _uses(self, body, names) -> bool:
        """Whether a call in ``body`` takes the loop variable as (part of) an argument, or the
        body indexes with it (``self.servers[i].connect()``: a failover over items). A sleep (and
        what computes its length: ``sleep(min(2 ** attempt, 10))``) and a log line that names the
        attempt are no use of it."""
        nodes = own_nodes(body)
        waits = {id(n) for node in nodes if isinstance(node, cst.Call) and self.ctx.qualname(node.func) in cat.SLEEPS
                 for n in expressions(node)}
        for node in nodes:
            if id(node) in waits or (isinstance(node, cst.Call) and logs(node)):
                continue
            if isinstance(node, cst.Call) and self.ctx.qualname(node.func) not in cat.SLEEPS:
                for arg in node.args:
                    if any(isinstance(n, cst.Name) and n.value in names for n in expressions(arg.value)):
                        return True
            elif isinstance(node, cst.Subscript) and any(
                    isinstance(n, cst.Name) and n.value in names for e in node.slice for n in expressions(e)):
                return True
        return False

    def grows_without_chance(self, arg, loop, counter: Optional[str], attempts, scope, short_s: float) -> bool:
        """A wait of unknown length that grows with the attempts by arithmetic alone: it reads the
        attempt number (``self.retry_delay * 2 ** attempt``) or a delay the loop steps itself
        (``delay *= 2``, ``delay = min(delay * 2, cap)``), and nothing in it, nor in the names it
        reads, comes from a call that could draw at random (only ``min``, ``max`` and the like).
        Its base is a parameter or an attribute, but every client sleeps the same schedule; not
        when every wait ``attempts`` reach stays under ``short_s`` seconds. ``counter``: the name
        that numbers the attempts; ``scope``: where the names resolve."""
        if not _pure(arg):
            return False
        reads = {n.value for n in expressions(arg) if isinstance(n, cst.Name)}
        stepped = set()
        for node in own_nodes(loop.body):
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and not _pure(node.value) and \
                    node.target.value in reads:
                return False  # ``delay += random.uniform(0, 1)``: drawn in the loop
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and \
                    isinstance(node.operator, _GROWTH) and _pure(node.value):
                stepped.add(node.target.value)
            elif isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                name = node.targets[0].target.value
                if _pure(node.value) and name in {n.value for n in expressions(node.value) if isinstance(n, cst.Name)}:
                    stepped.add(name)  # ``delay = min(delay * 2, cap)``
        if not ((counter is not None and counter in reads) or reads & stepped):
            return False
        if reads <= stepped and self._short_growth(arg, loop, attempts, scope, short_s):
            return False
        for name in reads - {counter}:
            for binding in self.ctx.lookup(name, scope) or ():
                if binding.kind in ("assign", "aug") and binding.value is not None and not _pure(binding.value):
                    return False  # ``delay = random.uniform(1, 2)`` before the loop: drawn per client
                if binding.kind in ("for", "with", "unpack", "other", "import"):
                    return False  # (an imported name the project pass could not read: nothing is guessed)
        return True

    def _short_growth(self, arg, loop, attempts, scope, short_s: float) -> bool:
        """``sleep(delay)`` where ``delay = 0.1`` before the loop and ``delay *= 2`` (or ``+=``) in
        it, with numbers: whether every wait the attempts reach stays below ``short_s`` seconds
        (the largest is the start stepped once per wait but the first)."""
        if not isinstance(arg, cst.Name) or not isinstance(attempts, int):
            return False
        steps = [n for n in own_nodes(loop.body) if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)
                 and n.target.value == arg.value]
        start = [b for b in self.ctx.lookup(arg.value, scope) or () if b.kind == "assign"]
        if len(steps) != 1 or len(start) != 1 or not isinstance(steps[0].value, (cst.Integer, cst.Float)) or \
                not isinstance(start[0].value, (cst.Integer, cst.Float)):
            return False
        value, step = float(start[0].value.evaluated_value), float(steps[0].value.evaluated_value)
        for _ in range(max(attempts - 2, 0)):
            if isinstance(steps[0].operator, cst.MultiplyAssign):
                value *= step
            elif isinstance(steps[0].operator, cst.AddAssign):
                value += step
            else:
                return False
            if value >= short_s:
                return False
        return value < short_s

    # -- endless polls ---------------------------------------------------------------------
    def endless_poll(self, loop, nodes, scope) -> Optional[RetryPolicy]:
        """The policy of a ``while`` loop that polls a remote call for a condition, with no
        deadline, no attempt count and no way out but that condition, or ``None``.

        ``while not s.get(url, timeout=5).ok: sleep(5)``, and ``while True:`` whose only exits
        (``break``, ``return``, a ``raise`` on a failed state) sit under tests of what the remote
        call returned (``if r.json()["state"] == "done": break``, or ``if not ready: sleep(2);
        continue`` before a ``break``). It catches no fault, so it is no retry, but when the
        condition never holds it waits forever (RES203). Read conservatively: the loop sleeps;
        it calls nothing but the remote call, sleeps, loggers, builtins and methods of what the
        call returned (a worker that handles what it fetches, ``handle(job)``, is no poll); it
        sends the same request each pass (a page cursor it rebinds makes a walk over pages); it
        has no nested loop and steps no counter that anything but its step, a sleep or a log line
        reads (:func:`_tested_counters`: ``attempt += 1`` kept for a log line is no bound); its condition and exit
        tests read nothing but the answer, names bound only from it, constants and builtins that
        compute a value (``tries < 10``, ``self.closed`` or ``expired`` may be a bound reslint
        cannot evaluate); and no clock bounds it."""
        if not isinstance(loop, cst.While) or loop.orelse is not None or \
                any(isinstance(n, (cst.For, cst.While)) for n in nodes):
            return None
        sleeps = [n for n in nodes if isinstance(n, cst.Call) and self.ctx.qualname(n.func, scope) in cat.SLEEPS]
        if not sleeps or _tested_counters(loop, nodes, sleeps):
            return None
        calls = [n for n in list(expressions(loop.test)) + nodes if isinstance(n, cst.Call)]
        remote = {id(c) for c in calls if self._remote_call(c, scope)}
        if not remote:
            return None
        in_requests = {id(n) for c in calls if id(c) in remote for n in expressions(c)}

        def of_the_answer(expr, names) -> bool:
            """``expr`` reads the answer (the remote call, or one of ``names``) and nothing else but
            constants: ``r.ok or i >= n`` also reads a bound."""
            if not any(id(n) in remote for n in expressions(expr)) and not _read_names(expr) & names:
                return False
            return all(id(n) in in_requests or n.value in names or self._fixed(n, scope)
                       for n in read_name_nodes(expr))

        polled = _derived_names(nodes, of_the_answer)

        def reads(expr) -> bool:  # what the remote call returned, directly or through a name bound to it
            return any(id(n) in remote for n in expressions(expr)) or bool(_read_names(expr) & polled)

        test = self.ctx.value_of(loop.test, scope)
        endless = test is True or (is_number(test) and bool(test))
        if not endless and not of_the_answer(loop.test, polled):
            return None  # ``while running:``, ``while not r.ok and tries < 10:``: another bound
        flows = list(_control_flow(loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()))
        if not all(tests is not None and all(of_the_answer(t, polled) for t in tests) for _, tests in flows):
            return None  # another way out (a stop flag, a count, a deadline) or a pass that ends the loop at once
        if endless and not any(isinstance(flow, _EXITS) for flow, _ in flows):
            return None  # a watch that runs until it fails, by design
        if not all(id(c) in remote or self._quiet_call(c, scope, reads) for c in calls):
            return None
        rebound = _bound_names(nodes)
        if any(_read_names(c) & rebound for c in calls if id(c) in remote):
            return None  # the request changes each pass (a page cursor): a walk, not a poll
        if self.time_cap(loop, nodes, scope)[0]:
            return None
        facts = LoopFacts(sleeps=tuple(sleeps), poll=True, bound=dict(self.ctx.param_values) or None)
        return RetryPolicy(POLLING, Role.LOOP, loop, attempts=None, max_delay_s=None,
                           wait=self.wait(sleeps, None, 0, scope), retried=Retried(RetriedKind.RESULT), loop=facts)

    def _fixed(self, name: cst.Name, scope) -> bool:
        """A name a poll's test may read besides the answer, for it cannot bound the loop: a
        literal (``None``), a constant string, number or tuple of them (``DONE = "done"``), or a
        builtin that computes a value (``len``). A flag, a counter or a deadline is none of them,
        nor is a constant ``bool``, which a ``global`` statement elsewhere may turn into a flag."""
        if name.value in ("None", "True", "False"):
            return True
        if name.value in _PURE_BUILTINS:
            return self.ctx.lookup(name.value, scope) is None
        return _constant(self.ctx.value_of(name, scope))

    def _remote_call(self, call: cst.Call, scope, depth: int = 0) -> bool:
        """A call that waits on a server: a request, query or model call the catalog times (not a
        subprocess), or a function of this module that makes one (two calls deep)."""
        from reslint.analysis.budget import call_time  # budget reads loops: imported when needed
        from reslint.analysis.timeouts import read_call_timeout

        # the timeout readers resolve names in the context's scope: the loop's, not the walk's
        with self.ctx.in_scope(scope):
            reading = read_call_timeout(call, self.ctx)
            if reading is not None:
                return reading.spec.category != "subprocess" and call_time(call, self.ctx) is not None
            if call_time(call, self.ctx) is not None:
                return True  # a request through a client that carries its timeout
        func = self.local_def(call, scope) if depth < 2 else None
        if func is None:
            return False
        key = ("remote-call", id(func), depth)
        if key not in self.ctx.cache:
            inner = self.ctx.opened_scope(func.body, scope)
            self.ctx.cache[key] = any(isinstance(n, cst.Call) and self._remote_call(n, inner, depth + 1)
                                      for n in own_nodes(func.body))
        return self.ctx.cache[key]

    def _quiet_call(self, call: cst.Call, scope, polled) -> bool:
        """A call a poll makes besides its remote call: a sleep, a logger, a builtin (``print``,
        ``len``), or a method of what the remote call returned (``r.json()``, ``state.lower()``)."""
        func = call.func
        if self.ctx.qualname(func, scope) in cat.SLEEPS:
            return True
        if isinstance(func, cst.Name):
            return bool(self.ctx.builtin(func, scope))
        if not isinstance(func, cst.Attribute):
            return False
        if func.attr.value in _LOG_METHODS:
            return True
        root = func.value
        while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
            if isinstance(root, cst.Call) and polled(root):
                return True
            root = root.func if isinstance(root, cst.Call) else root.value
        return isinstance(root, cst.Name) and polled(root)

    # -- errors raised on a rate limit ---------------------------------------------------
    def rate_limit_errors(self, body, scope, depth: int = 0) -> FrozenSet[str]:
        """The exception types ``body`` raises when a response says 429 (``if r.status_code ==
        429: raise RateLimited()``), also in the functions of this module it calls, two calls
        deep: the project's own rate-limit error, which a retry that catches it is aimed at
        (DESIGN "aimed at 429/503"). A branch that reads the server's wait (``raise
        RateLimited(r.headers["Retry-After"])``) hands it on to whoever catches the error: its
        error is left out."""
        key = ("rate-limit-errors", id(body), depth)
        if key in self.ctx.cache:
            return self.ctx.cache[key]
        found = set()
        for node in own_nodes(body):
            if isinstance(node, cst.If) and self._on_rate_limit(node.test, scope) and \
                    not self.reads_retry_after(node.body, scope):
                for raised in own_nodes(node.body):
                    if isinstance(raised, cst.Raise) and raised.exc is not None:
                        exc = raised.exc.func if isinstance(raised.exc, cst.Call) else raised.exc
                        found.update(self._handler_types(exc, scope) or ())
            elif isinstance(node, cst.Call) and depth < 2:
                func = self.local_def(node, scope)
                if func is not None:
                    inner = self.ctx.opened_scope(func.body, scope)
                    found |= self.rate_limit_errors(func.body, inner, depth + 1)
        self.ctx.cache[key] = frozenset(found)
        return self.ctx.cache[key]

    def _on_rate_limit(self, test, scope) -> bool:
        """A test that names 429 and holds for it (``r.status_code == 429``, ``resp.status in
        (429, 503)``), not one that holds for every failure (``r.status_code != 200``)."""
        named = _compared_statuses(expressions(test), self.ctx, scope)
        return 429 in named and _status_truth(test, 429, self.ctx, scope) is True

    def catches(self, caught: Sequence[str], raised: str, depth: int = 0) -> bool:
        """Whether an ``except`` (or a retry predicate) naming the ``caught`` types catches
        ``raised``: the same class, or a base of it among the classes of this module. A catch-all
        (``except Exception``) catches it too, but is aimed at nothing: not counted."""
        if raised in caught:
            return True
        local = self.ctx.model.classes.get(raised)
        if local is None or depth > 4:
            return False
        node, class_scope = local
        return any(self.catches(caught, base, depth + 1) for base in
                   (self.ctx.qualname(b.value, class_scope.parent) for b in node.bases) if base is not None)

    def _rate_limit_handlers(self, tries, handlers, scope) -> List[cst.ExceptHandler]:
        """The handlers among ``handlers`` that catch an error their try raises on a 429."""
        ids = {id(h) for h in handlers}
        out = []
        for attempt in tries:
            raised = self.rate_limit_errors(attempt.body, scope)
            for handler in attempt.handlers if raised else ():
                caught = self._handler_types(handler.type, scope) if handler.type is not None else None
                if id(handler) in ids and caught and any(self.catches(caught, r) for r in raised):
                    out.append(handler)
        return out

    # -- what is retried ----------------------------------------------------------------
    def retried(self, handlers, nodes, scope) -> Tuple[Retried, bool]:
        types: List[str] = []
        any_error = False
        for handler in handlers:
            if handler.type is None:
                any_error = True
                continue
            found = self._handler_types(handler.type, scope)
            if found is None:
                return Retried(RetriedKind.UNKNOWN), False
            types.extend(found)
            any_error = any_error or any(t in cat.CATCH_ALL for t in found)
        statuses = _compared_statuses(nodes, self.ctx, scope)
        aimed = bool(statuses & {429}) or any(t in cat.RATE_LIMIT_ERRORS for t in types)
        if any_error:
            broad = [h for h in handlers if h.type is None or any(t in cat.CATCH_ALL for t in
                                                                   self._handler_types(h.type, scope) or ())]
            # each broad handler tests the error and gives up on what it does not retry
            # (``if not is_transient(e): raise``, ``if isinstance(e, HTTPStatusError): break``)
            classified = bool(broad) and all(gives_up_on_some(h) for h in broad)
            return Retried(RetriedKind.ANY, tuple(types) or ("BaseException",), frozenset(statuses),
                           classified=classified), aimed
        if handlers:
            return Retried(RetriedKind.TYPES, tuple(types), frozenset(statuses), bool(statuses)), aimed
        return Retried(RetriedKind.STATUS, (), frozenset(statuses), True), aimed


def _gated_continue(handler: cst.ExceptHandler) -> Optional[cst.If]:
    """The ``if`` under which a handler that otherwise leaves goes round (``if attempt < n:
    sleep(...); continue`` then ``raise``), or ``None``."""
    body = handler.body.body if isinstance(handler.body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    if not body or not _statement_leaves(body[-1]):
        return None
    for stmt in body[:-1]:
        if isinstance(stmt, cst.If) and any(isinstance(n, cst.Continue) for n in nodes_within(stmt.body, _OWN_LOOP)):
            return stmt
    return None


#: builtins a wait may be computed with that draw nothing at random
_WAIT_ARITHMETIC = frozenset({"min", "max", "abs", "round", "int", "float", "pow"})
#: in-place steps that grow a delay (``delay *= 2``, ``delay += step``)
_GROWTH = (cst.MultiplyAssign, cst.AddAssign, cst.PowerAssign, cst.LeftShiftAssign)


def _pure(expr) -> bool:
    """Whether ``expr`` calls nothing but builtins that draw nothing (``min(delay * 2, cap)``)."""
    return all(not isinstance(n, cst.Call) or (isinstance(n.func, cst.Name) and n.func.value in _WAIT_ARITHMETIC)
               for n in expressions(expr))


def _conjuncts(test) -> List[cst.BaseExpression]:
    """The parts of ``a and b and c`` (the test itself when it is no ``and``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def gives_up_on_some(handler: cst.ExceptHandler) -> bool:
    """``except Exception as exc: if not is_transient(exc): raise``: the handler classifies the
    caught exception and re-raises (or returns, or breaks out on) what it does not retry, so it
    does not retry everything. The test may read the exception through a local derived from it
    (``decision = policy.evaluate(error=exc)``, ``text = str(exc).lower()``, ``status =
    exc.response.status_code``), then ``if not decision.retry: raise``."""
    if handler.name is None or not isinstance(handler.name.name, cst.Name):
        return False
    derived = {handler.name.name.value}
    nodes = _in_order(handler.body)
    for node in nodes:  # in source order: a local is derived before the test that reads it
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.NamedExpr)) and node.value is not None and \
                _reads(node.value, derived):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            derived.update(n.value for t in targets for n in expressions(t) if isinstance(n, cst.Name))
    for node in nodes:
        if isinstance(node, cst.If) and _reads(node.test, derived) and \
                any(isinstance(n, (cst.Raise, cst.Return, cst.Break)) for n in expressions(node)):
            return True
    # ``if is_deadlock(exc) and attempt < n: ...; continue`` then ``raise``: it goes round only on
    # what the test lets through (``should_retry = await self._on_conflict(error)``, then ``if should_retry:``)
    gate = _gated_continue(handler)
    return gate is not None and _reads(gate.test, derived)


#: exception types that ``except Exception:`` does not catch: a handler of one in front of a
#: catch-all separates nothing from it
_NOT_EXCEPTIONS = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit", "asyncio.CancelledError",
                             "asyncio.exceptions.CancelledError", "trio.Cancelled"})


def separated_before(handler: cst.ExceptHandler, root: cst.CSTNode, types_of) -> bool:
    """Whether an earlier handler of the ``try`` that holds ``handler`` (under ``root``, the retry
    loop or function) takes some errors out of the retry: it catches a named type and gives up on
    it, leaving the loop with its last statement (``raise``, ``return``, ``break``) or sorting
    the errors it caught at its top (``if e.response.status_code in (400, 404): raise``). ``except PermanentError: return None`` then
    ``except Exception:`` retries what is left once the author took out what no retry fixes.
    A handler of what ``except Exception`` would miss (``KeyboardInterrupt``), of a circuit
    breaker's open-circuit error (a signal to stop, not a class of errors), or of transient errors
    only (giving up on a timeout takes no bug or 4xx out of the catch-all) separates nothing.
    ``types_of(expr)``: the qualified names an ``except`` clause's type names, or ``None``."""
    for node in nodes_within(root, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if not isinstance(node, cst.Try) or handler not in node.handlers:
            continue
        for earlier in node.handlers[:node.handlers.index(handler)]:
            if earlier.type is None:
                continue
            types = types_of(earlier.type) or ()
            if not types or all(t in _NOT_EXCEPTIONS or t.rsplit(".", 1)[-1] in _NOT_EXCEPTIONS
                                or t in OPEN_ERRORS or _transient(t) for t in types):
                continue
            last = earlier.body.body[-1] if earlier.body.body else None
            leaves = isinstance(last, cst.SimpleStatementLine) and \
                any(isinstance(s, (cst.Raise, cst.Return, cst.Break)) for s in last.body)
            if leaves or _sorts_errors(earlier):
                return True
        return False
    return False


def _transient(name: str) -> bool:
    """Whether the exception type ``name`` (a qualified name) is a transient failure, or a subclass
    of one the catalog knows (``requests.ConnectTimeout`` of ``requests.Timeout``)."""
    return name in cat.TRANSIENT_NAMES or any(base in cat.TRANSIENT_NAMES for base in EXCEPTION_BASES.get(name, ()))


def _sorts_errors(handler: cst.ExceptHandler) -> bool:
    """Whether a statement at the top of ``handler``'s body is an ``if`` on the caught error (or a
    local derived from it) with a branch that leaves: ``if e.response.status_code in (400, 401):
    raise`` sorts the errors it caught. A test on the error nested under an attempt count
    (``if attempt == last: raise exc.__cause__ or exc``) only chooses what to raise at the end."""
    if handler.name is None or not isinstance(handler.name.name, cst.Name):
        return False
    derived = {handler.name.name.value}
    for statement in handler.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and _reads(small.value, derived):
                    derived.update(n.value for t in small.targets for n in expressions(t.target)
                                   if isinstance(n, cst.Name))
        elif isinstance(statement, cst.If) and _reads(statement.test, derived) and \
                any(isinstance(n, (cst.Raise, cst.Return, cst.Break)) for n in expressions(statement)):
            return True
    return False


def _read_names(expr) -> set:
    return {n.value for n in read_name_nodes(expr)}


def _constant(value) -> bool:
    """A known string, number (not a ``bool``) or tuple of them."""
    if isinstance(value, tuple):
        return all(_constant(v) for v in value)
    return isinstance(value, str) or is_number(value)


def _assigned(nodes) -> list:
    """``(target, value)`` for each ``=``, annotated ``=`` and ``:=`` among ``nodes``."""
    bindings = []
    for node in nodes:
        if isinstance(node, cst.Assign):
            bindings += [(t.target, node.value) for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.NamedExpr)) and node.value is not None:
            bindings.append((node.target, node.value))
    return bindings


def _target_names(target) -> set:
    """The names an assignment target rebinds (``a, *b = ...``); ``r.x = ...`` and ``d[k] = ...``
    change an object and rebind none."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def _derived_names(nodes, derived) -> set:
    """The names ``nodes`` bind (``=``, ``:=``) only to values ``derived(value, names)`` accepts,
    given the names found so far (``r = s.get(u)``, then ``state = r.json()["state"]``). A name
    also bound to a value it does not accept is not one (``done = r.ok or i >= n``)."""
    values: dict = {}
    for target, value in _assigned(nodes):
        for name in _target_names(target):
            values.setdefault(name, []).append(value)
    names: set = set()
    while True:
        found = {name for name, bound in values.items()
                 if name not in names and all(derived(value, names) for value in bound)}
        if not found:
            return names
        names |= found


def _next_item(value) -> bool:
    """``next(counter)``: the step of a counter drawn from an iterator."""
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "next"


def _stepped_names(nodes) -> set:
    """The names ``nodes`` rebind from their own value (``i += 1``, ``i = i + 1``, ``tries = tries
    - 1``), or to an iterator's next item (``attempt = next(counter)``): counters, which a test
    may compare with a bound."""
    stepped = {n.target.value for n in nodes if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name)}
    for target, value in _assigned(nodes):
        names = _target_names(target)
        if _next_item(value) or names & _read_names(value):
            stepped |= names
    return stepped


def _tested_counters(loop, nodes, sleeps) -> set:
    """The counters of ``loop`` (:func:`_stepped_names`) that something may compare with a bound:
    read by the loop's test or by its body anywhere but their own step (``i += 1``, ``i = i + 1``),
    a sleep's length (``sleep(2 ** attempt)``) or a log line, which count the attempts and bound
    nothing."""
    stepped = _stepped_names(nodes)
    if not stepped:
        return set()
    spared = set()  # ids of the nodes whose reads of a counter bound nothing
    for node in nodes:
        steps = (isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name)) or \
            (isinstance(node, cst.Assign) and (_read_names(node.value) & set().union(
                *(_target_names(t.target) for t in node.targets)) or _next_item(node.value)))
        if steps or any(node is s for s in sleeps) or (isinstance(node, cst.Call) and logs(node)):
            spared.update(id(n) for n in nodes_within(node))
    read = {n.value for n in list(expressions(loop.test)) + list(nodes)
            if isinstance(n, cst.Name) and n.value in stepped and id(n) not in spared}
    return read


def _bound_names(nodes) -> set:
    """Every name ``nodes`` bind (assignment targets, ``:=``, ``with ... as``, ``except ... as``)."""
    out = set()
    for node in nodes:
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, cst.AsName):
            targets = [node.name]
        out.update(n.value for t in targets for n in expressions(t) if isinstance(n, cst.Name))
    return out


def _control_flow(statements, tests=()):
    """``(statement, tests)`` for each ``return``, ``break``, ``raise`` and ``continue`` among
    ``statements`` (not in nested functions or loops), with the tests of the ``if``/``elif``
    branches around it (a ``case`` is a test of the ``match`` subject and of its guard); ``tests`` is ``None`` for one that no test guards and that no earlier
    test sends round first (a ``break`` after ``if not ready: ...; continue`` is guarded by
    ``not ready``)."""
    gate = ()
    for stmt in statements:
        if isinstance(stmt, cst.If):
            branch, test = stmt, ()
            while isinstance(branch, cst.If):
                test = test + (branch.test,)
                yield from _control_flow(_statements(branch.body), tests + test)
                branch = branch.orelse
            if branch is not None:
                yield from _control_flow(_statements(branch.body), tests + test)
            if not tests and stmt.orelse is None and _goes_round(stmt.body):
                gate = gate + (stmt.test,)
            continue
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                if isinstance(small, (cst.Return, cst.Break, cst.Raise, cst.Continue)):
                    yield small, (tests or gate or None)
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.For, cst.While)):
            continue
        if isinstance(stmt, cst.Match):  # each case is a test of the subject (and of its guard)
            for case in stmt.cases:
                test = (stmt.subject,) + ((case.guard,) if case.guard is not None else ())
                yield from _control_flow(_statements(case.body), tests + test)
            continue
        for block in statement_blocks(stmt):
            yield from _control_flow(_statements(block), tests)


def _goes_round(block) -> bool:
    """A block whose last statement is ``continue``."""
    body = _statements(block)
    last = body[-1] if body else None
    return isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and \
        isinstance(last.body[-1], cst.Continue)


def _in_order(node) -> list:
    """The nodes under ``node`` in source order (``expressions`` does not keep it)."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(children(current)))
    return out


def _reads(expr, names) -> bool:
    return any(isinstance(n, cst.Name) and n.value in names for n in expressions(expr))


def checks_response(test) -> bool:
    """A test of a response's status (``r.status_code``, ``r.status``, ``r.ok``, ``r.is_success``)."""
    return any(isinstance(n, cst.Attribute) and n.attr.value in ("status_code", "status", "ok", "is_success",
                                                                  "is_error")
               for n in expressions(test))


def _compared_statuses(nodes, ctx, scope) -> set:
    """The HTTP statuses the comparisons among ``nodes`` compare a status with (``r.status_code
    == 429``, ``resp.status in (500, 503)``), where they are known numbers."""
    statuses = set()
    for node in nodes:
        if isinstance(node, cst.Comparison) and _compares_http_status(node, ctx, scope):
            for target in node.comparisons:
                value = ctx.value_of(target.comparator, scope)
                if is_number(value):
                    statuses.add(int(value))
                elif isinstance(value, tuple):
                    statuses.update(int(v) for v in value if is_number(v))
    return statuses


def _mentions_status_code(node) -> bool:
    return any(isinstance(n, cst.Attribute) and n.attr.value in ("status_code", "status") for n in expressions(node))


def _compares_http_status(node: cst.Comparison, ctx, scope) -> bool:
    """``resp.status_code != 429``, ``r.status in (500, 503)``: an HTTP status (a number 100-599),
    not a job state such as ``job.status != "RUNNING"``."""
    if not _mentions_status_code(node):
        return False
    for target in node.comparisons:
        value = ctx.value_of(target.comparator, scope)
        values = value if isinstance(value, tuple) else (value,)
        if any(is_number(v) and 100 <= v <= 599 for v in values):
            return True
        if isinstance(target.comparator, (cst.Set, cst.Tuple, cst.List, cst.Name)):
            expr, inner_scope = ctx.resolve(target.comparator, scope)
            if isinstance(expr, (cst.Set, cst.Tuple, cst.List)) and any(
                    is_number(ctx.value_of(e.value, inner_scope)) for e in expr.elements if isinstance(e, cst.Element)):
                return True
    return False


def try_of(handler: cst.ExceptHandler, within) -> Optional[cst.Try]:
    """The ``try`` of ``within`` (a loop or a function, not its nested ones) that ``handler`` belongs to."""
    return next((n for n in own_nodes(within) if isinstance(n, cst.Try) and any(h is handler for h in n.handlers)),
                None)


def is_raise_for_status(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
        node.func.attr.value == "raise_for_status"


#: the client errors no retry fixes (4xx but 408, 425 and 429), which ``raise_for_status()`` turns
#: into an exception
FATAL_4XX = frozenset(range(400, 500)) - cat.TRANSIENT_4XX


def unguarded_raise_for_status(body, ctx, scope, in_try: bool = False) -> bool:
    """Whether a ``raise_for_status()`` in ``body`` can be reached by a 4xx that no retry fixes.

    A status check in front of it decides which statuses get there: ``if r.status_code not in
    RETRIED: return r`` (or ``continue``, ``raise``) leaves only the retried ones, and
    ``if r.status_code >= 500: r.raise_for_status()`` raises for 5xx only. A status check
    reslint cannot evaluate (a set held in an attribute) counts as such a guard: an unknown
    value is never the fault. ``in_try``: only calls inside a ``try`` body count (a loop retries
    what its handlers catch)."""
    return _reaches(_statements(body), FATAL_4XX, ctx, scope, in_try, not in_try)


def statuses_raising(body, statuses: FrozenSet[int], ctx, scope) -> Dict[int, Optional[FrozenSet[int]]]:
    """For each ``raise`` statement of ``body`` (keyed by the id of its ``cst.Raise``, nested
    functions and classes left out): which of ``statuses`` certainly reach it, as the status checks
    around it (``if r.status_code == 400: raise BadRequest()``) and the ones in front of it that
    leave (``if r.ok: return r``) decide; ``None`` when no status check stands on its way, so the
    raise does not depend on a status reslint can read. A check reslint cannot evaluate for a
    status (``r.status_code in self.retried``, ``and`` with a test of something else) lets that
    status through to neither side: a status counts only where it is sure to get there."""
    if isinstance(body, (cst.FunctionDef, cst.ClassDef)):
        body = body.body
    out: Dict[int, Optional[FrozenSet[int]]] = {}
    _raise_reach(_statements(body), frozenset(statuses), False, ctx, scope, out)
    return out


def _raise_reach(statements, reach: FrozenSet[int], tested: bool, ctx, scope, out) -> None:
    """Record in ``out`` what reaches each raise of ``statements`` (see :func:`statuses_raising`);
    ``tested``: a status check already stands on the way."""
    for stmt in statements:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, cst.If) and checks_response(stmt.test):
            truth = {s: _status_truth(stmt.test, s, ctx, scope) for s in reach}
            taken = frozenset(s for s, v in truth.items() if v is True)
            passed = frozenset(s for s, v in truth.items() if v is False)
            _raise_reach(_statements(stmt.body), taken, True, ctx, scope, out)
            if stmt.orelse is not None:
                _raise_reach(_statements(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else) else [stmt.orelse],
                             passed, True, ctx, scope, out)
            body_leaves = _leaves(stmt.body)
            else_leaves = isinstance(stmt.orelse, cst.Else) and _leaves(stmt.orelse.body)
            if body_leaves or else_leaves:  # a guard: only the statuses sure to pass it go on
                reach = (frozenset() if body_leaves and else_leaves else passed if body_leaves else taken)
                tested = True
            continue
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                if isinstance(small, cst.Raise):
                    out[id(small)] = reach if tested else None
            continue
        if isinstance(stmt, cst.If):  # an ``elif`` is an ``If`` of its own, which may test a status
            _raise_reach(_statements(stmt.body), reach, tested, ctx, scope, out)
            if stmt.orelse is not None:
                _raise_reach(_statements(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else) else [stmt.orelse],
                             reach, tested, ctx, scope, out)
            continue
        for block in statement_blocks(stmt):
            _raise_reach(_statements(block), reach, tested, ctx, scope, out)


def _statements(block) -> list:
    if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return list(block.body)
    if isinstance(block, cst.Module):
        return list(block.body)
    return [block]


def _reaches(statements, reach, ctx, scope, need_try: bool, in_try: bool) -> bool:
    for stmt in statements:
        if not reach:
            return False
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, cst.If) and _mentions_status_code(stmt.test):
            truth = {s: _status_truth(stmt.test, s, ctx, scope) for s in reach}
            if any(v is None for v in truth.values()):
                return False  # a status check reslint cannot read: the author chose what gets through
            taken = frozenset(s for s, v in truth.items() if v)
            if _reaches(_statements(stmt.body), taken, ctx, scope, need_try, in_try):
                return True
            if stmt.orelse is not None and _reaches(_statements(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else)
                                                    else [stmt.orelse], reach - taken, ctx, scope, need_try, in_try):
                return True
            if _leaves(stmt.body):
                reach = reach - taken
            if stmt.orelse is not None and isinstance(stmt.orelse, cst.Else) and _leaves(stmt.orelse.body):
                reach = reach & taken
            continue
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            if _reaches(_statements(stmt.body), reach, ctx, scope, need_try, True):
                return True
            blocks = [h.body for h in stmt.handlers] + [b.body for b in (stmt.orelse, stmt.finalbody) if b is not None]
            if any(_reaches(_statements(b), reach, ctx, scope, need_try, in_try) for b in blocks):
                return True
            continue
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            if (in_try or not need_try) and any(is_raise_for_status(n) for n in expressions(stmt)):
                return True
            continue
        if isinstance(stmt, cst.If):
            if _reaches(_statements(stmt.body), reach, ctx, scope, need_try, in_try):
                return True
            if stmt.orelse is not None and _reaches(_statements(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else)
                                                    else [stmt.orelse], reach, ctx, scope, need_try, in_try):
                return True
            continue
        body = getattr(stmt, "body", None)
        if body is not None and _reaches(_statements(body), reach, ctx, scope, need_try, in_try):
            return True  # with, for, while, match cases are read as they come
        if isinstance(stmt, cst.Match) and any(_reaches(_statements(c.body), reach, ctx, scope, need_try, in_try)
                                               for c in stmt.cases):
            return True
    return False


def _leaves(block) -> bool:
    """Whether a block always leaves the statements after it (return, raise, break, continue)."""
    body = _statements(block)
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(s, (cst.Raise, cst.Return, cst.Break, cst.Continue)) for s in last.body)
    if isinstance(last, cst.If) and isinstance(last.orelse, cst.Else):
        return _leaves(last.body) and _leaves(last.orelse.body)
    return False


def _status_truth(test, status: int, ctx, scope):
    """Whether the condition ``test`` holds when the response's status is ``status``
    (True/False), or ``None`` when it cannot be told."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _status_truth(test.expression, status, ctx, scope)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left = _status_truth(test.left, status, ctx, scope)
        right = _status_truth(test.right, status, ctx, scope)
        if isinstance(test.operator, cst.And):
            if left is False or right is False:
                return False
            return None if left is None or right is None else True
        if left is True or right is True:
            return True
        return None if left is None or right is None else False
    if isinstance(test, cst.Attribute) and test.attr.value in ("ok", "is_success"):
        return status < 400
    if isinstance(test, cst.Attribute) and test.attr.value in ("is_error", "is_client_error"):
        return status >= 400
    if not isinstance(test, cst.Comparison):
        return None
    operands = [test.left] + [c.comparator for c in test.comparisons]
    values = [_operand(o, status, ctx, scope) for o in operands]
    if any(v is None for v in values):
        return None
    for (left, right), target in zip(zip(values, values[1:]), test.comparisons):
        result = _compare(target.operator, left, right)
        if result is None:
            return None
        if not result:
            return False
    return True


def _operand(expr, status: int, ctx, scope):
    """A comparison operand: the status itself, a number, or a collection of numbers."""
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("status_code", "status"):
        return status
    if isinstance(expr, (cst.Set, cst.Tuple, cst.List)):
        values = [ctx.value_of(e.value, scope) for e in expr.elements if isinstance(e, cst.Element)]
        return frozenset(values) if values and all(is_number(v) for v in values) else None
    value = ctx.value_of(expr, scope)
    if is_number(value):
        return value
    if isinstance(value, tuple) and all(is_number(v) for v in value):
        return frozenset(value)
    if isinstance(expr, cst.Name):
        resolved, inner = ctx.resolve(expr, scope)
        if resolved is not expr:
            return _operand(resolved, status, ctx, inner)
    return None


def _compare(operator, left, right):
    numbers = is_number(left) and is_number(right)
    if isinstance(operator, (cst.In, cst.NotIn)):
        if not (is_number(left) and isinstance(right, frozenset)):
            return None
        return (left in right) == isinstance(operator, cst.In)
    if not numbers:
        return None
    table = {cst.Equal: left == right, cst.NotEqual: left != right, cst.LessThan: left < right,
             cst.LessThanEqual: left <= right, cst.GreaterThan: left > right, cst.GreaterThanEqual: left >= right}
    return table.get(type(operator))
