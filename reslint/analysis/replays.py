"""Which retry configurations replay non-idempotent requests (RES403): the one question, answered by
the adapter of the configuration a call builds (``urllib3.Retry(allowed_methods=...)``,
aiohttp_retry's options)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint import libraries
from reslint.semantics.context import Context
from reslint.model.remedy import UnsafeReplay


def unsafe_replay(call: cst.Call, ctx: Context) -> Optional[UnsafeReplay]:
    """What the configuration ``call`` builds replays that a retry must not, or ``None``."""
    qualname = ctx.qualname(call.func)
    adapter = libraries.REPLAYS.get(qualname) if qualname is not None else None
    return adapter.unsafe_replay(call, qualname, ctx) if adapter is not None else None
