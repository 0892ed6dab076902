#!/usr/bin/env python3
"""Check on real code that the ast prefilter loses no finding (issue 8; not run in CI).

    python benchmarks/prefilter_check.py DIR [DIR ...]

Lints each directory twice in one process, as a project of its own (``--isolated``,
no cache, one worker): once as ``reslint check`` does, and once with the second
prefilter stage (:class:`reslint.semantics.prefilter.Relevance`) keeping every file. The
findings must be identical, fix edits included. Prints, per directory, the files
checked, the files each run parsed with LibCST and the findings, then every
difference; the exit status is 1 when there is one. With no DIR it checks this
interpreter's standard library.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reslint import api  # noqa: E402
from reslint.semantics import prefilter  # noqa: E402
from reslint.engine.runner import Runner  # noqa: E402


def lint(directory: Path, keep_all: bool):
    """(findings as comparable tuples, files parsed with LibCST, seconds)."""
    parsed = []
    wanted = prefilter.Relevance.wanted

    def counting(self, tree, module, is_package):
        keep = True if keep_all else wanted(self, tree, module, is_package)
        parsed.append(keep)
        return keep

    prefilter.Relevance.wanted = counting
    cwd = os.getcwd()
    started = time.perf_counter()
    try:
        os.chdir(directory)
        run = Runner(api.load(isolated=True), use_cache=False, jobs=1).run([Path(".")])
    finally:
        os.chdir(cwd)
        prefilter.Relevance.wanted = wanted
    findings = sorted((f.filename, f.location.row, f.location.column, f.code, f.message,
                       repr(f.fix)) for result in run.results for f in result.findings)
    return findings, sum(parsed), time.perf_counter() - started, len(run.results)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path)
    args = parser.parse_args(argv)
    dirs = args.dirs or [Path(sysconfig.get_paths()["stdlib"])]
    differences = 0
    for directory in dirs:
        filtered, parsed, seconds, files = lint(directory, keep_all=False)
        everything, parsed_all, seconds_all, _ = lint(directory, keep_all=True)
        lost = sorted(set(everything) - set(filtered))
        gained = sorted(set(filtered) - set(everything))
        differences += len(lost) + len(gained)
        print(f"{directory}: {files} files; LibCST parsed {parsed} (of {parsed_all} without the ast "
              f"prefilter); findings {len(filtered)} / {len(everything)}; {seconds:.1f} s / {seconds_all:.1f} s"
              + ("" if lost or gained else "; identical"), flush=True)
        for finding in lost:
            print(f"  LOST   {finding[0]}:{finding[1]}:{finding[2]}: {finding[3]} {finding[4][:100]}")
        for finding in gained:
            print(f"  GAINED {finding[0]}:{finding[1]}:{finding[2]}: {finding[3]} {finding[4][:100]}")
    print(f"differences: {differences}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
