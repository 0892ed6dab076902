"""Fix quality: a new import goes into its isort section, a name joins a from-import in isort's
order, an import a fix made unused is removed, and a safe fix never deletes a comment."""

from __future__ import annotations

import textwrap

import pytest

from reslint.config import Settings
from reslint.diagnostics import Applicability
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text

LOOP = """\
def f(session):
    for attempt in range(4):
        try:
            return session.get("u", timeout=5)
        except T:
            time.sleep(2 ** attempt)
"""
FIXED_LOOP = LOOP.replace("time.sleep(2 ** attempt)", "time.sleep(random.uniform(0, 2 ** attempt))")


def fix(tmp_path, text, unsafe=False):
    linter = Linter(Settings(root=tmp_path))
    outcome = fix_text(linter, text, "m.py", unsafe=unsafe)
    assert outcome.error is None and outcome.text is not None
    assert fix_text(linter, outcome.text, "m.py", unsafe=unsafe).text is None
    return outcome.text


@pytest.mark.parametrize("imports, after", [
    # the standard library's section, in alphabetical order
    ("import time\n\nimport requests\n", "import random\nimport time\n\nimport requests\n"),
    ("import asyncio\nimport time\n\nimport requests\n", "import asyncio\nimport random\nimport time\n\nimport requests\n"),
    ("from __future__ import annotations\n\nimport time\nfrom os import path\n\nimport requests\n",
     "from __future__ import annotations\n\nimport random\nimport time\nfrom os import path\n\nimport requests\n"),
])
def test_new_import_goes_into_its_section(tmp_path, imports, after):
    head = imports + "\nT = (requests.ConnectionError, requests.Timeout)\n\n\n"
    assert fix(tmp_path, head + LOOP) == head.replace(imports, after) + FIXED_LOOP


@pytest.mark.parametrize("imports, after", [
    # no standard-library section yet: one is opened before the third-party imports
    ("import requests\nimport trio\n", "import random\n\nimport requests\nimport trio\n"),
    ("from __future__ import annotations\n\nimport requests\nimport trio\n",
     "from __future__ import annotations\n\nimport random\n\nimport requests\nimport trio\n"),
])
def test_new_import_opens_its_section(tmp_path, imports, after):
    head = imports + "\nT = (requests.ConnectionError, requests.Timeout)\n\n\n"
    loop = LOOP.replace("time.sleep", "trio.sleep")
    assert fix(tmp_path, head + loop) == head.replace(imports, after) + loop.replace(
        "trio.sleep(2 ** attempt)", "trio.sleep(random.uniform(0, 2 ** attempt))")


def test_third_party_import_goes_before_the_first_party_section(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    text = textwrap.dedent("""\
        import os

        import boto3
        import requests

        from shop import settings

        s3 = boto3.client("s3", region_name=os.environ["REGION"])
        """)
    after = fix(tmp_path, text, unsafe=True)
    assert after.startswith("import os\n\nimport boto3\nimport botocore.config\nimport requests\n\nfrom shop import settings\n")


def test_third_party_import_opens_its_section_after_the_standard_library(tmp_path):
    text = "import os\n\nimport boto3\n\ns3 = boto3.client('s3', region_name=os.environ['REGION'])\n"
    assert fix(tmp_path, text, unsafe=True).startswith("import os\n\nimport boto3\nimport botocore.config\n\ns3 = ")
    # a file with no blank line between its sections keeps its layout; the import is placed by name
    text = "import os\nimport boto3\n\ns3 = boto3.client('s3', region_name=os.environ['REGION'])\n"
    assert fix(tmp_path, text, unsafe=True).startswith("import os\nimport boto3\nimport botocore.config\n\ns3 = ")


def test_name_joins_a_from_import_in_isort_order(tmp_path):
    text = textwrap.dedent("""\
        import requests
        from tenacity import (
            retry,
            retry_if_exception_type,
            stop_after_attempt,
            wait_random_exponential,
        )

        T = (requests.ConnectionError, requests.Timeout)


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10), wait=wait_random_exponential(max=30))
        def f():
            return requests.get("u", timeout=5)
        """)
    after = fix(tmp_path, text)
    assert after == text.replace("    stop_after_attempt,\n", "    stop_after_attempt,\n    stop_after_delay,\n").replace(
        "stop=stop_after_attempt(10)", "stop=stop_after_attempt(10) | stop_after_delay(60)")


CELERY = """\
from celery import shared_task


@shared_task(
    bind=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=5,
    retry_jitter=False,{comment}
    retry_kwargs={{"max_retries": 3}},
)
def refresh(self):
    raise ConnectionError("down")
"""


@pytest.mark.parametrize("comment, applicability", [
    ("", Applicability.SAFE),
    ("  # exact waits: 5 s, 10 s, 20 s", Applicability.UNSAFE),
])
def test_a_safe_fix_never_deletes_a_comment(tmp_path, comment, applicability):
    linter = Linter(Settings(root=tmp_path))
    found, _ = linter.lint_text(CELERY.format(comment=comment), "m.py")
    fixes = [f.fix for f in found if f.code == "RES201"]
    assert [(f.message, f.applicability) for f in fixes] == [
        ("Remove `retry_jitter=False` (celery jitters backoff by default)", applicability)]
    outcome = fix_text(linter, CELERY.format(comment=comment), "m.py", unsafe=False)
    if comment:
        assert outcome.text is None  # --fix leaves the comment, and the argument it explains, alone
    else:
        assert "retry_jitter" not in outcome.text
