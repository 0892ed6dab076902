"""Base class of the retry-policy rules (RES201-RES206).

Policies are found where they are spelled: decorators, constructor calls
(``Retrying(...)``, ``Retry(...)``, ``retry_context(...)``, ``HTTPAdapter(...)``)
and hand-rolled loops; each is extracted once per file (memoised). A rule gets each
library policy in :meth:`PolicyRule.check_library` and each hand-rolled loop (with its
:class:`~reslint.model.policy.LoopFacts`) in :meth:`PolicyRule.check_loop`, or
overrides :meth:`PolicyRule.check` to see both alike. Rules ask the policy's adapter
for labels, advice and fixes; they never name a library.

A poll (a policy that waits for a condition, not a retry after a fault:
:meth:`reslint.analysis.retried.RetriedScopes.is_poll`) reaches only the rules that set
``applies_to_polls``; each rule's page says why it does or does not apply.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from reslint.model.policy import LoopFacts, RetryPolicy
from reslint.rules.base import Rule


class PolicyRule(Rule):
    needs_retries = True
    #: whether the rule's fault is one of a poll too (an endless wait, a busy loop)
    applies_to_polls: ClassVar[bool] = False

    def _sees(self, policy: RetryPolicy) -> bool:
        """Whether the rule judges ``policy``: not one that retries nothing (a decorator on a
        generator its library cannot retry), and a poll only when the rule applies to polls."""
        retried = self.ctx.retried
        return not retried.retries_nothing(policy) and (self.applies_to_polls or not retried.is_poll(policy))

    def check(self, policy: RetryPolicy) -> None:
        if not policy.adapter.reports_faults:
            return  # a helper of the project used here: its faults are its loop's, reported in it
        if policy.loop is not None:
            self.check_loop(policy, policy.loop)
        else:
            self.check_library(policy)

    def check_library(self, policy: RetryPolicy) -> None:
        """A policy spelled with a library (a decorator, an iterator, a policy object)."""

    def check_loop(self, policy: RetryPolicy, loop: LoopFacts) -> None:
        """A hand-rolled retry loop."""

    def visit_Decorator(self, node: cst.Decorator) -> None:
        policy = self.ctx.retries.for_decorator(node.decorator, self.ctx.scope)
        if policy is not None and self._sees(policy):
            self.check(policy)

    def visit_Call(self, node: cst.Call) -> None:
        policy = self.ctx.retries.for_call(node, self.ctx.scope)
        if policy is not None and not policy.connect_only and self._sees(policy):
            self.check(policy)
        # a function that retries by calling itself, a task that retries itself
        recursive = self.ctx.retried.loop_policies.get(id(node))
        if recursive is not None and self._sees(recursive):
            self.check(recursive)

    def _middleware_list(self, target, value) -> None:
        """A policy a framework builds from a dotted path listed in the project's settings: each
        string of a list or tuple bound to a middleware setting (``"MIDDLEWARE": [...]`` in a dict,
        ``MIDDLEWARE = [...]``, ``DRAMATIQ_BROKER["MIDDLEWARE"] = [...]``), not a string elsewhere
        (a list of middleware to remove, a call that builds it with options of its own)."""
        if not isinstance(value, (cst.List, cst.Tuple)) or "MIDDLEWARE" not in _setting_name(target):
            return
        for element in value.elements:
            if isinstance(element.value, cst.SimpleString):
                policy = self.ctx.retries.for_string(element.value, self.ctx.scope)
                if policy is not None and self._sees(policy):
                    self.check(policy)

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._middleware_list(node.key, node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._middleware_list(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign):
            self._middleware_list(node.target, node.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        # a task class whose class attributes retry its ``run`` method
        policy = self.ctx.retried.loop_policies.get(id(node))
        if policy is not None and self._sees(policy):
            self.check(policy)

    def visit_For(self, node: cst.For) -> None:
        policy = self.ctx.retried.loop_policies.get(id(node))
        if policy is not None and self._sees(policy):
            self.check(policy)

    def visit_While(self, node: cst.While) -> None:
        self.visit_For(node)  # same lookup


def _setting_name(node) -> str:
    """The name a setting is bound to: a name, a string key, a subscript's string key (``""``: none)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else ""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return _setting_name(node.slice[0].slice.value)
    return ""
