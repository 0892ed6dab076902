"""The semantic model of one file, below the analyses and rules.

:mod:`.context` (scopes, bindings, imports, name resolution), :mod:`.walk` (the read-only
traversal), :mod:`.cstutil` and :mod:`.edits` (formatting-preserving edits and fix plans),
:mod:`.prefilter` (which files can hold a finding, decided before LibCST parses anything).
"""
