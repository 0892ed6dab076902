"""Hostile input and fix safety (issue 7): reslint never crashes and never corrupts a file.

Every test states the exact outcome for one hostile input: ``RES000`` with a clear
message for that path, or clean; that the run goes on for the other files (each project
holds a *witness* file with one ordinary finding); and the exit status of the README
(``1`` while findings remain, ``2`` only for usage, configuration and internal errors).

Inputs that could take the test process down with them (deep nesting reaches LibCST's
native parser, which can overflow the C stack) run reslint in a subprocess. Tests that
take more than 20 s are marked ``slow`` (deselect them with ``-m "not slow"``).

Behaviour that contradicts the README or issue 7 is kept as a test that fails for that
reason, marked ``xfail(strict=True)``: it turns into an error as soon as the engine is
fixed, so that the marker is removed with the fix.
"""

from __future__ import annotations

import ast
import errno
import json
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import libcst
import libcst.metadata
import pytest
from click.testing import CliRunner

import reslint
from reslint.engine.cache import ENTRY_DIR
from reslint.cli import main

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "fixtures" / "cases"

#: one ordinary finding, in every project: its report shows that the run went on
WITNESS_NAME = "zz_witness.py"
WITNESS = "import requests\n\n\ndef load(url):\n    return requests.get(url)\n"
WITNESS_FINDING = (WITNESS_NAME, "RES101", 5, 12)
MISSING = "`requests.get` call has no timeout"  # how every RES101 message on requests.get starts


# -- helpers ----------------------------------------------------------------------------------
def run_cli(project: Path, *args: str, isolated: bool = True, cache: Optional[Path] = None):
    """``reslint ARGS`` in-process with ``project`` as the working directory.

    Exceptions are not caught: a crash fails the test with its traceback. Returns
    ``(exit code, stdout, stderr)``.
    """
    argv = []
    if isolated:
        argv.append("--isolated")
    argv += ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    argv += list(args)
    old = os.getcwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(main, argv, catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


def run_proc(project: Path, *args: str, timeout: float = 300, cache: Optional[Path] = None,
             isolated: bool = True) -> subprocess.CompletedProcess:
    """``python -m reslint ARGS`` in a subprocess (survives a segfault or a hang)."""
    argv = [sys.executable, "-m", "reslint"]
    if isolated:
        argv.append("--isolated")
    argv += ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    argv += list(args)
    env = dict(os.environ, NO_COLOR="1")
    env["RESLINT_CACHE_DIR"] = str(cache or project.parent / "unused-cache")
    return subprocess.run(argv, cwd=project, capture_output=True, timeout=timeout, env=env)


def records(stdout: str) -> List[Tuple[str, str, int, int, str]]:
    """(filename, code, row, column, message) of ``-f json`` output."""
    return [(r["filename"], r["code"], r["location"]["row"], r["location"]["column"], r["message"])
            for r in json.loads(stdout)]


def of(rows, filename: str):
    return [(code, row, col, message) for name, code, row, col, message in rows if name == filename]


def matches(found, expected) -> bool:
    """``expected`` rows are (code, row, column, message): RES000 messages must be equal,
    other messages must start with the given text."""
    if len(found) != len(expected):
        return False
    for (code, row, col, message), (e_code, e_row, e_col, e_message) in zip(found, expected):
        if (code, row, col) != (e_code, e_row, e_col):
            return False
        if message != e_message and (code == "RES000" or not message.startswith(e_message)):
            return False
    return True


def python_says(source: bytes) -> Optional[Tuple[int, int, str]]:
    """Where and why the running Python rejects ``source`` (its RES000 row, column and
    message); ``None`` when this version of Python accepts it, or when LibCST's grammar of
    newer Pythons does (Python 2's ``except Exception, e:`` is Python 3.14's PEP 758 tuple)."""
    try:
        compile(source, "x.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        try:
            libcst.parse_module(source)
            return None
        except Exception:  # noqa: BLE001 - the native parser raises assorted errors
            pass
        known = libcst.KNOWN_PYTHON_VERSION_STRINGS
        return exc.lineno or 1, exc.offset or 1, (
            f"cannot parse: {exc.msg} (rejected by Python {sys.version_info[0]}.{sys.version_info[1]}'s grammar and "
            f"by LibCST's, which reads Python {known[0]} to {known[-1]})")
    except (ValueError, RecursionError, MemoryError) as exc:
        return 1, 1, f"cannot parse: {exc}"
    return None


def project_with(tmp_path: Path, files: Dict[str, bytes]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name, data in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (project / WITNESS_NAME).write_text(WITNESS, encoding="utf-8")
    return project


def assert_run_goes_on(rows, code: int, stderr: str) -> None:
    assert (WITNESS_NAME, "RES101", 5, 12) in [r[:4] for r in rows], "the other file was not reported"
    assert code == 1, f"exit status {code} (README: 1 while findings remain); stderr: {stderr}"
    assert "Traceback" not in stderr


# -- hostile files: the table ------------------------------------------------------------------
# each imports requests: a file that imports nothing reslint looks at is not parsed at all
PY2_PRINT = b'import requests\nprint "x"\n'
PY2_EXCEPT = b"import requests\ntry:\n    pass\nexcept Exception, e:\n    pass\n"
UNTERMINATED = b'import requests\ns = "abc\nrequests.get("u")\n'
UNTERMINATED_TRIPLE = b'import requests\ns = """abc\nrequests.get("u")\n'
MATCH = (b"import requests\n\n\ndef handle(command, url):\n    match command:\n        case \"get\":\n"
         b"            return requests.get(url)\n        case _:\n            return None\n")
MATCH_SOFT_KEYWORD = b"match = [1]\nmatch[0] = match(2) if callable(match) else 3\ncase = match\n"
BACKSLASH_EOF = b"import requests\nx = 1 + \\"


def _syntax_error(source: bytes):
    """The RES000 row expected for ``source``, or ``None`` when this Python accepts it."""
    said = python_says(source)
    return None if said is None else [("RES000", *said)]


HOSTILE = {
    # name: (bytes, expected rows for that file: (code, row, column, message or message start))
    "python2_print": (PY2_PRINT, _syntax_error(PY2_PRINT)),
    "python2_except": (PY2_EXCEPT, _syntax_error(PY2_EXCEPT)),
    "unterminated_string": (UNTERMINATED, _syntax_error(UNTERMINATED)),
    "unterminated_triple_quoted_string": (UNTERMINATED_TRIPLE, _syntax_error(UNTERMINATED_TRIPLE)),
    "backslash_at_end_of_file": (BACKSLASH_EOF, _syntax_error(BACKSLASH_EOF)),
    # match (3.10+): LibCST must parse it, and the call inside a case is checked
    "match_statement": (MATCH, [("RES101", 7, 20, MISSING)]),
    "match_as_a_name": (MATCH_SOFT_KEYWORD, []),
    "invalid_utf8_on_line_1": (b'x = "\xff\xfe"\n',
                               [("RES000", 1, 1, "cannot decode file: invalid or missing encoding declaration")]),
    "invalid_utf8_on_line_3": (b'import os\n\nx = "\xff"\n', [("RES000", 1, 1, "cannot decode file: invalid start byte")]),
    "truncated_utf8_at_end": (b'x = 1\ny = "\xc3', [("RES000", 1, 1, "cannot decode file: unexpected end of data")]),
    "nul_bytes": (b"import requests\nx = 1\x00\nrequests.get('u')\n",
                  _syntax_error(b"import requests\nx = 1\x00\nrequests.get('u')\n")),
    "binary_content": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
                       [("RES000", 1, 1, "cannot decode file: invalid or missing encoding declaration")]),
    "unknown_coding_cookie": (b"# -*- coding: klingon -*-\nx = 1\n",
                              [("RES000", 1, 1, "cannot decode file: unknown encoding: klingon")]),
    "bom_with_a_latin1_cookie": (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
                                 [("RES000", 1, 1, "cannot decode file: encoding problem: utf-8")]),
    "cp1252_cookie_with_an_undefined_byte": (b"# coding: cp1252\nx = '\x81'\n",
                                             [("RES000", 1, 1, "cannot decode file: character maps to <undefined>")]),
    "empty": (b"", []),
    "only_blank_lines": (b"\n\n   \n\t\n", []),
    "only_a_bom": (b"\xef\xbb\xbf", []),
    "only_a_comment_without_newline": (b"# nothing here", []),
    "only_form_feeds": (b"\x0c\n\x0c\x0c\n", []),
    "lone_carriage_returns": (b'import requests\rrequests.get("u")\r', [("RES101", 2, 1, MISSING)]),
    "tabs_and_form_feeds": (b'import requests\n\x0c\nif True:\n\tx = 1\n\tif x:\n\t\trequests.get("u")\n',
                            [("RES101", 6, 3, MISSING)]),
    "very_long_line": (b"import requests\nx = [" + b"1, " * 50_000 + b"]\nrequests.get('u')\n",
                       [("RES101", 3, 1, MISSING)]),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file(tmp_path, name):
    data, expected = HOSTILE[name]
    if expected is None:
        pytest.skip("this version of Python accepts the input")
    project = project_with(tmp_path, {"hostile.py": data})
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    assert matches(of(rows, "hostile.py"), expected), of(rows, "hostile.py")
    assert_run_goes_on(rows, code, err)
    # alone: 1 for a finding (RES000 included), 0 when clean; never 2
    code, out, err = run_cli(project, "-f", "json", "hostile.py")
    assert code == (1 if expected else 0), err
    assert matches(of(records(out), "hostile.py"), expected)


# -- encodings and line endings: lint, then --fix keeps every byte but the fix -------------------
def _call(prefix: bytes, call: bytes = b'requests.get("u")', nl: bytes = b"\n") -> bytes:
    return prefix + b"import requests" + nl + call + nl


FIXED = b'requests.get("u", timeout=10)'
BYTE_EXACT = {
    # name: (original, the one finding (row, column), the file after `--fix --unsafe-fixes`)
    "latin1_cookie": (
        b"# -*- coding: latin-1 -*-\nimport requests\n# caf\xe9 cr\xe8me\nrequests.get('na\xefve')\n", (4, 1),
        b"# -*- coding: latin-1 -*-\nimport requests\n# caf\xe9 cr\xe8me\nrequests.get('na\xefve', timeout=10)\n"),
    "cp1252_cookie": (
        b"# coding: cp1252\nimport requests\nx = '\x80 \x93q\x94'; requests.get('\x85')\n", (3, 14),
        b"# coding: cp1252\nimport requests\nx = '\x80 \x93q\x94'; requests.get('\x85', timeout=10)\n"),
    "utf8_bom": (_call(b"\xef\xbb\xbf"), (2, 1), b"\xef\xbb\xbfimport requests\n" + FIXED + b"\n"),
    "utf8_non_ascii_before_the_call": (
        "import requests\nx = 'é€😀'; requests.get('ü')\n".encode(), (2, 12),
        "import requests\nx = 'é€😀'; requests.get('ü', timeout=10)\n".encode()),
    "crlf": (_call(b"", nl=b"\r\n"), (2, 1), b"import requests\r\n" + FIXED + b"\r\n"),
    "mixed_line_endings": (
        b'import requests\r\nx = 1\nrequests.get("u")\r\ny = 2\rz = 3\n', (3, 1),
        b'import requests\r\nx = 1\n' + FIXED + b'\r\ny = 2\rz = 3\n'),
    "lone_cr": (_call(b"", nl=b"\r"), (2, 1), b"import requests\r" + FIXED + b"\r"),
    "no_newline_at_end": (b'import requests\nrequests.get("u")', (2, 1), b"import requests\n" + FIXED),
    "tabs_and_form_feeds": (
        b'import requests\n\x0c\nif True:\n\tif 1:\n\t\trequests.get("u")  \t# trailing\n\x0c\n', (5, 3),
        b'import requests\n\x0c\nif True:\n\tif 1:\n\t\t' + FIXED + b'  \t# trailing\n\x0c\n'),
    "multi_line_call_crlf": (
        b'import requests\r\nrequests.get(\r\n    "u",\r\n)\r\n', (2, 1),
        b'import requests\r\nrequests.get(\r\n    "u",\r\n    timeout=10,\r\n)\r\n'),
    # a fix that adds an import: the new line takes the file's line ending, the BOM stays first
    "bom_crlf_fix_adds_an_import": (
        b'\xef\xbb\xbfimport boto3\r\nc = boto3.client("s3")\r\n', (2, 5),
        b'\xef\xbb\xbfimport boto3\r\nimport botocore.config\r\n'
        b'c = boto3.client("s3", config=botocore.config.Config(connect_timeout=10, read_timeout=10))\r\n'),
    "latin1_crlf_fix_extends_an_import": (
        b"# coding: latin-1\r\nfrom aiohttp import ClientSession\r\n# \xe9\r\nasync def f():\r\n"
        b"    async with ClientSession() as s:\r\n        return s\r\n", (5, 16),
        b"# coding: latin-1\r\nfrom aiohttp import ClientSession, ClientTimeout\r\n# \xe9\r\nasync def f():\r\n"
        b"    async with ClientSession(timeout=ClientTimeout(total=10)) as s:\r\n        return s\r\n"),
}


@pytest.mark.parametrize("name", sorted(BYTE_EXACT))
def test_fix_keeps_encoding_bom_and_line_endings_byte_exact(tmp_path, name):
    original, (row, col), fixed = BYTE_EXACT[name]
    # a 30 s ceiling reports botocore's 60 s defaults (the case whose fix adds an import)
    project = project_with(tmp_path, {"hostile.py": original, "pyproject.toml": b"[tool.reslint]\nmax-timeout = 30\n"})
    path = project / "hostile.py"
    os.chmod(path, 0o640)
    code, out, err = run_cli(project, "-f", "json", ".", isolated=False)
    found = of(records(out), "hostile.py")
    assert [(c, r, k) for c, r, k, _ in found] == [("RES101", row, col)]
    assert_run_goes_on(records(out), code, err)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".", isolated=False)
    assert path.read_bytes() == fixed
    assert (project / WITNESS_NAME).read_text(encoding="utf-8").count("timeout=10") == 1
    assert code == 0, err  # everything fixed
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert not [p.name for p in project.iterdir() if p.name.startswith(".reslint-")], "temporary file left"


def test_fix_with_a_codec_that_does_not_round_trip_changes_only_the_fix(tmp_path):
    original = b'# coding: unicode_escape\nimport requests\nrequests.get("u")\n'
    project = project_with(tmp_path, {"hostile.py": original})
    run_cli(project, "--fix", "--unsafe-fixes", ".")
    after = (project / "hostile.py").read_bytes()
    # either the fix, byte-exact, or the file left alone (and reported): never a rewritten file
    assert after in (original, original.replace(b'("u")', b'("u", timeout=10)'))


@pytest.mark.parametrize("name", ["latin1_cookie", "utf8_bom", "cp1252_cookie"])
def test_stdin_fix_keeps_encoding_and_bom(tmp_path, name):
    original, _, fixed = BYTE_EXACT[name]
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "--fix", "--unsafe-fixes",
                           "--stdin-filename", "hostile.py", "-"], input=original, cwd=tmp_path, env=env,
                          capture_output=True, timeout=120)
    assert b"Traceback" not in proc.stderr
    assert proc.stdout == fixed


def test_coding_cookie_whose_codec_raises_unicodeerror_is_res000(tmp_path):
    project = project_with(tmp_path, {"hostile.py": b"# coding: punycode\nx = 1\n"})
    code, out, err = run_cli(project, "-f", "json", ".")
    found = of(records(out), "hostile.py")
    assert [(c, r, k) for c, r, k, _ in found] == [("RES000", 1, 1)]
    assert found[0][3].startswith("cannot decode file:")
    assert_run_goes_on(records(out), code, err)


# -- a 5 MB generated file ------------------------------------------------------------------------
@pytest.mark.slow
def test_five_megabyte_generated_file_completes(tmp_path):
    """A 5 MB generated lookup table (about 45 s to lint on a 2-core machine: LibCST parses
    every file because RES301 needs a summary of every module; `--fix` takes minutes)."""
    parts = ['# @generated by a table generator. DO NOT EDIT.\n"""A lookup table."""\nimport requests\n\nTABLE = {\n']
    size, i = len(parts[0]), 0
    while size < 5 * 1024 * 1024:
        line = f'    "key_{i:07d}": ({i}, "{"v" * 40}", {i * 0.5!r}),\n'
        parts.append(line)
        size += len(line)
        i += 1
    parts.append("}\n\n\ndef fetch(url):\n    return requests.get(url)\n")
    text = "".join(parts)
    project = project_with(tmp_path, {"big.py": text.encode()})
    last_row = text.count("\n")
    started = time.monotonic()
    proc = run_proc(project, "-f", "json", ".", timeout=900)
    elapsed = time.monotonic() - started
    rows = records(proc.stdout.decode())
    assert of(rows, "big.py") == [("RES101", last_row, 12, of(rows, "big.py")[0][3])]
    assert_run_goes_on(rows, proc.returncode, proc.stderr.decode())
    print(f"5 MB file: {elapsed:.0f} s")


# -- deep nesting: subprocess, because the native parser can overflow the C stack ----------------
def _nested(expression: str) -> bytes:
    return f"import requests\nrequests.get({expression})\n".encode()


DEEP = {
    # name: (source, expected rows for that file, whether `--fix --unsafe-fixes` changes the file)
    "parentheses_150": (_nested("(" * 150 + "1" + ")" * 150), [("RES101", 2, 1, MISSING)], True),
    "parentheses_1000": (_nested("(" * 1000 + "1" + ")" * 1000),
                         _syntax_error(_nested("(" * 1000 + "1" + ")" * 1000)), False),
    "lists_150": (_nested("[" * 150 + "1" + "]" * 150), [("RES101", 2, 1, MISSING)], True),
    "attribute_chain_1000": (_nested("a" + ".b" * 1000), [("RES101", 2, 1, MISSING)], True),
    "subscripts_1000": (_nested("a" + "[0]" * 1000), [("RES101", 2, 1, MISSING)], True),
    "additions_1000": (_nested("+".join(["1"] * 1000)), [("RES101", 2, 1, MISSING)], True),
    "additions_20000": (_nested("+".join(["1"] * 20000)), _syntax_error(_nested("+".join(["1"] * 20000))), False),
    "comparisons_5000": (_nested("<".join(["1"] * 5000)), [("RES101", 2, 1, MISSING)], True),
    "unary_minus_1000": (_nested("-" * 1000 + "1"), [("RES101", 2, 1, MISSING)], True),
    "implicit_concatenation_1500": (_nested(" ".join(["'a'"] * 1500)), [("RES101", 2, 1, MISSING)], True),
    "nested_blocks_99": (b"import requests\n" + b"".join(b"    " * i + b"if x:\n" for i in range(99))
                         + b"    " * 99 + b"requests.get(u)\n", [("RES101", 101, 397, MISSING)], True),
    "nested_blocks_101": (b"import requests\n" + b"".join(b"    " * i + b"if x:\n" for i in range(101))
                          + b"    " * 101 + b"requests.get(u)\n",
                          _syntax_error(b"import requests\n" + b"".join(b"    " * i + b"if x:\n" for i in range(101))
                                        + b"    " * 101 + b"requests.get(u)\n"), False),
    "nested_functions_60": (b"import requests\n" + b"".join(b"    " * i + f"def f{i}():\n".encode() for i in range(60))
                            + b"    " * 60 + b"return requests.get(u)\n", [("RES101", 62, 248, MISSING)], True),
}


def _deep_check(tmp_path, name, source, expected, fixes):
    if expected is None:
        pytest.skip("this version of Python accepts the input")
    project = project_with(tmp_path, {"deep.py": source})
    proc = run_proc(project, "-f", "json", ".", timeout=600)
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode >= 0, f"reslint was killed by signal {-proc.returncode} (stack overflow?)"
    rows = records(proc.stdout.decode())
    assert matches(of(rows, "deep.py"), expected), of(rows, "deep.py")
    assert_run_goes_on(rows, proc.returncode, err)
    proc = run_proc(project, "--fix", "--unsafe-fixes", "-f", "json", ".", timeout=600)
    assert proc.returncode >= 0, f"reslint --fix was killed by signal {-proc.returncode}"
    after = (project / "deep.py").read_bytes()
    assert (after != source) == fixes
    if fixes:
        compile(after, "deep.py", "exec", dont_inherit=True)


def _renders(source: bytes) -> bool:
    """Whether LibCST can render ``source``'s tree (positions, fixes) on this Python, on a
    large stack with the recursion limit raised as reslint does: from Python 3.12 on, a C
    recursion limit fixed at build time bounds the depth (1,500 calls on 3.12.1, 10,000 on
    3.13; two per level of nesting), whatever the stack and ``sys.setrecursionlimit``."""
    outcome = []

    def render():
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(200000)
        try:
            module = libcst.parse_module(source)
            libcst.metadata.MetadataWrapper(module, unsafe_skip_copy=True).resolve(libcst.metadata.PositionProvider)
            outcome.append(module.code == source.decode())
        except RecursionError:
            outcome.append(False)
        finally:
            sys.setrecursionlimit(limit)

    previous = threading.stack_size(256 * 1024 * 1024)
    try:
        thread = threading.Thread(target=render)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    return outcome == [True]


def _too_deep_for_this_python() -> str:
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if sys.version_info >= (3, 12):
        return (f"cannot analyse: too deeply nested (for Python {running}'s fixed C recursion limit; reslint on "
                "Python 3.11 or earlier checks deeper nesting)")
    return "cannot analyse: too deeply nested"


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deeply_nested_expressions(tmp_path, name):
    source, expected, fixes = DEEP[name]
    if expected and expected[0][0] != "RES000" and not _renders(source):
        # beyond what LibCST can render on this Python (3.12.1: 1,000 nested additions): a clear RES000
        expected, fixes = [("RES000", 1, 1, _too_deep_for_this_python())], False
    _deep_check(tmp_path, name, source, expected, fixes)


#: From Python 3.12 on, LibCST's code generator (positions, fixes), which makes two calls
#: through C per level of nesting, meets the interpreter's C recursion limit, fixed when it was
#: built (10,000 on 3.13, 1,500 on 3.12.1): see ``reslint.engine.filepass._too_deep``
C_RECURSION_LIMITED = sys.version_info >= (3, 12)


@pytest.mark.xfail(C_RECURSION_LIMITED, strict=True,
                   reason="Python 3.12+: a 10,000-operand chain is beyond the C recursion limit LibCST's "
                          "code generator meets (RES000, tested below)")
def test_long_boolean_chain_does_not_kill_the_process(tmp_path):
    source = _nested(" and ".join(["x"] * 10000))
    _deep_check(tmp_path, "and_chain", source, [("RES101", 2, 1, MISSING)], True)


def test_long_boolean_chain_beyond_the_c_recursion_limit_is_res000_with_the_reason(tmp_path):
    if not C_RECURSION_LIMITED:
        pytest.skip(f"Python {sys.version_info[0]}.{sys.version_info[1]} has no fixed C recursion limit: "
                    "the chain is checked (test_long_boolean_chain_does_not_kill_the_process)")
    source = _nested(" and ".join(["x"] * 10000))
    assert not _renders(source)
    _deep_check(tmp_path, "and_chain", source, [("RES000", 1, 1, _too_deep_for_this_python())], False)


def test_long_boolean_chain_within_the_c_recursion_limit_is_checked_and_fixed(tmp_path):
    operands = 400 if sys.version_info[:2] == (3, 12) else 4000  # 3.12.1's limit: 1,500 calls, 3.13's 10,000
    assert _renders(_nested(" and ".join(["x"] * operands)))
    _deep_check(tmp_path, "and_chain", _nested(" and ".join(["x"] * operands)), [("RES101", 2, 1, MISSING)], True)


def test_nesting_beyond_the_python_parser_has_a_clear_message(tmp_path):
    project = project_with(tmp_path, {"deep.py": _nested("-" * 10000 + "1")})
    proc = run_proc(project, "-f", "json", ".")
    rows = records(proc.stdout.decode())
    found = of(rows, "deep.py")
    assert [r[0] for r in found] == ["RES000"]
    assert len(found[0][3]) > len("cannot parse: ") + 5, found[0][3]
    assert_run_goes_on(rows, proc.returncode, proc.stderr.decode())


# -- odd files on disk ---------------------------------------------------------------------------
def test_generated_file_is_linted_and_fixed_like_any_other(tmp_path):
    """reslint has no notion of generated files: a file marked ``@generated`` (or
    ``DO NOT EDIT``) is checked and fixed like any other. (Exclude such files with
    ``extend-exclude``.)"""
    source = b'# @generated by protoc. DO NOT EDIT!\nimport requests\nrequests.get("u")\n'
    project = project_with(tmp_path, {"gen_pb2.py": source})
    code, out, err = run_cli(project, "-f", "json", ".")
    assert matches(of(records(out), "gen_pb2.py"), [("RES101", 3, 1, MISSING)])
    assert_run_goes_on(records(out), code, err)
    run_cli(project, "--fix", "--unsafe-fixes", ".")
    assert (project / "gen_pb2.py").read_bytes() == source.replace(b'("u")', b'("u", timeout=10)')


def test_symlink_loop(tmp_path):
    project = project_with(tmp_path, {})
    (project / "loop_a.py").symlink_to("loop_b.py")
    (project / "loop_b.py").symlink_to("loop_a.py")
    (project / "self.py").symlink_to("self.py")
    (project / "pkg").mkdir()
    (project / "pkg" / "back").symlink_to("..")  # a directory loop: not followed
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    loop = os.strerror(errno.ELOOP)
    for name in ("loop_a.py", "loop_b.py", "self.py"):
        assert of(rows, name) == [("RES000", 1, 1, f"cannot read file: {loop}")]
    assert {r[0] for r in rows} == {"loop_a.py", "loop_b.py", "self.py", WITNESS_NAME}
    assert_run_goes_on(rows, code, err)


def test_directory_named_like_a_python_file(tmp_path):
    project = project_with(tmp_path, {"x.py/inner.py": b"import requests\nrequests.get('u')\n"})
    (project / "empty.py").mkdir()
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    assert {r[0] for r in rows} == {"x.py/inner.py", WITNESS_NAME}  # walked as a directory, not read as a file
    assert_run_goes_on(rows, code, err)
    code, out, err = run_cli(project, "-f", "json", "empty.py")  # named explicitly: a directory with no files
    assert (code, records(out)) == (0, []), err


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads a file whatever its mode (CAP_DAC_OVERRIDE): chmod 000 cannot make it "
                           "unreadable; test_unreadable_file_simulated covers the same path")
def test_unreadable_file(tmp_path):
    project = project_with(tmp_path, {"secret.py": b"import requests\nrequests.get('u')\n"})
    os.chmod(project / "secret.py", 0)
    try:
        code, out, err = run_cli(project, "-f", "json", ".")
    finally:
        os.chmod(project / "secret.py", 0o644)
    rows = records(out)
    assert of(rows, "secret.py") == [("RES000", 1, 1, f"cannot read file: {os.strerror(errno.EACCES)}")]
    assert_run_goes_on(rows, code, err)


def test_unreadable_file_simulated(tmp_path, monkeypatch):
    """As test_unreadable_file, for root too: reading ``secret.py`` raises EACCES."""
    project = project_with(tmp_path, {"secret.py": b"import requests\nrequests.get('u')\n"})
    real = Path.read_bytes

    def read_bytes(self):
        if self.name == "secret.py":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    assert of(rows, "secret.py") == [("RES000", 1, 1, f"cannot read file: {os.strerror(errno.EACCES)}")]
    assert_run_goes_on(rows, code, err)


def test_file_deleted_between_discovery_and_reading(tmp_path, monkeypatch):
    from reslint.engine.discovery import Walker

    project = project_with(tmp_path, {"gone.py": b"import requests\nrequests.get('u')\n"})
    discover = Walker.discover
    deleted = []

    def discover_then_delete(self, paths):
        found = discover(self, paths)
        if not deleted:  # the first walk found it; it vanishes before it is read
            (project / "gone.py").unlink()
            deleted.append(True)
        return found

    monkeypatch.setattr(Walker, "discover", discover_then_delete)
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    assert deleted
    assert of(rows, "gone.py") == [("RES000", 1, 1, f"cannot read file: {os.strerror(errno.ENOENT)}")]
    assert_run_goes_on(rows, code, err)


def test_fifo_named_like_a_python_file_is_not_read(tmp_path):
    """A named pipe is not a regular file: discovery skips it (reading it would block forever)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    project = project_with(tmp_path, {})
    os.mkfifo(project / "pipe.py")
    proc = run_proc(project, "-f", "json", ".", timeout=60)
    rows = records(proc.stdout.decode())
    assert {r[0] for r in rows} == {WITNESS_NAME}
    assert_run_goes_on(rows, proc.returncode, proc.stderr.decode())


def _limit_memory():  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))


@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_symlink_to_a_pipe_or_a_device(tmp_path, target):
    project = project_with(tmp_path, {})
    if target == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes on this platform")
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    elif not os.path.exists(target):
        pytest.skip(f"no {target} on this platform")
    (project / "odd.py").symlink_to(target)
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "-f", "json", "."],
                          cwd=project, env=env, capture_output=True, timeout=20, preexec_fn=_limit_memory)
    rows = records(proc.stdout.decode())
    assert [r[:2] for r in of(rows, "odd.py")] in ([], [("RES000", 1)])
    assert_run_goes_on(rows, proc.returncode, proc.stderr.decode())


@pytest.mark.parametrize("pattern", ["[z-a]", "\\", "!"])
def test_gitignore_with_a_pattern_git_ignores(tmp_path, pattern):
    project = project_with(tmp_path, {"sub/a.py": b"import requests\nrequests.get('u')\n"})
    (project / "sub" / ".gitignore").write_text(f"{pattern}\n*.log\n", encoding="utf-8")
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    assert [r[:2] for r in of(rows, "sub/a.py")] == [("RES101", 2)]
    assert_run_goes_on(rows, code, err)


@pytest.mark.parametrize("fmt", ["concise", "json", "sarif", "gitlab"])
def test_file_name_that_is_not_utf8(tmp_path, fmt):
    project = project_with(tmp_path, {})
    with open(os.path.join(os.fsencode(project), b"caf\xe9.py"), "wb") as handle:
        handle.write(b"import requests\nrequests.get('u')\n")
    report = tmp_path / "report.txt"
    proc = run_proc(project, "-f", fmt, "-o", str(report), ".")
    assert "Traceback" not in proc.stderr.decode(errors="replace")
    assert proc.returncode == 1
    assert "zz_witness.py" in report.read_text(encoding="utf-8", errors="replace")
    proc = run_proc(project, "-f", fmt, ".")
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr


def test_same_file_named_relative_and_absolute(tmp_path):
    project = project_with(tmp_path, {"a.py": FIXABLE})
    code, out, err = run_cli(project, "-f", "json", "a.py", str(project / "a.py"))
    assert [r[:2] for r in records(out)] == [("a.py", "RES101")], out
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", "a.py", str(project / "a.py"))
    assert (project / "a.py").read_bytes() == FIXABLE_FIXED
    assert (code, records(out)) == (0, []), err


# -- internal errors are contained ----------------------------------------------------------------
def test_exception_in_one_rule_is_contained(tmp_path, monkeypatch):
    import libcst as cst

    from reslint.rules.res102_disabled_timeout import DisabledTimeout

    visit_call = DisabledTimeout.visit_Call

    def faulty(self, node):
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise RuntimeError("injected failure")
        return visit_call(self, node)

    monkeypatch.setattr(DisabledTimeout, "visit_Call", faulty)
    faulty_file = (b"import requests\nrequests.get('u')\nrequests.get('u', timeout=None)\nboom()\n"
                   b"requests.get('u', timeout=600)\n")
    other = b"import requests\nrequests.get('v', timeout=None)\n"
    project = project_with(tmp_path, {"faulty.py": faulty_file, "other.py": other})
    code, out, err = run_cli(project, "-f", "json", ".")
    rows = records(out)
    # the faulty rule's findings for that file are lost, every other rule's are kept
    assert [r[:2] for r in of(rows, "faulty.py")] == [("RES101", 2), ("RES103", 5)]
    assert [r[:2] for r in of(rows, "other.py")] == [("RES102", 2)]  # the same rule on another file still runs
    assert (WITNESS_NAME, "RES101", 5, 12) in [r[:4] for r in rows]
    messages = [line for line in err.splitlines() if line.startswith("reslint: error:")]
    assert messages == ["reslint: error: faulty.py: internal error in RES102 (disabled-timeout): RuntimeError: "
                        "injected failure; please report this bug to the reslint project"]
    assert code == 2
    assert "Traceback" not in err


# -- fix safety --------------------------------------------------------------------------------
FIXABLE = b"import requests\nrequests.get('u')\n"
FIXABLE_FIXED = b"import requests\nrequests.get('u', timeout=10)\n"


def test_read_only_file_is_fixed_in_place_and_stays_read_only(tmp_path):
    """Behaviour as it is: fixes are written through a temporary file renamed over the
    original, which needs write permission on the *directory*, not on the file, so a
    read-only file (0o444) in a writable directory is fixed, and stays 0o444, with no
    crash. (Tools that write in place, Ruff and Black, report an error instead: a
    decision for the owner; test_unwritable_directory_is_reported_not_crashed_on covers
    a file that cannot be replaced.)"""
    project = project_with(tmp_path, {"ro.py": FIXABLE})
    os.chmod(project / "ro.py", 0o444)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".")
    assert (project / "ro.py").read_bytes() == FIXABLE_FIXED
    assert stat.S_IMODE(os.stat(project / "ro.py").st_mode) == 0o444
    assert (code, records(out)) == (0, []), err


def _unwritable_dir_check(project: Path, code, out, err):
    rows = records(out)
    assert (project / "locked" / "a.py").read_bytes() == FIXABLE  # untouched
    assert [r[:2] for r in of(rows, "locked/a.py")] == [("RES101", 2)]  # still reported: it was not fixed
    assert (project / WITNESS_NAME).read_text(encoding="utf-8").count("timeout=10") == 1  # the others are fixed
    messages = [line for line in err.splitlines() if line.startswith("reslint: error:")]
    assert len(messages) == 1 and "locked/a.py: cannot write the fix:" in messages[0], err
    assert os.strerror(errno.EACCES) in messages[0]
    assert code == 2
    assert "Traceback" not in err


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root writes into a read-only directory; see the simulated test")
def test_unwritable_directory_is_reported_not_crashed_on(tmp_path):
    project = project_with(tmp_path, {"locked/a.py": FIXABLE})
    os.chmod(project / "locked", 0o555)
    try:
        code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".")
    finally:
        os.chmod(project / "locked", 0o755)
    _unwritable_dir_check(project, code, out, err)


def test_unwritable_directory_simulated(tmp_path, monkeypatch):
    """As above, for root too: creating the temporary file next to ``locked/a.py`` fails with EACCES."""
    import reslint.engine.fixer as fixer

    project = project_with(tmp_path, {"locked/a.py": FIXABLE})
    mkstemp = fixer.tempfile.mkstemp

    def refuse(*args, **kwargs):
        if Path(kwargs.get("dir", "")).name == "locked":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), kwargs["dir"])
        return mkstemp(*args, **kwargs)

    monkeypatch.setattr(fixer.tempfile, "mkstemp", refuse)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".")
    _unwritable_dir_check(project, code, out, err)


def _between_read_and_write(monkeypatch, action):
    """Run ``action(display path)`` after a file's fix is computed and before it is written."""
    import reslint.engine.fixer as fixer

    fix_text = fixer.fix_text

    def fix_then_act(linter, text, display, *args, **kwargs):
        outcome = fix_text(linter, text, display, *args, **kwargs)
        action(display)
        return outcome

    monkeypatch.setattr(fixer, "fix_text", fix_then_act)


def test_file_changed_between_read_and_write_is_not_overwritten(tmp_path, monkeypatch):
    project = project_with(tmp_path, {"busy.py": FIXABLE})
    edited = FIXABLE + b"# saved by the editor meanwhile\n"

    def edit(display):
        if display == "busy.py":
            (project / "busy.py").write_bytes(edited)

    _between_read_and_write(monkeypatch, edit)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".")
    assert (project / "busy.py").read_bytes() == edited
    assert (project / WITNESS_NAME).read_text(encoding="utf-8").count("timeout=10") == 1
    messages = [line for line in err.splitlines() if line.startswith("reslint: error:")]
    assert len(messages) == 1, err
    assert messages[0].endswith("busy.py: changed on disk since it was read; fixes not written"), messages[0]
    assert code == 2 and "Traceback" not in err


def test_file_deleted_between_read_and_write_is_not_recreated(tmp_path, monkeypatch):
    project = project_with(tmp_path, {"gone.py": FIXABLE})

    def delete(display):
        if display == "gone.py":
            (project / "gone.py").unlink()

    _between_read_and_write(monkeypatch, delete)
    code, out, err = run_cli(project, "--fix", "--unsafe-fixes", "-f", "json", ".")
    assert not (project / "gone.py").exists()
    assert (project / WITNESS_NAME).read_text(encoding="utf-8").count("timeout=10") == 1
    messages = [line for line in err.splitlines() if line.startswith("reslint: error:")]
    assert len(messages) == 1 and "gone.py: cannot re-read before writing the fix" in messages[0], err
    assert code == 2 and "Traceback" not in err


def test_interrupt_during_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    import reslint.engine.fixer as fixer

    project = project_with(tmp_path, {"a.py": FIXABLE})

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(fixer.os, "fsync", interrupted)
    try:
        run_cli(project, "--fix", "--unsafe-fixes", ".")  # click turns the interrupt into "Aborted!"
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    assert (project / "a.py").read_bytes() == FIXABLE  # the original is intact: that part holds
    assert sorted(p.name for p in project.iterdir()) == ["a.py", WITNESS_NAME]


def test_fix_through_a_symlink_keeps_the_link(tmp_path):
    project = project_with(tmp_path, {"real/target.py": FIXABLE})
    (project / "link.py").symlink_to("real/target.py")
    run_cli(project, "--fix", "--unsafe-fixes", "link.py")
    assert (project / "link.py").is_symlink()
    assert (project / "real" / "target.py").read_bytes() == FIXABLE_FIXED


# -- an interrupted run: SIGINT / SIGTERM at several moments --------------------------------------
def _synthetic(i: int) -> bytes:
    """Small files with fixes of every shape: keyword added, value replaced, import added."""
    kind = i % 6
    if kind == 0:
        return (f"import requests\n\n\ndef get_{i}(url):\n    return requests.get(url).json()\n\n\n"
                f"def post_{i}(url, body):\n    return requests.post(url, json=body, timeout=None)\n").encode()
    if kind == 1:
        return (f"import requests\r\n\r\nSESSION = requests.Session()\r\n\r\n\r\ndef f{i}(u):\r\n"
                f"    return SESSION.get(\r\n        u,\r\n        headers={{'x': '{i}'}},\r\n    )\r\n").encode()
    if kind == 2:
        return (f"# -*- coding: latin-1 -*-\nimport requests\n# r\xe9sum\xe9 {i}\n"
                f"r = requests.put('http://h/{i}', data=b'x')\n").encode("latin-1")
    if kind == 3:
        return (f'"""Module {i}."""\nimport boto3\n\n\ndef client():\n    return boto3.client("s3")\n').encode()
    if kind == 4:
        return (f"from aiohttp import ClientSession\n\n\nasync def f{i}():\n"
                f"    async with ClientSession() as s:\n        return s\n").encode()
    return f"import subprocess\n\n\ndef run_{i}():\n    subprocess.run(['git', 'fetch'], check=True)\n".encode()


def _corpus(root: Path) -> None:
    for i in range(48):
        (root / f"m{i:02d}.py").write_bytes(_synthetic(i))
    shutil.copytree(CASES, root / "cases")


def _snapshot(root: Path) -> Dict[str, bytes]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


@pytest.fixture(scope="module")
def fix_corpus(tmp_path_factory):
    """(original files, the same files after an uninterrupted `--fix --unsafe-fixes`)."""
    base = tmp_path_factory.mktemp("corpus")
    original = base / "original"
    original.mkdir()
    _corpus(original)
    reference = base / "reference"
    shutil.copytree(original, reference)
    proc = run_proc(reference, "--fix", "--unsafe-fixes", "-q", ".", timeout=600)
    assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr, proc.stderr
    before, after = _snapshot(original), _snapshot(reference)
    assert before.keys() == after.keys()
    assert sum(before[k] != after[k] for k in before) >= 40  # enough files change to interrupt the writes
    return before, after


MOMENTS = ["startup", "linting", "first-write", "mid-writes", "last-write", "final-relint"]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_fix_leaves_every_file_old_or_new(tmp_path, fix_corpus, sig):
    before, after = fix_corpus
    changing = [k for k in before if before[k] != after[k]]
    report = []
    for n, moment in enumerate(MOMENTS):
        work = tmp_path / f"run{n}"
        work.mkdir()
        for name, data in before.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(data)
        env = dict(os.environ, NO_COLOR="1", RESLINT_CACHE_DIR=str(tmp_path / "cache"))
        proc = subprocess.Popen([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "--fix",
                                 "--unsafe-fixes", "-q", "."], cwd=work, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = time.monotonic()
        want = {"first-write": 1, "mid-writes": len(changing) // 2, "last-write": len(changing) - 1,
                "final-relint": len(changing)}.get(moment)
        delay = {"startup": 0.05, "linting": 1.5}.get(moment)
        while proc.poll() is None:
            if delay is not None and time.monotonic() - started >= delay:
                break
            if want is not None and sum((work / k).read_bytes() != before[k] for k in changing) >= want:
                break
            time.sleep(0.005)
        interrupted = proc.poll() is None
        if interrupted:
            proc.send_signal(sig)
        try:
            _, stderr = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"{moment}: reslint did not stop after {sig.name}")
        now = _snapshot(work)
        fixed = sum(now.get(k) == after[k] != before[k] for k in before)
        strays = sorted(set(now) - set(before))
        report.append(f"{moment}: interrupted={interrupted} fixed={fixed}/{len(changing)} rc={proc.returncode} "
                      f"traceback={b'Traceback' in stderr} stray files={strays}")
        assert set(before) <= set(now), f"{moment}: files lost: {sorted(set(before) - set(now))}"
        for name in before:
            assert now[name] in (before[name], after[name]), f"{moment}: {name} is neither old nor new"
            compile(now[name], name, "exec", dont_inherit=True)
        # a rerun finishes the job: exactly the reference
        proc = run_proc(work, "--fix", "--unsafe-fixes", "-q", ".", timeout=600)
        assert b"Traceback" not in proc.stderr
        rerun = _snapshot(work)
        leftovers = sorted(set(rerun) - set(before))
        assert all(Path(k).name.startswith(".reslint-") for k in leftovers), leftovers
        assert {k: rerun[k] for k in before} == after, f"{moment}: a rerun does not reach the reference"
    print("\n".join(report))


# -- the cache ----------------------------------------------------------------------------------
def _cache_entries(cache: Path) -> List[Path]:
    return sorted(p for p in cache.rglob("*.json"))


def _entry_name(path: Path) -> Tuple[str, str]:
    """(scope, name) a cache file is sealed for: its settings directory and bucket/file name."""
    parent = path.parent
    if ENTRY_DIR.fullmatch(parent.name):
        return parent.name, f"./{path.name}"
    return parent.parent.name, f"{parent.name}/{path.name}"


def _corrupt(path: Path, how: str) -> None:
    import reslint.engine.cache as cache_module

    data = path.read_bytes()
    scope, name = _entry_name(path)
    key = cache_module.cache_key()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(os.urandom(64))
    elif how == "pickle":
        path.write_bytes(pickle.dumps({"findings": []}))
    elif how == "forged_clean":
        # a well-formed payload claiming the file is clean, with the old MAC: must not verify
        payload = cache_module.unseal(key, scope, name, data)
        value = json.loads(payload)
        emptied = json.dumps([[] if isinstance(v, list) else v for v in value]
                             if isinstance(value, list) else {}).encode()
        path.write_bytes(data[: len(data) - len(payload)] + emptied)
    elif how == "foreign_scope":
        payload = cache_module.unseal(key, scope, name, data)
        path.write_bytes(cache_module.seal(key, "0.0.0-0000000000000000", name, payload))
    elif how == "wrong_shape":  # authentic but of another shape: a miss, never a crash
        path.write_bytes(cache_module.seal(key, scope, name, b'[["findings"], {"x": 1}]'))
    elif how == "deep":  # authentic, nested past the JSON parser's recursion limit
        path.write_bytes(cache_module.seal(key, scope, name, b"[" * 100_000 + b"]" * 100_000))
    elif how == "directory":
        path.unlink()
        path.mkdir()
    else:  # pragma: no cover
        raise ValueError(how)


CORRUPTIONS = ["truncated", "empty", "garbage", "pickle", "forged_clean", "foreign_scope", "wrong_shape",
               "deep", "directory"]


def test_corrupted_cache_entries_are_ignored_and_rebuilt(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(CASES, project)
    cache = tmp_path / "cache"
    expected = run_cli(project, "-f", "json", ".")  # no cache
    assert run_cli(project, "-f", "json", ".", cache=cache) == expected
    entries = _cache_entries(cache)
    assert len(entries) >= len(CORRUPTIONS)
    damaged = {}
    for i, path in enumerate(entries):
        how = CORRUPTIONS[i % len(CORRUPTIONS)]
        _corrupt(path, how)
        damaged[path] = how
    assert run_cli(project, "-f", "json", ".", cache=cache) == expected
    import reslint.engine.cache as cache_module

    key = cache_module.cache_key()
    for path, how in damaged.items():
        if how == "directory":
            continue  # cannot be replaced by a file; ignored every run
        scope, name = _entry_name(path)
        assert cache_module.unseal(key, scope, name, path.read_bytes()) is not None, f"{how} entry was not rebuilt"
    assert run_cli(project, "-f", "json", ".", cache=cache) == expected


def test_cache_directory_that_is_a_file_is_ignored(tmp_path):
    project = project_with(tmp_path, {})
    not_a_dir = tmp_path / "cache"
    not_a_dir.write_text("I am a file\n", encoding="utf-8")
    code, out, err = run_cli(project, "-f", "json", ".", cache=not_a_dir)
    assert_run_goes_on(records(out), code, err)
    assert not_a_dir.read_text(encoding="utf-8") == "I am a file\n"


def test_two_processes_sharing_one_cache_directory(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(CASES, project)
    for i in range(24):
        (project / f"m{i:02d}.py").write_bytes(_synthetic(i))
    cache = tmp_path / "cache"
    expected = run_proc(project, "-f", "json", ".")
    assert expected.returncode == 1 and expected.stderr == b"", expected.stderr
    for attempt in ("cold", "warm", "warm again"):
        env = dict(os.environ, NO_COLOR="1")
        argv = [sys.executable, "-m", "reslint", "--isolated", "--cache-dir", str(cache), "-f", "json", "."]
        procs = [subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(2)]
        outputs = [p.communicate(timeout=600) for p in procs]
        for proc, (out, err) in zip(procs, outputs):
            assert proc.returncode == 1 and err == b"", (attempt, err)
            assert out == expected.stdout, f"{attempt}: a process sharing the cache reported something else"
    assert not list(cache.rglob(".tmp-*")), "temporary cache files left behind"


# -- bad configuration -------------------------------------------------------------------------
BAD_CONFIG = {
    # name: (pyproject.toml text, what the one message must contain besides the file)
    "malformed_toml_header": ("[tool.reslint\nselect = ['RES']\n", ["invalid TOML", "line 1"]),
    "malformed_toml_value": ("[tool.reslint]\nselect = ['RES'\n", ["invalid TOML"]),
    "duplicate_key": ("[tool.reslint]\nmax-timeout = 5\nmax-timeout = 6\n", ["invalid TOML"]),
    "unknown_key": ("[tool.reslint]\nmax-timout = 5\n", ["unknown key `tool.reslint.max-timout`"]),
    "wrong_type_number": ("[tool.reslint]\nmax-timeout = '60'\n",
                          ["`tool.reslint.max-timeout`", "must be a positive number of seconds", "'60'"]),
    "wrong_type_list": ("[tool.reslint]\nselect = 'RES101'\n", ["`tool.reslint.select`", "must be a list"]),
    "wrong_type_bool": ("[tool.reslint]\nrespect-gitignore = 'yes'\n",
                        ["`tool.reslint.respect-gitignore`", "must be true or false"]),
    "wrong_type_table": ("[tool.reslint]\nper-file-ignores = ['a.py']\n",
                         ["`tool.reslint.per-file-ignores`", "must be a table"]),
    "unknown_code_in_select": ("[tool.reslint]\nselect = ['RES999']\n",
                               ["`tool.reslint.select`", "unknown rule 'RES999'"]),
    "unknown_code_in_ignore": ("[tool.reslint]\nignore = ['no-such-rule']\n",
                               ["`tool.reslint.ignore`", "unknown rule 'no-such-rule'"]),
    "unknown_code_in_per_file_ignores": ("[tool.reslint]\nper-file-ignores = { 'a.py' = ['RES999'] }\n",
                                         ["`tool.reslint.per-file-ignores.a.py`", "unknown rule 'RES999'"]),
    "per_file_ignores_not_a_list": ("[tool.reslint]\nper-file-ignores = { 'a.py' = 'RES101' }\n",
                                    ["`tool.reslint.per-file-ignores.a.py`", "must be a list"]),
    "negative_max_timeout": ("[tool.reslint]\nmax-timeout = -5\n",
                             ["`tool.reslint.max-timeout`", "must be a positive number of seconds", "-5"]),
    "negative_default_timeout": ("[tool.reslint]\ndefault-timeout = -1\n",
                                 ["`tool.reslint.default-timeout`", "must be a positive number of seconds"]),
    "zero_max_retry_time": ("[tool.reslint]\nmax-retry-time = 0\n",
                            ["`tool.reslint.max-retry-time`", "must be a positive number of seconds"]),
    "boolean_timeout": ("[tool.reslint]\nmax-timeout = true\n", ["`tool.reslint.max-timeout`"]),
    "default_above_max": ("[tool.reslint]\nmax-timeout = 5\ndefault-timeout = 10\n",
                          ["`tool.reslint.default-timeout`", "`tool.reslint.max-timeout`"]),
    "unknown_rule_options_table": ("[tool.reslint.rules.RES999]\nx = 1\n", ["`tool.reslint.rules.RES999`"]),
    "unknown_rule_option": ("[tool.reslint.rules.RES101]\nx = 1\n",
                            ["unknown key `tool.reslint.rules.RES101.x`", "RES101 has no options"]),
    "reslint_not_a_table": ("[tool]\nreslint = 3\n", ["`tool.reslint` must be a table"]),
    "not_utf8": (b"[tool.reslint]\n# caf\xe9\n", ["not UTF-8"]),
}


def _bad_config_check(tmp_path, text, needles):
    project = project_with(tmp_path, {"a.py": b"import requests\nrequests.get('u')\n"})
    path = project / "pyproject.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, out, err = run_cli(project, ".", isolated=False)
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert out == ""
    assert len(lines) == 1, err
    assert lines[0].startswith(f"reslint: error: {path}: "), lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("name", sorted(BAD_CONFIG))
def test_bad_configuration(tmp_path, name):
    _bad_config_check(tmp_path, *BAD_CONFIG[name])


def test_bad_configuration_tool_not_a_table(tmp_path):
    _bad_config_check(tmp_path, "tool = 3\n", ["`tool`"])


@pytest.mark.parametrize("text, key", [
    ("[tool.reslint]\nextend-exclude = ['[z-a]']\n", "`tool.reslint.extend-exclude`"),
    ("[tool.reslint]\nper-file-ignores = { '[z-a]' = ['RES101'] }\n", "`tool.reslint.per-file-ignores"),
])
def test_bad_configuration_invalid_glob(tmp_path, text, key):
    _bad_config_check(tmp_path, text, [key])


@pytest.mark.parametrize("text", ["[tool.reslint]\ndefault-timeout = nan\n",
                                  "[tool.reslint]\nmax-timeout = nan\n",
                                  "[tool.reslint]\nmax-timeout = inf\ndefault-timeout = 1e308\n"])
def test_bad_configuration_non_finite_timeouts(tmp_path, text):
    _bad_config_check(tmp_path, text, ["timeout`"])


# -- worker processes -------------------------------------------------------------------------------
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux /proc")
def test_workers_exit_when_the_parent_is_killed(tmp_path):
    """SIGKILL gives the parent no chance to clean up: its workers must notice on their own
    (else they live on, holding its stdout and stderr open, and whoever waits for them hangs)."""
    for i in range(160):
        body = "".join(f"def f{k}(u):\n    return requests.get(u, headers={{'n': {k}}})\n\n\n" for k in range(60))
        (tmp_path / f"m{i:03d}.py").write_text(f"import requests\n\n\n{body}", "utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "reslint", "--isolated", "--no-cache", "-j", "2", "-q", "."],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _children(proc.pid):
        time.sleep(0.05)
    assert _children(proc.pid), "no worker processes started"
    proc.kill()
    proc.communicate(timeout=60)  # returns only once every holder of the pipes has exited


def _children(pid: int) -> List[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
