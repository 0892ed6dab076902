"""RES105 deadline-not-propagated on small programs, its fix, its option, and RES101's fix in a gRPC servicer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.config import ConfigError, Settings, settings_from_table
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from reslint.engine.runner import Runner

HEAD = """\
import demo_pb2_grpc
import grpc
import requests

session = requests.Session()
stub = demo_pb2_grpc.CatalogStub(grpc.insecure_channel("catalog:1"))
"""


def _run(tmp_path: Path, body: str, settings: Settings):
    (tmp_path / "app.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    run = Runner(settings, use_cache=False).run([tmp_path / "app.py"])
    assert run.errors == []
    offset = HEAD.count("\n")
    return sorted((f.location.row - offset, f.code, f.message) for r in run.results for f in r.findings)


def findings(tmp_path: Path, body: str, select=("RES105",)):
    return _run(tmp_path, body, Settings(root=tmp_path, select=select))


def codes(tmp_path, body, select=("RES105",)):
    return [(row, code) for row, code, _ in findings(tmp_path, body, select)]


@pytest.mark.parametrize("body, expected", [
    # an ignored budget, and the same function reading it
    ("def f(u, timeout_s):\n    return session.get(u, timeout=10)\n", [(2, "RES105")]),
    ("def f(u, timeout_s):\n    session.get(u, timeout=10)\n    log(timeout_s)\n", []),
    # a lambda or a nested function reading it counts as a read
    ("def f(u, timeout):\n    g = lambda: timeout\n    return session.get(u, timeout=10)\n", []),
    # keyword-only, with a default
    ("def f(u, *, request_timeout=30):\n    return session.get(u, timeout=10)\n", [(2, "RES105")]),
    # not a budget name; `self` is never one; a count of what remains is no time budget
    ("def f(u, retries=3):\n    return session.get(u, timeout=10)\n", []),
    ("def f(u, retries_remaining=3, remaining_attempts=2):\n    return session.get(u, timeout=10)\n", []),
    ("def f(u, remaining_s):\n    return session.get(u, timeout=10)\n", [(2, "RES105")]),
    # a constant followed through a module constant; an unknown timeout is not a constant
    ("T = 7\ndef f(u, timeout):\n    return session.get(u, timeout=T)\n", [(3, "RES105")]),
    ("def f(u, timeout, t):\n    return session.get(u, timeout=t)\n", []),
    # poll slices: at most 1 s inside a loop; a longer constant in a loop is reported
    ("def f(u, timeout):\n    while True:\n        session.get(u, timeout=1)\n", []),
    ("def f(u, timeout):\n    while True:\n        session.get(u, timeout=5)\n", [(3, "RES105")]),
    # outside a loop, 1 s is a fixed timeout like any other; 0 never blocks
    ("def f(u, timeout):\n    return session.get(u, timeout=1)\n", [(2, "RES105")]),
    ("def f(u, timeout):\n    return session.get(u, timeout=0)\n", []),
    # a call with no timeout is RES101's
    ("def f(u, timeout):\n    return session.get(u)\n", []),
    # module level and class level have no budget
    ("session.get('https://x.invalid', timeout=10)\n", []),
    # helpers: followed through the module, three calls deep at most; one with a budget is judged alone
    ("def g(u):\n    return session.get(u, timeout=10)\n\n\ndef f(u, timeout):\n    return g(u)\n", [(6, "RES105")]),
    ("def h(u):\n    return session.get(u, timeout=10)\n\n\ndef g(u):\n    return h(u)\n\n\n"
     "def f(u, timeout):\n    return g(u)\n", [(10, "RES105")]),
    ("def g(u, timeout=5):\n    return session.get(u, timeout=timeout)\n\n\ndef f(u, timeout):\n    return g(u)\n",
     []),
    ("def g(u):\n    return g(u)\n\n\ndef f(u, timeout):\n    return g(u)\n", []),  # recursion ends
])
def test_budgets(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


def test_the_message_names_the_budget_the_call_and_the_fix(tmp_path):
    ((_, _, message),) = findings(tmp_path, "def quote(u, timeout_s):\n    return session.get(u, timeout=10)\n")
    assert message == ("`quote` is given a time budget (`timeout_s`) but calls `requests.Session.get` with a fixed "
                       "`timeout=10`: when the caller gives up first, this call keeps waiting (holding a connection "
                       "and a worker) for an answer no one will read; pass what is left of it: "
                       "`timeout=min(10, timeout_s)`")
    body = "def g(u):\n    return session.get(u, timeout=10)\n\n\ndef f(u, timeout):\n    return g(u)\n"
    ((_, _, message),) = findings(tmp_path, body)
    assert message.startswith("`f` is given a time budget (`timeout`) but calls `g`, which calls "
                              "`requests.Session.get` with a fixed `timeout=10`")


SERVICER = """\
class Catalog(demo_pb2_grpc.CatalogServicer):
    def Get(self, request, context):
        {body}
"""


@pytest.mark.parametrize("body, expected", [
    ("return stub.Get(request, timeout=30)", [(3, "RES105")]),
    # methods that do not read the deadline
    ("context.set_code(grpc.StatusCode.OK)\n        return stub.Get(request, timeout=30)", [(4, "RES105")]),
    ("return stub.Get(request, timeout=context.time_remaining())", []),
    ("return helper(request, context)", []),  # handed on
    ("return stub.Get(request)", [(3, "RES101")]),
])
def test_grpc_servicers(tmp_path, body, expected):
    assert codes(tmp_path, SERVICER.format(body=body), select=("RES101", "RES105")) == expected


def test_a_servicer_helper_is_no_rpc_method(tmp_path):
    body = ("class Catalog(demo_pb2_grpc.CatalogServicer):\n    def _get(self, request, context):\n"
            "        return stub.Get(request, timeout=30)\n\n    def load(self, request, retries):\n"
            "        return stub.Get(request, timeout=30)\n")
    assert codes(tmp_path, body) == []
    # not a servicer: a class of its own
    assert codes(tmp_path, "class Catalog:\n    def Get(self, request, context):\n"
                           "        return stub.Get(request, timeout=30)\n") == []


def _fix(tmp_path, body, select):
    text = HEAD + textwrap.dedent(body)
    outcome = fix_text(Linter(Settings(root=tmp_path, select=select)), text, "app.py", unsafe=True)
    assert outcome.error is None
    return None if outcome.text is None else outcome.text[len(HEAD):]


@pytest.mark.parametrize("body, fixed", [
    ("def f(u, timeout_s):\n    return session.get(u, timeout=10)\n",
     "def f(u, timeout_s):\n    return session.get(u, timeout=min(10, timeout_s))\n"),
    ("def f(u, timeout: float = 5.0):\n    return session.get(u, timeout=10)\n",
     "def f(u, timeout: float = 5.0):\n    return session.get(u, timeout=min(10, timeout))\n"),
    # no fix: None is possible, a point in time, another unit, a tuple, two budgets, a helper
    ("def f(u, timeout=None):\n    return session.get(u, timeout=10)\n", None),
    ("def f(u, timeout: Optional[float] = 5):\n    return session.get(u, timeout=10)\n", None),
    ("def f(u, deadline):\n    return session.get(u, timeout=10)\n", None),
    ("def f(u, timeout_ms):\n    return session.get(u, timeout=10)\n", None),
    ("def f(u, timeout):\n    return session.get(u, timeout=(3.05, 10))\n", None),
    ("def f(u, timeout, budget):\n    return session.get(u, timeout=10)\n", None),
    ("def g(u):\n    return session.get(u, timeout=10)\n\n\ndef f(u, timeout):\n    return g(u)\n", None),
])
def test_res105_fix(tmp_path, body, fixed):
    assert _fix(tmp_path, body, ("RES105",)) == fixed
    if fixed is not None:
        assert _fix(tmp_path, fixed, ("RES105",)) is None  # clean after the fix: a second run changes nothing


def test_res101_passes_the_servicer_deadline_on(tmp_path):
    body = SERVICER.format(body="return stub.Get(request)")
    ((_, _, message),) = findings(tmp_path, body, select=("RES101",))
    assert message.endswith("pass the caller's deadline on, `timeout=context.time_remaining()`")
    assert _fix(tmp_path, body, ("RES101",)) == SERVICER.format(
        body="return stub.Get(request, timeout=context.time_remaining())")
    # outside a servicer the fix stays the default timeout
    assert _fix(tmp_path, "def f(request):\n    return stub.Get(request)\n", ("RES101",)) == \
        "def f(request):\n    return stub.Get(request, timeout=10)\n"


def test_budget_parameters_option(tmp_path):
    table = {"rules": {"deadline-not-propagated": {"budget-parameters": ["time_budget"]}}}
    settings = settings_from_table(table, tmp_path, None)
    assert settings.rule_options == {"RES105": {"budget-parameters": ("time_budget",)}}
    body = ("def f(u, time_budget):\n    return session.get(u, timeout=10)\n\n\n"
            "def g(u, timeout):\n    return session.get(u, timeout=10)\n")
    from dataclasses import replace
    assert [(r, c) for r, c, _ in _run(tmp_path, body, replace(settings, select=("RES105",)))] == [(2, "RES105")]


@pytest.mark.parametrize("value", ["timeout", [1], [""], None])
def test_budget_parameters_must_be_a_list_of_names(tmp_path, value):
    with pytest.raises(ConfigError, match="budget-parameters` must be a list of non-empty strings"):
        settings_from_table({"rules": {"RES105": {"budget-parameters": value}}}, tmp_path, None)


@pytest.mark.parametrize("body, expected", [
    # a server stream a generator yields from, opened again when it fails: a subscription, which a
    # deadline would end
    ("async def paid():\n    while True:\n        try:\n            async for event in stub.Subscribe(request):\n"
     "                yield event\n        except grpc.RpcError:\n            await asyncio.sleep(5)\n", []),
    # the same with no reconnect: a finite stream (an export) that may stall forever
    ("def export():\n    for row in stub.ListRows(request):\n        yield row\n",
     [(2, "RES101", "`stub.ListRows`")]),
    # the same stream read to its end (no event handed on while it is open): a call like any other
    ("async def paid():\n    async for event in stub.Subscribe(request):\n        print(event)\n",
     [(2, "RES101", "`stub.Subscribe`")]),
    # a unary call in a generator: its answer may never come
    ("def paid():\n    yield stub.GetInvoice(request)\n", [(2, "RES101", "`stub.GetInvoice`")]),
])
def test_a_grpc_server_stream_that_a_generator_yields_from_is_a_subscription(tmp_path, body, expected):
    """The finding names the stub method as written, not the catalog's pattern for gRPC stubs."""
    found = findings(tmp_path, body, select=("RES101",))
    assert [(row, code, message.split(" ", 1)[0]) for row, code, message in found] == expected
