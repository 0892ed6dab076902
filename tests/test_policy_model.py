"""The retry policy model read from real spellings (reslint/model, reslint/libraries), and the
regression for retrying's waits (each strategy bounded by its own cap)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.analysis.retried import RetriedScopes
from reslint.analysis.retry import Extractor
from reslint.config import Settings
from reslint.semantics.context import Context, SemanticModel
from reslint.engine.filepass import Linter, parse_module
from reslint.model.policy import Jitter, RetriedKind, Role

RETRYING_BOTH = """\
import requests
import retrying


@retrying.retry(stop_max_attempt_number=5, wait_exponential_multiplier=1000, wait_exponential_max=2000,
                wait_incrementing_start=0, wait_incrementing_increment=1, wait_incrementing_max=600000)
def fetch():
    return requests.get("https://example.com", timeout=(5, 10))
"""


def policies(text: str):
    """The policies of a module, in the order the retried-scope walk finds them."""
    ctx = Context(SemanticModel(parse_module(textwrap.dedent(text))), Settings(root=Path(".")))
    ctx.retries = Extractor(ctx)
    ctx.retried = RetriedScopes(ctx, ctx.retries)
    return ctx.retried.policies


def test_retrying_exponential_waits_keep_their_own_cap():
    """``wait_incrementing_max`` once clamped the exponential waits too (a closure read a variable
    rebound later): the bounds were [2, 4, 8, 16, 32] s instead of the exponential cap's 2 s."""
    (policy,) = policies(RETRYING_BOTH)
    assert [policy.wait.bound(k) for k in range(1, 6)] == [2.0, 2.0, 2.0, 2.0, 2.0]


def test_retrying_waits_are_the_same_without_the_incrementing_strategy():
    alone = RETRYING_BOTH.replace(
        ",\n                wait_incrementing_start=0, wait_incrementing_increment=1, wait_incrementing_max=600000", "")
    (policy,) = policies(alone)
    assert [policy.wait.bound(k) for k in range(1, 6)] == [2.0, 2.0, 2.0, 2.0, 2.0]


def test_retrying_incrementing_waits_keep_their_own_cap():
    (policy,) = policies("""\
        import retrying

        @retrying.retry(stop_max_attempt_number=5, wait_incrementing_start=1000, wait_incrementing_increment=1000,
                        wait_incrementing_max=2500, wait_exponential_multiplier=1, wait_exponential_max=10)
        def f():
            pass
        """)
    assert [policy.wait.bound(k) for k in range(1, 5)] == [1.0, 2.0, 2.5, 2.5]


def test_res202_counts_retrying_waits_under_the_exponential_cap(tmp_path):
    """5 attempts × 15 s + 4 waits of at most 2 s: 83 s (not 105 s with waits of 2 + 4 + 8 + 16 s)."""
    found, errors = Linter(Settings(root=tmp_path)).lint_text(RETRYING_BOTH, "m.py")
    assert errors == []
    (finding,) = [f for f in found if f.code == "RES202"]
    assert "5 attempts × 15 s + up to 8 s of waits = 83 s > max-retry-time (60 s)" in finding.message


def test_policies_are_frozen_and_typed():
    (policy,) = policies("""\
        from tenacity import retry, stop_after_attempt, wait_fixed

        @retry(stop=stop_after_attempt(3), wait=wait_fixed(2))
        def f():
            pass
        """)
    assert policy.role is Role.DECORATOR and policy.wait.jitter is Jitter.NO
    assert policy.retried.kind is RetriedKind.ANY and policy.loop is None
    with pytest.raises(AttributeError):
        policy.attempts = 5  # frozen: built once by its adapter


def test_a_loop_policy_carries_typed_loop_facts():
    (policy,) = policies("""\
        import time
        import requests

        def f():
            for attempt in range(3):
                try:
                    return requests.get("u", timeout=5)
                except requests.ConnectionError:
                    time.sleep(1)
        """)
    assert policy.role is Role.LOOP and policy.attempts == 3
    assert len(policy.loop.sleeps) == 1 and len(policy.loop.handlers) == 1
    assert policy.loop.sleeps_in_handlers == frozenset({id(policy.loop.sleeps[0])})
    assert not policy.loop.time_capped and not policy.has_time_cap


@pytest.mark.parametrize("decorator, longest", [
    # 4 attempts, 3 waits of 1, 2 and 4 s
    ("@tenacity.retry(stop=tenacity.stop_after_attempt(4), wait=tenacity.wait_exponential(multiplier=1))", 4.0),
    # the time cap is spent (1 + 2 + 4 + 8 = 15 s) before the 16 s wait could come
    ("@tenacity.retry(stop=tenacity.stop_after_attempt(9) | tenacity.stop_after_delay(10), "
     "wait=tenacity.wait_exponential(multiplier=1))", 8.0),
    # one attempt: no wait
    ("@tenacity.retry(stop=tenacity.stop_after_attempt(1), wait=tenacity.wait_fixed(30))", 0.0),
    # no attempt cap and growing waits with no ceiling: no bound; with a ceiling, the ceiling
    ("@tenacity.retry(wait=tenacity.wait_exponential(multiplier=1))", None),
    ("@tenacity.retry(wait=tenacity.wait_exponential(multiplier=1, max=90))", 90.0),
])
def test_the_longest_wait_between_two_attempts(decorator, longest):
    from reslint.analysis.budget import longest_wait

    (policy,) = policies(f"import tenacity\n\n{decorator}\ndef f():\n    pass\n")
    assert longest_wait(policy) == longest


def test_a_time_cap_of_unknown_length_leaves_only_the_first_wait_sure():
    from reslint.analysis.budget import longest_wait

    (policy,) = policies("import tenacity\n\n@tenacity.retry(stop=tenacity.stop_after_attempt(5) | "
                         "tenacity.stop_after_delay(LIMIT), wait=tenacity.wait_exponential(multiplier=3))\n"
                         "def f():\n    pass\n")
    assert policy.max_delay_s is not None and longest_wait(policy) == 3.0


def test_the_longest_wait_of_a_retry_with_no_caps_is_quick_and_never_overflows():
    from reslint.analysis.budget import longest_wait

    (policy,) = policies("import backoff\nimport requests\n\n"
                         "@backoff.on_exception(backoff.fibo, requests.ConnectionError, max_value=60)\n"
                         "def f():\n    pass\n")
    assert longest_wait(policy) == 60.0
