"""botocore (boto3 clients and resources): attempts from ``config=Config(retries={...})``.

Facts from botocore/data/_retry.json (legacy mode: 5 attempts, the default before 1.44),
botocore/retries/standard.py (standard and adaptive: 3) and botocore/args.py
``_compute_retry_max_attempts`` (``max_attempts`` counts retries, ``total_max_attempts`` counts
the first call too). The client constructors themselves are catalog data
(:data:`reslint.catalog.clients.RETRYING_CLIENTS`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from reslint.semantics.context import Context
from reslint.values import UNKNOWN, Number, is_number

#: botocore attempts by retry mode when ``max_attempts`` is not set (DynamoDB differs; not modelled)
MODE_ATTEMPTS = {"legacy": 5, "standard": 3, "adaptive": 3}


def config_attempts(arg: Optional[cst.Arg], ctx: Context) -> Number:
    """Attempts of a client built with ``config=arg`` (``None``: no config, legacy mode)."""
    if arg is None:
        return MODE_ATTEMPTS["legacy"]
    config = ctx.constructor_of(arg.value)
    if config is None:
        return UNKNOWN
    retries = next((a.value for a in config.args if a.keyword is not None and a.keyword.value == "retries"), None)
    if retries is None:
        return MODE_ATTEMPTS["legacy"]
    retries, scope = ctx.resolve(retries)
    if not isinstance(retries, cst.Dict):
        return UNKNOWN
    options = {}
    for element in retries.elements:
        if isinstance(element, cst.DictElement):
            options[ctx.value_of(element.key, scope)] = ctx.value_of(element.value, scope)
    if "total_max_attempts" in options:
        value = options["total_max_attempts"]
        return int(value) if is_number(value) else UNKNOWN
    if "max_attempts" in options:  # Config counts retries here (botocore/args.py)
        value = options["max_attempts"]
        return int(value) + 1 if is_number(value) else UNKNOWN
    return MODE_ATTEMPTS.get(options.get("mode", "legacy"), UNKNOWN)
