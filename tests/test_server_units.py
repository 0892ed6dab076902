"""The language server's parts without a client: positions, the project model, the command.

The end-to-end tests (a real client over stdio) are in tests/test_server.py.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reslint.server.project import Project
from reslint.server.text import UTF8, UTF16, UTF32, TextLines, diff_edit, line_starts

HELPER_POST = 'import requests\n\n\ndef send(x):\n    return requests.post("https://api/x", json=x, timeout=5)\n'
HELPER_GET = HELPER_POST.replace("requests.post", "requests.get").replace("json=", "params=")
APP = textwrap.dedent("""\
    from tenacity import retry, stop_after_attempt, wait_random_exponential

    import helper


    @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=10))
    def push(order):
        return helper.send(order)
    """)


# -- positions -----------------------------------------------------------------------------------------------------
def test_line_starts_split_where_lsp_does():
    assert line_starts("a\r\nb\rc\nd\x0ce\u2028f") == [0, 3, 5, 7]  # not at form feeds or U+2028


@pytest.mark.parametrize("encoding, expected", [(UTF16, 6), (UTF8, 11), (UTF32, 4)])
def test_positions_count_the_encodings_code_units(encoding, expected):
    text = "x\r\n😀é😀ab\n"  # the offset of "b": 3 (line 1) + 4
    lines = TextLines(text, encoding)
    offset = text.index("b")
    assert lines.position(offset) == (1, expected)
    assert lines.offset((1, expected)) == offset
    assert lines.row_column((1, expected)) == (2, 5)
    assert lines.at(2, 5) == (1, expected)


def test_positions_are_clamped_as_lsp_asks():
    lines = TextLines("ab\r\ncd", UTF16)
    assert lines.offset((0, 99)) == 2  # past the end of a line: its end, before the line ending
    assert lines.offset((9, 0)) == 6  # past the last line: the end of the text
    assert lines.position(3) == (0, 2)  # between "\r" and "\n": the end of the line
    assert lines.at(1, 99) == (0, 2)


def test_half_a_surrogate_pair_rounds_to_the_character_after():
    lines = TextLines("😀x", UTF16)
    assert lines.offset((0, 1)) == 1 and lines.offset((0, 2)) == 1


@pytest.mark.parametrize("old, new, expected", [
    ("abc", "abc", None),
    ("a(x)\n", "a(x, t=1)\n", (3, 3, ", t=1")),
    ("a\r\nb\r\n", "a\r\nx\r\nb\r\n", (3, 3, "x\r\n")),
    ("a\r\n", "a\n", (1, 3, "\n")),  # the whole line ending, not half of it
    ("x = 1\r\ny\r\n", "x = 1  # c\r\ny\r\n", (5, 5, "  # c")),
])
def test_diff_edit_is_one_replacement_that_never_splits_crlf(old, new, expected):
    edit = diff_edit(old, new)
    assert edit == expected
    if edit is not None:
        start, end, text = edit
        assert old[:start] + text + old[end:] == new
        assert not (0 < start < len(old) and old[start - 1:start + 1] == "\r\n")
        assert not (0 < end < len(old) and old[end - 1:end + 1] == "\r\n")


# -- the project model ---------------------------------------------------------------------------------------------
def write(tmp_path: Path, files: dict) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")


def project(tmp_path: Path, files: dict) -> Project:
    write(tmp_path, files)
    return Project(tmp_path, use_cache=False)


def codes(checked) -> list:
    return [(f.code, f.location.row) for f in checked.findings]


def test_a_buffer_is_linted_with_the_modules_on_disk(tmp_path):
    model = project(tmp_path, {"helper.py": HELPER_GET, "app.py": APP})
    helper = str(tmp_path / "helper.py")
    assert codes(model.check({helper: HELPER_GET})[helper]) == []
    checked = model.check({helper: HELPER_POST})[helper]  # unsaved: the disk still has the GET
    assert codes(checked) == [("RES402", 5)]
    assert checked.display == "helper.py" and checked.text == HELPER_POST
    assert (tmp_path / "helper.py").read_text(encoding="utf-8") == HELPER_GET


def test_the_same_buffers_give_the_same_outcome_without_linting(tmp_path):
    model = project(tmp_path, {"helper.py": HELPER_POST, "app.py": APP})
    helper = str(tmp_path / "helper.py")
    first = model.check({helper: HELPER_POST})
    assert model.check({helper: HELPER_POST}) is first


def test_a_file_changed_on_disk_counts_once_forgotten(tmp_path):
    model = project(tmp_path, {"helper.py": HELPER_POST, "app.py": APP.replace("@retry", "# @retry")})
    helper = str(tmp_path / "helper.py")
    assert codes(model.check({helper: HELPER_POST})[helper]) == []
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    model.forget([str(tmp_path / "app.py")])
    assert codes(model.check({helper: HELPER_POST})[helper]) == [("RES402", 5)]
    (tmp_path / "extra.py").write_text(APP.replace("def push", "def again"), encoding="utf-8")
    model.forget([str(tmp_path / "extra.py")], created_or_deleted=True)
    assert str(tmp_path / "extra.py") in model.files


def test_a_buffer_with_a_syntax_error_keeps_its_module_in_the_project_pass(tmp_path):
    model = project(tmp_path, {"helper.py": HELPER_POST, "app.py": APP})
    helper, app = str(tmp_path / "helper.py"), str(tmp_path / "app.py")
    assert codes(model.check({helper: HELPER_POST, app: APP})[helper]) == [("RES402", 5)]
    broken = APP.replace("def push(order):", "def push(order:")
    outcome = model.check({helper: HELPER_POST, app: broken})
    assert codes(outcome[helper]) == [("RES402", 5)]  # no flicker in the helper while the caller is typed
    assert [f.code for f in outcome[app].findings] == ["RES000"]  # and nothing but the syntax error here


def test_the_modules_on_disk_come_from_the_command_lines_cache(tmp_path):
    write(tmp_path, {"helper.py": HELPER_POST, "app.py": APP})
    cache = tmp_path / "cache"
    first = Project(tmp_path, use_cache=True, cache_dir=cache)
    first.warm()
    assert sorted(first.runner.parsed) == ["app.py", "helper.py"]
    again = Project(tmp_path, use_cache=True, cache_dir=cache)  # a new server, or reloaded settings
    helper = str(tmp_path / "helper.py")
    assert codes(again.check({helper: HELPER_POST})[helper]) == [("RES402", 5)]
    assert again.runner.parsed == []  # no file on disk parsed again (the buffer is linted apart)


def test_a_configuration_error_falls_back_to_the_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nselct = []\n", encoding="utf-8")
    model = Project(tmp_path, use_cache=False)
    assert "unknown key `tool.reslint.selct`" in model.config_error
    path = str(tmp_path / "app.py")
    assert codes(model.check({path: "import requests\n\nrequests.get(url)\n"})[path]) == [("RES101", 3)]


def test_fix_all_applies_safe_fixes_unless_unsafe_ones_are_allowed(tmp_path):
    model = project(tmp_path, {})
    path = str(tmp_path / "app.py")
    text = "import requests\n\nrequests.get(url)\n"
    findings = model.check({path: text})[path].findings
    assert model.fix_all(path, text, findings, unsafe=False) == (None, None)
    assert model.fix_all(path, text, findings, unsafe=True) == ("import requests\n\nrequests.get(url, timeout=10)\n",
                                                                None)


def test_res402_related_location_is_in_the_module_of_the_retry(tmp_path):
    model = project(tmp_path, {"helper.py": HELPER_POST, "app.py": APP})
    helper = str(tmp_path / "helper.py")
    (finding,) = model.check({helper: HELPER_POST})[helper].findings
    assert [(r.filename, r.location.row) for r in finding.related] == [("app.py", 6)]


# -- the handlers that need no client ------------------------------------------------------------------------------
def test_code_action_kinds_match_their_prefixes():
    lsp = pytest.importorskip("reslint.server.convert", reason="needs the lsp extra")
    assert lsp.kind_matches("source.fixAll.reslint", ["source.fixAll"])
    assert lsp.kind_matches("source.fixAll.reslint", ["source"])
    assert lsp.kind_matches("source.fixAll.reslint", None)
    assert not lsp.kind_matches("source.fixAll.reslint", ["quickfix"])
    assert not lsp.kind_matches("source.fixAllx", ["source.fixAll"])


def test_rule_help_is_the_rule_books_text():
    lsp = pytest.importorskip("reslint.server.convert", reason="needs the lsp extra")
    text = lsp.rule_help("RES402")
    assert text.startswith("**RES402** `non-idempotent-retry` (error)")
    assert "**What it does**" in text and "**Why is this bad?**" in text and "## Example" not in text
    assert text.endswith("(https://github.com/reslint/reslint/blob/main/rules/RES402-non-idempotent-retry.md).")


# -- the command line ----------------------------------------------------------------------------------------------
def test_server_without_the_lsp_extra_exits_2_with_one_line():
    blocked = "import sys; sys.modules['pygls'] = None; from reslint.cli import main; main(['server'])"
    run = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr == ("reslint: error: `reslint server` needs the `lsp` extra (pygls 2 and lsprotocol): "
                          "install reslint with it, e.g. pip install '.[lsp]' in a checkout\n")


def test_importing_reslint_never_imports_pygls():
    code = ("import sys, reslint, reslint.api, reslint.cli, reslint.server, reslint.server.project; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "[]\n"


def test_a_buffer_of_an_excluded_file_gets_no_findings(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.reslint]\nextend-exclude = ["fixtures"]\n', encoding="utf-8")
    (tmp_path / "fixtures").mkdir()
    text = "import requests\n\nrequests.get(url)\n"
    (tmp_path / "fixtures" / "case.py").write_text(text, encoding="utf-8")
    model = Project(tmp_path, use_cache=False)
    excluded, new = str(tmp_path / "fixtures" / "case.py"), str(tmp_path / "new.py")  # new.py: not saved yet
    outcome = model.check({excluded: text, new: text})
    assert outcome[excluded].findings == [] and outcome[excluded].text == text
    assert codes(outcome[new]) == [("RES101", 3)]


def test_a_file_outside_the_workspace_is_linted_alone(tmp_path):
    """Go-to-definition into a library's source outside the workspace: that file is linted
    with its configuration, but its directory is neither walked nor given a cache."""
    from reslint.server.lsp import STANDALONE, Options, Workspace
    from reslint.server.project import Project

    outside = tmp_path / "site-packages" / "lib"
    outside.mkdir(parents=True)
    (outside / "a.py").write_text("import requests\n\n\ndef get(u):\n    return requests.get(u)\n",
                                  encoding="utf-8")
    (outside / "b.py").write_text("import requests\nrequests.get('x')\n", encoding="utf-8")
    project = Project(outside, use_cache=False, walk=False)
    checked = project.check({str(outside / "a.py"): (outside / "a.py").read_text(encoding="utf-8")})
    assert [f.code for f in checked[str(outside / "a.py")].findings] == ["RES101"]
    assert project.files == [] and not (outside / ".reslint_cache").exists()
    workspace = Workspace(Options())
    assert workspace.project(STANDALONE + str(outside)).walk is False
