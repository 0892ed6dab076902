"""Text from checked files never drives a terminal: escape codes and bidi controls in code,
comments, messages and file names are shown as visible escapes in the human formats, the
``github`` format and the messages on stderr; the machine formats keep the exact text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reslint.output.terminal import visible
from tests.test_cli import run

#: payload -> how the output must show it (written out, not computed with ``visible``)
PAYLOADS = {
    "osc52": ("\x1b]52;c;ZXZpbA==\x07", r"\x1b]52;c;ZXZpbA==\x07"),  # clipboard write
    "osc8": ("\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07",  # hyperlink
             r"\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07"),
    "osc0": ("\x1b]0;pwned\x07", r"\x1b]0;pwned\x07"),  # window title
    "csi": ("\x1b[2J", r"\x1b[2J"),  # clear the screen
    "c1csi": ("\u009b2J", r"\u009b2J"),  # the one-character CSI
    "bel": ("\x07", r"\x07"),
    "rlo": ("\u202e", r"\u202e"),  # right-to-left override (Trojan Source)
}

#: a finding (RES101) on the line of the payload, in a string and in a comment
SOURCE = 'import requests\nrequests.get("http://x{0}")  # {0}\n'

#: RES102 quotes the timeout's code in its message and fix message: here a comment and a newline
QUOTING = 'import requests\nrequests.get("u", timeout=(None  # \x1b]0;title\x07\n))\n'

#: what a terminal may receive besides text: newline, tab, and (with colour) the SGR codes reslint writes
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
SGR = re.compile(r"\x1b\[[0-9;]*m")

HUMAN_LINE = re.compile(
    r"\S.*:\d+:\d+: RES\d{3} .*"  # a finding (both formats)
    r"|\s*\|( .*)?|\d+ \| .*|\s+= help: .*|"  # full: frame, help, blank
    r"|Found \d+ errors?.*|\[\*\] \d+ fixable .*|\d+ hidden fix.*")  # the summary


@pytest.fixture(autouse=True)
def _cache_outside_the_checkout(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RESLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def assert_safe(text: str, color: bool) -> None:
    """``text`` holds no control character but newline and tab, and ESC only to start an SGR
    colour sequence (only when ``color``)."""
    plain = SGR.sub("", text) if color else text
    bad = UNSAFE.search(plain)
    assert bad is None, f"raw {bad.group()!r} in {text!r}"


def assert_lines_are_reslints(text: str, fmt: str) -> None:
    """Each line of stdout is one reslint writes: no line forged by a newline in a name or message."""
    for line in SGR.sub("", text).splitlines():
        if fmt == "github":
            assert re.fullmatch(r"::(error|warning) title=reslint \(RES\d{3}\),file=[^,]*,line=\d+[^:]*::RES\d{3} .*",
                                line), line
        else:
            assert HUMAN_LINE.fullmatch(line), line


@pytest.fixture()
def hostile(tmp_path):
    """A directory with one file per payload and one whose message quotes code over two lines."""
    for name, (payload, _) in PAYLOADS.items():
        (tmp_path / f"{name}.py").write_text(SOURCE.format(payload), encoding="utf-8")
    (tmp_path / "quoting.py").write_text(QUOTING, encoding="utf-8")
    return tmp_path


def _check(args, cwd: Path, fmt: str, color: str):
    result = run(["--isolated", "--no-cache", "-f", fmt, "--color", color, *args], cwd)
    assert result.exit_code == 1, result.output
    assert_safe(result.stdout, color == "always")
    assert_safe(result.stderr, False)
    assert_lines_are_reslints(result.stdout, fmt)
    if color == "never":
        assert "\x1b" not in result.stdout
    return result


@pytest.mark.parametrize("color", ["always", "never"])
@pytest.mark.parametrize("fmt", ["full", "concise", "github"])
def test_escape_codes_in_code_are_shown_not_obeyed(hostile, fmt, color):
    out = SGR.sub("", _check(["."], hostile, fmt, color).stdout)
    for name, (_, shown) in PAYLOADS.items():
        findings = [line for line in out.splitlines() if f"{name}.py" in line]
        assert findings, name
        if fmt == "full":  # the code frame shows the line, string and comment
            assert f'2 | requests.get("http://x{shown}")  # {shown}' in out, name
    # the message (and in full the fix message) quotes code with a comment and a newline
    assert r"`(None  # \x1b]0;title\x07\x0a)` disables the timeout" in out.replace("%0A", r"\x0a")
    if fmt == "full":
        assert r"= help: Replace `(None  # \x1b]0;title\x07\x0a)` with `10`" in out


def _name_or_skip(directory: Path, name: str) -> Path:
    path = directory / name
    try:
        path.write_text(SOURCE.format(""), encoding="utf-8")
    except (OSError, ValueError):
        pytest.skip(f"the file system refuses the name {name!r}")
    return path


@pytest.mark.parametrize("color", ["always", "never"])
@pytest.mark.parametrize("fmt", ["full", "concise", "github"])
def test_file_names_with_a_newline_or_an_escape_forge_nothing(tmp_path, fmt, color):
    _name_or_skip(tmp_path, "a\n::warning::forged\nb.py")
    _name_or_skip(tmp_path, "e\x1b]0;t\x07.py")
    out = SGR.sub("", _check(["."], tmp_path, fmt, color).stdout)
    if fmt == "github":
        # a newline in a property is the runner's %0A (exact); other controls are visible escapes
        assert "file=a%0A%3A%3Awarning%3A%3Aforged%0Ab.py,line=2," in out
        assert r"file=e\x1b]0;t\x07.py,line=2," in out
    else:
        assert r"a\x0a::warning::forged\x0ab.py:2:1: RES101" in out
        assert r"e\x1b]0;t\x07.py:2:1: RES101" in out


def test_diff_shows_escapes_in_headers_and_code(hostile):
    _name_or_skip(hostile, "e\x1b[2J.py")
    result = run(["--isolated", "--no-cache", "--diff", "--unsafe-fixes", "."], hostile)
    assert result.exit_code == 1
    assert_safe(result.stdout, False)
    assert r"--- a/e\x1b[2J.py" in result.stdout and r"+++ b/e\x1b[2J.py" in result.stdout
    assert r'+requests.get("http://x\x1b]52;c;ZXZpbA==\x07", timeout=10)  # \x1b]52;c;ZXZpbA==\x07' \
        in result.stdout


def test_messages_on_stderr_show_escapes(tmp_path):
    directory = tmp_path / "d\x1b]0;t\x07"
    try:
        directory.mkdir()
    except OSError:
        pytest.skip("the file system refuses the name")
    (directory / ".gitignore").write_text("!\n", encoding="utf-8")
    (directory / "app.py").write_text(SOURCE.format(""), encoding="utf-8")
    warned = run(["--isolated", "--no-cache", "-f", "concise", "."], tmp_path)
    assert r"d\x1b]0;t\x07/.gitignore:1: ignored a pattern" in warned.stderr
    missing = run(["--isolated", "--no-cache", "nope\x1b[2J.py"], tmp_path)
    # a missing path is a RES000 finding (exit status 1) and a warning, both escaped
    assert missing.exit_code == 1 and r"nope\x1b[2J.py: no such file or directory" in missing.stderr
    assert r"nope\x1b[2J.py:1:1: RES000" in missing.stdout
    assert_safe(missing.stdout, False)
    fixed = run(["--isolated", "--no-cache", "--fix", "--unsafe-fixes", "--show-fixes", "."], tmp_path)
    assert r"- d\x1b]0;t\x07/app.py: 1 x RES101" in fixed.stderr
    for result in (warned, missing, fixed):
        assert_safe(result.stdout, False)
        assert_safe(result.stderr, False)


def _frame(output: str, row: int):
    """(the code line, the caret line) of the first frame of ``row``, without their gutters."""
    lines = output.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(f"{row} | "))
    gutter = len(f"{row} | ")
    return lines[index][gutter:], lines[index + 1][gutter:]


def test_carets_stay_under_the_code_after_escaping(tmp_path):
    # escapes (and a tab) before the finding and inside it: the carets move by the escapes' width
    (tmp_path / "app.py").write_text('import requests\nx = "\x1b\t\u202e\x07"; requests.get("u\x9b\x1b[2J")\n',
                                     encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--color", "never", "app.py"], tmp_path)
    code, carets = _frame(result.output, 2)
    call = r'requests.get("u\u009b\x1b[2J")'
    assert code == r'x = "\x1b \u202e\x07"; ' + call
    assert carets == " " * code.index("requests") + "^" * len(call)


def test_frames_count_lines_as_python_does(tmp_path):
    # a form feed, U+0085 and U+2028 are not line breaks to Python: the frame shows row 3 itself
    (tmp_path / "app.py").write_text('import requests\nx = 1  # a\x0cb\x85c\u2028d\nrequests.get("u")\n',
                                     encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--color", "never", "app.py"], tmp_path)
    assert _frame(result.output, 3) == ('requests.get("u")', "^" * len('requests.get("u")'))


def test_diff_marks_a_last_line_without_a_newline(tmp_path):
    (tmp_path / "app.py").write_text('import requests\nrequests.get("u")', encoding="utf-8")
    result = run(["--isolated", "--no-cache", "--diff", "--unsafe-fixes", "app.py"], tmp_path)
    assert result.stdout.endswith('-requests.get("u")\n\\ No newline at end of file\n'
                                  '+requests.get("u", timeout=10)\n\\ No newline at end of file\n')


def test_json_keeps_the_exact_text(hostile):
    name = "e\x1b]0;t\x07.py"
    _name_or_skip(hostile, name)
    result = run(["--isolated", "--no-cache", "-f", "json", "."], hostile)
    assert "\x1b" not in result.stdout and "\\u001b" in result.stdout  # a JSON escape, not a raw ESC
    findings = json.loads(result.stdout)
    assert any(f["filename"] == name for f in findings)
    quoting = next(f for f in findings if f["filename"] == "quoting.py")
    assert "`(None  # \x1b]0;title\x07\n)`" in quoting["message"]


def test_visible():
    assert visible("a\x1b[2J\x07\x00\n\r\x7f") == r"a\x1b[2J\x07\x00\x0a\x0d\x7f"
    assert visible("\x85\x9b\u202a\u202e\u2066\u2069\u200e\u200f\u061c\u2028") == \
        r"\u0085\u009b\u202a\u202e\u2066\u2069\u200e\u200f\u061c\u2028"
    assert visible("tab\tand \\x1b and é ü 中") == "tab\tand \\x1b and é ü 中"  # unchanged
    text = "ab\x1bc\u202ed"
    assert all(visible(text[:i]) + visible(text[i:]) == visible(text) for i in range(len(text)))


def test_github_escapes_the_runners_way_then_makes_the_rest_visible():
    from reslint.output.github import escape_data, escape_property

    assert escape_data("50%\r\n\x1b]0;t\x07 a:b,c\t\u202e") == r"50%25%0D%0A\x1b]0;t\x07 a:b,c" + "\t" + r"\u202e"
    assert escape_property("e\x1b:,\n\x9b.py") == r"e\x1b%3A%2C%0A\u009b.py"


@pytest.mark.parametrize("graph_format", ["mermaid", "dot"])
def test_graph_labels_show_escapes(tmp_path, graph_format):
    """``reslint graph`` prints file names in its labels: a newline there would end the
    statement (a forged node or edge), an escape sequence would reach the terminal."""
    name = "svc\n::x\x1b]0;t\x07.py"
    try:
        (tmp_path / name).write_text(
            "import tenacity\n\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(3))\n"
            "def pull():\n    return 1\n", encoding="utf-8")
    except OSError:
        pytest.skip("the file system refuses the name")
    result = run(["graph", "--isolated", "--no-cache", "--format", graph_format, "."], tmp_path)
    assert result.exit_code == 0, result.output
    shown = r"svc\x0a::x\x1b]0;t\x07.py:"
    assert (shown if graph_format == "mermaid" else shown.replace("\\", "\\\\")) in result.stdout
    assert_safe(result.stdout, False)
    assert "\n::x" not in result.stdout
