"""The command line: ``reslint [check] PATHS``, ``reslint rule CODE``.

Exit status (DESIGN section 3): 0 clean or all fixed, 1 findings remain (or
``--diff`` has a diff), 2 usage, configuration or internal error. Only results
go to stdout; errors and progress go to stderr. LibCST is imported only when
files are checked, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections import Counter
from pathlib import Path
from typing import List, Optional, Tuple

import click

from reslint import __version__, registry
from reslint.output import FORMATS  # one list of formats; reslint.output does not import LibCST


class DefaultGroup(click.Group):
    """A group whose default command is ``check`` (``reslint PATH`` = ``reslint check PATH``)."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reslint", message="%(prog)s %(version)s")
def main() -> None:
    """reslint finds resilience anti-patterns: calls that can wait forever, retries that
    amplify outages, and retries that repeat writes.

    Run `reslint PATH...` (the same as `reslint check PATH...`).
    """


def _split(values: Tuple[str, ...]) -> Tuple[str, ...]:
    out = []
    for value in values:
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(out)


def _validate_selectors(option: str, selectors: Tuple[str, ...]) -> None:
    for selector in selectors:
        try:
            registry.expand(selector)
        except ValueError:
            raise click.UsageError(f"{option}: unknown rule {selector!r} (see `reslint rule --all`)")


def _use_color(choice: str) -> bool:
    """Whether the human formats are coloured: ``--color always|never`` wins; with ``auto``
    a non-empty ``NO_COLOR`` turns colour off (https://no-color.org), else a non-empty
    ``FORCE_COLOR`` turns it on (https://force-color.org), else stdout being a terminal does."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Rules to enable: codes, prefixes (RES1) or names; replaces the config.")
@click.option("--extend-select", multiple=True, help="Rules to enable in addition to the selected ones.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show as fixable) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing. Exit 1 if any.")
@click.option("--show-fixes", is_flag=True, help="List the fixes that were applied.")
@click.option("--output-format", "-f", type=click.Choice(FORMATS), default="full", show_default=True)
@click.option("--output-file", "-o", type=click.Path(path_type=Path), help="Write the results to a file.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of each one.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--stdin-filename", help="The path to report for source read from stdin (`-`).")
@click.option("--color", type=click.Choice(("auto", "always", "never")), default="auto", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary.")
@click.option("--no-cache", is_flag=True, help="Read and write no cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar="RESLINT_CACHE_DIR",
              help="Cache directory (default: .reslint_cache in the project root).")
def check(paths, select, extend_select, ignore, fix, unsafe_fixes, diff, show_fixes, output_format, output_file,
          statistics, exit_zero, config_file, isolated, stdin_filename, color, quiet, no_cache, cache_dir):
    """Check PATHS (files or directories; default `.`) for resilience anti-patterns."""
    from reslint.config import ConfigError, load_settings, with_overrides
    from reslint.discovery import DiscoveryError

    select, extend_select, ignore = _split(select), _split(extend_select), _split(ignore)
    for option, selectors in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)):
        _validate_selectors(option, selectors)
    try:
        settings = load_settings(Path.cwd(), config_file, isolated)
    except ConfigError as exc:
        click.echo(f"reslint: error: {exc}", err=True)
        sys.exit(2)
    settings = with_overrides(
        settings,
        select=select or None,
        extend_select=(settings.extend_select + extend_select) if extend_select else None,
        ignore=(settings.ignore + ignore) if ignore else None,
    )

    from reslint.runner import Runner

    runner = Runner(settings, use_cache=not no_cache, cache_dir=cache_dir)
    linter = runner.linter
    stdin_mode = list(paths) == [Path("-")]
    if stdin_mode:
        results = [_lint_stdin(linter, stdin_filename)]
    else:
        try:
            results = runner.run(list(paths)).results
        except DiscoveryError as exc:
            click.echo(f"reslint: error: {exc}", err=True)
            sys.exit(2)

    internal = [message for result in results for message in result.internal_errors]
    fixed_findings = []
    diff_found = False
    if fix or diff:
        from reslint.fixer import fix_file, fix_text

        for result in results:
            if stdin_mode:
                outcome = fix_text(linter, result.source.text, result.display, unsafe_fixes) if result.source else None
            else:
                outcome = fix_file(linter, result, unsafe_fixes, write=not diff)
            if outcome is None:
                continue
            if outcome.error:
                internal.append(outcome.error)
            if outcome.text is None:
                continue
            if diff:
                diff_found = True
                click.echo("".join(difflib.unified_diff(
                    result.source.text.splitlines(keepends=True), outcome.text.splitlines(keepends=True),
                    fromfile=f"a/{result.display}", tofile=f"b/{result.display}")), nl=False)
                continue
            fixed_findings.extend(outcome.applied)
            findings, errors = linter.lint_text(outcome.text, result.display)
            result.findings, result.source.text = findings, outcome.text
        if stdin_mode and not diff and results[0].source is not None:
            sys.stdout.write(results[0].source.text)  # the fixed code (or the input unchanged)

    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    if not (stdin_mode and fix) and not diff:
        _emit(findings, results, output_format, output_file, statistics, color, unsafe_fixes, len(fixed_findings),
              quiet, settings.root)
    if show_fixes and fixed_findings:
        _show_fixes(fixed_findings)
    for message in internal:
        click.echo(f"reslint: error: {message}", err=True)
    if internal:
        sys.exit(2)
    if diff:
        sys.exit(1 if diff_found else 0)
    sys.exit(1 if findings and not exit_zero else 0)


def _lint_stdin(linter, stdin_filename: Optional[str]):
    from reslint.engine import FileResult

    display = linter.display_path(Path(stdin_filename)) if stdin_filename else "-"
    data = sys.stdin.buffer.read()
    return linter.lint_bytes(data, display, FileResult(display, display))


def _emit(findings, results, output_format, output_file, statistics, color, unsafe_fixes, fixed, quiet,
          root) -> None:
    from reslint.output import Report, renderer

    use_color = False
    if statistics:
        counts = Counter((f.code, f.name) for f in findings)
        text = "".join(f"{n}\t{code}\t{name}\n" for (code, name), n in sorted(counts.items()))
        text += f"Found {len(findings)} error{'s' if len(findings) != 1 else ''}.\n"
    else:
        sources = {r.display: r.source.text for r in results if r.findings and r.source is not None}
        use_color = _use_color(color) and output_file is None and output_format in ("full", "concise")
        summary = not (quiet and output_format in ("full", "concise"))
        text = renderer(output_format)(findings, Report(sources, use_color, unsafe_fixes, fixed, summary, root))
    if output_file is not None:
        output_file.parent.mkdir(parents=True, exist_ok=True)
        output_file.write_text(text, encoding="utf-8")
    else:
        # click strips ANSI styles when stdout is not a terminal unless told otherwise
        click.echo(text, nl=False, color=True if use_color else None)


def _show_fixes(fixed) -> None:
    counts = Counter((f.filename, f.code, f.name) for f in fixed)
    click.echo(f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:", err=True)
    for (filename, code, name), n in sorted(counts.items()):
        click.echo(f"- {filename}: {n} x {code} ({name})", err=True)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Explain a rule (by CODE or name), or list them all with --all."""
    from reslint.rulebook import page_text

    if show_all or not code:
        for info in registry.RULES:
            state = "" if info.implemented else "  (planned)"
            click.echo(f"{info.code}  {info.name:<26} {info.severity:<8} {info.summary}{state}")
        return
    info = registry.lookup(code)
    if info is None:
        raise click.UsageError(f"unknown rule {code!r} (see `reslint rule --all`)")
    text = page_text(info.code)
    if text is None:
        click.echo(f"# {info.name} ({info.code})\n\n{info.summary}.\n\n(This rule has no page yet.)")
        return
    click.echo(text, nl=not text.endswith("\n"))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "graph_format", type=click.Choice(("mermaid", "dot")), default="mermaid",
              show_default=True)
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--no-cache", is_flag=True, help="Read and write no cache.")
def graph(paths, graph_format, config_file, isolated, no_cache):
    """Print the retry layers of PATHS and the call chains between them (Mermaid or DOT)."""
    from reslint import graph as render
    from reslint.analysis.callgraph import CallGraph
    from reslint.config import ConfigError, load_settings, with_overrides
    from reslint.discovery import DiscoveryError
    from reslint.runner import Runner

    try:
        settings = with_overrides(load_settings(Path.cwd(), config_file, isolated), select=("RES301",))
    except ConfigError as exc:
        click.echo(f"reslint: error: {exc}", err=True)
        sys.exit(2)
    runner = Runner(settings, use_cache=not no_cache)
    try:
        run = runner.run(list(paths))
    except DiscoveryError as exc:
        click.echo(f"reslint: error: {exc}", err=True)
        sys.exit(2)
    summaries = [r.summary for r in run.results if r.summary is not None]
    text = (render.mermaid if graph_format == "mermaid" else render.dot)(CallGraph(summaries))
    click.echo(text, nl=False)
