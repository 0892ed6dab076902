"""Read the rule book's Markdown pages into runnable examples (DESIGN section 5).

- every fenced ``py`` block is a file to lint; a line ``\\`name.py\\`:`` right
  before a block names it, and consecutive named blocks form one project;
- ``# error: [RES101]`` (or ``[RES101, RES102]``) at the end of a line: that
  line must be reported with those codes; any other finding fails the test;
- a ``py fixed`` block is the expected output of ``--fix --unsafe-fixes`` on the
  ``py`` block before it;
- a ``toml`` block configures the next ``py`` block (``[tool.reslint]`` keys).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

FENCE = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)
NAME = re.compile(r"^`(?P<name>[\w./-]+\.py)`:\s*$")
ERROR = re.compile(r"#\s*error:\s*\[(?P<codes>[A-Z0-9,\s]+)\]")
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Options", "References")


@dataclass
class Example:
    page: str
    section: str
    index: int
    files: Dict[str, str]
    config: str = ""
    fixed: Optional[str] = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.section}:{self.index}"

    def expected(self) -> Set[Tuple[str, int, str]]:
        out = set()
        for name, text in self.files.items():
            for row, line in enumerate(text.splitlines(), 1):
                match = ERROR.search(line)
                if match:
                    for code in re.split(r"[\s,]+", match.group("codes").strip()):
                        out.add((name, row, code))
        return out


def sections(text: str) -> Dict[str, Tuple[int, int]]:
    """Section title -> (start, end) offsets of its body."""
    heads = [(m.start(), m.end(), m.group(1).strip()) for m in re.finditer(r"^## (.+)$", text, re.M)]
    out = {}
    for i, (start, end, title) in enumerate(heads):
        out[title] = (end, heads[i + 1][0] if i + 1 < len(heads) else len(text))
    return out


def examples(path: Path) -> List[Example]:
    text = path.read_text(encoding="utf-8")
    found: List[Example] = []
    for title, (start, end) in sections(text).items():
        body = text[start:end]
        pending_config = ""
        project: Optional[Example] = None
        last: Optional[Example] = None
        previous_end = 0
        for match in FENCE.finditer(body):
            info = match.group("info").strip().split()
            lang = info[0] if info else ""
            between = body[previous_end:match.start()].strip().splitlines()
            previous_end = match.end()
            name_match = NAME.match(between[-1].strip()) if between else None
            block = match.group("body")
            if lang == "toml":
                pending_config = block
                continue
            if lang != "py":
                continue
            if "fixed" in info[1:]:
                if last is not None:
                    last.fixed = block
                continue
            if name_match:
                if project is None or any(line.strip() for line in between[:-1]):
                    project = Example(path.name, title, len(found), {}, pending_config)
                    found.append(project)
                    pending_config = ""
                project.files[name_match.group("name")] = block
                last = project
                continue
            project = None
            last = Example(path.name, title, len(found), {"example.py": block}, pending_config)
            pending_config = ""
            found.append(last)
    return found
