"""Code that never runs is not reported: a function or method that the same body defines again
further down (Ruff's F811). Judged on real code: two retry findings in a method a class of
langgraph defines twice were false."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.semantics.walk import dead_definitions, overwritten_values
from tests.linting import rows

HEAD = "import requests\n\n\n"


def dead(source: str):
    return [f.name.value for f in dead_definitions(cst.parse_module(textwrap.dedent(source)))]


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    pass\n\n\ndef f():\n    pass\n", ["f"]),
    ("class A:\n    def f(self):\n        pass\n\n    def f(self):\n        pass\n", ["f"]),
    # a property and its setter, an overload, a singledispatch registration: all run
    ("class A:\n    @property\n    def p(self):\n        pass\n\n    @p.setter\n    def p(self, v):\n        pass\n", []),
    ("@overload\ndef f(x: int): ...\n\n\ndef f(x): ...\n", []),
    ("@f.register\ndef _(x: int): ...\n\n\n@f.register\ndef _(x: str): ...\n", []),
    # a decorator that may register the first one (a route), a use in between, a conditional one
    ("@app.route('/a')\ndef view():\n    pass\n\n\n@app.route('/b')\ndef view():\n    pass\n", []),
    ("def f():\n    pass\n\n\ng = f\n\n\ndef f():\n    pass\n", []),
    ("if X:\n    def f():\n        pass\n\n\ndef f():\n    pass\n", []),
    ("def f():\n    pass\n\n\ndef g(x=f):\n    pass\n\n\ndef f():\n    pass\n", []),
    # a staticmethod defined twice is still dead
    ("class A:\n    @staticmethod\n    def f():\n        pass\n\n    def f(self):\n        pass\n", ["f"]),
])
def test_dead_definitions(source, expected):
    assert dead(source) == expected


def test_findings_in_a_method_defined_again_are_not_reported_and_the_live_one_is(tmp_path):
    body = '''\
    class Client:
        def fetch(self, url):
            return requests.get(url)

        def fetch(self, url):
            return requests.get(url)

        @property
        def status(self):
            return requests.get("https://x.invalid/status")

        @status.setter
        def status(self, value):
            requests.post("https://x.invalid/status", json=value)
    '''
    assert rows(Linter(Settings(root=tmp_path, select=("RES101",))), HEAD, body) == [(6, "RES101"), (10, "RES101"),
                                                                       (14, "RES101")]


@pytest.mark.parametrize("source", [
    # a class body between the two runs the first: ``values = load()`` at class creation
    "def load():\n    pass\n\n\nclass Settings:\n    values = load()\n\n\ndef load():\n    pass\n",
    # a module-level call between may reach it indirectly
    "def warm():\n    pass\n\n\ndef start():\n    warm()\n\n\nstart()\n\n\ndef warm():\n    pass\n",
])
def test_a_call_run_between_the_definitions_keeps_the_first_alive(source):
    assert dead(source) == []


def test_a_directive_in_code_that_never_runs_is_not_called_unused(tmp_path):
    """Its finding is dropped with the dead function, so RES900 would call the directive unused
    (and its fix would remove it from code that may come alive again); a directive in live code
    that suppresses nothing is still reported."""
    body = '''\
    class Client:
        @staticmethod
        def fetch(url):
            # noqa: RES101
            return requests.get(url)  # noqa: RES101

        def fetch(self, url):
            return requests.get(url)  # noqa: RES101

        def ping(self):
            return 1  # noqa: RES101
    '''
    assert rows(Linter(Settings(root=tmp_path)), HEAD, body) == [(11, "RES900")]


def test_a_file_directive_still_suppresses_beside_dead_code(tmp_path):
    body = '''\
    # reslint: noqa: RES101
    def fetch(url):
        return requests.get(url)


    def fetch(url):
        return requests.get(url)
    '''
    assert rows(Linter(Settings(root=tmp_path)), HEAD, body) == []


def test_a_recursion_error_while_parsing_is_one_syntax_finding(tmp_path, monkeypatch):
    import reslint.engine.filepass as filepass

    def deep(*args, **kwargs):
        raise RecursionError

    monkeypatch.setattr(filepass, "_unvalidated_parse", deep)
    found, errors = Linter(Settings(root=tmp_path)).lint_text("import requests\nrequests.get('http://x')\n", "m.py")
    assert errors == [] and [f.code for f in found] == ["RES000"]


@pytest.mark.parametrize("source, expected", [
    # the next statement binds the name again without reading it: the first value is never used
    ("m = A()\nm = B(model='x')\n", ["A()"]),
    ("def f():\n    m: A = A()\n    m = B()\n    return m\n", ["A()"]),
    ("if x:\n    m = A()\n    m = B()\n", ["A()"]),
    # read by the next value, a statement between, another target, a chained or tuple assignment
    ("m = A()\nm = m.with_retry()\n", []),
    ("m = A()\nprint(m)\nm = B()\n", []),
    ("m = A()\nn = B()\n", []),
    ("m = n = A()\nm = B()\n", []),
    ("m, n = A(), C()\nm = B()\n", []),
    ("m = A()\nm += B()\n", []),
])
def test_overwritten_values(source, expected):
    module = cst.parse_module(source)
    ids = overwritten_values(module)
    assert [module.code_for_node(n) for n in walk_all(module) if id(n) in ids] == expected


def walk_all(module):
    from reslint.semantics.walk import nodes_within

    return [n for n in nodes_within(module, stop=())]


def test_a_client_overwritten_before_any_use_needs_no_timeout(tmp_path):
    """Judged on real code: a chat model bound and bound again on the next line was reported, and
    its finding was false (it never sends a request). A call that runs, and a client that
    connects when it is built, still wait however their result is used."""
    body = '''\
    import imaplib

    import openai


    def pick(url, host):
        client = openai.OpenAI()
        client = openai.OpenAI(timeout=20)
        r = requests.get(url)
        r = requests.get(url, timeout=5)
        box = imaplib.IMAP4_SSL(host)
        box = None
        return client, r, box
    '''
    assert rows(Linter(Settings(root=tmp_path, select=("RES101",))), HEAD, body) == [(9, "RES101"), (11, "RES101")]
