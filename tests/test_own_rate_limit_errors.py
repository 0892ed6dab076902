"""RES206 on a retry aimed at 429 through the project's own exception: the retried code raises it
on a 429 response (in the try, or in a function of the module it calls), the retry catches it,
and its wait never reads `Retry-After`. Each shape with its clean counterparts."""

from __future__ import annotations

import pytest

from tests.linting import messages as linted_messages, rows

HEAD = """\
import random
import time

import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

session = requests.Session()


class ApiError(Exception):
    pass


class RateLimited(ApiError):
    def __init__(self, retry_after=None):
        self.retry_after = retry_after


def get():
    r = session.get("https://api.example.invalid/x", timeout=5)
    if r.status_code == 429:
        raise RateLimited()
    return r
"""

INLINE = """\
            r = session.get("https://api.example.invalid/x", timeout=5)
            if r.status_code == 429:
                raise RateLimited({arg})
            return r
"""

LOOP = """\
def f():
    for attempt in range(3):
        try:
{attempt}        except {caught}{name}:
            time.sleep({wait})
"""


def codes(linter, body):
    return rows(linter, HEAD, body)


def messages(linter, body):
    return linted_messages(linter, HEAD, body, "RES206")


@pytest.mark.parametrize("attempt, caught, name, wait, expected", [
    # raised in the try, slept in the handler that catches it: the sleep is reported
    (INLINE.format(arg=""), "RateLimited", "", "random.uniform(0, 2 ** attempt)", [(9, "RES206")]),
    # raised by a function of the module the try calls
    ("            return get()\n", "RateLimited", "", "random.uniform(0, 2 ** attempt)", [(6, "RES206")]),
    # caught by its base class
    ("            return get()\n", "ApiError", "", "random.uniform(0, 2 ** attempt)", [(6, "RES206")]),
    # the header carried in the error and slept, capped: clean
    (INLINE.format(arg='r.headers.get("Retry-After", "1")'), "RateLimited", " as e",
     "min(float(e.retry_after), 30) + random.uniform(0, 1)", []),
    # the header read where the error is raised: handed on, not ignored
    (INLINE.format(arg='r.headers.get("Retry-After", "1")'), "RateLimited", "", "random.uniform(0, 2 ** attempt)",
     []),
    # the handler catches only connection errors: the 429 error is not retried
    ("            return get()\n", "requests.ConnectionError", "", "random.uniform(0, 2 ** attempt)", []),
])
def test_a_loop_that_retries_the_error_raised_on_429(linter, attempt, caught, name, wait, expected):
    assert codes(linter, LOOP.format(attempt=attempt, caught=caught, name=name, wait=wait)) == expected


def test_the_sleep_after_the_try_is_reported_when_a_called_function_raises_on_429(linter):
    body = """\
        def f():
            for attempt in range(3):
                try:
                    return get()
                except RateLimited:
                    pass
                time.sleep(random.uniform(0, 2 ** attempt))
        """
    assert codes(linter, body) == [(7, "RES206")]
    assert messages(linter, body) == [
        "retry loop handles 429 but sleeps its own delay, ignoring `Retry-After`: a rate-limited or overloaded "
        "server says when to come back; retrying earlier is refused again and keeps the overload going; sleep "
        "`min(Retry-After, cap)` plus jitter"]


def test_a_handler_that_goes_round_at_once_skips_the_sleep_after_the_try(linter):
    body = """\
        def f():
            for attempt in range(3):
                try:
                    return get()
                except RateLimited:
                    continue
                except requests.ConnectionError:
                    pass
                time.sleep(random.uniform(0, 2 ** attempt))
        """
    assert [code for _, code in codes(linter, body) if code == "RES206"] == []
    assert codes(linter, body.replace("continue", "pass")) == [(9, "RES206")]


def test_an_error_raised_on_every_failure_is_not_aimed_at_429(linter):
    assert codes(linter, """\
        def f():
            for attempt in range(3):
                try:
                    r = session.get("https://api.example.invalid/x", timeout=5)
                    if r.status_code != 200:
                        raise ApiError()
                    return r
                except ApiError:
                    time.sleep(random.uniform(0, 2 ** attempt))
        """) == []


TENACITY = """\
@retry(retry=retry_if_exception_type({caught}), stop=stop_after_attempt(4) | stop_after_delay(30),
       wait={wait})
def f():
{body}
"""
WAIT = "wait_random_exponential(multiplier=0.5, max=5)"


@pytest.mark.parametrize("caught, wait, body, expected", [
    ("RateLimited", WAIT, "    return get()", [(1, "RES206")]),
    ("ApiError", WAIT, "    return get()", [(1, "RES206")]),
    ("RateLimited", WAIT, "    r = session.get('u', timeout=5)\n    if r.status_code in (429, 503):\n"
                          "        raise RateLimited()\n    return r", [(1, "RES206")]),
    # the retry does not catch it, or the error carries the header to a wait that reads it
    ("requests.ConnectionError", WAIT, "    return get()", []),
    ("RateLimited", "wait_server", "    r = session.get('u', timeout=5)\n    if r.status_code == 429:\n"
                                   "        raise RateLimited(r.headers.get('Retry-After', '1'))\n    return r", []),
])
def test_a_library_retry_of_the_error_raised_on_429(linter, caught, wait, body, expected):
    wait_server = "def wait_server(state):\n    return min(float(state.outcome.exception().retry_after), 30)\n\n\n"
    text = wait_server + TENACITY.format(caught=caught, wait=wait, body=body)
    assert codes(linter, text) == [(row + 4, code) for row, code in expected]


def test_the_library_message_names_the_error(linter):
    body = TENACITY.format(caught="RateLimited", wait=WAIT, body="    return get()")
    assert messages(linter, body) == [
        "tenacity retry retries `RateLimited`, which the retried code raises on a 429 response, but its wait never "
        "reads `Retry-After`: a rate-limited or overloaded server says when to come back; retrying earlier is "
        "refused again and keeps the overload going; carry the header's value in the error and wait for the "
        "server's Retry-After (capped), with jitter"]
