"""``--diff-base REV``: keep only the findings that are new since a git revision.

A finding is new when the line it starts on changed since ``REV``, or when its
fingerprint (:mod:`reslint.output.fingerprints`) did not exist at ``REV``: a cross-module
finding (RES301, RES402) can be new in a file nobody touched, because a retry was added in
another one. So reslint is run a second time, with the same settings, on the tree of
``REV``. Only the first line counts, not every line of the finding (reviewdog's ``added``
filter takes any line of a diagnostic's range): a retry loop reported over a whole
function is not new because one line of its body changed.

The repository is not trusted (a pull request's checkout), so git runs no code of its:
the tree of ``REV`` is read with ``git ls-tree`` and ``git cat-file``, which apply no
filters, hooks or drivers, and its Python files and ``.gitignore`` files are written to
a temporary directory by reslint itself (regular blobs only: no links, no submodules).
The changed lines are computed here from the two texts, not by ``git diff``, which
would run the repository's clean filters on the working tree. Every git command runs
with ``core.hooksPath`` and ``core.fsmonitor`` switched off, no pager, and a revision
that starts with ``-`` is refused (it would be read as an option).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from reslint.config import Settings
from reslint.diagnostics import Finding
from reslint.engine.discovery import PYTHON_SUFFIXES

#: git's options for every command: no hooks, no file system monitor (both run programs)
_SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "--no-pager")
#: the line endings Python counts lines by (as the rows of a finding)
_LINE_END = re.compile(r"\r\n|\r|\n")


class RevisionError(Exception):
    """``--diff-base`` cannot be used: no git, not a repository, an unknown revision."""


class Git:
    """git in one repository, run without the repository's hooks and monitors."""

    def __init__(self, start: Path):
        self.exe = shutil.which("git")
        if self.exe is None:
            raise RevisionError("--diff-base needs git, and git is not on PATH")
        self.cwd = start
        top = self._run("rev-parse", "--show-toplevel", what=f"{start} is not in a git repository").strip()
        self.top = Path(top)

    def _run(self, *args: str, what: str, data: Optional[bytes] = None, text: bool = True):
        env = {**os.environ, "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
        try:
            done = subprocess.run([self.exe, *_SAFE, *args], cwd=self.cwd, input=data, capture_output=True,
                                  env=env, check=False)
        except OSError as exc:
            raise RevisionError(f"cannot run git: {exc.strerror or exc}")
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RevisionError(f"{what}" + (f" (git: {detail[-1]})" if detail else ""))
        return done.stdout.decode("utf-8", "surrogateescape") if text else done.stdout

    def commit(self, rev: str) -> str:
        """The commit id ``rev`` names."""
        if not rev or rev.startswith("-"):
            raise RevisionError(f"--diff-base: {rev!r} is not a revision")
        return self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
                         what=f"--diff-base: unknown revision {rev!r}").strip()

    def python_tree(self, commit: str, into: Path) -> None:
        """Write the Python files and ``.gitignore`` files of ``commit`` under ``into``."""
        listing = self._run("ls-tree", "-r", "-z", "--full-tree", commit, what=f"cannot list {commit}", text=False)
        wanted: List[Tuple[str, str]] = []  # (blob id, path)
        for record in listing.split(b"\0"):
            if not record:
                continue
            meta, _, raw = record.partition(b"\t")
            mode, kind, blob = meta.decode("ascii", "replace").split(" ")
            path = os.fsdecode(raw)
            if kind != "blob" or not mode.startswith("100"):
                continue  # links, submodules
            name = path.rsplit("/", 1)[-1]
            if not (name.endswith(PYTHON_SUFFIXES) or name == ".gitignore"):
                continue
            parts = path.split("/")
            if path.startswith("/") or any(p in ("", ".", "..", ".git") for p in parts):
                continue  # git does not store such paths; a crafted object might
            wanted.append((blob, path))
        if not wanted:
            return
        out = self._run("cat-file", "--batch", what=f"cannot read the files of {commit}",
                        data="".join(f"{blob}\n" for blob, _ in wanted).encode("ascii"), text=False)
        at = 0
        for blob, path in wanted:
            header_end = out.index(b"\n", at)
            size = int(out[at:header_end].split(b" ")[2])
            content = out[header_end + 1:header_end + 1 + size]
            at = header_end + 1 + size + 1
            target = into.joinpath(*path.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as handle:
                handle.write(content)


def _lines(text: str) -> List[str]:
    return _LINE_END.split(text)


def changed_rows(before: Optional[str], after: str) -> Set[int]:
    """The 1-based rows of ``after`` that are not in ``before`` (every row when there is no ``before``)."""
    new = _lines(after)
    if before is None:
        return set(range(1, len(new) + 1))
    rows: Set[int] = set()
    matcher = difflib.SequenceMatcher(None, _lines(before), new, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            rows.update(range(j1 + 1, j2 + 1))
    return rows


def _mapped(path: Path, top: Path, into: Path) -> Optional[Path]:
    """``path`` (of the working tree) in the copy of the revision's tree; ``None`` outside the repository."""
    rel = os.path.relpath(os.path.abspath(path), top)
    if rel == ".":
        return into
    if rel.startswith(".."):
        return None
    return into / rel


def new_since(rev: str, settings: Settings, paths: Sequence[Path], findings: Sequence[Finding],
              prints: Sequence[str], sources: Mapping[str, str], ignore_noqa: bool = False,
              jobs: Optional[int] = None) -> List[Finding]:
    """The ``findings`` (with their fingerprints ``prints`` and the text of their files,
    ``sources``, by display path) that are new since ``rev``; raises :class:`RevisionError`."""
    from reslint.engine.runner import Runner
    from reslint.engine.results import decode
    from reslint.output.fingerprints import fingerprints

    git = Git(settings.root)
    commit = git.commit(rev)
    top = Path(os.path.realpath(git.top))
    root = Path(os.path.realpath(settings.root))
    with tempfile.TemporaryDirectory(prefix="reslint-base-") as tmp:
        into = Path(tmp)
        git.python_tree(commit, into)
        rev_root = _mapped(root, top, into)
        if rev_root is None:
            raise RevisionError(f"--diff-base: the project root {settings.root} is outside the git repository {top}")
        rev_root.mkdir(parents=True, exist_ok=True)
        project, scope = (_mapped(Path(os.path.realpath(directory)), top, into) if directory is not None else None
                          for directory in (settings.project_root, settings.project_scope))
        rev_settings = replace(settings, root=rev_root, project_root=project, project_scope=scope)
        rev_paths = []
        for path in (list(paths) or [Path(".")]):
            mapped = _mapped(Path(os.path.realpath(path)), top, into)
            if mapped is not None and mapped.exists():
                rev_paths.append(mapped)
        old: Set[str] = set()
        if rev_paths:
            runner = Runner(rev_settings, use_cache=False, ignore_noqa=ignore_noqa, jobs=jobs)
            runner.walker.warn = lambda message: None  # the revision's tree is not what the user asked about
            results = runner.run(rev_paths).results
            rev_findings = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
            rev_sources = {r.display: r.source.text for r in results if r.findings and r.source is not None}
            old = set(fingerprints(rev_findings, rev_sources))
        changed: Dict[str, Set[int]] = {}
        new = []
        for finding, print_ in zip(findings, prints):
            if print_ not in old:
                new.append(finding)
                continue
            if finding.filename not in changed:
                changed[finding.filename] = changed_rows(_text_at(rev_root, finding.filename, decode),
                                                         sources.get(finding.filename, ""))
            if finding.location.row in changed[finding.filename]:
                new.append(finding)
    return new


def _text_at(rev_root: Path, filename: str, decode) -> Optional[str]:
    """The text of ``filename`` (a display path) in the revision's tree, ``None`` when it has none."""
    path = rev_root / filename
    if os.path.isabs(filename) or not path.is_file():
        return None
    try:
        return decode(path.read_bytes()).text
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return None
