"""Numbers one module of the project binds and another reads (``from .settings import
BASE_DELAY``): the project pass lints the reader again with the values known, so waits, attempt
counts and timeouts from another module are judged as if they were written in place."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.config import load_settings
from reslint.engine.runner import Runner

RETRIES = '''\
    import time

    import requests

    from shop import settings
    from shop.settings import BASE_DELAY, MAX_ATTEMPTS


    def push(url):
        for attempt in range(MAX_ATTEMPTS):
            try:
                return requests.get(url, timeout=5)
            except requests.ConnectionError:
                time.sleep(BASE_DELAY ** attempt)


    def pull(url):
        for attempt in range(settings.MAX_ATTEMPTS):
            try:
                return requests.get(url, timeout=5)
            except requests.ConnectionError:
                time.sleep(settings.BASE_DELAY * 2 ** attempt)
    '''


def write(root: Path, files) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture()
def shop(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/settings.py": "BASE_DELAY = 2\nMAX_ATTEMPTS = 5\n",
                     "shop/sync.py": RETRIES})
    return tmp_path


def findings(root: Path, paths=None, use_cache: bool = True):
    run = Runner(load_settings(root), use_cache=use_cache).run(paths or [root])
    return sorted((f.filename, f.location.row, f.code, f.message) for r in run.results for f in r.findings)


def codes(found):
    return [(name, row, code) for name, row, code, _ in found]


def test_waits_and_attempts_read_from_another_module_are_known(shop):
    found = findings(shop, use_cache=False)
    assert codes(found) == [("shop/sync.py", 10, "RES202"), ("shop/sync.py", 14, "RES201"),
                            ("shop/sync.py", 18, "RES202"), ("shop/sync.py", 22, "RES201")]
    messages = {row: message for _, row, code, message in found if code == "RES202"}
    # 5 attempts × (5 + 5) s; waits 1 + 2 + 4 + 8 + 16 s (2 ** attempt, the last failed attempt sleeps too)
    assert "worst case 5 attempts × 10 s + up to 31 s of waits = 81 s" in messages[10]
    assert "worst case 5 attempts × 10 s + up to 62 s of waits = 112 s" in messages[18]


def test_every_module_reading_the_same_constant_is_linted_again(shop):
    # the second reader of a name the first already asked for is read with it known too
    write(shop, {"shop/pull.py": RETRIES})
    found = codes(findings(shop, use_cache=False))
    expected = [(10, "RES202"), (14, "RES201"), (18, "RES202"), (22, "RES201")]
    assert found == [("shop/pull.py", row, code) for row, code in expected] + \
        [("shop/sync.py", row, code) for row, code in expected]


def test_without_the_other_module_nothing_is_guessed(shop):
    (shop / "shop" / "settings.py").unlink()
    assert findings(shop, use_cache=False) == []


def test_a_run_on_the_reader_alone_sees_the_values_and_a_change_to_them(shop):
    whole = findings(shop)
    assert findings(shop, [shop / "shop" / "sync.py"]) == whole  # pre-commit, cache warm
    (shop / "shop" / "settings.py").write_text("BASE_DELAY = 1\nMAX_ATTEMPTS = 2\n", encoding="utf-8")
    # 2 attempts × 10 s + 1 + 1 s of waits: within max-retry-time; the sleeps stay deterministic
    after = findings(shop, [shop / "shop" / "sync.py"])
    assert codes(after) == [("shop/sync.py", 14, "RES201"), ("shop/sync.py", 22, "RES201")]
    assert findings(shop) == after


def test_a_re_exported_constant_is_followed(shop):
    write(shop, {"shop/__init__.py": "from .settings import BASE_DELAY, MAX_ATTEMPTS\n",
                 "shop/sync.py": RETRIES.replace("from shop.settings import", "from shop import")})
    assert codes(findings(shop, use_cache=False))[:2] == [("shop/sync.py", 10, "RES202"),
                                                          ("shop/sync.py", 14, "RES201")]


@pytest.mark.parametrize("settings", [
    "BASE_DELAY = 2\nMAX_ATTEMPTS = 5\nif DEBUG:\n    MAX_ATTEMPTS = 1\n",  # bound twice: unknown
    "BASE_DELAY = 2\nMAX_ATTEMPTS = 5\nMAX_ATTEMPTS += 1\n",
    "BASE_DELAY = 2\nMAX_ATTEMPTS = int(os.environ['ATTEMPTS'])\n",  # computed: unknown
    "BASE_DELAY = 2\nMAX_ATTEMPTS = 10 ** 100\n",  # no count anyone reads
])
def test_names_not_bound_once_to_a_number_stay_unknown(shop, settings):
    (shop / "shop" / "settings.py").write_text(settings, encoding="utf-8")
    found = codes(findings(shop, use_cache=False))
    assert ("shop/sync.py", 10, "RES202") not in found and ("shop/sync.py", 18, "RES202") not in found


def test_a_timeout_constant_of_another_module_is_judged(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/settings.py": "HTTP_TIMEOUT = 900\nSHORT = 5\n",
                     "shop/client.py": '''\
        import requests

        from shop.settings import HTTP_TIMEOUT, SHORT


        def fetch(url):
            return requests.get(url, timeout=HTTP_TIMEOUT)


        def ping(url):
            return requests.get(url, timeout=SHORT)
        '''})
    found = findings(tmp_path, use_cache=False)
    assert codes(found) == [("shop/client.py", 7, "RES103")]
    assert "allows 900 s (`HTTP_TIMEOUT`)" in found[0][3]


def test_a_name_from_outside_the_project_is_not_a_project_constant(tmp_path):
    # `from requests import codes` is no module of the project: nothing is looked up or linted again
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/sync.py": '''\
        import time

        import requests
        from requests.adapters import DEFAULT_RETRIES


        def push(url):
            for attempt in range(DEFAULT_RETRIES + 3):
                try:
                    return requests.get(url, timeout=5)
                except requests.ConnectionError:
                    time.sleep(2 ** attempt)
        '''})
    assert codes(findings(tmp_path, use_cache=False)) == [("shop/sync.py", 12, "RES201")]


def test_only_a_retry_asks_another_module_for_a_constant(tmp_path):
    # a data loop over range(N_PAGES) and an exception tuple are no reason to read another module;
    # the retry loop's MAX_ATTEMPTS is, and the constants module is then read (it has no trigger of
    # its own, so the first pass skipped it)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/limits.py": "N_PAGES = 3\n",
                     "shop/settings.py": "MAX_ATTEMPTS = 9\n", "shop/pages.py": '''\
        import requests

        from shop.errors import TransientError
        from shop.limits import N_PAGES


        def pages(url):
            out = []
            for page in range(N_PAGES):
                out.append(requests.get(url, params={"page": page}, timeout=5))
            return out
        '''})
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert "shop/limits.py" not in run.parsed
    write(tmp_path, {"shop/retries.py": '''\
        import time

        import requests

        from shop.settings import MAX_ATTEMPTS


        def push(url):
            for attempt in range(MAX_ATTEMPTS):
                try:
                    return requests.get(url, timeout=5)
                except requests.ConnectionError:
                    time.sleep(1)
        '''})
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert "shop/settings.py" in run.parsed and "shop/limits.py" not in run.parsed
    found = [f for r in run.results for f in r.findings if f.code == "RES202"]
    assert [f.filename for f in found] == ["shop/retries.py"]
    assert "worst case 9 attempts × 10 s + up to 9 s of waits = 99 s" in found[0].message


def test_a_name_not_spelled_as_a_constant_is_not_looked_up(shop):
    write(shop, {"shop/settings.py": "base_delay = 2\nmax_attempts = 5\n",
                 "shop/sync.py": RETRIES.replace("BASE_DELAY", "base_delay").replace("MAX_ATTEMPTS", "max_attempts")})
    run = Runner(load_settings(shop), use_cache=False).run([shop])
    assert "shop/settings.py" not in run.parsed
    assert not [f for r in run.results for f in r.findings if f.code == "RES202"]


def test_a_module_of_many_constants_keeps_a_bounded_summary(tmp_path):
    from reslint.analysis.summary import SummaryCollector

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    many = "".join(f"FIELD_{i} = {i}\n" for i in range(SummaryCollector.MAX_CONSTANTS + 500))
    write(tmp_path, {"shop/__init__.py": "", "shop/generated.py": "import requests\n" + many + "lower = 1\n"
                     "def get(url):\n    return requests.get(url, timeout=5)\n"})
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    summary = next(r.summary for r in run.results if r.display == "shop/generated.py")
    assert len(summary.constants) == SummaryCollector.MAX_CONSTANTS
    assert summary.constants[0] == ("FIELD_0", 0.0) and all(name != "lower" for name, _ in summary.constants)


def test_the_waits_are_read_once_the_attempt_cap_is_known(tmp_path):
    # a loop whose attempt cap is unknown reads no wait: the cap comes first, then its waits, in a
    # second round; the result does not depend on another module asking for the same names
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/settings.py": "BASE_DELAY = 2\nMAX_ATTEMPTS = 5\n",
                     "shop/sync.py": '''\
        import random
        import time

        import requests

        from shop.settings import BASE_DELAY, MAX_ATTEMPTS


        def push(url):
            for attempt in range(MAX_ATTEMPTS):
                try:
                    return requests.get(url, timeout=5)
                except requests.ConnectionError:
                    time.sleep(random.uniform(0, BASE_DELAY ** attempt))
        '''})
    alone = findings(tmp_path, use_cache=False)
    assert codes(alone) == [("shop/sync.py", 10, "RES202")]
    assert "5 attempts × 10 s + up to 31 s of waits = 81 s" in alone[0][3]
    write(tmp_path, {"shop/other.py": "from shop.settings import BASE_DELAY\n"})
    assert [f for f in findings(tmp_path, use_cache=False) if f[0] == "shop/sync.py"] == alone


@pytest.mark.parametrize("change", [
    # the reader sets it from the command line: the module's literal is not what runs
    ("shop/sync.py", RETRIES + "\n\ndef main(argv):\n    settings.MAX_ATTEMPTS = int(argv[1])\n"),
    # a star import after the bindings may bind any of them again (Django's local settings)
    ("shop/settings.py", "BASE_DELAY = 2\nMAX_ATTEMPTS = 5\ntry:\n    from shop.local import *\n"
                         "except ImportError:\n    pass\n"),
])
def test_a_constant_bound_again_elsewhere_is_unknown(shop, change):
    write(shop, {change[0]: change[1]})
    found = codes(findings(shop, use_cache=False))
    assert ("shop/sync.py", 10, "RES202") not in found


def test_tuples_of_tuples_are_not_evaluated_without_end(tmp_path):
    # each level repeats the one before 30 times: 30 ** 6 leaves if evaluated in full
    levels = "".join(f"A{i} = ({', '.join([f'A{i - 1}'] * 30)},)\n" for i in range(1, 7))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    write(tmp_path, {"shop/__init__.py": "", "shop/tables.py": "import requests\nA0 = 1\n" + levels +
                     "B = A6\n\n\ndef get(url):\n    return requests.get(url, timeout=B)\n"})
    assert findings(tmp_path, use_cache=False) == []  # B is no number: unknown, never reported


def test_an_open_buffer_is_read_again_from_its_text_not_from_disk(shop):
    # the editor's unsaved text (three lines added at the top) is what the second look lints
    from reslint.server.project import Project

    sync = str(shop / "shop" / "sync.py")
    buffer = "# one\n# two\n# three\n" + (shop / "shop" / "sync.py").read_text(encoding="utf-8")
    out = Project(shop, use_cache=False).check({sync: buffer})
    rows = sorted((f.code, f.location.row) for f in out[sync].findings)
    assert rows == [("RES201", 17), ("RES201", 25), ("RES202", 13), ("RES202", 21)]
