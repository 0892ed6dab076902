"""The shared annotated cases (copied from ``shared/cases``) as tests.

``# expect: RES101`` marks a line that must be reported with that code;
``# expect: none`` in the first lines makes the whole case clean. Only codes of
rules this version implements are checked; a finding on an unmarked line fails.
A folder is one project.

The copy differs from the shared cases in one line, on purpose: ``timeouts_stdlib.py``
expects RES101 on ``subprocess.run(["tar", ...])``, a local program, which RES101 no longer
reports (a timeout would kill a long archive and protects from no remote fault; see the
rule page's "Subprocesses"). Here that line runs ``rsync`` to a host instead, and the
``tar`` call is a clean counterpart. Two more lines differ in ``timeouts_cloud_sdks.py``: a
boto3 client left on botocore's defaults (60 s connect, 60 s read) is within the 60 s network
ceiling, as an explicit ``Config(connect_timeout=60, read_timeout=60)`` is, so it is a clean
line here (the judged sample: 31 of 34 such findings false; see the RES101 rule page); our own
``timeouts_model_clients.py`` says the same of its S3 client. ``timeouts_subprocess_programs.py`` and
``retry_loops_handwritten.py`` are our own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reslint import registry
from reslint.config import Settings
from reslint.engine.runner import Runner

CASES = Path(__file__).resolve().parent / "fixtures" / "cases"
MARK = re.compile(r"#\s*expect:\s*([A-Za-z0-9_,\s]+?)\s*(?:#|$)")
IMPLEMENTED = {r.code for r in registry.RULES if r.implemented}


def _expected(path: Path, rel: str):
    lines = path.read_text(encoding="utf-8").splitlines()
    out = set()
    for row, text in enumerate(lines, 1):
        match = MARK.search(text)
        if not match or match.group(1).strip().lower() == "none":
            continue
        for code in (c.strip() for c in match.group(1).split(",")):
            if code in IMPLEMENTED:
                out.add((rel, row, code))
    return out


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if not p.name.startswith((".", "_"))))
def test_case(case):
    entry = CASES / case
    files = [entry] if entry.is_file() else sorted(entry.rglob("*.py"))
    root = CASES if entry.is_file() else entry  # a folder is one project
    expected = set()
    for path in files:
        expected |= _expected(path, path.relative_to(root).as_posix())
    run = Runner(Settings(root=root), use_cache=False).run([entry])
    assert run.errors == []
    got = {(f.filename, f.location.row, f.code) for result in run.results for f in result.findings}
    assert got == expected


@pytest.mark.parametrize("code", sorted(c for c in IMPLEMENTED if c not in ("RES000", "RES900")))
def test_a_rule_selected_alone_reports_what_the_full_set_reports(code):
    """``--select CODE`` (the text prefilter then reads only the files that rule's triggers name)
    finds, for that rule, exactly what a run of every rule finds, on every case."""
    for entry in sorted(p for p in CASES.iterdir() if not p.name.startswith((".", "_"))):
        root = CASES if entry.is_file() else entry
        full = Runner(Settings(root=root), use_cache=False).run([entry])
        alone = Runner(Settings(root=root, select=(code,)), use_cache=False).run([entry])
        assert alone.errors == []
        every = {(f.filename, f.location.row) for r in full.results for f in r.findings if f.code == code}
        selected = {(f.filename, f.location.row) for r in alone.results for f in r.findings if f.code == code}
        assert selected == every, entry.name
