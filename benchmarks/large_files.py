#!/usr/bin/env python3
"""Time reslint on pathological files: many findings in one file, one huge line.

    python benchmarks/large_files.py [--cases a,b] [--formats json,full] [--scale F]

reslint runs on strangers' pull requests in CI, so the work per finding must not grow
with the file: a crafted file must not cost minutes. Each case below is generated in a
temporary directory and linted once per format with ``reslint --isolated --no-cache
-f FORMAT FILE`` (``fix`` runs ``--fix --unsafe-fixes`` on a copy); the script prints the
file's size, the findings reported, the wall-clock seconds and the peak memory of each
run. There are no pass/fail thresholds: the figures are read against those in
``benchmarks/README.md``. A run is killed after ``--timeout`` seconds, and its address
space is limited to ``--max-memory-mb`` (a quadratic code frame once took 24 GB).

reslint is the ``reslint`` on PATH, else ``python -m reslint`` (or ``--reslint "CMD"``).
It needs only the Python standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

#: the call every case repeats: one RES101 (no timeout) each, 76 characters with its line end
URL = "http://example.com/api/v1/resource/items/"
#: calls in a 1 MB case (at --scale 1)
CALLS_PER_MB = 13_000


def call(i: int) -> str:
    """``requests.get("http://example.com/api/v1/resource/items/000…i")``: 75 characters."""
    return f'requests.get("{URL}{i:018d}")'


def calls_on_lines(n: int) -> str:
    """One call per line: n findings in n lines."""
    return "import requests\n" + "".join(call(i) + "\n" for i in range(n))


def calls_on_one_line(n: int) -> str:
    """n calls joined by ``; `` on one line: one statement, one line of the whole file."""
    return "import requests\n" + "; ".join(call(i) for i in range(n)) + "\n"


def parenthesised_on_one_line(n: int) -> str:
    """``(requests.get(...))`` n times on one line: a fix's edit cannot be read from the
    call's position alone (that leaves the parentheses out)."""
    return "import requests\n" + "; ".join(f"({call(i)})" for i in range(n)) + "\n"


def continued_in_one_list(n: int) -> str:
    """n calls in one list literal in a function, each continued on the next line: one
    statement, and a call's rendering needs the block's indentation."""
    body = "".join(f'        requests.get(\n            "{URL}{i:018d}"),\n' for i in range(n))
    return f"import requests\n\n\ndef urls():\n    return [\n{body}    ]\n"


def boto3_clients(n: int) -> str:
    """n ``boto3.client(...)`` calls: each fix names ``botocore.config.Config``."""
    return "import boto3\n" + "".join(f'boto3.client("s3", region_name="eu-west-{i:09d}")\n' for i in range(n))


def noqa_comments(n: int) -> str:
    """n calls, every other one suppressed (``# noqa: RES101``), the others with an unused
    ``# noqa: RES102`` (RES900 plus RES101)."""
    return "import requests\n" + "".join(
        call(i) + ("  # noqa: RES101\n" if i % 2 else "  # noqa: RES102\n") for i in range(n))


def retry_loop_helper(n: int) -> str:
    """A retry loop that calls a long local helper n times (the helper's body is read for sleeps
    and timed calls)."""
    helper = "".join(f"    x{i} = {i}\n" for i in range(n))
    calls = "".join("            helper()\n" for _ in range(n))
    return ("import time\n\n\ndef helper():\n" + helper + "\n\ndef fetch():\n    for attempt in range(3):\n"
            "        try:\n" + calls + "            return 1\n        except OSError:\n            time.sleep(1)\n")


def retried_functions(n: int) -> str:
    """n functions, each retried by tenacity forever: RES201, RES203 and RES101 each."""
    return "import requests\nimport tenacity\n" + "".join(
        f"\n\n@tenacity.retry\ndef fetch_{i:09d}():\n    return requests.get(\"{URL}\")\n" for i in range(n))


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[int], str]
    per_mb: int  # items per MB at --scale 1
    formats: Tuple[str, ...] = ()  # () = every format asked for
    what: str = ""


CASES = [
    Case("calls-1mb", calls_on_lines, CALLS_PER_MB, what="13,000 lines of requests.get(...)"),
    Case("calls-5mb", lambda n: calls_on_lines(5 * n), CALLS_PER_MB, what="65,000 lines of requests.get(...)"),
    Case("one-line-1mb", calls_on_one_line, CALLS_PER_MB, what="13,000 calls on one line"),
    Case("parenthesised-line", parenthesised_on_one_line, CALLS_PER_MB, what="13,000 (calls) on one line"),
    Case("continued-list", continued_in_one_list, CALLS_PER_MB * 3 // 4, what="calls continued over lines in one list"),
    Case("boto3-clients", boto3_clients, CALLS_PER_MB * 3 // 2, what="boto3.client(...) calls"),
    Case("noqa-comments", noqa_comments, CALLS_PER_MB * 6 // 7, what="calls with used and unused noqa comments"),
    Case("retry-loop-helper", retry_loop_helper, CALLS_PER_MB * 2, what="a retry loop calling a long helper"),
    Case("retried-functions", retried_functions, CALLS_PER_MB * 5 // 7, what="functions retried by tenacity"),
    Case("fix-1mb", calls_on_lines, CALLS_PER_MB, formats=("fix",), what="--fix --unsafe-fixes on calls-1mb"),
]
FORMATS = ("json", "full")


@dataclass
class Sample:
    """One run: wall seconds, peak resident MB of the process, exit status (None: killed or failed),
    bytes written to stdout, and the findings read from that output (None: unknown)."""

    wall_s: float
    peak_mb: float
    status: Optional[int]
    out_bytes: int
    findings: Optional[int]
    note: str = ""


def reslint_command(given: Optional[str]) -> List[str]:
    if given:
        return shlex.split(given)
    exe = shutil.which("reslint")
    return [exe] if exe else [sys.executable, "-m", "reslint"]


def _limits(max_memory_mb: int) -> Callable[[], None]:
    def apply() -> None:  # in the child, before exec
        if max_memory_mb > 0:
            limit = max_memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_once(cmd: Sequence[str], cwd: Path, timeout_s: float, max_memory_mb: int,
             keep_all: bool) -> Tuple[Sample, bytes]:
    """Run ``cmd`` once; (the sample, its stdout: all of it when ``keep_all``, else only its
    last two 64 kB reads, so that a run printing gigabytes costs no memory here)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_limits(max_memory_mb))
    chunks: List[bytes] = []
    errors: List[bytes] = []  # the end of stderr (its last two reads)
    size = [0]

    def drain(stream, kept: List[bytes], keep: bool, counted: bool) -> None:
        while True:
            chunk = stream.read(1 << 16)
            if not chunk:
                return
            if counted:
                size[0] += len(chunk)
            kept.append(chunk)
            if not keep and len(kept) > 2:
                del kept[0]

    readers = [threading.Thread(target=drain, args=(proc.stdout, chunks, keep_all, True), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, errors, False, False), daemon=True)]
    for reader in readers:
        reader.start()
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout_s, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    wall_s = time.perf_counter() - started
    for reader in readers:
        reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    code = None if killed.is_set() else proc.returncode
    stderr = b"".join(errors)
    note = f"killed after {timeout_s:g} s" if killed.is_set() else ""
    if not killed.is_set() and (b"Traceback" in stderr or proc.returncode not in (0, 1)):
        last = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        note = f"failed: {last[0][:60]}"
        code = None
    return Sample(wall_s, usage.ru_maxrss / 1024, code, size[0], None, note), b"".join(chunks)


def count_findings(fmt: str, out: bytes) -> Optional[int]:
    """Findings in one run's output: the JSON records, or the count the summary line gives."""
    if fmt == "json":
        try:
            return len(json.loads(out))
        except ValueError:
            return None
    found = re.findall(rb"Found (\d+) errors?", out)
    if found:
        return int(found[-1])
    return 0 if b"All checks passed!" in out else None


def measure(case: Case, fmt: str, directory: Path, n: int, base: List[str], timeout_s: float,
            max_memory_mb: int) -> Tuple[int, Sample]:
    """(file size in bytes, the sample) of one case in one format."""
    path = directory / f"{case.name}.py"
    if not path.exists():
        path.write_text(case.make(n), encoding="utf-8")
    size = path.stat().st_size
    target = path
    if fmt == "fix":
        target = directory / f"{case.name}-fixed.py"
        shutil.copyfile(path, target)
        args = ["--fix", "--unsafe-fixes", "-f", "full"]
    else:
        args = ["-f", fmt]
    cmd = [*base, "check", "--isolated", "--no-cache", *args, target.name]
    sample, out = run_once(cmd, directory, timeout_s, max_memory_mb, keep_all=fmt == "json")
    if sample.status is not None:
        sample.findings = count_findings("json" if fmt == "json" else "full", out)
        if fmt == "fix":
            fixed = re.findall(rb"\((\d+) fixed", out)
            sample.note = f"{int(fixed[-1]) if fixed else 0} fixed"
    return size, sample


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="output formats to time (default: json,full)")
    parser.add_argument("--scale", type=float, default=1.0, help="size factor (1: the 1 MB and 5 MB files)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is killed (default 600)")
    parser.add_argument("--max-memory-mb", type=int, default=6144,
                        help="address-space limit of each run in MB (default 6144; 0: none)")
    parser.add_argument("--reslint", default=None, help="the command that runs reslint (default: reslint on PATH)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name:20} {case.what}")
        return 0
    wanted = [c for c in args.cases.split(",") if c]
    unknown = set(wanted) - {c.name for c in CASES}
    if unknown:
        parser.error(f"unknown case(s): {', '.join(sorted(unknown))} (see --list)")
    cases = [c for c in CASES if not wanted or c.name in wanted]
    formats = tuple(f for f in args.formats.split(",") if f)
    base = reslint_command(args.reslint)
    directory = Path(tempfile.mkdtemp(prefix="reslint-large-"))
    print(f"reslint: {' '.join(base)}; load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs; "
          f"files in {directory}", flush=True)
    print(f"{'case':20} {'format':6} {'MB':>6} {'findings':>9} {'out MB':>7} {'wall s':>8} {'peak MB':>8}  note",
          flush=True)
    failed = False
    try:
        for case in cases:
            n = max(1, round(case.per_mb * args.scale))
            for fmt in case.formats or formats:
                size, sample = measure(case, fmt, directory, n, base, args.timeout, args.max_memory_mb)
                failed |= sample.status is None or sample.status not in (0, 1)
                findings = "?" if sample.findings is None else str(sample.findings)
                print(f"{case.name:20} {fmt:6} {size / 1e6:6.2f} {findings:>9} {sample.out_bytes / 1e6:7.2f} "
                      f"{sample.wall_s:8.2f} {sample.peak_mb:8.0f}  {sample.note}", flush=True)
    finally:
        if args.keep:
            print(f"kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
