"""Text from checked files, made safe to print on a terminal or in a CI log.

reslint checks code it does not trust (pull requests from strangers). A file name, a
line of code or a message quoting code may hold bytes a terminal obeys: ``ESC ] 52``
writes the clipboard, ``ESC ] 8`` makes a hidden hyperlink, ``ESC [ 2J`` clears the
screen, U+009B is a one-character CSI, a newline forges an output line of its own and
U+202E reorders what is shown (Trojan Source). The human formats and the messages on
stderr pass such text through :func:`visible` first; the machine formats (json, sarif,
...) keep the exact text, escaped by their serializers.

This module imports nothing heavy: discovery and the command line use it too.
"""

from __future__ import annotations

import re
import sys

#: What :func:`visible` escapes: C0 controls but tab (a tab moves the cursor right, nothing
#: else; the code frames expand it), DEL, C1 controls (U+0085 is a line break to some
#: viewers, U+009B a CSI, U+009D an OSC), the bidi embeddings, overrides and isolates
#: (U+202A-U+202E, U+2066-U+2069), the direction marks U+200E, U+200F and U+061C, and the
#: line and paragraph separators U+2028, U+2029 (line breaks to log viewers and editors).
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: "re.Match[str]") -> str:
    """``\\xNN`` for C0 and DEL (the spelling Python uses for them), ``\\uNNNN`` for the rest:
    ``\\x9b`` would read as the byte 0x9B, which the file (UTF-8) does not contain."""
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x80 else f"\\u{point:04x}"


def visible(text: str) -> str:
    """``text`` with every character :data:`UNSAFE` describes written as a visible escape.

    Input: any ``str`` (a file name, a line of code, a message). Output: the same text in
    which ESC reads ``\\x1b``, BEL ``\\x07``, a newline ``\\x0a``, DEL ``\\x7f``, U+009B
    ``\\u009b``, U+202E ``\\u202e``; every other character, tab included, is unchanged. One
    character maps to a fixed text, so the escaped length of a prefix is the length of the
    escaped prefix (the code frames place their carets that way).

    Backslashes are not escaped: the code frames show Python source, where backslashes are
    everywhere (``"\\n"``, regexes, Windows paths), and doubling each one would misquote every
    such line to protect against a confusion only a file with raw control characters can
    cause. So ``\\x1b`` in the output is either the four characters of the source or an
    escaped ESC; the machine formats (``json``) tell them apart when it matters.
    """
    return UNSAFE.sub(_escape, text)


def warn(message: str) -> None:
    """Print ``reslint: warning: MESSAGE`` on stderr (stdout carries only results). Warnings
    name files and directories of the checkout, so the message goes through :func:`visible`."""
    print(f"reslint: warning: {visible(message)}", file=sys.stderr)
