"""Test-wide setup: the cache key lives in a directory of the test run's own.

reslint keeps the key that authenticates its cache in the user's configuration directory
(``reslint.engine.cache.key_path``). The tests point ``XDG_CONFIG_HOME`` at a fresh temporary
directory so that they neither read nor create a key in the home directory of whoever runs
them; subprocesses inherit it.
"""

from __future__ import annotations

import os
import tempfile

_CONFIG_HOME = tempfile.mkdtemp(prefix="reslint-test-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG_HOME
os.environ.pop("RESLINT_CACHE_KEY", None)


import pytest  # noqa: E402 - after the environment is set, before anything reads it


@pytest.fixture()
def linter(tmp_path):
    """A linter with the default settings, rooted in the test's own directory."""
    from reslint.config import Settings
    from reslint.engine.filepass import Linter

    return Linter(Settings(root=tmp_path))
