"""File discovery: gitignore, excludes, explicit paths, determinism."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from reslint.config import DEFAULT_EXCLUDE
from reslint.engine.discovery import DiscoveryError, Walker


def touch(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def names(root: Path, files):
    return sorted(p.relative_to(root).as_posix() for p in files)


def test_gitignore_excludes_and_defaults(tmp_path):
    touch(tmp_path / ".gitignore", "generated/\n*_pb2.py\n")
    touch(tmp_path / "app" / "main.py")
    touch(tmp_path / "app" / "api_pb2.py")
    touch(tmp_path / "generated" / "x.py")
    touch(tmp_path / ".venv" / "lib.py")
    touch(tmp_path / "build" / "b.py")
    touch(tmp_path / "migrations" / "0001.py")
    touch(tmp_path / "app" / "sub" / ".gitignore", "local.py\n")
    touch(tmp_path / "app" / "sub" / "local.py")
    touch(tmp_path / "app" / "sub" / "kept.py")
    touch(tmp_path / "notes.txt")
    walker = Walker(tmp_path, DEFAULT_EXCLUDE + ("migrations",))
    assert names(tmp_path, walker.expand([tmp_path])) == ["app/main.py", "app/sub/kept.py"]


def test_gitignore_can_be_ignored(tmp_path):
    touch(tmp_path / ".gitignore", "generated/\n")
    touch(tmp_path / "generated" / "x.py")
    assert names(tmp_path, Walker(tmp_path, (), respect_gitignore=False).expand([tmp_path])) == ["generated/x.py"]


def test_gitignore_of_the_root_applies_to_a_subdirectory_walk(tmp_path):
    touch(tmp_path / ".gitignore", "skip_me.py\n")
    touch(tmp_path / "pkg" / "skip_me.py")
    touch(tmp_path / "pkg" / "mod.py")
    assert names(tmp_path, Walker(tmp_path, ()).expand([tmp_path / "pkg"])) == ["pkg/mod.py"]


def test_explicit_files_are_always_checked(tmp_path):
    path = touch(tmp_path / "build" / "script.py")
    assert Walker(tmp_path, DEFAULT_EXCLUDE).expand([path]) == [path]


def test_missing_path_raises(tmp_path):
    with pytest.raises(DiscoveryError, match="no such file or directory"):
        Walker(tmp_path, ()).expand([tmp_path / "absent.py"])


def test_duplicates_are_removed_and_order_is_stable(tmp_path):
    a = touch(tmp_path / "a.py")
    touch(tmp_path / "b.py")
    files = Walker(tmp_path, ()).expand([tmp_path, a])
    assert names(tmp_path, files) == ["a.py", "b.py"]


def test_a_gitignore_line_pathspec_cannot_compile_is_skipped_with_one_warning(tmp_path):
    touch(tmp_path / ".gitignore", "[z-a]\nskip_me.py\n")
    touch(tmp_path / "pkg" / "skip_me.py")
    touch(tmp_path / "pkg" / "mod.py")
    warnings = []
    walker = Walker(tmp_path, (), warn=warnings.append)
    assert names(tmp_path, walker.expand([tmp_path])) == ["pkg/mod.py"]  # the other lines still apply
    assert names(tmp_path, walker.expand([tmp_path / "pkg"])) == ["pkg/mod.py"]  # .gitignore read again
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{tmp_path / '.gitignore'}:1: ") and "'[z-a]'" in warnings[0]


def test_a_file_named_through_a_link_and_its_target_is_listed_once(tmp_path):
    target = touch(tmp_path / "real" / "target.py")
    link = tmp_path / "link.py"
    link.symlink_to("real/target.py")
    walker = Walker(tmp_path, ())
    assert walker.expand([link, target]) == [link]  # the first spelling
    assert names(tmp_path, walker.expand([tmp_path])) == ["link.py"]  # the walk meets the link first


def test_a_named_pipe_given_explicitly_is_not_listed(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "link.py").symlink_to("pipe.py")
    dangling = tmp_path / "dangling.py"
    dangling.symlink_to("absent.py")
    walker = Walker(tmp_path, ())
    assert walker.expand([tmp_path / "pipe.py", tmp_path / "link.py", dangling]) == [dangling]
    assert names(tmp_path, walker.expand([tmp_path])) == ["dangling.py"]


def test_discover_hands_on_what_it_cannot_list_and_warns_once(tmp_path, monkeypatch):
    import errno

    from reslint.engine.discovery import Unlisted

    touch(tmp_path / "locked" / "hidden.py")
    kept = touch(tmp_path / "kept.py")
    real = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    warnings = []
    walker = Walker(tmp_path, (), warn=warnings.append)
    found = walker.discover([tmp_path, tmp_path / "absent.py", tmp_path / "absent.py"])
    assert found.files == [kept]
    assert found.unlisted == [Unlisted(tmp_path / "locked", "cannot read directory: Permission denied"),
                              Unlisted(tmp_path / "absent.py", "no such file or directory", missing=True)]
    assert warnings == [f"{tmp_path / 'locked'}: cannot read directory: Permission denied",
                        f"{tmp_path / 'absent.py'}: no such file or directory"]
    assert walker.discover([tmp_path]).unlisted == found.unlisted[:1] and len(warnings) == 2  # said once
    with pytest.raises(DiscoveryError, match="absent.py: no such file or directory"):
        walker.expand([tmp_path / "absent.py"])  # expand, for callers that want files or an error


def test_a_fifo_gitignore_is_not_opened_and_is_warned_about(tmp_path):
    if not hasattr(os, "mkfifo") or not hasattr(signal, "SIGALRM"):
        pytest.skip("no named pipes or no SIGALRM on this platform")
    os.mkfifo(tmp_path / ".gitignore")
    kept = touch(tmp_path / "pkg" / "mod.py")
    os.mkfifo(tmp_path / "pkg" / ".gitignore")
    warnings = []
    walker = Walker(tmp_path, (), warn=warnings.append)

    class Hung(Exception):
        """Not an OSError: discovery must not take it for a file it cannot read."""

    def hung(signum, frame):
        raise Hung("discovery blocked on a named pipe")

    # opening either pipe would block forever: the alarm turns a regression into a failure
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        assert walker.expand([tmp_path]) == [kept]
        assert walker.expand([tmp_path / "pkg"]) == [kept]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert warnings == [f"{tmp_path / '.gitignore'}: not a regular file, ignored",
                        f"{tmp_path / 'pkg' / '.gitignore'}: not a regular file, ignored"]
