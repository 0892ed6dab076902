"""The per-file pass on unusual input, suppressions, and fix safety."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import libcst as cst
import pytest

from reslint.config import Settings, settings_from_table
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_file, fix_text
from reslint.project import python_ceiling

CALL = "import requests\nrequests.get('https://x.invalid')\n"


@pytest.fixture()
def linter(tmp_path):
    return Linter(Settings(root=tmp_path))


@pytest.fixture
def low_ceiling(tmp_path):
    """A linter whose network ceiling (30 s) is below botocore's 60 s defaults, so a default boto3
    client is reported and fixed."""
    return Linter(settings_from_table({"max-timeout": 30}, tmp_path, None))


def codes(linter, text):
    findings, errors = linter.lint_text(text, "m.py")
    assert errors == []
    return [(f.location.row, f.code) for f in findings]


def test_latin1_coding_cookie_is_decoded_and_fix_keeps_encoding(linter, tmp_path):
    src = "# -*- coding: latin-1 -*-\nimport requests\n# café\nrequests.get('u')\n"
    path = tmp_path / "l.py"
    path.write_bytes(src.encode("latin-1"))
    result = linter.lint_path(path)
    assert [(f.location.row, f.code) for f in result.findings] == [(4, "RES101")]
    fix_file(linter, result, unsafe=True, write=True)
    assert path.read_bytes() == src.replace("get('u')", "get('u', timeout=10)").encode("latin-1")


def test_bom_and_crlf_are_preserved_by_fixes(linter, tmp_path):
    path = tmp_path / "b.py"
    data = b"\xef\xbb\xbfimport requests\r\nrequests.get('u')\r\n"
    path.write_bytes(data)
    result = linter.lint_path(path)
    assert len(result.findings) == 1
    fix_file(linter, result, unsafe=True, write=True)
    assert path.read_bytes() == b"\xef\xbb\xbfimport requests\r\nrequests.get('u', timeout=10)\r\n"


def test_file_mode_is_kept(linter, tmp_path):
    path = tmp_path / "x.py"
    path.write_text(CALL, encoding="utf-8")
    os.chmod(path, 0o751)
    fix_file(linter, linter.lint_path(path), unsafe=True, write=True)
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o751)
    assert "timeout=10" in path.read_text(encoding="utf-8")


def test_file_changed_since_read_is_not_overwritten(linter, tmp_path):
    path = tmp_path / "x.py"
    path.write_text(CALL, encoding="utf-8")
    result = linter.lint_path(path)
    path.write_text(CALL + "# edited meanwhile\n", encoding="utf-8")
    outcome = fix_file(linter, result, unsafe=True, write=True)
    assert "changed on disk" in outcome.error
    assert path.read_text(encoding="utf-8") == CALL + "# edited meanwhile\n"


def test_invalid_utf8_is_res000(linter, tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = '\xff\xfe'\n")
    findings = linter.lint_path(path).findings
    assert [(f.code, f.message.split(":")[0]) for f in findings] == [("RES000", "cannot decode file")]


def test_nul_bytes_are_res000(linter, tmp_path):
    path = tmp_path / "nul.py"
    path.write_bytes(b"import requests\x00\nrequests.get('u')\n")
    assert [f.code for f in linter.lint_path(path).findings] == ["RES000"]


def test_unreadable_file_is_res000(linter, tmp_path):
    path = tmp_path / "dir.py"
    path.mkdir()
    findings = linter.lint_path(path).findings
    assert findings[0].code == "RES000" and findings[0].message.startswith("cannot read file")


def test_empty_file(linter):
    assert codes(linter, "") == []


def test_deeply_nested_concatenation_does_not_crash(linter):
    # pydoc_data/topics.py has runs like this: LibCST parses them, a recursive visit would not.
    text = "import socket\nx = (" + " ".join(["'a'"] * 1500) + ")\nsocket.create_connection(('h', 1))\n"
    assert codes(linter, text) == [(3, "RES101")]


def test_nesting_beyond_the_parser_is_res000_with_a_clear_message(linter):
    text = "import requests\nx = (" + " ".join(["'a'"] * 5000) + ")\nrequests.get(x)\n"
    findings, errors = linter.lint_text(text, "m.py")
    assert errors == []
    assert [f.code for f in findings] == ["RES000"]
    assert f"Python {sys.version_info[0]}.{sys.version_info[1]} accepts this file, but LibCST cannot parse it" \
        in findings[0].message


def test_noqa_forms(linter):
    text = (
        "import requests\n"
        "requests.get('a')  # noqa: RES101\n"
        "# noqa: RES101\n"
        "requests.get('b')\n"
        "requests.get('c')  # reslint: ignore[RES101]\n"
        "requests.get('d')  # noqa: RES102\n"
        "requests.get('e')  # noqa\n"
        "x = 1  # noqa: RES101\n"
        "requests.get('f')\n"
    )
    # lines 6 and 8 suppress nothing, and line 7's bare `# noqa` does not count: RES900 (tests/test_noqa.py)
    assert codes(linter, text) == [(6, "RES101"), (6, "RES900"), (7, "RES101"), (7, "RES900"), (8, "RES900"),
                                   (9, "RES101")]


def test_blanket_noqa_needs_the_option(tmp_path):
    text = "import requests\nrequests.get('e')  # noqa\n"
    assert Linter(Settings(root=tmp_path)).lint_text(text, "m.py")[0]
    assert Linter(Settings(root=tmp_path, allow_blanket_noqa=True)).lint_text(text, "m.py")[0] == []


def test_file_level_noqa(linter):
    assert codes(linter, "# reslint: noqa: RES101\n" + CALL) == []
    assert codes(linter, "# reslint: noqa\n" + CALL) == []
    assert codes(linter, "# reslint: noqa: RES102\n" + CALL) == [(1, "RES900"), (3, "RES101")]


def test_fix_keeps_multiline_layout_and_comments(linter):
    text = (
        "import requests\n\n\n"
        "def f(url):\n"
        "    return requests.post(\n"
        "        url,\n"
        "        json={'a': 1},  # payload\n"
        "    )\n"
    )
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    assert outcome.text == text.replace("        json={'a': 1},  # payload\n",
                                        "        json={'a': 1},  # payload\n        timeout=10,\n")


def test_fix_adds_an_import_once(low_ceiling):
    text = "import boto3\n\ns3 = boto3.client('s3')\nsqs = boto3.client('sqs')\n"
    outcome = fix_text(low_ceiling, text, "m.py", unsafe=True)
    assert outcome.text == (
        "import boto3\nimport botocore.config\n\n"
        "s3 = boto3.client('s3', config=botocore.config.Config(connect_timeout=10, read_timeout=10))\n"
        # an SQS client's read outlasts SQS's 20 s long poll by the default 10 s
        "sqs = boto3.client('sqs', config=botocore.config.Config(connect_timeout=10, read_timeout=30))\n"
    )
    cst.parse_module(outcome.text)
    assert fix_text(low_ceiling, outcome.text, "m.py", unsafe=True).text is None


def test_fixes_are_idempotent_and_parse_on_every_case(linter):
    cases = Path(__file__).resolve().parent / "fixtures" / "cases"
    for path in sorted(cases.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        outcome = fix_text(linter, text, path.name, unsafe=True)
        assert outcome.error is None, path
        if outcome.text is not None:
            cst.parse_module(outcome.text)
            assert fix_text(linter, outcome.text, path.name, unsafe=True).text is None, path


@pytest.mark.parametrize("before, after", [
    ("f(a)", "f(a, timeout=10)"),
    ("f(a, b,)", "f(a, b, timeout=10,)"),
    ("f(\n    a,\n    b,  # c\n)", "f(\n    a,\n    b,  # c\n    timeout=10,\n)"),
    ("f(\n    a,\n    b  # c\n)", "f(\n    a,\n    b,  # c\n    timeout=10\n)"),
    ("f(\n    a,\n)", "f(\n    a,\n    timeout=10,\n)"),
])
def test_add_keyword_arg_layouts(before, after):
    from reslint.semantics.cstutil import add_keyword_arg

    module = cst.parse_module(before + "\n")
    call = module.body[0].body[0].value
    new = module.deep_replace(call, add_keyword_arg(call, "timeout", cst.Integer("10")))
    assert new.code == after + "\n"


@pytest.mark.parametrize("source, expected", [
    ("import redis\nr = redis.from_url('redis://h:6379/0')\n", [(2, "RES101")]),
    ("import redis\nr = redis.from_url('redis://h:6379/0?socket_timeout=5')\n", []),
    ("import psycopg2\npsycopg2.connect(host='h', connect_timeout=0)\n", [(2, "RES102")]),
    ("import psycopg2\npsycopg2.connect('host=h connect_timeout=0')\n", [(2, "RES102")]),
    ("import psycopg2\npsycopg2.connect('host=h connect_timeout=-1')\n", [(2, "RES102")]),
    ("import psycopg2\npsycopg2.connect(host='h', connect_timeout=-1)\n", [(2, "RES102")]),
    ("import psycopg2\npsycopg2.connect(host='h', connect_timeout='0')\n", [(2, "RES102")]),
    ("import psycopg2\npsycopg2.connect(host='h', connect_timeout='5')\n", []),
    ("import pymongo\npymongo.MongoClient('mongodb://h/?sockettimeoutms=0')\n", [(2, "RES102")]),
    ("import pymongo\npymongo.MongoClient('mongodb://h/?SOCKETTIMEOUTMS=5000')\n", []),
    # botocore: a phase left at its default (60 s) is judged on its own, as a given one is
    ("import boto3\nfrom botocore.config import Config\nboto3.client('s3', config=Config(connect_timeout=5))\n", []),
    # botocore's defaults are judged phase by phase: 60 s connect and 60 s read are within 60 s
    ("import boto3\nfrom botocore.config import Config\nboto3.client('s3', config=Config(retries={}))\n", []),
    ("import requests\nrequests.get('u', timeout=2 * 60)\n", [(2, "RES103")]),
    ("import requests\n\ndef f(requests):\n    return requests.get('pending', [])\n", []),
])
def test_timeout_verdicts(linter, source, expected):
    assert codes(linter, source) == expected


def test_aiohttp_dropped_total_message(linter):
    text = "import aiohttp\ns = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(connect=5))\n"
    findings, _ = linter.lint_text(text, "m.py")
    assert [f.code for f in findings] == ["RES101"]
    assert "has no total bound" in findings[0].message and "max-timeout" not in findings[0].message
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    assert outcome.text == text.replace("ClientTimeout(connect=5)", "ClientTimeout(connect=5, total=10)")


def test_fix_reuses_an_existing_import_of_the_class(low_ceiling):
    text = "import boto3\nfrom botocore.config import Config\n\ns3 = boto3.client('s3')\n"
    outcome = fix_text(low_ceiling, text, "m.py", unsafe=True)
    assert outcome.text == text.replace("boto3.client('s3')",
                                        "boto3.client('s3', config=Config(connect_timeout=10, read_timeout=10))")


@pytest.mark.parametrize("default, source, after", [
    # milliseconds round up: 0.4 ms must not become pymongo's "no timeout" 0
    (0.0004, "import pymongo\nc = pymongo.MongoClient('mongodb://h')\n",
     "import pymongo\nc = pymongo.MongoClient('mongodb://h', socketTimeoutMS=1)\n"),
    (0.0004, "import pymongo\nc = pymongo.MongoClient('mongodb://h', socketTimeoutMS=0)\n",
     "import pymongo\nc = pymongo.MongoClient('mongodb://h', socketTimeoutMS=1)\n"),
    (2.0, "import pymongo\nc = pymongo.MongoClient('mongodb://h')\n",
     "import pymongo\nc = pymongo.MongoClient('mongodb://h', socketTimeoutMS=2000)\n"),
    # libpq's connect_timeout is a whole number of seconds: 2.5 rounds up to 3
    (2.5, "import psycopg2\np = psycopg2.connect('dbname=x')\n",
     "import psycopg2\np = psycopg2.connect('dbname=x', connect_timeout=3)\n"),
    (2.5, "import psycopg2\np = psycopg2.connect('dbname=x', connect_timeout=0)\n",
     "import psycopg2\np = psycopg2.connect('dbname=x', connect_timeout=3)\n"),
    (0.1, "import psycopg\np = psycopg.connect('dbname=x', connect_timeout=None)\n",
     "import psycopg\np = psycopg.connect('dbname=x', connect_timeout=1)\n"),
    (2.5, "import requests\nrequests.get('u')\n", "import requests\nrequests.get('u', timeout=2.5)\n"),
])
def test_timeout_fix_writes_the_parameter_unit(tmp_path, default, source, after):
    linter = Linter(Settings(root=tmp_path, default_timeout=default))
    assert fix_text(linter, source, "m.py", unsafe=True).text == after


@pytest.mark.parametrize("timeout, shown", [
    ("10 ** 100", "1e+100 s"),
    ("2 ** 1000", "1.07151e+301 s"),
    ("10 ** 400", "inf s"),  # beyond the float range: still too long, not unknown
    ("2 ** 10 ** 100", "inf s"),  # not computed
])
def test_huge_constant_timeouts_are_reported_without_float_artifacts(linter, timeout, shown):
    findings, errors = linter.lint_text(f"import requests\nrequests.get('u', timeout={timeout})\n", "m.py")
    assert errors == []
    assert [f.code for f in findings] == ["RES103"]
    assert findings[0].message.startswith(f"`requests.get` allows {shown} (`{timeout}`), above max-timeout")


def test_syntax_errors_are_reported_in_files_reslint_analyses(linter):
    # compile() with the running Python decides, then LibCST's grammar (newer syntax), in every
    # file the import prefilter keeps; a file that imports nothing any rule looks for is not
    # parsed at all (like Semgrep's prefilter), so its syntax is for Python and the project's
    # other linters to judge
    text = "x = (\n"
    assert [f.code for f in linter.lint_text("import requests\n" + text, "m.py")[0]] == ["RES000"]
    assert [f.code for f in linter.lint_text("from tenacity import retry\n" + text, "m.py")[0]] == ["RES000"]
    assert linter.lint_text(text, "m.py")[0] == []
    assert linter.lint_text("import json\n" + text, "m.py")[0] == []
    # Python 3.12's `type` statement: rejected by 3.11's grammar, read by LibCST's
    assert linter.lint_text("import requests\ntype Url = str\n", "m.py")[0] == []


def test_per_file_ignores_cover_undecodable_files(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = '\xe9'\n")
    assert Linter(Settings(root=tmp_path)).lint_path(path).findings
    ignoring = Linter(Settings(root=tmp_path, per_file_ignores=(("bad.py", ("RES000",)),)))
    assert ignoring.lint_path(path).findings == []


def test_dangling_symlink_is_reported_not_skipped(tmp_path):
    from reslint.engine.discovery import Walker

    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    files = Walker(tmp_path, ()).expand([tmp_path])
    assert sorted(p.name for p in files) == ["gone.py", "loop.py"]
    linter = Linter(Settings(root=tmp_path))
    for path in files:
        findings = linter.lint_path(path).findings
        assert findings[0].code == "RES000" and findings[0].message.startswith("cannot read file")


@pytest.mark.parametrize("source, expected", [
    # a Popen already reaped by communicate()/wait()/kill() returns at once
    ("import subprocess\np = subprocess.Popen(['git', 'fetch'])\np.communicate(timeout=10)\nrc = p.wait()\n", []),
    ("import subprocess\np = subprocess.Popen(['git', 'fetch'])\np.kill()\np.wait()\n", []),
    ("import subprocess\np = subprocess.Popen(['git', 'fetch'])\np.wait()\n", [(3, "RES101")]),
    # clients that connect only when given a host
    ("import ftplib\nftp = ftplib.FTP()\nftp.connect('h', timeout=30)\n", []),
    ("import ftplib\nftp = ftplib.FTP('h')\n", [(2, "RES101")]),
    ("import telnetlib\nt = telnetlib.Telnet('h', 23)\n", [(2, "RES101")]),
    # data: and file: URLs are not network calls
    ("import urllib.request\nurllib.request.urlopen('data:,')\n", []),
    ("import urllib.request\nurllib.request.urlopen('https://h.invalid/')\n", [(2, "RES101")]),
    # a finite global socket default set before the call bounds the stdlib
    ("import socket, smtplib\nsocket.setdefaulttimeout(30)\n\ndef f():\n    return smtplib.SMTP('h')\n", []),
    ("import socket, smtplib\n\ndef f():\n    socket.setdefaulttimeout(30)\n    return smtplib.SMTP('h')\n", []),
    ("import socket, smtplib\n\ndef f():\n    socket.setdefaulttimeout(30)\n\ndef g():\n    return smtplib.SMTP('h')\n",
     [(7, "RES101")]),
    ("import socket\ns = socket.socket()\ns.settimeout(None)\ns.settimeout(120)\ns.settimeout(5)\n",
     [(3, "RES102"), (4, "RES103")]),
    # a default set for a block, put back in its finally: a restore (judged false on a web app)
    ("import socket\n\ndef f(host, timeout=5.0):\n    socket.setdefaulttimeout(timeout)\n    try:\n"
     "        return socket.getaddrinfo(host, None)\n    finally:\n        socket.setdefaulttimeout(None)\n", []),
    # with nothing set before, or outside a finally, None switches the default off
    ("import socket\n\ndef f(host):\n    try:\n        return socket.getaddrinfo(host, None)\n    finally:\n"
     "        socket.setdefaulttimeout(None)\n", [(7, "RES102")]),
    ("import socket\n\ndef f(host):\n    socket.setdefaulttimeout(5)\n    socket.getaddrinfo(host, None)\n"
     "    socket.setdefaulttimeout(None)\n", [(6, "RES102")]),
])
def test_review_false_positives_and_negatives(linter, source, expected):
    assert codes(linter, source) == expected


def test_explicit_directory_under_site_packages_is_walked(tmp_path):
    from reslint.config import DEFAULT_EXCLUDE
    from reslint.engine.discovery import Walker

    pkg = tmp_path / "venv" / "lib" / "site-packages" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "mod.py").write_text("x = 1\n", encoding="utf-8")
    (pkg / "build").mkdir()
    (pkg / "build" / "gen.py").write_text("x = 1\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    files = Walker(project, DEFAULT_EXCLUDE).expand([pkg])
    assert [p.name for p in files] == ["mod.py"]


# -- syntax newer than the interpreter (PEP 695, PEP 701) -------------------------------------
NEWER_SYNTAX = {
    # PEP 695 (Python 3.12): type parameters and the `type` statement
    "pep695": "import requests\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n\n\n"
              "type Pair = tuple[int, int]\n\n\ndef get(url):\n    return requests.get(url)\n",
    # PEP 701 (Python 3.12): the same quotes inside an f-string's replacement field
    "pep701": "import requests\n\nname = 'x'\nurl = f\"https://{\"api\" + name}.invalid\"\n\n\n\n\n\n\n"
              "def get():\n    return requests.get(url)\n",
}


@pytest.mark.parametrize("name", sorted(NEWER_SYNTAX))
def test_syntax_newer_than_the_interpreter_is_checked_not_res000(linter, name):
    # on Python 3.11 CPython rejects these files; LibCST's grammar reads them, so they are checked
    assert codes(linter, NEWER_SYNTAX[name]) == [(12, "RES101")]


def test_newer_syntax_is_fixed_and_suppressed_like_any_file(linter):
    text = NEWER_SYNTAX["pep695"]
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    assert outcome.error is None and outcome.text == text.replace("requests.get(url)", "requests.get(url, timeout=10)")
    assert codes(linter, text.replace("requests.get(url)\n", "requests.get(url)  # noqa: RES101\n")) == []


def test_a_file_no_grammar_accepts_names_both_grammars(linter):
    findings, errors = linter.lint_text("import requests\nf(\n", "m.py")
    assert errors == []
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    known = cst.KNOWN_PYTHON_VERSION_STRINGS
    assert [(f.code, f.location.row, f.location.column, f.message) for f in findings] == [
        ("RES000", 2, 2, f"cannot parse: '(' was never closed (rejected by Python {version}'s grammar and by "
                         f"LibCST's, which reads Python {known[0]} to {known[-1]})")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python accepts PEP 695 syntax")
def test_requires_python_below_the_newer_syntax_keeps_res000(tmp_path):
    # the project supports no Python that accepts `def f[T]`: the file is broken for it
    # (a ceiling just above the running Python: 3.11 or 3.10, the ones that reject it)
    running, ceiling = f"3.{sys.version_info[1]}", f"3.{sys.version_info[1] + 1}"
    with pytest.raises(SyntaxError) as rejected:  # its grammar's message: "expected '('" on 3.11, "invalid syntax" on 3.10
        compile(NEWER_SYNTAX["pep695"], "m.py", "exec", dont_inherit=True)
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "p"\nrequires-python = ">=3.8,<{ceiling}"\n')
    linter = Linter(Settings(root=tmp_path, project_root=tmp_path))
    findings, _ = linter.lint_text(NEWER_SYNTAX["pep695"], "m.py")
    assert [(f.code, f.location.row, f.message) for f in findings] == [
        ("RES000", 4, f"cannot parse: {rejected.value.msg} (rejected by Python {running}'s grammar; the project's "
                      f"requires-python = \">=3.8,<{ceiling}\" allows no later Python)")]
    # a project that supports Python 3.12 gets the file checked
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.8"\n')
    findings, _ = Linter(Settings(root=tmp_path, project_root=tmp_path)).lint_text(NEWER_SYNTAX["pep695"], "m.py")
    assert [(f.code, f.location.row) for f in findings] == [("RES101", 12)]


@pytest.mark.parametrize("spec, ceiling", [
    (">=3.10", None), ("<4", None), ("<4.0", None), ("~=3.11", None), ("junk", None), (None, None),
    (">=3.12,<3.13", (3, 12)), ("<3.12", (3, 11)), ("<=3.11", (3, 11)), ("==3.11.*", (3, 11)),
    ("~=3.11.2", (3, 11)), (">=3.8, <3.12.1", (3, 12)), (">=3.10,<3.15", (3, 14)),
])
def test_python_ceiling_reads_the_upper_bound_of_requires_python(spec, ceiling):
    assert python_ceiling(spec) == ceiling


def test_setting_none_after_a_module_default_is_no_restore(linter):
    # the module's 30 s default is wiped out for the whole process by the finally
    source = ("import socket\nimport urllib.request\nsocket.setdefaulttimeout(30)\n\n\ndef probe(url):\n"
              "    socket.setdefaulttimeout(5)\n    try:\n        return urllib.request.urlopen(url).read()\n"
              "    finally:\n        socket.setdefaulttimeout(None)\n")
    assert (11, "RES102") in codes(linter, source)
