"""Polls, classified catch-alls and clients configured elsewhere: the noisy shapes stay quiet,
the real faults are still reported, and the fixes are checked by their exact output."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from reslint.engine.fixer import fix_text
from tests.linting import messages as linted_messages, project_rows, rows

HEAD = """\
import random
import time

import backoff
import redis
import requests
from tenacity import retry, retry_if_exception_type, retry_if_result, stop_after_attempt, wait_fixed

T = (requests.ConnectionError, requests.Timeout)
RETRIED = {429, 500, 502, 503}
session = requests.Session()
"""


def found(linter, body):
    return rows(linter, HEAD, body)


def messages(linter, body, code):
    return linted_messages(linter, HEAD, body, code)


# -- polls ---------------------------------------------------------------------------------------
ASSERT_POLL = """\
@retry(stop=stop_after_attempt(30), wait=wait_fixed(1), reraise=True)
def wait_until_ready(job_id):
    job = session.get(f"https://api.example.invalid/jobs/{job_id}", timeout=5).json()
    assert job["state"] == "done", job
    return job
"""


@pytest.mark.parametrize("body, expected", [
    # a tenacity retry whose body asserts its condition: no jitter, time-cap or catch-all finding
    (ASSERT_POLL, []),
    # the same retry with no assertion retries faults: every finding is back
    (ASSERT_POLL.replace('    assert job["state"] == "done", job\n', ""), [(1, "RES201"), (1, "RES202"), (1, "RES204")]),
    # an assertion beside a named remote fault: a retry of that fault
    (ASSERT_POLL.replace("@retry(", "@retry(retry=retry_if_exception_type((requests.ConnectionError, AssertionError)), "),
     [(1, "RES201"), (1, "RES202")]),
    # a poll with no deadline still hangs its caller
    (ASSERT_POLL.replace("stop=stop_after_attempt(30), ", ""), [(1, "RES203")]),
    # a poll with no pause is a busy loop
    (ASSERT_POLL.replace(", wait=wait_fixed(1)", ""), [(1, "RES205")]),
    # a result predicate: a poll, quiet with a cap, RES203 without
    ("@retry(retry=retry_if_result(lambda job: job is None), stop=stop_after_attempt(60), wait=wait_fixed(5))\n"
     "def fetch_report():\n    return session.get('u', timeout=5).json()\n", []),
    ("@retry(retry=retry_if_result(lambda job: job is None), wait=wait_fixed(5))\n"
     "def fetch_report():\n    return session.get('u', timeout=5).json()\n", [(1, "RES203")]),
    ("@backoff.on_predicate(backoff.constant, interval=5, jitter=None)\n"
     "def fetch_report():\n    return session.get('u', timeout=5).json()\n", [(1, "RES203")]),
    ("@backoff.on_predicate(backoff.constant, interval=5, jitter=None, max_tries=60)\n"
     "def fetch_report():\n    return session.get('u', timeout=5).json()\n", []),
    # a hand-rolled loop waiting for a success status: a poll (a POST in it is no replay either)
    ("def token(payload):\n    for _ in range(10):\n"
     "        r = session.post('https://auth.example.invalid/token', data=payload, timeout=10)\n"
     "        if r.status_code == 200:\n            return r.json()\n        time.sleep(5)\n", []),
    ("def token(payload):\n    while True:\n"
     "        r = session.post('https://auth.example.invalid/token', data=payload, timeout=10)\n"
     "        if r.status_code == 200:\n            return r.json()\n        time.sleep(5)\n", [(2, "RES203")]),
    # the same loop aimed at server errors is a retry
    ("def fetch():\n    for _ in range(3):\n        r = session.get('u', timeout=10)\n"
     "        if r.status_code not in (500, 503):\n            return r\n        time.sleep(5)\n",
     [(2, "RES202"), (6, "RES201")]),
])
def test_polls(linter, body, expected):
    assert found(linter, body) == expected


# -- hand-rolled polls of a remote call with no way out but the condition ----------------------
@pytest.mark.parametrize("body", [
    # a readiness flag read from the answer, sent round until it holds
    "def f():\n    while True:\n        ready = session.get('u', timeout=5).ok\n        if not ready:\n"
    "            time.sleep(2)\n            continue\n        break\n",
    # the remote call is the loop's condition
    "def f():\n    while not session.get('u', timeout=5).ok:\n        time.sleep(5)\n",
    # a field of the JSON body, and a failed state that raises
    "def f(job):\n    while True:\n        resp = session.get(f'u/{job}', timeout=5)\n"
    "        if resp.json()['state'] == 'done':\n            break\n        time.sleep(5)\n",
    "def f(job):\n    while True:\n        state = session.get(f'u/{job}', timeout=5).json()['state']\n"
    "        if state == 'done':\n            return True\n        elif state == 'failed':\n"
    "            raise RuntimeError(job)\n        print('waiting', state)\n        time.sleep(5)\n",
    # the call made by a function of the module
    "def ready():\n    return session.get('u', timeout=5).ok\n\n\ndef f():\n    while not ready():\n"
    "        time.sleep(2)\n",
    # a constant and a builtin read beside the answer bound nothing
    "DONE = 'done'\n\n\ndef f(job):\n    while True:\n        state = session.get(f'u/{job}', timeout=5).json()['state']\n"
    "        if state == DONE:\n            return True\n        time.sleep(5)\n",
    "def f(job):\n    while True:\n        items = session.get(f'u/{job}', timeout=5).json()['items']\n"
    "        if len(items) > 0:\n            return items\n        time.sleep(5)\n",
    # a counter that only a log line and the wait read counts the checks and bounds nothing
    "def f():\n    checks = 0\n    while True:\n        if session.get('u', timeout=5).ok:\n            return True\n"
    "        checks += 1\n        print(f'not ready after {checks} checks')\n        time.sleep(min(2 ** checks, 30))\n",
    "def f():\n    checks = 0\n    while True:\n        if session.get('u', timeout=5).ok:\n            return True\n"
    "        checks = checks + 1\n        time.sleep(5)\n",
    "import itertools\n\n\ndef f():\n    counter = itertools.count()\n    while True:\n"
    "        if session.get('u', timeout=5).ok:\n            return True\n        checks = next(counter)\n"
    "        print('waiting', checks)\n        time.sleep(5)\n",
])
def test_an_endless_poll_of_a_remote_call_is_reported(linter, body):
    row = next(i for i, line in enumerate(body.splitlines(), 1) if line.lstrip().startswith("while "))
    assert found(linter, body) == [(row, "RES203")]


def test_an_endless_poll_says_it_is_a_poll_with_no_deadline(linter):
    body = "def f():\n    while not session.get('u', timeout=5).ok:\n        time.sleep(5)\n"
    assert messages(linter, body, "RES203") == [
        "hand-rolled loop polls for a condition with neither an attempt cap nor a deadline: when the condition "
        "never holds (the job failed, the resource never appears) it waits forever, holding the caller; count "
        "attempts or compare `time.monotonic()` with a deadline"]


@pytest.mark.parametrize("body", [
    # a deadline, or a number of checks
    "def f():\n    deadline = time.monotonic() + 60\n    while time.monotonic() < deadline:\n"
    "        if session.get('u', timeout=5).ok:\n            return True\n        time.sleep(2)\n    return False\n",
    "def f(job):\n    for _ in range(60):\n        resp = session.get(f'u/{job}', timeout=5)\n"
    "        if resp.json()['state'] == 'done':\n            return resp.json()\n        time.sleep(5)\n",
    "def f():\n    n = 0\n    while True:\n        n += 1\n        if session.get('u', timeout=5).ok or n > 10:\n"
    "            break\n        time.sleep(1)\n",
    # a counter handed to a function of the project may be compared there
    "def f():\n    n = 0\n    while True:\n        n += 1\n        if session.get('u', timeout=5).ok:\n"
    "            break\n        give_up_after(n, 10)\n        time.sleep(1)\n",
    # local state: no remote call
    "import os\n\n\ndef f(path):\n    while not os.path.exists(path):\n        time.sleep(1)\n",
    "def f(thread):\n    while not thread.is_alive():\n        time.sleep(1)\n",
    # workers: they handle what they fetch, forever
    "def f(q):\n    while True:\n        job = q.get()\n        handle(job)\n",
    "def f():\n    while True:\n        job = session.get('u', timeout=5).json()\n        if job is None:\n"
    "            break\n        handle(job)\n        time.sleep(1)\n",
    # a stop flag is another way out; a watch that never leaves runs forever by design
    "def f(stop):\n    while not stop.is_set():\n        if session.get('u', timeout=5).ok:\n            break\n"
    "        time.sleep(1)\n",
    "def f(stop):\n    while True:\n        if stop.is_set():\n            return\n"
    "        if session.get('u', timeout=5).ok:\n            break\n        time.sleep(1)\n",
    "def f():\n    while True:\n        if not session.get('u', timeout=5).ok:\n            print('down')\n"
    "        time.sleep(60)\n",
    # a new request each pass: a walk over pages
    "def f(url):\n    while True:\n        data = session.get(url, timeout=5).json()\n        url = data.get('next')\n"
    "        if not url:\n            break\n        time.sleep(1)\n",
])
def test_polls_with_a_bound_and_loops_that_are_no_polls_are_clean(linter, body):
    assert found(linter, body) == []


# polls that test the answer beside a bound: a counter stepped from its own value, a deadline, a
# stop flag, or a name that may be one; each is clean, and endless once the bound is taken out
ENDLESS_OK = """\
def f(url):
    while True:
        r = session.get(url, timeout=5)
        if r.ok:
            break
        time.sleep(5)
"""
ENDLESS_DONE = """\
def f(url):
    r = session.get(url, timeout=5)
    while r.json()['state'] != 'done':
        time.sleep(5)
        r = session.get(url, timeout=5)
"""


@pytest.mark.parametrize("body, endless", [
    # `i = i + 1` before the sleep, and after it
    ("def f(url, n):\n    i = 0\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or i >= n:\n            break\n        i = i + 1\n        time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, n):\n    i = 0\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or i >= n:\n            break\n        time.sleep(5)\n        i = i + 1\n", ENDLESS_OK),
    # a count down, and the next number of an iterator
    ("def f(url, n):\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or n <= 0:\n            break\n        n -= 1\n        time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, counter):\n    while True:\n        attempt = next(counter)\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or attempt > 10:\n            break\n        time.sleep(5)\n", ENDLESS_OK),
    # a counter in the loop's condition
    ("def f(url):\n    tries = 0\n    r = session.get(url, timeout=5)\n"
     "    while r.json()['state'] != 'done' and tries < 10:\n        time.sleep(5)\n"
     "        r = session.get(url, timeout=5)\n        tries = tries + 1\n", ENDLESS_DONE),
    # a deadline, a stop flag, a name that may be either, directly or through a name bound to the test
    ("def f(url, started):\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or time.monotonic() > started + 60:\n            break\n        time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, stop):\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or stop.is_set():\n            break\n        time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, expired):\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        if r.ok or expired:\n            break\n        time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, expired):\n    while True:\n        r = session.get(url, timeout=5)\n"
     "        finished = r.ok or expired\n        if finished:\n            break\n        time.sleep(5)\n",
     ENDLESS_OK),
    ("class Watcher:\n    def wait(self, url):\n        while True:\n            r = session.get(url, timeout=5)\n"
     "            if r.ok or self.closed:\n                break\n            time.sleep(5)\n", ENDLESS_OK),
    ("def f(url, expired):\n    r = session.get(url, timeout=5)\n"
     "    while r.json()['state'] != 'done' and not expired:\n        time.sleep(5)\n"
     "        r = session.get(url, timeout=5)\n", ENDLESS_DONE),
])
def test_a_poll_with_a_bound_reslint_cannot_evaluate_is_clean(linter, body, endless):
    assert found(linter, body) == []
    row = next(i for i, line in enumerate(endless.splitlines(), 1) if line.lstrip().startswith("while "))
    assert found(linter, endless) == [(row, "RES203")]


def test_a_poll_around_a_retried_call_multiplies_nothing(tmp_path):
    body = ("@retry(stop=stop_after_attempt(3), wait=wait_fixed(1), retry=retry_if_exception_type(T))\n"
            "def state(job):\n    return session.get(f'u/{job}', timeout=5).json()['state']\n\n\n"
            "def f(job):\n    while True:\n        if state(job) == 'done':\n            return\n"
            "        time.sleep(5)\n")
    assert project_rows(tmp_path, HEAD, body, ("RES203", "RES301")) == [(7, "RES203")]
    # a loop that catches what the retried call raises once it gives up (tenacity's RetryError) multiplies it
    caught = body.replace("        if state(job) == 'done':\n            return\n",
                          "        try:\n            return state(job)\n        except Exception:\n"
                          "            pass\n")
    assert project_rows(tmp_path, HEAD, caught, ("RES203", "RES301")) == [(7, "RES203"), (9, "RES301")]


def test_endless_poll_message_speaks_of_a_condition(linter):
    body = ASSERT_POLL.replace("stop=stop_after_attempt(30), ", "")
    assert messages(linter, body, "RES203") == [
        "tenacity retry polls for a condition with neither an attempt cap nor a deadline: when the condition never "
        "holds (the job failed, the resource never appears) it waits forever, holding the caller; pass "
        "`stop=stop_after_attempt(N) | stop_after_delay(T)`"]


def fixed(linter, body, unsafe=False):
    text = HEAD + textwrap.dedent(body)
    outcome = fix_text(linter, text, "m.py", unsafe=unsafe)
    assert outcome.error is None
    assert outcome.text is not None, "a fix was expected"
    cst.parse_module(outcome.text)
    assert fix_text(linter, outcome.text, "m.py", unsafe=unsafe).text is None, "a second run must change nothing"
    return outcome.text[len(HEAD):]


LOOP = """\
DEADLINE_S = 600
INTERVAL_S = 60


def wait_for_service():
    for _ in range(DEADLINE_S // 60):
        try:
            return session.get("u", timeout=5)
        except T:
            time.sleep({sleep})
"""


@pytest.mark.parametrize("sleep, after", [
    # a constant sleep keeps its mean: the loop's budget (10 x 60 s) is unchanged
    ("60", "random.uniform(30, 90)"),
    ("1.5", "random.uniform(0.75, 2.25)"),  # (a sleep under a second is not RES201's: retry_short_waits.py)
    ("INTERVAL_S", "random.uniform(INTERVAL_S / 2, INTERVAL_S * 1.5)"),
])
def test_loop_jitter_fix_keeps_the_mean_of_a_constant_sleep(linter, sleep, after):
    assert fixed(linter, LOOP.format(sleep=sleep)) == LOOP.format(sleep=after)


def test_loop_jitter_fix_of_a_growing_sleep_is_full_jitter_within_its_cap(linter):
    body = ("def f():\n    for attempt in range(4):\n        try:\n            return session.get('u', timeout=5)\n"
            "        except T:\n            time.sleep(min(2 ** attempt, 30))\n")
    assert fixed(linter, body) == body.replace("time.sleep(min(2 ** attempt, 30))",
                                               "time.sleep(random.uniform(0, min(2 ** attempt, 30)))")


# -- classified catch-alls -----------------------------------------------------------------------
def _loop(handler: str) -> str:
    return ("def is_transient(exc):\n    return isinstance(exc, T)\n\n\n"
            "def fetch(policy):\n    for attempt in range(3):\n        try:\n"
            "            return session.get('u', timeout=5).json()\n"
            f"        except Exception{handler}\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n")


@pytest.mark.parametrize("handler, expected", [
    (" as exc:\n            if not is_transient(exc):\n                raise", []),
    (" as exc:\n            decision = policy.evaluate(error=exc, attempt=attempt)\n"
     "            if not decision.retry:\n                raise", []),
    (" as exc:\n            text = str(exc).lower()\n            if 'unauthorized' in text:\n"
     "                raise PermissionError(text) from exc", []),
    (" as exc:\n            if getattr(exc, 'status_code', 500) < 500:\n                return None", []),
    # no classification: the handler reads the error only to log it, and gives up on a count
    (" as exc:\n            print(exc)\n            if attempt == 2:\n                raise", [(9, "RES204")]),
    (":\n            if attempt == 2:\n                raise", [(9, "RES204")]),
])
def test_classified_catch_alls(linter, handler, expected):
    assert found(linter, _loop(handler)) == expected


def _separated(earlier: str) -> str:
    return ("class PermanentError(Exception):\n    pass\n\n\n"
            "def fetch():\n    for attempt in range(3):\n        try:\n"
            "            return session.get('u', timeout=5).json()\n"
            f"{earlier}"
            "        except Exception:\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n")


@pytest.mark.parametrize("earlier, expected", [
    # an earlier handler takes out the errors no retry fixes: the catch-all retries the rest
    ("        except PermanentError:\n            return None\n", []),
    ("        except (ValueError, requests.HTTPError):\n            raise\n", []),
    ("        except requests.HTTPError as exc:\n            if exc.response.status_code < 500:\n"
     "                raise\n            time.sleep(random.uniform(0, 1))\n", []),
    # what it takes out is no Exception (the catch-all would not catch it anyway), or it retries too
    ("        except KeyboardInterrupt:\n            raise\n", [(13, "RES204")]),
    ("        except (SystemExit, asyncio.CancelledError):\n            raise\n", [(13, "RES204")]),
    ("        except PermanentError:\n            print('again')\n", [(13, "RES204")]),
    # an open circuit is a signal to stop, not a class of errors the author judged permanent
    ("        except pybreaker.CircuitBreakerError:\n            raise\n", [(13, "RES204")]),
    # giving up on a timeout takes no bug or 4xx out of the catch-all
    ("        except requests.Timeout:\n            return None\n", [(13, "RES204")]),
    ("        except (requests.ConnectTimeout, ConnectionResetError):\n            raise\n", [(13, "RES204")]),
    # it retries its errors too, and reads the error only to choose what to raise at the end
    ("        except TimeoutError as exc:\n            if attempt == 2:\n                if exc.__cause__ is not None:\n"
     "                    raise exc.__cause__\n                raise\n"
     "            time.sleep(random.uniform(0, 1))\n", [(17, "RES204")]),
])
def test_a_catch_all_after_a_handler_that_gives_up_is_classified(linter, earlier, expected):
    assert found(linter, "import asyncio\nimport pybreaker\n" + _separated(earlier)) == expected


ROUTE = """\
@backoff.on_exception(backoff.expo, requests.RequestException, max_tries=4, max_time=30)
def fetch_route(route_id):
    resp = session.get(f"https://api.example.invalid/routes/{{route_id}}", timeout=(3.05, 10))
{check}
    resp.raise_for_status()
    return resp.json()
"""


@pytest.mark.parametrize("check, expected", [
    # only the retried statuses reach raise_for_status(): no 4xx becomes a retried error
    ("    if resp.status_code not in RETRIED:\n        return resp", []),
    ("    if resp.status_code < 500 and resp.status_code != 429:\n        return resp", []),
    ("    if 400 <= resp.status_code < 500:\n        raise ValueError(resp.text)", []),
    # a check reslint cannot evaluate is the author's choice of statuses: quiet
    ("    if resp.status_code not in resp.retry_statuses:\n        return resp", []),
    # success leaves early, 404 still reaches raise_for_status()
    ("    if resp.status_code == 200:\n        return resp.json()", [(1, "RES204")]),
    ("    if resp.status_code in (408, 429):\n        return None", [(1, "RES204")]),
    ("    pass", [(1, "RES204")]),
])
def test_raise_for_status_behind_a_status_check(linter, check, expected):
    assert found(linter, ROUTE.format(check=check)) == expected


def test_raise_for_status_for_5xx_only_in_a_loop(linter):
    body = ("def f():\n    for attempt in range(3):\n        try:\n            r = session.get('u', timeout=5)\n"
            "            if r.status_code >= 500:\n                r.raise_for_status()\n            return r\n"
            "        except requests.RequestException:\n            time.sleep(random.uniform(0, 2 ** attempt))\n")
    assert found(linter, body) == []
    unguarded = body.replace("            if r.status_code >= 500:\n                r.raise_for_status()\n",
                             "            r.raise_for_status()\n")
    assert found(linter, unguarded) == [(7, "RES204")]


# -- a catch-all around nothing but a request: a 4xx comes back as a response -----------------------
def _sent(attempt: str) -> str:
    return ("def tts(url, payload):\n    for attempt in range(3):\n        try:\n"
            f"{attempt}"
            "        except Exception as exc:\n            print(exc)\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n            continue\n"
            "        if response.status_code in RETRIED:\n            continue\n        return response\n")


@pytest.mark.parametrize("attempt, expected", [
    # requests and httpx hand back every status: the catch-all sees connection errors and timeouts
    ("            response = requests.post(url, json=payload, timeout=60)\n", []),
    ("            log.info('sending')\n            response = session.post(url, json=payload, timeout=(3, 30))\n",
     []),
    ("            response = httpx.post(url, json=payload, timeout=30)\n", []),
    ("            response = httpx.head(url, follow_redirects=True, timeout=5)\n"
     "            return str(response.url)\n", []),  # text of a response raises on nothing
    ("            response = httpx.get(url, timeout=5)\n            return int(response.text)\n", [(6, "RES204")]),
    ("            response = httpx.get(url, timeout=5)\n            return str(decode(response))\n",
     [(6, "RES204")]),
    # raise_for_status(), a parse of the body, a call of the project's, a raise: what it catches is no
    # longer the transport alone
    ("            response = requests.post(url, json=payload, timeout=60)\n            response.raise_for_status()\n",
     [(6, "RES204")]),
    ("            response = requests.post(url, json=payload, timeout=60).json()\n", [(5, "RES204")]),
    ("            response = requests.post(url, json=build(payload), timeout=60)\n", [(5, "RES204")]),
    ("            response = requests.post(url, json=payload, timeout=60)\n"
     "            if not response.ok:\n                raise RuntimeError(response.text)\n", [(7, "RES204")]),
    # urllib raises HTTPError on a 4xx: a catch-all around it retries client errors
    ("            response = urllib.request.urlopen(url, timeout=60)\n", [(5, "RES204")]),
    # what else can fail beside the request: an assert, a subscript, arithmetic, a with, a hook
    ("            response = requests.get(url, timeout=5)\n            assert response.status_code == 200\n",
     [(6, "RES204")]),
    ("            response = requests.post(url, json={'id': payload['id']}, timeout=5)\n", [(5, "RES204")]),
    ("            response = requests.head(url, timeout=5).headers['ETag']\n", [(5, "RES204")]),
    ("            response = requests.get(url, timeout=5 * len(payload))\n", [(5, "RES204")]),
    ("            with log:\n                response = requests.get(url, timeout=5)\n", [(6, "RES204")]),
    ("            response = requests.get(url, timeout=5, hooks={'response': check})\n", [(5, "RES204")]),
    ("            response = requests.get(url, timeout=5) and payload > 5\n", [(5, "RES204")]),
    ("            response = requests.post(url, json=payload, timeout=30, **OPTIONS)\n", [(5, "RES204")]),
])
def test_a_catch_all_around_a_bare_request(linter, attempt, expected):
    head = "import logging\nimport urllib.request\n\nimport httpx\n\nlog = logging.getLogger()\n\n\n"
    assert [f for f in found(linter, head + _sent(attempt)) if f[1] == "RES204"] == \
        [(row + 8, code) for row, code in expected]


@pytest.mark.parametrize("catch, expected", [("Exception", []), ("BaseException", [(9, "RES204")]),
                                            ("(Exception, KeyboardInterrupt)", [(9, "RES204")])])
def test_a_catch_of_more_than_exception_around_a_request_is_reported(linter, catch, expected):
    body = _sent("            response = requests.post(url, json=payload, timeout=60)\n").replace(
        "except Exception as exc", f"except {catch} as exc")
    assert [f for f in found(linter, "\n\n\n\n" + body) if f[1] == "RES204"] == expected


@pytest.mark.parametrize("setup", [
    "session.hooks['response'].append(lambda r, *a, **k: r.raise_for_status())\n",
    "session.mount('https://', RaisingAdapter())\n",
    "OPTIONS = {'hooks': {'response': check}}\n",
    "client = httpx.Client(transport=RaisingTransport())\n",
    "pool = urllib3.PoolManager(retries=urllib3.Retry(total=3, redirect=0))\n",
])
def test_a_session_hooked_to_raise_on_a_status_keeps_the_catch_all_reported(linter, setup):
    body = setup + "\n\n" + _sent("            response = session.post(url, json=payload, timeout=60)\n")
    assert [f for f in found(linter, body) if f[1] == "RES204"] == [(8, "RES204")]


def test_a_function_that_only_sends_is_read_with_its_own_names(linter):
    """``session`` is the function's parameter, not the module's requests session: what it sends
    with is unknown, and the catch-all stays reported, whichever rules run."""
    body = ("@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef fetch(session, url):\n"
            "    return session.get(url, timeout=5)\n")
    assert [f for f in found(linter, body) if f[1] == "RES204"] == [(1, "RES204")]
    local = ("@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef fetch(url):\n"
             "    s = requests.Session()\n    return s.get(url, timeout=5)\n")
    assert [f for f in found(linter, local) if f[1] == "RES204"] == []


@pytest.mark.parametrize("raising, expected", [("", []), ("    r.raise_for_status()\n", [(1, "RES204")])])
def test_a_library_retry_of_a_function_that_only_sends(linter, raising, expected):
    body = ("@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef fetch(url):\n"
            "    r = session.get(url, timeout=5)\n" + raising + "    return r\n")
    assert [f for f in found(linter, body) if f[1] == "RES204"] == expected


# -- a retry that waits for a neighbour on the same host ----------------------------------------------
@pytest.mark.parametrize("caught, expected", [
    ("PermissionError", []),
    ("(PermissionError, BlockingIOError)", []),
    ("sqlite3.OperationalError", []),
    # a network error too: judged as any retry
    ("(PermissionError, requests.ConnectionError)", [(8, "RES201")]),
    ("OSError", [(8, "RES201")]),
])
def test_a_retry_of_local_resource_errors_needs_no_jitter(linter, caught, expected):
    body = ("import sqlite3\n\n\ndef write(path, text):\n    delay = 0.5\n    for attempt in range(5):\n"
            "        try:\n            with open(path, 'w') as f:\n                f.write(text)\n            return\n"
            f"        except {caught}:\n            time.sleep(delay)\n            delay *= 2\n")
    assert [f for f in found(linter, body) if f[1] == "RES201"] == [(row + 4, code) for row, code in expected]


@pytest.mark.parametrize("attempt", [
    # a remote call in the attempt: FileNotFoundError and PermissionError may be a shared bucket's
    "            return fs.cat(path)\n",
    # a builtin that calls what it is given
    "            list(map(fs.rm, [path]))\n            return\n",
    # the code turns a remote refusal into a local-looking error
    "            r = requests.get(path, timeout=5)\n            if r.status_code == 403:\n"
    "                raise PermissionError(r.text)\n            return r\n",
])
def test_a_local_error_from_remote_work_is_still_judged(linter, attempt):
    body = ("def read(path, fs):\n    for attempt in range(5):\n        try:\n" + attempt +
            "        except (PermissionError, FileNotFoundError):\n            time.sleep(2)\n")
    assert [code for _, code in found(linter, body) if code == "RES201"] == ["RES201"]


def test_a_local_retry_that_gives_up_through_the_projects_reporting_needs_no_jitter(linter):
    """What the handler does when it gives up (tell the user, re-raise) is no retried work."""
    body = ("def write(ui, path, text):\n    delay = 0.5\n    for attempt in range(5):\n        try:\n"
            "            with open(str(path), 'w') as f:\n                f.write(text)\n            return\n"
            "        except PermissionError as err:\n            if attempt < 4:\n                time.sleep(delay)\n"
            "                delay *= 2\n            else:\n                ui.tool_error(f'cannot write {path}: {err}')\n"
            "                raise\n")
    assert [code for _, code in found(linter, body) if code == "RES201"] == []


def test_a_loop_that_also_waits_out_a_status_is_judged(linter):
    body = ("def work(url):\n    for attempt in range(5):\n        try:\n"
            "            r = requests.get(url, timeout=5)\n            if r.status_code == 503:\n"
            "                time.sleep(2)\n                continue\n            return r\n"
            "        except PermissionError:\n            time.sleep(2)\n")
    assert [(row, code) for row, code in found(linter, body) if code == "RES201"] == [(6, "RES201"), (10, "RES201")]


def test_a_sqlite_write_retried_while_the_database_is_locked_needs_no_jitter(linter):
    body = ("import sqlite3\n\n\ndef store(path, row):\n    conn = sqlite3.connect(path)\n    for attempt in range(5):\n"
            "        try:\n            conn.execute('INSERT INTO t VALUES (?)', (row,))\n            conn.commit()\n"
            "            return\n        except sqlite3.OperationalError:\n            time.sleep(2)\n")
    assert [code for _, code in found(linter, body) if code == "RES201"] == []


@pytest.mark.parametrize("caught, expected", [("PermissionError", []), ("Exception", [(1, "RES201")])])
def test_a_library_retry_of_local_resource_errors_needs_no_jitter(linter, caught, expected):
    body = (f"@retry(retry=retry_if_exception_type({caught}), stop=stop_after_attempt(5), wait=wait_fixed(2))\n"
            "def write(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n")
    assert [f for f in found(linter, body) if f[1] == "RES201"] == expected


# -- clients configured elsewhere ----------------------------------------------------------------
@pytest.mark.parametrize("body, expected", [
    # the client takes its timeouts from the pool: the pool is judged, never the client
    ("pool = redis.ConnectionPool(host='cache', socket_timeout=2)\nr = redis.Redis(connection_pool=pool)\n", []),
    ("pool = redis.ConnectionPool(host='cache')\nr = redis.Redis(connection_pool=pool)\n", [(1, "RES101")]),
    ("pool = redis.BlockingConnectionPool(host='cache')\nr = redis.Redis(connection_pool=pool, socket_timeout=None)\n",
     [(1, "RES101")]),
    ("def client(pool):\n    return redis.Redis(connection_pool=pool)\n", []),
    # a connection class of the project's (an in-memory fake) decides how the pool connects
    ("pool = redis.ConnectionPool(connection_class=FakeConnection, server=server)\n", []),
    ("r = redis.Redis(host='cache')\n", [(1, "RES101")]),
])
def test_redis_client_given_a_pool(linter, body, expected):
    assert found(linter, body) == expected


def test_redis_pool_fix_adds_the_timeout_to_the_pool(linter):
    body = "pool = redis.ConnectionPool(host='cache')\nr = redis.Redis(connection_pool=pool)\n"
    assert fixed(linter, body, unsafe=True) == \
        "pool = redis.ConnectionPool(host='cache', socket_timeout=10)\nr = redis.Redis(connection_pool=pool)\n"


AIOHTTP = """\
import aiohttp

LIMIT = aiohttp.ClientTimeout(total=10)


async def fetch_all(urls):
    async with aiohttp.ClientSession() as session:
        for url in urls:
            async with session.get(url, timeout=LIMIT) as resp:
                yield await resp.text()


async def post_one(url):
    session = aiohttp.ClientSession()
    try:
        resp = await session.post(url, json={}, timeout=LIMIT)
        return await resp.json()
    finally:
        await session.close()


async def one_request_without(url):
    async with aiohttp.ClientSession() as session:  # error
        await session.get(url, timeout=LIMIT)
        return await session.get(url)


async def passed_on(url):
    async with aiohttp.ClientSession() as session:  # error
        await session.get(url, timeout=LIMIT)
        return await helper(session)


async def method_taken(url):
    async with aiohttp.ClientSession() as session:  # error
        get = session.get
        return await get(url, timeout=LIMIT)


async def two_sessions(query, urls):  # the name is bound twice: each block is judged alone
    async with aiohttp.ClientSession() as session:  # error
        found = await session.get(query)
    async with aiohttp.ClientSession() as session:

        async def page(url):  # a nested function's requests are the block's too
            async with session.get(url, timeout=LIMIT) as resp:
                return await resp.text()

        return found, [await page(u) for u in urls]


async def rebound_in_its_block(url):
    async with aiohttp.ClientSession() as session:  # error
        await session.get(url, timeout=LIMIT)
        session = aiohttp.ClientSession()  # error
        return await session.get(url)


def factory():
    return aiohttp.ClientSession()  # error


SHARED = aiohttp.ClientSession()  # error


async def inline(url):  # built for one request that sets its own timeout
    return await aiohttp.ClientSession().get(url, timeout=LIMIT)


async def inline_without(url):
    return await aiohttp.ClientSession().get(url)  # error


async def headers_changed(url):  # an attribute of the session used: judged by its constructor
    async with aiohttp.ClientSession() as session:  # error
        session.headers.update({"a": "b"})
        return await session.get(url, timeout=LIMIT)
"""


def test_aiohttp_session_used_only_by_requests_with_their_own_timeout(linter):
    results, errors = linter.lint_text(AIOHTTP, "m.py")
    assert errors == []
    expected = [row for row, line in enumerate(AIOHTTP.splitlines(), 1) if line.endswith("# error")]
    assert sorted(f.location.row for f in results if f.code == "RES101") == expected


PRESIGNERS = """\
import boto3


def token(host, port, user):  # signs an RDS auth token locally: sends nothing
    client = boto3.client("rds", region_name="us-east-2")
    return client.generate_db_auth_token(DBHostname=host, Port=port, DBUsername=user)


def link(key):
    return boto3.client("s3").generate_presigned_url("get_object", Params={"Bucket": "b", "Key": key})


def link_and_upload(key):
    s3 = boto3.client("s3")  # error
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "b", "Key": key})
    s3.put_object(Bucket="b", Key=key, Body=b"")
    return url


def handed_out():
    s3 = boto3.client("s3")  # error
    return s3


SHARED = boto3.client("s3")  # error: other modules may import it and send requests


def shared_link(key):
    return SHARED.generate_presigned_url("get_object", Params={"Bucket": "b", "Key": key})
"""


def test_a_botocore_client_that_only_presigns_sends_nothing(tmp_path):
    from reslint.config import settings_from_table
    from reslint.engine.filepass import Linter

    # a 30 s ceiling: botocore's 60 s defaults are reported where the client sends requests
    linter = Linter(settings_from_table({"max-timeout": 30}, tmp_path, None))
    results, errors = linter.lint_text(PRESIGNERS, "m.py")
    assert errors == []
    expected = [row for row, line in enumerate(PRESIGNERS.splitlines(), 1) if "# error" in line]
    assert sorted(f.location.row for f in results if f.code == "RES101") == expected


MODEL_CLIENTS = """\
import anthropic
import openai


async def edit(messages):  # every request through the client sets its own timeout
    client = openai.AsyncOpenAI(api_key="k")
    return await client.chat.completions.create(model="m", messages=messages, timeout=30.0)


def summarise(text):
    with anthropic.Anthropic() as client:
        return client.messages.create(model="m", max_tokens=100, messages=[], timeout=20)


async def one_without(messages):
    client = openai.AsyncOpenAI()  # error
    await client.chat.completions.create(model="m", messages=messages, timeout=30.0)
    return await client.chat.completions.create(model="m", messages=messages)


async def another_request(messages):  # a request the list does not name: it may wait 600 s
    client = openai.AsyncOpenAI()  # error
    await client.files.list()
    return await client.chat.completions.create(model="m", messages=messages, timeout=30.0)


async def copied(messages):  # a copy of the client: its requests are not followed
    client = openai.AsyncOpenAI()  # error
    return await client.with_options(max_retries=0).chat.completions.create(model="m", messages=messages)


def kept(messages):
    client = openai.OpenAI()  # error
    client.chat.completions.create(model="m", messages=messages, timeout=30.0)
    return client
"""


def test_model_clients_used_only_by_requests_with_their_own_timeout(linter):
    results, errors = linter.lint_text(MODEL_CLIENTS, "m.py")
    assert errors == []
    expected = [row for row, line in enumerate(MODEL_CLIENTS.splitlines(), 1) if line.endswith("# error")]
    assert sorted(f.location.row for f in results if f.code == "RES101") == expected


@pytest.mark.parametrize("raises, message", [
    ("            resp.raise_for_status()\n",
     "Catch only `(requests.ConnectionError, requests.Timeout)`; the HTTP errors `raise_for_status()` raises "
     "(429 and 5xx too) are then no longer retried: retry those by status"),
    ("", "Catch only `(requests.ConnectionError, requests.Timeout)`"),
])
def test_narrowing_fix_says_which_retries_it_drops(linter, raises, message):
    body = ("def f():\n    for attempt in range(3):\n        try:\n            resp = session.get('u', timeout=5)\n"
            f"{raises}            return resp.json()\n        except Exception:\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n")
    results, _ = linter.lint_text(HEAD + body, "m.py")
    assert [f.fix.message for f in results if f.code == "RES204"] == [message]


def test_a_retry_of_a_locked_local_file_is_not_aimed_at_an_error_a_retry_cannot_fix(linter):
    # PermissionError is the OS's: on Windows, a file another process holds open raises it too
    body = """
    def write_text(path, text):
        delay = random.uniform(0, 0.1)
        for attempt in range(5):
            try:
                with open(path, "w") as f:
                    f.write(text)
                return
            except {caught}:
                if attempt == 4:
                    raise
                time.sleep(random.uniform(0, delay * 2 ** attempt))
    """
    assert found(linter, body.replace("{caught}", "PermissionError")) == []
    assert [code for _, code in found(linter, body.replace("{caught}", "Exception"))] == ["RES204"]


# -- readiness probes: the attempt only learns that the server answers ---------------------------
PROBE = """\
def wait_ready(client):
    for _ in range(3):
        try:
            {attempt}
            {leave}
        except Exception:
            time.sleep(3)
"""


@pytest.mark.parametrize("attempt, leave, expected", [
    # a ping, a dropped GET, a connection opened and closed: a wait for readiness
    ("client.ping()", "break", []),
    ("client.search(index='i', body={})", "return", []),
    ("session.get('https://api.example.invalid/health', timeout=5).raise_for_status()", "return True", []),
    ("r = redis.Redis(socket_timeout=5, socket_connect_timeout=5)\n            r.close()", "break", []),
    # the answer leaves the attempt, or the attempt writes: a retry
    ("return session.get('https://api.example.invalid/items', timeout=5).json()", "", [(6, "RES204"), (7, "RES201")]),
    # (a catch-all around a bare request catches only its transport errors: no RES204)
    ("session.put('https://api.example.invalid/items/1', json={}, timeout=5)", "break", [(7, "RES201")]),
    ("session.post('https://api.example.invalid/items', json={}, timeout=5)", "break", [(4, "RES402"), (7, "RES201")]),
    # a project function: what it does is not known here
    ("client.refresh_all()", "break", [(6, "RES204"), (7, "RES201")]),
])
def test_a_readiness_probe_is_a_poll(linter, attempt, leave, expected):
    body = PROBE.format(attempt=attempt, leave=leave)
    if not leave:
        body = body.replace("            \n", "")
        expected = [(row - 1 if row > 4 else row, code) for row, code in expected]
    assert found(linter, body) == expected


def test_a_connection_kept_after_the_wait_is_a_retry_of_the_connect(linter):
    body = ("def connect():\n    for _ in range(3):\n        try:\n"
            "            r = redis.Redis(socket_timeout=5, socket_connect_timeout=5)\n            break\n"
            "        except Exception:\n            time.sleep(3)\n    return r\n")
    assert found(linter, body) == [(6, "RES204"), (7, "RES201")]


def test_a_probe_with_no_pause_is_a_busy_poll(linter):
    body = ("def wait_ready(client):\n    for _ in range(20):\n        try:\n            client.ping()\n"
            "            break\n        except redis.ConnectionError:\n            pass\n")
    assert found(linter, body) == [(2, "RES205")]


@pytest.mark.parametrize("body, expected", [
    # a write before the probe: the loop retries the write
    ("def submit(order):\n    for _ in range(3):\n"
     "        session.post('https://api.example.invalid/orders', json=order, timeout=5)\n"
     "        try:\n            session.get('https://api.example.invalid/ready', timeout=5).raise_for_status()\n"
     "            break\n        except Exception:\n            time.sleep(1)\n",
     [(2, "RES202"), (3, "RES402"), (7, "RES204"), (8, "RES201")]),
    # a method of the project named like a probe: what it does is not known here
    ("class Svc:\n    def ping(self):\n        return session.post('https://api.example.invalid/register', timeout=5)\n\n"
     "    def register(self):\n        for _ in range(3):\n            try:\n                self.ping()\n"
     "                break\n            except Exception:\n                time.sleep(1)\n",
     [(10, "RES204"), (11, "RES201")]),
])
def test_a_probe_beside_a_write_or_a_project_method_is_no_readiness_wait(linter, body, expected):
    assert found(linter, body) == expected


# -- periodic tasks: sleep, work, again, until stopped -----------------------------------------------
PERIODIC = """\
class Worker:
    def cleanup_forever(self):
        while True:
            try:
                if self.pool:
                    time.sleep(self.pool.interval)
                    {work}
                else:
                    break
            except KeyboardInterrupt:
                break
            except Exception as exc:
                print("cleanup failed", exc)
"""


@pytest.mark.parametrize("work", [
    "self.pool.cleanup_idle()",
    "session.post('https://api.example.invalid/heartbeat', timeout=5)",
])
def test_a_periodic_task_is_neither_a_retry_nor_a_poll(linter, work):
    # it leaves only on state it does not produce (no pool) or when stopped: it waits for nothing
    assert found(linter, PERIODIC.format(work=work)) == []


@pytest.mark.parametrize(("leave", "expected"), [
    # it leaves on what its request answered: a poll with no deadline
    ("r = session.get('https://api.example.invalid/jobs/1', timeout=5)\n                if r.json()['state'] == 'done':\n"
     "                    return r.json()", [(2, "RES203")]),
    ("if session.get('https://api.example.invalid/jobs/1', timeout=5).json()['done']:\n                    return",
     [(2, "RES203")]),
])
def test_a_loop_that_leaves_on_its_answer_is_still_a_poll(linter, leave, expected):
    body = f"""\
def wait_for_job():
    while True:
        try:
            if True:
                {leave}
        except T:
            print("not yet")
        time.sleep(5)
"""
    assert found(linter, body) == expected


@pytest.mark.parametrize("attempt", [
    # the object a call refreshes is the answer (boto3's ``instance.reload()``)
    "instance.reload()\n            if instance.state['Name'] == 'running':\n                return instance",
    # a ``match`` on the answer
    "r = session.get('https://api.example.invalid/jobs/1', timeout=5)\n            match r.json()['state']:\n"
    "                case 'done':\n                    return r.json()",
])
def test_a_poll_that_leaves_on_a_refreshed_object_or_a_match_is_no_periodic_task(linter, attempt):
    body = f"""\
def wait(instance):
    while True:
        try:
            {attempt}
        except T:
            print("not yet")
        time.sleep(5)
"""
    assert found(linter, body) == [(2, "RES203")]


# -- readiness polls of a model endpoint ---------------------------------------------------------
MODEL_PROBE = """\
from openai import OpenAI

client = OpenAI(timeout=30)


def wait_until_served(model, fmt, deploy_timeout):
    for _ in range(deploy_timeout // 60):
        try:
            if fmt == "chat":
                client.chat.completions.create(messages=[{{"role": "user", "content": "hi"}}], model=model, max_tokens=1)
            elif fmt == "completion":
                client.completions.create(prompt="hi", model=model, max_tokens=1)
            else:
                {third}
            return
        except Exception:
            time.sleep(60)
"""


@pytest.mark.parametrize("third, expected", [
    # each branch only asks whether the endpoint serves and drops the answer: a readiness wait,
    # with no jitter or catch-all finding, and no retry layer over the SDK's own retries (RES301)
    ("client.embeddings.create(input='hi', model=model)", []),
    ("pass", []),
    # a write in one branch: a retry, whatever the other branches do, and a retry layer over the
    # SDK's own retries on each model call
    ("session.post('https://api.example.invalid/deploy', json={}, timeout=5)",
     [(10, "RES301"), (12, "RES301"), (14, "RES402"), (16, "RES204"), (17, "RES201")]),
    # the project's own function: what it does is not known here, so a retry
    ("notify(model)", [(10, "RES301"), (12, "RES301"), (16, "RES204"), (17, "RES201")]),
    # a completion the provider is asked to keep, and the Responses API (it keeps them by default):
    # no probe, so a retry
    ("client.chat.completions.create(messages=[], model=model, store=True)",
     [(10, "RES301"), (12, "RES301"), (14, "RES301"), (16, "RES204"), (17, "RES201")]),
    ("client.responses.create(model=model, input='hi')",
     [(10, "RES301"), (12, "RES301"), (14, "RES301"), (16, "RES204"), (17, "RES201")]),
])
def test_a_model_endpoint_probed_in_branches_is_a_readiness_wait(tmp_path, third, expected):
    body = MODEL_PROBE.format(third=third)
    assert project_rows(tmp_path, HEAD, body, ("RES201", "RES204", "RES301", "RES402")) == expected


@pytest.mark.parametrize("attempt, expected", [
    # the answer is carried out: a retry of the completion, under the SDK's own retries
    ("return client.chat.completions.create(messages=[], model=model)",
     [(9, "RES301"), (10, "RES204"), (11, "RES201")]),
    # a branch chosen by a call (``if check(model):``) is no configuration: a retry
    ("if check(model):\n                client.completions.create(prompt='hi', model=model, max_tokens=1)\n"
     "            return", [(10, "RES301"), (12, "RES204"), (13, "RES201")]),
])
def test_model_requests_that_carry_an_answer_or_branch_on_a_call_stay_retries(tmp_path, attempt, expected):
    body = ("from openai import OpenAI\n\nclient = OpenAI(timeout=30)\n\n\n"
            "def ask(model):\n    for _ in range(3):\n        try:\n"
            f"            {attempt}\n"
            "        except Exception:\n            time.sleep(2)\n")
    assert project_rows(tmp_path, HEAD, body, ("RES201", "RES204", "RES301")) == expected


def test_a_model_request_outside_the_probe_keeps_the_loop_a_retry(tmp_path):
    # the answer is kept past the loop: the completion is what the loop repeats, the GET only a check
    body = ("from openai import OpenAI\n\nclient = OpenAI(timeout=30)\n\n\n"
            "def ask(model, hook):\n    for _ in range(5):\n"
            "        reply = client.chat.completions.create(model=model, messages=[])\n"
            "        try:\n            session.get(hook, timeout=5).raise_for_status()\n            break\n"
            "        except Exception:\n            time.sleep(2)\n    return reply\n")
    assert project_rows(tmp_path, HEAD, body, ("RES201", "RES204", "RES301")) == [
        (8, "RES301"), (12, "RES204"), (13, "RES201")]


def test_a_tool_call_is_never_a_probe(tmp_path):
    body = ("from mcp import ClientSession\n\n\n"
            "async def send(read, write, invoice):\n"
            "    async with ClientSession(read, write) as session:\n"
            "        for _ in range(5):\n            try:\n"
            "                await session.call_tool('send_invoice', {'id': invoice})\n                return\n"
            "            except Exception:\n                await asyncio.sleep(2)\n")
    assert project_rows(tmp_path, HEAD + "import asyncio\n", body, ("RES201", "RES204", "RES402")) == [
        (8, "RES402"), (10, "RES204"), (11, "RES201")]
