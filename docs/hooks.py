"""MkDocs hooks: the site's pages are the README and the rule book, read where they live.

``mkdocs.yml`` names this file under ``hooks:``. No page is copied into ``docs/`` by hand:
:func:`on_files` adds ``README.md`` as the home page, every ``rules/RES*.md`` as a rule page
and a generated rule index (``rules/index.md``), each read from the repository at build time.

The README and the rule pages link with paths relative to the repository, so that the links
work on GitHub. :func:`on_page_markdown` keeps a link to another page of the site as it is
(MkDocs checks it, anchor included) and turns a link to any other file or folder of the
repository (``benchmarks/README.md``, ``reslint/libraries/``) into its GitHub address. A link
to a path that does not exist is left alone, so that ``mkdocs build --strict`` reports it.
A rule example's ``py fixed`` fence becomes a ``py`` block titled as the fix's output.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RULES = "rules"
#: the branch GitHub links point to (as the rule links in SARIF output, reslint/registry.py)
BRANCH = "main"

#: a Markdown link or image target: ``](target)`` or ``](target "title")``
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
#: a rule book example's fence: ``py fixed`` is the expected output of ``--fix --unsafe-fixes``
#: (tests/rulebook.py); a bare word after the language is not fence syntax MkDocs reads
_FIXED_FENCE = re.compile(r"^(\s*```)py fixed\s*$", re.M)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def site_pages() -> dict:
    """Site path -> repository path of each page taken from the repository."""
    pages = {"index.md": "README.md"}
    for page in sorted((ROOT / RULES).glob("RES*.md")):
        pages[f"{RULES}/{page.name}"] = f"{RULES}/{page.name}"
    return pages


def rule_index() -> str:
    """The rule book's index page: one row per rule page, with its title line."""
    rows = ["# Rules", "", "| Code | Rule |", "| --- | --- |"]
    for page in sorted((ROOT / RULES).glob("RES*.md")):
        title = page.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        name, _, code = title.rpartition(" (")
        rows.append(f"| [{code.rstrip(')')}]({page.name}) | {name} |")
    return "\n".join(rows) + "\n"


def on_files(files: Files, config) -> Files:
    for site_path, repo_path in site_pages().items():
        files.append(File.generated(config, site_path, abs_src_path=str(ROOT / repo_path)))
    files.append(File.generated(config, f"{RULES}/index.md", content=rule_index()))
    return files


def _repo_path(page_src: str, target: str) -> str:
    """The repository path a link on ``page_src`` (a site path) points to."""
    repo_dir = posixpath.dirname(site_pages().get(page_src, page_src))
    return posixpath.normpath(posixpath.join(repo_dir, target))


def _site_path(repo_path: str) -> "str | None":
    """The site page for a repository path (a folder: its ``index.md``), or ``None``."""
    by_repo = {repo: site for site, repo in site_pages().items()}
    if repo_path in by_repo:
        return by_repo[repo_path]
    if repo_path == RULES:
        return f"{RULES}/index.md"
    return None


def on_page_markdown(markdown: str, page, config, files) -> str:
    page_src = page.file.src_uri
    page_dir = posixpath.dirname(page_src)
    repo_url = config["repo_url"].rstrip("/")
    source = site_pages().get(page_src)
    page.edit_url = f"{repo_url}/blob/{BRANCH}/{source}" if source else None

    def rewrite(match: re.Match) -> str:
        target, title = match.group("target"), match.group("title") or ""
        if target.startswith("#") or _SCHEME.match(target) or target.startswith("/"):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        repo_path = _repo_path(page_src, path)
        site = _site_path(repo_path)
        if site is not None:
            relative = posixpath.relpath(site, page_dir or ".")
            return f"]({relative}{hash_}{anchor}{title})"
        full = ROOT / repo_path
        if repo_path.startswith("..") or not full.exists():
            return match.group(0)  # broken: left for MkDocs to report
        kind = "tree" if full.is_dir() else "blob"
        return f"]({repo_url}/{kind}/{BRANCH}/{repo_path}{hash_}{anchor}{title})"

    markdown = _FIXED_FENCE.sub(r'\1py title="After reslint --fix --unsafe-fixes"', markdown)
    return _LINK.sub(rewrite, markdown)
