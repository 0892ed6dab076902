"""``junit``: JUnit XML for CI test-report views (GitLab ``artifacts:reports:junit``,
Jenkins, Azure Pipelines...).

``<testsuites>`` holds one ``<testsuite>`` per file with findings (``name`` = the
project-relative path); each finding is a ``<testcase>`` (``name`` = code and position,
``classname`` = the path, ``file``/``line`` attributes) with a ``<failure>`` whose
``type`` is the rule code and whose ``message`` is the finding's message. A clean run
is one suite ``reslint`` with one passing test case, so that report viewers show a
pass rather than nothing. Built with :mod:`xml.etree.ElementTree`; characters XML 1.0
cannot carry are replaced by U+FFFD.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import List

from reslint.diagnostics import Finding
from reslint.output import Report

#: Characters outside XML 1.0's ``Char`` production (and lone surrogates).
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    return _INVALID.sub("\ufffd", text)


def render(findings: List[Finding], report: Report) -> str:
    root = ET.Element("testsuites", name="reslint", tests=str(max(len(findings), 1)), failures=str(len(findings)),
                      errors="0")
    for filename, group in groupby(findings, key=lambda f: f.filename):
        group = list(group)
        suite = ET.SubElement(root, "testsuite", name=_clean(filename), tests=str(len(group)),
                              failures=str(len(group)), errors="0", skipped="0")
        for f in group:
            where = f"{f.filename}:{f.location.row}:{f.location.column}"
            case = ET.SubElement(suite, "testcase", name=_clean(f"{f.code} ({f.name}) at {where}"),
                                 classname=_clean(f.filename), file=_clean(f.filename), line=str(f.location.row))
            failure = ET.SubElement(case, "failure", message=_clean(f.message), type=f.code)
            failure.text = _clean(f"{where}: {f.code} {f.message}")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="reslint", tests="1", failures="0", errors="0", skipped="0")
        ET.SubElement(suite, "testcase", name="No findings", classname="reslint")
    ET.indent(root)
    # the declaration is written here: ElementTree would declare the locale's encoding,
    # while reslint writes UTF-8 (to --output-file) whatever the locale
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
