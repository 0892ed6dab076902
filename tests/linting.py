"""What the rule tests share: lint a snippet written below a module head and read back what
was reported, as (row, code) pairs with rows counted from the end of the head (so a test's
expectations read like the snippet it shows) or as the messages of one code."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Sequence, Tuple

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.engine.runner import Runner


def rows(linter: Linter, head: str, body: str, module: str = "m.py") -> List[Tuple[int, str]]:
    """(row below ``head``, code) of every finding in ``head + dedent(body)``, sorted; the file
    must lint without internal errors."""
    found, errors = linter.lint_text(head + textwrap.dedent(body), module)
    assert errors == []
    offset = head.count("\n")
    return sorted((f.location.row - offset, f.code) for f in found)


def messages(linter: Linter, head: str, body: str, code: str) -> List[str]:
    """The messages of the ``code`` findings in ``head + dedent(body)``."""
    found, _ = linter.lint_text(head + textwrap.dedent(body), "m.py")
    return [f.message for f in found if f.code == code]


def project_rows(tmp_path: Path, head: str, body: str, select: Sequence[str]) -> List[Tuple[int, str]]:
    """As :func:`rows`, through a whole run (the project pass included) of ``app.py`` in
    ``tmp_path`` with only the ``select`` codes on."""
    (tmp_path / "app.py").write_text(head + textwrap.dedent(body), encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=tuple(select)), use_cache=False).run([tmp_path / "app.py"])
    assert run.errors == []
    offset = head.count("\n")
    return sorted((f.location.row - offset, f.code) for r in run.results for f in r.findings)
