"""RES101 on a Django settings module that sends mail over SMTP with no ``EMAIL_TIMEOUT``: the
backend's default is no timeout at all. Quiet when any settings module of the project sets it,
for another backend, and for a developer's or the tests' settings."""

from __future__ import annotations

import pytest

from tests.test_cli import run
from tests.test_operator_scripts import project

SETTINGS = """\
import os

INSTALLED_APPS = ["django.contrib.auth", "shop"]
{before}EMAIL_HOST = os.environ.get("EMAIL_HOST", "smtp.example.invalid")
EMAIL_PORT = 587
{after}"""


def reported(tmp_path, *paths):
    result = run(["-f", "concise", "--no-cache", "--select", "RES101", *(paths or (".",))], tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [line for line in result.stdout.splitlines() if "RES101" in line]


def test_smtp_mail_with_no_timeout_is_reported_at_the_host(tmp_path):
    project(tmp_path, {"shop/__init__.py": "", "shop/settings.py": SETTINGS.format(before="", after="")})
    found = reported(tmp_path)
    assert len(found) == 1 and found[0].startswith("shop/settings.py:4:1: RES101 ")
    assert "no settings module sets `EMAIL_TIMEOUT`" in found[0] and "set `EMAIL_TIMEOUT = 10` beside it" in found[0]


@pytest.mark.parametrize(("before", "after", "count"), [
    ("", "EMAIL_TIMEOUT = 10\n", 0),
    ("", "EMAIL_TIMEOUT = int(os.environ.get('EMAIL_TIMEOUT', '10'))\n", 0),
    ('EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"\n', "", 0),
    ('EMAIL_BACKEND = "anymail.backends.mailgun.EmailBackend"\n', "", 0),
    ('EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")\n', "", 1),
    ('SMTP = "django.core.mail.backends.smtp.EmailBackend"\nEMAIL_BACKEND = os.environ.get("B", SMTP)\n', "", 1),
    ('EMAIL_BACKEND = os.environ["EMAIL_BACKEND"]\n', "", 0),  # unknown backend: not judged
])
def test_the_backend_and_a_timeout_in_the_module(tmp_path, before, after, count):
    project(tmp_path, {"shop/__init__.py": "", "shop/settings.py": SETTINGS.format(before=before, after=after)})
    assert len(reported(tmp_path)) == count


BRANCHES = """\
import os

INSTALLED_APPS = ["django.contrib.auth"]
DEBUG = os.environ.get("DEBUG") == "1"
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "anymail.backends.mailgun.EmailBackend")
if {test}:
    EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
"""


@pytest.mark.parametrize(("test", "count"), [
    ('EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"', 1),  # the branch says it is SMTP
    ("DEBUG", 0),                                                            # a developer's mail catcher
    ("os.environ.get('MAIL')", 0),                                          # mailgun outside the branch
])
def test_a_host_set_in_a_branch(tmp_path, test, count):
    project(tmp_path, {"settings.py": BRANCHES.format(test=test)})
    assert len(reported(tmp_path)) == count


def test_a_timeout_another_settings_module_sets_counts_in_a_full_run_and_a_run_of_one_file(tmp_path):
    project(tmp_path, {"shop/__init__.py": "", "shop/settings/__init__.py": "",
                       "shop/settings/base.py": SETTINGS.format(before="", after=""),
                       "shop/settings/production.py": "from .base import *\n\nEMAIL_TIMEOUT = 15\n"})
    assert reported(tmp_path) == []
    assert reported(tmp_path, "shop/settings/base.py") == []
    (tmp_path / "shop" / "settings" / "production.py").write_text("from .base import *\n", encoding="utf-8")
    assert len(reported(tmp_path, "shop/settings/base.py")) == 1


@pytest.mark.parametrize("path", ["shop/settings/local.py", "shop/settings/test.py", "shop/settings_dev.py",
                                  "shop/settings/development.py", "tests/settings.py"])
def test_the_settings_of_a_developer_or_the_tests_are_not_judged(tmp_path, path):
    project(tmp_path, {"shop/__init__.py": "", "shop/settings/__init__.py": "", "tests/__init__.py": "",
                       path: SETTINGS.format(before="", after="")})
    assert reported(tmp_path) == []


def test_a_module_that_is_no_django_settings_module_is_not_judged(tmp_path):
    project(tmp_path, {"mailer/__init__.py": "", "mailer/options.py": "import os\n\nEMAIL_HOST = os.environ['H']\n"})
    assert reported(tmp_path) == []


def test_a_noqa_on_the_host_line_suppresses_it(tmp_path):
    text = SETTINGS.format(before="", after="").replace('"smtp.example.invalid")', '"smtp.example.invalid")  # noqa: RES101')
    project(tmp_path, {"shop/__init__.py": "", "shop/settings.py": text})
    assert reported(tmp_path) == []


@pytest.mark.parametrize(("layout", "count"), [
    # a console backend under ``if DEBUG:`` is the developer's: production sends over SMTP
    ('if DEBUG:\n    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"\n'
     'EMAIL_HOST = os.environ["EMAIL_HOST"]\n', 1),
    # production branches: ``else`` of ``if DEBUG:``, ``if not DEBUG:``
    ('if DEBUG:\n    EMAIL_HOST = "mailhog"\nelse:\n    EMAIL_HOST = os.environ["EMAIL_HOST"]\n', 1),
    ('if not DEBUG:\n    EMAIL_HOST = os.environ["EMAIL_HOST"]\n', 1),
    ('if not DEBUG:\n    pass\nelse:\n    EMAIL_HOST = "mailhog"\n', 0),
    ('if DEBUG and os.environ.get("MAILHOG"):\n    EMAIL_HOST = "mailhog"\n', 0),
    # a timeout of None is no timeout
    ('EMAIL_HOST = os.environ["EMAIL_HOST"]\nEMAIL_TIMEOUT = None\n', 1),
])
def test_debug_branches_and_a_timeout_of_none(tmp_path, layout, count):
    text = 'import os\n\nINSTALLED_APPS = ["django.contrib.auth"]\nDEBUG = os.environ.get("DEBUG") == "1"\n' + layout
    project(tmp_path, {"settings.py": text})
    assert len(reported(tmp_path)) == count


def test_a_flask_config_module_is_no_django_settings_module(tmp_path):
    project(tmp_path, {"app/__init__.py": "", "app/config.py": "import os\n\nEMAIL_HOST = os.environ['H']\n",
                       "config/__init__.py": "", "config/mail.py": "EMAIL_HOST = 'smtp.example.invalid'\n"})
    assert reported(tmp_path) == []


def test_an_excluded_copy_of_the_setting_does_not_count(tmp_path):
    project(tmp_path, {"shop/__init__.py": "", "shop/settings.py": SETTINGS.format(before="", after=""),
                       "vendor/django_defaults.py": "EMAIL_TIMEOUT = None\n"})
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.reslint]\nexclude = ['vendor/']\n",
                                            encoding="utf-8")
    assert len(reported(tmp_path)) == 1
