"""Facts about the project being linted that some rules need: pinned dependency versions,
the Python versions it supports.

Read once per project root from ``pyproject.toml`` (``[project] dependencies``
and optional dependencies, ``requires-python``) and ``requirements*.txt``. Only simple upper
bounds are understood (``urllib3<2``, ``urllib3==1.26.18``, ``urllib3~=1.26``; for
``requires-python``, ``<3.12``, ``<=3.11``, ``==3.11.*``, ``~=3.11.2``). Only
regular files are read: a named pipe called ``requirements.txt`` would hang the run.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from reslint.engine.files import read_regular_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _strings(value) -> List[str]:
    """The strings of a TOML value that should be a list of strings (anything else: none)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _project_table(root: Path) -> Dict[str, Any]:
    """The ``[project]`` table of ``root/pyproject.toml`` (empty when absent or unreadable)."""
    try:
        data = tomllib.loads(read_regular_text(root / "pyproject.toml"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    # the checked repository writes this file: any value may have any type
    project = data.get("project")
    return project if isinstance(project, dict) else {}


def requires_python(root: Path) -> Optional[str]:
    """``[project] requires-python`` of the project at ``root``, or ``None``."""
    value = _project_table(Path(root)).get("requires-python")
    return value if isinstance(value, str) else None


def python_ceiling(spec: Optional[str]) -> Optional[Tuple[int, int]]:
    """The newest ``(major, minor)`` Python a ``requires-python`` specifier allows, or ``None``
    when it sets no upper bound on the minor version (``>=3.10``, ``<4``) or cannot be read.

    ``<3.12`` allows 3.11; ``<3.12.1``, ``<=3.12`` and ``==3.12.*`` allow 3.12; ``~=3.12.1``
    allows 3.12 (PEP 440 compatible release); ``~=3.12`` allows every 3.x, no ceiling."""
    if not spec:
        return None
    ceiling: Optional[Tuple[int, int]] = None
    for clause in spec.split(","):
        match = re.fullmatch(r"\s*(<=|<|===|==|~=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+|\*))?\s*", clause)
        if match is None:
            continue
        op, major, minor, micro = match.group(1), int(match.group(2)), match.group(3), match.group(4)
        if minor is None:
            continue  # `<4`, `==3`: no bound on the minor version
        bound = (major, int(minor))
        if op == "<" and micro in (None, "0") and bound[1] > 0:
            bound = (major, bound[1] - 1)
        elif op == "<" and micro in (None, "0"):
            continue  # `<4.0`: no bound on 3.x
        elif op == "~=" and micro is None:
            continue  # `~=3.10`: any 3.x from 3.10 on
        ceiling = bound if ceiling is None else min(ceiling, bound)
    return ceiling


def _requirement_lines(root: Path) -> Tuple[str, ...]:
    lines: List[str] = []
    project = _project_table(root)
    lines.extend(_strings(project.get("dependencies")))
    extras = project.get("optional-dependencies")
    for extra in (extras.values() if isinstance(extras, dict) else ()):
        lines.extend(_strings(extra))
    for path in sorted(root.glob("requirements*.txt")):
        try:
            lines.extend(read_regular_text(path, errors="replace").splitlines())
        except OSError:
            continue
    return tuple(line.strip() for line in lines if isinstance(line, str) and line.strip()
                 and not line.lstrip().startswith("#"))


def dependency_facts(root: Path) -> Tuple[str, ...]:
    """The project's requirement lines as read now (for the cache key: a new pin such as
    ``urllib3<2`` changes which fixes are offered, so cached results must not survive it)."""
    return _requirement_lines(Path(root))


def pinned_below(root: Path, package: str, major: int) -> bool:
    """Whether the project pins ``package`` to a version below ``major`` (e.g. urllib3 < 2).

    The files are read on every call (a long-lived process, such as the API's user, sees an
    edited requirements file); the parse is memoised on their text."""
    return _pinned_below(_requirement_lines(Path(root)), package, major)


@functools.lru_cache(maxsize=32)
def _pinned_below(lines: Tuple[str, ...], package: str, major: int) -> bool:
    name = re.escape(package)
    for line in lines:
        match = re.match(rf"\s*{name}\s*(?:\[[^\]]*\])?\s*(.*)", line, re.IGNORECASE)
        if not match:
            continue
        spec = match.group(1).split(";")[0]
        for op, version in re.findall(r"(<=|<|==|~=)\s*([0-9][0-9.*]*)", spec):
            first = int(version.split(".")[0])
            if (op == "<" and first <= major) or (op in ("<=", "==", "~=") and first < major):
                return True
    return False
