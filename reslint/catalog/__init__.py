"""The catalog: everything reslint knows about third-party APIs, as data.

Rules hold logic, not API lists: they ask the catalog. Modules:
:mod:`.names` (canonical names and factories), :mod:`.timeouts` (timeout-bearing
calls and timeout objects). Types are in :mod:`.model`.
"""

from reslint.catalog.names import canonical, instance_type
from reslint.catalog.timeouts import (
    NO_OP_ATTRIBUTES,
    OBJECT_KEYWORDS,
    ONCE_DONE_METHODS,
    TIMEOUT_CALLS,
    TIMEOUT_INJECTION_HOOKS,
    TIMEOUT_OBJECTS,
    lookup_timeout_call,
    trigger_modules,
)

__all__ = [
    "NO_OP_ATTRIBUTES",
    "OBJECT_KEYWORDS",
    "ONCE_DONE_METHODS",
    "TIMEOUT_CALLS",
    "TIMEOUT_INJECTION_HOOKS",
    "TIMEOUT_OBJECTS",
    "canonical",
    "instance_type",
    "lookup_timeout_call",
    "trigger_modules",
]
