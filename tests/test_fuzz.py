"""Fuzzing (issue 7): generated programs never crash reslint, and every fix leaves valid code.

Two strategies:

* ``hypothesmith.from_grammar()``: programs drawn from Python's grammar (odd
  whitespace, form feeds, ``\\r``, non-ASCII comments, every statement form). They
  rarely import a library reslint knows, so they exercise the parser, the semantic
  model and the rules' visitors rather than the fixes.
* spliced programs: real resilience code (the functions of the shared annotated
  cases in ``tests/fixtures/cases/``, and templates for requests, httpx, aiohttp,
  boto3, subprocess, tenacity, backoff and hand-rolled retry loops, with generated
  argument expressions) placed into a generated program, in varied contexts (module
  level, a function, an async function, a method, ``if``/``with``/``try`` blocks) and
  layouts (LF or CRLF, spaces or tabs), so that the fixes actually fire.

Properties, for each program that Python compiles:

1. linting never raises and never reports an internal error;
2. a ``RES000`` on such a program can only say that LibCST (not Python) rejects it;
3. every fix offered, applied with ``reslint.engine.fixer.fix_text(..., unsafe=True)``, is
   applied without the fixer reverting it, and leaves code that ``compile()`` accepts;
4. fixing is stable: fixing the fixed code again changes nothing;
5. a fix never makes a function refer to a different object: every name a fix adds to a
   function, class or comprehension scope resolves to a module global, a builtin or an
   import, never to a parameter or a local variable that happens to have that name.

CI runs a bounded number of examples per test (30). For a longer local run set
``RESLINT_FUZZ_EXAMPLES``, e.g. ``RESLINT_FUZZ_EXAMPLES=2000 python -m pytest
tests/test_fuzz.py``; Hypothesis prints the failing program, shrunk, with a
``@reproduce_failure`` line to replay it.
"""

from __future__ import annotations

import ast
import os
import re
import symtable
import textwrap
import warnings
from pathlib import Path
from typing import List, Tuple

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, assume, event, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from reslint.config import Settings  # noqa: E402
from reslint.engine.filepass import Linter  # noqa: E402
from reslint.engine.fixer import fix_text  # noqa: E402

CASES = Path(__file__).resolve().parent / "fixtures" / "cases"
EXAMPLES = int(os.environ.get("RESLINT_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="RESLINT_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large], print_blob=True)


@pytest.fixture(scope="module")
def linter(tmp_path_factory) -> Linter:
    return Linter(Settings(root=tmp_path_factory.mktemp("fuzz")))


def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for `1[0]` and the like
        try:
            compile(text, "fuzz.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _note(text: str) -> None:
    """Hypothesis's ``note``, also callable from a plain test (the regression tests below)."""
    try:
        note(text)
    except hypothesis.errors.InvalidArgument:
        pass


def _event(text: str) -> None:
    try:
        event(text)
    except hypothesis.errors.InvalidArgument:
        pass


def check_program(linter: Linter, text: str) -> None:
    """The four properties of the module docstring, for one program that compiles."""
    _note(f"program:\n{text}")
    findings, errors = linter.lint_text(text, "fuzz.py")
    assert errors == [], errors
    for finding in findings:
        if finding.code == "RES000":
            assert "LibCST cannot parse" in finding.message, finding.message
            _event("RES000: LibCST cannot parse a program Python accepts")
    outcome = fix_text(linter, text, "fuzz.py", unsafe=True)
    assert outcome.error is None, outcome.error
    if outcome.text is None:
        _event("findings, no fix" if findings else "no findings")
        return
    _event("fixed")
    _note(f"fixed:\n{outcome.text}")
    assert compiles(outcome.text), "a fix left code that Python does not compile"
    again = fix_text(linter, outcome.text, "fuzz.py", unsafe=True)
    assert again.error is None and again.text is None, "fixing the fixed code changed it again"
    _, errors = linter.lint_text(outcome.text, "fuzz.py")
    assert errors == [], errors
    shadowed = names_resolved_to_locals(text, outcome.text)
    assert shadowed == [], f"a fix refers to a local binding instead of the module it means: {shadowed}"


def _scopes(text: str):
    """{scope path: symbol table} of every scope below the module (paths survive added lines)."""
    out = {}

    def visit(table, path):
        seen = {}
        for child in table.get_children():
            name = (child.get_type(), child.get_name())
            seen[name] = seen.get(name, -1) + 1
            child_path = path + ((*name, seen[name]),)
            out[child_path] = (table, child)
            visit(child, child_path)

    visit(symtable.symtable(text, "fuzz.py", "exec"), ())
    return out


def _binding(parent_chain, name):
    """The symbol binding ``name`` in the nearest enclosing function scope, or None."""
    for table in parent_chain:
        if table.get_type() == "function" and name in table.get_identifiers():
            symbol = table.lookup(name)
            if symbol.is_local():
                return symbol
    return None


def names_resolved_to_locals(original: str, fixed: str) -> List[str]:
    """Names a fix newly refers to in some scope that resolve there to a parameter or a
    local (or an enclosing function's) variable rather than a global or an import. A
    name the fix binds itself where none was (RES401's new ``idempotency_key``
    parameter) is meant to be local: only a binding the original already had shadows."""
    before, after = _scopes(original), _scopes(fixed)
    problems = []
    for path, (_, table) in after.items():
        old = before.get(path)
        old_refs = {s.get_name() for s in old[1].get_symbols() if s.is_referenced()} if old else set()
        old_local = {s.get_name() for s in old[1].get_symbols()
                     if s.is_parameter() or s.is_local()} if old else set()
        chain = [after[path[:i]][1] for i in range(len(path) - 1, 0, -1)]
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if not symbol.is_referenced() or name in old_refs:
                continue
            if (symbol.is_parameter() or (symbol.is_local() and not symbol.is_imported()
                                          and not symbol.is_namespace())) and name in old_local:
                problems.append(f"{name} in {table.get_type()} {table.get_name()} (line {table.get_lineno()})")
            elif symbol.is_free():
                bound = _binding(chain, name)
                if bound is not None and (bound.is_parameter() or not bound.is_imported()):
                    problems.append(f"{name} in {table.get_type()} {table.get_name()} (line {table.get_lineno()}), "
                                    f"bound by an enclosing function")
    return problems


# -- strategy 1: programs from the grammar ---------------------------------------------------------
@FUZZ
@given(hypothesmith.from_grammar())
def test_grammar_programs(linter, text):
    assume(compiles(text))
    check_program(linter, text)


# -- strategy 2: real resilience snippets spliced into generated programs ----------------------------
def _segment(lines: List[str], node: ast.stmt) -> str:
    """The source lines of a top-level statement, decorators included."""
    start = node.lineno - 1
    if getattr(node, "decorator_list", None):
        start = min(d.lineno for d in node.decorator_list) - 1
    return "".join(lines[start:node.end_lineno])


def _case_snippets() -> List[Tuple[str, str]]:
    """(prelude, definition) pairs from the shared cases: the prelude is the file's
    imports and module-level simple statements, a definition one top-level def or class."""
    out = []
    for path in sorted(CASES.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        lines = source.splitlines(keepends=True)

        prelude = "".join(_segment(lines, n) for n in tree.body
                          if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                          and not (isinstance(n, ast.ImportFrom) and n.level))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append((prelude, _segment(lines, node)))
    return out


CASE_SNIPPETS = _case_snippets()
#: the definitions with an annotated finding (`# expect: RESnnn`): most of the draws, so fixes fire
FIRING = [pair for pair in CASE_SNIPPETS if "# expect:" in pair[1]]

TEMPLATE_PRELUDE = (
    "import asyncio\nimport random\nimport smtplib\nimport socket\nimport subprocess\nimport time\n"
    "import urllib.request\n\nimport aiohttp\nimport backoff\nimport boto3\nimport httpx\nimport requests\n"
    "import tenacity\nfrom tenacity import retry, stop_after_attempt, wait_fixed\n"
)
#: statements with a fix, ``{a}`` and ``{b}`` are generated expressions (always parenthesised)
TEMPLATES = [
    "requests.get({a})\n",
    "requests.post({a}, json={b})\n",
    "requests.request('GET', {a}, params={b})\n",
    "requests.get({a}, timeout=None)\n",
    "requests.get({a}, timeout=(5, None))\n",
    "requests.get(\n    {a},\n    headers={b},\n)\n",
    "requests.get({a},  # why\n             {b})\n",
    "session = requests.Session()\nsession.get({a})\n",
    "with requests.Session() as s:\n    s.put({a}, data={b})\n",
    "httpx.get({a}, timeout=None)\n",
    "client = httpx.Client(timeout=None)\n",
    "c = boto3.client('s3', region_name={a})\n",
    "subprocess.run(['git', 'clone', {a}], check=True)\n",
    "out = subprocess.check_output(['curl', {a}])\n",
    "socket.create_connection(({a}, 80))\n",
    "socket.setdefaulttimeout(None)\n",
    "smtplib.SMTP({a})\n",
    "urllib.request.urlopen({a})\n",
    "@tenacity.retry\ndef fetch(u):\n    return requests.get(u, timeout=5)\n",
    "@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef fetch(u):\n    return requests.get(u, timeout=5)\n",
    "@backoff.on_exception(backoff.expo, Exception)\ndef fetch(u):\n    return requests.get(u, timeout=5)\n",
    "for attempt in range(5):\n    try:\n        r = requests.get({a}, timeout=5)\n        break\n"
    "    except Exception:\n        time.sleep(2)\n",
    "while True:\n    try:\n        r = requests.get({a})\n        break\n    except requests.RequestException:\n"
    "        continue\n",
    "async def go(u):\n    async with aiohttp.ClientSession() as s:\n        return await s.get(u)\n",
]

_names = st.sampled_from(["u", "url", "x", "self.base", "cfg['host']", "None", "é", "_", "match", "case",
                          "type"])
_literals = st.one_of(
    st.integers(-10**30, 10**30).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=12).map(repr),
    st.binary(max_size=6).map(repr),
    st.sampled_from(["...", "True", "0j", "1_000", "0x_ff", "''''''", "f'{u!r:>{10}}'", "rb'\\x00'", "'\\r\\n'"]),
)


def _compound(children):
    return st.one_of(
        st.tuples(children, children).map(lambda t: f"{t[0]} + {t[1]}"),
        st.tuples(children, children).map(lambda t: f"({t[0]}, {t[1]})"),
        st.lists(children, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(children, children).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
        children.map(lambda c: f"f({c})"),
        children.map(lambda c: f"({c}).attr"),
        children.map(lambda c: f"({c})[0]"),
        children.map(lambda c: f"(lambda: {c})"),
        children.map(lambda c: f"(y for y in {c})"),
        children.map(lambda c: f"[y for y in {c} if y]"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        children.map(lambda c: f"(w := {c})"),
        children.map(lambda c: f"not {c}"),
        children.map(lambda c: f"(\n    {c}  # comment\n)"),
        children.map(lambda c: f"({c} \\\n )"),
    )


EXPRESSIONS = st.recursive(st.one_of(_names, _literals), _compound, max_leaves=6).map(lambda e: f"({e})")

CONTEXTS = {
    "module": lambda body, i: body,
    "function": lambda body, i: f"def f():\n{textwrap.indent(body, i)}",
    "async function": lambda body, i: f"async def f():\n{textwrap.indent(body, i)}",
    "method": lambda body, i: f"class C:\n{i}def m(self):\n{textwrap.indent(body, i * 2)}",
    "if": lambda body, i: f"if __name__ == '__main__':\n{textwrap.indent(body, i)}else:\n{i}pass\n",
    "with": lambda body, i: f"with open('f') as fh:\n{textwrap.indent(body, i)}",
    "try": lambda body, i: f"try:\n{textwrap.indent(body, i)}except Exception:\n{i}raise\n",
}


def _layout(text: str, indent: str, newline: str) -> str:
    """Re-indent 4-space blocks with ``indent`` (outside strings, lines are simple enough) and
    switch line endings."""
    if indent != "    ":
        text = re.sub(r"(?m)^((?:    )+)", lambda m: indent * (len(m.group(1)) // 4), text)
    return text.replace("\n", newline) if newline != "\n" else text


@st.composite
def spliced_programs(draw):
    filler = draw(hypothesmith.from_grammar())
    if not filler.endswith(("\n", "\r")):
        filler += "\n"
    parts = []
    if draw(st.booleans()):
        prelude, definition = draw(st.sampled_from(FIRING) if draw(st.integers(0, 4)) else
                                   st.sampled_from(CASE_SNIPPETS))
        others = draw(st.lists(st.sampled_from(CASE_SNIPPETS), max_size=2))
        body = prelude + "\n\n" + definition + "".join("\n\n" + d for _, d in others)
        parts.append(body)
    else:
        statements = draw(st.lists(st.sampled_from(TEMPLATES), min_size=1, max_size=4))
        body = "".join(t.format(a=draw(EXPRESSIONS), b=draw(EXPRESSIONS)) for t in statements)
        context = draw(st.sampled_from(sorted(CONTEXTS)))
        note(f"context: {context}")
        parts.append(TEMPLATE_PRELUDE + "\n" + CONTEXTS[context](body, "    "))
    where = draw(st.sampled_from(["after", "before", "between"]))
    if where == "after":
        text = filler + "\n" + parts[0]
    elif where == "before":
        text = parts[0] + "\n" + filler
    else:
        text = parts[0] + "\n" + filler + "\n" + parts[0]
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return _layout(text, indent, newline)


@FUZZ
@given(spliced_programs())
def test_spliced_resilience_programs(linter, text):
    assume(compiles(text))
    check_program(linter, text)


# -- what the fuzzing found ---------------------------------------------------------------------
def test_fix_after_a_bare_generator_argument(linter):
    check_program(linter, "import requests\nrequests.get(x for x in y)\n")


SHADOWED = {
    # a SAFE fix (plain `--fix`): the jitter goes through the parameter, not the module
    "RES201 loop sleep, parameter named random": (
        "import time\n\nimport requests\n\n\ndef poll(url, random):\n    for attempt in range(3):\n        try:\n"
        "            requests.get(url, timeout=5)\n            break\n        except requests.RequestException:\n"
        "            time.sleep(2)\n"),
    "RES201 tenacity, enclosing parameter named wait_random": (
        "from tenacity import retry, stop_after_attempt, wait_fixed\n\n\ndef make(wait_random):\n"
        "    @retry(wait=wait_fixed(2), stop=stop_after_attempt(3))\n    def call():\n        pass\n\n"
        "    return call\n"),
    "RES101 boto3, parameter named botocore": (
        "import boto3\n\n\ndef client(botocore):\n    return boto3.client('s3')\n"),
    "RES101 aiohttp, parameter named ClientTimeout": (
        "from aiohttp import ClientSession\n\n\nasync def fetch(url, ClientTimeout):\n"
        "    async with ClientSession() as session:\n        return await session.get(url)\n"),
    "RES101 boto3, comprehension variable named botocore": (
        "import boto3\n\nclients = [boto3.client(name) for botocore, name in pairs]\n"),
}


@pytest.mark.parametrize("name", sorted(SHADOWED))
def test_fix_does_not_refer_to_a_shadowing_local(linter, name):
    check_program(linter, SHADOWED[name])


def test_boto3_config_none_is_not_replaced_by_a_number(linter):
    text = "import boto3\n\nclient = boto3.client('s3', config=None)\n"
    outcome = fix_text(linter, text, "fuzz.py", unsafe=True)
    assert outcome.text is None or "config=10" not in outcome.text


def test_boto3_config_none_is_the_default_and_its_fix_replaces_it(tmp_path):
    """``config=None`` is botocore's default Config (60 s connect, 60 s read): judged as without
    ``config`` (under a 30 s ceiling, RES101), and the fix puts the Config in place of the None (also
    passed positionally: never twice)."""
    from reslint.config import settings_from_table

    text = "import boto3\n\nclient = boto3.client('s3', config=None)\n"
    assert Linter(Settings(root=tmp_path)).lint_text(text, "fuzz.py")[0] == []  # within the default 60 s
    linter = Linter(settings_from_table({"max-timeout": 30}, tmp_path, None))
    findings, _ = linter.lint_text(text, "fuzz.py")
    assert [f.code for f in findings] == ["RES101"]
    assert "`None` means the library's default" in findings[0].message
    outcome = fix_text(linter, text, "fuzz.py", unsafe=True)
    assert outcome.text == ("import boto3\nimport botocore.config\n\nclient = boto3.client('s3', "
                            "config=botocore.config.Config(connect_timeout=10, read_timeout=10))\n")
    positional = ("import boto3\n\nc = boto3.Session().client('s3', None, None, True, None, None, None, None, "
                  "None, None)\n")
    outcome = fix_text(linter, positional, "fuzz.py", unsafe=True)
    assert outcome.text is not None and "config=" not in outcome.text and outcome.text.count("Config(") == 1
    check_program(linter, positional)
