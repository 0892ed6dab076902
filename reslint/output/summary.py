"""The closing lines of the human formats: counts and the fix hints (as Ruff prints them)."""

from __future__ import annotations

from typing import List

from reslint.diagnostics import Applicability, Finding


def summary(findings: List[Finding], unsafe_fixes: bool, fixed: int, known: int = 0) -> str:
    """``known``: the findings a baseline left out."""
    lines = []
    count = len(findings)
    if count:
        lines.append(f"Found {count} error{'s' if count != 1 else ''}" + (f" ({fixed} fixed, {count} remaining)."
                                                                       if fixed else "."))
    elif fixed:
        lines.append(f"Found {fixed} error{'s' if fixed != 1 else ''} ({fixed} fixed, 0 remaining).")
    else:
        lines.append("All checks passed!")
    safe = sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.SAFE)
    unsafe = sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE)
    if unsafe_fixes:
        safe, unsafe = safe + unsafe, 0
    if safe:
        lines.append(f"[*] {safe} fixable with the `--fix` option" + (" and `--unsafe-fixes`" if unsafe_fixes else "")
                     + ".")
    if unsafe:
        lines.append(f"{unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with the `--unsafe-fixes` "
                     f"option.")
    if known:
        lines.append(f"{known} finding{'s' if known != 1 else ''} in the baseline not shown.")
    return "\n".join(lines)
