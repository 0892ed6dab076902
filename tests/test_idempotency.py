"""RES401-RES403 on small programs, including writes reached through helper functions."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.fixer import fix_text
from reslint.engine import Linter
from reslint.runner import Runner

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
