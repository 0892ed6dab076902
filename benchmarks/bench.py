#!/usr/bin/env python3
"""Time reslint on a corpus (cold, warm, one file changed, pre-commit, start-up)
and the peer linters that are installed, and print one table of medians.

    python benchmarks/bench.py [CORPUS_DIR] [--runs N] [--jobs 1,2] [--peers ruff,bandit]

With no CORPUS_DIR the Python standard library of this interpreter is used
(without site-packages), so the script runs anywhere. The corpus is first copied
(``*.py`` files only) to a temporary directory: the edit scenarios change files,
and the original is never touched. Each measurement is a fresh subprocess, timed
with a wall clock; its CPU time and peak resident memory come from ``os.wait4``
(the largest single process among the command and the workers it waited for).

reslint is the ``reslint`` on PATH, else ``python -m reslint``. Scenarios:

  cold         a new, empty ``--cache-dir`` for every run
  warm         the cache of the last cold run, nothing changed
  cold -jN     as cold, with ``-j N`` (only with --jobs, if reslint has the option)
  1 changed    a comment appended to one file, then all paths, warm cache
  pre-commit   a comment appended to 5 files, those 5 files named, warm cache
  --version, --help

All reslint runs write ``-f json``; the cold, warm and ``-jN`` outputs must be
byte-identical (reported under the table; the exit status is 1 if they are not,
or if reslint failed). Peers (each skipped if not on PATH): ruff (S113), bandit
(B113), pylint (missing-timeout), semgrep (one requests-without-timeout rule),
fixit (one trivial rule: the framework's own cost).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

# Directories no tool should see: installed packages, plus the directories that
# reslint and ruff exclude by default (so that bandit, pylint, semgrep and fixit,
# which exclude none of them, check the same files).
SKIP_DIRS = {
    "site-packages", "dist-packages", "__pycache__", "__pypackages__",
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox",
    ".pants.d", ".pytype", ".ruff_cache", ".reslint_cache", ".svn", ".tox", ".venv",
    "_build", "buck-out", "build", "dist", "node_modules", "venv",
}

# Files a cheap text prefilter cannot skip; the edit scenarios change such files.
TRIGGER = re.compile(rb"requests|retry|timeout")

SEMGREP_RULE = """\
rules:
  - id: requests-call-without-timeout
    languages: [python]
    severity: WARNING
    message: requests call without timeout=
    patterns:
      - pattern: requests.$METHOD(...)
      - metavariable-regex:
          metavariable: $METHOD
          regex: ^(get|post|put|patch|delete|head|options|request)$
      - pattern-not: requests.$METHOD(..., timeout=$T, ...)
"""

FIXIT_RULE = '''\
"""Trivial Fixit rule, to measure Fixit's framework cost (no metadata)."""
import libcst as cst
from fixit import LintRule

HTTP = {"get", "post", "put", "patch", "delete", "head", "options", "request"}


class TrivialCallTimeout(LintRule):
    VALID = []
    INVALID = []

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and f.attr.value in HTTP:
            if not any(a.keyword is not None and a.keyword.value == "timeout" for a in node.args):
                self.report(node, "call without timeout")
'''

FIXIT_CONFIG = """\
[tool.fixit]
root = true
enable = ["bench_fixit_rule"]
disable = ["fixit.rules"]
python-version = ""
"""

PEERS = ("ruff", "bandit", "pylint", "semgrep", "fixit")


# ---------------------------------------------------------------------------
# measuring one command


@dataclass
class Sample:
    wall_s: float
    cpu_s: Optional[float]
    rss_kb: Optional[int]
    returncode: Optional[int]
    error: str = ""  # "timeout", or the last line of a traceback


def run_once(cmd: Sequence[str], cwd: Path, stdout_path: Optional[Path] = None,
             env: Optional[Dict[str, str]] = None, timeout_s: Optional[float] = None) -> Sample:
    """Run ``cmd`` once; stdout goes to ``stdout_path`` (or nowhere)."""
    with open(stdout_path or os.devnull, "wb") as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        timed_out = threading.Event()

        def kill() -> None:
            timed_out.set()
            _kill_group(proc.pid)

        timer = threading.Timer(timeout_s, kill) if timeout_s else None
        if timer:
            timer.start()
        try:
            cpu_s = rss_kb = None
            if hasattr(os, "wait4"):
                _, status, usage = os.wait4(proc.pid, 0)
                wall_s = time.perf_counter() - start
                proc.returncode = os.waitstatus_to_exitcode(status)
                cpu_s = usage.ru_utime + usage.ru_stime
                # kilobytes on Linux, bytes on macOS
                rss_kb = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
            else:  # no wait4 (Windows): no CPU time or memory figures
                try:
                    proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    timed_out.set()
                    proc.kill()
                    proc.wait(timeout=60)
                wall_s = time.perf_counter() - start
        except BaseException:  # Ctrl-C: do not leave the tool running in its own session
            _kill_group(proc.pid)
            raise
        finally:
            if timer:
                timer.cancel()
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    error = ""
    if timed_out.is_set():
        error = f"timeout after {timeout_s:g} s"
    elif "Traceback (most recent call last)" in stderr:
        lines = [line for line in stderr.strip().splitlines() if line.strip()]
        error = lines[-1].strip() if lines else "traceback"
    elif proc.returncode < 0:
        error = f"killed by signal {-proc.returncode}"
    return Sample(wall_s, cpu_s, rss_kb, proc.returncode, error)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


@dataclass
class Row:
    tool: str
    scenario: str
    command: List[str]
    samples: List[Sample] = field(default_factory=list)
    ok_codes: Optional[set] = None  # exit codes that mean "ran"; None: any
    note: str = ""

    def good(self) -> List[Sample]:
        return [s for s in self.samples if not self.problem(s)]

    def problem(self, s: Sample) -> str:
        if s.error:
            return s.error
        if self.ok_codes is not None and s.returncode not in self.ok_codes:
            return f"exit status {s.returncode}"
        return ""

    def wall(self) -> Optional[float]:
        good = self.good()
        return statistics.median(s.wall_s for s in good) if good else None

    def cpu(self) -> Optional[float]:
        cpus = [s.cpu_s for s in self.good() if s.cpu_s is not None]
        return statistics.median(cpus) if cpus else None

    def peak_mb(self) -> Optional[float]:
        rss = [s.rss_kb for s in self.good() if s.rss_kb is not None]
        return max(rss) / 1024 if rss else None

    def problems(self) -> str:
        bad = [self.problem(s) for s in self.samples if self.problem(s)]
        if not bad:
            return ""
        return f"{len(bad)} of {len(self.samples)} runs failed: {bad[0]}"


class Bench:
    def __init__(self, args, tmp: Path, corpus: Path):
        self.args = args
        self.tmp = tmp
        self.corpus = corpus
        self.rows: List[Row] = []
        self.outputs: Dict[str, Path] = {}  # label -> reslint JSON output, for determinism
        self.counter = 0

    def measure(self, row: Row, runs: int, before=None, stdout_label: Optional[str] = None,
                env: Optional[Dict[str, str]] = None) -> Row:
        """Run ``row.command`` ``runs`` times; ``before(i)`` may return a new command."""
        self.rows.append(row)
        for i in range(runs):
            cmd = before(i) if before else row.command
            row.command = cmd
            out = None
            if stdout_label:
                out = self.tmp / "out" / f"{stdout_label}-{i + 1}.json"
                self.outputs[f"{stdout_label} run {i + 1}"] = out
            sample = run_once(cmd, self.corpus, out, env, self.args.timeout)
            row.samples.append(sample)
            problem = row.problem(sample)
            log(f"  {row.tool} {row.scenario} run {i + 1}/{runs}: {sample.wall_s:.3f} s"
                + (f", {sample.rss_kb / 1024:.0f} MB" if sample.rss_kb else "")
                + (f"  [{problem}]" if problem else ""))
            if sample.error.startswith("timeout"):
                break  # the other runs would time out too
        return row


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# corpus


@dataclass
class CorpusStats:
    files: int = 0
    lines: int = 0
    bytes: int = 0
    skipped_dirs: int = 0
    excluded: List[str] = field(default_factory=list)


def copy_corpus(src: Path, dst: Path, excludes: Sequence[str]) -> CorpusStats:
    """Copy the ``*.py`` files of ``src`` to ``dst``, leaving out SKIP_DIRS and ``excludes``."""
    stats = CorpusStats()
    for dirpath, dirnames, filenames in os.walk(src):
        kept = sorted(d for d in dirnames if d not in SKIP_DIRS)
        stats.skipped_dirs += len(dirnames) - len(kept)
        dirnames[:] = kept
        rel_dir = Path(dirpath).relative_to(src)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            rel = (rel_dir / name).as_posix()
            if any(fnmatch.fnmatch(rel, pattern) for pattern in excludes):
                stats.excluded.append(rel)
                continue
            source = Path(dirpath) / name
            if not source.is_file():  # a dangling or directory symlink
                continue
            data = source.read_bytes()
            target = dst / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            stats.files += 1
            stats.lines += data.count(b"\n")
            stats.bytes += len(data)
    return stats


def pick_files(corpus: Path, count: int) -> List[str]:
    """``count`` files spread over the size range of the files that mention
    requests/retry/timeout (a prefilter has to parse these), smallest first."""
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.py"))
    sized = []
    for rel in files:
        data = (corpus / rel).read_bytes()
        if TRIGGER.search(data):
            sized.append((len(data), rel))
    if len(sized) < count:
        sized = [((corpus / rel).stat().st_size, rel) for rel in files]
    sized.sort()
    if count == 1:
        return [sized[len(sized) // 2][1]]
    # the 10th, 30th, 50th, 70th and 90th percentiles for count=5
    picks = [sized[min(len(sized) - 1, int(len(sized) * (2 * k + 1) / (2 * count)))][1] for k in range(count)]
    return list(dict.fromkeys(picks))


def append_comment(path: Path, text: str) -> None:
    with open(path, "ab") as fh:
        fh.write(f"\n# {text}\n".encode())


# ---------------------------------------------------------------------------
# tools


def reslint_command(repo_root: Path):
    """The reslint command and the environment to run it in."""
    env = dict(os.environ)
    exe = shutil.which("reslint")
    if exe:
        return [exe], env
    import importlib.util

    if importlib.util.find_spec("reslint") is None and (repo_root / "reslint").is_dir():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(repo_root), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "reslint"], env


def version_of(cmd: Sequence[str], env=None) -> str:
    try:
        done = subprocess.run(list(cmd) + ["--version"], capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0].strip() if text else "?"


def usable_cores() -> int:
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def machine_line() -> str:
    try:
        load = "load average %.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg()
    except (AttributeError, OSError):
        load = "load average unavailable"
    return f"{load}; {os.cpu_count()} cores, {usable_cores()} usable"


def peer_rows(tmp: Path, cores: int) -> List[Row]:
    """The peers found on PATH, as rows to measure (ruff's warm cache is primed here)."""
    rows = []
    empty_rc = tmp / "empty.pylintrc"
    empty_rc.write_text("")
    (tmp / "semgrep-rule.yaml").write_text(SEMGREP_RULE)
    (tmp / "fixit-rule").mkdir(exist_ok=True)
    (tmp / "fixit-rule" / "bench_fixit_rule.py").write_text(FIXIT_RULE)
    (tmp / "fixit-trivial.toml").write_text(FIXIT_CONFIG)  # applies to files below tmp/
    for name in PEERS:
        exe = shutil.which(name)
        if not exe:
            log(f"{name}: not on PATH, skipped")
            continue
        if name == "ruff":
            rows.append(Row("ruff", "S113, no cache",
                            [exe, "check", "--isolated", "--no-cache", "--select", "S113", "--exit-zero", "."],
                            ok_codes={0}))
            rows.append(Row("ruff", "S113, warm cache",
                            [exe, "check", "--isolated", "--cache-dir", str(tmp / "ruff-cache"),
                             "--select", "S113", "--exit-zero", "."], ok_codes={0}))
        elif name == "bandit":
            rows.append(Row("bandit", "B113", [exe, "-r", ".", "-t", "B113", "-q", "-f", "txt"], ok_codes={0, 1}))
        elif name == "pylint":
            # a bit mask; 32 is a usage error, 1 a fatal message (e.g. a file it cannot parse)
            rows.append(Row("pylint", f"missing-timeout, -j {cores}",
                            [exe, f"--rcfile={empty_rc}", "--disable=all", "--enable=missing-timeout",
                             "--recursive=y", "--score=n", "-j", str(cores), "."],
                            ok_codes={c for c in range(64) if not c & 32}))
        elif name == "semgrep":
            rows.append(Row("semgrep", f"1 rule, -j {cores}",
                            [exe, "scan", "--config", str(tmp / "semgrep-rule.yaml"), "--metrics=off",
                             "--disable-version-check", "--project-root", ".", "--quiet", "-j", str(cores), "."],
                            ok_codes={0, 1}))
        elif name == "fixit":
            rows.append(Row("fixit", "1 trivial rule (framework)",
                            [exe, "-c", str(tmp / "fixit-trivial.toml"), "lint", "."],
                            ok_codes={0, 1, 2, 3}))  # 1: findings, 2: files it could not lint
    return rows


def peer_env(tool: str, tmp: Path) -> Dict[str, str]:
    env = dict(os.environ)
    if tool == "fixit":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp / "fixit-rule"), env.get("PYTHONPATH")]))
    if tool == "semgrep":
        env["SEMGREP_SEND_METRICS"] = "off"
        env["SEMGREP_ENABLE_VERSION_CHECK"] = "0"  # `semgrep --version` retries it for minutes offline
    return env


# ---------------------------------------------------------------------------
# report


def fmt_s(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x:.3f}" if x < 10 else f"{x:.2f}" if x < 100 else f"{x:.1f}"


def fmt_ratio(x: Optional[float]) -> str:
    if x is None:
        return "—"
    return f"{x:.2g}" if x < 0.1 else f"{x:.2f}" if x < 10 else f"{x:.1f}"


def table(rows: List[Row], base: Optional[float]) -> str:
    head = ["tool", "scenario", "runs", "median wall s", "median CPU s", "peak MB", "× reslint cold", "note"]
    body = []
    for r in rows:
        wall = r.wall()
        peak = r.peak_mb()
        ratio = wall / base if wall is not None and base else None
        note = "; ".join(filter(None, [r.note, r.problems()]))
        body.append([r.tool, r.scenario, str(len(r.good())), fmt_s(wall), fmt_s(r.cpu()),
                     f"{peak:.0f}" if peak is not None else "—", fmt_ratio(ratio), note])
    widths = [max(len(line[i]) for line in [head] + body) for i in range(len(head))]
    right = {2, 3, 4, 5, 6}

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), rule] + [line(b) for b in body])


def determinism(outputs: Dict[str, Path]) -> Tuple[bool, str]:
    present = {label: path for label, path in outputs.items() if path.exists()}
    if len(present) < 2:
        return False, "JSON determinism: not checked (fewer than two reslint JSON outputs)"
    labels = list(present)
    first = present[labels[0]].read_bytes()
    differ = [label for label in labels[1:] if present[label].read_bytes() != first]
    digest = hashlib.sha256(first).hexdigest()[:12]
    try:
        findings = f"{len(json.loads(first))} findings"
    except ValueError:
        findings = "not valid JSON"
    if differ:
        return False, (f"JSON determinism: DIFFERENT — {', '.join(differ)} differ from {labels[0]} "
                       f"({len(labels)} outputs compared)")
    return True, (f"JSON determinism: byte-identical across {len(labels)} outputs "
                  f"({', '.join(labels)}); {findings}, sha256 {digest}…")


# ---------------------------------------------------------------------------


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", nargs="?", type=Path,
                    help="directory of Python files (default: this interpreter's standard library)")
    ap.add_argument("--runs", type=int, default=3, help="runs per scenario (default 3); the table shows medians")
    ap.add_argument("--peer-runs", type=int, help="runs per peer (default: --runs)")
    ap.add_argument("--jobs", default="",
                    help="comma-separated -j values for extra cold runs, e.g. 1,2 (needs reslint's -j option)")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help=f"peers to run if installed (default {','.join(PEERS)}); '' for none")
    ap.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                    help="leave files matching GLOB (relative to the corpus) out of the copy; repeatable")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run before it is killed (default 900)")
    ap.add_argument("--reslint", help="the reslint command (default: `reslint` on PATH, else `python -m reslint`)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (corpus copy, outputs)")
    ap.add_argument("--save", type=Path, help="also write every sample as JSON to this file")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    repo_root = Path(__file__).resolve().parent.parent
    source = args.corpus or Path(sysconfig.get_paths()["stdlib"])
    if not source.is_dir():
        sys.exit(f"{source}: not a directory")
    source = source.resolve()
    cores = usable_cores()
    start_machine = machine_line()
    print(f"start: {start_machine}")

    tmp = Path(tempfile.mkdtemp(prefix="reslint-bench-"))
    try:
        return run(args, repo_root, source, tmp, cores, start_machine)
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args, repo_root: Path, source: Path, tmp: Path, cores: int, start_machine: str) -> int:
    corpus = tmp / "corpus"
    corpus.mkdir()
    (tmp / "out").mkdir()
    log(f"copying {source} to {corpus} …")
    stats = copy_corpus(source, corpus, args.exclude)
    if not stats.files:
        sys.exit(f"{source}: no Python files")
    (corpus / ".semgrepignore").write_text("")  # otherwise semgrep skips tests/ by default

    if args.reslint:
        reslint, renv = shlex.split(args.reslint), dict(os.environ)
    else:
        reslint, renv = reslint_command(repo_root)
    versions = {"reslint": version_of(reslint, renv)}
    has_jobs = "--jobs" in subprocess.run(reslint + ["check", "--help"], capture_output=True, text=True,
                                          env=renv, timeout=120).stdout
    jobs = [int(j) for j in args.jobs.split(",") if j.strip()]
    if jobs and not has_jobs:
        log("reslint check has no --jobs option (yet): --jobs ignored")
        jobs = []

    wanted = {p.strip() for p in args.peers.split(",") if p.strip()}
    peers = [r for r in peer_rows(tmp, cores) if r.tool in wanted]
    for tool in dict.fromkeys(r.tool for r in peers):
        exe = next(r.command[0] for r in peers if r.tool == tool)
        versions[tool] = version_of([exe], peer_env(tool, tmp))

    print(f"corpus: {source} → {stats.files} files, {stats.lines:,} lines, {stats.bytes / 1e6:.1f} MB "
          f"({stats.skipped_dirs} directories such as site-packages/venv/build left out"
          + (f"; excluded {len(stats.excluded)} files: {', '.join(stats.excluded[:5])}" if stats.excluded else "")
          + ")")
    print("tools: " + "; ".join(f"{k} = {v}" for k, v in versions.items()))
    print(f"python: {sys.version.split()[0]} ({sys.platform}); reslint command: {' '.join(reslint)}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("warning: PYTHONDONTWRITEBYTECODE is set: modules without a .pyc (e.g. an editable "
              "install) are compiled at every start")
    sys.stdout.flush()

    bench = Bench(args, tmp, corpus)
    runs = args.runs
    ok_reslint = {0, 1}  # 1: findings

    def check(cache_dir: Path, paths=(".",), extra=()) -> List[str]:
        return reslint + ["check", "--isolated", "-f", "json", "--cache-dir", str(cache_dir), *extra, *paths]

    # (e) start-up
    for flag in ("--version", "--help"):
        bench.measure(Row("reslint", flag, reslint + [flag], ok_codes={0}), runs, env=renv)

    # (a) cold: a new cache directory each run
    cold_dirs = [tmp / f"cache-cold-{i + 1}" for i in range(runs)]
    cold = Row("reslint", "cold", [], ok_codes=ok_reslint, note="new --cache-dir per run")
    bench.measure(cold, runs, before=lambda i: check(cold_dirs[i]), stdout_label="cold", env=renv)
    warm_dir = cold_dirs[-1]

    # (b) warm: the last cold run's cache, nothing changed
    bench.measure(Row("reslint", "warm", check(warm_dir), ok_codes=ok_reslint, note="nothing changed"),
                  runs, stdout_label="warm", env=renv)

    for j in jobs:
        dirs = [tmp / f"cache-cold-j{j}-{i + 1}" for i in range(runs)]
        bench.measure(Row("reslint", f"cold -j{j}", [], ok_codes=ok_reslint),
                      runs, before=lambda i, d=dirs, j=j: check(d[i], extra=("-j", str(j))),
                      stdout_label=f"cold-j{j}", env=renv)

    # peers, on the unedited copy
    peer_runs = args.peer_runs or runs
    for row in peers:
        env = peer_env(row.tool, tmp)
        if "warm cache" in row.scenario:  # prime it, untimed
            run_once(row.command, corpus, None, env, args.timeout)
        bench.measure(row, peer_runs, env=env)

    # (c) one file changed, all paths
    one = pick_files(corpus, 1)[0]

    def edit_one(i: int) -> List[str]:
        append_comment(corpus / one, f"reslint bench: one file changed, run {i + 1}")
        return check(warm_dir)

    bench.measure(Row("reslint", "1 file changed", [], ok_codes=ok_reslint, note=f"edited {one}"),
                  runs, before=edit_one, env=renv)

    # (d) pre-commit: 5 changed files named explicitly
    five = pick_files(corpus, 5)

    def edit_five(i: int) -> List[str]:
        for rel in five:
            append_comment(corpus / rel, f"reslint bench: pre-commit, run {i + 1}")
        return check(warm_dir, paths=five)

    bench.measure(Row("reslint", "pre-commit, 5 files", [], ok_codes=ok_reslint,
                      note=f"{len(five)} files named, warm cache"),
                  runs, before=edit_five, env=renv)

    # report
    base = cold.wall()
    print()
    print(table(bench.rows, base))
    print()
    same, verdict = determinism(bench.outputs)
    print(verdict)
    reslint_failed = [r for r in bench.rows if r.tool == "reslint" and r.problems()]
    if reslint_failed:
        print("reslint FAILED in: " + ", ".join(f"{r.scenario} ({r.problems()})" for r in reslint_failed))
    print(f"pre-commit files: {', '.join(five)}")
    print("commands (cwd = the corpus copy):")
    for r in bench.rows:
        print(f"  {r.tool} {r.scenario}: {' '.join(shlex.quote(c) for c in r.command).replace(str(tmp), '$TMP')}")
    print(f"start: {start_machine}")
    print(f"end:   {machine_line()}")

    if args.save:
        args.save.write_text(json.dumps({
            "corpus": {"source": str(source), "files": stats.files, "lines": stats.lines, "bytes": stats.bytes},
            "versions": versions, "machine_start": start_machine, "machine_end": machine_line(),
            "determinism": verdict,
            "rows": [{"tool": r.tool, "scenario": r.scenario, "command": r.command, "note": r.note,
                      "ok_codes": sorted(r.ok_codes) if r.ok_codes is not None else None,
                      "samples": [vars(s) for s in r.samples]} for r in bench.rows],
        }, indent=2))
    return 0 if same and not reslint_failed else 1


if __name__ == "__main__":
    sys.exit(main())
