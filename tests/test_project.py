"""The project pass (RES301), the cache, partial runs as pre-commit makes them, and `reslint graph`."""

from __future__ import annotations

import json
import os
import sys
import shutil
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from reslint.analysis.facts import WRITE_WHY
from reslint.engine.cache import CACHE_DIR_NAME
from reslint.cli import main
from reslint.config import Settings, load_settings
from reslint.engine.runner import Runner

CASES = Path(__file__).resolve().parent / "fixtures" / "cases"


@pytest.fixture()
def shop(tmp_path):
    """The shared multi-module case as a project with a pyproject.toml."""
    shutil.copytree(CASES / "nested_cross_module" / "shop", tmp_path / "shop")
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\nselect = [\"RES301\"]\n", encoding="utf-8")
    return tmp_path


def nested(run):
    return sorted((f.filename, f.location.row) for r in run.results for f in r.findings if f.code == "RES301")


def test_cross_module_chain_and_message(shop):
    run = Runner(load_settings(shop)).run([shop])
    assert nested(run) == [("shop/inventory.py", 11), ("shop/reports.py", 19)]
    finding = next(f for r in run.results for f in r.findings if f.filename == "shop/inventory.py")
    assert finding.message.startswith("retry layers multiply: stock_level (4) → fetch_json (3): up to 12 calls")
    assert [(h.filename, h.location.row) for h in finding.related] == [("shop/inventory.py", 9),
                                                                       ("shop/http_layer.py", 12)]


def test_partial_run_reuses_the_cache_and_parses_only_the_changed_file(shop):
    settings = load_settings(shop)
    first = Runner(settings).run([shop])
    assert sorted(first.parsed) == ["shop/__init__.py", "shop/http_layer.py", "shop/inventory.py", "shop/reports.py"]
    assert (shop / CACHE_DIR_NAME / "CACHEDIR.TAG").is_file()
    inventory = shop / "shop" / "inventory.py"
    inventory.write_text(inventory.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    second = Runner(settings).run([inventory])
    assert second.parsed == ["shop/inventory.py"]
    assert nested(second) == [("shop/inventory.py", 11)]


def test_partial_run_without_a_cache_still_sees_the_whole_project(shop):
    run = Runner(load_settings(shop), use_cache=False).run([shop / "shop" / "reports.py"])
    assert nested(run) == [("shop/reports.py", 19)]
    assert not (shop / CACHE_DIR_NAME).exists()


def test_corrupted_or_foreign_cache_entries_are_rebuilt(shop):
    settings = load_settings(shop)
    Runner(settings).run([shop])
    entries = sorted((shop / CACHE_DIR_NAME).rglob("*.json"))
    assert entries
    entries[0].write_bytes(b"\x80\x04garbage")
    for entry in entries[1:]:
        entry.write_bytes(entry.read_bytes()[:10])  # truncated
    run = Runner(settings).run([shop])
    assert len(run.parsed) == 4
    assert nested(run) == [("shop/inventory.py", 11), ("shop/reports.py", 19)]


def test_max_retry_layers(shop):
    (shop / "pyproject.toml").write_text("[tool.reslint]\nselect = [\"RES301\"]\nmax-retry-layers = 2\n",
                                         encoding="utf-8")
    assert nested(Runner(load_settings(shop), use_cache=False).run([shop])) == []


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_attempts_do_not_multiply_when_the_outer_retry_cannot_catch_what_the_inner_raises(tmp_path):
    # tenacity with reraise=False gives up with RetryError, which a ConnectionError-only retry does not catch
    write(tmp_path, "app.py", """\
        import requests
        from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

        T = (requests.ConnectionError, requests.Timeout)
        session = requests.Session()


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=4))
        def inner(url):
            return session.get(url, timeout=5).json()


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=4), reraise=True)
        def outer(url):
            return inner(url)


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=4), reraise=True)
        def inner_reraising(url):
            return session.get(url, timeout=5).json()


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=4), reraise=True)
        def outer2(url):
            return inner_reraising(url)
        """)
    run = Runner(Settings(root=tmp_path, select=("RES301",)), use_cache=False).run([tmp_path])
    assert nested(run) == [("app.py", 25)]


def test_suppression_and_per_file_ignores_apply_to_project_findings(shop):
    inventory = shop / "shop" / "inventory.py"
    text = inventory.read_text(encoding="utf-8").replace("# expect: RES301", "# noqa: RES301")
    inventory.write_text(text, encoding="utf-8")
    (shop / "pyproject.toml").write_text(
        '[tool.reslint]\nselect = ["RES301"]\nper-file-ignores = {"shop/reports.py" = ["RES301"]}\n', encoding="utf-8")
    assert nested(Runner(load_settings(shop), use_cache=False).run([shop])) == []


def test_project_findings_in_test_code_are_not_reported(shop):
    # a test module that retries a call into the project: its RES301 is not reported (test-ignore),
    # the project's own findings are; with test-ignore = [] it is reported
    (shop / "tests").mkdir()
    reports = (shop / "shop" / "reports.py").read_text(encoding="utf-8")
    (shop / "tests" / "test_reports.py").write_text(
        reports.replace("from . import", "from shop import").replace("from .http_layer", "from shop.http_layer"),
        encoding="utf-8")
    runner = Runner(load_settings(shop), use_cache=False)
    assert nested(runner.run([shop])) == [("shop/inventory.py", 11), ("shop/reports.py", 19)]
    (shop / "pyproject.toml").write_text('[tool.reslint]\nselect = ["RES301"]\ntest-ignore = []\n', encoding="utf-8")
    assert nested(Runner(load_settings(shop), use_cache=False).run([shop])) == [
        ("shop/inventory.py", 11), ("shop/reports.py", 19), ("tests/test_reports.py", 19)]


def graphs(root: Path):
    """``reslint graph`` run in ``root``: (Mermaid result, DOT result)."""
    old = os.getcwd()
    os.chdir(root)
    try:
        return (CliRunner().invoke(main, ["graph", "--no-cache", "."]),
                CliRunner().invoke(main, ["graph", "--no-cache", "--format", "dot", "."]))
    finally:
        os.chdir(old)


def test_graph_command(shop):
    mermaid, dot = graphs(shop)
    assert mermaid.exit_code == 0
    lines = mermaid.output.splitlines()
    assert lines[0] == "flowchart LR"
    assert '  L0["fetch_json<br/>shop/http_layer.py:12<br/>3 attempts, 20 s time cap"]' in lines
    assert "  L1 -->|x12| L0" in lines and "  L2 -->|x9| L0" in lines
    assert dot.output.startswith("digraph retry_layers {")
    assert 'L1 -> L0 [label="x12", color=red, penwidth=2];' in dot.output


def test_graph_edge_is_the_product_of_the_two_layers_it_joins(tmp_path):
    (tmp_path / "app.py").write_text(textwrap.dedent("""\
        from tenacity import retry, stop_after_attempt, wait_random_exponential, stop_after_delay


        @retry(stop=stop_after_attempt(3) | stop_after_delay(10), wait=wait_random_exponential())
        def inner():
            return 1


        @retry(stop=stop_after_attempt(3) | stop_after_delay(10), wait=wait_random_exponential())
        def middle():
            return inner()


        @retry(stop=stop_after_attempt(2) | stop_after_delay(10), wait=wait_random_exponential())
        def outer():
            return middle()
        """), encoding="utf-8")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(main, ["graph", "--isolated", "--no-cache", "app.py"])
    finally:
        os.chdir(old)
    edges = [line for line in result.output.splitlines() if "-->" in line]
    assert edges == ["  L1 -->|x9| L0", "  L2 -->|x6| L1"]  # middle (3) → inner (3); outer (2) → middle (3)


def test_cache_notices_a_new_dependency_pin(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "u.py").write_text("from urllib3.util.retry import Retry\n"
                                   "p = Retry(total=3, backoff_factor=0.5, status_forcelist=[500])\n", encoding="utf-8")

    def res201_fixes():
        runner = Runner(load_settings(tmp_path), cache_dir=tmp_path / "cache", jobs=1)
        return [f.fix is not None for r in runner.run([tmp_path / "u.py"]).results for f in r.findings
                if f.code == "RES201"]

    assert res201_fixes() == [True]  # `backoff_jitter=` exists from urllib3 2.0 on
    assert res201_fixes() == [True]  # now from the cache
    (tmp_path / "requirements.txt").write_text("urllib3==1.26.20\n", encoding="utf-8")
    assert res201_fixes() == [False]
    (tmp_path / "requirements.txt").unlink()
    assert res201_fixes() == [True]


def test_graph_labels_escape_file_names(tmp_path):
    """Mermaid renders labels as HTML and DOT labels are quoted strings: a file name with
    `<b>` or a quote must show as text, not as markup or a broken label."""
    folder = tmp_path / 'we<b>"ird'
    folder.mkdir()
    (folder / "app.py").write_text(textwrap.dedent("""\
        import tenacity


        @tenacity.retry(stop=tenacity.stop_after_attempt(3))
        def inner():
            return 1


        @tenacity.retry(stop=tenacity.stop_after_attempt(2))
        def outer():
            return inner()
        """), encoding="utf-8")
    mermaid, dot = graphs(tmp_path)
    assert mermaid.exit_code == 0 and dot.exit_code == 0, mermaid.output + dot.output
    assert "we#lt;b#gt;#quot;ird/app.py:9" in mermaid.output and "<b>" not in mermaid.output
    assert 'we<b>\\"ird/app.py:9' in dot.output


def test_a_cross_module_res402_points_at_the_retry_in_its_own_file(tmp_path):
    """The related location of a RES402 found through the call graph names the retrying
    function's file and line (not the write's file), in JSON and in SARIF."""
    import json

    from click.testing import CliRunner

    from reslint.cli import main

    write(tmp_path, "pyproject.toml", "[tool.reslint]\n")
    write(tmp_path, "helper.py", 'import requests\n\n\ndef send(x):\n    return requests.post("https://api/x", json=x, '
                                 'timeout=5)\n')
    write(tmp_path, "app.py", "from tenacity import retry, stop_after_attempt, wait_random_exponential\n\nimport helper"
                              "\n\n\n@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=10))\n"
                              "def push(order):\n    return helper.send(order)\n")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        out = CliRunner().invoke(main, ["--no-cache", "-f", "json", "."]).stdout
        sarif = CliRunner().invoke(main, ["--no-cache", "-f", "sarif", "."]).stdout
    finally:
        os.chdir(old)
    (finding,) = [f for f in json.loads(out) if f["code"] == "RES402"]
    assert finding["filename"] == "helper.py"
    assert [(r["filename"], r["location"]["row"]) for r in finding["related"]] == [("app.py", 6)]
    (result,) = [r for r in json.loads(sarif)["runs"][0]["results"] if r["ruleId"] == "RES402"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "app.py"
    assert related["physicalLocation"]["region"]["startLine"] == 6


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python accepts PEP 695 syntax")
def test_cache_notices_a_new_requires_python(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.8"\n', encoding="utf-8")
    (tmp_path / "m.py").write_text("import requests\n\n\ndef get[T](url: T):\n    return requests.get(url)\n",
                                   encoding="utf-8")

    def found():
        runner = Runner(load_settings(tmp_path), cache_dir=tmp_path / "cache", jobs=1)
        return [f.code for r in runner.run([tmp_path / "m.py"]).results for f in r.findings]

    assert found() == ["RES101"]  # Python 3.12 is allowed: LibCST's grammar reads the file
    assert found() == ["RES101"]  # now from the cache
    ceiling = f"3.{sys.version_info[1] + 1}"  # no Python newer than the running one (3.10 or 3.11)
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "p"\nrequires-python = "<{ceiling}"\n',
                                             encoding="utf-8")
    assert found() == ["RES000"]


@pytest.mark.parametrize("marker", [None, "pyproject.toml", ".git"])
def test_a_run_on_one_file_reports_the_cross_module_findings_of_the_whole_run(tmp_path, monkeypatch, marker):
    # what pre-commit runs after an edit of one module: with or without a project marker, the
    # project is the same as for `reslint check .` from that directory (with none: the directory
    # holding the top-level package)
    shutil.copytree(CASES / "nested_cross_module" / "shop", tmp_path / "shop")
    if marker == ".git":
        (tmp_path / ".git").mkdir()
    elif marker is not None:
        (tmp_path / marker).write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    whole = runner.invoke(main, ["check", "-f", "concise", "--select", "RES301", "."])
    assert "shop/inventory.py:11:12: RES301" in whole.output, whole.output
    for args in (["shop/inventory.py"], ["--no-cache", "shop/inventory.py"]):
        one = runner.invoke(main, ["check", "-f", "concise", "--select", "RES301", *args])
        assert one.exit_code == 1, one.output
        assert "shop/inventory.py:11:12: RES301 retry layers multiply: stock_level (4) → fetch_json (3)" in one.output


def test_a_package_root_stands_in_for_a_missing_project_marker(tmp_path):
    from reslint.config import find_project_root

    (tmp_path / "app" / "jobs").mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app" / "jobs" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "loose").mkdir()
    assert find_project_root(tmp_path / "app" / "jobs") == tmp_path
    assert find_project_root(tmp_path) == tmp_path  # a package right in it
    assert find_project_root(tmp_path / "loose") is None  # loose scripts: the run's root stands in


MAILER_CLIENT = """\
    import requests
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

    T = (requests.ConnectionError, requests.Timeout)
    session = requests.Session()


    @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30),
           wait=wait_random_exponential(max=5), reraise=True)
    def fetch_json(path):
        return session.get(f"https://api/{path}", timeout=5).json()
    """
MAILER = """\
    import requests
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

    from {package}client import T, fetch_json

    session = requests.Session()


    @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30),
           wait=wait_random_exponential(max=5), reraise=True)
    def recipients(list_id):
        return fetch_json(f"lists/{{list_id}}")


    def send_mail(to, body):
        return session.post("https://mail/send", json={{"to": to, "body": body}}, timeout=5)
    """
MAILER_JOBS = """\
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

    from {package}client import T
    from {package}mailer import send_mail


    @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(3) | stop_after_delay(30),
           wait=wait_random_exponential(max=5), reraise=True)
    def notify(user):
        return send_mail(user, "hi")
    """


@pytest.mark.parametrize("marker", [None, "pyproject.toml"])
@pytest.mark.parametrize("folder", ["", "app/"])
def test_a_run_on_one_file_of_loose_scripts_or_a_namespace_package_sees_the_whole_project(
        tmp_path, monkeypatch, folder, marker):
    # three modules right in the directory the run starts in (no marker: no package to find a root
    # by), or in a package without __init__.py imported as `from app.client import ...` (PEP 420):
    # the run on the edited module, its neighbours from the warm cache, reports what `check .` does
    (tmp_path / "app").mkdir()
    if marker is not None:
        write(tmp_path, marker, "[project]\nname = 'mail'\n")
    package = folder.replace("/", ".")
    write(tmp_path, f"{folder}client.py", MAILER_CLIENT)
    write(tmp_path, f"{folder}mailer.py", MAILER.format(package=package))
    write(tmp_path, f"{folder}jobs.py", MAILER_JOBS.format(package=package))
    monkeypatch.chdir(tmp_path)
    expected = [f"{folder}mailer.py:12:12: RES301 retry layers multiply: recipients (3) → fetch_json (3): up to 9 calls",
                f"{folder}mailer.py:16:12: RES402 HTTP POST in `send_mail()` runs under the notify retry (3 attempts, "
                f"through send_mail)"]

    def found(*args):
        result = CliRunner().invoke(main, ["check", "-f", "concise", "--select", "RES301,RES402", *args])
        return [line for line in result.output.splitlines() if ": RES" in line]

    whole = found(".")
    assert [line[:len(e)] for line, e in zip(whole, expected)] == expected and len(whole) == 2, whole
    mailer = tmp_path / folder / "mailer.py"
    mailer.write_text("# edited\n" + mailer.read_text(encoding="utf-8"), encoding="utf-8")
    shifted = [e.replace(":12:12:", ":13:12:").replace(":16:12:", ":17:12:") for e in expected]
    for args in ([f"{folder}mailer.py"], ["--no-cache", f"{folder}mailer.py"], ["."]):
        one = found(*args)
        assert [line[:len(e)] for line, e in zip(one, shifted)] == shifted and len(one) == 2, (args, one)


#: a module that calls mailer.send_mail under a retry of its own: read with the mail project, it
#: adds a retry to the RES402 at send_mail
RESEND = """\
    from tenacity import retry, stop_after_attempt, wait_random_exponential

    from mailer import send_mail


    @retry(stop=stop_after_attempt(5), wait=wait_random_exponential(max=5), reraise=True)
    def resend(user):
        return send_mail(user, "again")
    """


def mail_project(directory: Path, folder: str = "") -> Path:
    """The three mailer modules in ``directory / folder`` (no project marker); the mailer's path."""
    (directory / folder).mkdir(parents=True, exist_ok=True)
    package = folder.replace("/", ".")
    write(directory, f"{folder}client.py", MAILER_CLIENT)
    write(directory, f"{folder}jobs.py", MAILER_JOBS.format(package=package))
    return write(directory, f"{folder}mailer.py", MAILER.format(package=package))


def found(*args) -> list:
    """The findings of ``reslint check --no-cache ARGS`` (RES000, RES301, RES402), each as (file name,
    row, column, code, the message up to its first "; "), the same for runs started in different
    directories; a RES000's message is left out (it names the running Python)."""
    result = CliRunner().invoke(main, ["check", "-f", "json", "--no-cache", "--select", "RES000,RES301,RES402", *args])
    return [(Path(f["filename"]).name, f["location"]["row"], f["location"]["column"], f["code"],
             None if f["code"] == "RES000" else f["message"].split("; ")[0]) for f in json.loads(result.stdout)]


RECIPIENTS = ("mailer.py", 12, 12, "RES301", "retry layers multiply: recipients (3) → fetch_json (3): up to 9 calls per "
                                              "recipients call, so one failing dependency gets 9 times the load")
MAIL_FINDINGS = [RECIPIENTS, ("mailer.py", 16, 12, "RES402", "HTTP POST in `send_mail()` runs under the notify retry (3 "
                                                             f"attempts, through send_mail) with no idempotency key: {WRITE_WHY}")]


@pytest.mark.parametrize("start", ["", "other"])
def test_a_file_named_from_a_directory_without_a_project_marker_does_not_walk_that_directory(
        tmp_path, monkeypatch, start):
    # `cd /tmp && reslint check /tmp/mail/mailer.py`: the project is the mailer's directory, not the
    # directory the run starts in (above it, or beside it), whose files are not read: neither the
    # one with a syntax error nor the one that would add a retry to the RES402 at send_mail
    mailer = mail_project(tmp_path / "mail")
    write(tmp_path, "broken.py", "import requests\ndef broken(:\n")
    (tmp_path / "other").mkdir()
    write(tmp_path / "other", "broken.py", "import requests\ndef broken(:\n")
    write(tmp_path / "other", "resend.py", RESEND)
    monkeypatch.chdir(tmp_path / start)
    named = Path(os.path.relpath(mailer))
    assert found(str(named)) == MAIL_FINDINGS
    settings = load_settings(Path.cwd(), paths=[named])
    assert (settings.project_scope, settings.project_root) == (tmp_path / "mail", None)
    run = Runner(settings, use_cache=False).run([named])
    assert sorted(Path(display).name for display in run.parsed) == ["client.py", "jobs.py", "mailer.py"]
    # the whole directory, named: its files are read, and the RES402 names the other retry too
    monkeypatch.chdir(tmp_path)
    assert found(".") == [
        ("broken.py", 2, 12, "RES000", None), RECIPIENTS,
        ("mailer.py", 16, 12, "RES402", "HTTP POST in `send_mail()` runs under the notify retry (3 attempts, through "
                                        "send_mail) and the resend retry (5 attempts, through send_mail) with no "
                                        f"idempotency key: {WRITE_WHY}"),
        ("broken.py", 2, 12, "RES000", None)]


@pytest.mark.parametrize("folder", ["", "app/"])
def test_a_run_on_one_file_agrees_with_a_run_of_its_directory_from_inside_and_outside(tmp_path, monkeypatch, folder):
    # no marker: loose modules, or a directory of them imported as a namespace package (`from
    # app.client import ...`); the file's project is its directory, whichever directory the run
    # starts in, and `check .` there reads the same project
    mailer = mail_project(tmp_path / "proj", folder)
    (tmp_path / "elsewhere").mkdir()
    runs = [(mailer.parent, ["."]), (mailer.parent, ["mailer.py"]), (tmp_path, [f"proj/{folder}mailer.py"]),
            (tmp_path / "elsewhere", [str(mailer)])]
    runs_found = []
    for start, args in runs:
        monkeypatch.chdir(start)
        runs_found.append(found(*args))
    assert runs_found == [MAIL_FINDINGS] * 4


def test_the_project_of_the_paths_a_run_names(tmp_path):
    from reslint.config import project_of

    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/sub/__init__.py", "")
    module = write(tmp_path, "pkg/sub/mod.py", "")
    (tmp_path / "loose" / "deeper").mkdir(parents=True)
    script = write(tmp_path, "loose/script.py", "")
    deeper = write(tmp_path, "loose/deeper/more.py", "")
    assert project_of([module]) == tmp_path  # the directory holding the top-level package
    assert project_of([tmp_path / "pkg" / "sub"]) == tmp_path
    assert project_of([script]) == tmp_path / "loose"  # a loose module: its own directory
    assert project_of([tmp_path / "loose"]) == tmp_path / "loose"
    assert project_of([script, deeper]) == tmp_path / "loose"  # the outer one holds the other
    assert project_of([module, script]) == tmp_path
    assert project_of([deeper, module]) == tmp_path
    assert project_of([script, tmp_path / "pkg" / "sub"]) == tmp_path
    assert project_of([deeper, tmp_path / "elsewhere.py"]) == tmp_path / "loose" / "deeper"  # missing: left out
    assert project_of([tmp_path / "nothing.py"]) is None
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert project_of([write(tmp_path, "a/x.py", ""), write(tmp_path, "b/y.py", "")]) is None  # unrelated places


def test_namespace_names_from_the_project_root(tmp_path):
    from reslint.semantics.prefilter import namespace_name

    (tmp_path / "app" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "my-scripts").mkdir()
    root = str(tmp_path)
    assert namespace_name(str(tmp_path / "app" / "mailer.py"), root) == "app.mailer"
    assert namespace_name(str(tmp_path / "app" / "sub" / "m.py"), root) == "app.sub.m"
    assert namespace_name(str(tmp_path / "src" / "pkg" / "mod.py"), root) == "src.pkg.mod"
    assert namespace_name(str(tmp_path / "src" / "pkg" / "__init__.py"), root) == "src.pkg"
    assert namespace_name(str(tmp_path / "mailer.py"), root) is None  # its name already
    assert namespace_name(str(tmp_path / "my-scripts" / "m.py"), root) is None  # not importable so
    assert namespace_name(str(tmp_path / "app" / "mailer.py"), str(tmp_path / "src")) is None  # outside the root


def test_the_runner_names_every_module_of_a_directory_alike_and_forgets_a_changed_layout(tmp_path):
    from types import SimpleNamespace

    from reslint.config import Settings
    from reslint.engine.runner import Runner
    from reslint.semantics.prefilter import namespace_name

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app").mkdir()
    runner = Runner(Settings(root=tmp_path, project_root=tmp_path, project_scope=tmp_path), use_cache=False)
    for path in ("src/pkg/mod.py", "src/pkg/__init__.py", "src/pkg/other.py", "app/mailer.py", "top.py"):
        expected = namespace_name(str(tmp_path / path), str(tmp_path))
        assert runner.other_names(SimpleNamespace(path=path)) == ((expected,) if expected else ())
    assert runner.other_names(SimpleNamespace(path="app/mailer.py")) == ("app.mailer",)
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")  # app becomes a package
    assert runner.other_names(SimpleNamespace(path="app/mailer.py")) == ("app.mailer",)  # remembered
    runner.forget_layout()
    assert runner.other_names(SimpleNamespace(path="app/mailer.py")) == ()  # its own name now: app.mailer


def test_a_namespace_module_the_prefilter_skipped_is_loaded_by_the_name_it_is_imported_by(tmp_path):
    (tmp_path / "app").mkdir()
    write(tmp_path, "app/client.py", MAILER_CLIENT)
    write(tmp_path, "app/util.py", """\
        from app.client import fetch_json


        def lists(list_id):
            return fetch_json(f"lists/{list_id}")
        """)
    write(tmp_path, "app/mailer.py", """\
        from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

        from app.client import T
        from app.util import lists


        @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4),
               wait=wait_random_exponential(max=5), reraise=True)
        def recipients(list_id):
            return lists(list_id)
        """)
    run = Runner(Settings(root=tmp_path, select=("RES301",)), use_cache=False).run([tmp_path])
    assert nested(run) == [("app/mailer.py", 10)]
    (finding,) = [f for r in run.results for f in r.findings]
    assert finding.message.startswith("retry layers multiply: recipients (4) → fetch_json (3): up to 12 calls")
    assert [(h.filename, h.location.row) for h in finding.related] == [("app/mailer.py", 7), ("app/client.py", 8)]
    # skipped by the prefilter: summarised when the chain reached it by the name it is imported by
    assert [r.skipped for r in run.results if r.display == "app/util.py"] == [True]


SHARED_DECORATOR = """\
    import requests
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

    session = requests.Session()
    R = retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5),
              retry=retry_if_exception_type(requests.ConnectionError), reraise=True)


    class C:
        @{R}
        def get_item(self, i):
            return session.get(f"https://x/{{i}}", timeout=5)

        @{R}
        def get_all(self, ids):
            return [self.get_item(i) for i in ids]

        def clean(self, ids):
            return [self.get_item(i) for i in ids]
    """


@pytest.mark.parametrize("spelled", ["R", "retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), "
                                          "retry=retry_if_exception_type(requests.ConnectionError), reraise=True)"])
def test_a_decorator_bound_once_is_a_layer_per_function_it_decorates(tmp_path, spelled):
    # `R = retry(...)` applied as `@R` to two methods: each is its own layer, named by the method and
    # placed at its decorator, as the same retry spelled inline on each
    write(tmp_path, "app.py", SHARED_DECORATOR.format(R=spelled))
    run = Runner(Settings(root=tmp_path, select=("RES301",)), use_cache=False).run([tmp_path])
    (finding,) = [f for r in run.results for f in r.findings]
    assert (finding.location.row, finding.location.column) == (16, 17)
    assert finding.message.startswith("retry layers multiply: get_all (3) → get_item (3): up to 9 calls per get_all "
                                      "call")
    assert [(h.location.row, h.location.column, h.message) for h in finding.related] == [
        (14, 6, "get_all: 3 attempts (tenacity)"), (10, 6, "get_item: 3 attempts (tenacity)")]


def test_a_write_two_retries_reach_across_modules_names_both(tmp_path, monkeypatch):
    """One RES402 at the write, naming each retry that reaches it through calls (a decorator in one
    module, a loop in another), each a related location in JSON and SARIF; a retry of errors raised
    before the request was sent is left out."""
    import json

    write(tmp_path, "pyproject.toml", "[tool.reslint]\n")
    write(tmp_path, "mailer.py", """\
        import requests

        session = requests.Session()


        def send_mail(to, body):
            return session.post("https://mail/send", json={"to": to, "body": body}, timeout=5)
        """)
    write(tmp_path, "jobs.py", """\
        import requests
        from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

        from mailer import send_mail


        @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), reraise=True)
        def notify(user):
            return send_mail(user, "hi")


        @retry(retry=retry_if_exception_type(requests.ConnectTimeout), stop=stop_after_attempt(3),
               wait=wait_random_exponential(max=5), reraise=True)
        def notify_unsent(user):
            return send_mail(user, "hi")
        """)
    write(tmp_path, "digest.py", """\
        import random
        import time

        import requests

        from mailer import send_mail


        def digest(user):
            for attempt in range(5):
                try:
                    return send_mail(user, "digest")
                except requests.ConnectionError:
                    time.sleep(random.uniform(0, 2 ** attempt))
        """)
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["--no-cache", "-f", "json", "--select", "RES402", "."]).stdout
    sarif = CliRunner().invoke(main, ["--no-cache", "-f", "sarif", "--select", "RES402", "."]).stdout
    (finding,) = json.loads(out)
    assert (finding["filename"], finding["location"]["row"]) == ("mailer.py", 7)
    assert finding["message"].startswith(
        "HTTP POST in `send_mail()` runs under the digest retry loop (5 attempts, through send_mail) and the notify "
        "retry (3 attempts, through send_mail) with no idempotency key: ")
    assert [(r["filename"], r["location"]["row"], r["message"]) for r in finding["related"]] == [
        ("digest.py", 10, "digest retry loop: 5 attempts"), ("jobs.py", 7, "notify: 3 attempts")]
    (result,) = json.loads(sarif)["runs"][0]["results"]
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in result["relatedLocations"]] == [("digest.py", 10), ("jobs.py", 7)]


#: a module with a retried function, a retry that calls it, and a retry loop at module level that
#: calls it too: three layers of its own, two nestings (rows 12 and 16)
SUMMARISE = """\
    import requests
    from tenacity import retry, stop_after_attempt, wait_random_exponential

    session = requests.Session()

    @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), reraise=True)
    def summarise(t):
        return session.get(f"https://x/s/{t}", timeout=5)

    @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), reraise=True)
    def outer(t):
        return summarise(t)

    for attempt in range(3):
        try:
            summarise(1)
            break
        except requests.ConnectionError:
            pass
    """
#: another module of the same name: no retry of its own
PLAIN_SUMMARISE = """\
    import requests


    def summarise(t):
        return requests.get(f"https://x/s/{t}", timeout=5)
    """
SUMMARISE_USER = """\
    from tenacity import retry, stop_after_attempt, wait_random_exponential

    from {module} import summarise


    @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), reraise=True)
    def run(t):
        return summarise(t)
    """


@pytest.mark.parametrize(("first", "second", "user", "module"), [
    ("b/example.py", "z/example.py", "b/main.py", "example"),  # loose modules of one name
    ("x/__init__.py", "x.py", "main.py", "x"),  # a package and a module of one name
    ("a/x/__init__.py", "a/x.py", "a/main.py", "x"),
    ("a/x.py", "a/x/__init__.py", "a/main.py", "x"),
])
def test_two_modules_of_one_name_are_kept_apart(tmp_path, first, second, user, module):
    # each module's own calls are followed; an import of the name they share is not (which one it
    # finds depends on how the importing code is run), and their call sites are never mixed (a call
    # site of one was read with the other's retry layers: IndexError)
    write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\n")
    for name in (first, second, user):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    # a module beside a package of its name is loaded by path here, so it is checked (a shadowed
    # module nothing loads reports nothing: tests/test_shadowed_modules.py)
    write(tmp_path, "loader.py", "LEGACY = 'x.py'\n")
    write(tmp_path, first, SUMMARISE)
    write(tmp_path, second, PLAIN_SUMMARISE)
    write(tmp_path, user, SUMMARISE_USER.format(module=module))
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert (run.errors, nested(run)) == ([], [(first, 12), (first, 16)])
    # with one module of that name, the import is followed
    (tmp_path / second).unlink()
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert (run.errors, nested(run)) == ([], sorted([(first, 12), (first, 16), (user, 8)]))


def test_two_modules_of_one_name_are_kept_apart_when_both_retry(tmp_path):
    write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\n")
    for folder in ("b", "z"):
        (tmp_path / folder).mkdir()
        write(tmp_path, f"{folder}/example.py", SUMMARISE)
    write(tmp_path, "b/main.py", SUMMARISE_USER.format(module="example"))
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert (run.errors, nested(run)) == ([], [("b/example.py", 12), ("b/example.py", 16), ("z/example.py", 12),
                                              ("z/example.py", 16)])
    findings = {(f.filename, f.location.row): f for r in run.results for f in r.findings if f.code == "RES301"}
    assert [(h.filename, h.location.row) for h in findings[("z/example.py", 12)].related] == [
        ("z/example.py", 10), ("z/example.py", 6)]


HELPER = """\
    from client import fetch_json


    def lists(list_id):
        return fetch_json(f"lists/{list_id}")
    """
HELPER_USER = """\
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

    from client import T
    from helper import lists


    @retry(retry=retry_if_exception_type(T), stop=stop_after_attempt(4), wait=wait_random_exponential(max=5),
           reraise=True)
    def recipients(list_id):
        return lists(list_id)
    """


@pytest.mark.parametrize("twin", [True, False])
def test_a_module_name_two_skipped_modules_have_is_not_followed(tmp_path, twin):
    # the helper is summarised on demand (the prefilter skipped it); with a second module of that
    # name, neither is loaded
    write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\n")
    for folder in ("b", "z"):
        (tmp_path / folder).mkdir()
    write(tmp_path, "b/client.py", MAILER_CLIENT)
    write(tmp_path, "b/helper.py", HELPER)
    write(tmp_path, "b/mailer.py", HELPER_USER)
    if twin:
        write(tmp_path, "z/helper.py", HELPER.replace("lists/", "other/"))
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert (run.errors, nested(run)) == ([], [] if twin else [("b/mailer.py", 10)])


def test_a_package_function_named_like_its_submodule_is_not_that_module_s_code(tmp_path):
    # `pkg.sub` is a function of pkg/__init__.py and the module pkg/sub.py, whose retry loop at module
    # level was read as that function's call (with the package's retry layers: IndexError)
    write(tmp_path, "pyproject.toml", "[project]\nname = 'p'\n")
    (tmp_path / "pkg").mkdir()
    write(tmp_path, "pkg/__init__.py", """\
        import requests
        from tenacity import retry, stop_after_attempt, wait_random_exponential


        @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5), reraise=True)
        def sub(t):
            return requests.get("https://x/s", timeout=5)
        """)
    write(tmp_path, "pkg/sub.py", SUMMARISE)
    write(tmp_path, "main.py", SUMMARISE_USER.format(module="pkg").replace("summarise", "sub"))
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path])
    assert (run.errors, nested(run)) == ([], [("main.py", 8), ("pkg/sub.py", 12), ("pkg/sub.py", 16)])
