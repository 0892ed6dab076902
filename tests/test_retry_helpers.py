"""Retry layers projects write themselves: their own retry helpers (inferred from their bodies, in
the module and across modules), retries by recursion, and helpers, timeout calls, writes, key
parameters and clients declared in ``[tool.reslint.catalog]``.

The case files under ``fixtures/helpers/`` carry ``# expect: RESnnn`` on each line that must be
reported (a folder is one project, with its ``pyproject.toml``); every other line must stay quiet,
which covers the clean counterparts (a decorator that only logs, a helper that calls once, a loop
over items, recursion without an ``except`` branch or without a counter).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reslint.cli import main
from reslint.config import ConfigError, Settings, load_settings
from reslint.engine.runner import Runner
from tests.test_cases import _expected

CASES = Path(__file__).resolve().parent / "fixtures" / "helpers"


def _run(entry: Path):
    root = entry if entry.is_dir() else entry.parent
    settings = load_settings(root) if (root / "pyproject.toml").is_file() else Settings(root=root)
    run = Runner(settings, use_cache=False).run([entry])
    assert run.errors == []
    return [f for result in run.results for f in result.findings]


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if not p.name.startswith((".", "_"))))
def test_case(case):
    entry = CASES / case
    files = [entry] if entry.is_file() else sorted(entry.rglob("*.py"))
    root = entry.parent if entry.is_file() else entry
    expected = set()
    for path in files:
        expected |= _expected(path, path.relative_to(root).as_posix())
    got = {(f.filename, f.location.row, f.code) for f in _run(entry)}
    assert got == expected


def _messages(findings, code):
    return [f.message for f in findings if f.code == code]


def test_use_site_binds_the_attempts_it_passes():
    findings = _run(CASES / "cross_module")
    nested = sorted(_messages(findings, "RES301"))
    # @retry_async(max_attempt=5) makes 5 attempts, @retry_async(max_attempt=2) two; reserve's tenacity 2
    assert any("place (5) → reserve (2): up to 10 calls" in m for m in nested), nested
    assert any("restock (2) → reserve (2): up to 4 calls" in m for m in nested), nested


def test_a_library_callable_handed_to_another_module_s_helper_is_called_in_its_retried_scope():
    # `retry_call(fn, *args, **kwargs)` calls fn(*args, **kwargs): a use's other arguments are the callable's
    findings = {(f.location.row, f.code): f for f in _run(CASES / "cross_module") if f.filename == "shop/storage.py"}
    assert sorted(findings) == [(13, "RES301"), (21, "RES402"), (29, "RES101")]
    nested = findings[(13, "RES301")]
    assert nested.message.startswith("retry layers multiply: retry_call retry (3) → boto3 client (5): up to 15 calls")
    assert [(h.filename, h.location.row) for h in nested.related] == [("shop/storage.py", 13), ("shop/storage.py", 8)]
    assert findings[(21, "RES402")].message.startswith(
        "HTTP POST runs inside the `retry_call` retry helper with no idempotency key")
    assert findings[(29, "RES101")].message.startswith(
        "`requests.get` call, which `retry_call` makes on each attempt, has no timeout: requests waits forever")


def test_same_module_factory_defaults_and_arguments(tmp_path):
    (tmp_path / "m.py").write_text(
        "import random, time, requests, tenacity\n"
        "def retrying(attempts=3):\n"
        "    def deco(fn):\n"
        "        def wrapper(*a, **k):\n"
        "            for i in range(attempts):\n"
        "                try:\n"
        "                    return fn(*a, **k)\n"
        "                except requests.ConnectionError:\n"
        "                    time.sleep(random.uniform(0, 1))\n"
        "        return wrapper\n"
        "    return deco\n"
        "@tenacity.retry(stop=tenacity.stop_after_attempt(2), reraise=True, wait=tenacity.wait_random(0, 1),\n"
        "                retry=tenacity.retry_if_exception_type(requests.ConnectionError))\n"
        "def inner():\n"
        "    return requests.get('https://x', timeout=1)\n"
        "@retrying()\n"
        "def by_default():\n"
        "    inner()\n"
        "@retrying(7)\n"
        "def positional():\n"
        "    inner()\n"
        "@retrying(attempts=1)\n"
        "def once():\n"
        "    inner()\n")
    nested = _messages(_run(tmp_path), "RES301")
    assert sorted(m.split(":")[1].strip() for m in nested) == [
        "by_default (3) → inner (2)", "positional (7) → inner (2)"]  # one attempt is no retry layer


def test_helper_faults_are_reported_once_in_the_helper():
    findings = _run(CASES / "cross_module")
    jitter = [f for f in findings if f.code == "RES201"]
    assert {f.filename for f in jitter} == {"shop/util/retry.py"}  # not at the four uses


def test_recursion_attempts_from_the_guard(tmp_path):
    (tmp_path / "m.py").write_text(
        "import random, time, requests, tenacity\n"
        "@tenacity.retry(stop=tenacity.stop_after_attempt(2), reraise=True, wait=tenacity.wait_random(0, 1),\n"
        "                retry=tenacity.retry_if_exception_type(requests.ConnectionError))\n"
        "def inner():\n"
        "    return requests.get('https://x', timeout=1)\n"
        "def up(x, attempt=0):\n"
        "    try:\n"
        "        return inner()\n"
        "    except requests.ConnectionError:\n"
        "        if attempt < 3:\n"
        "            time.sleep(random.uniform(0, 1))\n"
        "            return up(x, attempt + 1)\n"
        "        raise\n"
        "def down(x, retries=2):\n"
        "    try:\n"
        "        return inner()\n"
        "    except requests.ConnectionError:\n"
        "        if retries <= 0:\n"
        "            raise\n"
        "        time.sleep(random.uniform(0, 1))\n"
        "        return down(x, retries - 1)\n")
    nested = sorted(m.split(":")[1].strip() for m in _messages(_run(tmp_path), "RES301"))
    # attempt 0, 1, 2 call again, 3 gives up: 4 attempts; retries 2, 1 call again, 0 gives up: 3
    assert nested == ["down (3) → inner (2)", "up (4) → inner (2)"]


def test_recursion_is_not_nested_in_itself(tmp_path):
    (tmp_path / "m.py").write_text(
        "import random, time, requests\n"
        "def push(b, attempt=0):\n"
        "    try:\n"
        "        return requests.get('https://x', timeout=1)\n"
        "    except requests.ConnectionError:\n"
        "        if attempt < 3:\n"
        "            time.sleep(random.uniform(0, 1))\n"
        "            return push(b, attempt + 1)\n"
        "        raise\n")
    assert _run(tmp_path) == []  # no RES301 push → push, no RES202 from counting the recursion as work


def test_catalog_declared_attempts_param_binds_at_use(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.reslint]\n[[tool.reslint.catalog.retry-helpers]]\nname = \"lib.retrying\"\nattempts = 3\n"
        "attempts-param = \"tries\"\njitter = true\nretry-on = [\"ConnectionError\"]\n")
    (tmp_path / "m.py").write_text(
        "import random, requests, tenacity\nfrom lib import retrying\n"
        "@tenacity.retry(stop=tenacity.stop_after_attempt(2), reraise=True, wait=tenacity.wait_random(0, 1),\n"
        "                retry=tenacity.retry_if_exception_type(ConnectionError))\n"
        "def inner():\n    return requests.get('https://x', timeout=1)\n"
        "@retrying(tries=6)\ndef a():\n    inner()\n"
        "@retrying\ndef b():\n    inner()\n")
    nested = sorted(m.split(":")[1].strip() for m in _messages(_run(tmp_path), "RES301"))
    assert nested == ["a (6) → inner (2)", "b (3) → inner (2)"]


@pytest.mark.parametrize("table, error", [
    ("[tool.reslint.catalog]\nretry-helper = []\n", "unknown key `tool.reslint.catalog.retry-helper`"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\nattemps = 3\n",
     "unknown key `tool.reslint.catalog.retry-helpers[0].attemps`"),
    ("[[tool.reslint.catalog.retry-helpers]]\nattempts = 3\n", "`tool.reslint.catalog.retry-helpers[0]` needs a `name`"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a b\"\n", "retry-helpers[0].name` must be a qualified name"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\nattempts = 0\n",
     "retry-helpers[0].attempts` must be a whole number >= 1, got 0"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\nkind = \"loop\"\n",
     "retry-helpers[0].kind` must be \"decorator\" or \"caller\""),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\nmax-delay = -1\n",
     "retry-helpers[0].max-delay` must be a positive number of seconds"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\njitter = \"yes\"\n",
     "retry-helpers[0].jitter` must be true or false"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\ncallable-position = 1\n",
     "callable-position` applies to `kind = \"caller\"` only"),
    ("[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\n[[tool.reslint.catalog.retry-helpers]]\nname = \"a.b\"\n",
     "names 'a.b' twice"),
    ("[[tool.reslint.catalog.timeout-calls]]\nname = \"a.get\"\ncategory = \"web\"\n",
     "timeout-calls[0].category` must be one of network, database, model, subprocess"),
    ("[[tool.reslint.catalog.timeout-calls]]\nname = \"a.get\"\ndefault = \"forever\"\n",
     "timeout-calls[0].default` must be \"none\""),
    ("[tool.reslint.catalog]\nwrites = \"a.b\"\n", "`tool.reslint.catalog.writes` must be a list of qualified names"),
    ("[tool.reslint.catalog]\nkey-params = [1]\n", "`tool.reslint.catalog.key-params` must be a list of names"),
    ("[[tool.reslint.catalog.retrying-clients]]\nname = \"a.Api\"\nattempts = \"3\"\n",
     "retrying-clients[0].attempts` must be a whole number >= 1"),
    ("[tool.reslint.catalog]\nretry-helpers = {name = \"a.b\"}\n", "must be an array of tables"),
])
def test_catalog_errors_name_file_and_key(tmp_path, table, error):
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.reslint]\n" + table)
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    assert str(caught.value).startswith(f"{config}: ")
    assert error in str(caught.value)


def test_catalog_error_exit_status(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint.catalog]\nclients = []\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "a.py"), "--config", str(tmp_path / "pyproject.toml")])
    assert result.exit_code == 2
    assert "unknown key `tool.reslint.catalog.clients`" in result.output


def test_show_settings_lists_the_catalog(monkeypatch):
    monkeypatch.chdir(CASES / "catalog_project")
    result = CliRunner().invoke(main, ["show-settings"])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.strip().startswith("catalog"))
    assert line.rstrip().endswith("# pyproject.toml")
    for text in ('"name" = "platform.net.retrying"', '"attempts-param" = "tries"', '"kind" = "caller"',
                 '"callable-position" = 1', '"max-delay" = 20', '"writes" = ["platform.billing.charge"]',
                 '"key-params" = ["dedupe_token"]', '"name" = "platform.clients.Api"', '"name" = "platform.net.download"'):
        assert text in line, text


def test_show_settings_default_catalog_is_empty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["show-settings", "--isolated"])
    assert re.search(r"^\s*catalog = \{\}\s+# default$", result.output, re.MULTILINE), result.output


def test_catalog_changes_the_cache_key(tmp_path):
    from reslint.engine.cache import settings_fingerprint

    (tmp_path / "pyproject.toml").write_text("[tool.reslint.catalog]\nwrites = [\"a.b\"]\n")
    declared = load_settings(tmp_path)
    assert settings_fingerprint(declared) != settings_fingerprint(Settings(root=tmp_path))


def test_a_file_using_only_a_catalog_name_passes_the_prefilter(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint.catalog]\nwrites = [\"shop.ledger.append_entry\"]\n"
                                             "[[tool.reslint.catalog.retry-helpers]]\nname = \"shop.net.retrying\"\n"
                                             "attempts = 3\n")
    pkg = tmp_path / "shop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "jobs.py").write_text("from .net import retrying\nfrom . import ledger\n\n\n@retrying\n"
                                 "def book(entry):\n    ledger.append_entry(entry)\n")
    findings = _run(tmp_path)
    assert [(f.filename, f.location.row, f.code) for f in findings] == [("shop/jobs.py", 7, "RES402")]


def test_cached_rerun_gives_the_same_findings(tmp_path):
    import shutil

    project = tmp_path / "p"
    shutil.copytree(CASES / "cross_module", project)
    (project / "pyproject.toml").write_text("[tool.reslint]\n")
    settings = load_settings(project)
    first = Runner(settings, use_cache=True).run([project])
    second = Runner(settings, use_cache=True).run([project])
    key = lambda run: sorted((f.filename, f.location.row, f.code, f.message) for r in run.results for f in r.findings)
    assert key(first) == key(second)
    assert ("shop/orders.py", 12, "RES301") in {(f, r, c) for f, r, c, _ in key(second)}
    # the modules linted again under the helpers found have entries of their own in the cache
    assert len([d for d in (project / ".reslint_cache").iterdir() if d.is_dir()]) == 2


def test_recursion_in_a_file_without_triggers_passes_the_prefilter(tmp_path):
    """It imports nothing a rule looks for: the recursion's shape alone brings it to the rules."""
    (tmp_path / "convert.py").write_text(
        "import json\n\n\n"
        "class Converter:\n"
        "    def to_json(self, current_attempt=1):\n"
        "        try:\n"
        "            return json.dumps(self.llm.call(self.messages))\n"
        "        except Exception as e:\n"
        "            if current_attempt < self.max_attempts:\n"
        "                return self.to_json(\n"
        "                    current_attempt + 1,\n"
        "                )\n"
        "            raise\n")
    got = sorted((f.location.row, f.code) for f in _run(tmp_path))
    assert got == [(8, "RES204"), (10, "RES205")]


def test_text_prefilter_for_recursion():
    from reslint.semantics.prefilter import may_retry_by_recursion

    assert may_retry_by_recursion("def push(b, attempt=0):\n    try:\n        pass\n    except E:\n"
                                  "        return push(b, attempt + 1)\n")
    assert may_retry_by_recursion("def push(b, n):\n    try:\n        pass\n    except E:\n"
                                  "        return push(\n            b,\n            n - 2,\n        )\n")
    assert not may_retry_by_recursion("def push(b, attempt=0):\n    return push(b, attempt + 1)\n")  # no except
    assert not may_retry_by_recursion("import x\ntry:\n    pass\nexcept E:\n    other(n + 1)\n")  # no def called


def test_recursion_that_sleeps_in_a_helper_is_not_an_immediate_retry(tmp_path):
    """A recursion whose handler first calls a function that sleeps (imported, named for its
    sleep, or of the same module) waits before the next attempt: not RES205; the same recursion
    with no such call retries at once."""
    (tmp_path / "m.py").write_text(
        "import time, requests\n"
        "from .limits import sleep_after_rate_limit\n"
        "def pause():\n"
        "    time.sleep(60)\n"
        "def imported(url, attempt=0):\n"
        "    try:\n"
        "        return requests.get(url, timeout=5)\n"
        "    except requests.ConnectionError:\n"
        "        if attempt >= 3:\n"
        "            raise\n"
        "        sleep_after_rate_limit()\n"
        "        return imported(url, attempt + 1)\n"
        "def local(url, attempt=0):\n"
        "    try:\n"
        "        return requests.get(url, timeout=5)\n"
        "    except requests.ConnectionError:\n"
        "        if attempt >= 3:\n"
        "            raise\n"
        "        pause()\n"
        "        return local(url, attempt + 1)\n"
        "def hot(url, attempt=0):\n"
        "    try:\n"
        "        return requests.get(url, timeout=5)\n"
        "    except requests.ConnectionError:\n"
        "        if attempt >= 3:\n"
        "            raise\n"
        "        return hot(url, attempt + 1)\n")
    rows = sorted(f.location.row for f in _run(tmp_path) if f.code == "RES205")
    assert rows == [27]  # at the recursive call of `hot`


def test_a_recursion_is_reported_at_its_retry_of_faults_not_at_its_re_ask(tmp_path):
    """``except ValidationError: return self.parse(attempt + 1)`` before ``except Exception: return
    self.parse(attempt + 1)``: the immediate retry of every error is the fault, at the second call;
    a recursion that only re-asks after a reply that does not parse is no retry at all."""
    body = ("import pydantic\nimport requests\n\n\n"
            "def parse(url, attempt=1):\n"
            "    try:\n"
            "        return Model.model_validate(requests.get(url, timeout=5).json())\n"
            "    except pydantic.ValidationError:\n"
            "        if attempt < 3:\n"
            "            return parse(url, attempt + 1)\n"
            "        raise\n"
            "    except Exception:\n"
            "        if attempt < 3:\n"
            "            return parse(url, attempt + 1)\n"
            "        raise\n")
    (tmp_path / "m.py").write_text(body, encoding="utf-8")
    assert sorted((f.location.row, f.code) for f in _run(tmp_path) if f.code in ("RES204", "RES205")) == \
        [(12, "RES204"), (14, "RES205")]
    only_reasks = body.split("    except Exception:")[0]
    (tmp_path / "m.py").write_text(only_reasks, encoding="utf-8")
    assert [f.code for f in _run(tmp_path)] == []
