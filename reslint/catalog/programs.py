"""Programs a subprocess runs: which talk to the network, and which options bound them (RES101, RES102).

A subprocess call is a finding only when the program it runs waits on the network and
has no bound of its own (DESIGN section 2, "Timeout categories"): ``git fetch`` with no
``http.lowSpeedLimit``, ``curl`` with no ``--max-time``. An editor, a pager, a build step,
``git rev-parse``, or the user's own long-running program is not: it waits for the user or
does its work, and a ``timeout=`` would kill it (an editor after 10 s, with the user's edits).
A program that is not listed here is unknown, and unknown is never reported.

Each entry names its source: the program's manual. Options are written as the manual
spells them; :mod:`reslint.analysis.commands` reads a command line against them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class ProgramSpec:
    """A program that waits on the network, and what bounds that wait.

    - ``name``: the executable's name (a path's last part, without ``.exe``).
    - ``subcommands``: the subcommands that use the network (``git fetch``; two words for
      ``git submodule update``); ``None`` when every use does.
    - ``value_options``: options before the subcommand that take the next word as their
      value (``git -C PATH fetch``), so that word is not read as the subcommand.
    - ``timeout_options``: the ways to bound it, any one of which is enough; each is a tuple
      of options that must all be given (git: ``http.lowSpeedLimit`` with
      ``http.lowSpeedTime``). An option is ``--long`` or ``-s`` (its value attached or next),
      or ``-o Key``: the option ``-o`` with a value ``Key=...`` (ssh's ``-o ConnectTimeout=5``,
      git's ``-c http.lowSpeedTime=30``; keys compare without case, as ssh and git do).
    - ``timeout_env``: environment variables that bound it in the same way, when the call
      passes a literal ``env=``.
    - ``default_s``: the bound it keeps without any option, in seconds per wait (pip's 15 s
      socket timeout); ``None``: it waits as long as the server lets it.
    - ``default_note``: that default in words, for the message.
    - ``remote_operands``: it uses the network only when an operand names a remote host
      (``rsync src host:dst``; ``rsync -a build/ dist/`` copies locally).
    - ``session_without_command``: given no command to run after its destination operand, it
      opens a session with the user (``ssh host`` logs in): interactive, never reported.
    - ``interactive``: options that make the run a session with the user (ssh ``-t``).
    - ``no_command_options``: options with which it runs no command but forwards ports or
      waits on purpose (ssh ``-N``): such a run is meant to last, never reported.
    - ``operand_value_options``: its own options that take the next word as their value, read
      to tell its destination and command operands from option values.
    - ``advice``: how to bound it with its own options, for the message.
    """

    name: str
    source: str
    advice: str
    subcommands: Optional[Tuple[str, ...]] = None
    value_options: Tuple[str, ...] = ()
    timeout_options: Tuple[Tuple[str, ...], ...] = ()
    timeout_env: Tuple[Tuple[str, ...], ...] = ()
    default_s: Optional[float] = None
    default_note: str = ""
    remote_operands: bool = False
    session_without_command: bool = False
    interactive: Tuple[str, ...] = ()
    no_command_options: Tuple[str, ...] = ()
    operand_value_options: Tuple[str, ...] = ()


#: ssh(1): the options that take an argument (from the synopsis), so the destination and the
#: remote command can be told apart from option values
_SSH_VALUE_OPTIONS = ("-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
                      "-P", "-p", "-Q", "-R", "-S", "-W", "-w")

PROGRAMS: Dict[str, ProgramSpec] = {
    spec.name: spec
    for spec in (
        ProgramSpec(
            "curl",
            "https://curl.se/docs/manpage.html (-m/--max-time, --connect-timeout, -y/--speed-time, "
            "-Y/--speed-limit: 'If a transfer is slower than speed-limit bytes per second during a speed-time "
            "period, the transfer is aborted'; no transfer timeout by default)",
            advice="curl's `--max-time SECONDS` (the whole transfer) or `--speed-time SECONDS` (a stalled one)",
            timeout_options=(("--max-time",), ("-m",), ("--connect-timeout",), ("--speed-time",), ("-y",),
                             ("--speed-limit",), ("-Y",)),
            default_note="curl has no transfer timeout by default",
        ),
        ProgramSpec(
            "wget",
            "https://www.gnu.org/software/wget/manual/wget.html#Download-Options (-T/--timeout, --dns-timeout, "
            "--connect-timeout, --read-timeout: 'The default is to read timeout 900 seconds'; -t/--tries: "
            "'The default is to retry 20 times')",
            advice="wget's `--timeout=SECONDS` (with `--tries=N`)",
            timeout_options=(("--timeout",), ("-T",), ("--read-timeout",)),
            default_s=900.0,
            default_note="wget waits up to 900 s on each read and tries 20 times by default",
        ),
        ProgramSpec(
            "git",
            "https://git-scm.com/docs/git-config#Documentation/git-config.txt-httplowSpeedLimit "
            "(http.lowSpeedLimit, http.lowSpeedTime: 'the transfer is aborted'; GIT_HTTP_LOW_SPEED_LIMIT, "
            "GIT_HTTP_LOW_SPEED_TIME in https://git-scm.com/docs/git#_environment_variables); the subcommands "
            "that contact a remote: git-clone, git-fetch, git-pull, git-push, git-ls-remote, "
            "git-submodule update, git-remote update; global options: https://git-scm.com/docs/git#_options",
            advice="git's `-c http.lowSpeedLimit=1000 -c http.lowSpeedTime=30` (a stalled HTTP transfer)",
            subcommands=("clone", "fetch", "pull", "push", "ls-remote", "submodule update", "remote update"),
            value_options=("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                           "--super-prefix"),
            timeout_options=(("-c http.lowSpeedLimit", "-c http.lowSpeedTime"),),
            timeout_env=(("GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME"),),
            default_note="git sets no network timeout unless http.lowSpeedLimit and http.lowSpeedTime are set",
        ),
        ProgramSpec(
            "ssh",
            "https://man.openbsd.org/ssh.1 (synopsis; -N: 'Do not execute a remote command'; -t: 'Force "
            "pseudo-terminal allocation'; without a command 'the user is logged into the remote host'), "
            "https://man.openbsd.org/ssh_config.5 (ConnectTimeout, ServerAliveInterval: no timeout by default)",
            advice="ssh's `-o ConnectTimeout=SECONDS -o ServerAliveInterval=SECONDS`",
            timeout_options=(("-o ConnectTimeout",), ("-o ServerAliveInterval",)),
            default_note="ssh has no connect timeout by default",
            session_without_command=True,
            interactive=("-t", "-tt"),
            no_command_options=("-N",),
            operand_value_options=_SSH_VALUE_OPTIONS,
        ),
        ProgramSpec(
            "scp",
            "https://man.openbsd.org/scp.1 (-o ssh_option: ConnectTimeout, ServerAliveInterval as in "
            "https://man.openbsd.org/ssh_config.5)",
            advice="scp's `-o ConnectTimeout=SECONDS -o ServerAliveInterval=SECONDS`",
            timeout_options=(("-o ConnectTimeout",), ("-o ServerAliveInterval",)),
            default_note="scp has no connect timeout by default",
        ),
        ProgramSpec(
            "rsync",
            "https://download.samba.org/pub/rsync/rsync.1 (--timeout, --contimeout: 'The default is 0, "
            "which means no timeout'; a remote operand is HOST:DEST, HOST::DEST or rsync://HOST/DEST)",
            advice="rsync's `--timeout=SECONDS`",
            timeout_options=(("--timeout",), ("--contimeout",)),
            default_note="rsync has no I/O timeout by default",
            remote_operands=True,
        ),
        ProgramSpec(
            "pip",
            "https://pip.pypa.io/en/stable/cli/pip/#cmdoption-timeout ('--timeout <sec>: Set the socket "
            "timeout (default 15 seconds)'; also spelled --default-timeout, and PIP_TIMEOUT or "
            "PIP_DEFAULT_TIMEOUT in the environment: https://pip.pypa.io/en/stable/topics/configuration/); "
            "the subcommands that download: install, download, wheel, index, search",
            advice="pip's `--timeout SECONDS`",
            subcommands=("install", "download", "wheel", "index", "search"),
            timeout_options=(("--timeout",), ("--default-timeout",)),
            timeout_env=(("PIP_TIMEOUT",), ("PIP_DEFAULT_TIMEOUT",)),
            default_s=15.0,
            default_note="pip times out a socket after 15 s by default",
        ),
        ProgramSpec(
            "uv",
            "https://docs.astral.sh/uv/reference/environment/#uv_http_timeout ('Timeout (in seconds) for "
            "HTTP requests. (default: 30 s)'); the subcommands that download: "
            "https://docs.astral.sh/uv/reference/cli/ (`uv run` runs the user's program: not listed)",
            advice="uv's `UV_HTTP_TIMEOUT` environment variable",
            subcommands=("add", "remove", "sync", "lock", "build", "pip install", "pip sync", "pip compile",
                         "tool install", "tool upgrade", "python install"),
            timeout_env=(("UV_HTTP_TIMEOUT",),),
            default_s=30.0,
            default_note="uv times out an HTTP request after 30 s by default",
        ),
    )
}


@dataclass(frozen=True)
class WrapperSpec:
    """A program that runs the command that follows it (``sudo git fetch``).

    ``value_options``: its options that take the next word as their value; ``bounds``: it
    bounds the command's run itself (coreutils ``timeout 30 curl ...``); ``assignments``:
    it takes ``NAME=value`` words before the command (``env``)."""

    name: str
    source: str
    value_options: Tuple[str, ...] = ()
    bounds: bool = False
    assignments: bool = False
    #: how many words after its options belong to it before the command (``timeout DURATION``)
    operands: int = 0


WRAPPERS: Dict[str, WrapperSpec] = {
    spec.name: spec
    for spec in (
        WrapperSpec("timeout", "https://www.gnu.org/software/coreutils/manual/html_node/timeout-invocation.html "
                    "(timeout [OPTION] DURATION COMMAND; -s/--signal SIGNAL, -k/--kill-after DURATION)",
                    value_options=("-s", "--signal", "-k", "--kill-after"), bounds=True, operands=1),
        WrapperSpec("sudo", "https://www.sudo.ws/docs/man/sudo.man/ (options taking a value)",
                    value_options=("-C", "-D", "-g", "-h", "-p", "-R", "-r", "-T", "-t", "-U", "-u")),
        WrapperSpec("env", "https://www.gnu.org/software/coreutils/manual/html_node/env-invocation.html",
                    value_options=("-u", "--unset", "-C", "--chdir"), assignments=True),
        WrapperSpec("nice", "https://www.gnu.org/software/coreutils/manual/html_node/nice-invocation.html",
                    value_options=("-n", "--adjustment")),
        WrapperSpec("nohup", "https://www.gnu.org/software/coreutils/manual/html_node/nohup-invocation.html"),
        WrapperSpec("exec", "https://www.gnu.org/software/bash/manual/bash.html#index-exec"),
        WrapperSpec("command", "https://www.gnu.org/software/bash/manual/bash.html#index-command"),
    )
}

#: Shells that run the command line given after ``-c`` (``["bash", "-c", "curl ..."]``):
#: https://www.gnu.org/software/bash/manual/bash.html#Invoking-Bash,
#: https://pubs.opengroup.org/onlinepubs/9699919799/utilities/sh.html
SHELLS: Tuple[str, ...] = ("sh", "bash", "dash", "zsh", "ksh")

#: Python interpreters: ``python -m pip install ...`` runs the module as the program of that
#: name (``-m`` is the last interpreter option: https://docs.python.org/3/using/cmdline.html;
#: ``py`` is the Windows launcher: https://docs.python.org/3/using/windows.html#python-launcher-for-windows).
#: A script (``python app.py``) or ``-c CODE`` is the user's own program: unknown.
INTERPRETER_PATTERN = r"python(\d+(\.\d+)?)?w?|py"
#: interpreter options that take the next word as their value (https://docs.python.org/3/using/cmdline.html)
INTERPRETER_VALUE_OPTIONS: Tuple[str, ...] = ("-W", "-X", "--check-hash-based-pycs")
#: expressions that name the running interpreter (https://docs.python.org/3/library/sys.html#sys.executable)
INTERPRETER_EXPRESSIONS: Tuple[str, ...] = ("sys.executable",)

#: Calls that turn a program name into its path: the program keeps its name
#: (https://docs.python.org/3/library/shutil.html#shutil.which: ``which(cmd)``)
PROGRAM_LOOKUPS: Tuple[str, ...] = ("shutil.which",)
#: Calls that split a command line into its words (https://docs.python.org/3/library/shlex.html#shlex.split)
COMMAND_SPLITTERS: Tuple[str, ...] = ("shlex.split",)
