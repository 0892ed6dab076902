"""What makes large runs fast must not change results: the prefilter with names, the call
graph that loads modules on demand, worker processes, ``--profile``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reslint.config import load_settings
from reslint.semantics.prefilter import Trigger
from reslint.engine.runner import Runner


def write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


# -- the prefilter ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("import time\ntime.sleep(1)\n", True),
    ("import time\nnow = time.monotonic()\n", False),  # `time` matters only to sleep between attempts
    ("from http import client\nc = client.HTTPSConnection('h')\n", True),
    ("from http import HTTPStatus\nok = HTTPStatus.OK\n", False),
    ("import tenacity\n", True),  # a retry library: any import
    ("from a import b  # import tenacity\n", False),  # a comment is no import
    ("x = 'import tenacity'\n", False),
    ("    from requests import (\n        get,\n    )\n", True),
])
def test_trigger(text, expected):
    trigger = Trigger(["tenacity", "requests", "time:sleep", "http:HTTPConnection|HTTPSConnection"])
    assert trigger.search(text) is expected


def _wanted(text: str, module: str = "app.svc", loops: bool = True) -> bool:
    from reslint.catalog import canonical
    from reslint.catalog.entries import entry_points
    from reslint.semantics.prefilter import Relevance

    return Relevance(entry_points(), canonical, loops).wanted(ast.parse(textwrap.dedent(text)), module, False)


@pytest.mark.parametrize("text, expected", [
    ("import requests\nrequests.get(url)\n", True),
    ("import requests\ntry:\n    pass\nexcept requests.exceptions.HTTPError:\n    pass\n", False),
    ("from requests import Session as S\nclient = S()\n", True),  # an import alias
    ("import requests\nR = requests\nR.post(url)\n", True),  # a name bound to a module
    ("import requests\nSession = requests.Session\ns = Session()\n", True),  # a prefix of requests.Session.get
    ("import requests\ndef f(s: requests.Session) -> requests.Response:\n    return s\n", False),  # annotations
    ("import requests\nif isinstance(s, requests.Session):\n    pass\n", False),
    ("import requests\nclass Mine(requests.Session):\n    pass\n", True),  # a class base
    ("from requests.sessions import Session\n", False),  # imported, never used
    ("from requests.sessions import Session\nSession().get(url)\n", True),  # an alias of requests.Session
    ("import boto3\nboto3.Session().client('s3')\n", True),  # a factory under a class
    ("from requests import *\n", True),
    ("import stripe\nstripe.Refund.create(charge=c)\n", True),  # a whole library
    ("import tenacity\n@tenacity.retry\ndef f():\n    pass\n", True),
    ("import tenacity\nlog = tenacity.before_log\n", False),
    ("import helloworld_pb2_grpc\nstub = helloworld_pb2_grpc.GreeterStub(channel)\n", True),
    ("import time\ntime.sleep(1)\n", False),  # a sleep matters only in a retry-shaped loop
    ("import asyncio\nasync def f():\n    await asyncio.wait_for(g(), 5)\n", True),  # a deadline
    ("import os\nnode = os.path\nnode = node.parent\n", False),  # a name bound to itself ends
])
def test_relevance_resolves_references_to_entry_points(text, expected):
    assert _wanted(text) is expected


@pytest.mark.parametrize("loop, expected", [
    ("for attempt in range(3):\n    try:\n        return send()\n    except OSError:\n        pass\n", True),
    ("while True:\n    try:\n        send()\n        break\n    except OSError:\n        log()\n", True),
    ("for item in items:\n    try:\n        return send(item)\n    except OSError:\n        pass\n", False),
    ("for attempt in range(3):\n    try:\n        return send()\n    except OSError:\n        raise\n", False),
    ("for attempt in range(3):\n    r = send()\n    if r.status_code == 503:\n        wait()\n"
     "    else:\n        return r\n", True),
    ("for attempt in range(3):\n    def inner():\n        return 1\n    try:\n        send()\n"
     "    except OSError:\n        pass\n", False),  # the return is another function's
])
def test_relevance_keeps_loops_shaped_like_a_retry(loop, expected):
    text = "def call():\n" + textwrap.indent(loop, "    ")
    assert _wanted(text) is expected
    assert _wanted(text, loops=False) is False  # no retry, idempotency or project rule enabled


def test_relevance_keeps_a_library_s_own_definitions():
    # requests/sessions.py defines requests.Session: its methods' calls are catalog calls
    text = "class Session:\n    def request(self, method, url):\n        return self.send(method, url)\n"
    assert _wanted(text, module="requests.sessions") is True
    assert _wanted(text, module="shop.sessions") is False


@pytest.mark.parametrize("case", sorted(p.name for p in (Path(__file__).parent / "fixtures" / "cases").iterdir()
                                        if not p.name.startswith((".", "_"))))
def test_ast_prefilter_loses_no_finding_on_the_cases(case, monkeypatch):
    from reslint.semantics import prefilter

    entry = Path(__file__).parent / "fixtures" / "cases" / case
    root = entry.parent if entry.is_file() else entry

    def findings():
        run = Runner(load_settings(root, isolated=True), use_cache=False, jobs=1).run([entry])
        return [(f.filename, f.location, f.code, f.message, f.fix) for r in run.results for f in r.findings]

    filtered = findings()
    monkeypatch.setattr(prefilter.Relevance, "wanted", lambda *args: True)
    assert findings() == filtered


# -- positions per statement --------------------------------------------------------------------------
POSITIONED = """\
# a header comment
import requests  ;  import json


@decorator(
    1)

# a comment between
@other
class Client(requests.Session):
    \"\"\"Doc.\"\"\"

    # leading comment
    @property
    def timeout(self): return 3
    class Inner:
        def get(self, url):
            return requests.get(url,
                                timeout=None)
    x = 1; y = 2

if True:
    def f(): pass
\f
async def g():
    async with requests.session() as s:
        await s.get("u")
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_positions_per_statement_are_positionprovider_s(newline):
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from reslint.engine.filepass import _line_starts
    from reslint.engine.positions import Positions, unit_lines

    text = POSITIONED.replace("\n", newline)
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = unit_lines(ast.parse(text).body)
    positions = Positions(module, text, _line_starts(text), lines)
    units = {}

    class Units(cst.CSTVisitor):  # each node's unit, as Context.unit names it during the walk
        statements = []

        def on_visit(self, node):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self.statements.append(node)
            k = 0
            while k + 1 < len(self.statements) and isinstance(self.statements[k], cst.ClassDef):
                k += 1
            units[node] = self.statements[k] if self.statements else None
            return True

        def on_leave(self, node):
            if self.statements and self.statements[-1] is node:
                self.statements.pop()

    module.visit(Units())
    for node, span in expected.items():
        if units[node] is not None:  # not the module, its header or its footer
            positions.cover([units[node]])
            assert positions.get(node) == span, node
    assert not positions._whole  # every node was found by rendering its own statement
    broken = Positions(module, text, _line_starts(text), [(n + 1, None) for n, _ in lines])  # wrong lines
    assert all(broken.get(node) == span for node, span in expected.items())  # checked, then the module


# -- the call graph loads what a chain reaches ----------------------------------------------------
PROJECT = {
    "pyproject.toml": '[tool.reslint]\nselect = ["RES301", "RES402"]\n',
    "app/__init__.py": "",
    "app/jobs.py": """\
        import tenacity

        from app import middle


        @tenacity.retry(stop=tenacity.stop_after_attempt(3))
        def sync():
            middle.relay()
            middle.store()
        """,
    # imports nothing any rule looks for: the prefilter skips it, the graph loads it
    "app/middle.py": """\
        from app import client, db


        def relay():
            return client.fetch()


        def store():
            db.save(None, 1)
        """,
    "app/client.py": """\
        import tenacity


        @tenacity.retry(stop=tenacity.stop_after_attempt(4))
        def fetch():
            return 1
        """,
    # a write that only the call graph sees (no import: the cursor is a parameter)
    "app/db.py": """\
        def save(cursor, n):
            cursor.execute("INSERT INTO t (n) VALUES (%s)", (n,))
        """,
    # never reached from a retried scope: never parsed
    "app/unrelated.py": """\
        def helper():
            return 2
        """,
}


def test_chain_through_a_skipped_module_is_found_and_unreached_modules_are_not_parsed(tmp_path):
    write(tmp_path, PROJECT)
    runner = Runner(load_settings(tmp_path), use_cache=False, jobs=1)
    run = runner.run([tmp_path])
    found = sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings)
    assert found == [("app/db.py", 2, "RES402"), ("app/jobs.py", 8, "RES301")]
    assert sorted(runner.parsed) == ["app/client.py", "app/db.py", "app/jobs.py", "app/middle.py"]


def test_graph_command_shows_modules_the_prefilter_skipped(tmp_path):
    from click.testing import CliRunner

    from reslint.cli import main

    write(tmp_path, PROJECT)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["graph", "--no-cache", "."])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    assert "sync" in result.output and "fetch" in result.output


# -- workers ------------------------------------------------------------------------------------------
def test_results_are_identical_with_and_without_workers(tmp_path):
    cases = Path(__file__).resolve().parent / "fixtures" / "cases"
    project = tmp_path / "p"
    project.mkdir()
    for i in range(3):  # enough files that workers start (PARALLEL_MIN_FILES)
        for source in sorted(cases.rglob("*.py")):
            target = project / f"copy{i}" / source.relative_to(cases)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    outputs = []
    for jobs in ("1", "2"):
        proc = subprocess.run([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "-j", jobs,
                               "-f", "json", "."], cwd=project, capture_output=True, timeout=600)
        assert proc.returncode == 1, proc.stderr.decode()
        outputs.append(proc.stdout)
    assert len(json.loads(outputs[0])) > 100
    assert outputs[0] == outputs[1]


def test_workers_that_died_lose_no_file(tmp_path):
    # workers killed before the files are sent (even while starting): the pool lints them itself
    from reslint.engine import workers
    from reslint.engine.filepass import Linter

    cases = Path(__file__).resolve().parent / "fixtures" / "cases"
    files = [(str(path), path.read_bytes()) for path in sorted(cases.rglob("*.py"))]
    settings = load_settings(cases, isolated=True)
    linter = Linter(settings)
    alone = [(i, workers.lint_one(path, data, linter).findings) for i, (path, data) in enumerate(files)]
    with workers.Pool(settings, False, 2) as pool:
        for process in list(pool._executor._processes.values()):
            process.kill()
            process.join()
        pooled = sorted((tag, result.findings) for tag, result in pool.lint((i, path, data) for i, (path, data) in enumerate(files)))
    assert pooled == alone and any(findings for _, findings in alone)


# -- --profile ---------------------------------------------------------------------------------------
def test_profile_prints_phases_and_rules(tmp_path):
    write(tmp_path, {"m.py": "import requests\nrequests.get('u')\n"})
    proc = subprocess.run([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "--profile", "m.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    phases = [" ".join(line.split()[:-3]) for line in proc.stderr.splitlines()[1:-1]]
    for phase in ("discover", "prefilter (text)", "syntax check (ast)", "prefilter (ast)", "parse (LibCST)", "visit",
                  "visit RES101", "output"):
        assert phase in phases, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("total (wall)")
    assert "RES101" in proc.stdout  # the findings are unchanged


# -- the stat index ------------------------------------------------------------------------------------
def test_stat_index_skips_unchanged_files_and_sees_changed_ones(tmp_path, monkeypatch):
    from reslint.engine.cache import Cache

    write(tmp_path, {"a.py": "import requests\nrequests.get('u')\n", "b.py": "x = 1\n",
                     "c.py": "import requests\nrequests.get('u', timeout=5)\n"})
    old = 1_600_000_000
    for name in ("a.py", "b.py", "c.py"):
        os.utime(tmp_path / name, (old, old))  # older than the run: safe to index
    settings = load_settings(tmp_path)

    def findings(run):
        return sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings)

    first = Runner(settings, cache_dir=tmp_path / "cache", jobs=1).run([tmp_path])
    assert findings(first) == [("a.py", 2, "RES101")]
    loads = []
    original = Cache.load
    monkeypatch.setattr(Cache, "load", lambda self, key: loads.append(key) or original(self, key))
    second = Runner(settings, cache_dir=tmp_path / "cache", jobs=1).run([tmp_path])
    assert findings(second) == findings(first) and loads == []  # every file from the index

    (tmp_path / "c.py").write_text("import requests\nrequests.get('u', timeout=None)\n", "utf-8")
    os.utime(tmp_path / "c.py", (old + 10, old + 10))
    third = Runner(settings, cache_dir=tmp_path / "cache", jobs=1).run([tmp_path])
    assert findings(third) == [("a.py", 2, "RES101"), ("c.py", 2, "RES102")]
    assert len(loads) == 1  # only the changed file went to the content-keyed entries


# -- the last run ----------------------------------------------------------------------------------
def test_an_unchanged_rerun_reuses_the_last_run_and_any_change_ends_that(tmp_path, monkeypatch):
    write(tmp_path, {
        "pyproject.toml": "[tool.reslint]\n",
        "app/__init__.py": "",
        "app/jobs.py": """\
            import tenacity

            from app import db


            @tenacity.retry(stop=tenacity.stop_after_attempt(3))
            def sync():
                db.save()
            """,
        "app/db.py": "import sqlite3\n\n\ndef save():\n    sqlite3.connect('x').execute('INSERT INTO t VALUES (1)')\n",
        "app/svc.py": "import requests\n\n\ndef get():\n    return requests.get('u')  # noqa: RES101\n",
    })
    old = 1_600_000_000
    for path in tmp_path.rglob("*.py"):
        os.utime(path, (old, old))  # older than the run: safe to index
    settings = load_settings(tmp_path)

    def run(*paths):
        runner = Runner(settings, cache_dir=tmp_path / "cache", jobs=1, reuse_last_run=True)
        result = runner.run(list(paths) or [tmp_path])
        return sorted((f.filename, f.location.row, f.code) for r in result.results for f in r.findings), runner

    first, runner = run()
    assert ("app/db.py", 5, "RES402") in first and runner.parsed  # a project-pass finding
    linted = []
    original = Runner._lint_many
    monkeypatch.setattr(Runner, "_lint_many", lambda self, *a: linted.append(1) or original(self, *a))
    second, runner = run()
    assert second == first and linted == [] and runner.parsed == []  # nothing read but the memo

    (tmp_path / "app" / "svc.py").write_text("import requests\n\n\ndef get():\n    return requests.get('u')\n")
    os.utime(tmp_path / "app" / "svc.py", (old + 10, old + 10))
    third, _ = run()
    assert linted == [1] and ("app/svc.py", 5, "RES101") in third  # the suppression is gone
    (tmp_path / "app" / "new.py").write_text("x = 1\n")
    os.utime(tmp_path / "app" / "new.py", (old, old))
    run()
    assert linted == [1, 1]  # a new file is a change too
    run(tmp_path / "app" / "jobs.py")  # a few files of a project: the project pass reads others
    run(tmp_path / "app" / "jobs.py")
    assert linted == [1, 1, 1, 1]


# -- work per finding does not grow with the file --------------------------------------------------
# (no timings here: the machines are shared; these check what the fast paths do and that they
# answer what the slow ones did)
def _rendered_types(monkeypatch):
    """The node types the fix edits render (``reslint.engine.filepass._render``), as a list that fills up."""
    from reslint.engine import filepass as engine

    seen = []
    original = engine._render
    monkeypatch.setattr(engine, "_render", lambda node, module, indent: seen.append(type(node).__name__)
                        or original(node, module, indent))
    return seen


@pytest.mark.parametrize("text, fixed", [
    ("import requests\n" + "; ".join(f'(requests.get("u{i}"))' for i in range(40)) + "\n",
     "import requests\n" + "; ".join(f'(requests.get("u{i}", timeout=10))' for i in range(40)) + "\n"),
    ("import requests\n\n\ndef urls():\n    return [\n" + "".join(
        f'        requests.get(\n            "u{i}"),\n' for i in range(40)) + "    ]\n",
     "import requests\n\n\ndef urls():\n    return [\n" + "".join(
        f'        requests.get(\n            "u{i}", timeout=10),\n' for i in range(40)) + "    ]\n"),
], ids=["parenthesised-on-one-line", "continued-in-one-list"])
def test_a_fix_renders_the_call_not_the_statement_holding_every_call(tmp_path, monkeypatch, text, fixed):
    from reslint.config import Settings
    from reslint.engine.filepass import Linter
    from reslint.engine.fixer import fix_text

    linter = Linter(Settings(root=tmp_path))
    rendered = _rendered_types(monkeypatch)
    findings, errors = linter.lint_text(text, "m.py")
    assert errors == [] and [f.code for f in findings] == ["RES101"] * 40
    # the call and its own parentheses, never the 40-call statement or the module
    assert set(rendered) <= {"Call", "LeftParen", "RightParen"}
    assert fix_text(linter, text, "m.py", unsafe=True, findings=findings).text == fixed


def test_a_fix_the_call_alone_cannot_trim_is_made_from_its_statement(tmp_path, monkeypatch):
    """``stop=(...)`` becoming ``stop=(...) | stop_after_delay(...)``: one rendering is a prefix of
    the other, where a wider rendering may trim the edit differently, so the edit comes from the
    statement's rendering; and from the statement where RES202 saw the policy (it reports from
    ``leave_Module``, where there is no statement), not from a rendering of the whole module."""
    from reslint.config import Settings
    from reslint.engine.filepass import Linter

    text = ("import tenacity\n\n\n@tenacity.retry(stop=(tenacity.stop_after_attempt(30)),\n"
            "                 wait=tenacity.wait_random(10, 20))\ndef f():\n    pass\n")
    rendered = _rendered_types(monkeypatch)
    findings, _ = Linter(Settings(root=tmp_path)).lint_text(text, "m.py")
    (finding,) = [f for f in findings if f.code == "RES202"]
    (edit,) = finding.fix.edits
    assert text[:edit.start] + edit.content + text[edit.end:] == text.replace(
        "(tenacity.stop_after_attempt(30))", "(tenacity.stop_after_attempt(30)) | tenacity.stop_after_delay(60)")
    assert "FunctionDef" in rendered and "Module" not in rendered  # the statement, not the module


def _choose_pairwise(findings, unsafe):
    """``reslint.engine.fixer._choose`` as it was: every fix compared with every edit taken."""
    from reslint.engine.fixer import _overlaps, applicable

    chosen, applied, taken = [], [], []
    for finding in sorted(findings, key=lambda f: f.sort_key()):
        if not applicable(finding, unsafe):
            continue
        spans = [(e.start, e.end, e.content) for e in finding.fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        chosen.extend(finding.fix.edits)
        applied.append(finding)
    return chosen, applied


def test_fixes_chosen_with_the_sorted_index_are_those_the_pairwise_check_chose():
    import random

    from reslint.diagnostics import Applicability, Edit, Finding, Fix, Location
    from reslint.engine.fixer import _choose

    rng = random.Random(8)
    for _ in range(300):
        findings = []
        for i in range(rng.randint(1, 12)):
            edits = []
            for _ in range(rng.randint(1, 3)):  # the edits of one fix may overlap each other
                start = rng.randint(0, 30)
                end = start if rng.random() < 0.4 else start + rng.randint(1, 6)
                edits.append(Edit(start, end, "x", Location(1, start + 1), Location(1, end + 1)))
            findings.append(Finding("RES101", "n", "warning", "m", "a.py", Location(1, i + 1), Location(1, i + 2),
                                    Fix("f", Applicability.SAFE, tuple(edits))))
        assert _choose(findings, False) == _choose_pairwise(findings, False)


def test_the_frame_of_a_megabyte_line_is_clipped_around_the_caret():
    from reslint.diagnostics import Finding, Location
    from reslint.output import Report
    from reslint.output.full import ELLIPSIS, FRAME_WIDTH, render

    call = 'requests.get("u")'
    text = "import requests\n" + "; ".join([call] * 60_000) + "\n"  # 1.2 MB on line 2
    columns = [1, 20 * (len(call) + 2) + 1, len(text.splitlines()[1]) - len(call) + 1]
    findings = [Finding("RES101", "missing-timeout", "warning", "no timeout", "m.py", Location(2, column),
                        Location(2, column + len(call))) for column in columns]
    findings.append(Finding("RES101", "missing-timeout", "warning", "to the end", "m.py", Location(2, columns[1]),
                            Location(3, 1)))  # ends on a later line: the caret runs to the cut
    out = render(findings, Report(sources={"m.py": text}, summary=False)).splitlines()
    frames = [out[i:i + 4] for i in range(0, len(out), 5)]
    assert len(frames) == 4
    for (_, _, shown, caret), finding in zip(frames, findings):
        assert len(shown) <= len("2 | ") + FRAME_WIDTH + 2 * len(ELLIPSIS)
        start = caret.index("^") - len("  | ") + len("2 | ")
        width = caret.count("^")
        if finding.end_location.row == 2:
            assert shown[start:start + width] == call
        else:
            assert shown[start:start + width] == shown[start:].removesuffix(ELLIPSIS) and width > len(call)
    assert frames[0][2].startswith("2 | requests") and frames[0][2].endswith(ELLIPSIS)
    assert frames[2][2].endswith(call) and ELLIPSIS in frames[2][2]


@pytest.mark.parametrize("line, start, end", [
    ("x" * 300, 5, 9), ("x" * 301, 0, 1), ("a\tb" * 500, 700, 710), ("y" * 5000, 4999, 5000),
    ("z" * 5000, 4000, 6000), ("w" * 1000, 1200, 1201),
])
def test_clip_shows_the_caret_s_characters_and_at_most_the_frame_width(line, start, end):
    from reslint.output.full import ELLIPSIS, FRAME_WIDTH, clip

    shown, new_start, new_end = clip(line, start, end)
    if len(line) <= FRAME_WIDTH:
        assert (shown, new_start, new_end) == (line, start, end)
        return
    assert len(shown) <= FRAME_WIDTH + 2 * len(ELLIPSIS)
    lead = len(ELLIPSIS) if shown.startswith(ELLIPSIS) else 0
    first = start - new_start + lead  # the line's offset of the first character shown
    assert shown[lead:len(shown) - (len(ELLIPSIS) if shown.endswith(ELLIPSIS) else 0)] == \
        line[first:first + FRAME_WIDTH]
    assert shown[new_start:new_end] == line[start:min(end, first + FRAME_WIDTH)]


def test_fingerprints_normalise_each_line_once_and_keep_their_recipe(monkeypatch):
    import hashlib

    from reslint.diagnostics import Finding, Location
    from reslint.output import fingerprints as module

    text = "import requests\n" + "   ".join(["requests.get('u');"] * 100) + "\nrequests.get('v')\n"
    findings = [Finding("RES101", "n", "warning", "m", "a.py", Location(2, 1 + 21 * i), Location(2, 18 + 21 * i))
                for i in range(100)] + [Finding("RES101", "n", "warning", "m", "a.py", Location(3, 1), Location(3, 18))]
    calls = []
    original = module.line_text
    monkeypatch.setattr(module, "line_text", lambda lines, row: calls.append(row) or original(lines, row))
    prints = module.fingerprints(findings, {"a.py": text})
    assert calls == [2, 3]
    line = " ".join(text.splitlines()[1].split())
    expected = [hashlib.sha256("\0".join(("RES101", "a.py", line, str(i))).encode()).hexdigest()[:32]
                for i in range(100)]
    assert prints[:100] == expected and len(set(prints)) == 101


def test_what_spell_reads_of_the_module_is_read_once_per_file(tmp_path, monkeypatch):
    from reslint.config import settings_from_table
    from reslint.engine.filepass import Linter
    from reslint.semantics import edits as fixes  # the fix helpers live in reslint.semantics.edits

    text = "import boto3\n" + "".join(f"c{i} = boto3.client('s3')\n" for i in range(50))
    scans = []
    original = fixes._spell_in_module_now
    monkeypatch.setattr(fixes, "_spell_in_module_now", lambda ctx, dotted: scans.append(dotted)
                        or original(ctx, dotted))
    # a 30 s ceiling reports botocore's 60 s defaults
    findings, _ = Linter(settings_from_table({"max-timeout": 30}, tmp_path, None)).lint_text(text, "m.py")
    assert len(findings) == 50 and all(f.fix is not None for f in findings)
    assert scans == ["botocore.config.Config"]


def test_the_from_import_index_answers_as_the_scan_did():
    import libcst as cst

    from reslint.semantics.edits import find_from_import

    tree = cst.parse_module("from a import x\ntry:\n    from b.c import y\nexcept ImportError:\n    pass\n"
                            "from a import z\nfrom . import w\nfrom d import *\nif t:\n    from e import v\n")

    class Ctx:
        cache: dict = {}

    for ctx in (None, Ctx()):
        assert find_from_import(tree, "a", ctx)[1] is tree.body[0].body[0]  # the first one
        assert find_from_import(tree, "b.c", ctx)[1].names[0].name.value == "y"  # in a module-level try
        assert [find_from_import(tree, m, ctx) for m in ("", "d", "e", "f")] == [None] * 4


def test_a_helper_called_many_times_in_a_retry_loop_is_read_once(tmp_path, monkeypatch):
    import libcst as cst

    from reslint.analysis import loops
    from reslint.config import Settings
    from reslint.engine.filepass import Linter

    def reads(calls: int) -> int:
        text = ("import time\n\n\ndef helper():\n    x = 1\n\n\ndef fetch():\n    for attempt in range(3):\n"
                "        try:\n" + "            helper()\n" * calls + "            return 1\n"
                "        except OSError:\n            time.sleep(1)\n")
        seen = []
        original = loops.own_nodes
        monkeypatch.setattr(loops, "own_nodes", lambda body: seen.append(body) or original(body))
        findings, errors = Linter(Settings(root=tmp_path)).lint_text(text, "m.py")
        assert errors == [] and [f.code for f in findings] == ["RES201"]
        monkeypatch.setattr(loops, "own_nodes", original)
        helper_body = cst.parse_module(text).body[1].body
        return sum(1 for body in seen if isinstance(body, cst.IndentedBlock) and body.deep_equals(helper_body))

    assert reads(100) == reads(2) > 0


def test_the_owner_class_of_a_method_call_is_the_last_that_matches():
    import libcst as cst

    from reslint.analysis.loops import LoopAnalyzer
    from reslint.semantics.context import Context, SemanticModel

    model = SemanticModel(cst.parse_module("class A:\n    class B:\n        pass\nclass AB:\n    pass\n"), "m")
    analyzer = LoopAnalyzer(Context(model))

    def scan(qual):  # how the classes were searched before
        found = None
        for name, entry in model.classes.items():
            if qual.startswith(name + "."):
                found = entry
        return found

    for qual in ("m.A.B.get", "m.A.get", "m.AB.get", "m.ABC.get", "m.A", "x.A.get", "m.A.B"):
        assert analyzer._owner_class(qual) == scan(qual), qual
