"""The rules, one module each. ``ALL_RULES`` is the registry, in code order.

RES000 (syntax-error) is reported by the engine itself, not by a visitor.
"""

from __future__ import annotations

from typing import Dict, List, Type

from reslint.rules.base import Rule
from reslint.rules.res101_missing_timeout import MissingTimeout
from reslint.rules.res102_disabled_timeout import DisabledTimeout
from reslint.rules.res103_excessive_timeout import ExcessiveTimeout

ALL_RULES: List[Type[Rule]] = [MissingTimeout, DisabledTimeout, ExcessiveTimeout]
