"""The rule catalog of DESIGN section 1: codes, names, severities (no LibCST import).

Codes never change meaning and retired codes are not reused. ``implemented``
says whether this version ships the rule; selecting an unimplemented code is
allowed (it reports nothing yet), an unknown code is a configuration error.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    summary: str
    implemented: bool


RULES: Tuple[RuleInfo, ...] = (
    RuleInfo("RES000", "syntax-error", "error", "A file that cannot be read, decoded or parsed", True),
    RuleInfo("RES101", "missing-timeout", "error",
             "A blocking network, database or subprocess call, or a client constructor, with no timeout", True),
    RuleInfo("RES102", "disabled-timeout", "error", "A timeout explicitly disabled", True),
    RuleInfo("RES103", "excessive-timeout", "warning", "A constant timeout above max-timeout", True),
    RuleInfo("RES104", "timeout-exceeds-deadline", "warning", "An inner timeout longer than its enclosing budget", True),
    RuleInfo("RES105", "deadline-not-propagated", "warning",
             "A function given a time budget that calls downstream with a fixed timeout of its own", True),
    RuleInfo("RES201", "retry-without-jitter", "warning", "A retry whose waits are deterministic", True),
    RuleInfo("RES202", "retry-without-time-cap", "warning", "A retry with no total-time cap", True),
    RuleInfo("RES203", "unbounded-retry", "error", "A retry with neither an attempt cap nor a time cap", True),
    RuleInfo("RES204", "retry-on-any-error", "warning", "A retry on every exception or on non-transient errors", True),
    RuleInfo("RES205", "retry-without-backoff", "warning", "Attempts with no wait between them", True),
    RuleInfo("RES206", "retry-after-ignored", "warning", "A 429/503 retry that ignores Retry-After", True),
    RuleInfo("RES301", "nested-retry", "error", "A retried scope that reaches another retry layer", True),
    RuleInfo("RES401", "idempotency-key-in-retry", "error", "An idempotency key generated inside the retried scope",
             True),
    RuleInfo("RES402", "non-idempotent-retry", "error", "A non-idempotent operation retried with no stable key", True),
    RuleInfo("RES403", "unsafe-retry-methods", "error", "A retry configuration that replays non-idempotent methods",
             True),
    RuleInfo("RES404", "non-atomic-dedup", "error",
             "Deduplication by check-then-act: a dedup record read, the side effect performed, then the record "
             "written", True),
    RuleInfo("RES501", "retry-on-open-circuit", "warning",
             "A retry that catches a circuit breaker's open-circuit error and keeps trying", True),
    RuleInfo("RES900", "unused-noqa", "warning", "A suppression comment that suppresses nothing", True),
)

BY_CODE: Dict[str, RuleInfo] = {r.code: r for r in RULES}
BY_NAME: Dict[str, RuleInfo] = {r.name: r for r in RULES}


def lookup(code_or_name: str) -> Optional[RuleInfo]:
    """A rule by code (``RES101``) or name (``missing-timeout``), or ``None``."""
    key = code_or_name.strip()
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())


def expand(selector: str) -> List[str]:
    """Codes matched by a selector: a code, a prefix (``RES1``, ``RES``, ``ALL``) or a name.

    Raises ``ValueError`` for a selector that matches no rule.
    """
    key = selector.strip()
    info = lookup(key)
    if info is not None:
        return [info.code]
    upper = key.upper()
    if upper == "ALL":
        return [r.code for r in RULES]
    matched = [r.code for r in RULES if upper.startswith("RES") and r.code.startswith(upper)]
    if not matched:
        raise ValueError(f"unknown rule selector {selector!r}")
    return matched

def unknown(selector: str) -> str:
    """The message for a selector that matches no rule, with the closest code or name when one
    is close (``unknown rule 'missing-timout' (did you mean 'missing-timeout'? ...)``), as click
    says of an unknown option."""
    key = selector.strip()
    if key.upper().startswith("RES"):
        close = difflib.get_close_matches(key.upper(), list(BY_CODE), n=1, cutoff=0.75)
    else:
        close = difflib.get_close_matches(key.lower().replace("_", "-"), list(BY_NAME), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown rule {selector!r} ({hint}see `reslint rule --all`)"


#: Where rule pages are published; each page is also in the wheel (``reslint rule CODE``).
DOCS_BASE = "https://github.com/reslint/reslint/blob/main/rules/"


def docs_url(code: str) -> str:
    """The URL of a rule's page."""
    info = BY_CODE.get(code)
    return f"{DOCS_BASE}{code}-{info.name}.md" if info else DOCS_BASE
