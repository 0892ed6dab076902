"""Shared analyses that rules ask instead of re-deriving: timeouts (and, later, retry
policies, retried scopes and budgets)."""
