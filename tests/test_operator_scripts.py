"""Operator scripts (programs of the project run by hand): the timeout and retry-policy codes are
not reported in them; a script that CI or another automation file runs is checked whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reslint.engine.scripts import OperatorScripts, main_block, runs_as_program
from tests.test_cli import run

SCRIPT = ("import requests\n\n\ndef main():\n    requests.get('https://api.example.invalid/stars')\n\n\n"
          "if __name__ == \"__main__\":\n    main()\n")


def project(tmp_path: Path, files: dict) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def reported(tmp_path: Path, *args) -> str:
    result = run(["-f", "concise", "--no-cache", *args, "."], tmp_path)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.mark.parametrize("directory", ["scripts", "bin", "tools", "docs", "examples", "libraries/python/examples",
                                       "packages/site/docs", "benchmarks", "profiling", "evals/simple_evals"])
def test_the_script_directories(tmp_path, directory):
    project(tmp_path, {f"{directory}/stars.py": SCRIPT, "src/demo/stars.py": SCRIPT})
    output = reported(tmp_path)
    assert "src/demo/stars.py:5:5: RES101" in output and f"{directory}/" not in output


def test_a_script_run_by_hand_is_not_reported_and_one_ci_runs_is(tmp_path):
    project(tmp_path, {"scripts/stars.py": SCRIPT, "scripts/issues.py": SCRIPT,
                       ".github/workflows/issues.yml": "jobs:\n  triage:\n    steps:\n"
                                                        "      - run: python scripts/issues.py --yes\n"})
    output = reported(tmp_path)
    assert "scripts/issues.py:5:5: RES101" in output
    assert "stars.py" not in output


@pytest.mark.parametrize("automation", [
    ("Makefile", "stars:\n\tpython -m scripts.stars\n"),
    ("Dockerfile", "FROM python:3.12\nCMD [\"python\", \"/app/scripts/stars.py\"]\n"),
    ("crontab", "0 * * * * /srv/app/bin/stars\n"),
    (".github/workflows/ci.yaml", "steps:\n  - run: ./scripts/stars.py\n"),
    ("Dockerfile", "CMD [\"python\", \"-m\", \"scripts.stars\"]\n"),
])
def test_every_kind_of_automation_file_names_a_script(tmp_path, automation):
    name, text = automation
    directory = "bin" if "bin/" in text else "scripts"
    project(tmp_path, {f"{directory}/stars.py": SCRIPT, name: text})
    assert f"{directory}/stars.py:5:5: RES101" in reported(tmp_path)


@pytest.mark.parametrize("text, named", [
    ("steps:\n  - run: python libs/cli/examples/graphs/stars.py\n", True),  # its own path
    ("CMD [\"python\", \"/app/examples/graphs/stars.py\"]\n", True),  # under a longer one
    ("steps:\n  - run: cd examples/graphs && python stars.py\n", True),  # its name alone
    ("steps:\n  - run: python -m examples.graphs.stars\n", True),
    ("steps:\n  - run: python other/graphs2/stars.py\n", False),  # another directory's stars.py
    ("steps:\n  - run: python -m other.stars\n", False),
    ("      working-directory: libs/cli/uv-examples/apps/stars\n", False),  # a directory of that name
])
def test_a_mention_names_the_script_only_in_its_own_directories(tmp_path, text, named):
    # the other directories exist in the project: a mention of them is placed there
    for other in ("other/graphs2", "libs/cli/uv-examples/apps/stars"):
        (tmp_path / other).mkdir(parents=True)
    scripts = OperatorScripts(project(tmp_path, {".github/workflows/ci.yml": text}))
    assert scripts.named("libs/cli/examples/graphs/stars.py") is named


@pytest.mark.parametrize("text", [
    "COPY scripts /app/tools\nCMD [\"python\", \"/app/tools/stars.py\"]\n",  # copied under another name
    "script:\n  - python $SCRIPT_DIR/stars.py\n",  # a variable
])
def test_a_path_that_cannot_be_placed_in_the_project_names_the_script(tmp_path, text):
    scripts = OperatorScripts(project(tmp_path, {"Dockerfile": text}))
    assert scripts.named("scripts/stars.py")


@pytest.mark.parametrize("text", [
    "# runs for a failure in prepare/stars/post\n",  # a directory of that name, in a comment
    "steps:\n  - run: python scripts/stars_report.py\n",  # another script whose name starts the same
])
def test_a_name_that_only_looks_like_the_script_does_not_name_it(tmp_path, text):
    project(tmp_path, {"scripts/stars.py": SCRIPT, ".github/workflows/ci.yml": text})
    assert "stars.py" not in reported(tmp_path)


@pytest.mark.parametrize("name", ["deep_agents/recency_benchmark.py", "src/demo/bench_io.py",
                                  "src/demo/benchmarks.py", "benchmark.py"])
def test_a_benchmark_program_is_an_operator_script_at_any_depth(tmp_path, name):
    project(tmp_path, {name: SCRIPT, "src/demo/stars.py": SCRIPT})
    output = reported(tmp_path)
    assert "src/demo/stars.py:5:5: RES101" in output and name not in output


@pytest.mark.parametrize(("path", "text"), [
    ("src/demo/benchmark_results.py", SCRIPT.split("\n\n\nif")[0] + "\n\n\nmain()\n"),  # no main guard
    ("src/demo/benchmarking.py", SCRIPT),  # not a benchmark's name
    ("src/demo/workbench.py", SCRIPT),
    ("libs/evals/harness/judge.py", SCRIPT),  # an evaluation harness runs unattended, in many containers
    ("src/demo/cli.py", SCRIPT),  # a package's command-line tool: its users run it unattended
    (".github/scripts/milestone.py", SCRIPT),  # CI's own scripts
    (".github/scripts/notify.py", SCRIPT.split("\n\n\nif")[0] + "\n\n\nmain()\n"),
    ("lib/tools/stars.py", SCRIPT),  # deeper down, `tools` is as often a package
])
def test_what_is_no_operator_script(tmp_path, path, text):
    project(tmp_path, {path: text})
    assert f"{path}:5:5: RES101" in reported(tmp_path)


@pytest.mark.parametrize("path", [
    "scripts/stars.py",  # a flat script: it does its work at the top, with no main guard
    "backend/scripts/stars.py",  # a monorepo's scripts
    "backend/core/utils/scripts/stars.py",
    "scripts/tenant_cleanup/helpers.py",  # a helper the scripts import
])
def test_every_file_of_a_scripts_directory_at_any_depth_is_a_script(tmp_path, path):
    flat = "import requests\n\nprint(requests.get('https://api.example.invalid/stars').json())\n"
    helper = "import subprocess\n\n\ndef query(host):\n    return subprocess.run(['ssh', host, 'psql'])\n"
    project(tmp_path, {path: helper if "helpers" in path else flat, "src/demo/stars.py": SCRIPT})
    output = reported(tmp_path)
    assert "src/demo/stars.py:5:5: RES101" in output and path not in output
    (tmp_path / "Makefile").write_text(f"stars:\n\tpython {path}\n", encoding="utf-8")
    assert f"{path}:" in reported(tmp_path)  # named by an automation file: checked whole


MODULE = SCRIPT[:SCRIPT.index("if __name__")]


@pytest.mark.parametrize("path, text, hidden", [
    # a module of example code that an example program imports, or a tool loads: run by hand too
    ("examples/graphs/agent.py", MODULE, True),
    ("libs/cli/examples/graphs/agent.py", MODULE, True),  # a CLI's build fixture, at any depth
    ("example/stars.py", SCRIPT, True),  # an example program
    ("libs/cli/examples/stars.py", SCRIPT, True),
    ("cookbook/90_models/openai/audio_input_agent.py", MODULE, True),  # an agent framework's examples
    ("docs/cookbooks/agents.py", MODULE, True),
    ("cookbook/agent_os/app.py", "from fastapi import FastAPI\n\napp = FastAPI()\n" + MODULE, False),
    # an example service (a web app, a task worker) is deployed as it is: checked whole
    ("examples/server/app.py", "from fastapi import FastAPI\n\napp = FastAPI()\n" + MODULE, False),
    ("examples/gevent/tasks.py", "from celery import Celery\n\napp = Celery()\n" +
     MODULE.replace("def main():", "@app.task\ndef main():"), False),
    ("examples/server/main.py", "import uvicorn\n" + SCRIPT, False),  # a server with a main guard
    ("examples/web/app.py", "from aiohttp import web\n\napp = web.Application()\n" + MODULE, False),
    ("examples/web/main.py", "import os, fastapi\n" + MODULE, False),
    ("examples/web/routes.py", "from fastapi.responses import JSONResponse  # a route module\n" + MODULE, False),
    ("examples/rpc/serve.py", "import grpc\n\nserver = grpc.server(None)\n" + MODULE, False),
    ("examples/arq/worker.py", "from arq import Retry\n\n\nclass WorkerSettings:\n    functions = []\n" + MODULE,
     False),
    # a program that only enqueues a task or calls a gRPC service is a client, run by hand
    ("examples/producer.py", "from rq import Queue\n" + SCRIPT, True),
    ("examples/rpc/client.py", "import grpc\n\nchannel = grpc.insecure_channel('localhost:1')\n" + SCRIPT, True),
    ("examples/celery_errors.py", "from celery.exceptions import TimeoutError\n" + SCRIPT, True),
    # a package's examples subpackage ships with it, and its own code may import it
    ("src/demo/examples/loader.py", MODULE, False),
    # an import in a comment or a string, or of a package whose name only starts so, is none
    ("examples/web/notes.py", "# from flask import Flask\nNOTE = 'import celery'\nimport rqlite\n" + MODULE, True),
    # not example code: a module whose name only looks so, a directory whose name only starts so
    ("src/demo/examples.py", MODULE, False),
    ("src/demo/example_apps/stars.py", MODULE, False),
    ("demo/stars.py", MODULE, False),  # a project's own demonstration is checked
])
def test_modules_of_example_code(tmp_path, path, text, hidden):
    project(tmp_path, {path: text, "src/demo/__init__.py": ""})
    output = reported(tmp_path)
    assert (f"{path}:" not in output) is hidden, output
    if hidden:  # named by an automation file: checked whole
        (tmp_path / "Makefile").write_text(f"demo:\n\tpython {path}\n", encoding="utf-8")
        assert f"{path}:" in reported(tmp_path)


def test_the_programs_of_an_agent_skill_are_run_by_an_agent_not_by_hand(tmp_path):
    flat = "import requests\n\nprint(requests.get('https://api.example.invalid/stars').json())\n"
    project(tmp_path, {"skills/pdf/SKILL.md": "---\nname: pdf\n---\n", "skills/pdf/scripts/stars.py": flat,
                       "skills/notes/scripts/stars.py": flat})  # no SKILL.md: a scripts directory
    output = reported(tmp_path)
    assert "skills/pdf/scripts/stars.py:3:7: RES101" in output and "skills/notes/" not in output


def test_a_skill_at_the_project_root_runs_its_programs_unattended(tmp_path):
    flat = "import requests\n\nprint(requests.get('https://api.example.invalid/stars').json())\n"
    project(tmp_path, {"SKILL.md": "---\nname: stars\n---\n", "scripts/stars.py": flat})
    assert "scripts/stars.py:3:7: RES101" in reported(tmp_path)


@pytest.mark.parametrize(("packaging", "text"), [
    ("pyproject.toml", "[project]\nname = 'demo'\n\n[project.scripts]\nsync = 'demo.scripts.sync:main'\n"),
    ("pyproject.toml", "[tool.poetry.scripts]\nsync = 'demo.scripts.sync:main'\n"),
    ("pyproject.toml", "[project]\nname = 'demo'\n\n[project.entry-points.'demo.plugins']\nsync = 'demo.scripts.sync:main'\n"),
    ("setup.cfg", "[options.entry_points]\nconsole_scripts =\n    sync = demo.scripts.sync:main\n"),
    ("setup.py", "setup(entry_points={'console_scripts': ['sync = demo.scripts.sync:main']})\n"),
])
def test_a_command_the_package_ships_is_no_operator_script(tmp_path, packaging, text):
    project(tmp_path, {"src/demo/scripts/sync.py": SCRIPT, "src/demo/scripts/other.py": SCRIPT})
    (tmp_path / packaging).write_text(text, encoding="utf-8")
    output = reported(tmp_path)
    assert "src/demo/scripts/sync.py:5:5: RES101" in output and "other.py" not in output


def test_entry_modules_read_from_a_subproject(tmp_path):
    # a monorepo's subproject names its own commands: its pyproject.toml is found above the file
    project(tmp_path, {"lib/tools/src/devtools/scripts/release.py": SCRIPT,
                       "lib/tools/pyproject.toml": "[project.scripts]\nrelease = 'devtools.scripts.release:main'\n"})
    assert "lib/tools/src/devtools/scripts/release.py:5:5: RES101" in reported(tmp_path)


MODULE = ("import openai\nimport requests\n\n\ndef fetch():\n    return requests.get('https://api.example.invalid/x')\n"
          "\n\nif __name__ == \"__main__\":\n    client = openai.OpenAI()\n"
          "    print(requests.get('https://api.example.invalid/y'))\n    fetch()\n"
          "else:\n    requests.get('https://api.example.invalid/z')\n")


def test_the_main_block_of_a_module_is_run_by_hand(tmp_path):
    # the demo under the main guard is run by a person; the function it calls and the `else:`
    # branch, which runs on import, are checked
    project(tmp_path, {"src/demo/tool.py": MODULE})
    output = reported(tmp_path)
    assert "src/demo/tool.py:6:12: RES101" in output and "src/demo/tool.py:14:5: RES101" in output
    assert ":10:" not in output and ":11:" not in output
    result = run(["show-settings", "src/demo/tool.py"], tmp_path)
    assert "its `if __name__ == \"__main__\":` block (lines 9-12) is run by hand" in result.output
    (tmp_path / "Dockerfile").write_text("CMD [\"python\", \"-m\", \"demo.tool\"]\n", encoding="utf-8")
    output = reported(tmp_path)  # a container runs it: nobody watches
    assert "src/demo/tool.py:10:14: RES101" in output and "src/demo/tool.py:11:11: RES101" in output


@pytest.mark.parametrize(("text", "rows"), [
    (MODULE, (9, 12)),
    ("import x\nif __name__ == '__main__':\n    x.run()\n", (2, 3)),
    ("if __name__ == '__main__':\n    x.run(\n        1,\n    )\n\n# done\n", (1, 6)),
    ("def main():\n    pass\n", None),
])
def test_main_block_rows(text, rows):
    assert main_block(text) == rows


def test_the_idempotency_rules_still_apply_in_an_operator_script(tmp_path):
    script = ("import requests\nfrom tenacity import retry, stop_after_attempt, wait_random_exponential\n\n\n"
              "@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=5))\n"
              "def refund(order_id):\n"
              "    requests.post(f'https://pay.example.invalid/refunds/{order_id}', timeout=5)\n\n\n"
              "if __name__ == \"__main__\":\n    refund(1)\n")
    project(tmp_path, {"scripts/refund.py": script})
    output = reported(tmp_path)
    assert "scripts/refund.py:7:5: RES402" in output
    assert "RES2" not in output.replace("RES402", "")


def test_script_ignore_empty_reports_everything_and_show_settings_says_why(tmp_path):
    project(tmp_path, {"scripts/stars.py": SCRIPT, "examples/stars.py": MODULE})
    result = run(["show-settings", "scripts/stars.py"], tmp_path)
    assert "an operator script (run by hand" in result.output
    assert "example code that is no service" in run(["show-settings", "examples/stars.py"], tmp_path).output
    assert "RES101  missing-timeout            on   selected by \"RES\" (select); off in scripts/stars.py, " \
           "an operator script, by script-ignore" in result.output
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.reslint]\nscript-ignore = []\n",
                                             encoding="utf-8")
    assert "scripts/stars.py:5:5: RES101" in reported(tmp_path)


def test_the_cache_never_keeps_a_script_hidden_once_ci_runs_it(tmp_path):
    project(tmp_path, {"scripts/stars.py": SCRIPT})
    first = run(["-f", "concise", "."], tmp_path)
    assert first.exit_code == 0 and "All checks passed!" in first.output
    workflow = tmp_path / ".github" / "workflows" / "stars.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("steps:\n  - run: python scripts/stars.py\n", encoding="utf-8")
    second = run(["-f", "concise", "."], tmp_path)  # the file itself is unchanged: answered from the cache
    assert second.exit_code == 1 and "scripts/stars.py:5:5: RES101" in second.output


def test_an_automation_file_that_cannot_be_read_names_every_script(tmp_path):
    project(tmp_path, {"scripts/stars.py": SCRIPT})
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(tmp_path / "Makefile")  # reading it would block: it is not read, and hides nothing
    assert "scripts/stars.py:5:5: RES101" in reported(tmp_path)


def test_an_automation_directory_that_cannot_be_listed_names_every_script(tmp_path, monkeypatch):
    project(tmp_path, {"scripts/stars.py": SCRIPT, ".github/workflows/ci.yml": "steps: []\n"})
    real = os.listdir

    def denied(path="."):
        if os.fspath(path).endswith(os.path.join(".github", "workflows")):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", denied)
    assert OperatorScripts(tmp_path).named("stars.py")


def test_more_automation_text_than_is_read_names_every_script(tmp_path, monkeypatch):
    # a repository of many or huge workflow files: past the limit nothing is read further, and no
    # script is taken as run by hand (which hides nothing)
    import reslint.engine.scripts as scripts

    project(tmp_path, {"scripts/stars.py": SCRIPT, ".github/workflows/a.yml": "steps: []\n" * 50,
                       ".github/workflows/b.yml": "steps: []\n" * 50})
    assert "stars.py" not in reported(tmp_path)
    monkeypatch.setattr(scripts, "MAX_AUTOMATION_BYTES", 600)
    assert OperatorScripts(tmp_path).named("scripts/stars.py")


def test_with_no_project_marker_scripts_are_placed_from_where_the_run_starts(tmp_path):
    # no pyproject.toml, setup.py or .git (a checkout without its .git, a monorepo's subtree): the
    # whole run and a run of the one file agree, from the directory they start in
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "stars.py").write_text(SCRIPT, encoding="utf-8")
    (tmp_path / "app.py").write_text(SCRIPT.replace("stars", "app"), encoding="utf-8")
    whole = run(["-f", "concise", "--no-cache", "."], tmp_path).output
    one = run(["-f", "concise", "--no-cache", "scripts/stars.py"], tmp_path).output
    assert "app.py:5:5: RES101" in whole and "scripts/" not in whole and one.startswith("All checks passed!")
    # started inside the directory, the file is no script of a scripts directory: checked whole
    inside = run(["-f", "concise", "--no-cache", "stars.py"], tmp_path / "scripts").output
    assert "stars.py:5:5: RES101" in inside
    # an automation file at the start directory names it: checked whole
    (tmp_path / "Makefile").write_text("stars:\n\tpython scripts/stars.py\n", encoding="utf-8")
    assert "scripts/stars.py:5:5: RES101" in run(["-f", "concise", "--no-cache", "."], tmp_path).output


@pytest.mark.parametrize(("text", "expected"), [
    (SCRIPT, True),
    ("if __name__ == '__main__':\n    main()\n", True),
    ("def f():\n    if __name__ == '__main__':\n        pass\n", False),  # not at module level
    ("# if __name__ == '__main__':\n", False),
])
def test_runs_as_program(text, expected):
    assert runs_as_program(text) is expected


# --- programs: a long but finite timeout holds only the program's own run (program-ignore) ---------

LONG = ("import requests\n\n\ndef fetch():\n    return requests.get('https://feeds.example.invalid/all.csv', "
        "timeout=120).content\n")


def test_a_long_timeout_in_a_program_is_not_reported_wherever_it_runs(tmp_path):
    project(tmp_path, {
        "scripts/feed.py": LONG,  # a program CI runs: named by the workflow, checked whole
        ".github/workflows/feed.yml": "steps:\n  - run: python scripts/feed.py\n",
        "backend/scripts/refresh.py": LONG,
        ".github/scripts/triage.py": LONG,
        "skills/music/SKILL.md": "---\nname: music\n---\n",
        "skills/music/generate.py": LONG,
        "skills/music/lib/client.py": LONG,  # under the skill, below its directory
        "src/demo/feed.py": LONG,  # the package's own code: a worker of a service may run it
        "src/demo/__init__.py": "",
        "src/demo/sync.py": LONG + "\n\nif __name__ == \"__main__\":\n    fetch()\n",  # a module of it, too
        "backend/onyx/__init__.py": "",
        # a program in a directory that is no package, inside one: the package's data, not its code
        "backend/onyx/skills/mail/mail_api.py": LONG + "\n\nif __name__ == \"__main__\":\n    fetch()\n",
        "backend/app/app.py": "import flask\n" + LONG + "\n\nif __name__ == \"__main__\":\n    fetch()\n",
        "skills/music/server.py": "from fastapi import FastAPI\n" + LONG,  # a service, wherever it is
    })
    output = reported(tmp_path)
    assert "src/demo/feed.py:5:12: RES103" in output
    assert "skills/music/server.py:6:12: RES103" in output
    assert "src/demo/sync.py:5:12: RES103" in output
    assert "backend/app/app.py:6:12: RES103" in output
    assert output.count("RES103") == 4, output


def test_a_program_still_reports_a_call_with_no_timeout_and_program_ignore_is_a_setting(tmp_path):
    missing = "import requests\n\n\ndef fetch():\n    return requests.get('https://feeds.example.invalid/all.csv')\n"
    project(tmp_path, {"scripts/feed.py": LONG, "scripts/stale.py": missing,
                       ".github/workflows/feed.yml": "steps:\n  - run: python scripts/feed.py scripts/stale.py\n"})
    assert "scripts/stale.py:5:12: RES101" in reported(tmp_path)  # a hang with nobody watching: still one
    shown = run(["show-settings", "scripts/feed.py"], tmp_path).output
    assert 'a program (in a script directory, CI\'s .github/ or an agent skill, or run as one in a ' \
           'package\'s data, and no service), run to completion whoever starts it: program-ignore = ["RES103"] applies' in shown
    assert "RES103  excessive-timeout          on   selected by \"RES\" (select); off in scripts/feed.py, " \
           "a program, by program-ignore" in shown
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.reslint]\nprogram-ignore = []\n",
                                             encoding="utf-8")
    assert "scripts/feed.py:5:12: RES103" in reported(tmp_path)
    assert "program-ignore" not in run(["show-settings", "scripts/feed.py"], tmp_path).output.split("Path:")[1]


def test_is_program_needs_the_text_and_a_root(tmp_path):
    project(tmp_path, {"scripts/feed.py": LONG})
    assert OperatorScripts(tmp_path).is_program(str(tmp_path / "scripts" / "feed.py"), LONG)
    assert not OperatorScripts(tmp_path).is_program(str(tmp_path / "scripts" / "feed.py"), None)
    assert not OperatorScripts(None).is_program(str(tmp_path / "scripts" / "feed.py"), LONG)
    assert not OperatorScripts(tmp_path / "scripts").is_program(str(tmp_path / "src" / "x.py"), LONG)  # outside


MAIN = "\n\nif __name__ == \"__main__\":\n    fetch()\n"


def test_what_is_no_program_keeps_its_long_timeouts_reported(tmp_path):
    """A flat layout's module with a main guard (the app imports it), a task module whose app comes
    from a project module, package code under a repository-wide SKILL.md, and package code that a
    symbolic link under .github/ points at are not programs."""
    project(tmp_path, {
        "SKILL.md": "---\nname: shop\n---\n",  # the repository describes itself to agents
        "client.py": LONG + MAIN,
        "app.py": "import flask\n\nfrom client import fetch\n",
        "tasks.py": "from celery_app import app\n" + LONG.replace("\ndef fetch", "\n@app.task\ndef fetch") + MAIN,
        "shop/__init__.py": "",
        "shop/clients/__init__.py": "",
        "shop/clients/payments.py": LONG,
    })
    if hasattr(os, "symlink"):
        (tmp_path / ".github").mkdir()
        os.symlink(tmp_path / "shop" / "clients" / "payments.py", tmp_path / ".github" / "payments.py")
    output = reported(tmp_path)
    assert "client.py:5:12: RES103" in output
    assert "tasks.py:7:12: RES103" in output
    assert "shop/clients/payments.py:5:12: RES103" in output or ".github/payments.py:5:12: RES103" in output
    assert output.count("RES103") == 3, output


def test_a_link_in_a_script_directory_to_package_code_makes_no_script(tmp_path):
    if not hasattr(os, "symlink"):
        pytest.skip("no symbolic links here")
    project(tmp_path, {"shop/__init__.py": "", "shop/stars.py": SCRIPT.split("\n\nif __name__")[0] + "\n"})
    (tmp_path / "scripts").mkdir()
    os.symlink(tmp_path / "shop" / "stars.py", tmp_path / "scripts" / "stars.py")
    output = reported(tmp_path)
    assert "RES101" in output and "stars.py:5:5: RES101" in output, output


def test_a_program_may_define_tasks_of_no_task_queue_and_a_link_outside_is_placed_where_it_is(tmp_path):
    (tmp_path / "p").mkdir()
    project(tmp_path / "p", {".github/scripts/release.py": "from invoke import task\n" +
                             LONG.replace("\ndef fetch", "\n@task\ndef fetch")})
    outside = tmp_path / "shared.py"
    outside.write_text(LONG, encoding="utf-8")
    if hasattr(os, "symlink"):
        (tmp_path / "p" / "scripts").mkdir()
        os.symlink(outside, tmp_path / "p" / "scripts" / "shared.py")
    assert "RES103" not in reported(tmp_path / "p")
