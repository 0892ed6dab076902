"""Parallel per-file passes: worker processes that each build one :class:`Linter`.

Workers get (path, bytes) and send back a :class:`~reslint.engine.results.FileResult`
(plain data, no CST nodes); the parent keeps the cache, the project pass and the
output, so results do not depend on how many workers ran. Workers start with
``forkserver`` where the platform has it (no copy of the parent's state, safe
with threads) and ``spawn`` elsewhere.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Iterable, Iterator, List, Sequence, Tuple, TypeVar

from reslint.config import Settings
from reslint.engine.results import FileResult, internal_error

T = TypeVar("T")

_linter = None  # the worker's Linter


def _start(settings: Settings, ignore_noqa: bool, parent_alive) -> None:
    from reslint.engine.filepass import Linter  # imports LibCST

    global _linter
    _linter = Linter(settings, ignore_noqa=ignore_noqa)
    threading.Thread(target=_watch, args=(parent_alive,), daemon=True).start()


def _watch(parent_alive) -> None:
    """Exit when the parent is gone (killed by SIGTERM or SIGKILL): a worker blocked on the
    task queue would otherwise live on, holding the parent's stdout and stderr open (and a
    killed parent stays a zombie, still "alive" to ``kill(pid, 0)``, until those close).
    ``parent_alive`` is the read end of a pipe whose only write end the parent holds."""
    try:
        parent_alive.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)


def lint_one(path: str, data: bytes, linter=None, force: bool = False) -> FileResult:
    """Lint one file's bytes (in a worker: with the worker's linter; ``force``: also when the
    prefilter would skip it). Never raises: an unexpected exception becomes an internal error
    for the file (exit status 2)."""
    linter = linter or _linter
    try:
        result = linter.lint_path(Path(path), complete=False, force=force, data=data)
    except Exception as exc:  # noqa: BLE001 - one file must not stop the run
        display = linter.display_path(Path(path))
        return FileResult(path, display, internal_errors=[internal_error(display, exc)])
    if not result.findings and not result.comments:
        result.source = None  # nobody needs the text: do not send it back
    return result


def _terminate(executor: ProcessPoolExecutor) -> None:
    """Stop the workers now (``ProcessPoolExecutor`` has no public way before Python 3.14)."""
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        try:
            process.terminate()
        except (OSError, AttributeError, ValueError):
            pass


def _context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def lint_batch(batch: Sequence[Tuple[str, bytes]]) -> List[FileResult]:
    """:func:`lint_one` for each file of a batch (one task: one round trip to a worker)."""
    return [lint_one(path, data) for path, data in batch]


#: files per task at most, and bytes per task at most (one file larger than this is a task
#: of its own): only files to parse reach the workers, so tasks stay small enough to share
#: the work evenly, and a task per file would cost this process more in messages
BATCH_FILES = 8
BATCH_BYTES = 128 * 1024


def batches(items: Iterable[Tuple[T, str, bytes]]) -> Iterator[List[Tuple[T, str, bytes]]]:
    """``(tag, path, bytes)`` items cut into tasks of at most :data:`BATCH_FILES` files and
    :data:`BATCH_BYTES` bytes, in order, as they come."""
    current: List[Tuple[T, str, bytes]] = []
    total = 0
    for item in items:
        if current and (len(current) >= BATCH_FILES or total + len(item[2]) > BATCH_BYTES):
            yield current
            current, total = [], 0
        current.append(item)
        total += len(item[2])
    if current:
        yield current


class Pool:
    """``jobs`` worker processes, started at once so that they import LibCST and build their
    linter while this process still walks and reads the files. Use as a context manager."""

    def __init__(self, settings: Settings, ignore_noqa: bool, jobs: int):
        """Raises whatever stops the workers from starting (``OSError`` when no process or
        ``forkserver`` socket can be made, ``ValueError`` for more workers than the platform
        allows...), after stopping the ones already started: the caller lints in one process."""
        self.settings, self.ignore_noqa = settings, ignore_noqa
        self._linter = None
        context = _context()
        self._parent_alive, self._alive = context.Pipe(duplex=False)
        self._executor = None
        try:
            self._executor = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_start,
                                                 initargs=(settings, ignore_noqa, self._parent_alive))
            for _ in range(jobs):  # each submit to a pool without an idle worker starts one
                self._executor.submit(int)
        except BaseException:
            try:
                self._close(interrupted=True)
            except Exception:  # noqa: BLE001 - the reason the start failed is what the caller needs
                pass
            raise

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        # kind: Ctrl-C, SIGTERM turned into an exception, the consumer gone
        self._close(interrupted=kind is not None)

    def _close(self, interrupted: bool) -> None:
        """Stop the workers and close the parent's pipe; ``interrupted``: without waiting for them
        to finish their work (a graceful shutdown can deadlock on an interrupted executor)."""
        if self._executor is not None:
            if interrupted:
                _terminate(self._executor)
            self._executor.shutdown(wait=True, cancel_futures=True)
        self._alive.close()
        self._parent_alive.close()

    def _local_linter(self):
        """The linter of this process, for files a broken pool left (built once)."""
        if self._linter is None:
            from reslint.engine.filepass import Linter  # imports LibCST

            self._linter = Linter(self.settings, ignore_noqa=self.ignore_noqa)
        return self._linter

    def lint_one(self, path: str, data: bytes, force: bool = False) -> FileResult:
        """:func:`lint_one` in a worker (in this process when the pool broke)."""
        try:
            return self._executor.submit(lint_one, path, data, None, force).result()
        except BrokenProcessPool:
            return lint_one(path, data, self._local_linter(), force)

    def lint(self, items: Iterable[Tuple[T, str, bytes]]) -> Iterator[Tuple[T, FileResult]]:
        """Lint ``(tag, path, bytes)`` items in :func:`batches`, each sent as soon as it is full
        (``items`` may still be producing them); yield (tag, result) as batches finish. A worker
        that dies (a crash in native code) does not lose the run: the files it left are linted in
        this process."""
        pending = {}
        left: List[Tuple[T, str, bytes]] = []
        for batch in batches(items):
            try:
                pending[self._executor.submit(lint_batch, [(path, data) for _, path, data in batch])] = batch
            except BrokenProcessPool:  # a worker died before this batch was sent (even while starting)
                left.extend(batch)
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                batch = pending.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    left.extend(batch)
                    continue
                for (tag, _, _), result in zip(batch, results):
                    yield tag, result
        for tag, path, data in left:
            yield tag, lint_one(path, data, self._local_linter())
