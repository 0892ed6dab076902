"""Fix quality: a new import goes into its isort section, a name joins a from-import in isort's
order, an import a fix made unused is removed, and a fix that removes or changes an argument
that carries a comment is not safe, says so, and moves no comment onto another argument."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from reslint.config import Settings, settings_from_table
from reslint.diagnostics import Applicability
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from reslint.semantics.edits import remove_arg

LOOP = """\
def f(session):
    for attempt in range(4):
        try:
            return session.get("u", timeout=5)
        except T:
            time.sleep(2 ** attempt)
"""
FIXED_LOOP = LOOP.replace("time.sleep(2 ** attempt)", "time.sleep(random.uniform(0, 2 ** attempt))")


def fix(tmp_path, text, unsafe=False, settings=None):
    linter = Linter(settings or Settings(root=tmp_path))
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


def _low_ceiling(tmp_path):
    """Settings whose network ceiling (30 s) is below botocore's 60 s defaults: a default boto3
    client is reported, and its fix adds an import."""
    return settings_from_table({"max-timeout": 30}, tmp_path, None)


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
    after = fix(tmp_path, text, unsafe=True, settings=_low_ceiling(tmp_path))
    assert after.startswith("import os\n\nimport boto3\nimport botocore.config\nimport requests\n\nfrom shop import settings\n")


def test_third_party_import_opens_its_section_after_the_standard_library(tmp_path):
    text = "import os\n\nimport boto3\n\ns3 = boto3.client('s3', region_name=os.environ['REGION'])\n"
    assert fix(tmp_path, text, unsafe=True, settings=_low_ceiling(tmp_path)).startswith(
        "import os\n\nimport boto3\nimport botocore.config\n\ns3 = ")
    # a file with no blank line between its sections keeps its layout; the import is placed by name
    text = "import os\nimport boto3\n\ns3 = boto3.client('s3', region_name=os.environ['REGION'])\n"
    assert fix(tmp_path, text, unsafe=True, settings=_low_ceiling(tmp_path)).startswith(
        "import os\nimport boto3\nimport botocore.config\n\ns3 = ")


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


# -- a fix that removes or changes an argument that carries a comment is not safe ----------------------
COMMENTED = """\
import backoff
import pybreaker
import requests
import stamina
from aiohttp_retry import ExponentialRetry
from celery import shared_task
from requests.adapters import HTTPAdapter
from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_exponential, wait_random_exponential
from urllib3.util.retry import Retry

T = (requests.ConnectionError, requests.Timeout)
session = requests.Session()
payments_breaker = pybreaker.CircuitBreaker(fail_max=5, reset_timeout=30)


"""
#: what a fix changes in the imports of :data:`COMMENTED` (it adds a name, or removes one it made unused)
TENACITY_IMPORTS = "from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, " \
                   "wait_exponential, wait_random_exponential"
CELERY_JITTER = "Remove `retry_jitter=False` (celery jitters backoff by default)"
BACKOFF_JITTER = "Remove `jitter=` (the library jitters by default)"
DELIBERATE = "; not safe: the comment `{}` explains a deliberate choice; the fix {}"


def removed(comment):
    return DELIBERATE.format(comment, "removes it")


def left(comment):
    return DELIBERATE.format(comment, "leaves it as it is")


#: (code, before, after, message[, imports after]): the fix of the one ``code`` finding of
#: ``before``, which ``--fix --unsafe-fixes`` turns into ``after``; a message with a note is an
#: unsafe fix
COMMENT_CASES = {
    # celery: a comment line directly above the argument goes with it
    "celery above": ("RES201", """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            # exact waits: 5 s, 10 s, 20 s, the partner's rate limit needs them
            retry_jitter=False,
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, CELERY_JITTER + removed("# exact waits: 5 s, 10 s, 20 s, the partner's rate limit needs them")),
    "celery trailing": ("RES201", """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            retry_jitter=False,  # exact waits
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, CELERY_JITTER + removed("# exact waits")),
    # a comment after the call, on the argument's line, is outside what the fix rewrites: it stays
    "celery after the call": ("RES201", """\
        @shared_task(bind=True, autoretry_for=(ConnectionError,), retry_backoff=5, retry_jitter=False)  # fixed waits
        def refresh(self):
            raise ConnectionError("down")
        """, """\
        @shared_task(bind=True, autoretry_for=(ConnectionError,), retry_backoff=5)  # fixed waits
        def refresh(self):
            raise ConnectionError("down")
        """, CELERY_JITTER + left("# fixed waits")),
    "celery no comment": ("RES201", """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            retry_jitter=False,
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, """\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            retry_kwargs={"max_retries": 3},
        )
        def refresh(self):
            raise ConnectionError("down")
        """, CELERY_JITTER),
    # backoff: the last argument's trailing comment goes with it, never onto the argument before
    "backoff trailing": ("RES201", """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,
            jitter=None,  # deterministic for the partner
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER + removed("# deterministic for the partner")),
    "backoff above": ("RES201", """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,
            # deterministic for the partner
            jitter=None,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER + removed("# deterministic for the partner")),
    "backoff after the call": ("RES201", """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30, jitter=None)  # no jitter on purpose
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30)  # no jitter on purpose
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER + left("# no jitter on purpose")),
    # the argument alone on the last line: the bracket and the comment stay on that line, not on max_time's
    "backoff after the call, own line": ("RES201", """\
        class Client:
            @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30,
                                  jitter=None)  # no jitter
            def fetch(self, url):
                return session.get(url, timeout=5)
        """, """\
        class Client:
            @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30,
            )  # no jitter
            def fetch(self, url):
                return session.get(url, timeout=5)
        """, BACKOFF_JITTER + left("# no jitter")),
    "backoff trailing, bracket below": ("RES201", """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30, jitter=None,  # no jitter
                              )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30,
                              )
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER + removed("# no jitter")),
    # a tool's directive explains no choice
    "backoff directive": ("RES201", """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30, jitter=None)  # noqa: E501
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(backoff.expo, T, max_tries=3, max_time=30)  # noqa: E501
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER),
    # the comments of the other arguments stay where they are, and the fix stays safe
    "backoff other comments": ("RES201", """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,  # three tries
            jitter=None,
            # half a minute at most
            max_time=30,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,  # three tries
            # half a minute at most
            max_time=30,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER),
    "backoff comment of the argument before": ("RES201", """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,  # half a minute
            jitter=None)
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @backoff.on_exception(
            backoff.expo,
            T,
            max_tries=3,
            max_time=30,  # half a minute
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, BACKOFF_JITTER),
    # stamina: a removed argument, and a replaced value whose comment stays
    "stamina jitter": ("RES201", """\
        @stamina.retry(
            on=T,
            wait_jitter=0,  # the partner asked for exact waits
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @stamina.retry(
            on=T,
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Remove `wait_jitter=` (the library jitters by default)" + removed("# the partner asked for exact waits")),
    "stamina timeout": ("RES202", """\
        @stamina.retry(on=T, attempts=20, timeout=None)  # no time cap: the batch may take hours
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @stamina.retry(on=T, attempts=20, timeout=60)  # no time cap: the batch may take hours
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Set `timeout=60`" + left("# no time cap: the batch may take hours")),
    "stamina timeout no comment": ("RES202", """\
        @stamina.retry(on=T, attempts=20, timeout=None)
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @stamina.retry(on=T, attempts=20, timeout=60)
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Set `timeout=60`"),
    # urllib3: the Retry-After switch and the retried methods
    "urllib3 retry-after": ("RES206", """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            status_forcelist=[429, 503],
            respect_retry_after_header=False,  # the gateway sends bogus Retry-After values
        )))
        """, """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            status_forcelist=[429, 503],
        )))
        """, "Remove `respect_retry_after_header=False`" + removed("# the gateway sends bogus Retry-After values")),
    "urllib3 every method": ("RES403", """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            # every request carries an idempotency key
            allowed_methods=None,
        )))
        """, """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
        )))
        """, "Remove `allowed_methods=` (retry idempotent methods only)"
             + removed("# every request carries an idempotency key")),
    "urllib3 methods": ("RES403", """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            allowed_methods=["GET", "POST"],  # POST carries an idempotency key
        )))
        """, """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            allowed_methods=["GET"],  # POST carries an idempotency key
        )))
        """, "Remove POST from the retried methods" + left("# POST carries an idempotency key")),
    "urllib3 method's own comment": ("RES403", """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            allowed_methods=[
                "GET",
                "POST",  # it carries an idempotency key
            ],
        )))
        """, """\
        session.mount("https://", HTTPAdapter(max_retries=Retry(
            total=3,
            backoff_factor=0.5,
            backoff_jitter=0.5,
            allowed_methods=[
                "GET",
            ],
        )))
        """, "Remove POST from the retried methods" + removed("# it carries an idempotency key")),
    "aiohttp_retry methods": ("RES403", """\
        options = ExponentialRetry(
            attempts=3,
            methods={"GET", "POST"},  # POST sends an idempotency key
        )
        """, """\
        options = ExponentialRetry(
            attempts=3,
            methods={"GET"},  # POST sends an idempotency key
        )
        """, "Remove POST from the retried methods" + left("# POST sends an idempotency key")),
    "aiohttp_retry methods no comment": ("RES403", """\
        options = ExponentialRetry(attempts=3, methods={"GET", "POST"})
        """, """\
        options = ExponentialRetry(attempts=3, methods={"GET"})
        """, "Remove POST from the retried methods"),
    # tenacity: each fix that changes an argument's value
    "tenacity wait": ("RES201", """\
        @retry(
            retry=retry_if_exception_type(T),
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_exponential(max=5),  # the partner asked for exact waits
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @retry(
            retry=retry_if_exception_type(T),
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_random_exponential(max=5),  # the partner asked for exact waits
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Use `wait_random_exponential` with the same bounds (full jitter)"
             + left("# the partner asked for exact waits"), TENACITY_IMPORTS.replace(" wait_exponential,", "")),
    "tenacity stops": ("RES203", """\
        @retry(
            retry=retry_if_exception_type(T),
            stop=stop_after_attempt(4) & stop_after_delay(30),  # four tries however fast they fail
            wait=wait_random_exponential(max=5),
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @retry(
            retry=retry_if_exception_type(T),
            stop=stop_after_attempt(4) | stop_after_delay(30),  # four tries however fast they fail
            wait=wait_random_exponential(max=5),
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Combine the stops with `|`" + left("# four tries however fast they fail")),
    "tenacity time cap": ("RES202", """\
        @retry(
            retry=retry_if_exception_type(T),
            # ten tries, however long: a nightly job
            stop=stop_after_attempt(10),
            wait=wait_random_exponential(max=30),
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, """\
        @retry(
            retry=retry_if_exception_type(T),
            # ten tries, however long: a nightly job
            stop=stop_after_attempt(10) | stop_after_delay(60),
            wait=wait_random_exponential(max=30),
        )
        def fetch(url):
            return session.get(url, timeout=5)
        """, "Add `| stop_after_delay(60)`" + left("# ten tries, however long: a nightly job")),
    "tenacity narrowing": ("RES204", """\
        @retry(
            retry=retry_if_exception_type(Exception),  # anything: the vendor raises bare Exception
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_random_exponential(max=5),
        )
        def fetch(url):
            return session.get(url, timeout=5).json()
        """, """\
        @retry(
            retry=retry_if_exception_type((requests.ConnectionError, requests.Timeout)),  # anything: the vendor raises bare Exception
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_random_exponential(max=5),
        )
        def fetch(url):
            return session.get(url, timeout=5).json()
        """, "Retry only `(requests.ConnectionError, requests.Timeout)`"
             + left("# anything: the vendor raises bare Exception")),
    "tenacity open circuit": ("RES501", """\
        @retry(
            retry=retry_if_exception_type(Exception),  # the ledger raises bare Exception
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_random_exponential(max=5),
        )
        @payments_breaker
        def charge(order):
            return session.post("https://ledger.invalid", json=order, timeout=5)
        """, """\
        @retry(
            retry=retry_if_exception_type(Exception) & retry_if_not_exception_type(pybreaker.CircuitBreakerError),  # the ledger raises bare Exception
            stop=stop_after_attempt(4) | stop_after_delay(30),
            wait=wait_random_exponential(max=5),
        )
        @payments_breaker
        def charge(order):
            return session.post("https://ledger.invalid", json=order, timeout=5)
        """, "Do not retry `pybreaker.CircuitBreakerError`" + left("# the ledger raises bare Exception"),
        TENACITY_IMPORTS.replace("retry_if_exception_type,", "retry_if_exception_type, retry_if_not_exception_type,")),
}


@pytest.mark.parametrize("case", sorted(COMMENT_CASES))
def test_a_fix_that_removes_or_changes_a_commented_argument_is_not_safe(tmp_path, case):
    code, before, after, message, *imports = COMMENT_CASES[case]
    head = COMMENTED.replace(TENACITY_IMPORTS, imports[0]) if imports else COMMENTED
    before, after = COMMENTED + textwrap.dedent(before), head + textwrap.dedent(after)
    linter = Linter(Settings(root=tmp_path, select=(code,)))
    found, errors = linter.lint_text(before, "m.py")
    assert errors == []
    safe = "; not safe: " not in message and code != "RES204"  # narrowing is never safe
    assert [(f.fix.message, f.fix.applicability) for f in found] == [
        (message, Applicability.SAFE if safe else Applicability.UNSAFE)]
    assert fix_text(linter, before, "m.py", unsafe=True).text == after
    # --fix applies a safe fix and leaves an unsafe one, with the comment and the argument it explains, alone
    assert fix_text(linter, before, "m.py", unsafe=False).text == (after if safe else None)


def test_several_comments_are_each_named(tmp_path):
    before = COMMENTED + textwrap.dedent("""\
        @shared_task(
            bind=True,
            autoretry_for=(ConnectionError,),
            retry_backoff=5,
            # the partner's rate limit
            retry_jitter=False,  # exact waits
        )
        def refresh(self):
            raise ConnectionError("down")
        """)
    linter = Linter(Settings(root=tmp_path, select=("RES201",)))
    found, _ = linter.lint_text(before, "m.py")
    assert [(f.fix.message, f.fix.applicability) for f in found] == [
        (CELERY_JITTER + "; not safe: the comments `# the partner's rate limit` (removed) and `# exact waits` "
         "(removed) explain a deliberate choice", Applicability.UNSAFE)]
    assert fix_text(linter, before, "m.py", unsafe=True).text == before.replace(
        "    # the partner's rate limit\n    retry_jitter=False,  # exact waits\n", "")


@pytest.mark.parametrize("before, after", [
    ("f(jitter=None)", "f()"),
    ("f(jitter=None, b=2)", "f(b=2)"),
    ("f(a, jitter=None)", "f(a)"),
    ("f(a, jitter=None,)", "f(a,)"),
    ("f(a, jitter=None, b=2)", "f(a, b=2)"),
    ("f(\n    a,\n    jitter=None,\n)", "f(\n    a,\n)"),
    ("f(\n    a,\n    jitter=None\n)", "f(\n    a\n)"),
    # the comment of the argument before stays on its line: the bracket goes below it
    ("f(\n    a,  # ta\n    jitter=None)", "f(\n    a,  # ta\n)"),
    # the comment above the next argument stays with it
    ("f(\n    a,  # ta\n    jitter=None,\n    # above b\n    b=2,\n)", "f(\n    a,  # ta\n    # above b\n    b=2,\n)"),
    # the argument's own comments go with it
    ("f(\n    # above j\n    jitter=None,  # tj\n    b=2,\n)", "f(\n    b=2,\n)"),
    ("f(  # open\n    jitter=None,\n)", "f(  # open\n)"),
    # a comment above a blank line is not the argument's
    ("f(\n    a,\n\n    # group\n\n    jitter=None,\n)", "f(\n    a,\n\n    # group\n\n)"),
])
def test_a_removed_argument_takes_only_its_own_comments(before, after):
    call = cst.parse_expression(before)
    assert cst.Module(body=[]).code_for_node(remove_arg(call, "jitter")) == after
