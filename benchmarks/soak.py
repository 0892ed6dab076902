#!/usr/bin/env python3
"""Real-code soak test of ``reslint --fix --unsafe-fixes`` (issue 7; not run in CI).

    python benchmarks/soak.py [VENV] [--keep] [--reslint "CMD"] [--only stdlib|packages]

Copies the ``*.py``/``*.pyi`` files of this interpreter's standard library (the
``sysconfig`` stdlib path, without ``site-packages``) and of the installed
site-packages of VENV (default: the environment of the interpreter running this
script) to a temporary folder (``stdlib/`` and ``packages/``: not ``site-packages``,
which reslint excludes by default), makes it a git repository, and then:

1. ``reslint -f json --no-cache --isolated .``: the findings before fixing, with the
   rows of each finding and of each fix edit;
2. ``reslint --fix --unsafe-fixes --no-cache --isolated .`` (the first run), then
   ``git diff``: each changed file must still compile, and each changed line must lie
   on the rows of a finding or of a fix edit from step 1;
3. the same command again (the second run), which must change nothing.

It prints the number of files, crashes (exit status 2, killed by a signal, or a
traceback), internal errors, files unparseable after the fix, changes made by the
second run, and changed lines outside the finding rows; everything but the counts
should be zero. The exit status is 0 when that holds, else 1.
"""

from __future__ import annotations

import argparse
import codecs
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".pyi")
SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages", ".git"}
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def log(message: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def site_packages_of(venv: Optional[str]) -> List[Path]:
    """The site-packages directories of ``venv`` (default: the running interpreter's)."""
    if venv is None:
        paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        return sorted(Path(p) for p in paths if Path(p).is_dir())
    found = glob.glob(os.path.join(venv, "lib", "python*", "site-packages")) + \
        glob.glob(os.path.join(venv, "Lib", "site-packages"))
    if not found:
        raise SystemExit(f"soak: no site-packages under {venv}")
    return sorted({Path(p).resolve() for p in found})


def copy_python_files(src: Path, dst: Path) -> int:
    """Copy the Python files of ``src`` into ``dst`` (symlinks to files are copied as files)."""
    count = 0
    for directory, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        rel = Path(directory).relative_to(src)
        for name in sorted(files):
            if not name.endswith(SUFFIXES):
                continue
            source = Path(directory) / name
            target = dst / rel / name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            except OSError as exc:
                log(f"skipped {source}: {exc}")
                continue
            count += 1
    return count


def reslint_command(option: Optional[str]) -> Tuple[List[str], Dict[str, str]]:
    env = dict(os.environ, NO_COLOR="1")
    env.pop("RESLINT_CACHE_DIR", None)
    if option:
        return shlex.split(option), env
    import importlib.util

    if importlib.util.find_spec("reslint") is None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "reslint"], env


def git(root: Path, *args: str, check: bool = True) -> bytes:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    if check and done.returncode != 0:
        raise SystemExit(f"soak: git {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
    return done.stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=soak", "-c", "user.email=soak@example.invalid", "commit", "-q",
        "--allow-empty", "--no-verify", "-m", message)


def run_reslint(cmd: Sequence[str], env, root: Path, args: Sequence[str], label: str, timeout: float):
    log(f"{label}: {' '.join(cmd)} {' '.join(args)}")
    started = time.monotonic()
    try:
        done = subprocess.run([*cmd, *args], cwd=root, env=env, capture_output=True, timeout=timeout)
        code, out, err = done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as exc:
        code, out, err = None, exc.stdout or b"", (exc.stderr or b"").decode("utf-8", "replace")
    elapsed = time.monotonic() - started
    log(f"{label}: exit status {code} after {elapsed:.0f} s")
    return code, out, err, elapsed


def crashed(code: Optional[int], err: str) -> bool:
    return code is None or code < 0 or code == 2 or "Traceback (most recent call last)" in err


def error_lines(err: str) -> List[str]:
    return [line for line in err.splitlines() if line.startswith("reslint: error:")]


def allowed_rows(records: List[dict]) -> Dict[str, Set[int]]:
    """Per file, the rows of every finding and of every fix edit."""
    rows: Dict[str, Set[int]] = defaultdict(set)
    for record in records:
        name = record["filename"]
        rows[name].update(range(record["location"]["row"], record["end_location"]["row"] + 1))
        for edit in (record.get("fix") or {}).get("edits", ()):
            rows[name].update(range(edit["location"]["row"], edit["end_location"]["row"] + 1))
    return rows


def _git_path(text: str) -> str:
    if text.startswith('"') and text.endswith('"'):  # C-style quoted by git
        raw = codecs.escape_decode(text[1:-1].encode("utf-8", "surrogateescape"))[0]
        text = raw.decode("utf-8", "surrogateescape")
    return text[2:] if text.startswith(("a/", "b/")) else text


def changed_lines_outside(diff: str, allowed: Dict[str, Set[int]]) -> Tuple[int, int, List[str]]:
    """(changed lines, changed lines outside the allowed rows, examples) of a ``git diff -U0``."""
    total = outside = 0
    examples: List[str] = []
    path = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = _git_path(line[4:])
            continue
        match = HUNK.match(line)
        if not match or path is None:
            continue
        start, count = int(match.group(1)), int(match.group(2) or "1")
        added = int(match.group(4) or "1")
        rows = allowed.get(path, set())
        if count == 0:  # a pure insertion after old line `start`
            total += added
            if start not in rows and start + 1 not in rows:
                outside += added
                examples.append(f"{path}: {added} line(s) inserted after line {start}")
            continue
        total += max(count, added)
        bad = [row for row in range(start, start + count) if row not in rows]
        if bad:
            outside += len(bad)
            examples.append(f"{path}: line(s) {bad[0]}{'-' + str(bad[-1]) if len(bad) > 1 else ''}")
    return total, outside, examples


def compiles(data: bytes, name: str) -> Optional[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, name, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return f"{type(exc).__name__}: {exc}"
    return None


def files_checked(root: Path) -> int:
    """The files reslint checks in ``root`` (its default excludes apply: ``venv``, ``build``, ...)."""
    sys.path.insert(0, str(REPO))
    try:
        from reslint.config import Settings
        from reslint.engine.discovery import Walker

        settings = Settings(root=root)
        return len(Walker(root, settings.exclude + settings.extend_exclude, settings.respect_gitignore).expand([root]))
    except Exception as exc:  # noqa: BLE001 - only a count
        log(f"cannot count the files reslint checks: {exc}")
        return -1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("venv", nargs="?", help="a virtual environment whose site-packages to copy (default: this "
                                            "interpreter's)")
    ap.add_argument("--only", choices=("stdlib", "packages"), help="copy only one of the two")
    ap.add_argument("--reslint", help="the reslint command (default: this interpreter's `-m reslint`)")
    ap.add_argument("--timeout", type=float, default=4 * 3600, help="seconds per reslint run (default 4 h)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args(argv)

    cmd, env = reslint_command(args.reslint)
    tmp = Path(tempfile.mkdtemp(prefix="reslint-soak-"))
    root = tmp / "corpus"
    root.mkdir()
    try:
        sources = []
        if args.only != "packages":
            stdlib = Path(sysconfig.get_paths()["stdlib"])
            sources.append(("stdlib", stdlib))
        if args.only != "stdlib":
            for i, path in enumerate(site_packages_of(args.venv)):
                sources.append((f"packages{i or ''}", path))
        copied = 0
        for name, path in sources:
            count = copy_python_files(path, root / name)
            log(f"copied {count} files from {path} to {name}/")
            copied += count
        git(root, "init", "-q")
        git(root, "config", "core.autocrlf", "false")
        git(root, "config", "core.quotepath", "false")
        commit(root, "original")
        checked = files_checked(root)
        version = subprocess.run([*cmd, "--version"], capture_output=True, text=True, env=env).stdout.strip()

        # 1. the findings, with the rows of findings and fix edits
        code, out, err, t_json = run_reslint(cmd, env, root, ["-f", "json", "--no-cache", "--isolated", "."],
                                             "findings", args.timeout)
        crashes = [("findings (-f json)", code, err)] if crashed(code, err) else []
        try:
            records = json.loads(out.decode("utf-8", "surrogateescape"))
        except ValueError:
            records = []
        allowed = allowed_rows(records)
        with_fix = sum(1 for r in records if r.get("fix"))

        # 2. the first --fix run
        fix_args = ["--fix", "--unsafe-fixes", "--no-cache", "--isolated", "-q", "."]
        code1, _, err1, t_fix1 = run_reslint(cmd, env, root, fix_args, "first --fix", args.timeout)
        if crashed(code1, err1):
            crashes.append(("first --fix", code1, err1))
        status = git(root, "status", "--porcelain", "-z", "--untracked-files=all").decode("utf-8", "surrogateescape")
        entries = [e for e in status.split("\0") if e]
        changed = sorted(e[3:] for e in entries if e[:2].strip() == "M")
        strays = sorted(e[3:] for e in entries if e[:2] != " M" and e[:2].strip() != "M")
        diff = git(root, "diff", "-U0", "--no-color", "-a", "--no-ext-diff").decode("utf-8", "surrogateescape")
        total_lines, outside, outside_examples = changed_lines_outside(diff, allowed)
        unparseable = []
        for rel in changed:
            path = root / rel
            problem = compiles(path.read_bytes(), rel)
            if problem is not None:
                before = compiles(git(root, "show", f"HEAD:{rel}"), rel)
                unparseable.append(f"{rel}: {problem}" + ("" if before is None else " (did not compile before)"))
        commit(root, "first --fix")

        # 3. the second --fix run
        code2, _, err2, t_fix2 = run_reslint(cmd, env, root, fix_args, "second --fix", args.timeout)
        if crashed(code2, err2):
            crashes.append(("second --fix", code2, err2))
        status2 = git(root, "status", "--porcelain", "-z", "--untracked-files=all").decode("utf-8", "surrogateescape")
        second_changes = sorted(e[3:] for e in status2.split("\0") if e)

        internal = sorted(set(error_lines(err) + error_lines(err1) + error_lines(err2)))
        ok = not crashes and not unparseable and not second_changes and outside == 0 and not strays
        lines = [
            f"reslint soak — {version}, Python {sys.version.split()[0]}",
            f"corpus:                         {', '.join(f'{n}/ = {p}' for n, p in sources)}",
            f"files copied:                   {copied}",
            f"files checked by reslint:       {checked}",
            f"findings before fixing:         {len(records)} ({with_fix} with a fix)",
            f"run times:                      -f json {t_json:.0f} s, first --fix {t_fix1:.0f} s, "
            f"second --fix {t_fix2:.0f} s",
            f"exit statuses:                  -f json {code}, first --fix {code1}, second --fix {code2}",
            f"crashes:                        {len(crashes)} (runs with exit status 2, a signal or a traceback; "
            f"{sum(1 for _, c, e in crashes if c is None or c < 0 or 'Traceback' in e)} with a signal or traceback)",
            f"internal errors (messages):     {len(internal)}",
            f"files changed by the first run: {len(changed)} ({total_lines} lines)",
            f"unparseable after the fix:      {len(unparseable)}",
            f"changes made by the second run: {len(second_changes)} files",
            f"changed lines outside findings: {outside}",
            f"stray files left (temp files):  {len(strays)}",
            f"verdict:                        {'OK' if ok else 'PROBLEMS'}",
        ]
        for title, items in (("crashes", [f"{label}: exit status {c}; {e.strip().splitlines()[-1] if e.strip() else ''}"
                                           for label, c, e in crashes]),
                             ("internal errors", internal), ("unparseable after the fix", unparseable),
                             ("changed by the second run", second_changes),
                             ("changed lines outside findings", outside_examples), ("stray files", strays)):
            if items:
                lines.append(f"-- {title} ({len(items)}; first 20):")
                lines.extend(f"   {item}" for item in items[:20])
        print("\n".join(lines))
        if args.keep:
            print(f"kept: {root}")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
