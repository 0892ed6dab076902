"""Hand-rolled retry loops as real code writes them (issue 16): each shape's finding and its clean
counterpart, the waits a counter kept by hand really sleeps, give-ups in a helper and before a
server-sent wait, and calls of a retried scope made from a nested function."""

from __future__ import annotations

import ast
import textwrap

import pytest

from reslint.config import Settings
from tests.linting import messages as linted_messages, rows

HEAD = """\
import itertools
import random
import time

import requests
from tenacity import retry, stop_after_attempt, wait_random_exponential

T = (requests.ConnectionError, requests.Timeout)
session = requests.Session()
"""


def codes(linter, body, module="m.py"):
    return rows(linter, HEAD, body, module)


def messages(linter, body, code):
    return linted_messages(linter, HEAD, body, code)


# -- while True / while not done that go round at once ----------------------------------
def test_while_true_with_continue_is_an_endless_immediate_retry(linter):
    assert codes(linter, """\
        def f():
            while True:
                try:
                    return session.get('u', timeout=5)
                except T:
                    continue
        """) == [(2, "RES203"), (2, "RES205")]


def test_while_not_done_with_pass_is_an_endless_immediate_retry(linter):
    assert codes(linter, """\
        def f():
            done = False
            while not done:
                try:
                    r = session.get('u', timeout=5).json()
                    done = True
                except Exception:
                    pass
            return r
        """) == [(3, "RES203"), (3, "RES205"), (7, "RES204")]


@pytest.mark.parametrize("skip, expected", [
    # redash's wait for the database: one query, one 30 s wait on failure, then on: no retry
    ("", []),
    # a continue can skip the flag: the loop goes round again
    ("            continue\n", [(3, "RES203"), (7, "RES201")]),
])
def test_a_flag_set_at_the_end_of_every_pass_runs_the_body_once(linter, skip, expected):
    body = ("def f():\n    retried = False\n    while not retried:\n        try:\n"
            "            return session.get('u', timeout=5)\n        except T:\n            time.sleep(30)\n"
            f"{skip}        retried = True\n")
    assert codes(linter, body) == expected


def test_while_true_with_a_give_up_count_is_capped(linter):
    assert codes(linter, """\
        def f():
            attempt = 0
            while True:
                try:
                    return session.get('u', timeout=5)
                except T:
                    attempt += 1
                    if attempt >= 3:
                        raise
                    continue
        """) == [(3, "RES205")]


@pytest.mark.parametrize("body", [
    # a read that times out to look again
    """\
    import socket
    def f(conn):
        while True:
            try:
                data = conn.recv(10)
                break
            except socket.timeout:
                continue
        return data
    """,
    # a prompt until the answer parses
    """\
    def f():
        while True:
            try:
                return session.get(input('url? '), timeout=5)
            except T:
                continue
    """,
    # a new candidate drawn each pass
    """\
    def f():
        while True:
            port = random.randint(2000, 3000)
            try:
                return session.get(f'http://localhost:{port}', timeout=5)
            except T:
                continue
    """,
    # the module's own control-flow exception
    """\
    class Restart(Exception):
        pass
    def f(job):
        while True:
            try:
                job.run()
                break
            except Restart:
                pass
    """,
    # a break under an `if` (a quit command) is not an attempt's success
    """\
    def f(q):
        while True:
            try:
                item = q.get()
                if item is None:
                    break
                session.post('u', json=item, timeout=5)
            except T:
                pass
    """,
    # a future waited for with a timeout, looked at again
    """\
    import concurrent.futures
    def f(fut):
        while True:
            try:
                fut.result(10)
                break
            except concurrent.futures.TimeoutError:
                print('still waiting')
    """,
    # an exception reslint cannot place (a star import of the project's errors)
    """\
    from .errors import *
    def f(post):
        while True:
            try:
                return post.download()
            except PostChanged:
                continue
    """,
    # a handler that calls the project's own code (a reconnect) may wait there
    """\
    def f(conn):
        while True:
            try:
                return conn.get('u', timeout=5)
            except T:
                conn.reconnect()
    """,
    # a call named like a sleep on another object: it may pause
    """\
    def f(clock):
        while True:
            try:
                return session.get('u', timeout=5)
            except T:
                clock.wait(2)
    """,
])
def test_loops_that_only_look_like_an_immediate_retry_stay_quiet(linter, body):
    assert codes(linter, body) == []


# -- a counter kept by hand -------------------------------------------------------------
def test_a_hand_kept_counter_numbers_the_attempts(linter):
    body = """\
        def f():
            attempt = 0
            while attempt < 5:
                try:
                    return session.get('u', timeout=5)
                except T:
                    attempt += 1
                    time.sleep(2 ** attempt)
        """
    assert codes(linter, body) == [(3, "RES202"), (8, "RES201")]
    # every failed pass sleeps, the fifth too: 2 + 4 + 8 + 16 + 32 s
    (message,) = messages(linter, body, "RES202")
    assert "up to 62 s of waits" in message


def test_a_counter_stepped_after_the_sleep_sleeps_the_earlier_numbers(linter):
    (message,) = messages(linter, """\
        def f():
            attempt = 0
            while attempt < 5:
                try:
                    return session.get('u', timeout=5)
                except T:
                    time.sleep(2 ** attempt)
                    attempt += 1
        """, "RES202")
    assert "up to 31 s of waits" in message  # 1 + 2 + 4 + 8 + 16


def test_a_give_up_before_the_sleep_spares_the_last_wait(linter):
    (message,) = messages(linter, """\
        def f():
            attempt = 0
            while attempt < 5:
                try:
                    return session.get('u', timeout=5)
                except T:
                    attempt += 1
                    if attempt == 5:
                        raise
                    time.sleep(random.uniform(0, 2 ** attempt))
        """, "RES202")
    assert "up to 30 s of waits" in message  # 2 + 4 + 8 + 16


STATUS_LOOP = """\
def f():
    for attempt in range(5):
        try:
            r = session.get('u', timeout=5)
{check}            return r
        except (requests.ConnectionError, ValueError):
            pass
{give_up}        time.sleep(random.uniform(0, 2 ** attempt))
"""


@pytest.mark.parametrize("check, give_up, waits", [
    # no test before the sleep: the fifth failure sleeps 16 s too, 1 + 2 + 4 + 8 + 16 s
    ("", "", "5 attempts × 10 s + up to 31 s of waits = 81 s"),
    # a status check that raises is a failure, not a give-up: every failure still sleeps
    ("            if r.status_code == 503:\n                raise ValueError()\n", "",
     "5 attempts × 10 s + up to 31 s of waits = 81 s"),
    # a give-up on the attempt number spares the last wait: 1 + 2 + 4 + 8 s
    ("", "        if attempt == 4:\n            raise RuntimeError('down')\n",
     "5 attempts × 10 s + up to 15 s of waits = 65 s"),
    ("", "        if attempt == 4:\n            break\n", "5 attempts × 10 s + up to 15 s of waits = 65 s"),
])
def test_only_a_give_up_on_the_attempt_number_spares_the_last_wait(linter, check, give_up, waits):
    (message,) = messages(linter, STATUS_LOOP.format(check=check, give_up=give_up), "RES202")
    assert f"worst case {waits} > max-retry-time (60 s)" in message


def test_a_success_exit_on_a_status_check_is_no_give_up(linter):
    body = """\
        def f():
            for attempt in range(5):
                r = session.get('u', timeout=5)
                if r.status_code != 503:
                    return r
                time.sleep(random.uniform(0, 2 ** attempt))
        """
    assert codes(linter, body) == [(2, "RES202")]
    (message,) = messages(linter, body, "RES202")
    assert "worst case 5 attempts × 10 s + up to 31 s of waits = 81 s" in message
    # the same loop that sleeps only before another attempt: 1 + 2 + 4 + 8 s, 65 s
    spared = body.replace("                time.sleep(", "                if attempt < 4:\n"
                                                            "                    time.sleep(")
    (message,) = messages(linter, spared, "RES202")
    assert "worst case 5 attempts × 10 s + up to 15 s of waits = 65 s" in message


def test_a_jittered_short_counter_loop_is_clean(linter):
    assert codes(linter, """\
        def f():
            attempt = 0
            while attempt < 3:
                try:
                    return session.get('u', timeout=5)
                except T:
                    attempt += 1
                    time.sleep(random.uniform(0, 2 ** attempt))
        """) == []


# -- itertools.count ------------------------------------------------------------------
def test_count_has_no_attempt_cap(linter):
    assert codes(linter, """\
        def f():
            for attempt in itertools.count(1):
                try:
                    return session.get('u', timeout=5)
                except T:
                    time.sleep(random.uniform(0, min(30, 2 ** attempt)))
        """) == [(2, "RES203")]


def test_count_with_a_time_cap_or_a_give_up_is_capped(linter):
    assert codes(linter, """\
        def f():
            deadline = time.monotonic() + 30
            for attempt in itertools.count():
                if time.monotonic() > deadline:
                    raise TimeoutError
                try:
                    return session.get('u', timeout=5)
                except T:
                    time.sleep(random.uniform(0, 2))

        def g():
            for attempt in itertools.count():
                try:
                    return session.get('u', timeout=5)
                except T:
                    if attempt >= 3:
                        raise
                    time.sleep(random.uniform(0, 2))
        """) == []


def test_count_whose_handler_reconnects_waits_an_unknown_time(linter):
    # no RES205: the reconnect may wait; RES204 still applies to the retried scope
    assert codes(linter, """\
        def f(conn, fun, max_retries=None):
            for retries in itertools.count(0):
                try:
                    return fun()
                except Exception:
                    if max_retries is not None and retries >= max_retries:
                        raise
                    conn.ensure_connection()
        """) == [(5, "RES204")]


def test_a_handler_that_fetches_its_logger_goes_round_at_once(linter):
    # ``get_logger().warning(...)`` only logs: no wait in the handler, so RES205 (judged true on a
    # CLI's ``docker push`` loop); a handler calling a project function for anything else may wait
    body = """\
        def get_logger():
            return None

        def reconnect():
            pass

        def f(url):
            for attempt in range(3):
                try:
                    return session.get(url, timeout=5)
                except requests.ConnectionError:
                    get_logger().warning(f"attempt {attempt} failed")
        """
    assert codes(linter, body) == [(8, "RES205")]
    assert codes(linter, body.replace("get_logger().warning(f\"attempt {attempt} failed\")", "reconnect()")) == []


def test_count_over_pages_is_not_a_retry(linter):
    assert codes(linter, """\
        def f():
            out = []
            for page in itertools.count(1):
                try:
                    out.append(session.get('u', params={'page': page}, timeout=5).json())
                except T:
                    break
            return out
        """) == []


# -- range(n) over a computed n -----------------------------------------------------------
def test_range_over_a_parameter_is_a_retry_with_unknown_attempts(linter):
    # RES201 and RES204 apply; RES202/RES203 cannot be proven with the attempts unknown
    assert codes(linter, """\
        def f(n):
            for i in range(n):
                try:
                    return session.get('u', timeout=5).json()
                except Exception:
                    time.sleep(2)
        """) == [(5, "RES204"), (6, "RES201")]


def test_range_over_an_attribute_is_a_retry(linter):
    assert codes(linter, """\
        class C:
            def f(self):
                for i in range(self.n):
                    try:
                        return session.get('u', timeout=5)
                    except T:
                        continue
        """) == [(3, "RES205")]


def test_range_over_len_walks_items(linter):
    assert codes(linter, """\
        def f(urls):
            for i in range(len(urls)):
                try:
                    return session.get(urls[i], timeout=5)
                except T:
                    time.sleep(2)
        """) == []


# -- no cutoff at 10 attempts ------------------------------------------------------------
def test_fifteen_attempts_are_a_retry_too(linter):
    assert codes(linter, """\
        def f():
            for i in range(15):
                try:
                    return session.get('u', timeout=5)
                except T:
                    time.sleep(1)
        """) == [(2, "RES202"), (6, "RES201")]


def test_a_constant_sleep_until_a_deadline_is_a_readiness_wait(linter):
    assert codes(linter, """\
        def f():
            deadline = time.monotonic() + 30
            for i in range(15):
                if time.monotonic() > deadline:
                    raise TimeoutError
                try:
                    return session.get('u', timeout=5)
                except T:
                    time.sleep(1)
        """) == []


# -- give-ups in a helper, before a server-sent wait ----------------------------------------
HELPER = """\
MAX = 4

def _backoff_or_raise(error, attempt):
    if {test}:
        raise error
    time.sleep(random.uniform(0, 2 ** attempt))

def f():
    attempt = 0
    while True:
        attempt += 1
        try:
            return session.get('u', timeout=5)
        except T as error:
            _backoff_or_raise(error, attempt)
"""


def test_a_helper_that_raises_at_the_bound_caps_the_loop(linter):
    assert codes(linter, HELPER.format(test="attempt >= MAX")) == []
    assert codes(linter, HELPER.format(test="not retryable(error) or attempt >= MAX")) == []


def test_a_helper_that_may_not_raise_at_the_bound_does_not_cap_it(linter):
    assert codes(linter, HELPER.format(test="not retryable(error)")) == [(10, "RES203")]
    assert codes(linter, HELPER.format(test="retryable(error) and attempt >= MAX")) == [(10, "RES203")]


RATE_LIMITED = """\
def f():
    for retry in range(1, 6):
        r = session.get('u', timeout=5)
        if r.status_code == 429:
            wait = int(r.headers['Retry-After'])
{guard}            time.sleep(wait)
            continue
        return r
"""


def test_a_give_up_past_a_bound_bounds_a_server_sent_wait(linter):
    guard = "            if wait > 20:\n                raise RuntimeError('later')\n"
    assert codes(linter, RATE_LIMITED.format(guard=guard)) == []


def test_a_server_sent_wait_with_no_bound_is_reported(linter):
    assert codes(linter, RATE_LIMITED.format(guard="")) == [(6, "RES206")]
    guard = "            if wait > 20:\n                print('long wait')\n"  # logs, does not leave
    assert codes(linter, RATE_LIMITED.format(guard=guard)) == [(8, "RES206")]


# -- calls of a retried scope -----------------------------------------------------------------
RETRIED = "@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5))"


def nested(tmp_path, body):
    """The rows (in ``body``) of the RES301 findings of a project of one module."""
    from reslint.engine.runner import Runner

    (tmp_path / "svc.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES301",)), use_cache=False).run([tmp_path])
    offset = HEAD.count("\n")
    return sorted(f.location.row - offset for r in run.results for f in r.findings if f.code == "RES301")


@pytest.mark.parametrize("call, row", [
    ("[self.get_item(i) for i in ids]", 10),
    ("list(self.get_item(i) for i in ids)", 10),
    ("list(map(lambda i: self.get_item(i), ids))", 10),
    ("[one(i) for i in ids]", 9),  # reported in the nested function, where it calls the retried method
])
def test_calls_in_comprehensions_lambdas_and_nested_functions_are_retried(tmp_path, call, row):
    found = nested(tmp_path, f"""\
        class C:
            {RETRIED}
            def get_item(self, i):
                return session.get('u', timeout=5)

            {RETRIED}
            def get_all(self, ids):
                def one(i):
                    return {'self.get_item(i)' if call.startswith('[one') else 'i'}
                return {call}
        """)
    assert found == [row]


def test_the_same_calls_outside_a_retry_are_not_nested(tmp_path):
    found = nested(tmp_path, f"""\
        class C:
            {RETRIED}
            def get_item(self, i):
                return session.get('u', timeout=5)

            def get_all(self, ids):
                def one(i):
                    return self.get_item(i)
                return [one(i) for i in ids] + [self.get_item(i) for i in ids]
        """)
    assert found == []


def test_self_in_a_nested_function_that_binds_its_own_self_is_not_the_method_s(tmp_path):
    found = nested(tmp_path, f"""\
        class C:
            {RETRIED}
            def get_item(self, i):
                return session.get('u', timeout=5)

            {RETRIED}
            def get_all(self, ids):
                def one(self, i):
                    return self.get_item(i)
                return [one(x, i) for i in ids]
        """)
    assert found == []


def nested_messages(tmp_path, body):
    from reslint.engine.runner import Runner

    (tmp_path / "svc.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES301",)), use_cache=False).run([tmp_path])
    return [f.message for r in run.results for f in r.findings]


@pytest.mark.parametrize(("loop", "counted", "load"), [
    ("for attempt in range(n):", "attempts retry loop (unknown) → get_item (3)",
     "up to 3 × the attempts of attempts retry loop (not known here) calls per attempts retry loop call"),
    ("while True:", "attempts retry loop (unbounded) → get_item (3)",
     "attempts retry loop retries without end, each attempt making up to 3 calls to the innermost layer"),
    ("for attempt in range(4):", "attempts retry loop (4) → get_item (3)", "up to 12 calls per attempts retry loop call"),
])
def test_a_loop_of_unknown_or_no_count_around_a_retry_multiplies_it(tmp_path, loop, counted, load):
    (message,) = nested_messages(tmp_path, f"""\
        {RETRIED}
        def get_item(i):
            return session.get('u', timeout=5)

        def attempts(n):
            {loop}
                try:
                    return get_item(1)
                except Exception:  # catches the RetryError get_item raises once it gives up
                    time.sleep(random.uniform(0, 2))
        """)
    assert counted in message and load in message, message


@pytest.mark.parametrize(("loop", "load"), [
    ("for attempt in range(n):", "as many calls per attempts retry loop call as the attempts of attempts retry "
                                 "loop and get_item (not known here)"),
    ("for attempt in range(4):", "up to 4 × the attempts of get_item (not known here) calls per attempts retry "
                                 "loop call"),
    ("while True:", "attempts retry loop retries without end, each attempt making its calls to the innermost layer"),
])
def test_an_inner_retry_of_unknown_count_is_multiplied_too(tmp_path, loop, load):
    (message,) = nested_messages(tmp_path, f"""\
        TRIES = settings_tries()

        @retry(stop=stop_after_attempt(TRIES), wait=wait_random_exponential(max=5))
        def get_item(i):
            return session.get('u', timeout=5)

        def attempts(n):
            {loop}
                try:
                    return get_item(1)
                except Exception:
                    time.sleep(random.uniform(0, 2))
        """)
    assert load in message, message


# -- the prefilter keeps the new shapes ------------------------------------------------------
@pytest.mark.parametrize("text", [
    "def f():\n    done = False\n    while not done:\n        try:\n            g()\n            done = True\n"
    "        except OSError:\n            pass\n",
    "import itertools\ndef f():\n    for attempt in itertools.count(1):\n        try:\n            return g()\n"
    "        except OSError:\n            continue\n",
])
def test_the_prefilter_keeps_the_new_loop_shapes(text):
    from reslint.catalog import canonical
    from reslint.catalog.entries import entry_points
    from reslint.semantics.prefilter import Relevance

    assert Relevance(entry_points(), canonical, True).wanted(ast.parse(text), "app.svc", False)
    assert not Relevance(entry_points(), canonical, True).wanted(
        ast.parse(text.replace("pass", "raise").replace("continue", "raise")), "app.svc", False)


# -- a poll that tolerates errors on the way ----------------------------------------------------
def test_a_poll_that_swallows_errors_is_not_a_retry(linter):
    # success leaves only when the returned state says so, and it sleeps after a good call too
    assert codes(linter, """\
        class Tool:
            def wait(self, job_id):
                for i in range(self.max_polling_time):
                    try:
                        status = session.get(f'u/{job_id}', timeout=5).json()
                        if status.get('state') == 'success':
                            return status['result']
                    except Exception:
                        if i == self.max_polling_time - 1:
                            raise
                    time.sleep(1)
        """) == []


def test_a_retry_on_a_failed_response_and_an_error_is_still_a_retry(linter):
    assert codes(linter, """\
        def f(n):
            for attempt in range(n):
                try:
                    r = session.get('u', timeout=5)
                    if r.ok:
                        return r.json()
                except Exception:
                    pass
                time.sleep(2 ** attempt)
        """) == [(7, "RES204"), (9, "RES201")]


def test_a_failover_over_indexed_servers_is_not_a_retry(linter):
    assert codes(linter, """\
        class Pool:
            def get(self):
                for i in range(self.size):
                    try:
                        return self.servers[i].get('u', timeout=5)
                    except T:
                        time.sleep(1)
        """) == []



def test_an_immediate_while_retry_is_a_retried_scope_for_writes_and_keys(linter):
    assert codes(linter, """\
        import uuid

        def pay(order):
            while True:
                try:
                    return session.post('u', json={'order': order}, timeout=5)
                except T:
                    continue

        def pay_with_key(order):
            while True:
                try:
                    return session.post('u', json={'order': order}, headers={'Idempotency-Key': str(uuid.uuid4())},
                                        timeout=5)
                except T:
                    continue
        """) == [(4, "RES203"), (4, "RES205"), (6, "RES402"), (11, "RES203"), (11, "RES205"), (13, "RES401")]


RACE_HEAD = """\
import boto3
from botocore.exceptions import ClientError

table = boto3.resource("dynamodb").Table("t")


def put(key, value):
    for _ in range(5):
        try:
            table.put_item(Item={"k": key, "v": value}, ConditionExpression="attribute_not_exists(k)")
            return
        except ClientError as exc:
            if exc.response["Error"]["Code"] %s:
                raise
"""


@pytest.mark.parametrize(("test", "expected"), [
    # a conditional write that lost a race to another writer: read again and retry at once
    ('!= "ConditionalCheckFailedException"', []),
    ('not in ("ConditionalCheckFailedException", "TransactionConflictException")', []),
    # a throttled or failing service is retried at once: the fault
    ('!= "ThrottlingException"', [(8, "RES205")]),
    ('not in ("ConditionalCheckFailedException", "ThrottlingException")', [(8, "RES205")]),
    # a quota error that merely says "Concurrent" is no lost race
    ('!= "ConcurrentRunsExceededException"', [(8, "RES205")]),
])
def test_a_handler_that_keeps_only_lost_races_retries_at_once_on_purpose(tmp_path, test, expected):
    """``except ClientError as e: if code != "ConditionalCheckFailedException": raise``: the handler
    keeps only the error code of a lost race. Selected alone, RES205 sees the loop as the full set does
    (a loop needs no retry library to be one: the remote call it repeats makes it one)."""
    from reslint.engine.filepass import Linter

    source = RACE_HEAD % test
    for settings in (Settings(root=tmp_path), Settings(root=tmp_path, select=("RES205",))):
        linter = Linter(settings)
        found, errors = linter.lint_text(source, "m.py")
        assert errors == []
        assert [(f.location.row, f.code) for f in found if f.code == "RES205"] == expected


@pytest.mark.parametrize(("body", "expected"), [
    # an interactive session: each pass runs the command the person types, and a failed one is
    # printed before the next prompt (a developer's playground)
    ("""\
    def session_loop():
        while True:
            try:
                command = input('url or q: ')
                if command == 'q':
                    return
                print(session.get(command, timeout=5).status_code)
            except Exception as exc:
                print(exc)
                time.sleep(1)
    """, []),
    # a retry the person confirms after each failure is still a retry: the POST replays
    ("""\
    def upload(data):
        for _ in range(3):
            try:
                return session.post('u', data=data, timeout=5)
            except T:
                if input('retry? ') != 'y':
                    raise
                time.sleep(1)
    """, [(4, "RES402"), (8, "RES201")]),
    # a prompt outside the attempt (a pause a setting asks for) changes nothing either
    ("""\
    def charge(order):
        for _ in range(3):
            if order.get('step'):
                input('press enter')
            try:
                return session.post('u/charges', json=order, timeout=5)
            except T:
                pass
    """, [(2, "RES205"), (6, "RES402")]),
    # the same loop with no prompt retries on its own
    ("""\
    def upload(data):
        for _ in range(3):
            try:
                return session.get('u', timeout=5)
            except T:
                time.sleep(1)
    """, [(6, "RES201")]),
])
def test_a_loop_that_asks_a_person_each_pass_is_not_a_retry(linter, body, expected):
    assert codes(linter, body) == expected


@pytest.mark.parametrize(("body", "expected"), [
    # the pause after a success, before the loop is left, runs once: the waits are the handler's
    ("""\
    def wait_ready():
        for _ in range(5):
            try:
                session.get('u', timeout=5)
                time.sleep(1)
                print('ready')
                return
            except T:
                time.sleep(0.5)
    """, []),
    # a sleep before the attempt (``return`` does the work) runs on every pass: a wait
    ("""\
    def fetch(url):
        for _ in range(5):
            try:
                target = url.strip()
                time.sleep(1)
                return session.get(target, timeout=5)
            except T:
                pass
    """, [(5, "RES201")]),
    # a sleep before the attempt's call runs on every pass: a wait between attempts
    ("""\
    def fetch():
        for _ in range(5):
            try:
                time.sleep(1)
                return session.get('u', timeout=5)
            except T:
                pass
    """, [(4, "RES201")]),
])
def test_a_pause_after_success_is_not_a_wait_between_attempts(linter, body, expected):
    assert codes(linter, body) == expected


def test_the_worst_case_counts_only_the_waits_between_attempts(linter):
    body = """\
    def fetch_when_ready():
        for _ in range(180):
            try:
                items = session.get('u', timeout=5).json()
                time.sleep(1)
                log.info('ready')
                return items
            except T:
                time.sleep(0.5)
    """
    [message] = messages(linter, body, "RES202")
    assert "180 attempts × 10 s + up to 90 s of waits = 1890 s" in message


def test_a_one_line_code_check_keeps_the_race_and_a_check_of_no_code_keeps_nothing(tmp_path):
    from reslint.engine.filepass import Linter

    two_lines = RACE_HEAD % '!= "ConditionalCheckFailedException"'
    one_line = two_lines.replace('"ConditionalCheckFailedException":\n                raise',
                                 '"ConditionalCheckFailedException": raise')
    assert one_line != two_lines
    found, _ = Linter(Settings(root=tmp_path)).lint_text(one_line, "m.py")
    assert [f.code for f in found if f.code == "RES205"] == []
    not_a_code = two_lines.replace('exc.response["Error"]["Code"]', 'attempt_kind')
    found, _ = Linter(Settings(root=tmp_path)).lint_text(not_a_code, "m.py")
    assert [(f.location.row, f.code) for f in found if f.code == "RES205"] == [(8, "RES205")]


# -- a loop that takes the next item of work each pass handles another item: no retry -------------
NEXT_ITEM = """\
    import asyncio
    import queue


    class Coordinator:
        def __init__(self):
            self.inbox = queue.Queue()

        def listen(self, incoming: "asyncio.Queue"):
            while self.pending:
                try:
                    {take}
                    try:
                        halt = self.handle_failed(task)
                        if not halt:
                            continue
                        self.shutdown(task)
                        break
                    except Exception as exc:
                        print("handling failed", task, exc)
                        continue
                except Exception as exc:
                    print("loop error", exc)
                    time.sleep(1)

        def handle_failed(self, task):
            return session.post("https://api.example.invalid/failed", json={{"id": task}}, timeout=5)
    """


@pytest.mark.parametrize("take", [
    "task = self._get_returned_task()",
    "task = self.broker.next_message()",
    "task = self.channel.recv()",
    "task = self.inbox.get()",
])
def test_a_loop_that_takes_the_next_item_each_pass_is_no_retry(linter, take):
    assert codes(linter, NEXT_ITEM.format(take=take)) == []


@pytest.mark.parametrize("take", [
    "task = self.client.get_job(self.job_id)",  # the job the caller names: the same each pass
    "task = self.client.get_job(job_id=self.job_id)",
    "task = self.api.get_events()",              # a resource fetched again, not the next of a queue
    "task = self.api.fetch_messages()",
    "task = self.cache.get()",                   # a get of no queue reslint knows
    "task = self.build_task()",
])
def test_a_loop_that_fetches_the_same_item_each_pass_is_still_a_retry(linter, take):
    assert (19, "RES204") in codes(linter, NEXT_ITEM.format(take=take))


def test_an_item_received_inside_the_attempt_is_part_of_the_same_attempt(linter):
    # the request is sent again each pass; the reply it receives there is no new item of work
    assert codes(linter, """\
        def ask(ws, payload):
            while True:
                try:
                    ws.send(payload)
                    reply = ws.recv()
                    return session.post("https://api.example.invalid/replies", json=reply, timeout=5)
                except Exception as exc:
                    print("rpc failed", exc)
                    time.sleep(2)
        """) == [(2, "RES203"), (6, "RES402"), (7, "RES204"), (9, "RES201")]


# -- give-ups after a counted continue; success after the try; shapes seen in public code --------
PLAIN = "import time\n\n\n"  # nothing a catalog entry point: the prefilter must keep the loop by its shape


@pytest.mark.parametrize("give_up", ["break", "raise"])
@pytest.mark.parametrize("head", [HEAD, PLAIN])
def test_a_handler_that_goes_round_before_it_gives_up_is_a_retry(linter, give_up, head):
    # ``if attempt < n: sleep; continue`` then ``break`` (or ``raise``): the handler leaves only
    # on the last attempt (seen around an opaque model call in a research agent, 10 attempts)
    body = f"""\
        def f(client, url):
            for attempt in range(1, 11):
                try:
                    return client.fetch(url)
                except Exception as exc:
                    if attempt < 10:
                        time.sleep(min(2 ** (attempt - 1), 8))
                        continue
                    {give_up}
        """
    assert rows(linter, head, body) == [(5, "RES204"), (7, "RES201")]


def test_a_handler_whose_continue_belongs_to_an_inner_loop_still_gives_up(linter):
    body = """\
        def f(client, items):
            for attempt in range(3):
                try:
                    return client.fetch()
                except Exception:
                    for item in items:
                        if not item:
                            continue
                        client.note(item)
                    break
        """
    assert rows(linter, PLAIN, body) == []


def test_success_after_the_try_of_an_opaque_call_is_a_retry(linter):
    # ``try: r = op() / except: sleep; continue`` then ``return r``: the prefilter kept only
    # loops whose try itself leaves, so with no catalog call in the file this retry was skipped
    body = """\
        def f(client, url):
            for attempt in range(1, 11):
                try:
                    r = client.fetch(url)
                except Exception:
                    time.sleep(min(2 ** (attempt - 1), 8))
                    continue
                return r
        """
    assert rows(linter, PLAIN, body) == [(2, "RES202"), (5, "RES204"), (6, "RES201")]


@pytest.mark.parametrize("before, sleep, step, reported", [
    ("delay = 0.5", "time.sleep(delay)", "delay *= 2", True),  # 0.5, 1, 2, 4 s: one schedule for all
    ("delay = 0.5", "time.sleep(delay)", "delay = min(delay * 2, 30)", True),
    ("delay = base", "time.sleep(delay)", "delay *= 2", True),  # a parameter doubled: still one schedule
    ("pass", "time.sleep(self.retry_delay * 2 ** attempt)", "pass", True),  # an attribute, grown by the attempt
    ("delay = 0.1", "time.sleep(delay)", "delay *= 2", False),  # 0.1, 0.2, 0.4 s: all short (SHORT_WAIT_S)
    ("delay = random.uniform(1, 2)", "time.sleep(delay)", "delay *= 2", False),  # drawn per client
    ("delay = base", "time.sleep(delay)", "pass", False),  # a parameter, not grown: may be drawn by the caller
    ("pass", "time.sleep(self.backoff.next())", "pass", False),  # a call may draw at random
])
def test_a_wait_grown_by_arithmetic_from_an_unknown_base_has_no_jitter(linter, before, sleep, step, reported):
    body = f"""\
        class Client:
            def fetch(self, url, base=1.0):
                {before}
                for attempt in range(4):
                    try:
                        return session.get(url, timeout=5)
                    except requests.ConnectionError:
                        {sleep}
                        {step}
        """
    assert ((8, "RES201") in codes(linter, body)) is reported


@pytest.mark.parametrize("in_try, reported", [
    ("time.sleep(min(2 ** attempt, 10))", True),  # the attempt sizes the wait: still the same request
    ("log.warning('attempt %d failed: %s', attempt, r.status_code)", True),  # a log line names it
    ("r = session.post(URLS[attempt], data=b'x', timeout=5)", False),  # each pass another target: a failover
])
def test_the_attempt_number_in_a_wait_or_a_log_line_does_not_make_a_search(linter, in_try, reported):
    # a retry on 5xx inside the try (``if r.status_code >= 500 and attempt < 2: sleep; continue``),
    # seen in a metrics pusher: ``min(2 ** attempt, 10)`` was read as a call taking the attempt
    # number, as a failover over items takes it, and the loop was no retry
    body = f"""\
        import logging
        log = logging.getLogger(__name__)
        URLS = ["a", "b", "c"]


        def push(url):
            for attempt in range(3):
                try:
                    r = session.post(url, data=b"x", timeout=5)
                    if r.status_code >= 500 and attempt < 2:
                        {in_try}
                        time.sleep(min(2 ** attempt, 10))
                        continue
                    return
                except requests.ConnectionError:
                    raise
        """
    assert any(code == "RES201" for _, code in codes(linter, body)) is reported


@pytest.mark.parametrize("handler, expected", [
    # the test on the error lets through what is retried, the rest is raised: a filter, not a catch-all
    (["except Exception as exc:", "    if is_deadlock(exc) and attempt < 4:", "        time.sleep(1 + random.random())",
      "        continue", "    raise"], []),
    (["except Exception as error:", "    should_retry = on_conflict(error, attempt)", "    if should_retry:",
      "        continue", "    raise"], []),
    # the attempt number alone gates the next pass: a catch-all, capped at 4 attempts by the gate
    (["except Exception:", "    if attempt < 4:", "        time.sleep(1 + random.random())", "        continue",
      "    raise"], [(11, "RES204")]),
])
def test_a_gated_continue_classifies_and_caps(linter, handler, expected):
    body = textwrap.dedent("""\
        def is_deadlock(exc):
            return "deadlock" in str(exc)


        def f(client):
            attempt = 0
            while True:
                attempt += 1
                try:
                    return client.write()
        """) + "".join(f"        {line}\n" for line in handler)
    assert [r for r in codes(linter, body) if r[1] in ("RES203", "RES204")] == expected


def test_a_gated_continue_and_success_after_the_try_together_are_a_retry(linter):
    body = """\
        def f(url):
            for attempt in range(5):
                try:
                    r = session.get(url, timeout=5)
                except requests.ConnectionError:
                    if attempt < 4:
                        time.sleep(2 ** attempt)
                        continue
                    raise
                return r
        """
    assert codes(linter, body) == [(2, "RES202"), (7, "RES201")]


def test_a_name_bound_from_the_loop_variable_makes_a_search(linter):
    # ``this_port = port + i`` then ``bind((host, this_port))``: each pass tries another port
    body = """\
        import socket


        def free_port(host, port):
            for i in range(100):
                sock = socket.socket()
                this_port = port + i
                try:
                    sock.bind((host, this_port))
                except OSError as exc:
                    if exc.errno == 98:
                        continue
                    raise
                else:
                    return sock
        """
    assert codes(linter, body) == []


@pytest.mark.parametrize("body", [
    # a retry by recursion that passes its delay on (RES201 reads only loops' own steps)
    "def f(url, attempt=0, delay=1.0):\n    try:\n        return session.get(url, timeout=5)\n"
    "    except requests.ConnectionError:\n        if attempt >= 4:\n            raise\n        time.sleep(delay)\n"
    "        return f(url, attempt + 1, delay * 2)\n",
])
def test_a_recursive_retry_with_a_passed_delay_does_not_crash(linter, body):
    found, errors = linter.lint_text(HEAD + body, "m.py")
    assert errors == []


def test_a_delay_drawn_in_the_loop_by_an_augmented_step_is_jittered(linter):
    body = """\
        def f(url):
            delay = 1.0
            for attempt in range(6):
                try:
                    return session.get(url, timeout=5)
                except requests.ConnectionError:
                    time.sleep(delay)
                    delay *= 2
                    delay += random.uniform(0, 1)
        """
    assert (7, "RES201") not in codes(linter, body)
