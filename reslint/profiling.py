"""``--profile``: time per phase of a run (discover, read, parse, visit per rule...).

Off by default and then free: instrumented code tests :data:`ACTIVE` (``None``)
before timing anything. Times are wall-clock seconds in one process (``--profile``
runs without worker processes), so the phases add up to the run.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, Optional

#: the profile being collected, or ``None`` (the normal case)
ACTIVE: Optional["Profile"] = None

#: the order phases are printed in (others follow, by time)
ORDER = ("discover", "read + hash + cache", "decode", "prefilter (text)", "syntax check (ast)", "prefilter (ast)",
         "parse (LibCST)",
         "semantic model + retried scopes", "visit", "positions + findings + fixes", "project pass", "fix",
         "output")


class Profile:
    """Seconds and counts per phase name; per-rule visit times are ``visit RESnnn``."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {}
        self.counts: Dict[str, int] = {}

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.counts[name] = self.counts.get(name, 0) + 1

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def timed(self, name: str, function: Callable) -> Callable:
        """``function`` wrapped so that its calls add to phase ``name``."""
        def wrapper(*args):
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                self.add(name, time.perf_counter() - start)
        return wrapper

    def report(self, total: float) -> str:
        """A table: phase, seconds, share of ``total`` (seconds), count."""
        names = [n for n in ORDER if n in self.seconds]
        names += sorted((n for n in self.seconds if n not in ORDER and not n.startswith("visit ")),
                        key=lambda n: -self.seconds[n])
        rules = sorted((n for n in self.seconds if n.startswith("visit ")), key=lambda n: -self.seconds[n])
        lines = [f"{'phase':<34} {'seconds':>8} {'share':>6} {'count':>7}"]
        for name in names:
            lines.append(self._row(name, total))
            if name == "visit":
                lines.extend(self._row(rule, total, "  ") for rule in rules)
        lines.append(f"{'total (wall)':<34} {total:>8.3f}")
        return "\n".join(lines)

    def _row(self, name: str, total: float, indent: str = "") -> str:
        seconds = self.seconds[name]
        share = f"{100 * seconds / total:.0f}%" if total > 0 else "-"
        return f"{indent + name:<34} {seconds:>8.3f} {share:>6} {self.counts[name]:>7}"


def start() -> Profile:
    """Turn profiling on for this process and return the profile."""
    global ACTIVE
    ACTIVE = Profile()
    return ACTIVE


def timed(phase: str, function, *args):
    """``function(*args)``, its time added to ``phase`` when ``--profile`` is on."""
    profile = ACTIVE
    if profile is None:
        return function(*args)
    with profile.phase(phase):
        return function(*args)
