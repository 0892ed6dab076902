#!/usr/bin/env python3
"""Time `reslint server`: from a change of a 1,000-line buffer to its new diagnostics.

    python benchmarks/lsp_latency.py [--changes 40] [--lines 1000] [--file FILE] [--modules 30] [--pull]

A temporary project is written (a ``pyproject.toml``, the module under edit and
``--modules`` other modules, some of them calling into it under a retry, so the
project pass has work to do), then ``python -m reslint server`` is started in a fresh
process with an empty cache directory and driven over stdio by the small JSON-RPC
client below (the standard library only: no client library's cost in the figure).

1. cold: ``initialize``, ``didOpen`` of the module, until its first diagnostics
   (the server lints the whole project once, through the cache);
2. warm: ``--changes`` edits, each a full-text ``didChange`` that adds or removes
   ``timeout=`` on one call of the module (so the diagnostics really change and are
   pushed); each is timed from writing the notification to reading the
   ``publishDiagnostics`` of that version (``--pull``: to the answer to a
   ``textDocument/diagnostic`` request sent right after the change). The server's
   debounce (``DEBOUNCE_SECONDS``) is inside this figure.

The server's CPU time over the warm changes is read from ``/proc`` (Linux): on a
machine shared with other work it says what the change cost when the wall clock also
counts waiting for a core. Then the same edits are checked in this process with
``reslint.server.project.Project`` (the server's lint of the buffer and project pass,
without the protocol), to show how much of the figure is linting. Prints medians,
90th percentiles and the machine's load before and after.
``--file`` edits a copy of your own module instead of the generated one (its calls of
``requests.get(``/``.post(`` are toggled; it needs at least one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parent.parent
TARGET_MS = 150.0


# -- the project -----------------------------------------------------------------------------------------------------
def service_module(lines: int) -> str:
    """A service module of about ``lines`` lines, written as such modules are: data classes,
    parsing and plain logic, and now and then an HTTP call (most with a timeout), a retry."""
    parts = [textwrap.dedent('''\
        """Orders: fetch, validate, price and submit."""

        from __future__ import annotations

        import json
        import logging
        from dataclasses import dataclass, field
        from typing import Dict, List, Optional

        import requests
        from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

        log = logging.getLogger(__name__)
        session = requests.Session()
        TRANSIENT = (requests.ConnectionError, requests.Timeout)
        BASE = "https://orders.internal/api"

        ''')]
    index = 0
    while sum(part.count("\n") for part in parts) < lines - 30:
        call = "requests.get(url, timeout=5)" if index % 4 else "requests.get(url)"
        parts.append(textwrap.dedent(f'''\


            @dataclass
            class Line{index}:
                sku: str
                quantity: int = 1
                price: float = 0.0
                tags: List[str] = field(default_factory=list)

                def total(self) -> float:
                    return round(self.quantity * self.price, 2)


            def parse_{index}(payload: str) -> List[Line{index}]:
                """Parse one order's lines; skip the malformed ones."""
                out = []
                for raw in json.loads(payload).get("lines", []):
                    if not raw.get("sku"):
                        log.warning("line without sku: %r", raw)
                        continue
                    out.append(Line{index}(raw["sku"], int(raw.get("quantity", 1)), float(raw.get("price", 0))))
                return out


            @retry(retry=retry_if_exception_type(TRANSIENT), stop=stop_after_attempt(3) | stop_after_delay(20),
                   wait=wait_random_exponential(max=4), reraise=True)
            def fetch_{index}(order_id: str) -> Dict[str, object]:
                url = f"{{BASE}}/orders/{{order_id}}/{index}"
                response = {call}
                response.raise_for_status()
                return response.json()


            def price_{index}(lines: List[Line{index}], discount: Optional[float] = None) -> float:
                total = sum(line.total() for line in lines)
                if discount:
                    total -= total * discount
                return max(total, 0.0)
            '''))
        index += 1
    parts.append(textwrap.dedent('''\


        def submit(order: Dict[str, object]) -> Dict[str, object]:
            """Send an order (the other modules call this under their retries)."""
            return session.post(f"{BASE}/orders", json=order, timeout=10).json()
        '''))
    return "".join(parts)


def caller_module(index: int) -> str:
    """Another module of the project; every third one retries a call into ``service``."""
    retried = index % 3 == 0
    return textwrap.dedent(f'''\
        import requests
        from tenacity import retry, stop_after_attempt, stop_after_delay, wait_random_exponential

        import service


        def summary_{index}(order_id):
            return requests.get(f"https://reports.internal/{{order_id}}", timeout=5).json()


        {"@retry(stop=stop_after_attempt(3) | stop_after_delay(20), wait=wait_random_exponential(max=4))" if retried else ""}
        def place_{index}(order):
            return service.submit(order)
        ''')


def write_project(root: Path, module: str, others: int) -> Path:
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\n', encoding="utf-8")
    target = root / "service.py"
    target.write_text(module, encoding="utf-8")
    for index in range(others):
        (root / f"caller_{index}.py").write_text(caller_module(index), encoding="utf-8")
    return target


def toggled(text: str, step: int) -> str:
    """The text with ``timeout=`` added to or removed from one call (a new one each step)."""
    bare = [m for m in re.finditer(r"requests\.(get|post)\(url\)", text)]
    timed = [m for m in re.finditer(r"requests\.(get|post)\(url, timeout=5\)", text)]
    if step % 2 == 0 and bare:
        m = bare[(step // 2) % len(bare)]
        return text[:m.start()] + f"requests.{m.group(1)}(url, timeout=5)" + text[m.end():]
    if timed:
        m = timed[(step // 2) % len(timed)]
        return text[:m.start()] + f"requests.{m.group(1)}(url)" + text[m.end():]
    raise SystemExit("the module has no `requests.get(url)` call to toggle")


# -- a minimal LSP client ----------------------------------------------------------------------------------------------
class Client:
    """JSON-RPC over a server's stdin/stdout; a thread reads messages into a queue."""

    def __init__(self, command: List[str], cwd: Path, env: Dict[str, str]):
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.messages: "Queue[dict]" = Queue()
        self._id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params) -> int:
        self._id += 1
        self.send({"id": self._id, "method": method, "params": params})
        return self._id

    def wait(self, predicate, timeout: float = 300.0) -> dict:
        """The first message that satisfies ``predicate``; answers the server's own requests."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except Empty:
                raise SystemExit("the server did not answer in time") from None
            if "method" in message and "id" in message:  # a request to the client (registerCapability)
                self.send({"id": message["id"], "result": None})
            if predicate(message):
                return message

    def close(self) -> None:
        try:
            self.wait(lambda m: m.get("id") == self.request("shutdown", None), timeout=30)
            self.notify("exit", None)
            self.process.wait(timeout=30)
        except (SystemExit, subprocess.TimeoutExpired, OSError):
            self.process.kill()


def capabilities(pull: bool) -> dict:
    text = {"synchronization": {"didSave": True}, "publishDiagnostics": {"relatedInformation": True,
                                                                          "versionSupport": True}}
    if pull:
        text["diagnostic"] = {"relatedDocumentSupport": False}
    return {"textDocument": text, "general": {"positionEncodings": ["utf-16"]}}


def cpu_seconds(pid: int) -> Optional[float]:
    """User + system CPU time of a process so far (Linux ``/proc``), else ``None``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_server(root: Path, target: Path, changes: int, pull: bool) -> tuple:
    """(cold seconds, [warm seconds per change], server CPU seconds per change or None)
    through a real server process."""
    env = dict(os.environ, RESLINT_CACHE_DIR=str(root / ".cache"))
    client = Client([sys.executable, "-m", "reslint", "server"], root, env)
    uri = target.resolve().as_uri()
    text = target.read_text(encoding="utf-8")
    started = time.perf_counter()
    init = client.request("initialize", {"processId": os.getpid(), "rootUri": root.resolve().as_uri(),
                                         "capabilities": capabilities(pull),
                                         "workspaceFolders": [{"uri": root.resolve().as_uri(), "name": "shop"}]})
    client.wait(lambda m: m.get("id") == init)
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    first(client, uri, 1, pull)
    cold = time.perf_counter() - started
    cpu_before = cpu_seconds(client.process.pid)
    warm = []
    for step in range(changes):
        text = toggled(text, step)
        version = step + 2
        started = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"text": text}]})
        first(client, uri, version, pull)
        warm.append(time.perf_counter() - started)
    cpu_after = cpu_seconds(client.process.pid)
    client.close()
    cpu = (cpu_after - cpu_before) / changes if cpu_before is not None and cpu_after is not None else None
    return cold, warm, cpu


def first(client: Client, uri: str, version: int, pull: bool) -> None:
    """Wait for the diagnostics of ``version``: pushed, or the answer to a pull."""
    if pull:
        sent = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        client.wait(lambda m: m.get("id") == sent)
        return
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri and m["params"].get("version") == version)


def measure_in_process(root: Path, target: Path, changes: int) -> List[float]:
    """Seconds per change of the server's own work (lint the buffer, project pass), no protocol."""
    sys.path.insert(0, str(REPO))
    from reslint.server.project import Project

    project = Project(root, use_cache=True, cache_dir=root / ".cache")
    text = target.read_text(encoding="utf-8")
    path = str(target.resolve())
    project.check({path: text})
    out = []
    for step in range(changes):
        text = toggled(text, step)
        started = time.perf_counter()
        project.check({path: text})
        out.append(time.perf_counter() - started)
    return out


def ms(values: List[float], q: Optional[float] = None) -> str:
    if q is None:
        return f"{statistics.median(values) * 1000:.0f} ms"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.0f} ms"


def load() -> str:
    try:
        return "load average %.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg()
    except (AttributeError, OSError):
        return "load average unavailable"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--changes", type=int, default=40, help="timed edits (default 40)")
    ap.add_argument("--lines", type=int, default=1000, help="lines of the generated module (default 1000)")
    ap.add_argument("--file", type=Path, help="edit a copy of this module instead of the generated one")
    ap.add_argument("--modules", type=int, default=30, help="other modules in the project (default 30)")
    ap.add_argument("--pull", action="store_true", help="pull diagnostics (textDocument/diagnostic) instead")
    args = ap.parse_args(argv)
    module = args.file.read_text(encoding="utf-8") if args.file else service_module(args.lines)
    with tempfile.TemporaryDirectory(prefix="reslint-lsp-") as tmp:
        root = Path(tmp)
        target = write_project(root, module, args.modules)
        print(f"module: {module.count(chr(10))} lines ({args.file or 'generated'}), {args.modules} other modules; "
              f"{'pull' if args.pull else 'push'} diagnostics; {load()}", flush=True)
        cold, warm, cpu = measure_server(root, target, args.changes, args.pull)
        inside = measure_in_process(root, target, args.changes)
    print(f"cold (start, initialize, open, first diagnostics): {cold:.2f} s")
    print(f"warm, change -> diagnostics, {len(warm)} changes: median {ms(warm)}, 90th percentile {ms(warm, 0.9)}, "
          f"min {ms([min(warm)])}, max {ms([max(warm)])}")
    if cpu is not None:
        print(f"  server CPU time per change (user + system, mean): {cpu * 1000:.0f} ms")
    print(f"  of which linting (in process, no protocol): median {ms(inside)}, 90th percentile {ms(inside, 0.9)}")
    print(f"target: median under {TARGET_MS:.0f} ms: {'met' if statistics.median(warm) * 1000 < TARGET_MS else 'NOT met'}"
          f"; {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
