"""The fix helpers' old home: they live in :mod:`reslint.semantics.edits` (shared with the library adapters)."""

from reslint.semantics.edits import (  # noqa: F401 (re-exported for the engine)
    add_import_name, copyable, find_from_import, remove_arg, spell, with_callee, without_elements,
)
