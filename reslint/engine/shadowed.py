"""Shadowed modules: module files no import can load.

A module file ``pkg/name.py`` beside a package directory ``pkg/name/`` (one with an
``__init__.py``) is never imported: Python's path finder looks for a package of the name
before a module of it, so ``import pkg.name`` loads the package, whatever the module file
holds (https://docs.python.org/3/reference/import.html#regular-packages; the finder's
order: CPython ``importlib._bootstrap_external.FileFinder.find_spec``, which checks the
directory first). Such a file is left over from turning a module into a package, and its
code runs only if something loads it by its path or runs it as a program.

So a shadowed module's findings are not reported, unless the file may still run:

- it runs as a program (a module-level ``if __name__ == "__main__":``), or an automation file
  of the project names it (:meth:`reslint.engine.scripts.OperatorScripts.named`);
- another Python file of the project spells its file name (``"name.py"``, ``/name.py``, in a
  string or a comment): it may load it by path;
- a Python file of the project, not test code, spells a way of loading a file by its path
  (``spec_from_file_location``, ``SourceFileLoader``, ``runpy.run_path``, ``imp.load_source``): a
  plugin loader may build the path from a pattern (``glob("*.py")``); a test's loads its fixtures.

In the judged sample (``benchmarks/judged/``) every finding in a shadowed module that nothing
loads was judged false (seven, in an agent server's legacy providers module), and the three in a
shadowed module that its package loads by path were judged true. Each file left out is named in
a warning, so the run says what it did not report.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from reslint.engine.discovery import relative
from reslint.engine.project_text import Mentions


def shadowing_package(path: str) -> Optional[str]:
    """The package directory that shadows the module file at ``path`` (``pkg/name/`` for
    ``pkg/name.py``, holding an ``__init__.py``), or ``None``."""
    directory, filename = os.path.split(path)
    stem, suffix = os.path.splitext(filename)
    if suffix != ".py" or not stem.isidentifier() or stem == "__init__":
        return None
    package = os.path.join(directory, stem)
    return package if os.path.isfile(os.path.join(package, "__init__.py")) else None


#: the standard library's ways of running a file by its path (importlib.util, importlib.machinery, runpy,
#: the old imp): a project that spells one may load any module file, by a pattern it builds
PATH_LOADERS = frozenset({"spec_from_file_location", "SourceFileLoader", "run_path", "load_source"})


class ShadowedModules:
    """Tells which module files of a project are shadowed and loaded by nothing (module
    docstring). ``root``: the project root (or the run's root); ``None``: none is known, so no
    file is left out."""

    def __init__(self, root: Optional[Path], is_test=None):
        """``is_test(path relative to the root)``: whether a file is test code, whose loaders by a
        pattern load its own fixtures (``None``: no file is)."""
        self.root = root
        self.is_test = is_test or (lambda path: False)

    def left_out(self, files: List[Tuple[str, Optional[str]]], named) -> Dict[str, str]:
        """For each shadowed module nothing loads among ``files`` ((path, source text or ``None``:
        not known)), its path mapped to the shadowing package's path relative to the root.
        ``named(relative_path)``: whether an automation file names a file. The project's Python
        files are searched once, for every candidate's file name at a time."""
        if self.root is None:
            return {}
        from reslint.engine.scripts import runs_as_program

        root = os.path.realpath(self.root)
        candidates: Dict[str, str] = {}
        for path, text in files:
            package = shadowing_package(path) if text is not None else None
            if package is None:
                continue
            below = relative(os.path.realpath(path), root)
            if below is None or runs_as_program(text) or named(below):
                continue
            candidates[path] = relative(os.path.realpath(package), root) or package
        if not candidates:
            return {}
        names = {os.path.basename(path) for path in candidates}
        mentions = Mentions(self.root, names | PATH_LOADERS)
        loaders = {path for word in PATH_LOADERS for path in mentions.files.get(word, ())}
        if any(not self.is_test(relative(path, root) or path) for path in loaders):
            return {}  # a loader by path (a plugin directory's glob) may load any of them
        return {path: package for path, package in candidates.items()
                if not mentions.elsewhere(os.path.basename(path), path)}

