"""The language server, ``reslint server`` (needs the ``lsp`` extra: pygls and lsprotocol).

- :mod:`reslint.server.text`: positions (code points and LSP code units), no pygls;
- :mod:`reslint.server.project`: a workspace folder's settings, module summaries and
  buffers, linted through the CLI's cache and project pass, no pygls;
- :mod:`reslint.server.convert`: findings as LSP values (diagnostics, code actions,
  hovers), on lsprotocol;
- :mod:`reslint.server.lsp`: the protocol (the handlers, debouncing, the lint thread) on
  pygls.

Only those last two import pygls or lsprotocol: ``import reslint`` and ``import
reslint.server`` never do (``reslint server`` checks for the extra before it loads them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

#: what `reslint server` needs beyond reslint's own dependencies, and how to get it
EXTRA = "lsp"
MISSING = ("`reslint server` needs the `lsp` extra (pygls 2 and lsprotocol): install reslint with it, "
           "e.g. pip install '.[lsp]' in a checkout")


def load():
    """The protocol module, :mod:`reslint.server.lsp`; ``None`` when pygls or lsprotocol
    cannot be imported (not installed, or a version without the API it uses)."""
    try:
        from reslint.server import lsp
    except ImportError as exc:
        names = (exc.name or "").split(".")[0], str(exc)
        if names[0] in ("pygls", "lsprotocol") or (not names[0] and ("pygls" in names[1] or "lsprotocol" in names[1])):
            return None
        raise
    return lsp


def serve(unsafe_fixes: bool = False, use_cache: bool = True, cache_dir: Optional[Path] = None) -> bool:
    """Serve one client over stdio until it exits; ``False`` (without serving) when the
    ``lsp`` extra is missing."""
    lsp = load()
    if lsp is None:
        return False
    lsp.serve(lsp.Options(unsafe_fixes=unsafe_fixes, use_cache=use_cache, cache_dir=cache_dir))
    return True
