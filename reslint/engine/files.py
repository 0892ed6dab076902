"""Reading the small text files of a checkout that reslint trusts no more than its code.

A repository can hold a named pipe, or a symbolic link to a device, where reslint expects its
``pyproject.toml``, a ``.gitignore`` or a ``requirements.txt``: opening a pipe blocks until a
writer comes (forever, in CI), ``/dev/zero`` never ends, and a sparse regular file of
gigabytes fills memory. These readers refuse all three.
"""

from __future__ import annotations

import errno
import os
import stat


class NotRegularFile(OSError):
    """A path that is a named pipe, a device, a socket or a directory, not a regular file."""


#: the largest configuration, ignore or requirements file read (a planted sparse giant, or a
#: link to one, must not fill memory); larger ones are treated as unreadable
MAX_TEXT_BYTES = 16 * 1024 * 1024


def read_regular(path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of ``path`` (a symlink is followed) when it is a regular file of at most
    ``limit`` bytes (larger: ``OSError`` with ``EFBIG``).

    Raises :class:`NotRegularFile` for anything else, without reading from it: a named pipe
    would block until a writer comes (forever, in CI), a device may never end. The type is
    checked before opening (opening some devices has effects); the file is then opened
    non-blocking, so a pipe put in its place meanwhile cannot hang the ``open``, and checked
    again on the open file before the first read. Raises ``OSError`` when it cannot be read.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(f"{path}: not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{path}: not a regular file")
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit // (1024 * 1024)} MiB", str(path))
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew since the check
        raise OSError(errno.EFBIG, f"larger than {limit // (1024 * 1024)} MiB", str(path))
    return data


def read_regular_text(path, errors: str = "strict") -> str:
    """:func:`read_regular` decoded as UTF-8 with universal newlines (as ``Path.read_text``
    reads). Raises as :func:`read_regular`, and ``UnicodeDecodeError`` with ``errors="strict"``."""
    text = read_regular(path).decode("utf-8", errors=errors)
    return text.replace("\r\n", "\n").replace("\r", "\n")
