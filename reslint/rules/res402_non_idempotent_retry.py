"""RES402 non-idempotent-retry: a write that a replay duplicates, retried with no stable key."""

from __future__ import annotations

import libcst as cst

from reslint.analysis.idempotency import analysis
from reslint.catalog import idempotency as cat
from reslint.rules.base import Rule
from reslint.rules.retry_base import RETRY_TRIGGERS


class NonIdempotentRetry(Rule):
    code = "RES402"
    needs_retries = True
    triggers = RETRY_TRIGGERS + ("psycopg", "psycopg2", "sqlite3", "pymysql", "sqlalchemy", "stripe", "boto3",
                                 "smtplib", "django", "kafka", "confluent_kafka")

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.retry_scopes:
            return
        idempotency = analysis(self.ctx)
        kind = idempotency.write_kind(node)
        if kind is None or idempotency.keys(node):
            return  # a key is sent: stable (fine) or minted per attempt (RES401 reports that)
        policy = self.ctx.retry_scopes[-1].policy
        types = set(policy.retried.types) if policy.retried.kind == "types" else set()
        if types and types <= cat.NOT_SENT_ERRORS:
            return  # retried only when the request was never sent
        layer = "a hand-rolled retry loop" if policy.kind == "loop" else f"a {policy.library} retry"
        self.report(node, f"{kind} runs inside {layer} with no idempotency key: a timeout means the outcome is "
                          f"unknown, and when the first attempt did succeed the replay performs the write again "
                          f"(a duplicate row, charge, message or mail); send a stable idempotency key minted once "
                          f"before the first attempt, make the write idempotent (ON CONFLICT, PUT), or do not retry it")
