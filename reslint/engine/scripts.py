"""Operator scripts: the project's programs that a person runs by hand.

A file is an *operator script* when both hold:

1. it lives where projects keep the programs they run themselves, and runs as one:
   - any file under a directory named ``scripts`` or ``script``, at any depth
     (:data:`PROGRAM_DIRECTORIES`: a monorepo's ``backend/scripts/``), a program or a helper its
     programs import, but not under ``.github/``, whose scripts CI runs, nor in an agent skill
     (:data:`SKILL_FILE`, the project's root included), whose programs an agent runs, nor a module
     a packaging file names as an entry point (:func:`entry_modules`), a command the package ships;
   - any module of example code (:data:`EXAMPLE_DIRECTORIES`, at any depth) that is no service
     (:func:`serves`: it imports no web framework or server and defines no task);
   - or a program (a module-level ``if __name__ == "__main__":``) under another directory of
     :data:`SCRIPT_DIRECTORIES` (``bin/``, ``tools/``, ``docs/``, ``benchmarks/``, ``profiling/``...
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
from typing import Dict, Iterable, List, Optional, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from reslint.catalog import services
from reslint.engine.discovery import relative
from reslint.engine.files import read_regular_text
from reslint.semantics.prefilter import Trigger

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
#: documentation), ``benchmarks``/``benchmark``/``bench`` and ``evals``/``eval`` (the measurements a developer
#: runs and reads: in the judged sample, five model-client findings in hand-run benchmark and
#: evaluation programs were judged false). A program is in one when the first directory of its
#: path, relative to the project root, has one of these names (deeper, most of them are as often
#: packages: ``crewai_tools/tools/``), or when any directory of its path is one of
#: :data:`ANYWHERE_DIRECTORIES`; ``scripts`` and ``script`` count at any depth, and without a main
#: guard (:data:`PROGRAM_DIRECTORIES`). Example code has its own rule (:data:`EXAMPLE_DIRECTORIES`).
SCRIPT_DIRECTORIES = frozenset({"scripts", "script", "bin", "tools", "dev", "devtools", "docs", "doc",
                                "benchmarks", "benchmark", "bench", "profiling", "evals", "eval"})
#: directory names that hold only programs and the helpers they import, at any depth: a file in one
#: is a script with or without a main guard (a flat script that does its work at the top, a helper
#: module of the other scripts). In the judged sample every directory of that name, at the top or
#: deeper (``backend/scripts/``, ``backend/core/utils/scripts/``), held maintenance, release or
#: data scripts, or the programs of an agent skill (:data:`SKILL_FILE`, not run by hand)
PROGRAM_DIRECTORIES = frozenset({"scripts", "script"})
#: directory names of example code, at any depth: programs a reader runs to try a feature and the
#: modules they load (a graph a framework's dev server serves, a tutorial's helpers), with or without
#: a main guard, run by hand like scripts, unless the module is a service (:func:`serves`). In the
#: judged sample, 13 findings of the timeout and retry rules in such modules (a CLI's packaging
#: fixtures, a tutorial's helpers) were all false. A ``cookbook/`` is the same thing under the name
#: agent frameworks give it (agno's, the model vendors' cookbooks): 27 findings there, in programs
#: that download a demo file or build a client once, were judged false too. Not ``demo/``, which
#: names a project's own demonstration (reslint's is a real module to check).
EXAMPLE_DIRECTORIES = frozenset({"examples", "example", "cookbook", "cookbooks"})
#: what makes a module of example code a service, deployed as it is and checked whole
#: (:func:`serves`; in the judged sample, two example FastAPI servers and a celery task module
#: held the only true findings of example code)
#: a service's imports, as text prefilter entries (``aiohttp.web`` is ``aiohttp`` and the name ``web``)
_SERVER_IMPORT = Trigger(m.replace(".", ":", 1) if "." in m else m for m in services.SERVER_MODULES)
_QUEUE_IMPORT = Trigger(services.TASK_QUEUE_MODULES)
_SERVER_CALL = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in services.SERVER_CALLS) + r")[ \t]*\(")
_TASK_DEFINITION = re.compile(
    r"^[ \t]*(?:@(?:\w+\.){0,8}(?:" + "|".join(re.escape(d) for d in services.TASK_DECORATORS) + r")\b|class[ \t]+(?:" +
    "|".join(re.escape(c) for c in services.TASK_CLASSES) + r")\b)", re.MULTILINE)


def serves(text: str) -> bool:
    """Whether a module's source ``text`` is a service's (:mod:`reslint.catalog.services`): it
    imports a web framework or server, starts a gRPC server, or imports a task queue and defines
    tasks (a module that only enqueues them is a producer). Read as text, as the import prefilter
    reads it (:class:`reslint.semantics.prefilter.Trigger`)."""
    return bool(_SERVER_IMPORT.search(text) or _SERVER_CALL.search(text) is not None or
                (_QUEUE_IMPORT.search(text) and _TASK_DEFINITION.search(text) is not None))


#: the file that makes a directory an agent skill (Anthropic's Agent Skills, adopted by other agent
#: frameworks: https://docs.anthropic.com/en/docs/agents-and-tools/agent-skills/overview): the
#: programs under it are run by an agent through its shell tool, unattended, not by hand (in the
#: judged sample, a skill script's call with no timeout was judged true: it pins the agent's turn)
SKILL_FILE = "SKILL.md"
#: the top-level directory whose scripts CI runs (``.github/scripts/``): never an operator script
CI_DIRECTORY = ".github"
#: the script directories whose programs are scripts at any depth (a monorepo's
#: ``packages/site/docs/``); the program directories (:data:`PROGRAM_DIRECTORIES`) are too
ANYWHERE_DIRECTORIES = frozenset({"docs", "doc"})
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


#: the most text of automation files read (a repository can hold thousands of workflow files):
#: past it every script counts as named, which hides nothing
MAX_AUTOMATION_BYTES = 32 * 1024 * 1024
#: a path-like word of an automation file: ``scripts/issues.py``, ``./bin/sync``, ``/app/tools/x.py``
_PATH_WORD = re.compile(r"(?<![\w./-])[\w./-]+")
#: ``python -m pkg.mod``, also in an exec-form list: ``CMD ["python", "-m", "pkg.mod"]``
_MODULE_RUN = re.compile(r"-m(?:\s+|[\"']\s*,\s*[\"'])((?:\w+\.)*)(\w+)(?![\w.])")


class _Mentions:
    """What automation files mention: ``paths`` maps a path's last part (``issues.py``, ``sync``) to
    the directories spelled before it (``scripts/``, ``/app/bin/``, ``""``), ``modules`` a module's
    last part to the packages spelled before it (``scripts.``)."""

    def __init__(self):
        self.paths: Dict[str, List[str]] = {}
        self.modules: Dict[str, List[str]] = {}

    def add(self, text: str) -> None:
        for match in _PATH_WORD.finditer(text):
            word = match.group().rstrip(".")
            cut = word.rfind("/") + 1
            if word[cut:]:
                self.paths.setdefault(word[cut:], []).append(word[:cut])
        for match in _MODULE_RUN.finditer(text):
            self.modules.setdefault(match.group(2), []).append(match.group(1))


#: ``name = module:function`` in a setup.py or setup.cfg entry point
_ENTRY = re.compile(r"[\w.-]+\s*=\s*([A-Za-z_][\w.]*)\s*:\s*[A-Za-z_]")


def entry_modules(directory: str) -> frozenset:
    """The modules that the packaging files in ``directory`` name as entry points (the dotted names
    before ``:`` of ``[project.scripts]``, ``[project.gui-scripts]``, ``[project.entry-points.*]``,
    ``[tool.poetry.scripts]``, and of ``name = module:func`` lines in setup.cfg and setup.py, which
    are read as text, never run). A file that cannot be read or parsed names none."""
    found = set()
    try:
        data = tomllib.loads(read_regular_text(os.path.join(directory, "pyproject.toml")))
    except (OSError, UnicodeDecodeError, ValueError):
        data = {}
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    tables = [project.get("scripts"), project.get("gui-scripts"), poetry.get("scripts") if isinstance(poetry, dict) else None]
    groups = project.get("entry-points")
    if isinstance(groups, dict):
        tables.extend(groups.values())
    for table in tables:
        if isinstance(table, dict):
            for target in table.values():
                target = target.get("reference", target.get("callable")) if isinstance(target, dict) else target
                if isinstance(target, str) and ":" in target:
                    found.add(target.split(":", 1)[0].strip())
    for name in ("setup.cfg", "setup.py"):
        try:
            text = read_regular_text(os.path.join(directory, name), errors="replace")
        except OSError:
            continue
        found.update(match.group(1) for match in _ENTRY.finditer(text))
    return frozenset(found)


def _module_names(parts: List[str]) -> List[str]:
    """The dotted names the file at ``parts`` (a path below a packaging file's directory) is
    imported by: ``pkg/cli.py`` is ``pkg.cli``, ``src/pkg/cli.py`` too, ``pkg/__init__.py`` and
    ``pkg/__main__.py`` are ``pkg``."""
    if not parts or not parts[-1].endswith(".py"):
        return []
    names = [*parts[:-1], parts[-1][:-3]]
    if names[-1] in ("__init__", "__main__"):
        names = names[:-1]
    out = [".".join(names)] if names else []
    if len(names) > 1 and names[0] == "src":
        out.append(".".join(names[1:]))
    return out


class OperatorScripts:
    """Tells which files of a project are operator scripts (module docstring). The automation
    files are read once, on the first question; ``root`` is the project root, or the run's root
    when no project marker is found (:attr:`reslint.config.Settings.anchor`); ``None``: no
    directory is known, so no file is an operator script."""

    def __init__(self, root: Optional[Path]):
        self.root = root
        self._index: Optional[_Mentions] = None
        self._entries: Dict[Tuple[str, ...], frozenset] = {}
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
        # judged where the file really is: a symbolic link in a script directory to package code
        # does not make that code a script
        below = relative(os.path.realpath(path), os.path.realpath(self.root))
        if below is None:  # a link to a file outside the project: judged where it is linked
            below = relative(os.path.abspath(path), os.path.abspath(self.root))
        parts = below.split("/") if below is not None else []
        directories, stem = parts[:-1], os.path.splitext(os.path.basename(path))[0]
        if directories and directories[0] == CI_DIRECTORY:
            return None
        block = main_block(text)
        whole = self._in_program_directory(directories) or (self._in_example_directory(directories) and
                                                            not serves(text))
        if not whole and block is not None:
            whole = (bool(directories) and (directories[0] in SCRIPT_DIRECTORIES or
                                            bool(ANYWHERE_DIRECTORIES.intersection(directories)))
                     ) or bool(parts and BENCHMARK_NAME.search(stem))
        if not whole and block is None:
            return None
        if self.named("/".join(parts) if parts else os.path.basename(path)):
            return None
        if whole and self._entry_point(parts):
            return block  # a command the package ships: its users run it unattended
        return WHOLE_FILE if whole else block

    def is_program(self, path: str, text: Optional[str]) -> bool:
        """Whether the file at ``path`` (source ``text``) is one of the project's programs, run to
        completion by a person, by CI or by an agent, whoever starts it: a file under a directory of
        :data:`PROGRAM_DIRECTORIES` at any depth, under CI's own :data:`CI_DIRECTORY`, in an agent
        skill (a :data:`SKILL_FILE` in a directory below the root, in the file's directory or one
        above it, the file not in a package), or a module that runs as a program (a module-level
        ``if __name__ == "__main__":``) in a directory that is no package (no ``__init__.py``)
        inside one (a package above it, up to the root: a program shipped as the package's data,
        which its code does not import; a flat layout's modules import each other), unless it is a
        service (:func:`serves`: a web server's, or a task queue's tasks). The file is judged where
        it really is (a symbolic link by its target, or where it is linked when the target is
        outside the root). ``program-ignore`` applies there
        (:mod:`reslint.config`); ``False`` when ``text`` is ``None`` (not known) or no root is known."""
        if text is None or self.root is None:
            return False
        root = os.path.realpath(self.root)
        below = relative(os.path.realpath(path), root)
        if below is None:  # a link to a file outside the project: judged where it is linked
            root = os.path.abspath(self.root)
            below = relative(os.path.abspath(path), root)
        if below is None:
            return False
        directories = below.split("/")[:-1]
        here = os.path.join(root, *directories)
        packaged = os.path.isfile(os.path.join(here, "__init__.py"))
        program = (bool(directories) and directories[0] == CI_DIRECTORY) or \
            bool(PROGRAM_DIRECTORIES.intersection(directories)) or \
            (not packaged and any(os.path.isfile(os.path.join(root, *directories[:depth], SKILL_FILE))
                                  for depth in range(len(directories), 0, -1))) or \
            (not packaged and runs_as_program(text) and
             any(os.path.isfile(os.path.join(root, *directories[:depth], "__init__.py"))
                 for depth in range(len(directories) - 1, 0, -1)))
        return program and not serves(text)

    def _in_program_directory(self, directories: List[str]) -> bool:
        """Whether a directory of :data:`PROGRAM_DIRECTORIES` holds the file (``directories``: its
        path below the project root), and not as the programs of an agent skill (a directory with
        a ``SKILL.md`` above it: an agent runs them, with nobody watching)."""
        for index, directory in enumerate(directories):
            if directory in PROGRAM_DIRECTORIES:
                return not any(os.path.isfile(os.path.join(self.root, *directories[:above], SKILL_FILE))
                               for above in range(0, index + 1))
        return False

    def _in_example_directory(self, directories: List[str]) -> bool:
        """Whether a directory of :data:`EXAMPLE_DIRECTORIES` holds the file (``directories``: its
        path below the project root), and not as a subpackage of a package (``pkg/examples/``
        beside ``pkg/__init__.py``: the package ships it, and its own code may import it)."""
        for index, directory in enumerate(directories):
            if directory in EXAMPLE_DIRECTORIES:
                return not (index and os.path.isfile(os.path.join(self.root, *directories[:index], "__init__.py")))
        return False

    def _entry_point(self, parts: List[str]) -> bool:
        """Whether the file (``parts``: its path below the project root) is a module that a packaging
        file of the project, in its directory or one above it, names as an entry point
        (``[project.scripts]``, ``[project.gui-scripts]``, ``[project.entry-points.*]``,
        ``[tool.poetry.scripts]``, setup.cfg's ``[options.entry_points]``, ``name = module:func``
        in setup.py): a command the package installs on its users' machines."""
        for depth in range(len(parts) - 1, -1, -1):
            modules = self._entry_modules(tuple(parts[:depth]))
            below = parts[depth:]
            if modules and any(name in modules for name in _module_names(below)):
                return True
        return False

    def _entry_modules(self, directory: Tuple[str, ...]) -> frozenset:
        """The modules the packaging files of ``directory`` (below the root) name as entry points."""
        if directory not in self._entries:
            self._entries[directory] = entry_modules(os.path.join(self.root, *directory))
        return self._entries[directory]

    def named(self, script: str) -> bool:
        """Whether an automation file names ``script`` (its path below the project root,
        ``scripts/issues.py``, or only its file name): by its file name (``python scripts/issues.py``,
        ``CMD ["python", "/app/scripts/issues.py"]``), as a module run with ``-m`` (``python -m
        scripts.issues``), or without its suffix as an executable (``/srv/app/bin/release``). A
        mention that spells another existing directory of the project (``libs/cli/apps/agent``) does
        not name ``examples/graphs/agent.py``. The automation files are read and indexed once."""
        mentions = self._mentions()
        if self._unreadable:
            return True
        *own, name = script.split("/")
        stem = name[:-3] if name.endswith(".py") else name

        def same_place(dirs: str, separator: str) -> bool:
            # a mention names another script only when it spells another directory of this project
            # (``libs/cli/apps/agent``); a path reslint cannot place (a container's ``/app/tools``,
            # ``$SCRIPT_DIR``) names it: that hides nothing
            spelled = [part for part in dirs.split(separator) if part not in ("", ".")]
            if not spelled or not own or spelled[-1] == own[-1] or self.root is None:
                return True
            return not os.path.isdir(os.path.join(self.root, *spelled))

        as_file = [(dirs, "/") for dirs in mentions.paths.get(name, ())]
        as_program = [(dirs, "/") for dirs in mentions.paths.get(stem, ()) if dirs]
        as_module = [(prefix, ".") for prefix in mentions.modules.get(stem, ())]
        return any(same_place(dirs, separator) for dirs, separator in as_file + as_program + as_module)

    def _mentions(self) -> "_Mentions":
        """The paths and modules the automation files mention, read once (a file that cannot be
        read, or more than :data:`MAX_AUTOMATION_BYTES` of them, makes every script named)."""
        if self._index is None:
            self._index = _Mentions()
            total = 0
            for path in self._automation_paths():
                try:
                    text = read_regular_text(path, errors="replace")
                except OSError:
                    self._unreadable = True
                    continue
                total += len(text)
                if total > MAX_AUTOMATION_BYTES:
                    self._unreadable = True
                    break
                self._index.add(text)
        return self._index

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
