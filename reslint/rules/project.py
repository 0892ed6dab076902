"""The project rules, in code order: the project pass runs the enabled ones over the call graph.

Kept apart from :data:`reslint.rules.visitors.ALL_RULES` (the per-file rules) because those import LibCST
and the project pass runs in a process that must not load it.
"""

from __future__ import annotations

from typing import List, Type

from reslint.rules.project_base import ProjectRule
from reslint.rules.res105_cross_module import DeadlineAcrossModules
from reslint.rules.res301_nested_retry import NestedRetry
from reslint.rules.res401_cross_module import HelperMintedKey
from reslint.rules.res402_cross_module import RetriedWriteAcrossModules

PROJECT_RULES: List[Type[ProjectRule]] = [DeadlineAcrossModules, NestedRetry, HelperMintedKey,
                                          RetriedWriteAcrossModules]
