"""Retries through a task queue: celery's ``retry_kwargs``, tasks that retry themselves
(``raise self.retry(...)``), and ``@app.task`` where ``app`` comes from another module of the
project (``from .celery import app``, the Django layout)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reslint.catalog.user import TaskClassEntry
from reslint.config import Settings, load_settings
from reslint.engine.filepass import Linter
from reslint.engine.runner import Runner
from tests.linting import messages, rows

HEAD = """\
import random

import requests
from celery import Celery, shared_task

app = Celery("shop")
TRANSIENT = (requests.ConnectionError, requests.Timeout)
"""
#: the arithmetic tests below judge a task's worst case by a one-minute limit (the default,
#: ``max-task-retry-time``, is 20 minutes: test_a_queued_task_is_judged_by_max_task_retry_time)
MINUTE = 60.0


@pytest.fixture
def linter(tmp_path):
    """A linter that judges queued tasks' retries by :data:`MINUTE`."""
    return Linter(Settings(root=tmp_path, max_task_retry_time=MINUTE))


# -- the limit a queued task is judged by -------------------------------------------------------------
def test_a_queued_task_is_judged_by_max_task_retry_time(tmp_path):
    """Nobody waits for a queued task: 5 retries 30 s to 480 s apart (930 s) stay within the
    default 20 minutes, 5 retries with a factor of 60 (1500 s) do not, and the message names the
    setting; a retry that a caller waits for is still judged by max-retry-time."""
    default = Linter(Settings(root=tmp_path))
    template = """
        @shared_task(autoretry_for=TRANSIENT, retry_backoff={factor}, max_retries=5)
        def mail(x):
            return requests.post("https://m.invalid", timeout=5)
        """
    assert "RES202" not in {code for _, code in rows(default, HEAD, template.format(factor=30))}
    [text] = messages(default, HEAD, template.format(factor=60), "RES202")
    assert "up to 1500 s of waits" in text and "> max-task-retry-time (1200 s)" in text
    loop = """
        def fetch():
            for attempt in range(5):
                try:
                    return requests.get("https://e.invalid", timeout=5)
                except requests.Timeout:
                    time.sleep(random.uniform(0, 30))
        """
    [text] = messages(default, HEAD + "import time\n", loop, "RES202")
    assert "> max-retry-time (60 s)" in text


# -- retry_kwargs -----------------------------------------------------------------------------------
def test_retry_kwargs_max_retries_and_countdown_are_the_policy(linter):
    body = """
        @shared_task(autoretry_for=TRANSIENT, retry_kwargs={"max_retries": 2, "countdown": 600})
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(linter, HEAD, body) == [(2, "RES201"), (2, "RES202")]
    [text] = messages(linter, HEAD, body, "RES202")
    # 2 retries 600 s apart, 3 runs of a (5 + 5) s GET: the numbers celery would give
    assert "worst case 3 attempts × 10 s + up to 1200 s of waits = 1230 s > max-task-retry-time (60 s)" in text
    assert "the task's work then lands that late" in text
    assert "lower `max_retries` or the countdown" in text
    [jitter] = messages(linter, HEAD, body, "RES201")
    assert "set `retry_backoff=True`" in jitter and "`retry_jitter` alone changes nothing" in jitter


def test_retry_kwargs_max_retries_none_is_the_tasks_own(linter):
    # None passed to Task.retry means "the task's max_retries" (3), never forever
    body = """
        @shared_task(autoretry_for=TRANSIENT, retry_kwargs={"max_retries": None})
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    [text] = messages(linter, HEAD, body, "RES202")
    assert "worst case 4 attempts × 10 s + up to 540 s of waits" in text
    assert messages(linter, HEAD, body, "RES203") == []


def test_retry_backoff_replaces_the_countdown_of_retry_kwargs(linter):
    body = """
        @shared_task(autoretry_for=TRANSIENT, retry_backoff=True, retry_kwargs={"max_retries": 3, "countdown": 900})
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(linter, HEAD, body) == []  # waits of up to 1 + 2 + 4 s, jittered


def test_unreadable_retry_kwargs_leave_the_policy_unknown(linter):
    body = """
        @shared_task(autoretry_for=TRANSIENT, retry_kwargs=load_options())
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(linter, HEAD, body) == []


def test_dont_autoretry_for_is_excluded_from_a_catch_all(linter):
    body = """
        @shared_task(autoretry_for=(Exception,), dont_autoretry_for=(ValueError,), retry_backoff=True)
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    [text] = messages(linter, HEAD, body, "RES204")
    assert "celery retry retries `Exception`, that is every error but `ValueError`: bugs and client errors" in text


# -- tasks that retry themselves --------------------------------------------------------------------
def test_a_bound_task_calling_self_retry_is_a_retry_layer(linter):
    body = """
        @app.task(bind=True, max_retries=5)
        def push(self, order_id):
            try:
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)
            except TRANSIENT as exc:
                raise self.retry(exc=exc, countdown=2 ** self.request.retries)
        """
    assert rows(linter, HEAD, body) == [(5, "RES402"), (7, "RES201"), (7, "RES202")]
    [text] = messages(linter, HEAD, body, "RES202")
    # 6 runs; the countdowns see 0..4 retries made: 1 + 2 + 4 + 8 + 16 s
    assert "worst case 6 attempts × 10 s + up to 31 s of waits = 91 s" in text
    [write] = messages(linter, HEAD, body, "RES402")
    assert "inside a celery task that calls `self.retry()`" in write


def test_a_task_retrying_by_its_own_name_and_a_catch_all(linter):
    body = """
        @shared_task(max_retries=None)
        def sync(order_id):
            try:
                return requests.get("https://e.invalid/orders", timeout=5).json()
            except Exception as exc:
                raise sync.retry(exc=exc, countdown=random.uniform(0, 10))
        """
    assert rows(linter, HEAD, body) == [(7, "RES203"), (7, "RES204")]


def test_max_retries_passed_to_retry_overrides_the_task_and_none_keeps_it(linter):
    template = """
        @app.task(bind=True, max_retries=1)
        def sync(self, order_id):
            try:
                return requests.get("https://e.invalid/orders", timeout=5).json()
            except TRANSIENT as exc:
                raise self.retry(exc=exc, countdown=20, max_retries={})
        """
    assert rows(linter, HEAD, template.format("None")) == [(7, "RES201")]  # 2 runs, one 20 s wait
    [text] = messages(linter, HEAD, template.format("4"), "RES202")
    assert "worst case 5 attempts × 10 s + up to 80 s of waits = 130 s" in text


def test_a_retry_outside_a_handler_is_a_poll(linter):
    body = """
        @app.task(bind=True, max_retries=100)
        def wait_for_export(self, export_id):
            state = requests.get(f"https://e.invalid/exports/{export_id}", timeout=5).json()["state"]
            if state != "done":
                raise self.retry(countdown=5)
            return state
        """
    assert rows(linter, HEAD, body) == []


def test_retry_kwargs_unpacked_into_retry_leave_the_attempts_unknown(linter):
    body = """
        @app.task(bind=True, retry_kwargs={"max_retries": 5})
        def fetch(self, url):
            try:
                return requests.get(url, timeout=5).json()
            except TRANSIENT as exc:
                raise self.retry(exc=exc, countdown=random.uniform(0, 60), **self.retry_kwargs)
        """
    assert rows(linter, HEAD, body) == []


def test_an_unbound_task_or_another_objects_retry_is_no_retry(linter):
    body = """
        @app.task
        def fetch(client, url):
            try:
                return requests.get(url, timeout=5).json()
            except TRANSIENT:
                client.retry(countdown=5)

        def plain(self, url):
            try:
                return requests.get(url, timeout=5).json()
            except Exception as exc:
                raise self.retry(exc=exc)
        """
    assert rows(linter, HEAD, body) == []


# -- the app of another module ----------------------------------------------------------------------
TASKS = """\
import requests

from .celery import app
from shop import celery_app


@app.task(autoretry_for=(Exception,), retry_backoff=True)
def refresh(x):
    return requests.get("https://e.invalid", timeout=5).json()


@celery_app.task(bind=True, max_retries=None)
def sync(self, x):
    try:
        return requests.get("https://e.invalid", timeout=5).json()
    except requests.RequestException as exc:
        raise self.retry(exc=exc, countdown=10)
"""


def _shop(root: Path, tasks: str = TASKS) -> None:
    files = {"pyproject.toml": "[project]\nname = 'shop'\n",
             "shop/__init__.py": "from .celery import app as celery_app\n",
             "shop/celery.py": "from celery import Celery\n\napp = Celery('shop')\n",
             "shop/tasks.py": tasks}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _found(root: Path, use_cache: bool = False):
    run = Runner(load_settings(root), use_cache=use_cache).run([root])
    assert run.errors == []
    return sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings)


def test_the_app_of_another_module_spells_tasks_even_in_a_module_without_the_import(tmp_path):
    _shop(tmp_path)
    expected = [("shop/tasks.py", 7, "RES204"), ("shop/tasks.py", 17, "RES201"), ("shop/tasks.py", 17, "RES203")]
    assert _found(tmp_path) == expected
    assert _found(tmp_path, use_cache=True) == expected
    assert _found(tmp_path, use_cache=True) == expected  # from the cache


def test_a_name_that_is_no_celery_app_spells_nothing(tmp_path):
    _shop(tmp_path)
    (tmp_path / "shop/celery.py").write_text("class Registry:\n    def task(self, **kw):\n        return lambda f: f\n\n"
                                             "app = Registry()\n", encoding="utf-8")
    assert _found(tmp_path) == []


def test_a_run_given_only_the_tasks_module_reads_the_app_around_it(tmp_path):
    _shop(tmp_path)
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path / "shop" / "tasks.py"])
    # a run given one file still reads the project around it
    assert sorted((f.location.row, f.code) for r in run.results for f in r.findings) == \
        [(7, "RES204"), (17, "RES201"), (17, "RES203")]


# -- task classes -----------------------------------------------------------------------------------
CLASSES = """
    class RetryingTask(Task):
        autoretry_for = (Exception,)
        retry_kwargs = {"max_retries": 5}
        retry_backoff = True

    class Webhook(RetryingTask):
        retry_jitter = False

    class Remote(ImportedBase):
        autoretry_for = TRANSIENT
    """


def test_a_base_task_class_gives_the_options_and_the_decorator_wins(linter):
    head = HEAD + "from celery import Task\nfrom elsewhere import ImportedBase\n"
    body = CLASSES + """
    @app.task(base=RetryingTask, bind=True)
    def deliver(self, url):
        return requests.get(url, timeout=5).json()

    @app.task(base=Webhook, autoretry_for=TRANSIENT, retry_kwargs={"max_retries": 2})
    def notify(url):
        return requests.get(url, timeout=5).json()

    @app.task(base=Remote)
    def unknown(url):
        return requests.get(url, timeout=5).json()
    """
    # RetryingTask spells the catch-all: reported once, at the class (row 2), not at deliver, which
    # sets no retry option; deliver's worst case needs its body's time (5 retries of up to 1, 2, 4,
    # 8, 16 s, each attempt up to 10 s): its own; notify sets options over Webhook's jitter=False
    assert rows(linter, head, body) == [(2, "RES204"), (13, "RES202"), (17, "RES201")]
    [text] = messages(linter, head, body, "RES202")
    assert "worst case 6 attempts × 10 s + up to 31 s of waits = 91 s" in text


def test_a_task_class_run_that_calls_self_retry_is_a_retry_layer(linter):
    """``run(self, ...)`` of a ``Task`` subclass is the task's body, bound to it: ``raise
    self.retry(...)`` there retries it with the class's ``max_retries``, as for a bound function
    task; a class that is no celery task (no base leads to one) is not read."""
    head = HEAD + "from celery import Task\n"
    body = """
        class ChargeTask(Task):
            name = "charge"
            max_retries = 5

            def run(self, order_id):
                try:
                    requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)
                except TRANSIENT as exc:
                    raise self.retry(exc=exc, countdown=2 ** self.request.retries)

        class Plain:
            def run(self, order_id):
                try:
                    requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)
                except TRANSIENT as exc:
                    raise self.retry(exc=exc, countdown=2 ** self.request.retries)

        app.register_task(ChargeTask())
        """
    assert rows(linter, head, body) == [(8, "RES402"), (10, "RES201"), (10, "RES202")]
    [text] = messages(linter, head, body, "RES202")
    assert "worst case 6 attempts × 10 s + up to 31 s of waits = 91 s" in text  # as for the bound function task
    [write] = messages(linter, head, body, "RES402")
    assert "inside a celery task that calls `self.retry()`" in write


def test_a_base_task_class_whose_call_retries_every_task_is_a_retry_layer(linter):
    """``__call__`` of a ``Task`` subclass wraps ``run`` for every task built on the class: a
    ``raise self.retry(exc=exc)`` there retries them all with celery's fixed 180 s default
    (seen as a package index's base class of all its tasks); a random countdown is jittered."""
    head = HEAD + "import random\nfrom celery import Task\n"
    body = """
        class BaseTask(Task):
            def __call__(self, *args, **kwargs):
                try:
                    return super().__call__(*args, **kwargs)
                except TRANSIENT as exc:
                    raise self.retry(exc=exc)

        class Jittered(Task):
            def __call__(self, *args, **kwargs):
                try:
                    return super().__call__(*args, **kwargs)
                except TRANSIENT as exc:
                    raise self.retry(exc=exc, countdown=random.uniform(0, 60))
        """
    # by the one-minute limit of these tests, both outlast it (540 s and 180 s of waits)
    assert rows(linter, head, body) == [(7, "RES201"), (7, "RES202"), (14, "RES202")]


def test_a_task_class_with_autoretry_for_retries_its_run(default):
    """A task class's ``autoretry_for`` (its own or a local base's) retries ``run`` as a decorator's
    does, reported at the class; ``app.Task`` is a task base too. ``max_retries = 0``, a class that
    is no celery task, one without ``autoretry_for`` and one built on an imported base stay clean."""
    head = HEAD + "import uuid\n\nfrom celery import Task\nfrom elsewhere import ImportedBase\n"
    body = """
        class RetryingTask(Task):
            autoretry_for = (Exception,)
            max_retries = 5
            retry_backoff = True

        class ChargeTask(RetryingTask):
            def run(self, order_id):
                key = str(uuid.uuid4())
                requests.post("https://e.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key},
                              timeout=5)

        class SyncTask(app.Task):
            autoretry_for = TRANSIENT
            default_retry_delay = 30

            def run(self, order_id):
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)

        class OnceTask(Task):
            autoretry_for = TRANSIENT
            max_retries = 0

            def run(self, order_id):
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)

        class NotATask:
            autoretry_for = (Exception,)

            def run(self, order_id):
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)

        class NoAutoretry(Task):
            def run(self, order_id):
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)

        class Remote(ImportedBase):
            autoretry_for = TRANSIENT

            def run(self, order_id):
                requests.post("https://e.invalid/orders", json={"id": order_id}, timeout=5)

        for task in (ChargeTask, SyncTask, OnceTask, NoAutoretry, Remote):
            app.register_task(task())
        """
    # RetryingTask's catch-all is reported once, at RetryingTask (row 2), which spells it, not at
    # ChargeTask, which sets no retry option of its own
    assert rows(default, head, body) == [(2, "RES204"), (9, "RES401"), (13, "RES201"), (18, "RES402")]
    [every] = messages(default, head, body, "RES204")
    assert every.startswith("celery retry retries `Exception`, that is every error: ")
    [fixed] = messages(default, head, body, "RES201")
    assert fixed.startswith("celery retry waits a deterministic time (fixed)")
    assert "set `retry_backoff=True`" in fixed


def test_a_base_built_on_the_apps_task_class_gives_its_options(linter):
    """``class Base(app.Task)`` is read as ``class Base(Task)`` is: its ``autoretry_for`` is the
    decorated task's (a base reslint cannot read left the task unknown)."""
    body = """
        class Base(app.Task):
            autoretry_for = (Exception,)
            retry_backoff = True

        @app.task(base=Base)
        def export(x):
            return requests.get("https://e.invalid", timeout=5).json()

        @app.task(base=Base, autoretry_for=TRANSIENT)
        def narrowed(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(linter, HEAD, body) == [(2, "RES204")]  # at Base, which spells it; narrowed sets its own


def test_a_task_that_does_not_retry_writes_and_mints_keys_once(linter):
    """``max_retries=0`` leaves one run: neither a key minted in the task (RES401) nor a write with
    no key (RES402) is replayed; one retry is enough for both."""
    head = HEAD + "import uuid\n"
    template = """
        @shared_task(autoretry_for=TRANSIENT, retry_backoff=True, max_retries={n})
        def charge(order_id):
            key = str(uuid.uuid4())
            requests.post("https://e.invalid/charges", json={{"id": order_id}}, headers={{"Idempotency-Key": key}},
                          timeout=5)

        @app.task(bind=True, max_retries={n})
        def push(self, order_id):
            try:
                requests.post("https://e.invalid/orders", json={{"id": order_id}}, timeout=5)
            except TRANSIENT as exc:
                raise self.retry(exc=exc, countdown=random.uniform(0, 2 ** self.request.retries))
        """
    assert rows(linter, head, template.format(n=0)) == []
    assert rows(linter, head, template.format(n=1)) == [(4, "RES401"), (11, "RES402")]


def test_a_late_acked_task_that_writes_with_a_stable_key_is_clean(linter):
    """``acks_late=True`` with ``autoretry_for``: a key derived from the order is the same on every
    run, so the write is safe to replay; a key minted in the task is not."""
    template = """
        @shared_task(acks_late=True, autoretry_for=TRANSIENT, retry_backoff=True)
        def charge(order_id):
            key = {key}
            requests.post("https://e.invalid/charges", json={{"id": order_id}}, headers={{"Idempotency-Key": key}},
                          timeout=5)
        """
    assert rows(linter, HEAD, template.format(key='f"charge-{order_id}"')) == []
    assert rows(linter, HEAD + "import uuid\n", template.format(key="str(uuid.uuid4())")) == [(4, "RES401")]


# -- task classes of another module ------------------------------------------------------------------
BASE = """\
import celery


class RetryingTask(celery.Task):
    autoretry_for = (ConnectionError,)
    retry_kwargs = {"max_retries": 5}
    retry_backoff = True
"""
CHARGES = """\
import uuid

import requests
import stripe
from celery import shared_task

from .base import RetryingTask


@shared_task(base=RetryingTask)
def charge(order_id, amount):
    stripe.Charge.create(amount=amount, currency="eur")


@shared_task(base=RetryingTask)
def refund(order_id):
    key = str(uuid.uuid4())
    requests.post("https://pay.invalid/refunds", json={"id": order_id}, headers={"Idempotency-Key": key}, timeout=5)


@shared_task(base=RetryingTask)
def capture(order_id, amount, key):
    stripe.Charge.create(amount=amount, currency="eur", idempotency_key=key)
"""
#: what :data:`CHARGES` gets from :data:`BASE`: a keyless write and a key minted in a retried task
RETRIED = [("tasks/charges.py", 12, "RES402"), ("tasks/charges.py", 17, "RES401")]


def _tasks(root: Path, base: str = BASE, charges: str = CHARGES, init: str = "") -> None:
    files = {"pyproject.toml": "[project]\nname = 'tasks'\n", "tasks/__init__.py": init,
             "tasks/base.py": base, "tasks/charges.py": charges}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _run(root: Path, use_cache: bool = False, paths=None):
    run = Runner(load_settings(root), use_cache=use_cache).run(paths or [root])
    assert run.errors == []
    return run


def test_a_base_task_class_of_another_module_makes_the_task_retried(tmp_path):
    """``base=RetryingTask`` imported from ``tasks/base.py``: the task is retried by the class's
    ``autoretry_for``, so a write with no key is replayed (RES402) and a key minted in the task
    changes on every run (RES401); a key passed in is stable. A run given only the tasks module
    reads the class around it."""
    _tasks(tmp_path)
    run = _run(tmp_path)
    found = sorted((f.filename, f.location.row, f.code, f.message) for r in run.results for f in r.findings)
    assert [row[:3] for row in found] == RETRIED
    assert found[0][3].startswith("Stripe `stripe.Charge.create` runs inside a celery retry with no idempotency key")
    assert found[1][3].startswith("idempotency key minted by `uuid.uuid4()` inside the retried code")
    assert _found(tmp_path) == RETRIED
    alone = _run(tmp_path, paths=[tmp_path / "tasks" / "charges.py"])
    assert sorted((f.filename, f.location.row, f.code) for r in alone.results for f in r.findings) == RETRIED
    _tasks(tmp_path, charges=CHARGES.replace(", idempotency_key=key)", ")"))
    assert _found(tmp_path) == RETRIED + [("tasks/charges.py", 23, "RES402")]  # the key was what kept it clean


def test_the_module_summary_records_a_task_class_with_its_options(tmp_path):
    """The summary of the class's module holds what other modules read: constants that name
    nothing, and exception types by qualified name, its own options over its local base's."""
    base = BASE + """
class Narrow(RetryingTask):
    autoretry_for = (requests.ConnectionError, requests.Timeout)
    retry_backoff_max = settings.MAX
    retry_jitter = False


class Plain:
    autoretry_for = (Exception,)
"""
    _tasks(tmp_path, base="import requests\n\nfrom . import settings\n" + base)
    # (the prefilter skips the module, which spells no task: the project pass loads it when asked)
    summary = Runner(load_settings(tmp_path), use_cache=False).lint(tmp_path / "tasks/base.py", force=True).summary
    assert summary.task_classes == (
        TaskClassEntry("RetryingTask", (("retry_kwargs", "{'max_retries': 5}"), ("retry_backoff", "True")),
                       (("autoretry_for", ("ConnectionError",)),), spells=True),
        TaskClassEntry("Narrow", (("retry_kwargs", "{'max_retries': 5}"), ("retry_backoff", "True"),
                                  ("retry_backoff_max", "..."), ("retry_jitter", "False")),
                       (("autoretry_for", ("requests.ConnectionError", "requests.Timeout")),), spells=True),
    )


@pytest.mark.parametrize("base", [
    BASE.replace('retry_kwargs = {"max_retries": 5}', "max_retries = 0"),
    BASE.replace('retry_kwargs = {"max_retries": 5}', 'retry_kwargs = {"max_retries": 0}'),
    BASE.replace("    autoretry_for = (ConnectionError,)\n", ""),
], ids=["max_retries=0", "retry_kwargs-max_retries-0", "no-autoretry_for"])
def test_a_base_of_another_module_that_does_not_retry_leaves_the_task_clean(tmp_path, base):
    _tasks(tmp_path, base=base)
    assert _found(tmp_path) == []


def test_the_decorators_options_override_the_imported_base(tmp_path):
    """celery sets a decorator's options on the class it makes from ``base=`` (celery/app/base.py
    ``_task_from_fun``: ``type(fun.__name__, (base,), dict({...}, **options))``): they win over the
    base's. A ``max_retries=0`` of the decorator stops a base's ``max_retries = 5``, but not its
    ``retry_kwargs={"max_retries": 5}``, which celery/app/autoretry.py passes to ``Task.retry``
    (there it overrides the task's ``max_retries``); the decorator's own ``retry_kwargs`` does."""
    def decorated(options: str) -> str:
        return CHARGES.replace("@shared_task(base=RetryingTask)", f"@shared_task(base=RetryingTask, {options})")

    attribute = BASE.replace('retry_kwargs = {"max_retries": 5}', "max_retries = 5")
    _tasks(tmp_path, base=attribute)
    assert _found(tmp_path) == RETRIED
    _tasks(tmp_path, base=attribute, charges=decorated("max_retries=0"))
    assert _found(tmp_path) == []
    _tasks(tmp_path, charges=decorated("max_retries=0"))
    assert _found(tmp_path) == RETRIED
    _tasks(tmp_path, charges=decorated('retry_kwargs={"max_retries": 0}'))
    assert _found(tmp_path) == []


@pytest.mark.parametrize("spelling,init", [
    ("from .base import RetryingTask as RT", ""),
    ("from tasks import RetryingTask as RT", "from .base import RetryingTask\n"),
    ("from . import base as b", ""),
], ids=["alias", "re-export", "module-attribute"])
def test_an_imported_base_is_found_through_aliases_and_re_exports(tmp_path, spelling, init):
    name = "b.RetryingTask" if " as b" in spelling else "RT"
    charges = CHARGES.replace("from .base import RetryingTask", spelling).replace("base=RetryingTask", f"base={name}")
    _tasks(tmp_path, charges=charges, init=init)
    assert _found(tmp_path) == RETRIED


def test_the_retry_policy_of_an_imported_base_is_judged_as_a_local_ones(tmp_path):
    """RES201, RES202 and RES204 of a task built on another module's class are those of the same
    task and class in one module: reported once, at the class that spells the options (a local base
    of the imported class and ``dont_autoretry_for`` included), not at each task built on it."""
    base = """\
import celery

TRANSIENT = (ConnectionError, TimeoutError)


class RetryingTask(celery.Task):
    autoretry_for = (Exception,)
    retry_kwargs = {"max_retries": 8, "countdown": 60}


class Narrow(RetryingTask):
    autoretry_for = TRANSIENT
    dont_autoretry_for = (TimeoutError,)
    retry_backoff = 30
    retry_jitter = False
"""
    tasks = """
@shared_task(base=RetryingTask)
def export(order_id):
    return requests.get("https://pay.invalid/orders", timeout=5).json()


@shared_task(base=Narrow)
def report(order_id):
    return requests.get("https://pay.invalid/reports", timeout=5).json()
"""
    imports = "import requests\nfrom celery import shared_task\n"
    _tasks(tmp_path, base=base, charges=imports + "\nfrom .base import Narrow, RetryingTask\n\n" + tasks)
    run = _run(tmp_path)
    across = sorted((f.location.row, f.code, f.message) for r in run.results for f in r.findings)
    one = tmp_path / "one"
    one.mkdir()
    (one / "pyproject.toml").write_text("[project]\nname = 'one'\n", encoding="utf-8")
    (one / "tasks.py").write_text(imports + base + "\n" + tasks, encoding="utf-8")
    local = sorted((f.location.row, f.code, f.message) for r in _run(one).results for f in r.findings)
    assert [(r.path.rsplit("/", 1)[-1], f.location.row, f.code) for r in run.results for f in r.findings] == [
        ("base.py", 6, "RES201"), ("base.py", 6, "RES204"), ("base.py", 11, "RES201"), ("base.py", 11, "RES202")]
    assert [(code, message) for _, code, message in across] == [(code, message) for _, code, message in local]
    assert "worst case 9 attempts with up to 2730 s of waits" in across[3][2]


def test_a_task_class_built_on_an_imported_base_retries_its_run(tmp_path):
    """``class Capture(RetryingTask): def run(...)`` with the class of another module: ``run`` is
    retried by the base's ``autoretry_for``, as with a local base."""
    charges = """\
import requests

from .base import RetryingTask


class Capture(RetryingTask):
    def run(self, order_id):
        requests.post("https://pay.invalid/captures", json={"id": order_id}, timeout=5)
"""
    _tasks(tmp_path, charges=charges)
    assert _found(tmp_path) == [("tasks/charges.py", 8, "RES402")]
    _tasks(tmp_path, base=BASE.replace("    autoretry_for = (ConnectionError,)\n", ""), charges=charges)
    assert _found(tmp_path) == []


@pytest.mark.parametrize("base,charges", [
    (BASE, CHARGES.replace("from .base import RetryingTask", "from elsewhere import RetryingTask")),
    ("import celery\n\n\ndef task_class(**options):\n    return type('Task', (celery.Task,), options)\n\n\n"
     "RetryingTask = task_class(autoretry_for=(ConnectionError,), max_retries=5)\n", CHARGES),
], ids=["third-party", "built-at-run-time"])
def test_a_base_reslint_cannot_read_stays_unknown(tmp_path, base, charges):
    """A base from outside the project, or one the project builds at run time, gives no options:
    the task is not known to retry (as before), and nothing is reported."""
    _tasks(tmp_path, base=base, charges=charges)
    assert _found(tmp_path) == []


def test_a_change_in_the_base_module_changes_the_tasks_findings_through_the_cache(tmp_path):
    """The task module's text does not change, only the base's: the cached run reads the class's
    new options, and back."""
    _tasks(tmp_path)
    assert _found(tmp_path, use_cache=True) == RETRIED
    assert _found(tmp_path, use_cache=True) == RETRIED  # from the cache
    (tmp_path / "tasks/base.py").write_text(BASE.replace('retry_kwargs = {"max_retries": 5}', "max_retries = 0"),
                                            encoding="utf-8")
    assert _found(tmp_path, use_cache=True) == []
    assert _found(tmp_path, use_cache=True) == []
    (tmp_path / "tasks/base.py").write_text(BASE, encoding="utf-8")
    assert _found(tmp_path, use_cache=True) == RETRIED
    (tmp_path / "tasks/base.py").write_text(BASE.replace("RetryingTask", "OtherTask"), encoding="utf-8")
    assert _found(tmp_path, use_cache=True) == []  # the class is gone: the base is unknown again


# -- dramatiq ---------------------------------------------------------------------------------------
@pytest.fixture
def default(tmp_path):
    """A linter with the default settings (``max-task-retry-time`` 20 minutes)."""
    return Linter(Settings(root=tmp_path))


DRAMATIQ = """\
import random

import dramatiq
import requests
"""


def test_a_dramatiq_actor_with_the_middlewares_defaults_spelled_out_retries_for_46_days(default):
    body = """
        @dramatiq.actor(max_retries=20, min_backoff=15_000)
        def sync(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(default, DRAMATIQ, body) == [(2, "RES202")]
    [text] = messages(default, DRAMATIQ, body, "RES202")
    # 15 s doubling, each drawn up to twice that, capped at 7 days: 30 * (2**15 - 1) + 5 * 604800 s
    assert "21 attempts × 10 s + up to 4007010 s (46.4 days) of waits" in text
    assert "max-task-retry-time" in text


def test_a_dramatiq_actor_leaves_what_it_does_not_set_to_the_middleware(default):
    """The broker's Retries middleware may be configured elsewhere: attempts and waits the
    actor does not give are unknown, and so is its predicate, which is judged where the
    middleware is built; the write it replays is still the actor's."""
    body = """
        @dramatiq.actor
        def sync(x):
            requests.post("https://e.invalid", json={}, timeout=5).raise_for_status()
        """
    assert rows(default, DRAMATIQ, body) == [(4, "RES402")]
    # a count of its own does not make the predicate its own; naming errors to fail does
    assert rows(default, DRAMATIQ, body.replace("@dramatiq.actor", "@dramatiq.actor(max_retries=3)")) == \
        [(4, "RES402")]
    assert rows(default, DRAMATIQ, body.replace("@dramatiq.actor", "@dramatiq.actor(throws=(KeyError,))")) == \
        [(2, "RES204"), (4, "RES402")]


@pytest.mark.parametrize("middleware, expected", [
    # the project's own Retries: its catch-all and its worst case, once, where it is built
    ("middleware.Retries(max_retries=20, min_backoff=2000)", [(3, "RES202"), (3, "RES204")]),
    ("middleware.Retries(max_retries=5, min_backoff=1000)", [(3, "RES204")]),
    ("middleware.Retries(max_retries=5, retry_when=lambda n, e: isinstance(e, requests.Timeout))", []),
    ("middleware.Retries(max_retries=None)", [(3, "RES203"), (3, "RES204")]),
])
def test_the_projects_retries_middleware_is_judged_where_it_is_built(default, middleware, expected):
    head = DRAMATIQ + "from dramatiq import middleware\nfrom dramatiq.brokers.redis import RedisBroker\n"
    body = f"""
        broker = RedisBroker(url="redis://q.invalid", middleware=[
            {middleware},
        ])
        """
    assert rows(default, head, body) == expected


def test_a_broker_built_with_no_middleware_holds_the_default_retries(default):
    head = DRAMATIQ + "from dramatiq.brokers.redis import RedisBroker\n"
    body = """
        broker = RedisBroker(url="redis://q.invalid")
        """
    assert rows(default, head, body) == [(2, "RES202"), (2, "RES204")]
    assert rows(default, head, body.replace('q.invalid")', 'q.invalid", middleware=None)')) == \
        [(2, "RES202"), (2, "RES204")]
    [text] = messages(default, head, body, "RES204")
    assert text.startswith("dramatiq's Retries middleware retries every exception (the default predicate)")


def test_a_dramatiq_actor_that_does_not_retry_or_decides_by_predicate(default):
    body = """
        @dramatiq.actor(max_retries=0)
        def once(x):
            requests.post("https://e.invalid", json={}, timeout=5)

        @dramatiq.actor(retry_when=lambda retries, exc: retries < 3 and isinstance(exc, requests.Timeout))
        def chosen(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    assert rows(default, DRAMATIQ, body) == []


def test_a_dramatiq_actor_that_throws_some_errors_still_retries_every_other(default):
    """``throws=`` fails only the errors it lists, as celery's ``dont_autoretry_for`` does: a bug
    nobody listed is still retried, so the actor is reported, but the message names what it leaves
    out, never calls it the default predicate and does not advise the ``throws=`` it has; an actor
    whose ``retry_when=`` decides (``throws=`` or not) is not reported."""
    body = """
        @dramatiq.actor(max_retries=3, min_backoff=1000, throws=(ValueError, TypeError, KeyError, requests.HTTPError))
        def narrowed(x):
            return requests.get("https://e.invalid", timeout=5).json()

        @dramatiq.actor(max_retries=3, min_backoff=1000, throws=NON_RETRYABLE)
        def imported(x):
            return requests.get("https://e.invalid", timeout=5).json()

        @dramatiq.actor(max_retries=3, min_backoff=1000, throws=tuple(load_errors()))
        def unread(x):
            return requests.get("https://e.invalid", timeout=5).json()

        def transient(retries, exc):
            return retries < 3 and isinstance(exc, requests.ConnectionError)

        @dramatiq.actor(min_backoff=1000, throws=(ValueError,), retry_when=transient)
        def chosen(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    head = DRAMATIQ + "from errors import NON_RETRYABLE\n"
    assert rows(default, head, body) == [(2, "RES204"), (6, "RES204"), (10, "RES204")]
    narrowed, imported, unread = messages(default, head, body, "RES204")
    assert "dramatiq actor retry retries every exception but `ValueError`, `TypeError`, `KeyError` and 1 more: " \
           "bugs and client errors" in narrowed
    assert "dramatiq actor retry retries every exception but `errors.NON_RETRYABLE`: " in imported
    assert "dramatiq actor retry retries every exception but the errors it is told to give up on: " in unread
    for text in (narrowed, imported, unread):
        assert text.endswith("give the actor `retry_when=` a predicate that accepts only those (`throws=` fails only "
                             "the errors it lists; every error nobody listed is still retried)")
        assert "default predicate" not in text and "or `throws=`" not in text
    # an actor that sets only a count takes the middleware's predicate, judged where that is built
    assert messages(default, DRAMATIQ, """
        @dramatiq.actor(max_retries=3, min_backoff=1000)
        def every(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """, "RES204") == []
    [built] = messages(default, DRAMATIQ + "from dramatiq import middleware\n", """
        retries = middleware.Retries(max_retries=3, min_backoff=1000)
        """, "RES204")
    assert "dramatiq's Retries middleware retries every exception (the default predicate)" in built
    assert built.endswith("give the middleware `retry_when=` a predicate that accepts only those (or each actor "
                          "`retry_when=`, or `throws=` the errors no retry fixes)")


# -- huey -------------------------------------------------------------------------------------------
def test_huey_retry_delay_and_backoff_and_its_django_decorators(default):
    head = """\
import requests
from huey import RedisHuey
from huey.contrib.djhuey import HUEY, db_task

huey = RedisHuey("shop")
"""
    body = """
        @huey.task(retries=3, retry_delay=10, retry_backoff=2)
        def grows(x):
            return requests.get("https://e.invalid", timeout=5).json()

        @db_task(retries=2)
        def at_once(x):
            return requests.get("https://e.invalid", timeout=5).json()

        @HUEY.periodic_task(lambda dt: True, retries=40, retry_delay=60)
        def for_forty_minutes():
            return requests.get("https://e.invalid", timeout=5).json()

        @huey.task()
        def once(x):
            requests.post("https://e.invalid", json={}, timeout=5)
        """
    assert rows(default, head, body) == [
        (2, "RES201"), (2, "RES204"), (6, "RES204"), (6, "RES205"), (10, "RES201"), (10, "RES202"), (10, "RES204")]
    [grows] = [t for t in messages(default, head, body, "RES201") if "exponential" in t]
    assert "huey task retry" in grows
    [text] = messages(default, head, body, "RES202")
    assert "41 attempts × 10 s + up to 2400 s of waits = 2810 s" in text


def test_a_huey_instance_of_another_module_spells_tasks(tmp_path):
    files = {"pyproject.toml": "[project]\nname = 'shop'\n",
             "shop/__init__.py": "",
             "shop/queue.py": "from huey import RedisHuey\n\nhuey = RedisHuey('shop')\n",
             "shop/tasks.py": "import requests\nfrom .queue import huey\n\n\n@huey.task(retries=3, retry_delay=30)\n"
                              "def mail(x):\n    requests.post('https://m.invalid', json={}, timeout=5).raise_for_status()\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = {(Path(f).name, row, code) for f, row, code in _found(tmp_path)}
    assert {("tasks.py", 5, "RES201"), ("tasks.py", 5, "RES204"), ("tasks.py", 7, "RES402")} <= found


# -- RQ ---------------------------------------------------------------------------------------------
def test_rq_retry_on_enqueue_and_job(default):
    head = """\
from datetime import timedelta

import requests
from redis import Redis
from rq import Queue, Retry
from rq.decorators import job

redis = Redis(socket_timeout=5)
queue = Queue(connection=redis)
BACKOFF = Retry(max=3, interval=[5, 10, 20])
"""
    body = """
        def charge(order_id):
            requests.post("https://p.invalid/charges", json={"id": order_id}, timeout=5).raise_for_status()

        def fetch(order_id):
            return requests.get("https://p.invalid/orders", timeout=5).json()

        def enqueue(order_id):
            queue.enqueue(charge, order_id, retry=BACKOFF)
            queue.enqueue_in(timedelta(seconds=30), fetch, order_id, retry=Retry(max=2))
            queue.enqueue(fetch, order_id, retry=None)
            queue.enqueue("shop.jobs.fetch", order_id, retry=Retry(max=2, interval=60))

        @job("default", connection=redis, retry=Retry(max=30, interval=60))
        def rebuild():
            return requests.get("https://p.invalid/index", timeout=5).json()
        """
    assert rows(default, head, body) == [
        (3, "RES402"), (9, "RES201"), (9, "RES204"), (10, "RES204"), (10, "RES205"), (12, "RES201"), (12, "RES204"),
        (14, "RES201"), (14, "RES202"), (14, "RES204")]
    [text] = messages(default, head, body, "RES202")
    assert "31 attempts × 10 s + up to 1800 s of waits = 2110 s > max-task-retry-time (1200 s)" in text


def test_rq_enqueue_call_retries_the_job_it_is_given_by_keyword(default):
    """``enqueue_call(func=job, ...)`` names the job as the positional form does: a key minted in
    it is minted again by each retry; the same job enqueued without ``retry=`` runs once."""
    head = """\
import uuid

import requests
from redis import Redis
from rq import Queue, Retry

queue = Queue(connection=Redis(socket_timeout=5))
"""
    body = """
        def mint(order_id):
            key = str(uuid.uuid4())
            requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key}, timeout=5)

        def mint_once(order_id):
            key = str(uuid.uuid4())
            requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key}, timeout=5)

        def enqueue(order_id):
            queue.enqueue_call(func=mint, args=(order_id,), retry=Retry(max=3, interval=[10, 30, 60]))
            queue.enqueue_call(func=mint_once, args=(order_id,))
        """
    assert rows(default, head, body) == [(3, "RES401"), (11, "RES201"), (11, "RES204")]
    [text] = messages(default, head, body, "RES401")
    assert "minted by `uuid.uuid4()` inside the retried code: every attempt of the HTTP POST sends a new key" in text


#: the head of the module that enqueues the jobs of :func:`_jobs_project` with RQ
RQ_ENQUEUE_HEAD = ("from redis import Redis\nfrom rq import Queue, Retry\n\n"
                   "from shop.jobs import charge, charge_with, notify\n\n"
                   "queue = Queue(connection=Redis(socket_timeout=5))\n\n\n")


def _jobs_project(root: Path, enqueue: str, head: str = RQ_ENQUEUE_HEAD) -> None:
    """``shop/jobs.py`` (a job that mints a key, one that writes without one, one that is given a
    key) and ``shop/enqueue.py``: ``head`` then ``enqueue``, which enqueues them."""
    files = {
        "pyproject.toml": "[project]\nname = 'shop'\n",
        "shop/__init__.py": "",
        "shop/jobs.py": textwrap.dedent("""\
            import uuid

            import requests


            def charge(order_id):
                key = str(uuid.uuid4())
                requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key},
                              timeout=5)


            def notify(order_id):
                requests.post("https://p.invalid/mails", json={"id": order_id}, timeout=5)


            def charge_with(order_id, key):
                requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key},
                              timeout=5)
            """),
        "shop/enqueue.py": head + textwrap.dedent(enqueue),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("enqueue, expected", [
    # the job imported from another module is the retried scope: the key it mints is new on every
    # retry (RES401), its keyless POST is replayed (RES402)
    ("""\
     def later(order_id):
         queue.enqueue(charge, order_id, retry=Retry(max=3, interval=[10, 30, 60]))
         queue.enqueue(notify, order_id, retry=Retry(max=3, interval=[10, 30, 60]))
     """, [("shop/jobs.py", 7, "RES401"), ("shop/jobs.py", 13, "RES402")]),
    ("""\
     from datetime import timedelta


     def later(order_id):
         queue.enqueue_in(timedelta(seconds=30), charge, order_id, retry=Retry(max=2, interval=60))
         queue.enqueue_call(func=notify, args=(order_id,), retry=Retry(max=2, interval=60))
     """, [("shop/jobs.py", 7, "RES401"), ("shop/jobs.py", 13, "RES402")]),
    # clean: no retry, a key minted once by the caller, a job that mints none
    ("""\
     import uuid


     def later(order_id):
         queue.enqueue(charge, order_id)
         queue.enqueue(notify, order_id, retry=None)
         queue.enqueue(charge_with, order_id, str(uuid.uuid4()), retry=Retry(max=3, interval=[10, 30, 60]))
     """, []),
])
def test_an_rq_job_imported_from_another_module_is_the_retried_scope(tmp_path, enqueue, expected):
    _jobs_project(tmp_path, enqueue)
    found = [f for f in _found(tmp_path) if f[0] == "shop/jobs.py"]
    assert found == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected  # from the cache


def test_two_enqueues_of_one_job_are_two_retries_not_one_inside_the_other(tmp_path):
    """Each enqueue with ``retry=`` is its own job with its own retries: the job enqueued in its
    module and again in another is no retry layer that the other enqueue multiplies (RES301)."""
    _jobs_project(tmp_path, """\
        def later(order_id):
            queue.enqueue(notify, order_id, retry=Retry(max=3, interval=[10, 30, 60]))
        """)
    jobs = tmp_path / "shop/jobs.py"
    jobs.write_text(jobs.read_text(encoding="utf-8") + "\n\nfrom redis import Redis\nfrom rq import Queue, Retry\n\n"
                    "local = Queue(connection=Redis(socket_timeout=5))\n\n\ndef now(order_id):\n"
                    "    local.enqueue(notify, order_id, retry=Retry(max=3, interval=[10, 30, 60]))\n", encoding="utf-8")
    assert [f for f in _found(tmp_path) if f[2] == "RES301"] == []


def test_the_arguments_rq_hands_the_job_are_read_as_the_jobs(tmp_path):
    """RQ's own keywords (``job_timeout``, ``retry``...) stay with RQ and every other keyword goes
    to the job (rq/queue.py ``parse_args``); ``args=``/``kwargs=`` literals are the job's
    arguments, anything else leaves them unknown (not reported)."""
    head = """\
import requests
from redis import Redis
from rq import Queue, Retry

queue = Queue(connection=Redis(socket_timeout=5))
R = Retry(max=3, interval=[10, 30, 60])
"""
    body = """
        def go(url, key, opts):
            queue.enqueue(requests.get, url, timeout=5, retry=R)
            queue.enqueue_call(func=requests.get, args=(url,), kwargs={"timeout": 5}, retry=R)
            queue.enqueue(requests.post, url, json={}, headers={"Idempotency-Key": key}, timeout=5, retry=R)
            queue.enqueue(requests.get, url, retry=R, job_timeout=30)
            queue.enqueue_call(func=requests.post, args=(url,), kwargs={"json": {}, "timeout": 5}, retry=R)
            queue.enqueue_call(func=requests.get, args=(url,), kwargs=opts, retry=R)
        """
    linter = Linter(Settings(root=tmp_path, select=("RES101", "RES402")))
    assert rows(linter, head, body) == [(6, "RES101"), (7, "RES402")]


# -- django-rq --------------------------------------------------------------------------------------
def test_django_rq_enqueue_and_job_retry_the_job_as_rq_does(tmp_path):
    """django-rq's ``enqueue(func, ..., retry=Retry(...))``, ``get_queue(name).enqueue(...)`` and
    ``@job(queue, retry=Retry(...))`` (``import django_rq`` or ``from django_rq import job``) hand
    the retry to RQ: the job is the retried scope, its keyless POST replayed (RES402), a key minted
    in it minted again (RES401). Without ``retry=``, with a bare ``@job`` or with a key the caller
    minted once, the job's write is not replayed."""
    head = """\
import uuid

import django_rq
import requests
from django_rq import job
from rq import Retry
"""
    body = """
        def notify(order_id):
            requests.post("https://p.invalid/mails", json={"id": order_id}, timeout=5)

        def charge(order_id):
            key = str(uuid.uuid4())
            requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key},
                          timeout=5)

        def refund(order_id):
            requests.post("https://p.invalid/refunds", json={"id": order_id}, timeout=5)

        def charge_with(order_id, key):
            requests.post("https://p.invalid/charges", json={"id": order_id}, headers={"Idempotency-Key": key},
                          timeout=5)

        def mail_once(order_id):
            requests.post("https://p.invalid/mails", json={"id": order_id}, timeout=5)

        @job("default", retry=Retry(max=3, interval=[10, 30, 60]))
        def receipt(order_id):
            requests.post("https://p.invalid/receipts", json={"id": order_id}, timeout=5)

        @django_rq.job("high", retry=Retry(max=3))
        def invoice(order_id):
            requests.post("https://p.invalid/invoices", json={"id": order_id}, timeout=5)

        @job
        def bare(order_id):
            requests.post("https://p.invalid/mails", json={"id": order_id}, timeout=5)

        @django_rq.job("default")
        def plain(order_id):
            requests.post("https://p.invalid/mails", json={"id": order_id}, timeout=5)

        def later(order_id):
            django_rq.enqueue(notify, order_id, retry=Retry(max=3))
            django_rq.get_queue("default").enqueue(charge, order_id, retry=Retry(max=3, interval=60))
            queue = django_rq.get_queue("high")
            queue.enqueue_call(func=refund, args=(order_id,), retry=Retry(max=3))
            django_rq.enqueue(charge_with, order_id, str(uuid.uuid4()), retry=Retry(max=3))
            django_rq.enqueue(mail_once, order_id)
            django_rq.enqueue(plain, order_id, retry=None)
        """
    linter = Linter(Settings(root=tmp_path, select=("RES401", "RES402")))
    assert rows(linter, head, body) == [(3, "RES402"), (6, "RES401"), (11, "RES402"), (22, "RES402"),
                                        (26, "RES402")]
    [text] = messages(linter, head, body, "RES402")[:1]
    assert "inside an RQ job enqueued with `retry=`" in text


@pytest.mark.parametrize("enqueue, expected", [
    # the job imported from another module is the retried scope, as with RQ's own Queue
    ("""\
     def later(order_id):
         django_rq.enqueue(charge, order_id, retry=Retry(max=3, interval=[10, 30, 60]))
         django_rq.get_queue("default").enqueue(notify, order_id, retry=Retry(max=3))
     """, [("shop/jobs.py", 7, "RES401"), ("shop/jobs.py", 13, "RES402")]),
    # clean: no retry, a key minted once by the caller
    ("""\
     import uuid


     def later(order_id):
         django_rq.enqueue(charge, order_id)
         django_rq.get_queue("default").enqueue(notify, order_id)
         django_rq.enqueue(charge_with, order_id, str(uuid.uuid4()), retry=Retry(max=3, interval=[10, 30, 60]))
     """, []),
])
def test_a_django_rq_job_imported_from_another_module_is_the_retried_scope(tmp_path, enqueue, expected):
    _jobs_project(tmp_path, enqueue, head="import django_rq\nfrom rq import Retry\n\n"
                                          "from shop.jobs import charge, charge_with, notify\n\n\n")
    assert [f for f in _found(tmp_path) if f[0] == "shop/jobs.py"] == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected  # from the cache


# -- arq --------------------------------------------------------------------------------------------
def test_an_arq_job_that_raises_retry_is_a_retry_layer(default):
    """The job's body is the retried scope; ``defer=`` is read with ``ctx["job_try"]`` counting
    the runs; no settings class of the module lists the jobs, so their ``max_tries`` is unknown and
    no worst case is judged; a Retry raised outside a handler waits for a condition (a poll), and a
    job that raises no Retry is run once."""
    head = """\
import random
import uuid

import httpx
from arq import Retry
"""
    body = """
        async def push(ctx, order_id):
            key = str(uuid.uuid4())
            try:
                async with httpx.AsyncClient(timeout=5) as client:
                    await client.post("https://p.invalid", json={"id": order_id}, headers={"Idempotency-Key": key})
            except httpx.TransportError as exc:
                raise Retry(defer=ctx["job_try"] * 5) from exc

        async def fetch(ctx, url):
            try:
                async with httpx.AsyncClient(timeout=5) as client:
                    return (await client.get(url)).json()
            except Exception:
                raise Retry()

        async def jittered(ctx, url):
            try:
                async with httpx.AsyncClient(timeout=5) as client:
                    return (await client.get(url)).json()
            except httpx.TransportError:
                raise Retry(defer=random.uniform(0, 2 ** ctx["job_try"]))

        async def wait_ready(ctx, url):
            async with httpx.AsyncClient(timeout=5) as client:
                if (await client.get(url)).json()["state"] != "ready":
                    raise Retry(defer=10)

        async def once(ctx, url):
            async with httpx.AsyncClient(timeout=5) as client:
                await client.post(url, json={})
        """
    assert rows(default, head, body) == [(3, "RES401"), (8, "RES201"), (15, "RES204"), (15, "RES205")]
    [text] = messages(default, head, body, "RES201")
    assert "arq `Retry` waits a deterministic time" in text


def test_an_arq_retry_after_a_failed_status_is_a_retry_and_after_a_condition_a_poll(default):
    """arq's own example (``if response.status_code != 200: raise Retry(defer=ctx['job_try'] * 5)``)
    retries a failed response, in a file that imports nothing else reslint knows (the prefilter
    keeps it for ``arq.Retry``); ``if state != "ready": raise Retry(defer=10)`` waits for a condition."""
    head = "from arq import Retry\n"
    body = """
        async def download(ctx, url):
            response = await ctx["session"].get(url)
            if response.status_code != 200:
                raise Retry(defer=ctx['job_try'] * 5)
            return len(response.text)

        async def wait_ready(ctx, url):
            state = await ctx["session"].get(url)
            if state.json()["state"] != "ready":
                raise Retry(defer=10)
        """
    assert rows(default, head, body) == [(5, "RES201")]


ARQ = """\
import httpx
from arq import Retry, func
"""
#: a job that retries every 600 s, and one that writes and retries at once
ARQ_JOBS = """
    async def sync(ctx, url):
        async with httpx.AsyncClient(timeout=5) as client:
            r = await client.get(url)
            if r.status_code >= 500:
                raise Retry(defer=600)

    async def push(ctx, url):
        async with httpx.AsyncClient(timeout=5) as client:
            r = await client.post(url, json={})
            if r.status_code >= 500:
                raise Retry(defer=ctx["job_try"] * 5)
    """


@pytest.mark.parametrize("settings, tries", [
    ("functions = [func(sync, max_tries=100), PUSH]", 100),  # the function's own
    ("functions = [sync, PUSH]\n        max_tries = 100", 100),  # the worker's
    ("functions = [func(sync, max_tries=None), PUSH]\n        max_tries = 100", 100),  # None: the worker's
    ("functions = (sync, PUSH)", 5),  # arq's default
    ("functions = JOBS\n        max_tries: int = 7", 7),  # a module constant, an annotated attribute
])
def test_arq_max_tries_of_the_worker_settings_are_the_jobs_runs(default, settings, tries):
    """The settings class of the job's module gives its runs: ``func(job, max_tries=...)``, else the
    class's ``max_tries``, else 5; with ``defer=600`` the waits of 100 runs are 99 × 600 s, each run
    taking up to 20 s (a request on a client of ``timeout=5``, its four phases). ``push``
    runs 3 times (waits of 5 and 10 s): its own ``max_tries`` wins over the class's."""
    body = ARQ_JOBS + f"""
    PUSH = func(push, max_tries=3)
    JOBS = [sync, PUSH]

    class WorkerSettings:
        {settings}
    """
    assert rows(default, ARQ, body) == [(6, "RES201"), (6, "RES202"), (10, "RES402"), (12, "RES201")]
    [text] = messages(default, ARQ, body, "RES202")
    waits = (tries - 1) * 600
    # each run makes one request on a client built with timeout=5: 4 phases of 5 s
    assert f"worst case {tries} attempts × 20 s + up to {waits} s" in text
    assert text.endswith("lower `max_tries` or the delays (arq has no total-time cap)")


def test_arq_jobs_that_run_once_or_whose_tries_are_unknown(default):
    """``func(job, max_tries=1)`` and ``retry_jobs = False`` run the job once: no retry finding, and
    its write is no replay; settings that disagree, or none in the module, leave the runs unknown
    (the jitter finding stays, no worst case is judged)."""
    once = ARQ_JOBS + """
    class WorkerSettings:
        functions = [func(sync, max_tries=1), func(push, max_tries=1)]
        max_tries = 100

    class NoRetries:
        functions = [sync, push]
        retry_jobs = False
    """
    assert rows(default, ARQ, once) == []
    unknown = ARQ_JOBS + """
    class Fast:
        functions = [sync]
        max_tries = 3

    class Slow:
        functions = [sync]
        max_tries = 100
    """
    assert rows(default, ARQ, unknown) == [(6, "RES201"), (10, "RES402"), (12, "RES201")]
    assert rows(default, ARQ, ARQ_JOBS) == [(6, "RES201"), (10, "RES402"), (12, "RES201")]


#: ``shop/jobs.py`` of the arq projects below: a read retried every 600 s, a write retried at once
ARQ_JOBS_MODULE = """\
import httpx
from arq import Retry


async def sync(ctx, url):
    async with httpx.AsyncClient(timeout=5) as client:
        r = await client.get(url)
        if r.status_code >= 500:
            raise Retry(defer=600)


async def push(ctx, url):
    async with httpx.AsyncClient(timeout=5) as client:
        r = await client.post(url, json={})
        if r.status_code >= 500:
            raise Retry(defer=ctx["job_try"] * 5)
"""
#: what the jobs' runs decide in ``shop/jobs.py``: ``sync`` run 100 times waits 99 × 600 s (RES202),
#: ``push``'s write is replayed (RES402); a job run once reports nothing
ARQ_RETRIED = [("shop/jobs.py", 9, "RES201"), ("shop/jobs.py", 9, "RES202"), ("shop/jobs.py", 14, "RES402"),
               ("shop/jobs.py", 16, "RES201")]
#: both jobs run 100 times: ``push``'s waits of 5, 10 ... 495 s are too long as well
ARQ_BOTH_RETRIED = sorted(ARQ_RETRIED + [("shop/jobs.py", 16, "RES202")])
#: runs unknown: the jitter findings and the replayed write stay, no worst case is judged
ARQ_UNKNOWN = [("shop/jobs.py", 9, "RES201"), ("shop/jobs.py", 14, "RES402"), ("shop/jobs.py", 16, "RES201")]


def _arq_project(root: Path, files: dict) -> None:
    files = {"pyproject.toml": "[project]\nname = 'shop'\n", "shop/__init__.py": "", **files}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.mark.parametrize("files, expected", [
    # the settings class in the jobs' own module
    ({"shop/jobs.py": ARQ_JOBS_MODULE + textwrap.dedent("""
     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
     """)}, ARQ_BOTH_RETRIED),
    # the settings class in worker.py, which imports the jobs (and nothing else reslint reads)
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
     """}, ARQ_BOTH_RETRIED),
    # the class's max_tries a constant of a third module: known to worker.py in a second reading
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/config.py": "MAX_TRIES = 100\n", "shop/worker.py": """\
     from shop.config import MAX_TRIES
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = MAX_TRIES
     """}, ARQ_BOTH_RETRIED),
    # the settings in the package's __init__, listing its submodule's jobs
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/__init__.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
     """}, ARQ_BOTH_RETRIED),
    # the module imported, the entries func(...), a relative import, arq's settings imported
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from arq import func
     from arq.connections import RedisSettings

     from . import jobs


     class WorkerSettings:
         functions = [func(jobs.sync, max_tries=100), func(jobs.push, max_tries=3)]
         redis_settings = RedisSettings()
     """}, ARQ_RETRIED),
    # clean: retry_jobs = False in the other module runs each job once
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
         retry_jobs = False
     """}, []),
    # clean: max_tries=1 for each job, in the other module
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from arq import func

     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [func(sync, max_tries=1), func(push, max_tries=1)]
     """}, []),
    # the jobs' own module wins: its class runs them once, whatever worker.py says
    ({"shop/jobs.py": ARQ_JOBS_MODULE + textwrap.dedent("""
     class Local:
         functions = [sync, push]
         retry_jobs = False
     """), "shop/worker.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
     """}, []),
    # two settings modules that disagree, or none that lists the jobs: the runs stay unknown
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 100
     """, "shop/fast.py": """\
     from shop.jobs import push, sync


     class WorkerSettings:
         functions = [sync, push]
         max_tries = 3
     """}, ARQ_UNKNOWN),
    ({"shop/jobs.py": ARQ_JOBS_MODULE, "shop/worker.py": """\
     from shop.jobs import sync


     def run():
         return [sync]
     """}, ARQ_UNKNOWN),
])
def test_arq_settings_of_another_module_give_the_jobs_runs(tmp_path, files, expected):
    """arq's worker settings class often lives in ``worker.py``, which imports the jobs of
    ``jobs.py``: the project pass tells the jobs' module what it lists (``max_tries``,
    ``func(job, max_tries=)``, ``retry_jobs``), as the module's own class would."""
    _arq_project(tmp_path, files)
    assert [f for f in _found(tmp_path) if f[0] == "shop/jobs.py"] == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected
    assert [f for f in _found(tmp_path, use_cache=True) if f[0] == "shop/jobs.py"] == expected  # from the cache


def test_a_task_that_retries_through_a_helper_it_passes_itself_to(default):
    """``retry_later(self, exc)`` where ``retry_later(task, exc)`` raises ``task.retry(...)``: the
    task is a retry layer, its body the retried scope, its findings at the helper's call; the
    countdown is read in the helper with its own name for the task."""
    head = """\
import requests
from celery import shared_task


def retry_later(task, exc):
    raise task.retry(exc=exc, countdown=2 ** task.request.retries)


def log_failure(task, exc):
    print(task.name, exc)
"""
    body = """
        @shared_task(bind=True, max_retries=5)
        def push(self, order_id):
            try:
                requests.post("https://p.invalid/orders", json={"id": order_id}, timeout=5)
            except requests.ConnectionError as exc:
                retry_later(self, exc)

        @shared_task(bind=True, max_retries=5)
        def pull(self, order_id):
            try:
                return requests.get("https://p.invalid/orders", timeout=5).json()
            except requests.ConnectionError as exc:
                retry_later(task=self, exc=exc)

        @shared_task(bind=True)
        def once(self, order_id):
            try:
                requests.post("https://p.invalid/orders", json={"id": order_id}, timeout=5)
            except requests.ConnectionError as exc:
                log_failure(self, exc)
        """
    assert rows(default, head, body) == [(5, "RES402"), (7, "RES201"), (14, "RES201")]


def test_a_task_retried_forever_is_queued_again_forever(default):
    body = """
        @dramatiq.actor(max_retries=None, min_backoff=1000)
        def forever(x):
            return requests.get("https://e.invalid", timeout=5).json()
        """
    [text] = messages(default, DRAMATIQ, body, "RES203")
    assert "the task is queued again forever" in text and "holding the caller" not in text


def test_a_base_class_policy_is_reported_once_at_the_class_not_at_each_task(tmp_path):
    """Twenty tasks built on one base class with a catch-all and no jitter: the policy's faults are
    the class's, reported once where it spells them; the tasks' bodies are still retried (RES402
    on a keyless write), and a task that sets its own retry options is judged at its decorator."""
    base = ("import celery\n\n\nclass BaseTaskWithRetry(celery.Task):\n    autoretry_for = (Exception,)\n"
            "    retry_kwargs = {\"max_retries\": 10}\n    retry_backoff = 5\n    retry_jitter = False\n")
    tasks = "".join(f"\n\n@shared_task(base=BaseTaskWithRetry)\ndef export_{n}(order_id):\n"
                    f"    return requests.get(\"https://pay.invalid/orders\", timeout=5).json()\n" for n in range(20))
    tasks += ("\n\n@shared_task(base=BaseTaskWithRetry)\ndef capture(order_id):\n"
              "    requests.post(\"https://pay.invalid/captures\", json={\"order\": order_id}, timeout=5)\n"
              "\n\n@shared_task(base=BaseTaskWithRetry, autoretry_for=(ConnectionError,))\ndef narrowed(order_id):\n"
              "    return requests.get(\"https://pay.invalid/orders\", timeout=5).json()\n")
    _tasks(tmp_path, base=base, charges="import requests\nfrom celery import shared_task\n\n"
                                        "from .base import BaseTaskWithRetry\n" + tasks)
    found = sorted((r.path.rsplit("/", 1)[-1], f.location.row, f.code) for r in _run(tmp_path).results
                   for f in r.findings)
    capture_row = tasks.splitlines().index("def capture(order_id):") + 6  # the POST, below four import lines
    narrowed_row = tasks.splitlines().index("@shared_task(base=BaseTaskWithRetry, autoretry_for=(ConnectionError,))") + 5
    assert found == sorted([("base.py", 4, "RES201"), ("base.py", 4, "RES202"), ("base.py", 4, "RES204"),
                            ("charges.py", capture_row, "RES402"), ("charges.py", narrowed_row, "RES201"),
                            ("charges.py", narrowed_row, "RES202")])


def test_a_task_is_judged_itself_unless_its_class_spells_the_policy(linter):
    """Only a class that sets ``autoretry_for`` in its own body is where its tasks' policy is
    reported: a task built on a class that takes it from a mixin, or on a subclass that changes an
    option, is judged at its decorator; RES203 of a class that retries forever is reported once."""
    head = HEAD + "from celery import Task\n"
    body = """
        class RetryMixin:
            autoretry_for = (Exception,)
            retry_backoff = True
            retry_jitter = False

        class MixedTask(RetryMixin, Task):
            pass

        @app.task(base=MixedTask)
        def fetch(url):
            return requests.get(url, timeout=5).json()

        class RetryingTask(Task):
            autoretry_for = (ConnectionError,)
            retry_backoff = True
            max_retries = 3

        class Patient(RetryingTask):
            max_retries = 50

        @app.task(base=Patient)
        def slow(url):
            return requests.get(url, timeout=5).json()

        class Forever(Task):
            autoretry_for = (ConnectionError,)
            max_retries = None

        @app.task(base=Forever)
        def one(url):
            return requests.get(url, timeout=5).json()

        @app.task(base=Forever, bind=True)
        def two(self, url):
            return requests.get(url, timeout=5).json()
        """
    assert rows(linter, head, body) == [(10, "RES201"), (10, "RES204"), (22, "RES202"), (26, "RES201"),
                                        (26, "RES203")]


# -- a project function that stands for the task decorator ------------------------------------------
FACTORY = """\
import celery


class ShopTask(celery.Task):
    pass


def task(**kwargs):
    kwargs.setdefault("shared", False)

    def deco(wrapped):
        def callback(scanner, name, wrapped):
            celery_app = scanner.config.registry["celery.app"]
            celery_app.task(**kwargs)(wrapped)

        scanner_attach(wrapped, callback)
        return wrapped

    return deco


def scanner_attach(wrapped, callback):
    pass
"""
FACTORY_USES = """\
import requests

from shop import tasks
from shop.tasks import task


@tasks.task(bind=True, autoretry_for=(Exception,), retry_backoff=15, retry_jitter=False, max_retries=5)
def reindex(self, release):
    return requests.get("https://e.invalid", timeout=5).json()


@task(bind=True, autoretry_for=(requests.ConnectionError,), retry_backoff=True, max_retries=3)
def notify(self, user):
    return requests.post("https://e.invalid", json={"user": user}, timeout=5)


@tasks.task(bind=True, ignore_result=True)
def purge(self, key):
    try:
        requests.post("https://cdn.invalid/purge", json={"key": key}, timeout=5)
    except requests.RequestException as exc:
        raise self.retry(exc=exc)
"""


@pytest.mark.parametrize("factory, expected", [
    (FACTORY, [("shop/jobs.py", 7, "RES201"), ("shop/jobs.py", 7, "RES204"), ("shop/jobs.py", 14, "RES402"),
               ("shop/jobs.py", 20, "RES402"), ("shop/jobs.py", 22, "RES201")]),
    # the factory hands its keywords to something of its own, in a module that does not import celery
    (FACTORY.replace("import celery\n", "import registry\n").replace("celery.Task", "registry.Task"), []),
    # it sets the options itself and takes none from its caller
    (FACTORY.replace("celery_app.task(**kwargs)", "celery_app.task(shared=False)"), []),
])
def test_a_project_function_that_hands_its_keywords_to_the_task_decorator_is_that_decorator(
        tmp_path, factory, expected):
    """``def task(**kwargs)`` whose decorator registers the function with ``celery_app.task(**kwargs)``
    (the app from a registry, its type unknown there): ``@tasks.task(autoretry_for=...)`` in another
    module is celery's decorator, with those options (pypi/warehouse's layout)."""
    _shop(tmp_path, FACTORY_USES)
    (tmp_path / "shop/tasks.py").write_text(factory, encoding="utf-8")
    (tmp_path / "shop/jobs.py").write_text(FACTORY_USES, encoding="utf-8")
    assert _found(tmp_path) == expected
    assert _found(tmp_path, use_cache=True) == expected
    assert _found(tmp_path, use_cache=True) == expected  # from the cache
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path / "shop" / "jobs.py"])
    assert sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings) == expected



def test_a_module_that_imports_only_the_project_decorator_is_read_again(tmp_path):
    """``from shop.tasks import task`` then ``@task(autoretry_for=...)`` in a module importing nothing
    else a rule looks for (the text prefilter skips it): read again once the factory is known."""
    _shop(tmp_path, FACTORY_USES)
    (tmp_path / "shop/tasks.py").write_text(FACTORY, encoding="utf-8")
    (tmp_path / "shop/mail_jobs.py").write_text(
        "from shop.tasks import task\n\n\n@task(bind=True, autoretry_for=(Exception,), retry_backoff=15, "
        "retry_jitter=False)\ndef send(self, to):\n    self.mailer.send(to)\n", encoding="utf-8")
    expected = [("shop/mail_jobs.py", 4, "RES201"), ("shop/mail_jobs.py", 4, "RES204")]
    assert [row for row in _found(tmp_path) if row[0] == "shop/mail_jobs.py"] == expected
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path / "shop" / "mail_jobs.py"])
    assert sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings) == expected


ACTOR_FACTORY = """\
import functools
from typing import Any

from dramatiq import actor as _actor


def actor(actor_name=None, queue_name=None, priority=0, broker=None, **options: Any):
    def decorator(fn):
        @functools.wraps(fn)
        async def _wrapped_fn(*args, **kwargs):
            return await fn(*args, **kwargs)

        _actor(_wrapped_fn, actor_name=actor_name, queue_name=queue_name, priority=priority, broker=broker,
               **options)
        return _wrapped_fn

    return decorator
"""
ACTOR_USES = """\
import httpx

from shop.worker import actor


@actor(actor_name="charge.create", priority=1)
async def create_charge(order_id):
    async with httpx.AsyncClient(timeout=10) as client:
        await client.post("https://pay.invalid/charges", json={"order": order_id})


@actor(actor_name="stock.refresh", max_retries=3, throws=(KeyError,))
async def refresh_stock(sku):
    async with httpx.AsyncClient(timeout=10) as client:
        return (await client.get(f"https://stock.invalid/{sku}")).json()
"""


@pytest.mark.parametrize("factory, expected", [
    # polar's layout: the wrapper it hands to ``dramatiq.actor`` calls the function: a dramatiq actor
    (ACTOR_FACTORY, [("shop/jobs.py", 9, "RES402"), ("shop/jobs.py", 12, "RES204")]),
    # the factory sets a retry option itself (from a parameter of its own, or as a constant, or in
    # its **options): a use's options are not dramatiq's alone
    (ACTOR_FACTORY.replace("def actor(actor_name=None,", "def actor(retries=3, actor_name=None,")
     .replace("priority=priority, broker=broker,", "priority=priority, broker=broker, max_retries=retries,"), []),
    (ACTOR_FACTORY.replace("priority=priority, broker=broker,", "priority=priority, broker=broker, max_retries=0,"),
     []),
    (ACTOR_FACTORY.replace("    def decorator(fn):", "    options.setdefault('max_retries', 0)\n\n    def decorator(fn):"),
     []),
    # a parameter handed on as another option changes no retry
    (ACTOR_FACTORY.replace("def actor(actor_name=None,", "def actor(q=None, actor_name=None,")
     .replace("queue_name=queue_name,", "queue_name=q,"),
     [("shop/jobs.py", 9, "RES402"), ("shop/jobs.py", 12, "RES204")]),
    # the decorator function of no task queue
    (ACTOR_FACTORY.replace("from dramatiq import actor as _actor", "from registry import register as _actor"), []),
])
def test_a_project_function_that_hands_its_options_to_dramatiq_actor_is_that_decorator(tmp_path, factory, expected):
    """``def actor(..., **options)`` whose decorator registers a wrapper of the function with
    ``dramatiq.actor(wrapper, **options)``: ``@actor(...)`` in another module is a dramatiq actor
    with those options; full and single-file runs, cold and warm, agree."""
    _shop(tmp_path, "")
    (tmp_path / "shop/worker.py").write_text(factory, encoding="utf-8")
    (tmp_path / "shop/jobs.py").write_text(ACTOR_USES, encoding="utf-8")
    assert _found(tmp_path) == expected
    assert _found(tmp_path, use_cache=True) == expected
    assert _found(tmp_path, use_cache=True) == expected  # from the cache
    run = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path / "shop" / "jobs.py"])
    assert sorted((f.filename, f.location.row, f.code) for r in run.results for f in r.findings) == expected


DJANGO_SETTINGS = """\
INSTALLED_APPS = ["django_dramatiq", "shop"]
DRAMATIQ_BROKER = {
    "BROKER": "dramatiq.brokers.redis.RedisBroker",
    "MIDDLEWARE": [
        "dramatiq.middleware.AgeLimit",
        %s,
    ],
}
"""


@pytest.mark.parametrize(("entry", "expected"), [
    ('"dramatiq.middleware.Retries"', ["RES202", "RES204"]),
    ("'dramatiq.middleware.retries.Retries'", ["RES202", "RES204"]),
    ('"dramatiq.middleware.TimeLimit"', []),
    ('"my.middleware.Retries"', []),
    ('"dramatiq.middleware.Retries" + "Extra"', []),
])
def test_django_dramatiq_settings_build_the_retries_middleware_from_its_path(tmp_path, entry, expected):
    """A settings module that imports nothing of dramatiq still reaches the rules (both prefilters),
    and the path is read as ``Retries()`` with its defaults, reported at the string."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n", encoding="utf-8")
    (tmp_path / "settings.py").write_text(DJANGO_SETTINGS % entry, encoding="utf-8")
    result = Runner(load_settings(tmp_path), use_cache=False).run([tmp_path / "settings.py"])
    found = [f for r in result.results for f in r.findings]
    assert sorted(f.code for f in found) == expected
    assert all(f.location.row == 6 for f in found)
    if expected:
        catch_all = next(f for f in found if f.code == "RES204")
        assert catch_all.message.startswith("django_dramatiq's Retries middleware")
        assert "list a `Retries(...)` object in the path's place" in catch_all.message
        worst = next(f for f in found if f.code == "RES202")
        assert "21 attempts" in worst.message


def test_a_task_that_queues_itself_again_with_a_counter_retries(linter):
    """``send.apply_async(args=(url, body, attempt + 1), countdown=...)`` or ``send.delay(url, body,
    attempt + 1)`` from the task's ``except``: a retry by re-enqueueing (seen in a feature-flag
    service's webhook sender). Its body is the retried scope (the POST is replayed: RES402); each
    attempt is a run of the task, judged as a queued retry; with no delay it retries at once
    (RES205, with advice in the queue's words). A task that queues other work is no retry."""
    body = """
        @shared_task
        def send(url, body, attempt=1):
            try:
                requests.post(url, json=body, timeout=10)
            except TRANSIENT:
                if attempt < 5:
                    send.apply_async(args=(url, body, attempt + 1), countdown=2 ** attempt)

        @shared_task
        def send_now(url, body, attempt=1):
            try:
                requests.post(url, json=body, timeout=10)
            except TRANSIENT:
                if attempt < 5:
                    send_now.delay(url, body, attempt + 1)

        @shared_task
        def crawl(urls):
            for url in urls:
                try:
                    requests.get(url, timeout=5)
                except TRANSIENT:
                    crawl.delay([url])
        """
    # (by the one-minute limit of these tests, five runs of up to 20 s each outlast it: RES202)
    assert rows(linter, HEAD, body) == [(5, "RES402"), (13, "RES402"), (16, "RES202"), (16, "RES205")]
    [text] = messages(linter, HEAD, body, "RES205")
    assert text.startswith("task re-enqueue retry retries with no sleep between attempts")
    assert "queue it again with a jittered, growing delay (the queue's countdown or delay option)" in text
    writes = messages(linter, HEAD, body, "RES402")
    assert all("inside a task that queues itself again" in w for w in writes)


@pytest.mark.parametrize("again, expected", [
    ("send.apply_async(kwargs={'url': url, 'body': body, 'attempt': attempt + 1})", ["RES402", "RES205"]),
    ("send.apply_async((url, body, attempt + 1), countdown=2 ** attempt)", ["RES402"]),  # a delay: wait unknown
    ("send.apply_async(args=[url, body, attempt + 1], queue='retries')", ["RES402", "RES205"]),  # no delay option
    ("send.delay(url, body, attempt=attempt + 1)", ["RES402", "RES205"]),  # delay() passes keywords to the task
    ("send.delay(body, url, attempt + 1)", []),  # its parameters in other places: another request
    ("send.apply_async(kwargs={'url': url}, countdown=60)", []),  # no counter: queued again, not counted
])
def test_the_ways_a_task_queues_itself_again(linter, again, expected):
    body = f"""
        @shared_task
        def send(url, body, attempt=1):
            try:
                requests.post(url, json=body, timeout=10)
            except TRANSIENT:
                if attempt < 3:
                    {again}
        """
    found, errors = linter.lint_text(HEAD + textwrap.dedent(body), "m.py")
    assert errors == []
    assert [f.code for f in found if f.code != "RES202"] == expected


def test_a_task_that_queues_itself_for_the_next_page_is_no_retry(linter):
    body = """
        @shared_task
        def import_page(page=1):
            try:
                data = requests.get("https://api.invalid/items", params={"page": page}, timeout=10).json()
            except requests.HTTPError:
                import_page.delay(page + 1)
                return
            requests.post("https://internal.invalid/items", json=data, timeout=10)
        """
    assert rows(linter, HEAD, body) == []
