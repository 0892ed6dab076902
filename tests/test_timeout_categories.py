"""Timeout categories: model clients are judged against a ceiling of their own
(``[tool.reslint.timeouts.model]``), and their fix inserts a value sized for a completion."""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint.config import ConfigError, Settings, settings_from_table
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from tests.test_cli import run

HEAD = "import boto3\nimport openai\nfrom botocore.config import Config\n\n"


def findings(body: str, settings: Settings = None):
    linter = Linter(settings or Settings(root=Path(".")))
    found, errors = linter.lint_text(HEAD + body, "m.py")
    assert errors == []
    return [(f.code, f.message) for f in found]


def test_the_sdk_default_is_above_the_model_ceiling_and_the_message_names_it():
    [(code, message)] = findings("llm = openai.OpenAI()\n")
    assert code == "RES101"
    assert "600 s read timeout, above timeouts.model.max-timeout (300 s)" in message


def test_the_fix_inserts_the_model_default_timeout_not_the_network_one():
    source = HEAD + "llm = openai.OpenAI()\ns3 = boto3.client('s3')\n"
    # botocore's 60 s connect and 60 s read are each within the default 60 s ceiling: a lower one reports them
    settings = settings_from_table({"max-timeout": 30}, Path("."), None)
    fixed = fix_text(Linter(settings), source, "m.py", unsafe=True).text
    assert "llm = openai.OpenAI(timeout=120)\n" in fixed
    assert "s3 = boto3.client('s3', config=Config(connect_timeout=10, read_timeout=10))\n" in fixed


@pytest.mark.parametrize(("body", "expected"), [
    ("c = openai.OpenAI(timeout=240)\n", []),
    ("c = openai.OpenAI(timeout=301)\n", ["RES103"]),
    ("c = boto3.client('bedrock-runtime', config=Config(connect_timeout=5, read_timeout=300))\n", []),
    ("c = boto3.client(service_name='bedrock-runtime', config=Config(connect_timeout=5, read_timeout=900))\n",
     ["RES103"]),
    ("c = boto3.client('bedrock-runtime')\n", []),  # 60 s + 60 s: within the model ceiling
    ("c = boto3.client('s3', config=Config(connect_timeout=5, read_timeout=300))\n", ["RES103"]),
    ("c = boto3.client('s3')\n", []),  # 60 s connect and 60 s read: each within the network ceiling
    ("SERVICE = 'bedrock-runtime'\nc = boto3.client(SERVICE)\n", []),  # a constant name is followed
])
def test_boto_clients_take_the_category_of_their_service(body, expected):
    assert [code for code, _ in findings(body)] == expected


def test_a_raised_model_ceiling_accepts_the_sdk_default_and_keeps_the_network_one():
    settings = settings_from_table({"timeouts": {"model": {"max-timeout": 900}}}, Path("."), None)
    assert findings("llm = openai.OpenAI()\n", settings) == []
    assert [c for c, _ in findings("llm = openai.OpenAI(timeout=1000)\n", settings)] == ["RES103"]
    assert [c for c, _ in findings("s3 = boto3.client('s3')\n", settings)] == []
    lower = settings_from_table({"max-timeout": 30, "timeouts": {"model": {"max-timeout": 900}}}, Path("."), None)
    [(code, message)] = findings("s3 = boto3.client('s3')\n", lower)
    assert code == "RES101" and "60 s connect and 60 s read" in message and "(30 s)" in message


def test_the_model_default_timeout_is_configurable():
    settings = settings_from_table({"timeouts": {"model": {"default-timeout": 45}}}, Path("."), None)
    fixed = fix_text(Linter(settings), HEAD + "llm = openai.OpenAI()\n", "m.py", unsafe=True).text
    assert "openai.OpenAI(timeout=45)" in fixed


def test_database_calls_take_the_top_level_values_unless_given_their_own():
    body = "import psycopg\nconn = psycopg.connect('dbname=x')\n"  # psycopg 3: 130 s without connect_timeout
    assert [c for c, _ in findings(body)] == ["RES101"]
    settings = settings_from_table({"timeouts": {"database": {"max-timeout": 200}}}, Path("."), None)
    assert findings(body, settings) == []
    assert settings.max_timeout_for("network") == 60.0 and settings.max_timeout_for("model") == 300.0


@pytest.mark.parametrize(("table", "message"), [
    ({"timeouts": {"network": {"max-timeout": 5}}}, "unknown key `tool.reslint.timeouts.network` (known keys: "
                                                    "database, model; network calls use the top-level"),
    ({"timeouts": {"model": {"max": 5}}}, "unknown key `tool.reslint.timeouts.model.max` (known keys: "
                                          "max-timeout, default-timeout)"),
    ({"timeouts": {"model": {"max-timeout": 60}}}, "the default timeout of model calls (120 s) is above their "
                                                    "max-timeout (60 s)"),
    ({"timeouts": {"model": {"max-timeout": -1}}}, "`tool.reslint.timeouts.model.max-timeout` must be a positive"),
    ({"timeouts": {"model": 3}}, "`tool.reslint.timeouts.model` must be a table, got 3"),
    ({"timeouts": []}, "`tool.reslint.timeouts` must be a table"),
])
def test_bad_category_tables_name_the_file_and_key(table, message):
    with pytest.raises(ConfigError) as info:
        settings_from_table({"__prefix__": "tool.reslint.", **table}, Path("."), Path("pyproject.toml"))
    assert str(info.value).startswith("pyproject.toml: ")
    assert message in str(info.value)


def test_show_settings_prints_every_categorys_resolved_values(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nmax-timeout = 30\n\n"
                                             "[tool.reslint.timeouts.model]\nmax-timeout = 450\n", encoding="utf-8")
    result = run(["show-settings"], tmp_path)
    assert result.exit_code == 0
    line = next(row for row in result.output.splitlines() if row.strip().startswith("timeouts = "))
    assert '"database" = { "max-timeout" = 30, "default-timeout" = 10 }' in line
    assert '"model" = { "max-timeout" = 450, "default-timeout" = 120 }' in line
    assert line.endswith("# pyproject.toml")


def test_a_project_timeout_call_can_be_a_model_call(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.reslint]\n\n[[tool.reslint.catalog.timeout-calls]]\nname = \"corp.llm.complete\"\n"
        "default = 600\ncategory = \"model\"\n", encoding="utf-8")
    (tmp_path / "app.py").write_text("from corp.llm import complete\n\nanswer = complete('hi')\n"
                                     "quick = complete('hi', timeout=200)\n", encoding="utf-8")
    result = run(["-f", "concise", "app.py"], tmp_path)
    assert result.exit_code == 1
    assert "app.py:3:10: RES101" in result.output and "timeouts.model.max-timeout (300 s)" in result.output
    assert "app.py:4:" not in result.output


@pytest.mark.parametrize(("body", "expected"), [
    ("def f(c=None):\n    return openai.OpenAI() if c is None else c\n", []),
    ("def f(c=None):\n    return c if c else openai.OpenAI()\n", []),
    ("def f(c=None):\n    c = c or boto3.client('s3')\n    return c\n", []),
    ("def f(c=None):\n    if c is None:\n        try:\n            c = openai.OpenAI()\n        except ImportError:\n"
     "            raise\n    return c\n", []),
    # built under the test of another name, or whatever the caller passed: the library's own client
    ("def f(c=None):\n    if c is None:\n        d = openai.OpenAI()\n        return d\n    return c\n", ["RES101"]),
    ("def f(c=None):\n    d = openai.OpenAI()\n    return c or d\n", ["RES101"]),
    ("def f(c=None):\n    return c and openai.OpenAI()\n", ["RES101"]),
    # a fallback that waits forever is still reported
    ("import requests\ndef f(s=None):\n    return s or requests.Session()\n", []),  # a Session is no carrier
    ("import redis\ndef f(r=None):\n    return r or redis.Redis(host='h')\n", ["RES101"]),
])
def test_a_fallback_for_an_injected_client_keeps_the_sdks_bounded_default(body, expected):
    assert [code for code, _ in findings(body)] == expected


@pytest.mark.parametrize(("body", "expected"), [
    # ``session or requests.Session()``: the requests made on it are a Session's, which carry no
    # timeout of their own (seen in a scraper and in a package index's HTTP service)
    ("import requests\nclass L:\n    def __init__(self, session=None):\n        self.s = session or requests.Session()\n"
     "    def load(self, u):\n        return self.s.get(u)\n", [("RES101", 6)]),
    ("import requests\ndef f(u, session=None):\n    s = session or requests.Session()\n    return s.get(u)\n",
     [("RES101", 4)]),
    ("import requests\ndef f(u, session=None):\n    s = session or requests.Session()\n    return s.get(u, timeout=5)\n",
     []),
    # an object known to be of another type: neither is assumed
    ("import requests\nimport httpx\ndef f(u):\n    s = httpx.Client(timeout=5) or requests.Session()\n"
     "    return s.get(u)\n", []),
    # a shared session configured elsewhere (an adapter that sets timeouts mounted on it) as the default
    ("import requests\nfrom corp import TimeoutAdapter\nSHARED = requests.Session()\n"
     "SHARED.mount('https://', TimeoutAdapter())\ndef f(u, session=None):\n    s = session or SHARED\n"
     "    return s.get(u)\n", []),
])
def test_a_requests_session_fallback_types_the_requests_made_on_it(body, expected):
    found, errors = Linter(Settings(root=Path("."))).lint_text(body, "m.py")
    assert errors == []
    assert [(f.code, f.location.row) for f in found] == expected


# -- deadlines around a call without a timeout ------------------------------------------------
GREEN = "import asyncio\nimport gevent\nimport requests\nfrom eventlet import Timeout\n\n"


@pytest.mark.parametrize(("body", "expected"), [
    ("def f(u):\n    with Timeout(5, False):\n        return requests.get(u)\n", []),
    ("def f(u):\n    with gevent.Timeout(seconds=2):\n        return requests.get(u)\n", []),
    ("def f(u):\n    with gevent.Timeout():\n        return requests.get(u)\n", ["RES101"]),  # no seconds: none
    ("def f(u):\n    with gevent.Timeout(5):\n        pass\n    return requests.get(u)\n", ["RES101"]),
    ("async def f(u):\n    async with asyncio.timeout(5):\n        return requests.get(u)\n", ["RES101"]),
    # RES104 still compares a timeout inside with the deadline
    ("def f(u):\n    with gevent.Timeout(5):\n        return requests.get(u, timeout=30)\n", ["RES104"]),
])
def test_a_green_threads_timeout_bounds_a_blocking_call(body, expected):
    linter = Linter(Settings(root=Path(".")))
    found, errors = linter.lint_text(GREEN + body, "m.py")
    assert errors == []
    assert [f.code for f in found] == expected


def test_an_asyncio_deadline_bounds_an_awaited_call_only(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.reslint]\n\n[[tool.reslint.catalog.timeout-calls]]\nname = \"corp.net.fetch\"\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(
        "import asyncio\nfrom corp.net import fetch\n\n\nasync def quote(url):\n"
        "    async with asyncio.timeout(5):\n        awaited = await fetch(url)\n"
        "        started = asyncio.ensure_future(fetch(url))\n"
        "    return awaited, await started\n", encoding="utf-8")
    result = run(["-f", "concise", "app.py"], tmp_path)
    assert result.output.count("RES101") == 1 and "app.py:8:41: RES101" in result.output, result.output


def test_green_deadlines_are_deadlines():
    from reslint.catalog import retries

    assert retries.GREEN_DEADLINES <= set(retries.DEADLINES)


@pytest.mark.parametrize(("body", "expected"), [
    # an HTTP client from elsewhere: its timeout, not the SDK's 600 s, is the one the client uses
    ("def make(http):\n    return openai.OpenAI(http_client=http)\n", []),
    ("def make(http):\n    return anthropic.AsyncAnthropic(api_key='k', http_client=http)\n", []),
    # none, or one built right there with httpx's default: the SDK's own 600 s applies
    ("c = openai.OpenAI(http_client=None)\n", ["RES101"]),
    ("c = openai.AsyncOpenAI(http_client=httpx.AsyncClient())\n", ["RES101"]),
    ("c = openai.AzureOpenAI(http_client=httpx.Client(headers={'x': '1'}))\n", ["RES101"]),
    # one built right there with a timeout: that timeout is judged where it is written
    ("c = openai.OpenAI(http_client=httpx.Client(timeout=30))\n", []),
    ("c = openai.OpenAI(http_client=httpx.Client(timeout=900))\n", ["RES103"]),
    ("def make(**kw):\n    return openai.OpenAI(**kw)\n", []),
    # httpx's default spelled out, the SDK's own HTTP client, a module's client bound once with none:
    # the SDK cannot tell them from no client, and keeps its 600 s
    ("c = openai.OpenAI(http_client=httpx.Client(timeout=5))\n", ["RES101"]),
    ("c = openai.OpenAI(http_client=openai.DefaultHttpxClient())\n", ["RES101"]),
    ("HTTP = httpx.Client()\nc = openai.OpenAI(http_client=HTTP)\n", ["RES101"]),
    ("HTTP = httpx.Client(timeout=30)\nc = openai.OpenAI(http_client=HTTP)\n", []),
    ("c = openai.OpenAI(http_client=openai.DefaultHttpxClient(timeout=30))\n", []),
    # a visible config: what it holds decides
    ("KEYS = {'api_key': 'k'}\nc = openai.OpenAI(**KEYS)\n", ["RES101"]),
    ("def make(h):\n    kw = {'http_client': h}\n    return openai.OpenAI(**kw)\n", []),
])
def test_a_model_client_given_an_http_client_takes_that_client_s_timeout(body, expected):
    """openai/_base_client.py: with no ``timeout=``, a custom ``http_client``'s timeout is used unless
    it is httpx's default; checked against the installed SDK in the catalog-reality tests."""
    assert [code for code, _ in findings("import anthropic\nimport httpx\n" + body)] == expected


@pytest.mark.parametrize(("timeout", "expected"), [
    # the pool phase waits for a connection that another request, itself bounded, holds
    ("httpx.Timeout(connect=5, read=40, write=10, pool=None)", []),
    ("httpx.Timeout(10, pool=None)", []),
    # a stalled peer is held by the read (or every) phase set to None
    ("httpx.Timeout(connect=5, read=None, write=10, pool=None)", ["RES102"]),
    ("httpx.Timeout(None)", ["RES102"]),
    ("httpx.Timeout(None, pool=5)", ["RES102"]),
])
def test_an_httpx_pool_phase_without_a_bound_holds_no_call_on_a_stalled_peer(timeout, expected):
    assert [code for code, _ in findings(f"import httpx\nc = httpx.AsyncClient(timeout={timeout})\n")] == expected


SUBSCRIBER = """\
import asyncio

import httpx

client = httpx.AsyncClient(timeout=30)


async def paid_invoices():
    while True:
        try:
            async with client.stream("GET", "/invoices/subscribe", timeout=None) as r:
                async for line in r.aiter_lines():
                    %s
        except httpx.HTTPError:
            await asyncio.sleep(5)
"""


@pytest.mark.parametrize(("body", "expected"), [
    # an event subscription: the generator hands on each event as it comes, and waits between them
    ("yield line", []),
    # the stream read to its first line and returned: a request, whose answer may never come
    ("return line", ["RES102"]),
    # the lines collected, nothing handed on while the stream is open
    ("print(line)", ["RES102"]),
])
def test_an_event_subscription_waits_between_events_on_purpose(body, expected):
    source = SUBSCRIBER % body
    assert [code for code, _ in findings(source)] == expected


@pytest.mark.parametrize("source", [
    # a download read in bytes: a read timeout fits it
    SUBSCRIBER.replace("aiter_lines", "aiter_bytes") % "yield line",
    # lines read once, with no reconnect around the stream: a stall there is never noticed
    "import httpx\n\nclient = httpx.Client(timeout=30)\n\n\ndef rows():\n"
    "    with client.stream('GET', '/export', timeout=None) as r:\n        for line in r.iter_lines():\n"
    "            yield line\n",
])
def test_a_stream_that_is_no_subscription_is_reported(source):
    assert [code for code, _ in findings(source)] == ["RES102"]


MODEL_HEAD = 'import httpx\nimport requests\n\nBASE = "https://api.anthropic.com"\n\n\n'


@pytest.mark.parametrize(("body", "expected"), [
    # a request whose URL's path names a model API that generates is a model call
    ("def f(base, body):\n    return requests.post(f'{base}/v1/chat/completions', json=body, timeout=120)\n", []),
    ("def f(body):\n    return requests.post(BASE + '/v1/messages', json=body, timeout=300)\n", []),
    ("def f(body):\n    return requests.post(f'{BASE}/v1/messages', json=body, timeout=301)\n",
     ["RES103 timeouts.model.max-timeout (300 s)"]),
    ("def f(base, model):\n    return requests.post(f'{base}/models/{model}:generateContent?alt=sse', timeout=240)\n", []),
    # a client built for the function's requests to a model endpoint, streamed or not
    ("async def f(body):\n    async with httpx.AsyncClient(timeout=300.0) as client:\n"
     "        return await client.post(f'{BASE}/v1/messages', content=body)\n", []),
    ("async def f(body):\n    async with httpx.AsyncClient(timeout=300.0) as client:\n"
     "        async with client.stream('POST', f'{BASE}/v1/messages', content=body) as r:\n"
     "            return await r.aread()\n", []),
    # another URL, one unknown, a request to another endpoint beside it, or a client kept: the network ceiling
    ("def f(base):\n    return requests.get(f'{base}/export', timeout=120)\n", ["RES103 max-timeout (60 s)"]),
    ("async def f(path, body):\n    async with httpx.AsyncClient(timeout=300.0) as client:\n"
     "        return await client.post(f'{BASE}/{path}', content=body)\n", ["RES103 max-timeout (60 s)"]),
    ("async def f(body):\n    async with httpx.AsyncClient(timeout=300.0) as client:\n"
     "        await client.post(f'{BASE}/v1/messages', content=body)\n"
     "        return await client.get(f'{BASE}/v1/models')\n", ["RES103 max-timeout (60 s)"]),
    ("def f():\n    return httpx.Client(timeout=300.0)\n", ["RES103 max-timeout (60 s)"]),
    # a GET of a model API reads (stored completions), and ends other APIs share are no model calls
    ("def f(base):\n    return requests.get(f'{base}/v1/chat/completions', timeout=120)\n",
     ["RES103 max-timeout (60 s)"]),
    ("def f(api, body):\n    return requests.post(f'{api}/reports/1/generate', json=body, timeout=120)\n",
     ["RES103 max-timeout (60 s)"]),
    ("def f(api, body):\n    return requests.post(f'{api}/forms/1/responses', json=body, timeout=120)\n",
     ["RES103 max-timeout (60 s)"]),
    ("def f(base, body):\n    return requests.request('POST', f'{base}/api/chat', json=body, timeout=120)\n", []),
    # a URL whose query is appended later keeps its path; a rebinding to another path does not
    ("def f(query, body):\n    url = f'{BASE}/v1/messages'\n    if query:\n        url = f'{url}?{query}'\n"
     "    return requests.post(url, json=body, timeout=300)\n", []),
    ("def f(query, body):\n    url = f'{BASE}/v1/messages'\n    if query:\n        url = f'{BASE}/v1/messages/count_tokens'\n"
     "    return requests.post(url, json=body, timeout=300)\n", ["RES103 max-timeout (60 s)"]),
    ("def f(query, body):\n    url = f'{BASE}/v1/messages'\n    if query:\n        url = f'{url}/batches'\n"
     "    return requests.post(url, json=body, timeout=300)\n", ["RES103 max-timeout (60 s)"]),
    # a nested generator's client sends to the enclosing function's URL
    ("async def f(query, body):\n    url = f'{BASE}/v1/messages'\n    if query:\n        url = f'{url}?{query}'\n"
     "    async def gen():\n        async with httpx.AsyncClient(timeout=300.0) as client:\n"
     "            async with client.stream('POST', url, content=body) as r:\n"
     "                async for chunk in r.aiter_bytes():\n                    yield chunk\n"
     "    return gen()\n", []),
    # a configured endpoint with a model API's URL as its default; a module constant built by a sum
    ("CODEX = 'https://chatgpt.com/backend-api/codex/responses'\n"
     "def f(config, body):\n    endpoint = config.endpoint or CODEX\n"
     "    return requests.post(endpoint, json=body, timeout=120)\n", []),
    ("CODEX = 'https://chatgpt.com/backend-api/codex/responses'\n"
     "def f(config, body):\n    endpoint = CODEX or config.endpoint\n"
     "    return requests.post(endpoint, json=body, timeout=120)\n", ["RES103 max-timeout (60 s)"]),
    # a URL kept on self by the constructor, and an embeddings endpoint
    ("class Embedder:\n    def __init__(self, url=None):\n        self.url = 'https://api.jina.ai/v1/embeddings'\n"
     "    def embed(self, texts):\n        return requests.post(self.url, json={'input': texts}, timeout=180)\n", []),
    ("class Embedder:\n    def __init__(self, url):\n        self.url = url\n"
     "    def embed(self, texts):\n        return requests.post(self.url, json={'input': texts}, timeout=180)\n",
     ["RES103 max-timeout (60 s)"]),
    ("def f(other, texts):\n    return requests.post(other.url, json={'input': texts}, timeout=180)\n",
     ["RES103 max-timeout (60 s)"]),
    ("MESSAGES = BASE + '/v1/messages'\n"
     "def f(body):\n    return requests.post(MESSAGES, json=body, timeout=300)\n", []),
])
def test_a_plain_http_request_to_a_model_endpoint_is_a_model_call(body, expected):
    linter = Linter(Settings(root=Path(".")))
    found, errors = linter.lint_text(MODEL_HEAD + body, "m.py")
    assert errors == []
    assert [f"{f.code} {f.message.split('above ', 1)[1].split(':', 1)[0]}" for f in found] == expected


def test_the_fix_for_a_model_request_inserts_the_model_default():
    source = MODEL_HEAD + "def f(base, body):\n    return requests.post(f'{base}/v1/chat/completions', json=body)\n"
    fixed = fix_text(Linter(Settings(root=Path("."))), source, "m.py", unsafe=True).text
    assert "requests.post(f'{base}/v1/chat/completions', json=body, timeout=120)" in fixed


@pytest.mark.parametrize(("body", "read_s"), [
    # an SQS client may long-poll, by a call's WaitTimeSeconds or the queue's own attribute (20 s at
    # most): its read timeout outlasts that wait by the default, however the client is used
    ("def consume():\n    sqs = boto3.client('sqs')\n    sqs.receive_message(QueueUrl='q', WaitTimeSeconds=20)\n", 30),
    ("SQS = boto3.client('sqs')\n", 30),
    ("class Consumer:\n    def __init__(self):\n        self.sqs = boto3.client(service_name='sqs')\n", 30),
    # another service: the default alone
    ("def send():\n    sns = boto3.client('sns')\n", 10),
])
def test_the_fix_on_a_long_polling_client_outlasts_its_longest_wait(body, read_s):
    source = HEAD + body
    # a 30 s ceiling reports botocore's 60 s defaults
    settings = settings_from_table({"max-timeout": 30}, Path("."), None)
    fixed = fix_text(Linter(settings), source, "m.py", unsafe=True).text
    assert f"config=Config(connect_timeout=10, read_timeout={read_s}))" in fixed


def test_botocore_defaults_are_named_phase_by_phase_and_a_partial_config_fix_outlasts_long_polls():
    lower = settings_from_table({"max-timeout": 30}, Path("."), None)
    body = ("q = boto3.client('sqs', config=Config(connect_timeout=5))\n"
            "s = boto3.client('s3', config=Config(retries={'mode': 'standard'}))\n")
    [(_, read_only), (_, both)] = findings(body, lower)
    assert "leaves the default 60 s read in place, above max-timeout (30 s)" in read_only
    assert "leaves the defaults 60 s connect and 60 s read in place, above max-timeout (30 s)" in both
    fixed = fix_text(Linter(lower), HEAD + body, "m.py", unsafe=True).text
    # SQS long polls hold a read up to 20 s: the read timeout a fix adds outlasts that by the default 10 s
    assert "Config(connect_timeout=5, read_timeout=30)" in fixed
    assert "Config(retries={'mode': 'standard'}, connect_timeout=10, read_timeout=10)" in fixed


def test_retry_arithmetic_counts_botocore_defaults_as_120_s_per_attempt():
    body = ("from tenacity import retry, stop_after_attempt\n\n"
            "s3 = boto3.client('s3')\n\n\n"
            "@retry(stop=stop_after_attempt(3))\n"
            "def fetch(key):\n"
            "    return s3.get_object(Bucket='b', Key=key)\n")
    found = dict(findings(body))
    assert "RES101" not in found  # each default wait is within the 60 s ceiling
    assert "3 attempts × 120 s" in found["RES202"]
