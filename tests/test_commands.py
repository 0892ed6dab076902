"""RES101/RES102 on subprocess calls: the program a command line runs decides (DESIGN section 2).

The case file ``tests/fixtures/cases/timeouts_subprocess_programs.py`` holds the common shapes;
these are the reading's corners (wrappers, shells, interpreters, operands, option spellings),
the message, the fix, and how ``max-timeout`` meets a program's own default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text

HEAD = "import os\nimport shlex\nimport subprocess\nimport sys\n\n\ndef f(url, host, path, args):\n"


def reported(statement: str, **settings) -> list:
    linter = Linter(Settings(root=Path("."), **settings))
    findings, errors = linter.lint_text(HEAD + "".join(f"    {line}\n" for line in statement.splitlines()), "m.py")
    assert errors == []
    return [f.code for f in findings]


@pytest.mark.parametrize("statement", [
    "subprocess.run(['env', 'LANG=C', 'git', 'fetch'])",
    "subprocess.run(['nice', '-n', '5', 'git', 'fetch'])",
    "subprocess.run(['/usr/bin/git', 'fetch'])",
    "subprocess.run(['git.exe', 'fetch'])",
    "subprocess.run(['bash', '-lc', 'cd repo && git pull'])",
    "subprocess.run('make && git push', shell=True)",
    "subprocess.run('git fetch > fetch.log 2>&1', shell=True)",
    "subprocess.run('cd repo\\ngit pull', shell=True)",
    "subprocess.run(['git fetch origin'], shell=True)",
    "subprocess.run('git fetch')",
    "subprocess.run(['ssh', '-p', '2222', host, 'ls'])",
    "subprocess.run(['rsync', '-e', 'ssh', path, 'backup.example.invalid:/srv/'])",
    "subprocess.run(['rsync', path, 'rsync://mirror.example.invalid/pub/'])",
    "subprocess.run(['git', '--no-pager', '-C', path, 'ls-remote', url])",
    "subprocess.run(['git', 'remote', 'update'])",
    "subprocess.check_output(['curl', '-sS', url])",
    "subprocess.call(['curl', '-o', 'out.bin', url])",
    "with subprocess.Popen(['git', 'fetch']) as p:\n    p.communicate()",
])
def test_a_network_program_without_its_own_timeout_is_reported(statement):
    assert reported(statement) == ["RES101"]


@pytest.mark.parametrize("statement", [
    # programs reslint cannot name: a variable, an f-string's head, a script, code, a splice
    "subprocess.run(args)",
    "subprocess.run(f'{path} fetch', shell=True)",
    "subprocess.run([sys.executable, 'tools/sync.py'])",
    "subprocess.run([sys.executable, '-c', 'import this'])",
    "subprocess.run(['git', *args, 'fetch'])",
    "subprocess.run(['git', path])",
    "subprocess.run(['rsync', '-a', path, host])",
    "subprocess.run(['ssh', *args])",
    "subprocess.run('git fetch \"unbalanced', shell=True)",
    "subprocess.run(['git', 'fetch'], shell=args)",
    "subprocess.run(['git', 'fetch'], executable=path)",
    "subprocess.run(['git', 'fetch'], **args)",
    # a bound of its own, or a wrapper's
    "subprocess.run(['curl', '--connect-timeout', '5', url])",
    "subprocess.run(['curl', '--speed-time=30', url])",
    "subprocess.run(['wget', '-T', '10', url])",
    "subprocess.run(['ssh', '-oConnectTimeout=5', host, 'ls'])",
    "subprocess.run(['ssh', '-o', 'connecttimeout 5', host, 'ls'])",
    "subprocess.run(['ssh', '-o', 'ServerAliveInterval=15', host, 'ls'])",
    "subprocess.run(['rsync', '--contimeout=10', path, 'h:/srv/'])",
    "subprocess.run(['timeout', '-k', '5', '60', 'git', 'fetch'])",
    "subprocess.run(f'curl --max-time={path} {url}', shell=True)",
    # bounded by default (pip 15 s, uv 30 s), however pip is started
    "subprocess.run([sys.executable, '-m', 'pip', 'install', 'x'])",
    "subprocess.run(['python3.12', '-I', '-m', 'pip', 'download', 'x'])",
    "subprocess.run(['py', '-3.12', '-m', 'pip', 'install', 'x'])",
    "subprocess.run(['uv', 'pip', 'install', 'x'])",
    # local uses, sessions
    "subprocess.run(['git', 'log', '-1'])",
    "subprocess.run(['git', '--version'])",
    "subprocess.run(['git', 'remote', 'add', 'origin', url])",
    "subprocess.run(['ssh', '-p', '2222', host])",
    "subprocess.run(['ssh', '-tt', host, 'top'])",
    "subprocess.run(['less', path])",
    "subprocess.run([os.environ['EDITOR'], path])",
])
def test_what_is_not_reported(statement):
    assert reported(statement) == []


def test_the_message_names_the_command_and_the_programs_own_option():
    linter = Linter(Settings(root=Path(".")))
    findings, _ = linter.lint_text(HEAD + "    subprocess.run(['git', '-C', path, 'fetch', '--tags'], check=True)\n",
                                   "m.py")
    assert [f.message for f in findings] == [
        "`subprocess.run` call has no timeout: it runs `git fetch`, which waits on the network: git sets no network "
        "timeout unless http.lowSpeedLimit and http.lowSpeedTime are set, so a stalled server holds this call, and "
        "the worker running it, forever; pass `timeout=`, or git's `-c http.lowSpeedLimit=1000 -c "
        "http.lowSpeedTime=30` (a stalled HTTP transfer)"]


def test_the_fix_adds_a_timeout_only_to_a_network_program():
    linter = Linter(Settings(root=Path(".")))
    text = HEAD + "    subprocess.run(['make'])\n    subprocess.run(['git', 'pull'], check=True)\n"
    outcome = fix_text(linter, text, "m.py", unsafe=True)
    assert outcome.error is None
    assert outcome.text == text.replace("['git', 'pull'], check=True)", "['git', 'pull'], check=True, timeout=10)")
    assert fix_text(linter, outcome.text, "m.py", unsafe=True).text is None  # clean: nothing more to fix


def test_max_timeout_meets_the_programs_own_default():
    # wget: 900 s per read by default, above the default max-timeout; pip: 15 s, below it
    assert reported("subprocess.run(['wget', url])") == ["RES101"]
    assert reported("subprocess.run(['wget', url])", max_timeout=1000.0) == []
    assert reported("subprocess.run(['pip', 'install', 'x'])") == []
    assert reported("subprocess.run(['pip', 'install', 'x'])", max_timeout=10.0, default_timeout=5.0) == ["RES101"]
    # uv: 30 s per request when it downloads; `uv run` runs the user's program, never a finding
    assert reported("subprocess.run(['uv', 'add', 'x'])", max_timeout=20.0, default_timeout=5.0) == ["RES101"]
    assert reported("subprocess.run(['uv', 'run', 'serve'])", max_timeout=20.0, default_timeout=5.0) == []


def test_a_disabled_timeout_is_judged_by_the_program_too():
    assert reported("subprocess.run(['git', 'fetch'], timeout=None)") == ["RES102"]
    assert reported("subprocess.run(['vi', path], timeout=None)") == []
    assert reported("p = subprocess.Popen(['git', 'push'])\np.wait(None)") == ["RES102"]
    assert reported("p = subprocess.Popen(args)\np.wait(None)") == []


def test_shell_expansions_are_unknown_words():
    # `$EDITOR` names no program; `$URL` is an operand; `--max-time=$T` is still the option
    assert reported("subprocess.run('$EDITOR notes.txt', shell=True)") == []
    assert reported("subprocess.run('`which git` fetch', shell=True)") == []
    assert reported("subprocess.run('curl -fsSL $URL', shell=True)") == ["RES101"]
    assert reported("subprocess.run('curl --max-time=$T -fsSL $URL', shell=True)") == []
