"""Baselines: the findings a codebase already has, recorded so that a run reports only new ones.

``reslint check --write-baseline FILE`` records the findings of a run; ``--baseline FILE``
(or ``baseline = "FILE"`` in the configuration) then reports only the findings not in it.
An entry is a finding's fingerprint (:mod:`reslint.output.fingerprints`: the rule code, the
path, the text of its line and an occurrence counter, no line number), so lines inserted or
removed above a finding keep it known, while a finding on an edited line, or one more
finding on a line like a known one, is new. Entries are grouped per file and rule code;
the file is JSON, written sorted, so that rewriting it shows in a review as the entries
that went away::

    {
      "reslint-baseline": 1,
      "fingerprint-version": 1,
      "files": {"src/app.py": {"RES101": ["4c1f...", "9a0e..."]}}
    }

An entry that no finding of its file matches any more is *stale* (the finding was fixed,
or its line changed): a run reports how many there are, and rewriting the file prunes
them. A run that checks only some files (pre-commit names the changed ones) judges only
the entries of those files, and rewriting keeps the entries of the files it did not
check, unless they no longer exist.

The file is read as data from the checkout, whoever wrote it: JSON only, checked against
the shape above; anything else is a :class:`BaselineError`.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, Sequence, Set, Tuple

from reslint.diagnostics import Finding
from reslint.output import fingerprints as fp

#: Bumped when the file's layout changes.
FORMAT = 1
_HEADER = "reslint-baseline"


class BaselineError(Exception):
    """A baseline file that cannot be read or used; the message names the file and why."""


#: path -> rule code -> the fingerprints of that file's findings of that rule
Entries = Dict[str, Dict[str, Set[str]]]


@dataclass
class Filtered:
    """What a baseline made of a run's findings."""

    new: List[Finding]  # not in the baseline: reported
    known: int  # in the baseline: not reported
    #: (path, code) -> how many entries of the files this run judged match no finding any more
    stale: Dict[Tuple[str, str], int] = field(default_factory=dict)


def entries(findings: Sequence[Finding], prints: Sequence[str]) -> Entries:
    """The baseline entries of ``findings`` (``prints``: their fingerprints, in the same order)."""
    out: Entries = {}
    for finding, print_ in zip(findings, prints):
        out.setdefault(finding.filename, {}).setdefault(finding.code, set()).add(print_)
    return out


def load(path: Path) -> Entries:
    """The entries of a baseline file; :class:`BaselineError` when it is missing or not one."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (make it with `reslint check --write-baseline "
                            f"{path}`)")
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise BaselineError(f"{path}: not a reslint baseline (not JSON: {exc})")
    if not isinstance(data, dict) or _HEADER not in data:
        raise BaselineError(f"{path}: not a reslint baseline (no \"{_HEADER}\" key)")
    if data[_HEADER] != FORMAT or data.get("fingerprint-version") != fp.VERSION:
        raise BaselineError(f"{path}: written by another version of reslint (baseline format {data[_HEADER]!r}, "
                            f"fingerprint version {data.get('fingerprint-version')!r}; this version writes "
                            f"{FORMAT} and {fp.VERSION}): write it again with `--write-baseline {path}`")
    files = data.get("files")
    if not isinstance(files, dict):
        raise BaselineError(f"{path}: not a reslint baseline (\"files\" must be an object)")
    out: Entries = {}
    for filename, codes in files.items():
        if not isinstance(codes, dict):
            raise BaselineError(f"{path}: the entry of {filename!r} must be an object of rule codes")
        for code, prints in codes.items():
            if not isinstance(prints, list) or not all(isinstance(p, str) for p in prints):
                raise BaselineError(f"{path}: {filename!r} {code}: expected a list of fingerprints")
            out.setdefault(filename, {})[code] = set(prints)
    return out


def dump(baseline: Entries) -> str:
    """The text of a baseline file holding ``baseline`` (sorted; empty groups left out)."""
    files = {name: {code: sorted(prints) for code, prints in sorted(codes.items()) if prints}
             for name, codes in sorted(baseline.items())}
    files = {name: codes for name, codes in files.items() if codes}
    return json.dumps({_HEADER: FORMAT, "fingerprint-version": fp.VERSION, "files": files}, indent=2) + "\n"


def count(baseline: Entries) -> int:
    return sum(len(prints) for codes in baseline.values() for prints in codes.values())


def apply(baseline: Entries, findings: Sequence[Finding], prints: Sequence[str], checked: Iterable[str],
          judged: FrozenSet[str], exists: Callable[[str], bool]) -> Filtered:
    """Split ``findings`` (with their fingerprints ``prints``) into new and known.

    ``checked``: the display paths this run checked; their entries of the ``judged`` rule codes
    (those enabled) that match no finding are stale, and so is every entry of a file that no
    longer ``exists``. Entries of the other files are left alone (a run over some files only).
    """
    new: List[Finding] = []
    matched: Set[Tuple[str, str, str]] = set()
    for finding, print_ in zip(findings, prints):
        if print_ in baseline.get(finding.filename, {}).get(finding.code, ()):
            matched.add((finding.filename, finding.code, print_))
        else:
            new.append(finding)
    stale: Counter = Counter()
    checked = set(checked)
    for filename, codes in baseline.items():
        gone = filename not in checked and not exists(filename)
        if filename not in checked and not gone:
            continue
        for code, entries_ in codes.items():
            if gone or code in judged:
                left = sum(1 for p in entries_ if (filename, code, p) not in matched)
                if left:
                    stale[(filename, code)] += left
    return Filtered(new, len(matched), dict(sorted(stale.items())))


def rewritten(old: Entries, current: Entries, checked: Iterable[str], judged: FrozenSet[str],
              exists: Callable[[str], bool]) -> Entries:
    """The baseline to write after a run: ``current`` for what the run judged (the ``checked``
    files' ``judged`` codes), the ``old`` entries of everything else whose file still exists."""
    checked = set(checked)
    out: Entries = {name: {code: set(prints) for code, prints in codes.items()} for name, codes in current.items()}
    for filename, codes in old.items():
        if filename in checked:
            kept = {code: prints for code, prints in codes.items() if code not in judged}
        elif exists(filename):
            kept = codes
        else:
            continue
        for code, prints in kept.items():
            out.setdefault(filename, {}).setdefault(code, set()).update(prints)
    return out


def existing_under(root: Path) -> Callable[[str], bool]:
    """Whether a baseline's path names a file that exists (relative to ``root``, or absolute:
    a file outside the project root is shown with its absolute path)."""
    def exists(filename: str) -> bool:
        return os.path.lexists(os.path.join(root, filename))
    return exists


def describe(stale: Mapping[Tuple[str, str], int], limit: int = 5) -> str:
    """``app.py RES101 (2), lib.py RES402 (1)``, the first ``limit`` of them, then ``and N more``."""
    items = [f"{name} {code} ({n})" for (name, code), n in stale.items()]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more
