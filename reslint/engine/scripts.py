"""Operator scripts: the project's programs that a person runs by hand.

A file is an *operator script* when both hold:

1. it lives where projects keep the programs they run themselves, and runs as one:
   - any file under a directory named ``scripts`` or ``script``, at any depth
     (:data:`PROGRAM_DIRECTORIES`: a monorepo's ``backend/scripts/``), a program or a helper its
     programs import, but not under ``.github/``, whose scripts CI runs, nor in an agent skill
     (:data:`SKILL_FILE`), whose programs an agent runs;
   - or a program (a module-level ``if __name__ == "__main__":``) under another directory of
     :data:`SCRIPT_DIRECTORIES` (``bin/``, ``tools/``, ``docs/``, ``examples/``, ``benchmarks/``...
     at the top of the project), or named as a benchmark (:data:`BENCHMARK_NAME`: ``bench_io.py``,
     ``recency_benchmark.py``), not in the package they ship, whose command-line tools run on
     users' machines and in their automation;
2. no automation file of the project names it (:data:`AUTOMATION_FILES`: CI workflows,
   Makefiles, Dockerfiles, cron and process files, tox and nox): a script that CI or a container
   runs has nobody watching it.

The ``if __name__ == "__main__":`` block of any other module is run by hand too (a demo or a
smoke test of the module, with a client built there), unless an automation file names the
module: its lines are treated as an operator script's (:meth:`OperatorScripts.hand_run_rows`), the
functions it calls are not.

A hang in such a script is seen by the person who started it, who interrupts it, and a retry in
it has no fleet of clients to synchronise: in the judged sample of public repositories
(``benchmarks/judged/``) the timeout and retry-policy findings in release, maintenance and
documentation scripts were judged false, while the same findings in a script a CI workflow runs
every twelve hours were judged true. ``script-ignore`` (default: the timeout and retry-policy
codes, ``RES1`` and ``RES2``) is not reported in operator scripts; the idempotency codes still
are, since a charge sent twice by hand is still sent twice.

The decision depends on files other than the script (its directory, the automation files), so it
is made on every run after the cache, never stored with a file's findings.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, List, Optional, Tuple

from reslint.engine.discovery import relative
from reslint.engine.files import read_regular_text

#: Files that run a project's programs without a person watching, as globs relative to a
#: directory from the project root up to the repository root: GitHub Actions, GitLab CI,
#: CircleCI, Azure Pipelines, Bitbucket Pipelines, Jenkins, make and just, tox and nox,
#: Dockerfiles and Compose files, Procfiles (Heroku, foreman) and crontabs, pre-commit.
AUTOMATION_FILES = (
    ".github/workflows/*.yml", ".github/workflows/*.yaml", ".github/actions/*/action.yml",
    ".github/actions/*/action.yaml", ".gitlab-ci.yml", ".circleci/config.yml", "azure-pipelines.yml",
    "bitbucket-pipelines.yml", "Jenkinsfile", "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile",
    "tox.ini", "noxfile.py", "Dockerfile", "Dockerfile.*", "*.Dockerfile", "docker-compose*.yml",
    "docker-compose*.yaml", "compose.yml", "compose.yaml", "Procfile", "crontab", "*.cron",
    ".pre-commit-config.yaml", ".pre-commit-hooks.yaml",
)

#: Directory names that hold a project's own scripts: ``scripts``/``script`` and ``bin`` (the
#: layouts of the Python Packaging User Guide's and many projects' maintenance scripts), ``tools``,
#: ``dev`` and ``devtools`` (developer tooling), ``docs``/``doc`` (the scripts that build the
#: documentation), ``examples``/``example`` (programs a reader runs to see a feature work; in the
#: judged sample every timeout and retry finding in an example program was judged false),
#: ``benchmarks``/``benchmark``/``bench`` and ``evals``/``eval`` (the measurements a developer
#: runs and reads: in the judged sample, five model-client findings in hand-run benchmark and
#: evaluation programs were judged false). A file
#: is in one when the first directory of its path, relative to the project root, has one of these
#: names (deeper, most of them are as often packages: ``crewai_tools/tools/``), or when any
#: directory of its path is one of :data:`ANYWHERE_DIRECTORIES`.
SCRIPT_DIRECTORIES = frozenset({"scripts", "script", "bin", "tools", "dev", "devtools", "docs", "doc", "examples",
                                "example", "benchmarks", "benchmark", "bench", "evals", "eval"})
#: directory names that hold only programs and the helpers they import, at any depth: a file in one
#: is a script with or without a main guard (a flat script that does its work at the top, a helper
#: module of the other scripts). In the judged sample every directory of that name, at the top or
#: deeper (``backend/scripts/``, ``backend/core/utils/scripts/``), held maintenance, release or
#: data scripts, or the programs of an agent skill (:data:`SKILL_FILE`, not run by hand)
PROGRAM_DIRECTORIES = frozenset({"scripts", "script"})
#: the file that makes a directory an agent skill (Anthropic's Agent Skills, adopted by other agent
#: frameworks: https://docs.anthropic.com/en/docs/agents-and-tools/agent-skills/overview): the
#: programs under it are run by an agent through its shell tool, unattended, not by hand (in the
#: judged sample, a skill script's call with no timeout was judged true: it pins the agent's turn)
SKILL_FILE = "SKILL.md"
#: the top-level directory whose scripts CI runs (``.github/scripts/``): never an operator script
CI_DIRECTORY = ".github"
#: the script directories whose names mean the same at any depth (a monorepo's
#: ``libraries/python/examples/``)
ANYWHERE_DIRECTORIES = frozenset({"examples", "example", "docs", "doc"})
#: the file names of benchmark programs, at any depth (pytest-benchmark's and asv's ``bench_*``,
#: ``*_benchmark``): a program a developer runs to measure something and reads the result of.
#: Evaluation harnesses are not matched by name: they also run unattended, in many containers at
#: once (a judged retry finding in one was true).
BENCHMARK_NAME = re.compile(r"(?:^|_)bench(?:mark)?s?(?:_|$)")

#: how far up from the project root automation files are looked for (a subproject of a monorepo
#: is run by the repository's CI); the walk also stops at the directory holding ``.git``
MAX_LEVELS_UP = 8

_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*(['\"])__main__\1\s*:", re.MULTILINE)


#: :meth:`OperatorScripts.hand_run_rows` of an operator script: every row
WHOLE_FILE: Tuple[int, Optional[int]] = (1, None)
#: a line that ends a module-level block: code at column 0 (not a comment or a blank line)
_TOP_LEVEL = re.compile(r"^[^\s#]", re.MULTILINE)


def runs_as_program(text: str) -> bool:
    """Whether ``text`` (a module's source) has a module-level ``if __name__ == "__main__":``."""
    return _MAIN_GUARD.search(text) is not None


def main_block(text: str) -> Optional[Tuple[int, int]]:
    """The rows ``(first, last)`` (1-based, inclusive) of the first module-level
    ``if __name__ == "__main__":`` block of ``text`` (a module's source): from the ``if`` to the line
    before the next line of code at column 0 (an ``else:`` runs on import, so it ends the block), or
    to the end; ``None`` when there is none. Read from the text, without parsing: a string whose
    lines start at column 0 ends the block early, which leaves more of the file checked."""
    found = _MAIN_GUARD.search(text)
    if found is None:
        return None
    first = text.count("\n", 0, found.start()) + 1
    after = text.find("\n", found.end())
    following = _TOP_LEVEL.search(text, after + 1) if after != -1 else None
    if following is None:
        last = text.count("\n") + (0 if text.endswith("\n") else 1)
    else:
        last = text.count("\n", 0, following.start())
    return first, max(first, last)


class OperatorScripts:
    """Tells which files of a project are operator scripts (module docstring). The automation
    files are read once, on the first question; ``root`` is the project root, or the run's root
    when no project marker is found (:attr:`reslint.config.Settings.anchor`); ``None``: no
    directory is known, so no file is an operator script."""

    def __init__(self, root: Optional[Path]):
        self.root = root
        self._texts: Optional[List[str]] = None
        #: an automation file that could not be read: every script then counts as named (a
        #: finding is never hidden because of a file reslint could not read)
        self._unreadable = False

    def is_operator_script(self, path: str, text: Optional[str]) -> bool:
        """Whether the file at ``path`` with source ``text`` is an operator script, whole;
        ``False`` when ``text`` is ``None`` (not known)."""
        return self.hand_run_rows(path, text) == WHOLE_FILE

    def hand_run_rows(self, path: str, text: Optional[str]) -> Optional[Tuple[int, Optional[int]]]:
        """The rows of the file at ``path`` (source ``text``) that a person runs by hand, as
        ``(first, last)`` (1-based, inclusive; ``last`` ``None``: to the end): :data:`WHOLE_FILE`
        for an operator script, the module-level ``if __name__ == "__main__":`` block of another
        module, or ``None``: none (also when ``text`` is ``None``, not known)."""
        if text is None or self.root is None:
            return None
        below = relative(os.path.abspath(path), os.path.abspath(self.root))
        parts = below.split("/") if below is not None else []
        directories, stem = parts[:-1], os.path.splitext(os.path.basename(path))[0]
        if directories and directories[0] == CI_DIRECTORY:
            return None
        block = main_block(text)
        whole = self._in_program_directory(directories)
        if not whole and block is not None:
            whole = (bool(directories) and (directories[0] in SCRIPT_DIRECTORIES or
                                            bool(ANYWHERE_DIRECTORIES.intersection(directories)))
                     ) or bool(parts and BENCHMARK_NAME.search(stem))
        if not whole and block is None:
            return None
        if self.named("/".join(parts) if parts else os.path.basename(path)):
            return None
        return WHOLE_FILE if whole else block

    def _in_program_directory(self, directories: List[str]) -> bool:
        """Whether a directory of :data:`PROGRAM_DIRECTORIES` holds the file (``directories``: its
        path below the project root), and not as the programs of an agent skill (a directory with
        a ``SKILL.md`` above it: an agent runs them, with nobody watching)."""
        for index, directory in enumerate(directories):
            if directory in PROGRAM_DIRECTORIES:
                return not any(os.path.isfile(os.path.join(self.root, *directories[:above], SKILL_FILE))
                               for above in range(1, index + 1))
        return False

    def named(self, script: str) -> bool:
        """Whether an automation file names ``script`` (its path below the project root,
        ``scripts/issues.py``, or only its file name): by its file name (``python scripts/issues.py``,
        ``CMD ["python", "/app/scripts/issues.py"]``), as a module run with ``-m`` (``python -m
        scripts.issues``), or without its suffix as an executable (``/srv/app/bin/release``). A
        mention that spells another existing directory of the project (``libs/cli/apps/agent``) does
        not name ``examples/graphs/agent.py``."""
        texts = self._automation_texts()
        if self._unreadable:
            return True
        *own, name = script.split("/")
        stem = name[:-3] if name.endswith(".py") else name
        as_file = re.compile(rf"(?<![\w./-])(?P<dirs>\.?/?(?:[\w.-]+/)*){re.escape(name)}(?![\w-])")
        # ``python -m pkg.mod``, also in an exec-form list: ``CMD ["python", "-m", "pkg.mod"]``
        as_module = re.compile(rf"-m(?:\s+|[\"']\s*,\s*[\"'])(?P<dirs>(?:\w+\.)*){re.escape(stem)}(?![\w.])")
        as_program = re.compile(rf"(?<![\w./-])(?P<dirs>\.?/?(?:[\w.-]+/)+){re.escape(stem)}(?![\w./-])")

        def same_place(dirs: str, separator: str) -> bool:
            # a mention names another script only when it spells another directory of this project
            # (``libs/cli/apps/agent``); a path reslint cannot place (a container's ``/app/tools``,
            # ``$SCRIPT_DIR``) names it: that hides nothing
            spelled = [part for part in dirs.split(separator) if part not in ("", ".")]
            if not spelled or not own or spelled[-1] == own[-1] or self.root is None:
                return True
            return not os.path.isdir(os.path.join(self.root, *spelled))

        return any(same_place(m.group("dirs"), "." if pattern is as_module else "/")
                   for t in texts for pattern in (as_file, as_module, as_program) for m in pattern.finditer(t))

    def _automation_texts(self) -> List[str]:
        if self._texts is None:
            self._texts = []
            for path in self._automation_paths():
                try:
                    self._texts.append(read_regular_text(path, errors="replace"))
                except OSError:
                    self._unreadable = True
        return self._texts

    def _automation_paths(self) -> Iterable[Path]:
        if self.root is None:
            return []
        found = []
        directory = Path(os.path.abspath(self.root))
        for _ in range(MAX_LEVELS_UP + 1):
            for parent in {os.path.dirname(pattern) for pattern in AUTOMATION_FILES if "/" in pattern}:
                try:  # a directory of automation files that cannot be listed hides no finding either
                    os.listdir(directory / parent.split("*")[0])
                except FileNotFoundError:
                    pass
                except OSError:
                    self._unreadable = True
            for pattern in AUTOMATION_FILES:
                found.extend(sorted(p for p in directory.glob(pattern) if not p.is_dir()))
            if (directory / ".git").exists() or directory.parent == directory:
                break
            directory = directory.parent
        return found
