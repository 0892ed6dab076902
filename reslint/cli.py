"""The command line: ``reslint [check] PATHS``, ``rule``, ``graph``, ``server``, ``show-settings``, ``clean``.

Exit status (DESIGN section 3): 0 clean or all fixed, 1 findings remain (or
``--diff`` has a diff), 2 usage, configuration or internal error. Only results
go to stdout; errors and progress go to stderr. LibCST is imported only when
files are checked, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import List, Optional, Tuple

import click

from reslint import __version__, registry
from reslint.output import FORMATS  # one list of formats; reslint.output does not import LibCST
from reslint.output.terminal import visible, warn

#: a progress bar is drawn (on a terminal) only for runs over more files than this
PROGRESS_MIN_FILES = 200


class DefaultGroup(click.Group):
    """A group whose default command is ``check`` (``reslint PATH`` = ``reslint check PATH``)."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Run the command; an error reslint did not expect exits with status 2, as the module
        docstring says, never with a traceback's 1, which CI would read as "findings remain". A
        missing dependency (reslint run by an interpreter it is not installed in) says so."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except ImportError as exc:
            _error(f"cannot run: {exc}; a dependency is missing in this Python ({sys.executable}): "
                   f"install reslint into it (`pip install reslint`)")
            ctx.exit(2)
        except Exception:  # noqa: BLE001 - any other error is reslint's own bug
            import traceback

            traceback.print_exc(file=sys.stderr)
            _error("internal error (traceback above); please report it with the command that caused it")
            ctx.exit(2)


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
            raise click.UsageError(f"{option}: {registry.unknown(selector)}")


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
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Paths to leave out (gitignore-style; comma-separated or repeated); replaces `exclude`.")
@click.option("--extend-exclude", multiple=True, metavar="PATTERN",
              help="Paths to leave out in addition to `exclude`.")
@click.option("--force-exclude", is_flag=True, default=None,
              help="Apply the excludes to paths named on the command line too (as pre-commit names files).")
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show as fixable) unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing. Exit 1 if any.")
@click.option("--show-fixes", is_flag=True, help="List the fixes that were applied.")
@click.option("--output-format", "-f", type=click.Choice(FORMATS), default=None,
              help="The format of the results (default: `output-format` in the configuration, else full).")
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
@click.option("--ignore-noqa", is_flag=True, help="Report findings also where a suppression comment silences them.")
@click.option("--add-noqa", is_flag=True,
              help="Add `# noqa: CODE` to every line with a finding (to adopt reslint on existing code).")
@click.option("--baseline", "baseline_file", type=click.Path(path_type=Path), metavar="FILE",
              help="Report only the findings that are not in this baseline (default: `baseline` in the "
                   "configuration).")
@click.option("--write-baseline", type=click.Path(path_type=Path), metavar="FILE",
              help="Record the current findings in FILE, a baseline for --baseline, and exit 0.")
@click.option("--no-baseline", is_flag=True, help="Report every finding, whatever `baseline` the configuration names.")
@click.option("--diff-base", metavar="REV",
              help="Report only the findings that are new since the git revision REV (on a changed line, or "
                   "not found at REV).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes for large runs (default: one per CPU; 1 = no workers).")
@click.option("--profile", is_flag=True,
              help="Print the time spent per phase and per rule to stderr (runs in one process).")
def check(paths, select, extend_select, ignore, exclude, extend_exclude, force_exclude, fix, unsafe_fixes, diff, show_fixes, output_format, output_file,
          statistics, exit_zero, config_file, isolated, stdin_filename, color, quiet, no_cache, cache_dir,
          ignore_noqa, add_noqa, baseline_file, write_baseline, no_baseline, diff_base, jobs, profile):
    """Check PATHS (files or directories; default `.`) for resilience anti-patterns."""
    if profile:
        jobs = 1
        _start_profile()

    stdin_mode = list(paths) == [Path("-")]
    if add_noqa and (fix or diff or stdin_mode):
        raise click.UsageError("--add-noqa writes comments into files: it cannot be combined with --fix, --diff "
                               "or stdin (`-`)")
    if write_baseline is not None and (diff or add_noqa or stdin_mode or baseline_file or diff_base):
        raise click.UsageError("--write-baseline records the findings of a run over files: it cannot be combined "
                               "with --diff, --add-noqa, stdin (`-`), --baseline or --diff-base")
    if diff_base is not None and stdin_mode:
        raise click.UsageError("--diff-base compares files with a git revision: it cannot read stdin (`-`)")
    settings = _settings(config_file, isolated, select, extend_select, ignore, exclude, extend_exclude, force_exclude,
                         paths=None if stdin_mode else list(paths) or [Path(".")])
    output_format = output_format or settings.output_format
    if baseline_file is None and settings.baseline and not no_baseline and write_baseline is None:
        baseline_file = settings.root / settings.baseline

    from reslint.engine.runner import Runner

    runner = Runner(settings, use_cache=not no_cache, cache_dir=cache_dir, ignore_noqa=ignore_noqa, jobs=jobs,
                    reuse_last_run=not (fix or diff or add_noqa))
    if stdin_mode:
        results = [_lint_stdin(runner.linter, stdin_filename)]
    else:
        results = _run(runner, paths, progress=True)
    if add_noqa:
        errors = [message for result in results for message in result.internal_errors] + _add_noqa(results)
        for message in errors:
            _error(message)
        sys.exit(2 if errors else 0)

    fix_errors: List[str] = []
    fixed_findings = []
    diffs: List[str] = []
    rewritten = False
    would_fix = 0
    if fix or diff:
        from reslint.engine.fixer import fix_file, fix_text

        linter = runner.linter
        for result in results:
            if stdin_mode:
                outcome = fix_text(linter, result.source.text, result.display, unsafe_fixes) if result.source else None
            else:
                outcome = fix_file(linter, result, unsafe_fixes, write=not diff)
            if outcome is None:
                continue
            if outcome.error:
                fix_errors.append(outcome.error)
            if outcome.text is None:
                continue
            if diff:
                diffs.append(_diff(result.source.text, outcome.text, result.display))
                would_fix += len(outcome.applied)
                continue
            fixed_findings.extend(outcome.applied)
            if stdin_mode:
                findings, errors = linter.lint_text(outcome.text, result.display)
                result.findings, result.source.text = findings, outcome.text
            else:
                rewritten = True
        if stdin_mode and not diff and results[0].source is not None:
            # the fixed code (or the input unchanged), in the input's encoding and with its BOM
            source = results[0].source
            sys.stdout.flush()
            sys.stdout.buffer.write(source.text.encode(source.encoding))
            sys.stdout.buffer.flush()
        if rewritten:
            # what remains, from a whole run again: the project pass (RES301, RES402) and the
            # verdict on suppressions (RES900) depend on the fixed files too
            results = _run(runner, paths, progress=False)

    internal = [message for result in results for message in result.internal_errors] + fix_errors
    findings = sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key())
    prints, known = None, 0
    if write_baseline is not None or baseline_file is not None or diff_base is not None:
        from reslint.output.fingerprints import fingerprints

        sources = {r.display: r.source.text for r in results if r.findings and r.source is not None}
        every = fingerprints(findings, sources)
        prints = dict(zip(findings, every))
        if write_baseline is not None:
            _write_baseline(write_baseline, results, findings, every, settings)
            for message in internal:
                _error(message)
            sys.exit(2 if internal else 0)
        if baseline_file is not None:
            findings, known = _apply_baseline(baseline_file, results, findings, every, settings)
        if diff_base is not None:
            findings = _new_since(diff_base, settings, paths, findings, [prints[f] for f in findings], sources,
                                  ignore_noqa, jobs)
    if diff:
        _write("".join(diffs), output_file)
        _diff_summary(would_fix, findings, unsafe_fixes)
    elif stdin_mode and fix and output_file is None:
        # stdout carries the code: what remains goes to stderr, concise (as Ruff does)
        _emit(findings, results, "concise", None, statistics, "never", unsafe_fixes, len(fixed_findings), quiet,
              settings.root, err=True, prints=prints, known=known)
    else:
        _emit(findings, results, output_format, output_file, statistics, color, unsafe_fixes, len(fixed_findings),
              quiet, settings.root, prints=prints, known=known)
    if show_fixes and fixed_findings:
        _show_fixes(fixed_findings)
    for message in internal:
        _error(message)
    if internal:
        sys.exit(2)
    remains = diffs if diff else findings
    sys.exit(1 if remains and not exit_zero else 0)


def _diff_summary(would_fix: int, findings, unsafe_fixes: bool) -> None:
    """``--diff``'s closing line on stderr (the diff is on stdout), as Ruff prints it: how many
    findings the diff fixes, and how many more fixes ``--unsafe-fixes`` would add, so that a
    diff left empty because every fix is unsafe does not read as "nothing to fix"."""
    from reslint.diagnostics import Applicability

    hidden = 0 if unsafe_fixes else sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE)
    more = f"{hidden} {'fix' if hidden == 1 else 'fixes'} available with `--unsafe-fixes`"
    if would_fix:
        click.echo(f"Would fix {would_fix} error{'s' if would_fix != 1 else ''}"
                   + (f" ({hidden} more {more.split(' ', 1)[1]})." if hidden else "."), err=True)
    elif hidden:
        click.echo(f"No errors would be fixed ({more}).", err=True)


def _error(message: str) -> None:
    """Print ``reslint: error: message`` to stderr. Messages name files and quote them (a
    path, a configuration key, an exception's text), so they are printed through
    :func:`visible`: an escape code in a file name must not reach the terminal."""
    click.echo(f"reslint: error: {visible(message)}", err=True)


#: a line and its ending, split only at the endings Python counts lines by (``str.splitlines``
#: also splits at form feeds and other separators, which would cut a line of code in two)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _diff(before: str, after: str, display: str) -> str:
    r"""The unified diff of one file's fixes (``--diff``), printable on a terminal.

    The header lines (the path) and the code lines are written through :func:`visible`, so
    the diff does not apply as a patch where it shows a control character (a file holding
    one is hostile or broken); line endings ``\n`` and ``\r\n`` stay as they are. A
    last line without an ending gets git's ``\ No newline at end of file`` marker
    (difflib would run it into the next line of the diff)."""
    lines = difflib.unified_diff(_LINE.findall(before), _LINE.findall(after), fromfile=f"a/{display}",
                                 tofile=f"b/{display}")
    return "".join(_diff_line(line) for line in lines)


def _diff_line(line: str) -> str:
    """One line of a unified diff, as :func:`_diff` prints it, with a line ending."""
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    if ending in ("\n", "\r\n"):
        return visible(body) + ending
    if ending:  # a lone \r: an old Mac line ending, which would let the next line overwrite this one
        return visible(line) + "\n"
    return visible(body) + "\n\\ No newline at end of file\n"


def _start_profile() -> None:
    """Collect ``--profile`` times; the table goes to stderr when the command ends (any exit)."""
    import time

    from reslint import profiling

    collected, started = profiling.start(), time.perf_counter()
    click.get_current_context().call_on_close(
        lambda: click.echo(collected.report(time.perf_counter() - started), err=True))


def _settings(config_file, isolated, select, extend_select, ignore, exclude=(), extend_exclude=(),
              force_exclude=None, paths=None):
    """The settings of a run over ``paths``: the configuration file (found from the current
    directory), then the rule and path options of the command line. Exits with status 2 on a bad
    file, selector or pattern."""
    from reslint.config import ConfigError, glob_error, load_settings, with_overrides

    select, extend_select, ignore = _split(select), _split(extend_select), _split(ignore)
    for option, selectors in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)):
        _validate_selectors(option, selectors)
    exclude, extend_exclude = _split(exclude), _split(extend_exclude)
    for option, patterns in (("--exclude", exclude), ("--extend-exclude", extend_exclude)):
        for pattern in patterns:
            error = glob_error(pattern)
            if error is not None:
                raise click.UsageError(f"{option}: a pattern that cannot be used, {pattern!r}: {error}")
    try:
        settings = load_settings(Path.cwd(), config_file, isolated, paths)
    except ConfigError as exc:
        _error(str(exc))
        sys.exit(2)
    return with_overrides(
        settings,
        select=select or None,
        extend_select=(settings.extend_select + extend_select) if extend_select else None,
        ignore=(settings.ignore + ignore) if ignore else None,
        exclude=exclude or None,
        extend_exclude=(settings.extend_exclude + extend_exclude) if extend_exclude else None,
        force_exclude=force_exclude,
    )


def _run(runner, paths, progress: bool):
    """``runner.run(paths)``, with a progress bar on a terminal. A missing path is a RES000
    finding (exit status 1, as Ruff's E902), not an error: the other paths are still checked."""
    bar = _ProgressBar(sys.stderr) if progress and _is_terminal(sys.stderr) else None
    try:
        return runner.run(list(paths), progress=bar).results
    finally:
        if bar is not None:
            bar.close()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _ProgressBar:
    """A runner callback that draws a click progress bar on ``stream`` once a run turns out to
    check more than :data:`PROGRESS_MIN_FILES` files (shorter runs finish before it helps)."""

    def __init__(self, stream):
        self.stream = stream
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if total <= PROGRESS_MIN_FILES:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label="Checking", file=self.stream, show_pos=True,
                                         show_eta=False, update_min_steps=max(1, total // 100))
            self.bar.__enter__()
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _add_noqa(results) -> List[str]:
    """Write ``# noqa: CODES`` on the lines of the findings (``--add-noqa``); return error messages.

    RES000 (the file cannot be parsed, so its comments are not read) and RES900 (an unused
    suppression is removed with --fix, not suppressed) get no directive.
    """
    from reslint.engine.filepass import syntax_accepted
    from reslint.engine.fixer import write_atomically
    from reslint.engine.suppression import add_noqa

    added, errors = 0, []
    for result in results:
        wanted = {}
        for finding in result.findings:
            if finding.code not in ("RES000", "RES900"):
                wanted.setdefault(finding.noqa_row or finding.location.row, set()).add(finding.code)
        if not wanted or result.source is None:
            continue
        outcome = add_noqa(result.source.text, wanted)
        for row, why in outcome.skipped:
            click.echo(visible(f"{result.display}:{row}: no `# noqa` added: {why}"), err=True)
        if outcome.text == result.source.text:
            continue
        if not syntax_accepted(outcome.text):  # a file of newer syntax may not compile here, yet be fine
            errors.append(f"{result.display}: adding `# noqa` comments would break the file; not written; please "
                          f"report this bug")
            continue
        error = write_atomically(Path(result.path), outcome.text, result.source.encoding, result.source.digest)
        if error is not None:
            errors.append(error)
            continue
        added += outcome.added
    click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
    return errors


def _lint_stdin(linter, stdin_filename: Optional[str]):
    from reslint.engine.results import FileResult

    display = linter.display_path(Path(stdin_filename)) if stdin_filename else "-"
    data = sys.stdin.buffer.read()
    return linter.lint_bytes(data, display, FileResult(display, display))


def _write_baseline(path: Path, results, findings, prints, settings) -> None:
    """``--write-baseline FILE``: record ``findings``; the entries of files this run did not
    check are kept from the file's last version (a run over some files only), unless those
    files are gone. Exits 2 when the file cannot be written or its last version read."""
    from reslint.engine import baseline

    checked = [r.display for r in results]
    exists = baseline.existing_under(settings.root)
    old = {}
    if path.exists():
        try:
            old = baseline.load(path)
        except baseline.BaselineError as exc:
            _error(f"{exc}; not overwritten (remove it first)")
            sys.exit(2)
    current = baseline.entries(findings, prints)
    new = baseline.rewritten(old, current, checked, settings.enabled, exists)
    pruned = baseline.apply(old, findings, prints, checked, settings.enabled, exists).stale if old else {}
    _write(baseline.dump(new), path)
    files = len(new)
    stale = sum(pruned.values())
    click.echo(visible(f"Wrote {baseline.count(new)} finding{'s' if baseline.count(new) != 1 else ''} in {files} "
                       f"file{'s' if files != 1 else ''} to {path}"
                       + (f" ({stale} stale entr{'ies' if stale != 1 else 'y'} pruned)." if stale else ".")),
               err=True)


def _apply_baseline(path: Path, results, findings, prints, settings):
    """(the findings not in the baseline at ``path``, how many were in it); warns about stale
    entries; exits 2 when the file cannot be used."""
    from reslint.engine import baseline

    try:
        entries = baseline.load(path)
    except baseline.BaselineError as exc:
        _error(str(exc))
        sys.exit(2)
    outcome = baseline.apply(entries, findings, prints, [r.display for r in results], settings.enabled,
                             baseline.existing_under(settings.root))
    if outcome.stale:
        stale = sum(outcome.stale.values())
        warn(f"{path}: {stale} baseline {'entries no longer match' if stale != 1 else 'entry no longer matches'} "
             f"a finding (fixed, or the line changed): {baseline.describe(outcome.stale)}; prune with "
             f"`reslint check --write-baseline {path}`")
    return outcome.new, outcome.known


def _new_since(rev, settings, paths, findings, prints, sources, ignore_noqa, jobs):
    """``--diff-base REV``: the findings new since ``rev``; exits 2 when git cannot tell."""
    from reslint.engine.revision import RevisionError, new_since

    try:
        return new_since(rev, settings, paths, findings, prints, sources, ignore_noqa=ignore_noqa, jobs=jobs)
    except RevisionError as exc:
        _error(str(exc))
        sys.exit(2)


def _emit(findings, results, output_format, output_file, statistics, color, unsafe_fixes, fixed, quiet,
          root, err: bool = False, prints=None, known: int = 0) -> None:
    from reslint.output import Report, renderer

    use_color = False
    if statistics:
        text = _statistics(findings, output_format, unsafe_fixes, known)
    else:
        sources = {r.display: r.source.text for r in results if r.findings and r.source is not None}
        use_color = _use_color(color) and output_file is None and output_format in ("full", "concise")
        summary = not (quiet and output_format in ("full", "concise"))
        text = renderer(output_format)(findings, Report(sources, use_color, unsafe_fixes, fixed, summary, root,
                                                        fingerprints=prints, known=known))
    _write(text, output_file, use_color, err)


def _statistics(findings, output_format: str, unsafe_fixes: bool = False, known: int = 0) -> str:
    """``--statistics``: findings per rule and how many of them ``--fix`` would fix (``fixable``)
    and how many more with ``--unsafe-fixes`` (``hidden_fixes``), as JSON with ``-f json`` (as
    Ruff does), else as text with the closing lines of the human formats."""
    from reslint.diagnostics import Applicability
    from reslint.output.summary import summary

    rows = []
    for (code, name), group in sorted(_by_rule(findings).items()):
        safe = sum(1 for f in group if f.fix and f.fix.applicability is Applicability.SAFE)
        unsafe = sum(1 for f in group if f.fix and f.fix.applicability is Applicability.UNSAFE)
        fixable, hidden = (safe + unsafe, 0) if unsafe_fixes else (safe, unsafe)
        rows.append({"code": code, "name": name, "count": len(group), "fixable": fixable, "hidden_fixes": hidden})
    if output_format == "json":
        import json

        return json.dumps(rows, indent=2) + "\n"
    lines = []
    for row in rows:
        notes = [f"{row['fixable']} fixable"] if row["fixable"] else []
        if row["hidden_fixes"]:
            notes.append(f"{row['hidden_fixes']} {'more' if notes else 'fixable'} with --unsafe-fixes")
        lines.append(f"{row['count']}\t{row['code']}\t{row['name']}" + (f"\t({', '.join(notes)})" if notes else ""))
    return "".join(line + "\n" for line in lines) + summary(list(findings), unsafe_fixes, 0, known) + "\n"


def _by_rule(findings):
    groups = {}
    for f in findings:
        groups.setdefault((f.code, f.name), []).append(f)
    return groups


def _write(text: str, output_file: Optional[Path], use_color: bool = False, err: bool = False) -> None:
    """Print ``text``, or write it to ``output_file`` (creating missing parent directories, as
    Ruff does); a file that cannot be written exits 2 with one line naming it and why."""
    if output_file is None:
        # click strips ANSI styles when stdout is not a terminal unless told otherwise
        click.echo(text, nl=False, color=True if use_color else None, err=err)
        return
    try:
        if not output_file.parent.is_dir():
            output_file.parent.mkdir(parents=True)
        output_file.write_text(text, encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileExistsError):  # a parent is a file
            reason = f"{exc.filename} is not a directory"
        _error(f"cannot write {output_file}: {reason}")
        sys.exit(2)


def _show_fixes(fixed) -> None:
    counts = Counter((f.filename, f.code, f.name) for f in fixed)
    click.echo(f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:", err=True)
    for (filename, code, name), n in sorted(counts.items()):
        click.echo(f"- {visible(filename)}: {n} x {code} ({name})", err=True)


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
        raise click.UsageError(registry.unknown(code))
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
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar="RESLINT_CACHE_DIR",
              help="Cache directory (default: .reslint_cache in the project root).")
def graph(paths, graph_format, config_file, isolated, no_cache, cache_dir):
    """Print the retry layers of PATHS and the call chains between them (Mermaid or DOT)."""
    from reslint import graph as render
    from reslint.analysis.callgraph import CallGraph
    from reslint.config import ConfigError, load_settings, with_overrides
    from reslint.engine.runner import Runner

    try:
        settings = with_overrides(load_settings(Path.cwd(), config_file, isolated, list(paths) or [Path(".")]),
                                  select=("RES301",))
    except ConfigError as exc:
        _error(str(exc))
        sys.exit(2)
    # a graph has no place for a finding: a missing path stays an error here
    for path in paths:
        if not os.path.lexists(path):
            _error(f"{path}: no such file or directory")
            sys.exit(2)
    runner = Runner(settings, use_cache=not no_cache, cache_dir=cache_dir)
    run = runner.run(list(paths))
    # the graph shows every module given, also those the prefilter skipped
    results = [runner.lint(Path(r.path), force=True) if r.skipped else r for r in run.results]
    summaries = [r.summary for r in results if r.summary is not None]
    text = (render.mermaid if graph_format == "mermaid" else render.dot)(CallGraph(summaries,
                                                                                   other_names=runner.other_names))
    click.echo(text, nl=False)


@main.command()
@click.option("--unsafe-fixes", is_flag=True,
              help="Offer unsafe fixes as quick fixes and in fix-all (a client's `unsafeFixes` setting wins).")
@click.option("--no-cache", is_flag=True, help="Read and write no cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar="RESLINT_CACHE_DIR",
              help="Cache directory (default: .reslint_cache in the project root).")
def server(unsafe_fixes, no_cache, cache_dir):
    """Run the language server for editors (LSP over stdin/stdout; needs the `lsp` extra)."""
    from reslint.server import MISSING, serve

    if not serve(unsafe_fixes=unsafe_fixes, use_cache=not no_cache, cache_dir=cache_dir):
        click.echo(f"reslint: error: {MISSING}", err=True)
        sys.exit(2)


@main.command("show-settings")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="As for `check`: replaces the configured selection.")
@click.option("--extend-select", multiple=True, help="As for `check`.")
@click.option("--ignore", multiple=True, help="As for `check`.")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar="RESLINT_CACHE_DIR",
              help="Cache directory (default: .reslint_cache in the project root).")
def show_settings(path, select, extend_select, ignore, config_file, isolated, cache_dir):
    """Print the configuration `reslint check` uses when run here, and which rules are on and why.

    The configuration is found from the current directory, as `check` does. With PATH, also
    show what applies to it: the files checked under a directory, the per-file-ignores of a file.
    """
    from reslint.engine.cache import CACHE_DIR_NAME
    from reslint.config import keys, load_table

    settings = _settings(config_file, isolated, select, extend_select, ignore)
    from_file = set()
    if settings.config_file is not None:
        from_file = {key for key in load_table(settings.config_file) if key != "__prefix__"}
    from_cli = {"select"} if select else set()
    from_cli |= {"extend-select"} if extend_select else set()
    from_cli |= {"ignore"} if ignore else set()
    source = settings.config_file.name if settings.config_file is not None else ""
    lines = [
        f"Configuration file: {settings.config_file or 'none (built-in defaults)'}",
        f"Project root:       {settings.root}",
        f"Cache directory:    {cache_dir.resolve() if cache_dir is not None else settings.root / CACHE_DIR_NAME}",
        "",
        "Settings (`# default`: set neither in the file nor on the command line):",
    ]
    rows = []
    for key, attr in keys():
        value = getattr(settings, attr)
        if key == "per-file-ignores":
            value = dict(value)
        elif key == "catalog":
            value = value.to_table()
        elif key == "timeouts":  # resolved: what each category's calls are judged by
            value = {category: {"max-timeout": settings.max_timeout_for(category),
                                "default-timeout": settings.default_timeout_for(category)}
                     for category, _, _ in value}
        origin = " and ".join(o for o, hit in ((source, key in from_file), ("command line", key in from_cli)) if hit)
        rows.append((f"{key} = {_toml(value)}", origin or "default"))
    width = max(len(text) for text, _ in rows if len(text) <= 48)  # a long list does not push the others right
    lines.extend(f"  {text:<{width}}  # {origin}" for text, origin in rows)

    per_file: List[Tuple[str, Tuple[str, ...]]] = []
    rows, program = _script_facts(path, settings) if path is not None and path.is_file() else (None, False)
    script = rows is not None and rows[1] is None
    if path is not None:
        lines.extend(["", *_path_lines(path, settings, script, rows if not script else None, program)])
        if path.is_file() or not path.exists():
            per_file = _per_file_ignores_for(path, settings)
    lines.extend(["", "Rules:"])
    for info in registry.RULES:
        state, why = _rule_state(info, settings, per_file, path, script, program)
        lines.append(f"  {info.code}  {info.name:<26} {state:<3}  {why}")
    # the paths and the configuration's globs come from the checkout (a pull request's)
    click.echo("\n".join(visible(line) for line in lines))


def _toml(value) -> str:
    """A value as TOML would write it (for show-settings)."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (int, str)):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


def _display(path: Path, settings) -> str:
    rel = os.path.relpath(os.path.abspath(path), settings.root)
    return Path(path).as_posix() if rel.startswith("..") else Path(rel).as_posix()


def _per_file_ignores_for(path: Path, settings) -> List[Tuple[str, Tuple[str, ...]]]:
    import pathspec

    display = _display(path, settings)
    return [(glob, codes) for glob, codes in settings.per_file_ignores
            if pathspec.GitIgnoreSpec.from_lines([glob]).match_file(display)]


def _is_test_code(path: Path, settings) -> bool:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(settings.test_paths).match_file(_display(path, settings))


def _shadowed_by(path: Path, settings) -> Optional[str]:
    """The package that shadows the module file ``path`` when nothing loads or runs it
    (:mod:`reslint.engine.shadowed`), else ``None``."""
    from reslint.engine.files import read_regular_text
    from reslint.engine.scripts import OperatorScripts
    from reslint.engine.shadowed import ShadowedModules, shadowing_package

    if shadowing_package(str(path)) is None:
        return None
    try:
        text = read_regular_text(path, errors="replace")
    except OSError:
        return None
    import pathspec

    is_test = pathspec.GitIgnoreSpec.from_lines(settings.test_paths).match_file
    left = ShadowedModules(settings.anchor, is_test).left_out([(str(path), text)], OperatorScripts(settings.anchor).named)
    return left.get(str(path))


def _path_lines(path: Path, settings, script: bool = False, block=None, program: bool = False) -> List[str]:
    """What applies to ``path`` (``script``: it is an operator script; ``block``: the rows of its
    ``if __name__ == "__main__":`` block, run by hand, when it is not; ``program``: it is one of the
    project's programs; :mod:`reslint.engine.scripts`)."""
    from reslint.engine.discovery import DiscoveryError, Walker

    display = _display(path, settings)
    if not path.exists():
        return [f"Path: {display} (does not exist)"]
    if path.is_file():
        out = [f"Path: {display} (a file: checked when named on the command line, whatever `exclude` says)"]
        matched = _per_file_ignores_for(path, settings)
        for glob, codes in matched:
            out.append(f"  per-file-ignores {_toml(glob)} = {_toml(list(codes))} applies")
        if not matched:
            out.append("  no per-file-ignores apply")
        if _is_test_code(path, settings):
            out.append(f"  test code (test-paths): test-ignore = {_toml(list(settings.test_ignore))} applies, "
                       f"also when the file is named on the command line")
        else:
            out.append("  not test code (test-paths)")
        if script:
            out.append(f"  an operator script (run by hand: in a script directory, or example code that is no "
                       f"service, and not named by CI or another automation file): script-ignore = "
                       f"{_toml(list(settings.script_ignore))} applies")
        elif block is not None:
            out.append(f"  its `if __name__ == \"__main__\":` block (lines {block[0]}-{block[1]}) is run by hand "
                       f"(no CI or other automation file names the module): script-ignore = "
                       f"{_toml(list(settings.script_ignore))} applies there")
        shadowing = _shadowed_by(path, settings)
        if shadowing is not None:
            out.append(f"  shadowed by the package {shadowing}/ and loaded or run by nothing: no import loads it, "
                       f"so none of its findings is reported (a syntax error is)")
        if program and settings.program_ignore:
            out.append(f"  a program (in a script directory, CI's .github/ or an agent skill, or run as one "
                       f"in a package's data, and no service), run to completion whoever starts it: program-ignore = {_toml(list(settings.program_ignore))} "
                       f"applies")
        return out
    walker = Walker(settings.root, settings.exclude + settings.extend_exclude, settings.respect_gitignore)
    try:
        files = walker.expand([path])
    except DiscoveryError as exc:
        return [f"Path: {display} ({exc})"]
    count = len(files)
    tests = sum(1 for file in files if _is_test_code(file, settings))
    return [f"Path: {display} (a directory: {count} Python file{'s' if count != 1 else ''} checked under it, "
            f"after `exclude`, `extend-exclude` and .gitignore)",
            f"  {tests} of them test code (test-paths), where test-ignore = {_toml(list(settings.test_ignore))} "
            f"applies"]


def _rule_state(info, settings, per_file, path, script: bool = False, program: bool = False) -> Tuple[str, str]:
    """("on"/"off", why) for one rule: which selector selected it, which ignored it."""
    def matching(selectors):
        return [s for s in selectors if info.code in registry.expand(s)]

    selected = [f'"{s}" (select)' for s in matching(settings.select)]
    selected += [f'"{s}" (extend-select)' for s in matching(settings.extend_select)]
    ignored = [f'"{s}"' for s in matching(settings.ignore)]
    if not info.implemented:
        return "off", "not implemented in this version"
    if ignored:
        also = f", though selected by {', '.join(selected)}" if selected else ""
        return "off", f"ignored by {', '.join(ignored)} (ignore){also}"
    if not selected:
        return "off", "not selected (select, extend-select)"
    why = f"selected by {', '.join(selected)}"
    off_here = [glob for glob, codes in per_file if info.code in settings.codes(codes)]
    if off_here:
        return "on", f"{why}; off in {_display(path, settings)} by per-file-ignores {', '.join(map(_toml, off_here))}"
    if path is not None and path.is_file() and info.code in settings.codes(settings.test_ignore) and \
            _is_test_code(path, settings):
        return "on", f"{why}; off in {_display(path, settings)}, test code, by test-ignore"
    if script and info.code in settings.codes(settings.script_ignore):
        return "on", f"{why}; off in {_display(path, settings)}, an operator script, by script-ignore"
    if program and info.code in settings.codes(settings.program_ignore):
        return "on", f"{why}; off in {_display(path, settings)}, a program, by program-ignore"
    return "on", why


def _script_facts(path: Path, settings):
    """``(rows run by hand, is a program)`` for the file ``path``, read once
    (:meth:`reslint.engine.scripts.OperatorScripts.hand_run_rows`, :meth:`~reslint.engine.scripts.
    OperatorScripts.is_program`): ``None`` rows when ``script-ignore`` is empty, ``False`` when
    ``program-ignore`` is, both when the file cannot be read."""
    from reslint.engine.files import read_regular_text
    from reslint.engine.scripts import OperatorScripts

    if not settings.script_ignore and not settings.program_ignore:
        return None, False
    try:
        text = read_regular_text(path, errors="replace")
    except OSError:
        return None, False
    scripts = OperatorScripts(settings.anchor)
    return (scripts.hand_run_rows(str(path), text) if settings.script_ignore else None,
            bool(settings.program_ignore) and scripts.is_program(str(path), text))


@main.command()
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar="RESLINT_CACHE_DIR",
              help="Cache directory (default: .reslint_cache in the project root).")
@click.option("--config", "config_file", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
def clean(cache_dir, config_file, isolated):
    """Remove the cache directory (.reslint_cache in the project root, or --cache-dir)."""
    from reslint.engine.cache import CACHE_DIR_NAME, CacheUnavailable, remove

    if cache_dir is None:
        cache_dir = _settings(config_file, isolated, (), (), ()).root / CACHE_DIR_NAME
    # the last component stays as it is: a planted `.reslint_cache` link must not be resolved
    # to its target, which would then be emptied
    directory = Path(os.path.abspath(cache_dir))
    if directory.is_symlink():
        warn(f"the cache directory {directory} is a symbolic link: nothing removed")
        return
    if not directory.is_dir():
        click.echo(visible(f"No cache to remove at {directory}"))
        return
    try:
        left = remove(directory)
    except (OSError, CacheUnavailable) as exc:
        _error(f"cannot remove the cache {directory}: {exc.strerror or exc}")
        sys.exit(2)
    if left:
        # the names left are whatever the checkout put in the cache directory
        click.echo(visible(f"Removed reslint's cache entries from {directory}; left alone what reslint did not "
                           f"write there: {', '.join(left)}"))
    else:
        click.echo(visible(f"Removed {directory}"))
