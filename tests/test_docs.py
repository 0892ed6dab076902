"""The docs site (``mkdocs.yml``, ``docs/hooks.py``): the README and the rule book built with
``mkdocs build --strict``, so that a broken link, a missing anchor or a rule page left out
of the nav fails; and the same links checked as GitHub shows them (paths in the repository).

MkDocs and Material for MkDocs come with the ``docs`` extra, which the ``test`` extra
includes; the tests that build the site are skipped, saying so, when they are missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULE_PAGES = sorted(p.name for p in (REPO / "rules").glob("RES*.md"))
#: a Markdown link target, as docs/hooks.py reads them
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _needs_mkdocs():
    for module, package in (("mkdocs", "mkdocs"), ("material", "mkdocs-material")):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(f"{package} is not installed: pip install -e '.[docs]' to build the docs site")


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # Material's banner about its end of life
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=root, capture_output=True, text=True, env=env, timeout=300)


def _copy_sources(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("mkdocs.yml", "README.md", "CONTRIBUTING.md"):
        shutil.copy(REPO / name, root / name)
    for name in ("docs", "rules", "benchmarks", "reslint"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def test_nav_lists_every_rule_page():
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?(rules/\S+\.md)\s*$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"),
                     re.M)
    assert sorted(nav) == sorted(["rules/index.md"] + [f"rules/{name}" for name in RULE_PAGES])
    assert len(RULE_PAGES) >= 19


@pytest.mark.parametrize("page", ["README.md"] + [f"rules/{name}" for name in RULE_PAGES])
def test_relative_links_resolve_in_the_repository(page):
    """GitHub renders the README and the rule pages from the repository: each relative link
    must name a file or folder that exists (anchors are checked by the site build)."""
    source = REPO / page
    broken = []
    for target in LINK.findall(source.read_text(encoding="utf-8")):
        path = target.partition("#")[0]
        if not path or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue
        if not (source.parent / path).exists():
            broken.append(target)
    assert broken == []


def test_site_builds_strict_from_readme_and_rule_book(tmp_path):
    _needs_mkdocs()
    proc = _build(REPO, tmp_path / "site")
    assert proc.returncode == 0, proc.stderr
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "A linter for <strong>resilience anti-patterns</strong> in Python" in home
    # a README link to a rule page stays a link within the site; one to a file outside it goes to GitHub
    assert 'href="rules/RES402-non-idempotent-retry/#options"' in home
    assert 'href="https://github.com/reslint/reslint/blob/main/benchmarks/README.md"' in home
    assert 'href="https://github.com/reslint/reslint/tree/main/reslint/libraries"' in home
    for name in RULE_PAGES:
        html = (tmp_path / "site" / "rules" / name[:-3] / "index.html").read_text(encoding="utf-8")
        code = name[:6]
        assert f"({code})" in html
        assert "```" not in html, f"{name}: a fence rendered as text"
    index = (tmp_path / "site" / "rules" / "index.html").read_text(encoding="utf-8")
    assert index.count('href="RES') >= len(RULE_PAGES)
    fixed = (tmp_path / "site" / "rules" / "RES101-missing-timeout" / "index.html").read_text(encoding="utf-8")
    assert fixed.count("After reslint --fix --unsafe-fixes") == (REPO / "rules" / "RES101-missing-timeout.md") \
        .read_text(encoding="utf-8").count("```py fixed")


def test_site_build_fails_on_a_broken_link_and_a_page_missing_from_the_nav(tmp_path):
    _needs_mkdocs()
    root = _copy_sources(tmp_path)
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("      - rules/RES203-unbounded-retry.md\n", ""),
                      encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8")
                      + "\nSee [the retry rule](rules/RES299-no-such-rule.md) and "
                        "[its options](rules/RES101-missing-timeout.md#no-such-anchor).\n", encoding="utf-8")
    proc = _build(root, tmp_path / "site")
    assert proc.returncode == 1, proc.stderr
    assert "rules/RES203-unbounded-retry.md" in proc.stderr and "not included in the \"nav\"" in proc.stderr
    assert "rules/RES299-no-such-rule.md" in proc.stderr
    assert "no-such-anchor" in proc.stderr
    assert "Aborted with 3 warnings in strict mode" in proc.stdout + proc.stderr
