"""RES501 retry-on-open-circuit on small programs: the breakers each adapter knows, the exclusions, the fixes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from reslint.engine.runner import Runner
from tests.linting import project_rows

HEAD = """\
import random
import time

import aiobreaker
import backoff
import pybreaker
from circuitbreaker import CircuitBreaker, CircuitBreakerError, circuit
from purgatory import AsyncCircuitBreakerFactory, SyncCircuitBreakerFactory
from purgatory.domain.model import OpenedState
from tenacity import retry, retry_if_exception_type, retry_if_not_exception_type, stop_after_attempt

import ledger

breaker = pybreaker.CircuitBreaker(fail_max=5)
abreaker = aiobreaker.CircuitBreaker(fail_max=5)
factory = SyncCircuitBreakerFactory()
afactory = AsyncCircuitBreakerFactory()
"""


def codes(tmp_path: Path, body: str, select=("RES501", "RES204")):
    return project_rows(tmp_path, HEAD, body, select)


@pytest.mark.parametrize("body, expected", [
    # decorator order: the retry above the breaker retries its refusals; below it, it is guarded
    ("@retry(stop=stop_after_attempt(3))\n@breaker\ndef f():\n    return ledger.f()\n", [(1, "RES501")]),
    ("@breaker\n@retry(stop=stop_after_attempt(3))\ndef f():\n    return ledger.f()\n", [(2, "RES204")]),
    # a retry on transient errors only does not catch the breaker's error
    ("@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type(ConnectionError))\n@breaker\n"
     "def f():\n    return ledger.f()\n", []),
    # the error named, with no breaker in sight (imported from elsewhere)
    ("@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type(OpenedState))\ndef f():\n"
     "    return ledger.f()\n", [(1, "RES501")]),
    # aiobreaker: a decorator and call_async
    ("@retry(stop=stop_after_attempt(3))\n@abreaker\nasync def f():\n    return await ledger.f()\n", [(1, "RES501")]),
    ("@retry(stop=stop_after_attempt(3))\nasync def f():\n    return await abreaker.call_async(ledger.f)\n",
     [(1, "RES501")]),
    # purgatory: the factory's decorator, and its breaker as a context manager (sync and async)
    ("@retry(stop=stop_after_attempt(3))\n@factory('ledger')\ndef f():\n    return ledger.f()\n", [(1, "RES501")]),
    ("@retry(stop=stop_after_attempt(3))\ndef f():\n    with factory.get_breaker('ledger'):\n"
     "        return ledger.f()\n", [(1, "RES501")]),
    ("@retry(stop=stop_after_attempt(3))\nasync def f():\n    async with await afactory.get_breaker('ledger'):\n"
     "        return await ledger.f()\n", [(1, "RES501")]),
    # circuitbreaker: bare, called, a class instance, a subclass; a fallback raises no error
    ("@retry(stop=stop_after_attempt(3))\n@circuit\ndef f():\n    return ledger.f()\n", [(1, "RES501")]),
    ("@retry(stop=stop_after_attempt(3))\n@CircuitBreaker(failure_threshold=2)\ndef f():\n    return ledger.f()\n",
     [(1, "RES501")]),
    ("class B(CircuitBreaker):\n    FAILURE_THRESHOLD = 2\n\n\n@retry(stop=stop_after_attempt(3))\n@B()\n"
     "def f():\n    return ledger.f()\n", [(5, "RES501")]),
    ("@retry(stop=stop_after_attempt(3))\n@circuit(fallback_function=lambda: None)\ndef f():\n    return ledger.f()\n",
     [(1, "RES204")]),
    # a pybreaker object built with a fallback keyword it does not take stays a breaker
    # a breaker-decorated helper of the module, called from the retried body
    ("@breaker\ndef g():\n    return ledger.g()\n\n\n@retry(stop=stop_after_attempt(3))\ndef f():\n    return g()\n",
     [(6, "RES501")]),
    # a lambda or a nested function is not run by the retried body itself
    ("@retry(stop=stop_after_attempt(3))\ndef f():\n    return lambda: breaker.call(ledger.f)\n", [(1, "RES204")]),
    # exclusions
    ("@retry(stop=stop_after_attempt(3), retry=retry_if_not_exception_type(pybreaker.CircuitBreakerError))\n"
     "@breaker\ndef f():\n    return ledger.f()\n", [(1, "RES204")]),
    ("@backoff.on_exception(backoff.expo, Exception, max_tries=3, giveup=lambda e: False)\n@breaker\ndef f():\n"
     "    return ledger.f()\n", [(1, "RES204")]),
    ("@backoff.on_exception(backoff.expo, pybreaker.CircuitBreakerError, max_tries=3, giveup=lambda e: False)\n"
     "def f():\n    return ledger.f()\n", []),
    # a retry that does not retry
    ("@retry(stop=stop_after_attempt(1))\n@breaker\ndef f():\n    return ledger.f()\n", []),
])
def test_breakers(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


LOOP = """\
def f():
    for attempt in range(3):
        try:
            return breaker.call(ledger.f)
{handlers}
            time.sleep(random.uniform(0, 2 ** attempt))
    raise RuntimeError
"""


@pytest.mark.parametrize("handlers, expected", [
    ("        except Exception:", [(5, "RES501")]),
    ("        except:", [(5, "RES501")]),
    ("        except pybreaker.CircuitBreakerError:", [(5, "RES501")]),
    ("        except pybreaker.CircuitBreakerError:\n            raise\n        except Exception:", [(7, "RES204")]),
    ("        except Exception as exc:\n            if isinstance(exc, pybreaker.CircuitBreakerError):\n"
     "                raise", []),
    ("        except ConnectionError:", []),
])
def test_loops(tmp_path, handlers, expected):
    assert codes(tmp_path, LOOP.format(handlers=handlers)) == expected


def _fix(tmp_path, body):
    text = HEAD + textwrap.dedent(body)
    outcome = fix_text(Linter(Settings(root=tmp_path, select=("RES501",))), text, "app.py", unsafe=False)
    assert outcome.error is None
    return None if outcome.text is None else outcome.text[len(HEAD):]


@pytest.mark.parametrize("body, fixed", [
    ("@retry(stop=stop_after_attempt(3))\n@breaker\ndef f():\n    return ledger.f()\n",
     "@retry(stop=stop_after_attempt(3), retry=retry_if_not_exception_type(pybreaker.CircuitBreakerError))\n"
     "@breaker\ndef f():\n    return ledger.f()\n"),
    ("@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type(Exception))\n@breaker\ndef f():\n"
     "    return ledger.f()\n",
     "@retry(stop=stop_after_attempt(3), retry=retry_if_exception_type(Exception) & "
     "retry_if_not_exception_type(pybreaker.CircuitBreakerError))\n@breaker\ndef f():\n    return ledger.f()\n"),
    ("@backoff.on_exception(backoff.expo, Exception, max_tries=3)\n@circuit\ndef f():\n    return ledger.f()\n",
     "@backoff.on_exception(backoff.expo, Exception, max_tries=3, giveup=lambda exc: isinstance(exc, "
     "CircuitBreakerError))\n@circuit\ndef f():\n    return ledger.f()\n"),
    # no fix for a bare decorator or a loop
    ("@retry\n@breaker\ndef f():\n    return ledger.f()\n", None),
    (LOOP.format(handlers="        except Exception:"), None),
])
def test_fix_excludes_the_open_circuit_error(tmp_path, body, fixed):
    assert _fix(tmp_path, body) == fixed
    if fixed is not None:
        assert _fix(tmp_path, fixed) is None  # clean for the rule: a second run changes nothing


def test_the_message_names_the_breaker_and_the_error(tmp_path):
    (tmp_path / "app.py").write_text(HEAD + "@retry(stop=stop_after_attempt(3))\n@breaker\ndef f():\n"
                                            "    return ledger.f()\n", encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES501",)), use_cache=False).run([tmp_path / "app.py"])
    (finding,) = [f for r in run.results for f in r.findings]
    assert finding.message.startswith(
        "tenacity retry retries every exception, and each attempt runs through a circuit breaker (@breaker): it "
        "retries `pybreaker.CircuitBreakerError`, the error the breaker raises when it is open: an open breaker "
        "refuses every call at once")
    assert "add `retry_if_not_exception_type(...)` of that error to `retry=`" in finding.message
