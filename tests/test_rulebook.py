"""The rule book's examples are tests: annotated lines are reported, nothing else is;
``py fixed`` blocks are the exact --fix --unsafe-fixes output; every rule has a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint import registry
from reslint.config import settings_from_table
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text
from reslint.rulebook import pages
from reslint.engine.runner import Runner
from tests.rulebook import SECTIONS, examples, sections

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

RULEBOOK = Path(__file__).resolve().parent.parent / "rules"
PAGES = sorted(RULEBOOK.glob("RES*.md"))
EXAMPLES = [ex for page in PAGES for ex in examples(page)]


def _linter(example, tmp_path: Path) -> Linter:
    table = tomllib.loads(example.config).get("tool", {}).get("reslint", {}) if example.config else {}
    return Linter(settings_from_table(table, tmp_path, None))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda ex: ex.id)
def test_example_reports_exactly_its_annotations(example, tmp_path):
    # written out as a project, so that multi-file examples go through the project pass (RES301)
    for name, text in example.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    settings = _linter(example, tmp_path).settings
    run = Runner(settings, use_cache=False).run([tmp_path / name for name in example.files])
    assert run.errors == []
    got = {(f.filename, f.location.row, f.code) for result in run.results for f in result.findings}
    assert got == example.expected()


@pytest.mark.parametrize("example", [ex for ex in EXAMPLES if ex.fixed is not None], ids=lambda ex: ex.id)
def test_fixed_block_is_the_fix_output(example, tmp_path):
    linter = _linter(example, tmp_path)
    (name, text), = example.files.items()
    outcome = fix_text(linter, text, name, unsafe=True)
    assert outcome.error is None
    assert outcome.text == example.fixed
    again = fix_text(linter, outcome.text, name, unsafe=True)
    assert again.text is None, "a second --fix run must change nothing"


def test_every_implemented_rule_has_a_page_and_every_page_a_rule():
    implemented = {r.code for r in registry.RULES if r.implemented}
    assert set(pages()) == implemented
    for code, path in pages().items():
        assert path.name == f"{code}-{registry.BY_CODE[code].name}.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_has_the_required_sections(page):
    text = page.read_text(encoding="utf-8")
    code = page.name.split("-", 1)[0]
    info = registry.BY_CODE[code]
    assert text.startswith(f"# {info.name} ({code})\n")
    titles = list(sections(text))
    for title in SECTIONS:
        assert title in titles, f"{page.name} lacks '## {title}'"
    if info.code != "RES000":
        assert any(ex.section == "Example" and ex.expected() for ex in examples(page)), "Example must be annotated"
        assert all(not ex.expected() for ex in examples(page) if ex.section == "Use instead")
