"""RES204's narrowing fix keeps what the retried code raises itself to try again: an exception
class raised in the retried code, or in a function of the module it calls, stays in the
narrowed types; what it cannot keep (a builtin that may be a bug, a status error, a class raised
on a client error) the message names; and where reslint cannot name what the code raises, no fix
is offered."""

from __future__ import annotations

import textwrap

import pytest

from reslint.config import Settings
from reslint.diagnostics import Applicability
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text

HEAD = """\
import random
import time

import backoff
import requests
from tenacity import retry, stop_after_attempt, wait_random_exponential

session = requests.Session()


class RetryableError(Exception):
    pass


"""
LOOP = """\
def fetch(url):
    for attempt in range(3):
        try:
            resp = session.get(url, timeout=5)
{raises}            return resp.json()
        except Exception:
            time.sleep(random.uniform(0, 2 ** attempt))
"""
TRANSIENT = "(requests.ConnectionError, requests.Timeout)"
THROTTLED = "            if resp.status_code == 429 or resp.status_code >= 500:\n                raise {}\n"


def narrowing(tmp_path, text):
    """(the RES204 fix's message and applicability, or None; the text --unsafe-fixes leaves)."""
    linter = Linter(Settings(root=tmp_path, select=("RES204",)))
    found, errors = linter.lint_text(text, "m.py")
    assert errors == []
    fixes = [f.fix for f in found if f.code == "RES204"]
    assert len(fixes) == 1
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    assert outcome.error is None
    fixed = outcome.text or text
    assert fix_text(linter, fixed, "m.py", unsafe=True).text is None  # nothing left to narrow
    return (fixes[0].message, fixes[0].applicability) if fixes[0] else None, fixed


@pytest.mark.parametrize("raises, types, said", [
    # the code asks for another attempt with its own class: the narrowing keeps it
    (THROTTLED.format("RetryableError(resp.status_code)"), "(requests.ConnectionError, requests.Timeout, "
     "RetryableError)", "; `RetryableError`, which the retried code raises itself to try again, is still retried"),
    # a builtin error of the operating system is as transient as the library's
    (THROTTLED.format("ConnectionError('throttled')"), "(requests.ConnectionError, requests.Timeout, "
     "ConnectionError)", "; `ConnectionError`, which the retried code raises itself to try again, is still "
     "retried"),
    # a builtin that may as well report a bug is not kept, and the message says so
    (THROTTLED.format("ValueError(resp.status_code)"), TRANSIENT,
     "; `ValueError`, which the retried code raises itself, is then no longer retried"),
    (THROTTLED.format("requests.HTTPError(response=resp)"), TRANSIENT,
     "; `requests.HTTPError`, which the retried code raises itself, is then no longer retried"),
    # a class the library's own errors already name is not written twice
    (THROTTLED.format("requests.Timeout()"), TRANSIENT, ""),
    # nothing raised: the transient errors alone
    ("", TRANSIENT, ""),
])
def test_a_loop_keeps_what_its_try_body_raises_to_try_again(tmp_path, raises, types, said):
    text = HEAD + LOOP.format(raises=raises)
    fix, fixed = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{types}`{said}", Applicability.UNSAFE)
    assert fixed == text.replace("except Exception:", f"except {types}:")


CLIENT_ERROR = "; `RetryableError`, which the retried code raises on {}, is then no longer retried, as no retry " \
               "fixes a client error"
KEPT = "; `RetryableError`, which the retried code raises itself to try again, is still retried"


@pytest.mark.parametrize("raises, types, said", [
    # raised on a client error: kept, the narrowed retry would retry the 400, so it is dropped and named
    ("            if resp.status_code == 400:\n                raise RetryableError(resp.text)\n", TRANSIENT,
     CLIENT_ERROR.format("HTTP 400")),
    # raised on a 429 or a 503 alone: the code's signal to try again, kept
    ("            if resp.status_code == 429:\n                raise RetryableError(resp.status_code)\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)", KEPT),
    ("            if resp.status_code == 503:\n                raise RetryableError(resp.status_code)\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)", KEPT),
    # raised on a 5xx and on a 4xx: dropped, since keeping it would retry the 4xx too
    ("            if resp.status_code >= 500:\n                raise RetryableError(resp.status_code)\n"
     "            elif resp.status_code == 404:\n                raise RetryableError(resp.status_code)\n", TRANSIENT,
     CLIENT_ERROR.format("HTTP 404")),
    ("            if resp.status_code != 200:\n                raise RetryableError(resp.status_code)\n", TRANSIENT,
     CLIENT_ERROR.format("a 4xx")),
    # a check in front that leaves decides which statuses get to the raise
    ("            if resp.ok:\n                return resp.json()\n"
     "            raise RetryableError(resp.status_code)\n", TRANSIENT, CLIENT_ERROR.format("a 4xx")),
    ("            if resp.status_code < 500:\n                return resp.json()\n"
     "            raise RetryableError(resp.status_code)\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)", KEPT),
    # no status check on the way: the code's own signal to try again, kept
    ("            if not resp.content:\n                raise RetryableError('empty reply')\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)", KEPT),
    # a 400 only when the reply asks for another attempt: not sure to be raised on a 400, kept
    ("            if resp.status_code == 400 and resp.json().get('retry'):\n"
     "                raise RetryableError(resp.status_code)\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)", KEPT),
])
def test_a_class_raised_on_a_client_error_is_not_kept(tmp_path, raises, types, said):
    text = HEAD + LOOP.format(raises=raises)
    fix, fixed = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{types}`{said}", Applicability.UNSAFE)
    assert fixed == text.replace("except Exception:", f"except {types}:")


def test_a_tenacity_retry_drops_the_class_raised_on_a_400_and_keeps_the_one_raised_on_a_5xx(tmp_path):
    head = HEAD.replace("from tenacity import retry, ", "from tenacity import retry, retry_if_exception_type, ")
    text = head + textwrap.dedent("""\
        class BadRequest(Exception):
            pass


        @retry(stop=stop_after_attempt(3), retry=retry_if_exception_type(Exception))
        def fetch(url):
            r = session.get(url, timeout=5)
            if r.status_code == 400:
                raise BadRequest(r.text)
            if r.status_code == 429 or r.status_code >= 500:
                raise RetryableError(r.status_code)
            return r.json()
        """)
    fix, fixed = narrowing(tmp_path, text)
    types = "(requests.ConnectionError, requests.Timeout, RetryableError)"
    assert fix == (f"Retry only `{types}`{KEPT}; `BadRequest`, which the retried code raises on HTTP 400, is then "
                   "no longer retried, as no retry fixes a client error", Applicability.UNSAFE)
    assert fixed == text.replace("retry=retry_if_exception_type(Exception)", f"retry=retry_if_exception_type({types})")


def test_a_class_derived_from_a_library_client_error_is_not_kept(tmp_path):
    text = ("import openai\n" + HEAD + "class Rejected(openai.BadRequestError):\n    pass\n\n\n"
            + LOOP.format(raises="            if not resp.content:\n                raise Rejected(url)\n"))
    fix, fixed = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{TRANSIENT}`; `Rejected`, which the retried code raises itself, is then no longer "
                   "retried", Applicability.UNSAFE)
    assert fixed == text.replace("except Exception:", f"except {TRANSIENT}:")


HELPER = """\
def check(resp):
{body}    return resp


def fetch(url):
    for attempt in range(3):
        try:
            return check(session.get(url, timeout=5)).json()
        except Exception:
            time.sleep(random.uniform(0, 2 ** attempt))
"""


@pytest.mark.parametrize("body, types, said", [
    ("    if resp.status_code == 429:\n        raise RetryableError(resp.status_code)\n",
     "(requests.ConnectionError, requests.Timeout, RetryableError)",
     "; `RetryableError`, which the retried code raises itself to try again, is still retried"),
    # raise_for_status() in the helper: its HTTP errors are dropped, and the message says so
    ("    resp.raise_for_status()\n", TRANSIENT,
     "; the HTTP errors `raise_for_status()` raises (429 and 5xx too) are then no longer retried: retry those "
     "by status"),
    ("    print(resp.status_code)\n", TRANSIENT, ""),
    # the helper's own status checks decide: raised on a 401, it is dropped
    ("    if resp.status_code == 401:\n        raise RetryableError(resp.status_code)\n", TRANSIENT,
     "; `RetryableError`, which the retried code raises on HTTP 401, is then no longer retried, as no retry fixes "
     "a client error"),
])
def test_a_loop_keeps_what_a_function_of_the_module_it_calls_raises(tmp_path, body, types, said):
    text = HEAD + HELPER.format(body=body)
    fix, fixed = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{types}`{said}", Applicability.UNSAFE)
    assert fixed == text.replace("except Exception:", f"except {types}:")


def test_what_a_handler_raises_is_not_the_retried_code(tmp_path):
    # the handler gives up with its own error: that one leaves the loop, the narrowing need not catch it
    text = HEAD + LOOP.format(raises="").replace(
        "            time.sleep(", "            if attempt == 2:\n                raise RetryableError(url)\n"
                                   "            time.sleep(")
    fix, fixed = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{TRANSIENT}`", Applicability.UNSAFE)
    assert fixed == text.replace("except Exception:", f"except {TRANSIENT}:")


@pytest.mark.parametrize("raises", [
    THROTTLED.format("make_error(resp)"),  # a function's return value: reslint cannot name its class
    THROTTLED.format("error"),
])
def test_no_narrowing_when_what_the_code_raises_cannot_be_named(tmp_path, raises):
    text = (HEAD + "def make_error(resp):\n    return RetryableError(resp.status_code)\n\n\n"
            + LOOP.format(raises=raises).replace("    for attempt", "    error = make_error(None)\n    for attempt"))
    fix, fixed = narrowing(tmp_path, text)
    assert fix is None
    assert fixed == text


def test_a_reraised_error_of_the_called_code_is_not_a_signal(tmp_path):
    raises = ("            try:\n                data = resp.json()\n            except KeyError as exc:\n"
              "                raise exc\n")
    text = HEAD + LOOP.format(raises=raises)
    fix, _ = narrowing(tmp_path, text)
    assert fix == (f"Catch only `{TRANSIENT}`", Applicability.UNSAFE)


DECORATED = """\
@backoff.on_exception(backoff.expo, Exception, max_tries=4, max_time=30)
def fetch(url):
    resp = session.get(url, timeout=5)
    if resp.status_code == 429:
        raise {error}(resp.status_code)
    return resp.json()
"""


def test_a_decorator_keeps_a_class_defined_above_it(tmp_path):
    text = HEAD + DECORATED.format(error="RetryableError")
    fix, fixed = narrowing(tmp_path, text)
    types = "(requests.ConnectionError, requests.Timeout, RetryableError)"
    assert fix == (f"Retry only `{types}`; `RetryableError`, which the retried code raises itself to try again, "
                   "is still retried", Applicability.UNSAFE)
    assert fixed == text.replace("backoff.expo, Exception,", f"backoff.expo, {types},")


def test_no_narrowing_when_the_class_is_defined_below_the_decorator(tmp_path):
    # the decorator's arguments are evaluated when the function is defined: naming the class there fails
    text = HEAD + DECORATED.format(error="LateError") + "\n\nclass LateError(Exception):\n    pass\n"
    fix, fixed = narrowing(tmp_path, text)
    assert fix is None
    assert fixed == text


def test_the_default_predicate_keeps_the_code_own_class(tmp_path):
    text = HEAD + textwrap.dedent("""\
        @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=10))
        def fetch(url):
            resp = session.get(url, timeout=5)
            if resp.status_code == 429:
                raise RetryableError(resp.status_code)
            return resp.json()
        """)
    fix, fixed = narrowing(tmp_path, text)
    types = "(requests.ConnectionError, requests.Timeout, RetryableError)"
    assert fix == (f"Retry only `{types}`; `RetryableError`, which the retried code raises itself to try again, "
                   "is still retried", Applicability.UNSAFE)
    assert fixed == text.replace(
        "from tenacity import retry, stop_after_attempt", "from tenacity import retry, retry_if_exception_type, "
        "stop_after_attempt").replace("wait=wait_random_exponential(max=10))",
                                      f"wait=wait_random_exponential(max=10), retry=retry_if_exception_type({types}))")
