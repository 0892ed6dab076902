"""reslint: a linter for resilience anti-patterns in Python.

Finds calls that can wait forever, retries that amplify outages and retries that
repeat writes, reports them as findings and fixes what it can. The library API is
in :mod:`reslint.api`; the command line in :mod:`reslint.cli`.
"""

__version__ = "0.1.0"
