"""The text prefilter's entries per rule (:class:`reslint.semantics.prefilter.Trigger`): which imports
make a file worth parsing for each rule.

An entry is ``module`` (any import of it) or ``module:name|name`` (an import of it and one
of the names somewhere in the text). Derived from the catalog where the catalog knows the
names: a timeout call can only be a catalog entry if its last name is spelled in the file
(:func:`reslint.catalog.timeouts.trigger_modules`), and a sleep-only module matters only
when its sleep function is named. A rule with no entry here sees every file.

The retry triggers are the library adapters' modules (:data:`reslint.libraries.RETRY_TRIGGERS`)
and the sleeps of hand-rolled loops. They are spelled here as data, not imported from the
registry: the adapters import LibCST, and the text prefilter runs in the parent process of a
cold run and in a re-run served by the cache, which must not load it (0.13 s, and the warm
re-run takes a quarter of a second). ``tests/test_boundaries.py`` checks that this list is
exactly what the registry derives, so a new adapter cannot be forgotten here.
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional, Tuple

from reslint.catalog.retries import SLEEPS
from reslint.catalog.timeouts import trigger_modules

#: the modules of the retry adapters, in the registry's order (``reslint.libraries.ADAPTERS``)
ADAPTER_MODULES = ("tenacity", "backoff", "stamina", "retrying", "retry", "opnieuw", "redo", "urllib3", "requests",
                   "httpx", "celery", "dramatiq", "huey", "rq", "django_rq", "arq", "google", "langchain_core", "langchain", "langchain_openai", "langchain_anthropic",
                   "langchain_community")
#: modules whose import can make a retry finding possible (see the module docstring)
RETRY_TRIGGERS: Tuple[str, ...] = ADAPTER_MODULES + tuple(
    sorted(f"{qualname.split('.')[0]}:{qualname.rsplit('.', 1)[1]}" for qualname in SLEEPS))

#: dotted paths a framework builds a retry policy from (the adapters' ``import_strings``:
#: django_dramatiq's ``"dramatiq.middleware.Retries"``): a file spelling one is read with no import
IMPORT_STRINGS: Tuple[str, ...] = ("dramatiq.middleware.Retries", "dramatiq.middleware.retries.Retries")


def spells_import_string(text: str) -> bool:
    """Whether ``text`` (a module's source) spells one of :data:`IMPORT_STRINGS`."""
    return any(path in text for path in IMPORT_STRINGS)


#: words that make a module worth reading for a rule with no import at all: a Django settings
#: module's mail host (RES101, :mod:`reslint.catalog.django_mail`), a framework's dotted path to a
#: retry policy (the retry rules: :data:`IMPORT_STRINGS`)
SETTINGS_WORDS: Dict[str, Tuple[str, ...]] = {
    "RES101": ("EMAIL_HOST",),
    **{f"RES20{n}": IMPORT_STRINGS for n in range(1, 7)},
}


def settings_words(enabled) -> Tuple[str, ...]:
    """The :data:`SETTINGS_WORDS` of the ``enabled`` rule codes, each once."""
    return tuple(dict.fromkeys(word for code, words in SETTINGS_WORDS.items() if code in enabled for word in words))


#: what django_dramatiq's ``Retries`` middleware, built from its dotted path, is called in messages
#: (``reslint.libraries.dramatiq.DjangoDramatiqMiddleware.label``; a boundary test keeps them equal)
DJANGO_DRAMATIQ_LABEL = "django_dramatiq's Retries middleware"
#: findings that another file of the project can make moot, asked after the cache: (codes, how
#: the message begins, the word whose spelling in another Python file of the run drops it): a
#: settings module with no ``EMAIL_TIMEOUT`` when another sets it (:mod:`reslint.catalog.django_mail`),
#: django_dramatiq's ``Retries`` read with its defaults when an app config gives it options
SET_ELSEWHERE: Tuple[Tuple[Tuple[str, ...], str, str], ...] = (
    (("RES101",), "`EMAIL_HOST` is set and no settings module sets `EMAIL_TIMEOUT`", "EMAIL_TIMEOUT"),
    (("RES202", "RES203", "RES204"), DJANGO_DRAMATIQ_LABEL, "middleware_retries_kwargs"),
)


#: the modules of the circuit-breaker adapters, in the registry's order (``reslint.libraries.BREAKERS``):
#: a retry that catches a breaker's error needs the breaker's import in the same file
BREAKER_MODULES = ("pybreaker", "circuitbreaker", "aiobreaker", "purgatory")

_TIMEOUTS = trigger_modules()
#: libraries whose writes RES402 knows (catalog/idempotency.py), besides the retry triggers
_WRITERS = ("psycopg", "psycopg2", "sqlite3", "pymysql", "sqlalchemy", "stripe", "boto3", "smtplib", "django",
            "kafka", "confluent_kafka", "slack_sdk", "slack", "twilio", "googleapiclient", "apiclient",
            "paypalrestsdk", "mcp")

TRIGGERS: Dict[str, Tuple[str, ...]] = {
    "RES101": _TIMEOUTS,
    "RES102": _TIMEOUTS,
    "RES103": _TIMEOUTS,
    "RES104": tuple(dict.fromkeys(_TIMEOUTS + RETRY_TRIGGERS + ("async_timeout",))),
    # a budget matters only for a catalog call with a constant timeout
    "RES105": _TIMEOUTS,
    # a hand-rolled loop needs no retry library and, when it retries at once, no sleep: what makes it a
    # retry is the remote call it repeats, a call the timeout catalog knows (``table.put_item``)
    **{code: tuple(dict.fromkeys(RETRY_TRIGGERS + _TIMEOUTS))
       for code in ("RES201", "RES202", "RES203", "RES204", "RES205", "RES206")},
    # a key minted per attempt needs a retry (or an SDK that retries): a key generator alone is no trigger;
    # a retry may be a bare loop around a remote call (the timeout catalog's modules, as for RES2xx)
    "RES401": tuple(dict.fromkeys(RETRY_TRIGGERS + _TIMEOUTS + ("stripe", "boto3"))),
    "RES402": tuple(dict.fromkeys(RETRY_TRIGGERS + _TIMEOUTS + _WRITERS)),
    "RES403": ("urllib3", "requests", "aiohttp_retry"),
    # the stores of dedup records (catalog/idempotency.py DEDUP_STORES and the ORM names)
    "RES404": ("redis", "django", "sqlalchemy", "flask_sqlalchemy", "sqlmodel"),
    "RES501": BREAKER_MODULES,
}


def trigger_entries(codes: Iterable[str], project_rules: bool) -> Optional[Tuple[str, ...]]:
    """The entries of the rules ``codes`` (with RETRY_TRIGGERS when a project rule runs: every
    chain starts at a retried call site); ``None`` when one of them must see every file."""
    entries = set(RETRY_TRIGGERS if project_rules else ())
    for code in codes:
        if code in ("RES000", "RES900", "RES301"):
            continue  # not per-file rules
        found = TRIGGERS.get(code)
        if found is None:
            return None
        entries.update(found)
    return tuple(sorted(entries))
