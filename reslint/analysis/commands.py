"""What a subprocess call runs, and whether it waits on the network with no bound of its own.

:func:`read_command` reads the command line of a subprocess call (a literal list or tuple,
a literal string with ``shell=True``, a name bound once to one, ``shlex.split`` of one, the
command of the ``Popen`` a ``wait()`` is called on) and judges it against the programs in
:mod:`reslint.catalog.programs`:

- ``network``: a program that waits on the network (``git fetch``, ``curl URL``) with none
  of its own timeout options, whose default is no bound or one above ``max-timeout``;
- ``bounded``: such a program given its own timeout (``curl --max-time 10``), run under
  ``timeout 30``, or whose default bounds it (pip's 15 s socket timeout);
- ``interactive``: a session with the user (``ssh host``, ``ssh -t``) or a run meant to last
  (``ssh -N``), which a timeout would cut;
- ``local``: a known program's local use (``git rev-parse``, ``rsync -a build/ dist/``);
- ``unknown``: the program is not known (a name held in a variable, ``$EDITOR``, an f-string's
  head, a program the catalog does not list), or the options may come from words that cannot
  be read (``["curl", *args]``). Unknown is never reported.

Words are read statically: a word held in a variable is "unknown text" and is never taken
for an option (a URL or a path is far likelier), but a list that is extended later, a ``*``
splice or a concatenation with an unknown list may add options, so the command is unknown.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from reslint.catalog.model import TimeoutSpec
from reslint.catalog.programs import (
    COMMAND_SPLITTERS,
    INTERPRETER_EXPRESSIONS,
    INTERPRETER_PATTERN,
    INTERPRETER_VALUE_OPTIONS,
    PROGRAM_LOOKUPS,
    PROGRAMS,
    SHELLS,
    WRAPPERS,
    ProgramSpec,
)
from reslint.semantics.arguments import find_argument
from reslint.semantics.context import UNKNOWN, Context

NETWORK, BOUNDED, INTERACTIVE, LOCAL, UNKNOWN_COMMAND = "network", "bounded", "interactive", "local", "unknown"

#: stands for the part of a word that cannot be read (an f-string's replacement field)
HOLE = "\ue000"
#: the words of a command line that end one simple command and start the next
_SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "(", ")", "|&", ";;", "\n"})
_REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<<", "&>", ">&", "<&", ">|", "2>", "2>>"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: a list or tuple grows after it was bound (its command line may get options later)
_GROWING_METHODS = ("append", "extend", "insert")
_INTERPRETER = re.compile(INTERPRETER_PATTERN)


@dataclass(frozen=True)
class Word:
    """One word of a command line: its text, with :data:`HOLE` where it cannot be read."""

    text: str

    @property
    def exact(self) -> bool:
        return HOLE not in self.text

    @property
    def known_prefix(self) -> str:
        return self.text.split(HOLE, 1)[0]


UNKNOWN_WORD = Word(HOLE)


@dataclass(frozen=True)
class Argv:
    """The words of a command line; ``open_end``: more words that cannot be read may follow."""

    words: Tuple[Word, ...]
    open_end: bool = False


@dataclass(frozen=True)
class CommandVerdict:
    """How a subprocess call's program waits: ``state`` (see the module docstring), the
    program's catalog entry when known, the words shown in the message (``git clone``) and,
    for ``network``, the bound it keeps without options (``default_s``, seconds, or ``None``)."""

    state: str
    program: Optional[ProgramSpec] = None
    shown: str = ""
    default_s: Optional[float] = None


def read_command(call: cst.Call, spec: TimeoutSpec, ctx: Context, max_timeout: float) -> CommandVerdict:
    """The verdict on the program the subprocess ``call`` runs (``spec.command`` says where its
    command line is). Memoised per call."""
    key = ("command", id(call))
    if key not in ctx.cache:
        ctx.cache[key] = _read(call, spec, ctx, max_timeout)
    return ctx.cache[key]


def _read(call: cst.Call, spec: TimeoutSpec, ctx: Context, max_timeout: float) -> CommandVerdict:
    where = spec.command
    holder, scope = call, ctx.scope
    if where.owner is not None:  # Popen(...).wait(): the command is the constructor's
        func = call.func
        if not isinstance(func, cst.Attribute):
            return CommandVerdict(UNKNOWN_COMMAND)
        holder = ctx.constructor_of(func.value)
        if holder is None or ctx.qualname(holder.func) != where.owner:
            return CommandVerdict(UNKNOWN_COMMAND)
    args = _argument(holder, *where.args)
    if args is None or _argument(holder, where.executable, None) is not None:
        return CommandVerdict(UNKNOWN_COMMAND)  # no command to read, or another program runs it
    shell = _argument(holder, where.shell, None)
    shell_value = ctx.value_of(shell.value, scope) if shell is not None else False
    if shell_value is UNKNOWN:
        return CommandVerdict(UNKNOWN_COMMAND)
    env = _env_names(_argument(holder, where.env, None), ctx, scope)
    argv = _argv(args.value, ctx, scope, shell=bool(shell_value))
    if argv is None:
        return CommandVerdict(UNKNOWN_COMMAND)
    return _judge_line(argv, env, max_timeout)


def _argument(call: cst.Call, name: str, position: Optional[int]) -> Optional[cst.Arg]:
    """The argument passed for a parameter of the call; ``None`` also when ``*args``/``**kwargs``
    may hold it (a command line that cannot be read is an unknown command)."""
    found = find_argument(call, name, position)
    return found if isinstance(found, cst.Arg) else None


def _env_names(arg: Optional[cst.Arg], ctx: Context, scope) -> FrozenSet[str]:
    """The names a literal ``env={...}`` sets (none when it is not a literal dict)."""
    if arg is None:
        return frozenset()
    value, _ = ctx.resolve(arg.value, scope)
    if not isinstance(value, cst.Dict):
        return frozenset()
    names = set()
    for element in value.elements:
        if isinstance(element, cst.DictElement):
            key = ctx.value_of(element.key, scope)
            if isinstance(key, str):
                names.add(key)
    return frozenset(names)


# -- reading the command line -----------------------------------------------------------------
def _argv(expr, ctx: Context, scope, shell: bool, depth: int = 0) -> Optional[Argv]:
    """The words of the command line ``expr`` builds, or ``None`` when they cannot be read.
    With ``shell``, a string (or a list's first item) is a shell command line."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        binding = ctx.single(expr.value, scope)
        if binding is None or binding.value is None:
            return None
        argv = _argv(binding.value, ctx, binding.scope, shell, depth + 1)
        if argv is not None and isinstance(binding.value, (cst.List, cst.Tuple)) and \
                _grows(expr.value, binding.scope, ctx):
            return Argv(argv.words, open_end=True)
        return argv
    if isinstance(expr, (cst.List, cst.Tuple)):
        words: List[Word] = []
        for element in expr.elements:
            if isinstance(element, cst.StarredElement):
                inner = _argv(element.value, ctx, scope, False, depth + 1) if \
                    isinstance(element.value, cst.Name) else None
                if inner is None or inner.open_end:
                    return Argv(tuple(words), open_end=True)
                words.extend(inner.words)
                continue
            words.append(_word(element.value, ctx, scope))
        if shell and words:
            line = _split_line(words[0].text)
            return None if line is None else Argv(line.words + tuple(words[1:]), line.open_end)
        return Argv(tuple(words))
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left = _argv(expr.left, ctx, scope, False, depth + 1)
        if left is None or left.open_end:
            return left
        right = _argv(expr.right, ctx, scope, False, depth + 1)
        if right is None:
            return Argv(left.words, open_end=True)
        return Argv(left.words + right.words, right.open_end)
    if isinstance(expr, cst.Call):
        if ctx.qualname(expr.func, scope) in COMMAND_SPLITTERS and expr.args and not expr.args[0].keyword:
            text = _text(expr.args[0].value, ctx, scope)
            return None if text is None else _split_line(text, shell=False)
        return None
    text = _text(expr, ctx, scope)
    if text is None:
        return None
    return _split_line(text, shell=shell)


def _grows(name: str, scope, ctx: Context) -> bool:
    """Whether ``name.append(...)``/``extend``/``insert`` is called in ``scope``."""
    for call, where in ctx.model.expression_calls:
        func = call.func
        if where is scope and isinstance(func, cst.Attribute) and func.attr.value in _GROWING_METHODS and \
                isinstance(func.value, cst.Name) and func.value.value == name:
            return True
    return False


def _text(expr, ctx: Context, scope) -> Optional[str]:
    """A string's text with :data:`HOLE` for each replacement field of an f-string, or ``None``."""
    expr, scope = ctx.resolve(expr, scope)
    if isinstance(expr, cst.FormattedString):
        return "".join(part.value if isinstance(part, cst.FormattedStringText) else HOLE for part in expr.parts)
    if isinstance(expr, cst.ConcatenatedString):
        left, right = _text(expr.left, ctx, scope), _text(expr.right, ctx, scope)
        return None if left is None or right is None else left + right
    value = ctx.value_of(expr, scope)
    return value if isinstance(value, str) else None


def _word(expr, ctx: Context, scope) -> Word:
    text = _text(expr, ctx, scope)
    if text is not None:
        return Word(text)
    target, target_scope = ctx.resolve(expr, scope)
    qual = ctx.qualname(target, target_scope) if isinstance(target, (cst.Name, cst.Attribute)) else None
    if qual in INTERPRETER_EXPRESSIONS:
        return Word("python")
    if isinstance(target, cst.Call) and ctx.qualname(target.func, target_scope) in PROGRAM_LOOKUPS and \
            target.args and not target.args[0].keyword:
        name = ctx.value_of(target.args[0].value, target_scope)
        if isinstance(name, str):
            return Word(name)
    return UNKNOWN_WORD


def _split_line(text: str, shell: bool = True) -> Optional[Argv]:
    """The words of a command line (shell operators as their own words when ``shell``)."""
    if shell:
        text = text.replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>" if shell else False)
    lexer.whitespace_split = True
    lexer.commenters = "#" if shell else ""
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes
        return None
    if shell:  # `$URL`, `$(cmd)`, a backquote: expanded when the shell runs, unknown here
        tokens = [re.sub(r"[$`].*", HOLE, token) for token in tokens]
    return Argv(tuple(Word(token) for token in tokens))


# -- judging it -----------------------------------------------------------------------------
_ORDER = (NETWORK, UNKNOWN_COMMAND, INTERACTIVE, BOUNDED, LOCAL)


def _judge_line(argv: Argv, env: FrozenSet[str], max_timeout: float) -> CommandVerdict:
    """The verdict on a command line: the worst of its simple commands (``a && b | c``)."""
    verdicts = []
    command: List[Word] = []
    words = list(argv.words)
    for word in words + [None]:
        if word is not None and word.text not in _SEPARATORS:
            command.append(word)
            continue
        last = word is None
        if command:
            verdicts.append(_judge(_drop_redirections(command), argv.open_end and last, env, max_timeout))
        command = []
    if not verdicts:
        return CommandVerdict(UNKNOWN_COMMAND)
    return min(verdicts, key=lambda v: _ORDER.index(v.state))


def _drop_redirections(words: List[Word]) -> List[Word]:
    out: List[Word] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.text in _REDIRECTIONS:
            skip = True
            continue
        out.append(word)
    return out


def _judge(words: Sequence[Word], open_end: bool, env: FrozenSet[str], max_timeout: float,
           depth: int = 0) -> CommandVerdict:
    """The verdict on one simple command: assignments, wrappers, shells and interpreters
    are looked through to the program."""
    env = set(env)
    index = 0
    while index < len(words) and words[index].exact and _ASSIGNMENT.match(words[index].text):
        env.add(words[index].text.split("=", 1)[0])
        index += 1
    if index >= len(words) or depth > 8:
        return CommandVerdict(UNKNOWN_COMMAND)
    head = words[index]
    if not head.exact:
        return CommandVerdict(UNKNOWN_COMMAND)
    name = _program_name(head.text)
    rest = list(words[index + 1:])
    wrapper = WRAPPERS.get(name)
    if wrapper is not None:
        after = _after_wrapper(rest, wrapper, env)
        if after is None:
            return CommandVerdict(UNKNOWN_COMMAND)
        if wrapper.bounds:
            return CommandVerdict(BOUNDED)
        return _judge(after, open_end, frozenset(env), max_timeout, depth + 1)
    if name in SHELLS:
        return _judge_shell(rest, open_end, frozenset(env), max_timeout, depth)
    if _INTERPRETER.fullmatch(name):
        module = _module_run(rest)
        if module is None:
            return CommandVerdict(UNKNOWN_COMMAND)  # a script or `-c CODE`: the user's own program
        name, rest = module
    program = PROGRAMS.get(name)
    if program is None:
        return CommandVerdict(UNKNOWN_COMMAND)
    return _judge_program(program, rest, open_end, frozenset(env), max_timeout)


def _program_name(text: str) -> str:
    name = re.split(r"[\\/]", text)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def _after_wrapper(words: List[Word], wrapper, env: set) -> Optional[List[Word]]:
    """The command a wrapper runs (its options, assignments and own operands skipped)."""
    index = 0
    while index < len(words):
        word = words[index]
        if not word.exact:
            return None
        text = word.text
        if text == "--":
            index += 1
            break
        if text.startswith("-") and len(text) > 1:
            index += 2 if text in wrapper.value_options else 1
            continue
        if wrapper.assignments and _ASSIGNMENT.match(text):
            env.add(text.split("=", 1)[0])
            index += 1
            continue
        break
    index += wrapper.operands
    return words[index:] if index < len(words) else None


def _judge_shell(words: List[Word], open_end: bool, env: FrozenSet[str], max_timeout: float,
                 depth: int) -> CommandVerdict:
    """``bash -c 'LINE'``: the verdict on LINE; a shell running a script is unknown."""
    for index, word in enumerate(words):
        text = word.text
        if not word.exact or not text.startswith("-") or text.startswith("--"):
            break
        if "c" in text[1:]:
            if index + 1 >= len(words):
                return CommandVerdict(UNKNOWN_COMMAND)
            line = _split_line(words[index + 1].text)
            return CommandVerdict(UNKNOWN_COMMAND) if line is None else _judge_line(line, env, max_timeout)
    return CommandVerdict(UNKNOWN_COMMAND)


def _module_run(words: List[Word]) -> Optional[Tuple[str, List[Word]]]:
    """For ``python [options] -m MODULE ARGS``: (MODULE, ARGS); ``None`` for anything else."""
    index = 0
    while index < len(words):
        word = words[index]
        if not word.exact or not word.text.startswith("-"):
            return None
        text = word.text
        if text == "-m":
            if index + 1 < len(words) and words[index + 1].exact:
                return words[index + 1].text, list(words[index + 2:])
            return None
        if text.startswith("-m") and not text.startswith("--"):
            return text[2:], list(words[index + 1:])
        if text.startswith("-c") and not text.startswith("--"):
            return None
        index += 2 if text in INTERPRETER_VALUE_OPTIONS else 1
    return None


def _judge_program(program: ProgramSpec, words: List[Word], open_end: bool, env: FrozenSet[str],
                   max_timeout: float) -> CommandVerdict:
    shown = program.name
    if program.subcommands is not None:
        found = _subcommand(program, words, open_end)
        if found is None:
            return CommandVerdict(UNKNOWN_COMMAND, program)
        if not found:
            return CommandVerdict(LOCAL, program)
        shown = f"{program.name} {found}"
    if program.remote_operands:
        remote = _remote_operand(words)
        if remote is None or (remote is False and open_end):
            return CommandVerdict(UNKNOWN_COMMAND, program)
        if not remote:
            return CommandVerdict(LOCAL, program)
    if program.session_without_command or program.interactive or program.no_command_options:
        session = _session(program, words, open_end)
        if session is not None:
            return CommandVerdict(session, program, shown)
    if _bounded(program, words, env):
        return CommandVerdict(BOUNDED, program, shown)
    if open_end:  # an option may be among the words that cannot be read
        return CommandVerdict(UNKNOWN_COMMAND, program, shown)
    if program.default_s is not None and program.default_s <= max_timeout:
        return CommandVerdict(BOUNDED, program, shown)
    return CommandVerdict(NETWORK, program, shown, program.default_s)


def _subcommand(program: ProgramSpec, words: List[Word], open_end: bool) -> Optional[str]:
    """The network subcommand the words name ("" for a local one), ``None`` when unknown."""
    names: List[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        if word.exact and text.startswith("-"):
            if not names:
                index += 2 if text in program.value_options else 1
                continue
            index += 1
            continue
        if not word.exact:
            if not names:
                return None
            break
        names.append(text)
        if len(names) == 2:
            break
        index += 1
    if not names:
        return None if open_end else ""
    for subcommand in program.subcommands:
        parts = subcommand.split()
        if parts[0] != names[0]:
            continue
        if len(parts) == 1:
            return subcommand
        if len(names) > 1 and names[1] == parts[1]:
            return subcommand
        if len(names) == 1 and open_end:
            return None
    return ""


def _remote_operand(words: List[Word]) -> Optional[bool]:
    """Whether an operand names a remote host (``host:path``, ``host::module``, ``rsync://``);
    ``None`` when no operand does but one cannot be read."""
    unreadable = False
    for word in words:
        text = word.text
        if text.startswith("-"):
            continue
        if text.startswith("rsync://") or re.match(r"[^/:]*[^/:\\]:", text.replace(HOLE, "h")):
            if not re.match(r"[A-Za-z]:[\\/]", text):  # a Windows drive
                return True
        if not word.exact:
            unreadable = True
    return None if unreadable else False


def _session(program: ProgramSpec, words: List[Word], open_end: bool) -> Optional[str]:
    """``interactive`` for a session with the user (no remote command, ``-t``) or a run meant
    to last (``-N``); ``None`` for a run that executes a command and ends."""
    operands = 0
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        if operands == 0 and word.exact and text.startswith("-") and len(text) > 1:
            if text in program.interactive or text in program.no_command_options:
                return INTERACTIVE
            index += 2 if text in program.operand_value_options else 1
            continue
        operands += 1
        index += 1
    if program.session_without_command and operands < 2:
        return UNKNOWN_COMMAND if open_end else INTERACTIVE
    return None


def _bounded(program: ProgramSpec, words: List[Word], env: FrozenSet[str]) -> bool:
    """Whether one of the program's own ways to bound it is given (options or environment)."""
    for alternative in program.timeout_options:
        if all(_has_option(option, words) for option in alternative):
            return True
    return any(all(name in env for name in alternative) for alternative in program.timeout_env)


def _has_option(option: str, words: List[Word]) -> bool:
    flag, _, key = option.partition(" ")
    texts = [word.known_prefix for word in words]
    for index, text in enumerate(texts):
        if key:
            value = None
            if text == flag and index + 1 < len(texts):
                value = texts[index + 1]
            elif text.startswith(flag) and len(text) > len(flag):
                value = text[len(flag):]
            if value is not None and re.match(rf"{re.escape(key)}\s*[=\s]", value, re.IGNORECASE):
                return True
            continue
        if text == flag or (flag.startswith("--") and text.startswith(flag + "=")):
            return True
        if not flag.startswith("--") and len(flag) == 2 and text.startswith(flag) and len(text) > 2:
            return True  # a short option with its value attached: `-m10`
    return False


def shown_command(verdict: CommandVerdict) -> str:
    """The words the message shows for a verdict (``git clone``)."""
    return verdict.shown or (verdict.program.name if verdict.program else "")

