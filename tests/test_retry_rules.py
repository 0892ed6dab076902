"""Retry policy rules (RES104, RES201-RES206): verdicts on small programs, and every fix:
the fixed code is clean for that rule and a second --fix run changes nothing."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from tests.linting import rows

HEAD = """\
import random
import time

import backoff
import requests
import stamina
from requests.adapters import HTTPAdapter
from tenacity import Retrying, retry, retry_if_exception_type, retry_if_result, stop_after_attempt, stop_after_delay, wait_exponential, wait_fixed, wait_random, wait_random_exponential
from urllib3.util.retry import Retry

T = (requests.ConnectionError, requests.Timeout)
session = requests.Session()
"""


def findings(linter, body):
    return rows(linter, HEAD, body)


@pytest.mark.parametrize("body, expected", [
    # tenacity: caps, waits, predicates
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4) | stop_after_delay(30), "
     "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=(2, 5))\n", []),
    ("@retry\ndef f():\n    return session.get('u', timeout=(2, 5)).json()\n", [(1, "RES203"), (1, "RES204"), (1, "RES205")]),
    # what it retries can only fail on the request's transport: every exception is a transient one
    ("@retry\ndef f():\n    return session.get('u', timeout=(2, 5))\n", [(1, "RES203"), (1, "RES205")]),
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4) & stop_after_delay(30), "
     "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=(2, 5))\n", [(1, "RES203")]),
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4) | stop_after_delay(30), "
     "wait=wait_exponential(max=5))\ndef f():\n    return session.get('u', timeout=(2, 5))\n", [(1, "RES201")]),
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10), wait=wait_random_exponential(max=30))\n"
     "def f():\n    return session.get('u', timeout=(2, 5))\n", [(1, "RES202")]),
    # a retry proven short needs no time cap: 3 x 7 s + 1.5 s
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3), wait=wait_random_exponential(0.5, 5))\n"
     "def f():\n    return session.get('u', timeout=(2, 5))\n", []),
    # RES104: a per-attempt timeout longer than the time cap (requests: connect + read)
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4) | stop_after_delay(10), "
     "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=30)\n", [(3, "RES104")]),
    # backoff
    ("@backoff.on_exception(backoff.expo, T)\ndef f():\n    return session.get('u', timeout=(2, 5))\n",
     [(1, "RES203")]),
    ("@backoff.on_exception(backoff.expo, T, max_tries=4, max_time=30, jitter=None)\n"
     "def f():\n    return session.get('u', timeout=(2, 5))\n", [(1, "RES201")]),
    # stamina defaults are safe; overrides are not
    ("@stamina.retry(on=T)\ndef f():\n    return session.get('u', timeout=(2, 5))\n", []),
    ("@stamina.retry(on=Exception)\ndef f():\n    return session.get('u', timeout=(2, 5)).json()\n", [(1, "RES204")]),
    # urllib3
    ("p = Retry(total=3, status_forcelist=[500, 502])\n", [(1, "RES205")]),
    ("p = Retry(total=3, backoff_factor=0.5, status_forcelist=[500, 502])\n", [(1, "RES201")]),
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, status_forcelist=[404, 500])\n", [(1, "RES204")]),
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, status_forcelist=[429], "
     "respect_retry_after_header=False)\n", [(1, "RES206")]),
    ("session.mount('https://', HTTPAdapter(max_retries=3))\n", []),
    # hand-rolled loops: anchors are the loop, the sleep and the except line
    ("def f():\n    while True:\n        try:\n            return session.get('u', timeout=(2, 5))\n"
     "        except T:\n            time.sleep(random.uniform(0, 2))\n", [(2, "RES203")]),
    ("def f():\n    for attempt in range(4):\n        try:\n            return session.get('u', timeout=(2, 5))\n"
     "        except T:\n            time.sleep(2 ** attempt)\n", [(6, "RES201")]),
    ("def f():\n    for attempt in range(3):\n        try:\n            return session.get('u', timeout=(2, 5)).json()\n"
     "        except Exception:\n            time.sleep(random.uniform(0, 2 ** attempt))\n", [(5, "RES204")]),
    ("def f():\n    for attempt in range(3):\n        try:\n            return session.get('u', timeout=(2, 5))\n"
     "        except T:\n            continue\n", [(2, "RES205")]),
    # not retries: a loop over items, a poll with no failure handling, a search catching KeyError
    ("def f(items):\n    for item in items:\n        try:\n            session.get(item, timeout=(2, 5))\n"
     "        except T:\n            continue\n", []),
    ("def f(cache, keys):\n    for _ in range(100):\n        try:\n            return cache[keys.pop()]\n"
     "        except KeyError:\n            continue\n", []),
    ("def f(delay):\n    for attempt in range(3):\n        try:\n            return session.get('u', timeout=(2, 5))\n"
     "        except T:\n            time.sleep(delay)\n", []),
    # Retry-After in loops
    ("def f():\n    for attempt in range(3):\n        r = session.get('u', timeout=(2, 5))\n"
     "        if r.status_code != 429:\n            return r\n        time.sleep(5 + random.uniform(0, 1))\n",
     [(6, "RES206")]),
    ("def f():\n    for attempt in range(3):\n        r = session.get('u', timeout=(2, 5))\n"
     "        if r.status_code != 429:\n            return r\n"
     "        time.sleep(min(float(r.headers['Retry-After']), 20) + random.uniform(0, 1))\n", []),
])
def test_verdicts(linter, body, expected):
    assert findings(linter, body) == expected


def fixed(linter, body, unsafe=False):
    text = HEAD + textwrap.dedent(body)
    outcome = fix_text(linter, text, "m.py", unsafe=unsafe)
    assert outcome.error is None
    assert outcome.text is not None, "a fix was expected"
    cst.parse_module(outcome.text)
    assert fix_text(linter, outcome.text, "m.py", unsafe=unsafe).text is None, "a second run must change nothing"
    return outcome.text.split("session = requests.Session()\n", 1)[1]  # a fix may drop an import of HEAD


GOOD = "retry=retry_if_exception_type(T), stop=stop_after_attempt(4) | stop_after_delay(30)"


@pytest.mark.parametrize("body, after", [
    (f"@retry({GOOD}, wait=wait_exponential(multiplier=0.5, max=8))\ndef f():\n    return session.get('u', timeout=5)\n",
     f"@retry({GOOD}, wait=wait_random_exponential(multiplier=0.5, max=8))\ndef f():\n    return session.get('u', timeout=5)\n"),
    (f"@retry({GOOD}, wait=wait_fixed(2))\ndef f():\n    return session.get('u', timeout=5)\n",
     f"@retry({GOOD}, wait=wait_fixed(2) + wait_random(0, 2))\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10), wait=wait_random_exponential(max=30))\n"
     "def f():\n    return session.get('u', timeout=5)\n",
     "@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10) | stop_after_delay(60), "
     "wait=wait_random_exponential(max=30))\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(5) & stop_after_delay(20), "
     "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=5)\n",
     "@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(5) | stop_after_delay(20), "
     "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("@retry(retry=retry_if_exception_type(T), wait=wait_random_exponential(max=5))\n"
     "def f():\n    return session.get('u', timeout=5)\n",
     "@retry(retry=retry_if_exception_type(T), wait=wait_random_exponential(max=5), "
     "stop=stop_after_attempt(5) | stop_after_delay(60))\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("@backoff.on_exception(backoff.expo, T, max_tries=4, max_time=30, jitter=None)\n"
     "def f():\n    return session.get('u', timeout=5)\n",
     "@backoff.on_exception(backoff.expo, T, max_tries=4, max_time=30)\n"
     "def f():\n    return session.get('u', timeout=5)\n"),
    ("@backoff.on_exception(backoff.expo, T, max_tries=8)\ndef f():\n    return session.get('u', timeout=5)\n",
     "@backoff.on_exception(backoff.expo, T, max_tries=8, max_time=60)\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("p = Retry(total=3, backoff_factor=0.5, status_forcelist=[500])\n",
     "p = Retry(total=3, backoff_factor=0.5, status_forcelist=[500], backoff_jitter=0.5)\n"),
    ("p = Retry(total=3, status_forcelist=[500])\n",
     "p = Retry(total=3, status_forcelist=[500], backoff_factor=0.5, backoff_jitter=0.5)\n"),
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, status_forcelist=[429], "
     "respect_retry_after_header=False)\n",
     "p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, status_forcelist=[429])\n"),
    (f"@retry({GOOD})\ndef f():\n    return session.get('u', timeout=5)\n",
     f"@retry({GOOD}, wait=wait_random_exponential(multiplier=0.5, max=10))\ndef f():\n    return session.get('u', timeout=5)\n"),
    ("@stamina.retry(on=T, attempts=20, timeout=None)\ndef f():\n    return session.get('u', timeout=5)\n",
     "@stamina.retry(on=T, attempts=20, timeout=60)\ndef f():\n    return session.get('u', timeout=5)\n"),
])
def test_safe_fixes(linter, body, after):
    assert fixed(linter, body) == after


def test_jitter_fix_drops_the_import_it_made_unused(linter):
    text = HEAD + f"@retry({GOOD}, wait=wait_exponential(multiplier=0.5, max=8))\ndef f():\n    return 1\n"
    outcome = fix_text(linter, text, "m.py", unsafe=False)
    assert outcome.text == text.replace(" wait_exponential,", "").replace("wait=wait_exponential(",
                                                                            "wait=wait_random_exponential(")
    # a second use keeps it
    twice = text + f"@retry({GOOD}, wait=wait_exponential(max=4) + wait_random(0, 1))\ndef g():\n    return 2\n"
    outcome = fix_text(linter, twice, "m.py", unsafe=False)
    assert "wait_exponential, wait_fixed" in outcome.text and "wait=wait_random_exponential(multiplier=0.5" in outcome.text


def test_loop_jitter_fix_imports_random_once(tmp_path):
    linter = Linter(Settings(root=tmp_path))
    text = textwrap.dedent("""\
        import time

        import requests

        T = (requests.ConnectionError, requests.Timeout)


        def f(session):
            for attempt in range(4):
                try:
                    return session.get("u", timeout=5)
                except T:
                    time.sleep(2 ** attempt)
            for attempt in range(4):
                try:
                    return session.get("v", timeout=5)
                except T:
                    time.sleep(0.5 * 2 ** attempt)
        """)
    outcome = fix_text(linter, text, "m.py", unsafe=False)
    assert outcome.text.count("import random\n") == 1
    assert "time.sleep(random.uniform(0, 2 ** attempt))" in outcome.text
    assert "time.sleep(random.uniform(0, 0.5 * 2 ** attempt))" in outcome.text
    assert fix_text(linter, outcome.text, "m.py", unsafe=False).text is None


@pytest.mark.parametrize("body", [
    f"@retry({GOOD}, wait=wait_fixed(next(DELAYS)))\ndef f():\n    return session.get('u', timeout=5)\n",
    "p = Retry(total=3, backoff_factor=float(next(DELAYS)), status_forcelist=[500])\n",
])
def test_jitter_fix_does_not_evaluate_an_expression_twice(linter, body):
    text = HEAD + "DELAYS = iter([1, 2])\n" + body
    found, _ = linter.lint_text(text, "m.py")
    assert [(f.code, f.fix) for f in found if f.code == "RES201"] == [("RES201", None)]


def test_jitter_fix_copies_a_plain_name_or_constant(linter):
    body = f"DELAY = 2\n@retry({GOOD}, wait=wait_fixed(DELAY * 0.5))\ndef f():\n    return session.get('u', timeout=5)\n"
    assert fixed(linter, body) == body.replace("wait_fixed(DELAY * 0.5)",
                                               "wait_fixed(DELAY * 0.5) + wait_random(0, DELAY * 0.5)")


def test_huge_attempt_counts_are_reported_as_numbers_not_digits(linter):
    body = ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10 ** 100), "
            "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=5)\n"
            "p = Retry(total=10 ** 100, backoff_factor=0.5, backoff_jitter=0.5, status_forcelist=[500])\n")
    text = HEAD + textwrap.dedent(body)
    found, errors = linter.lint_text(text, "m.py")
    assert errors == []
    messages = [f.message for f in found if f.code == "RES202"]
    assert len(messages) == 2
    assert all("worst case 1e+100 attempts × " in m and "0000" not in m for m in messages), messages
    # beyond the float range the cap is no cap: RES203, and no crash on int(inf)
    inf = ("@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(10 ** 400), "
           "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u', timeout=5)\n")
    assert findings(linter, inf) == [(1, "RES203")]


def test_fix_extends_an_optional_import_and_withholds_for_a_lazy_one(linter):
    optional = textwrap.dedent("""\
        try:
            from tenacity import retry, wait_fixed, stop_after_attempt
            HAVE_TENACITY = True
        except ImportError:  # optional dependency
            HAVE_TENACITY = False

        if HAVE_TENACITY:
            @retry(wait=wait_fixed(1), stop=stop_after_attempt(100))
            def poll():
                pass
        """)
    outcome = fix_text(linter, optional, "m.py", unsafe=False)
    assert outcome.text == optional.replace(
        "from tenacity import retry, wait_fixed, stop_after_attempt\n",
        "from tenacity import retry, wait_fixed, stop_after_attempt, wait_random, stop_after_delay\n").replace(
        "@retry(wait=wait_fixed(1), stop=stop_after_attempt(100))",
        "@retry(wait=wait_fixed(1) + wait_random(0, 1), stop=stop_after_attempt(100) | stop_after_delay(60))")
    lazy = textwrap.dedent("""\
        def lazy():
            from tenacity import retry, wait_fixed, stop_after_attempt
            @retry(wait=wait_fixed(1), stop=stop_after_attempt(100))
            def g():
                pass
            return g
        """)
    found, _ = linter.lint_text(lazy, "m.py")
    assert sorted((f.code, f.fix) for f in found) == [("RES201", None), ("RES202", None), ("RES204", None)]
    assert fix_text(linter, lazy, "m.py", unsafe=True).text is None


def test_narrowing_does_not_shadow_a_builtin(linter):
    text = textwrap.dedent("""\
        import socket
        from requests import get
        from tenacity import retry, stop_after_attempt, stop_after_delay, wait_random_exponential


        @retry(stop=stop_after_attempt(3) | stop_after_delay(10), wait=wait_random_exponential())
        def fetch():
            return get("https://example.invalid", timeout=5).json()


        def ping(host):
            try:
                socket.create_connection((host, 80), timeout=1).close()
                return True
            except ConnectionError:  # the builtin
                return False
        """)
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    # `Timeout` may join `from requests import get`; `ConnectionError` is the builtin's name: qualified.
    # Each name goes where isort puts it (classes before functions), and `import requests` into the
    # third-party imports, before their `from` imports
    assert outcome.text == text.replace("from requests import get\n",
                                        "import requests\nfrom requests import Timeout, get\n").replace(
        "retry, stop_after_attempt", "retry, retry_if_exception_type, stop_after_attempt", 1).replace(
        "wait=wait_random_exponential())",
        "wait=wait_random_exponential(), "
        "retry=retry_if_exception_type((requests.ConnectionError, Timeout)))")


def test_narrowing_is_unsafe_and_uses_the_library_of_the_calls(linter):
    body = ("@retry(stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=5))\n"
            "def f():\n    return session.get('u', timeout=5).json()\n")
    assert fix_text(linter, HEAD + body, "m.py", unsafe=False).text is None
    assert fixed(linter, body, unsafe=True) == body.replace(
        "wait_random_exponential(max=5))",
        "wait_random_exponential(max=5), retry=retry_if_exception_type((requests.ConnectionError, requests.Timeout)))")


def test_urllib3_jitter_fix_not_offered_when_pinned_below_2(tmp_path):
    (tmp_path / "requirements.txt").write_text("requests\nurllib3<2\n", encoding="utf-8")
    linter = Linter(Settings(root=tmp_path))
    found, _ = linter.lint_text(HEAD + "p = Retry(total=3, backoff_factor=0.5, status_forcelist=[500])\n", "m.py")
    assert [(f.code, f.fix) for f in found] == [("RES201", None)]


def test_messages_carry_the_numbers(linter):
    """No give-up test before the sleep: the sixth failure sleeps too before the loop ends, so the
    waits are 1 + 2 + 4 + 8 + 8 + 8 = 31 s."""
    text = HEAD + textwrap.dedent("""\
        def f():
            for attempt in range(6):
                try:
                    return session.get('u', timeout=(3.05, 10))
                except T:
                    time.sleep(random.uniform(0, min(8, 2 ** attempt)))
        """)
    (finding,) = [f for f in linter.lint_text(text, "m.py")[0] if f.code == "RES202"]
    assert "6 attempts × 13.05 s + up to 31 s of waits = 109.3 s > max-retry-time (60 s)" in finding.message


def test_a_give_up_test_before_the_sleep_spares_the_last_wait(linter):
    text = HEAD + textwrap.dedent("""\
        def f():
            for attempt in range(6):
                try:
                    return session.get('u', timeout=(3.05, 10))
                except T:
                    if attempt == 5:
                        raise
                    time.sleep(random.uniform(0, min(8, 2 ** attempt)))
        """)
    (finding,) = [f for f in linter.lint_text(text, "m.py")[0] if f.code == "RES202"]
    assert "6 attempts × 13.05 s + up to 23 s of waits = 101.3 s > max-retry-time (60 s)" in finding.message


def test_redo_retriable_async_is_read_from_its_own_parameters(linter):
    """redo.retriable_async takes only retry_exceptions and sleeptime_kwargs: always 5 attempts,
    sleeping calculate_sleep_time(n) = min(2 ** (n - 1) * 5 * (1 + 0.5 * random()), 120) before
    attempt n (redo 3.0.1): up to 15 + 30 + 60 + 120 = 225 s of waits."""
    text = textwrap.dedent("""\
        import redo


        @redo.retriable_async(retry_exceptions=(ConnectionError,))
        async def fetch(session):
            return await session.get("u")


        @redo.retriable_async(sleeptime_kwargs={"delay_factor": 0.1, "max_delay": 1})
        async def quick(session):
            return await session.get("u")
        """)
    found, errors = linter.lint_text(text, "m.py")
    assert errors == []
    assert [(f.location.row, f.code) for f in found] == [(4, "RES202"), (9, "RES204")]
    assert "5 attempts" in found[0].message and "225 s of waits" in found[0].message


@pytest.mark.parametrize("attempts, fix_s, reported", [
    (2, 10, False),  # 2 × 20 s + 5 s of waits: the default-timeout fits
    (5, 4, False),  # 5 × 20 s + 12 s would not: RES101's fix gives each phase what the retry leaves, 4 s
    (40, 10, True),  # 40 attempts outlast the cap even at 1 s per phase: the retry itself is too long
])
def test_a_call_with_no_timeout_gets_the_timeout_its_retry_leaves_it(linter, attempts, fix_s, reported):
    # the call waits forever (RES101): RES202 judges it with the timeout RES101's fix inserts, so
    # applying that fix brings up no RES202 the first run did not show; inside a retry with an
    # attempt cap and no time cap, that fix is what the retry's cap leaves each attempt
    body = (f"@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt({attempts}), "
            "wait=wait_random_exponential(max=5))\ndef f():\n    return session.get('u')\n")
    found, _ = linter.lint_text(HEAD + body, "m.py")
    (timeout,) = [f for f in found if f.code == "RES101"]
    assert timeout.fix is not None and timeout.fix.message == f"Add `timeout={fix_s}`"
    assert ("at most" in timeout.message) is (fix_s != 10)
    assert ("RES202" in {f.code for f in found}) is reported
    fixed, _ = linter.lint_text(HEAD + body.replace("session.get('u')", f"session.get('u', timeout={fix_s})"), "m.py")
    assert ("RES202" in {f.code for f in fixed}) is reported
    if fix_s == 4:
        assert "`timeout=` (at most 4 s: the retry around it must end within max-retry-time (60 s))" in timeout.message
        # a longer timeout chosen by hand is judged as written: 5 × 20 s + 12 s
        longer, _ = linter.lint_text(HEAD + body.replace("session.get('u')", "session.get('u', timeout=10)"), "m.py")
        (message,) = [f.message for f in longer if f.code == "RES202"]
        assert "5 attempts × 20 s + up to 12 s of waits = 112 s > max-retry-time (60 s);" in message
    if reported:
        (message,) = [f.message for f in found if f.code == "RES202"]
        assert "40 attempts × 20 s + up to" in message and "(counting each call that has no timeout, RES101, " \
               "at its category's default-timeout)" in message


@pytest.mark.parametrize("decorator, reported", [
    ("@retry(stop=stop_after_attempt(3))", False),  # tenacity wraps the call, which only creates the generator
    ("@backoff.on_exception(backoff.expo, Exception, max_tries=3)", False),
    ("@stamina.retry(on=Exception, attempts=3)", True),  # stamina retries a generator's iteration
])
@pytest.mark.parametrize("kind", ["async def f():\n    async for x in source():\n        yield x\n",
                                  "def f():\n    yield from source()\n"])
def test_a_retry_decorator_on_a_generator_its_library_cannot_retry_is_no_retry(linter, decorator, kind, reported):
    found = findings(linter, f"{decorator}\n{kind}")
    assert bool([code for _, code in found if code.startswith("RES2")]) is reported, found


SWALLOWING = ("async def emit(self, sid):\n    \"\"\"Send it.\"\"\"\n    if not sid:\n        return False\n"
              "    try:\n        await session.post('u', timeout=5)\n        return True\n"
              "    except Exception as exc:\n        log.error('failed: %s', exc)\n        return False\n")


@pytest.mark.parametrize("decorator, body, reported", [
    # every exception is caught and none re-raised: the decorator never sees one, never retries
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))", SWALLOWING, False),
    ("@backoff.on_exception(backoff.expo, Exception, max_tries=3, jitter=None)", SWALLOWING, False),
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))",
     SWALLOWING.replace("except Exception as exc:", "except:"), False),
    # a handler that re-raises, a narrower catch, a call before the try, a call in finally: it retries
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))",
     SWALLOWING.replace("log.error('failed: %s', exc)\n        return False", "log.error('failed: %s', exc)\n        raise"),
     True),
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))",
     SWALLOWING.replace("except Exception", "except ValueError"), True),
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))",
     SWALLOWING.replace("    try:\n", "    session.get('v', timeout=5)\n    try:\n"), True),
    ("@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))",
     SWALLOWING + "    finally:\n        session.close()\n", True),
])
def test_a_retry_decorator_on_a_function_that_swallows_every_error_is_no_retry(linter, decorator, body, reported):
    found = findings(linter, f"{decorator}\n{body}")
    assert bool([code for _, code in found if code.startswith("RES2")]) is reported, found


def test_a_policy_shared_by_a_generator_and_a_function_is_still_judged(linter):
    body = ("again = retry(stop=stop_after_attempt(3))\n\n\n@again\ndef pages():\n    yield from source()\n\n\n"
            "@again\ndef page():\n    return session.get('u', timeout=5).json()\n")
    assert (1, "RES204") in findings(linter, body)


@pytest.mark.parametrize("body, reported", [
    # the retried code raises ValueError itself on an empty answer: its own signal to try again
    ("@retry(retry=retry_if_exception_type((requests.Timeout, ValueError)), stop=stop_after_attempt(2))\n"
     "def f():\n    r = session.get('u', timeout=5)\n    if not r.content:\n        raise ValueError('empty, retry')\n"
     "    return r.json()\n", False),
    ("@retry(retry=retry_if_exception_type((requests.Timeout, ValueError)), stop=stop_after_attempt(2))\n"
     "def f():\n    return int(session.get('u', timeout=5).text)\n", True),
    # the same in a hand-rolled loop that also retries timeouts
    ("def f():\n    for attempt in range(3):\n        try:\n            r = session.get('u', timeout=5)\n"
     "            if not r.content:\n                raise ValueError('empty')\n            return r.json()\n"
     "        except (requests.Timeout, ValueError):\n            time.sleep(random.uniform(0, 2 ** attempt))\n",
     False),
    ("def f():\n    for attempt in range(3):\n        try:\n            return int(session.get('u', timeout=5).text)\n"
     "        except (requests.Timeout, ValueError):\n            time.sleep(random.uniform(0, 2 ** attempt))\n",
     True),
])
def test_an_error_the_retried_code_raises_itself_is_its_signal_to_retry(linter, body, reported):
    assert any(code == "RES204" for _, code in findings(linter, body)) is reported


@pytest.mark.parametrize("body", [
    # the handler calls what may raise: tenacity sees that error and retries
    SWALLOWING.replace("log.error('failed: %s', exc)\n        return False", "self.reconnect()\n        return False"),
    SWALLOWING.replace("log.error('failed: %s', exc)\n        return False", "return fail(exc)"),
])
def test_a_handler_that_calls_what_may_raise_is_retried(linter, body):
    found = findings(linter, f"@retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))\n{body}")
    assert [code for _, code in found if code.startswith("RES2")], found


def test_a_predicate_that_also_retries_a_result_is_retried(linter):
    decorator = ("@retry(retry=retry_if_result(lambda ok: ok is False) | retry_if_exception_type(), "
                 "stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=10))")
    found = findings(linter, f"{decorator}\n{SWALLOWING}")
    assert [code for _, code in found if code.startswith("RES2")], found


@pytest.mark.parametrize(("client", "per_attempt"), [
    ("httpx.Client()", "40 s"),  # builds a client: only the request, with its own 4 x 10 s, waits
    ("httpx.Client(timeout=30)", "40 s"),
    ("imaplib.IMAP4('mail.example.invalid', timeout=5)", "45 s"),  # connects as it is built
])
def test_building_a_client_in_the_attempt_costs_only_what_connects(linter, client, per_attempt):
    text = textwrap.dedent(f"""\
        import httpx
        import imaplib
        from tenacity import retry, stop_after_attempt, wait_random_exponential


        @retry(stop=stop_after_attempt(5), wait=wait_random_exponential(max=4))
        def fetch(url):
            conn = {client}
            with httpx.Client() as http:
                return conn, http.get(url, timeout=10)
        """)
    (finding,) = [f for f in linter.lint_text(text, "m.py")[0] if f.code == "RES202"]
    assert f"worst case 5 attempts × {per_attempt} + up to 11 s of waits" in finding.message, finding.message


@pytest.mark.parametrize(("third", "expected"), [
    # a request on a client bound in several branches can take as long as the longest of them
    ("client = openai.OpenAI(api_key=cfg.key, timeout=90)", "3 attempts × 360 s"),
    ("client = openai.OpenAI(api_key=cfg.key, timeout=20)", "3 attempts × 240 s"),
    # one binding reslint cannot read (another object's client): the worst case is at least the
    # longest of the others, enough to show the retry long
    ("client = cfg.client", "3 attempts × 240 s"),
    ("client = cfg.client if cfg.client else cfg.other", "3 attempts × 240 s"),
])
def test_a_request_on_a_client_bound_by_branch_takes_the_longest_of_them(linter, third, expected):
    """The worst case is only used to show a retry too long, so a lower bound serves it."""
    text = textwrap.dedent(f"""\
        import openai
        from tenacity import retry, stop_after_attempt, wait_random_exponential


        @retry(wait=wait_random_exponential(max=1), stop=stop_after_attempt(3), reraise=True)
        def draw(cfg):
            if cfg.key:
                client = openai.OpenAI(api_key=cfg.key, timeout=60)
            else:
                {third}
            return client.images.generate(prompt="a lighthouse")
        """)
    found = [f.message for f in linter.lint_text(text, "m.py")[0] if f.code == "RES202"]
    if expected is None:
        assert found == []
    else:
        (message,) = found
        assert f"worst case {expected} + up to 2 s of waits" in message, message


def _fitting(text, tmp_path, **settings):
    """(code, row) of the RES101 and RES202 findings of ``text``, the RES101 fixes' texts, and the
    rows of RES202 after applying RES101's fixes."""
    from reslint.config import Settings
    from reslint.engine.filepass import Linter
    from reslint.engine.fixer import fix_text

    linter = Linter(Settings(root=tmp_path, **settings))
    found, _ = linter.lint_text(text, "m.py")
    fixer = Linter(Settings(root=tmp_path, select=("RES101",), **settings))
    fixed = fix_text(fixer, text, "m.py", unsafe=True).text
    after, _ = linter.lint_text(fixed, "m.py")
    return (sorted((f.code, f.location.row) for f in found if f.code in ("RES101", "RES202")),
            [f.fix.message for f in found if f.code == "RES101" and f.fix is not None],
            sorted(f.location.row for f in after if f.code == "RES202"))


FIT_HEAD = "import requests\nfrom tenacity import retry, stop_after_attempt, wait_fixed\n\n"


def test_a_call_in_a_function_the_retry_calls_gets_its_default_and_counts_so(tmp_path):
    # the fix does not see the retry from the helper: the helper's call is counted at its default
    # (20 s), so the first run shows the RES202 a fix would otherwise bring up
    text = FIT_HEAD + ("def fetch(url):\n    return requests.get(url)\n\n\n"
                       "@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef f(url):\n    return fetch(url)\n")
    found, fixes, after = _fitting(text, tmp_path)
    assert found == [("RES101", 5), ("RES202", 8)] and fixes == ["Add `timeout=10`"] and after == [9 - 1]


def test_a_shared_decorator_fits_each_function_it_retries(tmp_path):
    text = FIT_HEAD + ("api_retry = retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\n\n\n"
                       "@api_retry\ndef one(url):\n    return requests.get(url)\n\n\n"
                       "@api_retry\ndef three(url):\n    requests.get(url)\n    requests.get(url)\n"
                       "    return requests.get(url)\n")
    found, fixes, after = _fitting(text, tmp_path)
    # one call: 3 × 18 s + 4 s; three calls: 3 × 3 × 6 s + 4 s, both within 60 s
    assert fixes == ["Add `timeout=9`", "Add `timeout=3`", "Add `timeout=3`", "Add `timeout=3`"]
    assert after == []


def test_a_local_function_the_retried_code_calls_is_not_retried_again(tmp_path):
    text = FIT_HEAD + ("def outer(url):\n    def load():\n        return requests.get(url)\n\n"
                       "    @retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\n    def attempt():\n"
                       "        requests.post(url)\n        return load()\n    return attempt()\n")
    found, fixes, after = _fitting(text, tmp_path)
    # `load` runs once per attempt (3 × (20 + 20) s + 4 s), not retried again inside it (3 × 3 × 20 s):
    # with its get at its default even 1 s for the post cannot fit 60 s, so RES202 says so at once
    assert found == [("RES101", 6), ("RES101", 10), ("RES202", 8)]
    assert fixes == ["Add `timeout=10`", "Add `timeout=10`"] and after == [8]
    from reslint.config import Settings
    from reslint.engine.filepass import Linter

    reported, _ = Linter(Settings(root=tmp_path)).lint_text(text, "m.py")
    [message] = [f.message for f in reported if f.code == "RES202"]
    assert "3 attempts × 40 s + up to 4 s of waits = 124 s" in message


def test_with_res101_off_the_calls_count_at_their_default(tmp_path):
    text = FIT_HEAD + "@retry(stop=stop_after_attempt(3), wait=wait_fixed(2))\ndef f(url):\n    return requests.get(url)\n"
    from reslint.config import Settings
    from reslint.engine.filepass import Linter

    found, _ = Linter(Settings(root=tmp_path, select=("RES202",))).lint_text(text, "m.py")
    assert [f.code for f in found] == ["RES202"] and "3 attempts × 20 s + up to 4 s of waits = 64 s" in found[0].message


def test_a_subprocess_in_a_retry_keeps_its_default_and_the_retry_is_reported(tmp_path):
    # which programs RES101 reports is its business: a retry with a subprocess waiting forever is
    # judged with it at its default, as before fitting existed
    text = ("import subprocess\nfrom tenacity import retry, stop_after_attempt, wait_fixed\n\n"
            "@retry(stop=stop_after_attempt(7), wait=wait_fixed(2))\ndef f(url):\n"
            "    return subprocess.run(['curl', '-sS', url], check=True)\n")
    found, fixes, after = _fitting(text, tmp_path)
    assert found == [("RES101", 6), ("RES202", 4)] and after == [4]
