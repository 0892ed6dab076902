"""Suppression comments as a run sees them: RES900 (unused), --ignore-noqa, --add-noqa."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from reslint.cli import main
from reslint.config import Settings
from reslint.diagnostics import Applicability
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from reslint.engine.runner import Runner
from reslint.engine.suppression import add_noqa

CASES = Path(__file__).resolve().parent / "fixtures" / "cases"
HEAD = "import requests\n\n"


def run(args, cwd: Path, env=None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False, env=env)
    finally:
        os.chdir(old)


def found(text: str, **settings):
    linter = Linter(Settings(root=Path("."), **settings))
    findings, errors = linter.lint_text(text, "m.py")
    assert errors == []
    return [(f.location.row, f.code) for f in findings]


def unused(text: str, **settings):
    return [row for row, code in found(text, **settings) if code == "RES900"]


def fixed(text: str, **settings) -> str:
    outcome = fix_text(Linter(Settings(root=Path("."), **settings)), text, "m.py", unsafe=True)
    assert outcome.error is None
    return outcome.text if outcome.text is not None else text


# -- RES900 verdicts ------------------------------------------------------------------------
def test_used_suppressions_are_not_reported():
    text = HEAD + (
        "requests.get('a')  # noqa: RES101\n"
        "# noqa: RES101\n"
        "requests.get('b')\n"
        "requests.get('c')  # reslint: ignore[RES101]\n"
        "requests.get('d', timeout=None)  # noqa: RES102\n"
    )
    assert found(text) == []


def test_unused_forms_are_reported_at_the_comment():
    text = HEAD + (
        "requests.get('a', timeout=5)  # noqa: RES101\n"  # 3: nothing on this line
        "# noqa: RES101\n"  # 4: nothing on the next line
        "requests.get('b', timeout=5)\n"
        "requests.get('c', timeout=5)  # reslint: ignore[RES102]\n"  # 6
        "requests.get('d')  # noqa: RES102\n"  # 7: RES101 reported, RES102 unused
    )
    assert found(text) == [(3, "RES900"), (4, "RES900"), (6, "RES900"), (7, "RES101"), (7, "RES900")]
    linter = Linter(Settings(root=Path(".")))
    first = [f for f in linter.lint_text(text, "m.py")[0] if f.code == "RES900"][0]
    assert first.location.column == len("requests.get('a', timeout=5)  ") + 1
    assert first.message.startswith("unused suppression `# noqa: RES101`: no `RES101` finding on this line")
    assert first.fix.applicability is Applicability.SAFE


def test_file_directive_unknown_and_duplicate_codes():
    text = "# reslint: noqa: RES103\n" + HEAD + "requests.get('a', timeout=5)  # noqa: RES110\n"
    assert unused(text) == [1, 4]
    messages = [f.message for f in Linter(Settings(root=Path("."))).lint_text(text, "m.py")[0]]
    assert "no `RES103` finding in this file" in messages[0]
    assert "`RES110` is not a reslint rule" in messages[1]
    dup = HEAD + "requests.get('a')  # noqa: RES101, RES101\n"
    assert unused(dup) == [3]
    assert fixed(dup) == HEAD + "requests.get('a')  # noqa: RES101\n"


def test_only_res_codes_of_rules_that_ran_are_judged(tmp_path):
    other_tools = HEAD + "requests.get('a', timeout=5)  # noqa: E501, BLE001\n"
    assert found(other_tools) == []
    not_selected = HEAD + "requests.get('a', timeout=5)  # noqa: RES103\n"
    assert unused(not_selected) == [3]
    assert unused(not_selected, select=("RES101",)) == []
    assert unused(not_selected, ignore=("RES103",)) == []
    assert unused(not_selected, per_file_ignores=(("m.py", ("RES103",)),)) == []
    # RES900 itself off: selection, ignore, per-file-ignores, a file directive, naming it
    assert unused(not_selected, select=("RES1",)) == []
    assert unused(not_selected, ignore=("RES900",)) == []
    assert unused(not_selected, per_file_ignores=(("m.py", ("RES900",)),)) == []
    assert unused("# reslint: noqa: RES900\n" + not_selected) == []
    assert unused(HEAD + "requests.get('a', timeout=5)  # noqa: RES103, RES900\n") == []
    assert unused(HEAD + "# noqa: RES900\nrequests.get('a', timeout=5)  # noqa: RES103\n") == []
    assert unused("# reslint: noqa\n" + not_selected) == []  # the file is not linted at all


def test_files_without_any_finding_or_import_are_judged_too():
    assert unused("x = 1  # noqa: RES101\n") == [1]
    assert unused("x = '# noqa: RES101'\n") == []  # a string, not a comment


def test_blanket_noqa_is_judged_only_when_it_counts():
    text = HEAD + "requests.get('a', timeout=5)  # noqa\nrequests.get('b')  # noqa\n"
    # a bare `# noqa` that does not count is reported where it looks like it suppresses a finding
    assert found(text) == [(4, "RES101"), (4, "RES900")]
    assert found(text, allow_blanket_noqa=True) == [(3, "RES900")]
    (finding,) = [f for f in Linter(Settings(root=Path("."), allow_blanket_noqa=True)).lint_text(text, "m.py")[0]]
    assert finding.fix.applicability is Applicability.UNSAFE  # another tool may use a bare `# noqa`


def test_a_bare_noqa_that_does_not_count_is_reported_only_on_a_finding_line():
    """allow-blanket-noqa = false: a bare `# noqa` on a finding's line (or alone above it) is
    reported, once per comment, naming the codes; elsewhere (flake8's) it stays quiet."""
    text = HEAD + ("x = [i for i in range(3)]  # noqa\n"
                   "requests.get('a')  # noqa\n"
                   "# NOQA\n"
                   "requests.post('b', json={})\n"
                   "requests.get('c', timeout=5)  # noqa: RES101\n")
    linter = Linter(Settings(root=Path(".")))
    findings, _ = linter.lint_text(text, "m.py")
    assert [(f.location.row, f.location.column, f.code) for f in findings] == [
        (4, 1, "RES101"), (4, 20, "RES900"), (5, 1, "RES900"), (6, 1, "RES101"), (7, 31, "RES900")]
    bare = [f for f in findings if f.code == "RES900"][:2]
    assert bare[0].message == ("`# noqa` does not suppress `RES101` on this line: a bare `# noqa` counts for "
                               "reslint only with `allow-blanket-noqa = true`; name the code (`# noqa: RES101`) "
                               "or fix the finding")
    assert bare[1].message.startswith("`# NOQA` does not suppress `RES101` on the next line")
    assert all(f.fix is None for f in bare)  # naming the code would narrow what flake8 suppresses
    assert found(text, ignore=("RES900",)) == [(4, "RES101"), (6, "RES101")]
    assert found(text, allow_blanket_noqa=True) == [(3, "RES900"), (7, "RES900")]


def test_a_bare_noqa_that_does_not_count_is_reported_from_the_command_line_and_the_cache(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "m.py").write_text(HEAD + "requests.get('a')  # noqa\n", encoding="utf-8")
    for _ in range(2):  # the second run answers from the cache
        result = run(["-f", "concise", "--cache-dir", str(tmp_path / "cache"), "m.py"], tmp_path)
        assert [line.split(" ")[:2] for line in result.stdout.splitlines()[:2]] == [
            ["m.py:3:1:", "RES101"], ["m.py:3:20:", "RES900"]]


def test_narrowest_directive_is_credited():
    text = "# reslint: noqa: RES101\n" + HEAD + "requests.get('a')  # noqa: RES101\n"
    assert unused(text) == [1]  # the file-wide one only repeats the line's own


# -- the fix --------------------------------------------------------------------------------
@pytest.mark.parametrize("before, after", [
    ("requests.get('a', timeout=5)  # noqa: RES101\n", "requests.get('a', timeout=5)\n"),
    ("requests.get('a', timeout=5)  # noqa: E501, RES101\n", "requests.get('a', timeout=5)  # noqa: E501\n"),
    ("requests.get('a')  # noqa: RES101,RES103\n", "requests.get('a')  # noqa: RES101\n"),
    ("requests.get('a', timeout=5)  # payload  # noqa: RES101\n", "requests.get('a', timeout=5)  # payload\n"),
    ("requests.get('a', timeout=5)  # noqa: RES101  # INV-214\n", "requests.get('a', timeout=5)  # INV-214\n"),
    ("requests.get('a', timeout=5)  # noqa: RES101 flaky server\n", "requests.get('a', timeout=5)  # flaky server\n"),
    ("requests.get('a', timeout=5)  # reslint: ignore[RES101, RES103]\n", "requests.get('a', timeout=5)\n"),
    ("if True:\n    # noqa: RES101\n    requests.get('a', timeout=5)\n",
     "if True:\n    requests.get('a', timeout=5)\n"),
    ("# reslint: noqa: RES102\nx = 1\n", "x = 1\n"),
    ("x = 1\n# noqa: RES101", "x = 1\n"),  # the last line, no line ending
])
def test_fix_removes_unused_codes_and_keeps_the_rest(before, after):
    assert fixed(HEAD + before) == HEAD + after
    assert fix_text(Linter(Settings(root=Path("."))), HEAD + after, "m.py", unsafe=False).text is None


def test_fix_is_safe_and_keeps_crlf():
    text = (HEAD + "# noqa: RES101\nrequests.get('a', timeout=5)  # noqa: E501, RES102\n").replace("\n", "\r\n")
    outcome = fix_text(Linter(Settings(root=Path("."))), text, "m.py", unsafe=False)
    assert outcome.text == (HEAD + "requests.get('a', timeout=5)  # noqa: E501\n").replace("\n", "\r\n")


# -- with the project pass ------------------------------------------------------------------
@pytest.fixture()
def shop(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(CASES / "nested_cross_module", root)
    (root / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    inventory = root / "shop" / "inventory.py"
    inventory.write_text(inventory.read_text(encoding="utf-8").replace("# expect: RES301", "# noqa: RES301"),
                         encoding="utf-8")
    return root


def codes(run_result):
    return sorted((f.filename, f.location.row, f.code) for r in run_result.results for f in r.findings)


def test_noqa_used_only_by_a_project_finding_is_not_unused(shop):
    settings = Settings(root=shop)
    assert ("shop/inventory.py", 11, "RES900") not in codes(Runner(settings, use_cache=False).run([shop]))
    # the file alone (stdin, lint_source) runs no project pass: its codes are not judged there
    text = (shop / "shop" / "inventory.py").read_text(encoding="utf-8")
    assert "RES900" not in [f.code for f in Linter(settings).lint_text(text, "shop/inventory.py")[0]]


def test_verdict_is_not_stale_when_another_file_changes(shop, tmp_path):
    settings = Settings(root=shop)
    cache = tmp_path / "cache"
    inventory = ("shop/inventory.py", 11, "RES900")
    assert inventory not in codes(Runner(settings, cache_dir=cache).run([shop]))
    client = shop / "shop" / "http_layer.py"
    original = client.read_text(encoding="utf-8")
    # the inner retry layer goes away: nothing nests any more, the noqa suppresses nothing
    client.write_text(original.replace("@retry(", "@no_retry(", 1).replace(
        "from tenacity import", "no_retry = lambda **kw: (lambda f: f)\nfrom tenacity import", 1), encoding="utf-8")
    second = Runner(settings, cache_dir=cache)
    result = second.run([shop / "shop" / "inventory.py"])
    assert "shop/inventory.py" not in second.parsed  # inventory.py came from the cache ...
    assert inventory[1:] in [(row, code) for _, row, code in codes(result)]  # ... and was judged again
    client.write_text(original, encoding="utf-8")
    assert inventory not in codes(Runner(settings, cache_dir=cache).run([shop]))


def test_unused_project_noqa_is_reported_and_fixed_from_the_command_line(shop):
    reports = shop / "shop" / "reports.py"
    reports.write_text(reports.read_text(encoding="utf-8").replace("# expect: RES301", "# noqa: RES402"),
                       encoding="utf-8")
    result = run(["--no-cache", "-f", "concise", "."], shop)
    assert "shop/reports.py:19:40: RES900" in result.output
    assert "shop/inventory.py:11" not in result.output
    fixed_run = run(["--no-cache", "--fix", "-f", "concise", "."], shop)
    assert "# noqa" not in reports.read_text(encoding="utf-8").splitlines()[18]
    # what remains after the fix comes from a whole run: the project finding is still there
    assert "shop/reports.py:19:20: RES301" in fixed_run.output
    assert fixed_run.exit_code == 1


# -- --ignore-noqa --------------------------------------------------------------------------
def test_ignore_noqa_reports_suppressed_findings(tmp_path, shop):
    (tmp_path / "app.py").write_text(HEAD + "requests.get('a')  # noqa: RES101\nx = 1  # noqa: RES102\n",
                                     encoding="utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert run(["--isolated", *cache, "-f", "concise", "app.py"], tmp_path).output.startswith("app.py:4:")  # RES900
    result = run(["--isolated", *cache, "--ignore-noqa", "-f", "concise", "app.py"], tmp_path)
    assert result.output.splitlines()[0].startswith("app.py:3:1: RES101")
    assert "RES900" not in result.output
    # a project finding too
    project = run(["--no-cache", "--ignore-noqa", "-f", "concise", "."], shop)
    assert "shop/inventory.py:11:12: RES301" in project.output
    # fixes apply to suppressed findings (Fixit #398: apply a new fix where findings were silenced)
    run(["--isolated", *cache, "--ignore-noqa", "--fix", "--unsafe-fixes", "app.py"], tmp_path)
    assert "requests.get('a', timeout=10)  # noqa: RES101" in (tmp_path / "app.py").read_text(encoding="utf-8")


def test_ignore_noqa_in_the_engine():
    text = HEAD + "requests.get('a')  # noqa: RES101\n"
    findings, _ = Linter(Settings(root=Path(".")), ignore_noqa=True).lint_text(text, "m.py")
    assert [(f.code, f.fix is not None) for f in findings] == [("RES101", True)]


# -- --add-noqa -----------------------------------------------------------------------------
def test_add_noqa_writes_into_a_file_of_syntax_newer_than_the_interpreter(tmp_path):
    # PEP 695: Python 3.11 cannot compile the file, LibCST's grammar reads it (the check that the
    # comments broke nothing must accept it too, or the file would be left without them)
    app = tmp_path / "app.py"
    app.write_text("import requests\n\n\ndef load[T](url: T):\n    return requests.get(url)\n", encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--add-noqa", "."], tmp_path)
    assert (result.exit_code, result.stderr) == (0, "Added 1 noqa directive.\n")
    assert app.read_text(encoding="utf-8").endswith("    return requests.get(url)  # noqa: RES101\n")


def test_add_noqa_writes_merges_and_is_idempotent(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent("""\
        import requests


        def load(url):
            a = requests.get(url)
            b = requests.get(url, timeout=None)  # noqa: E501
            c = requests.get(url, timeout=None)  # reslint: ignore[RES103]
            d = requests.get(url)  # the legacy endpoint
            e = requests.post(
                url,
                json={},
            )
            return a, b, c, d, e
        """), encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--add-noqa", "."], tmp_path)
    assert result.exit_code == 0
    assert "Added 5 noqa directives." in result.stderr
    assert app.read_text(encoding="utf-8") == textwrap.dedent("""\
        import requests


        def load(url):
            a = requests.get(url)  # noqa: RES101
            b = requests.get(url, timeout=None)  # noqa: E501, RES102
            c = requests.get(url, timeout=None)  # reslint: ignore[RES102, RES103]
            d = requests.get(url)  # the legacy endpoint  # noqa: RES101
            e = requests.post(  # noqa: RES101
                url,
                json={},
            )
            return a, b, c, d, e
        """)
    again = run(["--isolated", "--no-cache", "--add-noqa", "."], tmp_path)
    assert "Added 0 noqa directives." in again.stderr
    # what is left: the unused RES103 that was there before (--fix removes it; no noqa is added for RES900)
    remaining = run(["--isolated", "--no-cache", "-q", "-f", "concise", "."], tmp_path).output.splitlines()
    assert [line.split(" ")[:2] for line in remaining] == [["app.py:7:42:", "RES900"]]


def test_add_noqa_sorts_codes_and_keeps_crlf(tmp_path):
    app = tmp_path / "app.py"
    app.write_bytes(b"import requests\r\nrequests.get('u', timeout=None); requests.get('v')  # noqa: X1\r\n")
    run(["--isolated", "--no-cache", "--add-noqa", "app.py"], tmp_path)
    assert app.read_bytes() == (b"import requests\r\nrequests.get('u', timeout=None); requests.get('v')"
                                b"  # noqa: RES101, RES102, X1\r\n")


def test_add_noqa_skips_lines_that_cannot_take_a_comment(tmp_path):
    app = tmp_path / "app.py"
    text = (
        "import requests\n"
        "body = requests.get(f'''{1}\n"  # the line ends inside a string
        "''')\n"
        "resp = requests.get('u') if body \\\n"  # a backslash continuation
        "    else None\n"
        "other = requests.get('v')  # noqa\n"  # a bare noqa reslint does not read
    )
    app.write_text(text, encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--add-noqa", "app.py"], tmp_path)
    assert app.read_text(encoding="utf-8") == text
    assert "app.py:2: no `# noqa` added: the line ends inside a multi-line string" in result.stderr
    assert "app.py:4: no `# noqa` added: the line continues with a backslash" in result.stderr
    assert "app.py:6: no `# noqa` added: the line has a bare `# noqa`" in result.stderr
    assert "Added 0 noqa directives." in result.stderr


def test_add_noqa_covers_project_findings(shop):
    result = run(["--no-cache", "--add-noqa", "."], shop)
    assert "Added 1 noqa directive." in result.stderr  # reports.py's nested retry
    assert run(["--no-cache", "."], shop).exit_code == 0


def test_add_noqa_refuses_fix_diff_and_stdin(tmp_path):
    for extra in (["--fix"], ["--diff"], ["-"]):
        assert run(["--isolated", "--add-noqa", *extra], tmp_path).exit_code == 2


def test_add_noqa_function_directly():
    text = "x = f(1)\ny = f(2)  # noqa: E1, RES101\n"
    out = add_noqa(text, {1: {"RES102"}, 2: {"RES101"}, 9: {"RES101"}})
    assert out.text == "x = f(1)  # noqa: RES102\ny = f(2)  # noqa: E1, RES101\n"
    assert out.added == 1 and out.skipped == [(9, "no such line")]
