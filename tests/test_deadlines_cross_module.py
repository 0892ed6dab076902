"""RES105 across modules: a function given a time budget calls a helper of another module that
calls downstream with a fixed timeout (the project pass over module summaries)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from reslint.config import load_settings
from reslint.engine.runner import Runner
from reslint.semantics.prefilter import DEFAULT_BUDGET_PARAMETERS, BudgetCallers

CLIENT = '''\
import requests

API = "https://api.example.invalid"


def fetch_stock(sku):
    return requests.get(f"{API}/stock/{sku}", timeout=30).json()


class Catalog:
    def product(self, sku):
        return requests.get(f"{API}/products/{sku}", timeout=20).json()


def lookup(sku, timeout):
    return requests.get(f"{API}/stock/{sku}", timeout=timeout).json()


def unbounded(sku):
    return requests.get(f"{API}/stock/{sku}").json()


def poll(job):
    while True:
        if requests.get(f"{API}/jobs/{job}", timeout=1).json()["done"]:
            return
'''

VIEWS = '''\
from shop.client import Catalog, fetch_stock, lookup, poll, unbounded
from . import client


def reserve(order, timeout_s):
    return fetch_stock(order["sku"])


def reserve_by_module(order, timeout_s):
    return client.fetch_stock(order["sku"])


def show(order, timeout_s):
    return Catalog().product(order["sku"])


def _stock(order):
    return fetch_stock(order["sku"])


def through_a_local_helper(order, timeout_s):
    return _stock(order)


def reads_its_budget(order, timeout_s):
    return lookup(order["sku"], timeout_s)


def hands_it_on(order, timeout_s):
    return fetch_stock(order["sku"]) if timeout_s > 1 else None


def no_budget(order):
    return fetch_stock(order["sku"])


def callee_has_its_own_budget(order, timeout_s):
    return lookup(order["sku"], 5)


def callee_has_no_timeout(order, timeout_s):
    return unbounded(order["sku"])


def callee_polls(order, deadline):
    return poll(order["job"])


def suppressed(order, timeout_s):
    return fetch_stock(order["sku"])  # noqa: RES105
'''


def write(root: Path, files, marker: bool = True) -> None:
    if marker:
        (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def run(root: Path, paths=None, use_cache: bool = False, select=None):
    settings = load_settings(root)
    if select is not None:
        from dataclasses import replace
        settings = replace(settings, select=select)
    result = Runner(settings, use_cache=use_cache).run(paths or [root])
    assert result.errors == []
    return sorted((f.filename, f.location.row, f.code, f.message, f.related) for r in result.results
                  for f in r.findings)


@pytest.fixture()
def shop(tmp_path):
    write(tmp_path, {"shop/__init__.py": "", "shop/client.py": CLIENT, "shop/views.py": VIEWS})
    return tmp_path


def rows(found):
    return [(name, row) for name, row, code, _, _ in found if code == "RES105"]


#: the calls that leave a function ignoring its budget and reach a fixed timeout in shop/client.py
EXPECTED = [("shop/views.py", 6), ("shop/views.py", 10), ("shop/views.py", 14), ("shop/views.py", 22)]


def test_a_budget_ignored_through_another_modules_helper_is_reported_at_the_call(shop):
    assert rows(run(shop)) == EXPECTED


def test_the_message_names_the_chain_and_the_related_location_the_fixed_call(shop):
    found = {row: (message, related) for name, row, code, message, related in run(shop) if code == "RES105"}
    message, related = found[22]
    assert message == ("`through_a_local_helper` is given a time budget (`timeout_s`) but calls `_stock` → "
                       "`fetch_stock` (in `shop/client.py`), which calls `requests.get` with a fixed `timeout=30`: "
                       "when the caller gives up first, this call keeps waiting (holding a connection and a worker) "
                       "for an answer no one will read; pass the budget down and bound that call by it")
    ((where, location, text),) = [(r.filename, r.location, r.message) for r in related]
    assert (where, location.row, location.column, text) == ("shop/client.py", 7, 12,
                                                            "`requests.get` with a fixed `timeout=30`")
    assert "calls `product` (in `shop/client.py`), which calls `requests.get` with a fixed `timeout=20`" in found[14][0]


def test_json_carries_the_related_location(shop, monkeypatch):
    from click.testing import CliRunner

    from reslint.cli import main

    monkeypatch.chdir(shop)
    out = CliRunner().invoke(main, ["check", "shop/views.py", "--no-cache", "--output-format", "json",
                                    "--select", "RES105"])
    assert out.exit_code == 1, out.output
    findings = json.loads(out.output)
    assert [(f["location"]["row"], f["related"][0]["filename"], f["related"][0]["location"]["row"])
            for f in findings] == [(6, "shop/client.py", 7), (10, "shop/client.py", 7), (14, "shop/client.py", 12),
                                   (22, "shop/client.py", 7)]


@pytest.mark.parametrize("use_cache", [False, True])
def test_a_run_on_the_caller_alone_reports_the_same(shop, use_cache):
    whole = rows(run(shop, use_cache=use_cache))
    assert rows(run(shop, [shop / "shop" / "views.py"], use_cache=use_cache)) == whole == EXPECTED
    assert rows(run(shop, [shop / "shop" / "client.py"], use_cache=use_cache)) == []


def test_the_same_without_a_project_marker(tmp_path):
    write(tmp_path, {"shop/__init__.py": "", "shop/client.py": CLIENT, "shop/views.py": VIEWS}, marker=False)
    assert rows(run(tmp_path, [tmp_path / "shop" / "views.py"])) == EXPECTED


def test_with_only_res105_selected(shop):
    assert rows(run(shop, select=("RES105",))) == EXPECTED


def test_fixing_the_helper_clears_the_callers_finding(shop):
    assert rows(run(shop, use_cache=True)) == EXPECTED
    (shop / "shop" / "client.py").write_text(CLIENT.replace("timeout=30", "timeout=timeout_s").replace(
        "def fetch_stock(sku):", "def fetch_stock(sku, timeout_s=5):"), encoding="utf-8")
    assert rows(run(shop, use_cache=True)) == [("shop/views.py", 14)]


def test_a_caller_module_importing_no_known_library_is_parsed_only_when_it_could_hold_one(shop):
    # the budget word and a helper's name are both needed: here the module never names one
    write(shop, {"shop/other.py": "from shop import client\n\n\ndef f(order, timeout_s):\n"
                                  "    return client.lookup(order, timeout_s)\n"})
    runner = Runner(load_settings(shop), use_cache=False)
    runner.run([shop])
    assert "shop/views.py" in runner.parsed and "shop/other.py" not in runner.parsed


@pytest.mark.parametrize("text, matched", [
    ("from shop.client import fetch_stock\n\ndef f(x, timeout_s):\n    return fetch_stock(x)\n", True),
    ("from shop import client\n\ndef f(x, request_timeout):\n    return client.fetch_stock(x)\n", True),
    ("from . import fetch_stock\n\ndef f(x, Deadline):\n    return fetch_stock(x)\n", True),
    # no budget word; no import of the module or the function; the function never spelled; no def
    ("from shop.client import fetch_stock\n\ndef f(x, attempts):\n    return fetch_stock(x)\n", False),
    ("from shop.other import helper\n\ndef f(x, timeout_s):\n    return fetch_stock(x)\n", False),
    ("from shop import client\n\ndef f(x, timeout_s):\n    return client.lookup(x, timeout_s)\n", False),
    ("from shop.client import fetch_stock\ntimeout = 5\nfetch_stock(1)\n", False),
])
def test_the_text_shape_of_a_module_that_may_call_a_fixed_timeout_helper_with_a_budget(text, matched):
    shape = BudgetCallers(DEFAULT_BUDGET_PARAMETERS, {"client"}, {"fetch_stock"})
    assert shape.search(text) is matched


def test_a_character_set_pattern_keeps_the_text_shape_a_superset():
    text = "from shop.client import fetch_stock\n\ndef f(x, tall):\n    return fetch_stock(x)\n"
    assert BudgetCallers(["t[ao]ll"], {"client"}, {"fetch_stock"}).search(text)
    assert not BudgetCallers(["time_budget"], {"client"}, {"fetch_stock"}).search(text)
    assert not BudgetCallers(DEFAULT_BUDGET_PARAMETERS, {"client"}, ()).search(text)


def test_a_re_run_after_an_edit_reads_only_the_skipped_modules_whose_text_marks_allow_a_match(shop, monkeypatch):
    from reslint.engine.results import TextMarks

    write(shop, {"shop/plain.py": "from shop import client\n\n\ndef f(order):\n    return client.fetch_stock(order)\n",
                 "shop/budgeted.py": "from shop import client\n\n\ndef g(order, timeout_s):\n    return order\n"})
    assert rows(run(shop, use_cache=True)) == EXPECTED
    (shop / "shop" / "client.py").write_text(CLIENT + "# edited\n", encoding="utf-8")
    runner = Runner(load_settings(shop), use_cache=True)
    read = []
    real_open = open

    def counting_open(path, *args, **kwargs):
        read.append(os.path.basename(os.fspath(path)))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counting_open)
    result = runner.run([shop])
    monkeypatch.undo()
    found = sorted((f.filename, f.location.row) for r in result.results for f in r.findings if f.code == "RES105")
    assert found == EXPECTED  # views.py, parsed by the first run, is no longer skipped
    marks = {os.path.basename(path): value for path, value in runner._marks.items()}
    # both skipped modules came back from the cache with the marks the first run found
    assert marks["plain.py"] == 0 and marks["budgeted.py"] == TextMarks.BUDGET
    assert "budgeted.py" in read and "plain.py" not in read  # no budget word in plain.py: never read


@pytest.mark.parametrize("text, expected", [
    ("def f(x, timeout_s):\n    pass\n", "BUDGET"),
    ("def f(x, Request_Deadline=3):\n    pass\n", "BUDGET"),
    ("from .celery import app\n\n@app.task(bind=True)\ndef f(self):\n    pass\n", "TASK_DECORATOR"),
    ("@shared_task\ndef f():\n    pass\n", "TASK_DECORATOR"),
    ("class WorkerSettings:\n    functions = [send]\n", "SETTINGS_LIST"),
    ("functions = [send]\nx = 'timeou'\n@property\ndef g(self):\n    pass\n", ""),
])
def test_the_text_marks_of_a_skipped_file(text, expected):
    from reslint.engine.results import TextMarks
    from reslint.semantics.prefilter import budget_cores

    marks = TextMarks.of(text, budget_cores(DEFAULT_BUDGET_PARAMETERS))
    assert marks == (getattr(TextMarks, expected) if expected else 0)
