"""Django's outgoing mail: the settings that bound how long its SMTP backend waits.

Django sends mail through ``EMAIL_BACKEND``, by default its SMTP backend
(``django.core.mail.backends.smtp.EmailBackend``), which opens ``smtplib.SMTP`` to ``EMAIL_HOST``
with the ``timeout`` given to the backend, else ``EMAIL_TIMEOUT``, and passes no timeout at all
when that is ``None``, its default: a mail server that accepts the connection and stops answering
then holds the request or the worker sending the mail forever (smtplib falls back to the global
socket default, none unless the program sets one). Sources: django/conf/global_settings.py
(``EMAIL_BACKEND``, ``EMAIL_TIMEOUT = None``); django/core/mail/backends/smtp.py
(``self.timeout = settings.EMAIL_TIMEOUT if timeout is None else timeout``; ``if self.timeout is not
None: connection_params["timeout"] = self.timeout``);
https://docs.djangoproject.com/en/stable/ref/settings/#email-timeout. Checked against the
installed Django in the catalog-reality tests.
"""

from __future__ import annotations

from typing import FrozenSet

#: the setting that says the project sends mail over SMTP, to that host
HOST_SETTING = "EMAIL_HOST"
#: the setting that bounds each blocking step of the SMTP backend (seconds; default ``None``)
TIMEOUT_SETTING = "EMAIL_TIMEOUT"
#: the setting that picks the backend, and the default one, which talks SMTP
BACKEND_SETTING = "EMAIL_BACKEND"
SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
#: the settings modules of a developer's machine and of the test suite (``settings/local.py``,
#: ``settings_dev.py``), where the mail server is a local catcher or none: not judged
LOCAL_SETTINGS: FrozenSet[str] = frozenset({"local", "dev", "develop", "development", "test", "tests", "testing",
                                           "ci"})

#: how RES101's finding on such a settings module begins: the run drops it after the cache when
#: another Python file of the project spells ``EMAIL_TIMEOUT`` (another settings module sets it;
#: ``reslint.catalog.triggers.SET_ELSEWHERE`` spells the same, a test keeps them equal)
FINDING_PREFIX = f"`{HOST_SETTING}` is set and no settings module sets `{TIMEOUT_SETTING}`"
