"""The model-call layer: litellm's calls and Router, the SDK clients' per-request timeouts and
``with_options`` copies, module-wide litellm settings and ``**config`` dicts (RES101-RES104, RES301)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.engine.runner import Runner

HEAD = """import litellm
import openai
from litellm import Router
from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

M = [{"role": "user", "content": "hi"}]
"""
RETRY = ("@retry(retry=retry_if_exception_type({catches}), wait=wait_random_exponential(max=5), "
         "stop=stop_after_attempt(3) | stop_after_delay(300), reraise=True)\n")


def run(tmp_path: Path, body: str):
    path = tmp_path / "m.py"
    path.write_text(HEAD + body, encoding="utf-8")
    result = Runner(Settings(root=tmp_path), use_cache=False).run([path])
    assert result.errors == []
    offset = HEAD.count("\n")
    return [(f.location.row - offset, f.code, f.message) for r in result.results for f in r.findings]


def retried(call: str, catches: str = "litellm.APIConnectionError") -> str:
    return RETRY.format(catches=catches) + f"def ask(q):\n    return {call}\n"


def codes(found):
    return sorted((row, code) for row, code, _ in found)


# -- litellm calls as retry layers ------------------------------------------------------------------
@pytest.mark.parametrize(("call", "attempts"), [
    ('litellm.completion(model="m", messages=M, timeout=60, num_retries=3)', 4),
    ('litellm.completion(model="m", messages=M, timeout=60, max_retries=1)', 2),
    # both given: num_retries wins (litellm/main.py)
    ('litellm.completion(model="m", messages=M, timeout=60, num_retries=2, max_retries=5)', 3),
    ('litellm.embedding(model="e", input=["x"], timeout=60, max_retries=2)', 3),
])
def test_a_litellm_call_that_retries_inside_multiplies_the_outer_retry(tmp_path, call, attempts):
    [(row, code, message)] = run(tmp_path, retried(call))
    assert (row, code) == (3, "RES301")
    assert f"ask (3) → {call.split('(')[0]} ({attempts}): up to {3 * attempts} calls per ask call" in message
    assert "`num_retries=0`" in message or "`max_retries=0`" in message


@pytest.mark.parametrize("call", [
    'litellm.completion(model="m", messages=M, timeout=60)',  # litellm itself does not re-run it
    'litellm.completion(model="m", messages=M, timeout=60, num_retries=0)',
    'litellm.completion(model="m", messages=M, timeout=60, num_retries=None)',  # None: the module setting
    'litellm.embedding(model="e", input=["x"], timeout=60, num_retries=3)',  # embedding reads max_retries only
])
def test_a_litellm_call_without_inner_retries_is_one_layer(tmp_path, call):
    assert run(tmp_path, retried(call)) == []


def test_the_file_s_litellm_num_retries_is_the_default_of_its_calls(tmp_path):
    body = "litellm.num_retries = 4\n" + retried('litellm.completion(model="m", messages=M, timeout=60)')
    [(row, code, message)] = run(tmp_path, body)
    assert (row, code) == (4, "RES301") and "litellm.completion (5): up to 15 calls" in message
    body = "litellm.num_retries = 4\n" + retried('litellm.completion(model="m", messages=M, timeout=60, num_retries=0)')
    assert run(tmp_path, body) == []


def test_a_setting_assigned_twice_or_at_run_time_is_unknown(tmp_path):
    call = 'litellm.completion(model="m", messages=M)'
    found = run(tmp_path, "litellm.num_retries = 2\nlitellm.num_retries = 0\n" + retried(call))
    assert [c for _, c, _ in found] == ["RES101"]  # the timeout finding stays; no RES301 (unknown retries)
    found = run(tmp_path, "def setup(n):\n    litellm.request_timeout = n\n\n\n" + retried(call))
    assert found == []  # request_timeout unknown: not reported; num_retries not set: no layer


def test_an_outer_retry_that_cannot_catch_litellm_errors_does_not_multiply(tmp_path):
    call = 'litellm.completion(model="m", messages=M, timeout=60, num_retries=3)'
    assert run(tmp_path, retried(call, catches="TimeoutError")) == []
    # litellm's errors subclass openai's: an outer retry on openai.APIError catches them
    assert codes(run(tmp_path, retried(call, catches="openai.APIError"))) == [(3, "RES301")]


def test_router_retries_twice_unless_told_and_a_request_can_override(tmp_path):
    router = 'r = Router(model_list=[], timeout=60{extra})\n\n\n'
    found = run(tmp_path, router.format(extra="") + retried('r.completion(model="m", messages=M)'))
    assert codes(found) == [(6, "RES301")] and "litellm client (3)" in found[0][2]
    found = run(tmp_path, router.format(extra=", num_retries=5") + retried('r.completion(model="m", messages=M)'))
    assert "litellm client (6)" in found[0][2]
    assert run(tmp_path, router.format(extra=", num_retries=0") + retried('r.completion(model="m", messages=M)')) == []
    assert run(tmp_path, router.format(extra="") + retried('r.completion(model="m", messages=M, num_retries=0)')) == []


# -- **config -------------------------------------------------------------------------------------
def test_a_visible_config_dict_is_read_and_a_changed_one_is_unknown(tmp_path):
    sdk = "openai.APIConnectionError"
    clean = 'CONFIG = {"timeout": 60, "max_retries": 0}\nc = openai.OpenAI(**CONFIG)\n\n\n'
    assert run(tmp_path, clean + retried('c.chat.completions.create(model="m", messages=M)', sdk)) == []
    noisy = 'CONFIG = {"timeout": 60}\nc = openai.OpenAI(**CONFIG)\n\n\n'
    assert codes(run(tmp_path, noisy + retried('c.chat.completions.create(model="m", messages=M)', sdk))) == \
        [(7, "RES301")]
    changed = 'CONFIG = {"timeout": 60}\nCONFIG["max_retries"] = 0\nc = openai.OpenAI(**CONFIG)\n\n\n'
    assert run(tmp_path, changed + retried('c.chat.completions.create(model="m", messages=M)', sdk)) == []
    assert codes(run(tmp_path, 'c = openai.OpenAI(**dict(timeout=900))\n')) == [(1, "RES103")]
    assert run(tmp_path, 'c = openai.OpenAI(**{**BASE, "timeout": 900})\n') == []  # {**other}: unknown


def test_litellm_kwargs_built_in_the_function_are_read(tmp_path):
    body = ("def ask(q):\n    kwargs = {\"model\": \"m\", \"messages\": M}\n    return litellm.completion(**kwargs)\n\n\n"
            "def ask_later(q):\n    kwargs = {\"model\": \"m\", \"messages\": M}\n    kwargs.update(timeout=60)\n"
            "    return litellm.completion(**kwargs)\n")
    found = run(tmp_path, body)
    assert codes(found) == [(3, "RES101")]
    assert "600 s for a completion" in found[0][2]


# -- per-request timeouts and with_options ---------------------------------------------------------
def test_per_request_timeouts_replace_the_client_s_in_the_worst_case(tmp_path):
    body = ('c = openai.OpenAI(timeout=120, max_retries=0)\n\n\n' + RETRY.format(catches="openai.APIConnectionError")
            .replace("stop_after_delay(300)", "stop_after_delay(200)") +
            'def ask(q):\n    return c.with_options(timeout=20).chat.completions.create(model="m", messages=M)\n')
    assert run(tmp_path, body) == []  # 4 phases x 20 s = 80 s per attempt, within the 200 s cap
    body = body.replace("with_options(timeout=20).", "")
    [(row, code, message)] = run(tmp_path, body)
    assert (row, code) == (6, "RES104") and "480 s per attempt" in message


def test_litellm_timeout_none_asks_for_the_default_and_the_setting_bounds_it(tmp_path):
    found = run(tmp_path, 'def ask(q):\n    return litellm.completion(model="m", messages=M, timeout=None)\n')
    assert codes(found) == [(2, "RES101")]
    bounded = 'litellm.request_timeout = 120\n\n\ndef ask(q):\n    return litellm.completion(model="m", messages=M)\n'
    assert run(tmp_path, bounded) == []
    slow = bounded.replace("= 120", "= 900")
    [(row, code, message)] = run(tmp_path, slow)
    assert (row, code) == (5, "RES103") and "`litellm.request_timeout = 900`" in message


def test_a_litellm_layer_is_reached_across_modules(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app" / "llm.py").write_text(
        "import litellm\n\n\ndef ask(q):\n"
        "    return litellm.completion(model='m', messages=[], timeout=60, num_retries=3)\n", encoding="utf-8")
    (tmp_path / "app" / "service.py").write_text(
        "import litellm\nfrom tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, "
        "wait_random_exponential\n\nfrom app.llm import ask\n\n\n"
        "@retry(retry=retry_if_exception_type(litellm.APIConnectionError), wait=wait_random_exponential(max=5), "
        "stop=stop_after_attempt(3) | stop_after_delay(300), reraise=True)\ndef answer(q):\n    return ask(q)\n",
        encoding="utf-8")
    result = Runner(Settings(root=tmp_path), use_cache=False).run([tmp_path])
    found = [(f.filename, f.location.row, f.code, f.message) for r in result.results for f in r.findings]
    [(name, row, code, message)] = found
    assert (name, row, code) == ("app/service.py", 9, "RES301")
    assert "answer (3) → litellm.completion (4): up to 12 calls" in message


def test_a_config_dict_completed_by_constant_keys_keeps_its_other_keys(tmp_path):
    body = ("def ask(q, key=None):\n    params = {\"model\": \"m\", \"messages\": M}\n    if key:\n"
            "        params[\"api_key\"] = key\n    return litellm.completion(**params)\n\n\n"
            "def ask_bounded(q, t):\n    params = {\"model\": \"m\", \"messages\": M}\n    params[\"timeout\"] = t\n"
            "    return litellm.completion(**params)\n\n\n"
            "def ask_any(q, extra):\n    params = {\"model\": \"m\", \"messages\": M}\n    for k in extra:\n"
            "        params[k] = extra[k]\n    return litellm.completion(**params)\n")
    found = run(tmp_path, body)
    assert codes(found) == [(5, "RES101")]  # the timeout is set only in ask_bounded; ask_any's keys are computed


def test_a_router_request_passing_unknown_kwargs_may_set_its_own_retries(tmp_path):
    router = 'r = Router(model_list=[], timeout=60)\n\n\n'
    assert run(tmp_path, router + retried('r.completion(model="m", messages=M, **options)')) == []
    visible = 'r = Router(model_list=[], timeout=60)\nOPTIONS = {"temperature": 0}\n\n\n'
    assert codes(run(tmp_path, visible + retried('r.completion(model="m", messages=M, **OPTIONS)'))) == [(7, "RES301")]
