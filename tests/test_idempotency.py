"""RES401-RES403 on small programs, including writes reached through helper functions."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.engine.fixer import fix_text
from reslint.engine.filepass import Linter
from reslint.engine.runner import Runner

HEAD = """\
import random
import time
import uuid

import psycopg2
import requests
from tenacity import Retrying, retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential
from urllib3.util.retry import Retry

T = (requests.ConnectionError, requests.Timeout)
session = requests.Session()
POLICY = dict(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30), wait=wait_random_exponential(max=5), reraise=True)
"""


def findings(tmp_path: Path, body: str, select=("RES4",)):
    (tmp_path / "app.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=select), use_cache=False).run([tmp_path])
    offset = HEAD.count("\n")
    return sorted((f.location.row - offset, f.code, f.message) for r in run.results for f in r.findings)


def codes(tmp_path, body):
    return [(row, code) for row, code, _ in findings(tmp_path, body)]


@pytest.mark.parametrize("body, expected", [
    # RES401: minted inside the retried code, in a local, in a helper; clean when minted before or derived
    ("@retry(**POLICY)\ndef f(u):\n    return session.post(u, headers={'Idempotency-Key': str(uuid.uuid4())}, timeout=5)\n",
     [(3, "RES401")]),
    ("def f(u):\n    for attempt in Retrying(**POLICY):\n        with attempt:\n            key = uuid.uuid4().hex\n"
     "            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", [(4, "RES401")]),
    ("def f(u):\n    key = uuid.uuid4().hex\n    for attempt in Retrying(**POLICY):\n        with attempt:\n"
     "            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", []),
    ("def _headers():\n    return {'Idempotency-Key': uuid.uuid4().hex}\n\n\n@retry(**POLICY)\ndef f(u):\n"
     "    return session.post(u, headers=_headers(), timeout=5)\n", [(2, "RES401")]),
    ("@retry(**POLICY)\ndef f(u, order_id):\n    key = str(uuid.uuid5(uuid.NAMESPACE_URL, order_id))\n"
     "    return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", []),
    # RES402: keyless writes; PUT and keyed writes are fine; a retry only on ConnectTimeout never replays
    ("@retry(**POLICY)\ndef f(u):\n    return session.post(u, json={}, timeout=5)\n", [(3, "RES402")]),
    ("@retry(**POLICY)\ndef f(u, key):\n    return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", []),
    ("@retry(**POLICY)\ndef f(u):\n    return session.put(u, json={}, timeout=5)\n", []),
    ("@retry(retry=retry_if_exception_type(requests.ConnectTimeout), stop=stop_after_attempt(3) | stop_after_delay(30),"
     " wait=wait_random_exponential(max=5), reraise=True)\ndef f(u):\n    return session.post(u, json={}, timeout=5)\n", []),
    ("@retry(**POLICY)\ndef f(cur):\n    cur.execute('INSERT INTO t (a) VALUES (%s)', (1,))\n"
     "    cur.execute('INSERT INTO t (a) VALUES (%s) ON CONFLICT DO NOTHING', (1,))\n"
     "    cur.execute('UPDATE t SET n = n + 1')\n    cur.execute('UPDATE t SET n = 1')\n",
     [(3, "RES402"), (5, "RES402")]),
    # RES402 through the call graph: the write in a helper that a retried function calls
    ("def _post(u):\n    return session.post(u, json={}, timeout=5)\n\n\n@retry(**POLICY)\ndef f(u):\n    return _post(u)\n"
     "\n\ndef g(u):\n    return _post(u)\n", [(2, "RES402")]),
    # RES403
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, allowed_methods=frozenset())\n", [(1, "RES403")]),
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {'POST'})\n",
     [(1, "RES403")]),
    ("p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, allowed_methods=('GET', 'post'))\n", []),
])
def test_verdicts(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


def test_messages_name_the_helper_and_the_retry(tmp_path):
    body = ("def _headers():\n    return {'Idempotency-Key': uuid.uuid4().hex}\n\n\n@retry(**POLICY)\ndef f(u):\n"
            "    return session.post(u, headers=_headers(), timeout=5)\n")
    ((_, _, message),) = findings(tmp_path, body)
    assert message.startswith("idempotency key minted by `uuid.uuid4()` in `_headers()`, which the retried code calls")
    body = ("def _post(u):\n    return session.post(u, json={}, timeout=5)\n\n\n"
            "@retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30), "
            "wait=wait_random_exponential(max=5), reraise=True)\ndef f(u):\n    return _post(u)\n")
    ((_, _, message),) = findings(tmp_path, body)
    assert message.startswith("HTTP POST in `_post()` runs under the f retry (3 attempts, through _post) with no")


def test_res403_fix_removes_post(tmp_path):
    text = HEAD + "p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, allowed_methods=['GET', 'POST'])\n"
    outcome = fix_text(Linter(Settings(root=tmp_path, select=("RES403",))), text, "app.py", unsafe=False)
    assert outcome.text == text.replace("['GET', 'POST']", "['GET']")


@pytest.mark.parametrize("methods, after", [
    # each kept method keeps its own trailing comment; the dropped one takes its comment along
    ('[\n    "GET",  # reads\n    "POST",  # writes\n]', '[\n    "GET",  # reads\n]'),
    ('[\n    "GET",  # reads\n    "POST"  # writes\n]', '[\n    "GET",  # reads\n]'),
    ('[\n    "POST",  # writes\n    "GET",  # reads\n    "PATCH",  # more\n    "HEAD",  # heads\n]',
     '[\n    "GET",  # reads\n    "HEAD",  # heads\n]'),
    ('("GET", "POST")', '("GET",)'),  # still a tuple
])
def test_res403_fix_keeps_the_comments_of_the_kept_methods(tmp_path, methods, after):
    text = HEAD + f"p = Retry(total=3, backoff_factor=0.5, backoff_jitter=0.5, allowed_methods={methods})\n"
    linter = Linter(Settings(root=tmp_path, select=("RES403",)))
    outcome = fix_text(linter, text, "app.py", unsafe=True)
    assert outcome.text == text.replace(methods, after)
    # a safe fix never deletes a comment: dropping a method with its own comment is left to --unsafe-fixes
    safe = fix_text(linter, text, "app.py", unsafe=False)
    assert safe.text == (None if "#" in methods else text.replace(methods, after))


# -- keys added after the dict is built, helpers in other modules, vendor keys, SDK writes ------------------------
@pytest.mark.parametrize("body, expected", [
    # added later: counts as a key (no RES402); fresh when minted inside the retried code
    ("@retry(**POLICY)\ndef f(u):\n    headers = {'Accept': 'json'}\n    headers['Idempotency-Key'] = str(uuid.uuid4())\n"
     "    return session.post(u, headers=headers, timeout=5)\n", [(4, "RES401")]),
    ("@retry(**POLICY)\ndef f(u, key):\n    body = {'a': 1}\n    body['idempotency_key'] = key\n"
     "    return session.post(u, json=body, timeout=5)\n", []),
    ("@retry(**POLICY)\ndef f(u):\n    headers = {}\n    headers.update({'Idempotency-Key': uuid.uuid4().hex})\n"
     "    return session.post(u, headers=headers, timeout=5)\n", [(4, "RES401")]),
    ("@retry(**POLICY)\ndef f(u, key):\n    headers = {}\n    headers.setdefault('Idempotency-Key', key)\n"
     "    return session.post(u, headers=headers, timeout=5)\n", []),
    # a dict built once before the retry loop keeps its key for every attempt
    ("def f(u):\n    headers = {'Idempotency-Key': str(uuid.uuid4())}\n    for attempt in Retrying(**POLICY):\n"
     "        with attempt:\n            return session.post(u, headers=headers, timeout=5)\n", []),
    ("def f(u):\n    headers = {}\n    headers['Idempotency-Key'] = str(uuid.uuid4())\n"
     "    for attempt in Retrying(**POLICY):\n        with attempt:\n"
     "            return session.post(u, headers=headers, timeout=5)\n", []),
    # the caller's key is used when given (what the parameter fix produces)
    ("@retry(**POLICY)\ndef f(u, idempotency_key=None):\n    key = idempotency_key or str(uuid.uuid4())\n"
     "    return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", []),
    # vendor deduplication keys
    ("@retry(**POLICY)\ndef f(event):\n    return session.post('https://events.pagerduty.com/v2/enqueue', "
     "json={'dedup_key': str(uuid.uuid4()), 'payload': event}, timeout=5)\n", [(3, "RES401")]),
    ("@retry(**POLICY)\ndef f(event, alert_id):\n    return session.post('https://api.opsgenie.com/v2/alerts', "
     "json={'alias': alert_id, 'message': event}, timeout=5)\n", []),
    ("@retry(**POLICY)\ndef f(event, alert_id):\n    return session.post('https://other.example/v2/alerts', "
     "json={'alias': alert_id, 'message': event}, timeout=5)\n", [(3, "RES402")]),
])
def test_keys_added_later_and_vendor_keys(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


SDK_HEAD = """\
import paypalrestsdk
from django.core.mail import EmailMessage, EmailMultiAlternatives
from googleapiclient.discovery import build
from slack_sdk import WebClient
from twilio.rest import Client
"""


@pytest.mark.parametrize("body, expected", [
    ("@retry(**POLICY)\ndef f(to):\n    EmailMessage('s', 'b', 'x@example.invalid', [to]).send()\n", [(3, "RES402")]),
    ("@retry(**POLICY)\ndef f(to):\n    msg = EmailMultiAlternatives('s', 'b', 'x@example.invalid', [to])\n"
     "    msg.send()\n", [(4, "RES402")]),
    ("@retry(**POLICY)\ndef f(thing):\n    thing.send()\n", []),  # receiver type unknown
    ("slack = WebClient(token='x', timeout=10)\n\n\n@retry(**POLICY)\ndef f(text):\n"
     "    slack.chat_postMessage(channel='#ops', text=text)\n    slack.api_call('chat.postMessage', json={'text': text})\n"
     "    slack.api_call('conversations.list')\n", [(6, "RES402"), (7, "RES402")]),
    ("gmail = build('gmail', 'v1')\n\n\n@retry(**POLICY)\ndef f(raw):\n"
     "    gmail.users().messages().send(userId='me', body={'raw': raw}).execute()\n"
     "    gmail.users().messages().list(userId='me').execute()\n", [(6, "RES402")]),
    ("twilio = Client('sid', 'token')\n\n\n@retry(**POLICY)\ndef f(to):\n"
     "    twilio.messages.create(to=to, from_='+15550000000', body='hi')\n", [(6, "RES402")]),
    # paypalrestsdk keys each Payment object: a new object per attempt is a new key, one object is one key
    ("@retry(**POLICY)\ndef f(spec):\n    payment = paypalrestsdk.Payment(spec)\n    return payment.create()\n",
     [(4, "RES402")]),
    ("def f(spec):\n    payment = paypalrestsdk.Payment(spec)\n    for attempt in Retrying(**POLICY):\n"
     "        with attempt:\n            return payment.create()\n", []),
])
def test_sdk_writes(tmp_path, body, expected):
    assert codes(tmp_path, SDK_HEAD.replace("\n", "; ").rstrip("; ") + "\n" + textwrap.dedent(body)) == \
        [(row + 1, code) for row, code in expected]


KEYS_MODULE = """\
import hashlib
import uuid


def new_key():
    return str(uuid.uuid4())


def order_key(order_id):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, order_id))


def write_headers():
    return {"Idempotency-Key": uuid.uuid4().hex}


def stable_headers(order_id):
    return {"Idempotency-Key": hashlib.sha256(order_id.encode()).hexdigest()}


def wrapped():
    return new_key()
"""


def project(tmp_path: Path, app: str, select=("RES4",)):
    (tmp_path / "keys.py").write_text(KEYS_MODULE, encoding="utf-8")
    (tmp_path / "app.py").write_text(HEAD + "import keys\nfrom keys import new_key, order_key\n" +
                                     textwrap.dedent(app), encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=select), use_cache=False).run([tmp_path])
    offset = HEAD.count("\n") + 2
    return sorted((f.filename, f.location.row - (offset if f.filename == "app.py" else 0), f.code, f.message)
                  for r in run.results for f in r.findings)


@pytest.mark.parametrize("app, expected", [
    ("@retry(**POLICY)\ndef f(u):\n    return session.post(u, headers={'Idempotency-Key': new_key()}, timeout=5)\n",
     [("keys.py", 6, "RES401")]),
    ("@retry(**POLICY)\ndef f(u):\n    key = keys.wrapped()\n    return session.post(u, json={'idempotency_key': key}, "
     "timeout=5)\n", [("keys.py", 6, "RES401")]),
    ("@retry(**POLICY)\ndef f(u):\n    return session.post(u, headers=keys.write_headers(), timeout=5)\n",
     [("keys.py", 14, "RES401")]),
    # stable keys from helpers: clean, and the write counts as keyed
    ("@retry(**POLICY)\ndef f(u, order_id):\n    return session.post(u, headers={'Idempotency-Key': order_key(order_id)}, "
     "timeout=5)\n", []),
    ("@retry(**POLICY)\ndef f(u, order_id):\n    return session.post(u, headers=keys.stable_headers(order_id), "
     "timeout=5)\n", []),
    # minted in the caller, before the retry: clean
    ("def f(u):\n    key = new_key()\n    for attempt in Retrying(**POLICY):\n        with attempt:\n"
     "            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n", []),
    # a dict from another module without a key: RES402 decided in the project pass
    ("@retry(**POLICY)\ndef f(u):\n    return session.post(u, headers=keys.new_key(), timeout=5)\n",
     [("app.py", 3, "RES402")]),
])
def test_keys_minted_in_another_module(tmp_path, app, expected):
    assert [row[:3] for row in project(tmp_path, app)] == expected


def test_cross_module_message_names_helper_and_caller(tmp_path):
    app = "@retry(**POLICY)\ndef f(u):\n    key = keys.wrapped()\n    return session.post(u, json={'idempotency_key': key}, timeout=5)\n"
    ((_, _, _, message),) = project(tmp_path, app)
    offset = HEAD.count("\n") + 2
    assert message.startswith(f"idempotency key minted by `uuid.uuid4()` in `wrapped()`, which the "
                              f"retried code calls (app.py:{offset + 3}): every attempt of the HTTP POST sends a new key")


# -- fixes -------------------------------------------------------------------------------------------------------
def fixed(tmp_path, body, select=("RES401",)):
    text = HEAD + textwrap.dedent(body)
    linter = Linter(Settings(root=tmp_path, select=select))
    outcome = fix_text(linter, text, "app.py", unsafe=True)
    assert outcome.error is None
    result = outcome.text if outcome.text is not None else text
    compile(result, "app.py", "exec")
    assert fix_text(linter, result, "app.py", unsafe=True).text is None, "a second run must change nothing"
    (tmp_path / "app.py").write_text(result, encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=select), use_cache=False).run([tmp_path / "app.py"])
    remaining = [f.code for r in run.results for f in r.findings]
    return result[len(HEAD):], remaining


def test_fix_hoists_assignment_above_retry_loop(tmp_path):
    body = ("def f(u, pi):\n    for attempt in Retrying(**POLICY):\n        with attempt:\n"
            "            key = f'refund-{pi}-{time.time()}'\n"
            "            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n")
    text, remaining = fixed(tmp_path, body)
    assert text == ("def f(u, pi):\n    key = f'refund-{pi}-{time.time()}'\n    for attempt in Retrying(**POLICY):\n"
                    "        with attempt:\n            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n")
    assert remaining == []


def test_fix_binds_inline_key_above_hand_rolled_loop(tmp_path):
    body = ("def f(u):\n    for attempt in range(3):\n        try:\n"
            "            return session.post(u, headers={'Idempotency-Key': uuid.uuid4().hex}, timeout=5)\n"
            "        except T:\n            if attempt == 2:\n                raise\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n")
    text, remaining = fixed(tmp_path, body)
    assert text.startswith("def f(u):\n    idempotency_key = uuid.uuid4().hex\n    for attempt in range(3):\n")
    assert "headers={'Idempotency-Key': idempotency_key}" in text
    assert remaining == []


def test_fix_not_offered_when_key_uses_loop_variable(tmp_path):
    body = ("def f(u):\n    for attempt in range(3):\n        try:\n            key = f'{attempt}-{uuid.uuid4()}'\n"
            "            return session.post(u, headers={'Idempotency-Key': key}, timeout=5)\n"
            "        except T:\n            if attempt == 2:\n                raise\n"
            "            time.sleep(random.uniform(0, 2 ** attempt))\n")
    text, remaining = fixed(tmp_path, body)
    assert text == textwrap.dedent(body)
    assert remaining == ["RES401"]


def test_fix_adds_parameter_to_retried_function(tmp_path):
    body = ("@retry(**POLICY)\ndef f(\n    u,\n    amount,\n):\n    key = str(uuid.uuid4())\n"
            "    return session.post(u, json={'amount': amount}, headers={'Idempotency-Key': key}, timeout=5)\n\n\n"
            "@retry(**POLICY)\ndef g(u, *, amount):\n"
            "    return session.post(u, json={'amount': amount, 'idempotency_key': uuid.uuid4().hex}, timeout=5)\n")
    text, remaining = fixed(tmp_path, body)
    assert "def f(\n    u,\n    amount,\n    idempotency_key=None,\n):\n    key = idempotency_key or str(uuid.uuid4())\n" in text
    assert "def g(u, *, amount, idempotency_key=None):\n" in text
    assert "'idempotency_key': idempotency_key or uuid.uuid4().hex}" in text
    assert remaining == []


def test_parameter_fix_message_shows_how_callers_mint_the_key(tmp_path):
    (tmp_path / "app.py").write_text(HEAD + "@retry(**POLICY)\ndef pay(u):\n"
                                     "    return session.post(u, headers={'Idempotency-Key': str(uuid.uuid4())}, "
                                     "timeout=5)\n", encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES401",)), use_cache=False).run([tmp_path])
    ((finding,),) = [r.findings for r in run.results]
    assert finding.fix is not None and finding.fix.applicability.name == "UNSAFE"
    assert finding.fix.message.endswith("pass it: `pay(..., idempotency_key=str(uuid.uuid4()))`")


# -- RES403: what aiohttp_retry really replays --------------------------------------------------------------------
AIOHTTP_HEAD = "import aiohttp\nfrom aiohttp_retry import ExponentialRetry, RandomRetry, RetryClient, RetryOptions\n"


@pytest.mark.parametrize("line, expected", [
    ("o = ExponentialRetry(attempts=3)\n", ["RES403"]),
    ("o = RetryOptions(attempts=3)\n", ["RES403"]),  # deprecated alias of ExponentialRetry
    ("o = ExponentialRetry(attempts=1)\n", []),  # no retry at all
    ("o = ExponentialRetry(attempts=3, retry_all_server_errors=False)\n", []),  # no response is retried
    ("o = ExponentialRetry(attempts=3, retry_all_server_errors=False, statuses={503})\n", ["RES403"]),
    ("o = ExponentialRetry(attempts=3, methods={'GET'})\n", []),
    # exceptions are retried for every method, whatever methods= says
    ("o = ExponentialRetry(attempts=3, methods={'GET'}, exceptions={aiohttp.ServerTimeoutError})\n", ["RES403"]),
    ("o = RandomRetry(attempts=3, methods={'GET'}, exceptions={aiohttp.ClientConnectorError})\n", []),
    ("o = ExponentialRetry(attempts=3, methods={'GET'}, exceptions=ERRORS)\n", []),  # unknown: not reported
])
def test_res403_aiohttp_retry(tmp_path, line, expected):
    (tmp_path / "app.py").write_text(AIOHTTP_HEAD + line, encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES403",)), use_cache=False).run([tmp_path])
    assert [f.code for r in run.results for f in r.findings] == expected


def test_res403_aiohttp_exceptions_message(tmp_path):
    (tmp_path / "app.py").write_text(AIOHTTP_HEAD + "o = ExponentialRetry(methods={'GET'}, exceptions="
                                     "{aiohttp.ServerTimeoutError})\n", encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES403",)), use_cache=False).run([tmp_path])
    ((finding,),) = [r.findings for r in run.results]
    assert "`exceptions=` retries `aiohttp.ServerTimeoutError` for every method" in finding.message
    assert finding.fix is None


def test_many_rebindings_do_not_blow_up(tmp_path):
    # every `x` has 40 bindings, each reading `x`: following them all without memo is 40 ** depth
    lines = "".join(f"    x = x + str({i})\n" for i in range(40))
    body = f"@retry(**POLICY)\ndef f(u, x):\n{lines}    return session.post(u, headers={{'Idempotency-Key': x}}, timeout=5)\n"
    import time as clock

    start = clock.perf_counter()
    assert codes(tmp_path, body) == []
    assert clock.perf_counter() - start < 20


FORWARDING = """\
class Api:
    def _request(self, method, path, *, json=None, params=None):
        for attempt in range(2):
            response = session.request(method, path, json=json, params=params, timeout=5)
            if response.status_code < 500:
                return response
            if attempt == 0:
                time.sleep(random.uniform(0, 1))
        raise RuntimeError(path)

    def create(self, payload):
        return self._request("POST", "/agents", json=payload)

    def read(self, name):
        return self._request("GET", f"/agents/{name}")

    def rename(self, name, payload):
        return self._request(method="PATCH", path=f"/agents/{name}", json=payload)

    def create_once(self, payload, key):
        return self._request("POST", "/agents", json={**payload, "idempotency_key": key})
"""


def test_a_request_retried_with_the_method_its_callers_give_names_the_writes(tmp_path):
    # the deploy client of a public agent CLI retries every method on a 5xx, POST included
    [(row, code, message)] = findings(tmp_path, FORWARDING, select=("RES402",))
    assert (row, code) == (4, "RES402")
    assert message.startswith("`_request` sends the method its callers give inside a hand-rolled retry loop, "
                              "and `create` and `rename` send HTTP POST and PATCH through it with no idempotency key")
    assert "retry only the idempotent methods" in message
    # the loop goes round on a status only: an exception is not retried, so the message says 5xx alone
    assert "a 5xx answer (a gateway's 502 or 504 too) does not say whether the server acted" in message


@pytest.mark.parametrize("change", [
    # only reads go through it
    ('self._request("POST", "/agents", json=payload)', 'self._request("GET", "/agents")'),
    # the request sends headers of its own, which may hold a key
    ("json=json, params=params, timeout=5", "json=json, params=params, headers=HEADERS, timeout=5"),
    # no retry around it
    ("        for attempt in range(2):\n", "        for attempt in [0]:\n"),
])
def test_forwarded_methods_that_are_no_retried_write(tmp_path, change):
    body = FORWARDING.replace(*change).replace('self._request(method="PATCH"', 'self._request(method="GET"')
    assert FORWARDING != body
    assert findings(tmp_path, body, select=("RES402",)) == []


# -- keys and writes in the functions retried code calls ---------------------------------------------------------
CLOSURE_KEY = """\
def pay(order):
    def send():
        key = str(uuid.uuid4())
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)

    for attempt in range(3):
        try:
            return send()
        except T:
            time.sleep(random.uniform(0, 2 ** attempt))
"""
CLOSURE_WRITE = CLOSURE_KEY.replace(
    """        key = str(uuid.uuid4())
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)""",
    """        return session.post("https://x/pay", json=order, timeout=5)""")
CLOSURE_KEY_ONCE = """\
def pay(order):
    key = str(uuid.uuid4())

    def send():
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)

    for attempt in range(3):
        try:
            return send()
        except T:
            time.sleep(random.uniform(0, 2 ** attempt))
"""
METHOD_KEY = """\
class Payer:
    def _send(self, order):
        key = str(uuid.uuid4())
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)

    def pay(self, order):
        while True:
            try:
                return self._send(order)
            except T:
                time.sleep(random.uniform(0, 2))
"""
METHOD_KEY_PASSED = """\
class Payer:
    def _send(self, order, key):
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)

    def pay(self, order):
        key = str(uuid.uuid4())
        for attempt in range(3):
            try:
                return self._send(order, key)
            except T:
                time.sleep(random.uniform(0, 2 ** attempt))

    def pay_once(self, order):
        key = str(uuid.uuid4())
        return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)
"""
FUNCTION_KEY = """\
def send(order):
    key = str(uuid.uuid4())
    return session.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)


@retry(**POLICY)
def pay(order):
    return send(order)


def pay_by_hand(order):
    for attempt in range(3):
        try:
            return send(order)
        except T:
            time.sleep(random.uniform(0, 2 ** attempt))


def pay_once(order):
    return send(order)
"""


@pytest.mark.parametrize("body, expected", [
    (CLOSURE_KEY, [(3, "RES401")]),  # reported where it is minted
    (CLOSURE_WRITE, [(3, "RES402")]),
    (CLOSURE_KEY_ONCE, []),  # minted once, before the loop: the closure sends the same key
    (METHOD_KEY, [(3, "RES401")]),
    (METHOD_KEY_PASSED, []),
    (FUNCTION_KEY, [(2, "RES401")]),  # one finding, for both retries that reach it
    (FUNCTION_KEY.split("\n\n\n@retry")[0] + "\n", []),  # nothing retries it
])
def test_keys_and_writes_in_functions_the_retried_code_calls(tmp_path, body, expected):
    """A local function or a `self` method called from a hand-rolled loop, or a module function called
    from retried code: its body runs on every attempt, so a key it mints is new every time (RES401, where
    it is minted) and a write it makes is replayed (RES402)."""
    assert codes(tmp_path, body) == expected


def test_keys_minted_in_functions_the_retried_code_calls_name_the_function_and_the_calls(tmp_path):
    ((_, _, message),) = findings(tmp_path, CLOSURE_KEY)
    assert message.startswith("idempotency key minted by `uuid.uuid4()` in `send()`, which the retried code calls: "
                              "every attempt of the HTTP POST sends a new key")
    (tmp_path / "app.py").write_text(HEAD + FUNCTION_KEY, encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES401",)), use_cache=False).run([tmp_path])
    ((finding,),) = [r.findings for r in run.results if r.findings]
    offset = HEAD.count("\n")
    assert finding.message.startswith(
        f"idempotency key minted by `uuid.uuid4()` in `send()`, which the retried code calls (app.py:{offset + 8}, "
        f"app.py:{offset + 14}): every attempt of the HTTP POST sends a new key")
    assert [(r.filename, r.location.row - offset, r.message) for r in finding.related] == [
        ("app.py", 8, "the call in the pay retry"), ("app.py", 14, "the call in the pay_by_hand retry loop")]


def test_no_fix_moves_a_key_out_of_a_local_function_the_loop_calls(tmp_path):
    # the parameter fix of a retried function would give `send()` a parameter its caller never passes
    result, remaining = fixed(tmp_path, CLOSURE_KEY)
    assert result == CLOSURE_KEY and remaining == ["RES401"]


def test_a_key_minted_in_another_module_s_function_the_retried_code_calls(tmp_path):
    (tmp_path / "payments.py").write_text(textwrap.dedent("""\
        import uuid

        import requests


        def charge(order):
            key = str(uuid.uuid4())
            return requests.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)


        def charge_with(order, key):
            return requests.post("https://x/pay", json=order, headers={"Idempotency-Key": key}, timeout=5)
        """), encoding="utf-8")
    body = """\
        import payments


        def pay(order):
            for attempt in range(3):
                try:
                    return payments.charge(order)
                except T:
                    time.sleep(random.uniform(0, 2 ** attempt))


        def pay_keyed(order):
            key = str(uuid.uuid4())
            for attempt in range(3):
                try:
                    return payments.charge_with(order, key)
                except T:
                    time.sleep(random.uniform(0, 2 ** attempt))
        """
    (tmp_path / "app.py").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    offset = HEAD.count("\n")
    run = Runner(Settings(root=tmp_path, select=("RES4",)), use_cache=False).run([tmp_path])
    ((finding,),) = [r.findings for r in run.results if r.findings]
    assert (finding.code, finding.filename, finding.location.row, finding.location.column) == \
        ("RES401", "payments.py", 7, 15)  # where it is minted
    assert [(r.filename, r.location.row - offset) for r in finding.related] == [("app.py", 7)]


SLACK_CALLS = """\
from slack_sdk.web.client import WebClient
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from .enums import Endpoints


@retry(stop=stop_after_attempt(5), retry=retry_if_exception_type(TimeoutError), wait=wait_random_exponential(max=30))
def make_call(client: WebClient, endpoint: str, **kwargs):
    if endpoint in ("users.info", "conversations.info"):
        return client.api_call(endpoint, http_verb="GET", params=kwargs)
    return client.api_call(endpoint, json=kwargs)


def send_message(client, channel, text):
    return make_call(client, Endpoints.chat_post_message, channel=channel, text=text)


def remind(client, text):
    return make_call(client, "reminders.add", text=text, time="in 5 minutes")


def user(client, user_id):
    return make_call(client, "users.info", user=user_id)


def rename(client, channel, name):
    return make_call(client, "conversations.rename", channel=channel, name=name)
"""


def test_a_retried_slack_call_names_the_writes_its_callers_send_through_it(tmp_path):
    """``make_call(client, endpoint, **kwargs)`` under a retry, called with ``chat.postMessage`` (here by
    an enum member of another module, named after the method) and ``reminders.add``: one finding at the
    call that posts, naming them; the GET branch, reads and renames are no replays of a post."""
    from reslint.engine.filepass import Linter

    found, errors = Linter(Settings(root=tmp_path)).lint_text(SLACK_CALLS, "m.py")
    assert errors == []
    assert [(f.location.row, f.code) for f in found] == [(11, "RES402")]
    assert found[0].message.startswith(
        "`make_call` calls the Slack method its callers give inside a tenacity retry, and `send_message` and "
        "`remind` send `chat.postMessage` and `reminders.add` through it, which Slack takes with no idempotency key")
    only_reads = SLACK_CALLS.split("def send_message")[0] + "def user" + SLACK_CALLS.split("def user")[1]
    found, _ = Linter(Settings(root=tmp_path)).lint_text(only_reads, "m.py")
    assert found == []


def test_slack_client_methods_named_after_a_write_are_writes(tmp_path):
    """``client.chat_postEphemeral(...)`` and ``client.reminders_add(...)`` are the same writes as
    ``api_call("chat.postEphemeral")``: one list of Slack writes drives both spellings."""
    from reslint.engine.filepass import Linter

    text = ("from slack_sdk import WebClient\nfrom tenacity import retry, stop_after_attempt, wait_random_exponential\n\n"
            "client = WebClient(token='x', timeout=10)\n\n\n"
            "@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=10))\n"
            "def notify(channel, user, text):\n"
            "    client.chat_postEphemeral(channel=channel, user=user, text=text)\n"
            "    client.reminders_add(text=text, time='in 5 minutes')\n"
            "    client.chat_update(channel=channel, ts='1', text=text)\n")
    found, errors = Linter(Settings(root=tmp_path)).lint_text(text, "m.py")
    assert errors == []
    assert [(f.location.row, f.code) for f in found if f.code == "RES402"] == [(9, "RES402"), (10, "RES402")]
