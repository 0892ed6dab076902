"""RES404 non-atomic-dedup on small programs: the stores, the order, the claims, the context, helpers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from reslint.catalog import canonical
from reslint.config import Settings
from reslint.engine.runner import Runner
from reslint.catalog.idempotency import (
    DEDUP_ATTRIBUTES, DEDUP_WORDS, DELIVERY_DECORATORS, DELIVERY_FUNCTION_WORDS, ORM_READS, ORM_WRITES,
)
from reslint.semantics.prefilter import CheckThenAct, Relevance
from tests.linting import project_rows

HEAD = """\
import redis
from django.core.cache import cache

from app.models import Delivery
from app.work import act

r = redis.Redis(socket_timeout=5)
"""


def codes(tmp_path: Path, body: str, head: str = HEAD):
    return project_rows(tmp_path, head, body, ("RES404",))


@pytest.mark.parametrize("body, expected", [
    # redis: exists / get / sismember guards, then the effect, then the write of the same key
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    act(eid)\n    r.set(f'seen:{eid}', 1)\n",
     [(2, "RES404")]),
    ("def on_event(eid):\n    if r.get(f'seen:{eid}') is not None:\n        return\n    act(eid)\n"
     "    r.setex(f'seen:{eid}', 60, 1)\n", [(2, "RES404")]),
    ("def on_event(eid):\n    if r.sismember('seen', eid):\n        return\n    act(eid)\n    r.sadd('seen', eid)\n",
     [(2, "RES404")]),
    # the effect awaited, in a nested block, or assigned when awaited
    ("async def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    for x in eid:\n"
     "        await act(x)\n    r.set(f'seen:{eid}', 1)\n", [(2, "RES404")]),
    # negated: act only when absent
    ("def on_event(eid):\n    if not r.exists(f'seen:{eid}'):\n        act(eid)\n        r.set(f'seen:{eid}', 1)\n",
     [(2, "RES404")]),
    # a name bound to the read and tested once
    ("def on_event(eid):\n    seen = r.exists(f'seen:{eid}')\n    if seen:\n        return\n    act(eid)\n"
     "    r.set(f'seen:{eid}', 1)\n", [(2, "RES404")]),
    # the order matters: a write before the effect is a (non-atomic, but early) claim; no write at all
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    r.set(f'seen:{eid}', 1)\n    act(eid)\n",
     []),
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    act(eid)\n", []),
    # another key, or the guard does not return
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    act(eid)\n    r.set(f'done:{eid}', 1)\n",
     []),
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        print(eid)\n    act(eid)\n    r.set(f'seen:{eid}', 1)\n",
     []),
    # only logging, or only values built, between the read and the write: no effect
    ("def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    logger.info('new %s', eid)\n"
     "    n = len(eid)\n    r.set(f'seen:{eid}', n)\n", []),
    # atomic claims as the guard
    ("def on_event(eid):\n    if not r.set(f'seen:{eid}', 1, nx=True):\n        return\n    act(eid)\n", []),
    ("def on_event(eid):\n    if not r.setnx(f'seen:{eid}', 1):\n        return\n    act(eid)\n", []),
    ("def on_event(eid):\n    if not cache.add(f'seen:{eid}', 1):\n        return\n    act(eid)\n", []),
    # a cache: the value read is used
    ("def on_event(eid):\n    seen = r.get(f'seen:{eid}')\n    if seen:\n        return seen\n    act(eid)\n"
     "    r.set(f'seen:{eid}', 1)\n", []),
    # a lock around it
    ("def on_event(eid):\n    with r.lock(eid):\n        if r.exists(f'seen:{eid}'):\n            return\n"
     "        act(eid)\n        r.set(f'seen:{eid}', 1)\n", []),
    # no dedup context: the same shape in a function that names no record, delivery or task
    ("def refresh(uid):\n    if r.exists(f'profile:{uid}'):\n        return\n    act(uid)\n    r.set(f'profile:{uid}', 1)\n",
     []),
    # a delivery context without dedup words: a task decorator
    ("@app.task\ndef refresh(uid):\n    if r.exists(f'profile:{uid}'):\n        return\n    act(uid)\n"
     "    r.set(f'profile:{uid}', 1)\n", [(3, "RES404")]),
    # the guard nested in an ``if`` (or a ``with``): the path goes on after the enclosing block (a
    # Stripe webhook view judged on a public Django app had this shape); not after a loop body
    ("def on_event(eid):\n    if eid:\n        if r.get(f'seen:{eid}'):\n            return\n    act(eid)\n"
     "    if eid:\n        r.set(f'seen:{eid}', 1)\n", [(3, "RES404")]),
    ("def on_event(eid):\n    with open('log') as f:\n        if r.get(f'seen:{eid}'):\n            return\n"
     "    act(eid)\n    r.set(f'seen:{eid}', 1)\n", [(3, "RES404")]),
    ("def on_event(eids):\n    for eid in eids:\n        if r.get(f'seen:{eid}'):\n            continue\n"
     "    act(eids)\n    r.set(f'seen:{eid}', 1)\n", []),
    # a guard in a ``try`` body goes on in its ``else:`` and ``finally:``, then after the ``try``; a
    # handler's in the ``finally:``; a handler's guard does not go on in the ``else:``
    ("def on_event(eid):\n    try:\n        if r.get(f'seen:{eid}'):\n            return\n"
     "    except ConnectionError:\n        raise\n    else:\n        act(eid)\n        r.set(f'seen:{eid}', 1)\n",
     [(3, "RES404")]),
    ("def on_event(eid):\n    try:\n        if r.get(f'seen:{eid}'):\n            return\n"
     "    finally:\n        act(eid)\n    r.set(f'seen:{eid}', 1)\n", [(3, "RES404")]),
    ("def on_event(eid):\n    try:\n        pass\n    except ConnectionError:\n        if r.get(f'seen:{eid}'):\n"
     "            return\n    else:\n        act(eid)\n        r.set(f'seen:{eid}', 1)\n", []),
    ("def on_event(eid):\n    try:\n        pass\n    except ConnectionError:\n        if r.get(f'seen:{eid}'):\n"
     "            return\n    finally:\n        act(eid)\n    r.set(f'seen:{eid}', 1)\n", [(5, "RES404")]),
    # a redis client this file does not build is not known
    ("def on_event(client, eid):\n    if client.exists(f'seen:{eid}'):\n        return\n    act(eid)\n"
     "    client.set(f'seen:{eid}', 1)\n", []),
])
def test_key_value_stores(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


@pytest.mark.parametrize("body, expected", [
    # Django rows: the write selects what the read filtered on (and more)
    ("def on_event(e):\n    if Delivery.objects.filter(event_id=e.id).exists():\n        return\n    act(e)\n"
     "    Delivery.objects.create(event_id=e.id, payload=e.body)\n", [(2, "RES404")]),
    ("def on_event(e):\n    if Delivery.objects.filter(event_id=e.id).exists():\n        return\n    act(e)\n"
     "    d = Delivery(event_id=e.id)\n    d.save()\n", [(2, "RES404")]),
    ("def on_event(e):\n    if Delivery.objects.filter(event_id=e.id).exists():\n        return\n    act(e)\n"
     "    Delivery.objects.create(other=e.id)\n", []),
    # claims and locks
    ("def on_event(e):\n    _, created = Delivery.objects.get_or_create(event_id=e.id)\n    if not created:\n"
     "        return\n    act(e)\n", []),
    ("def on_event(e):\n    if Delivery.objects.select_for_update().filter(event_id=e.id).exists():\n"
     "        return\n    act(e)\n    Delivery.objects.create(event_id=e.id)\n", []),
    # SQLAlchemy: query(...).filter_by / filter(Model.k == v), then session.add(Model(...))
    ("def on_message(s, m):\n    if s.query(Delivery).filter_by(message_id=m.id).first():\n        return\n"
     "    act(m)\n    s.add(Delivery(message_id=m.id))\n", [(2, "RES404")]),
    ("def on_message(s, m):\n    if s.query(Delivery).filter(Delivery.message_id == m.id).one_or_none():\n"
     "        return\n    act(m)\n    s.add(Delivery(message_id=m.id))\n", [(2, "RES404")]),
])
def test_rows(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


@pytest.mark.parametrize("body, expected", [
    # helpers of the module, bound to the arguments of each call
    ("def already_processed(event_id):\n    return r.exists(f'done:{event_id}')\n\n\n"
     "def mark_processed(event_id):\n    r.set(f'done:{event_id}', 1)\n\n\n"
     "def consume(msg):\n    if already_processed(msg.id):\n        return\n    act(msg)\n    mark_processed(msg.id)\n",
     [(10, "RES404")]),
    # marked with another argument: another key
    ("def already_processed(event_id):\n    return r.exists(f'done:{event_id}')\n\n\n"
     "def mark_processed(event_id):\n    r.set(f'done:{event_id}', 1)\n\n\n"
     "def consume(msg):\n    if already_processed(msg.id):\n        return\n    act(msg)\n    mark_processed(msg.key)\n",
     []),
    # a helper that does more than read is not a check helper
    ("def already_processed(event_id):\n    act(event_id)\n    return r.exists(f'done:{event_id}')\n\n\n"
     "def consume(msg):\n    if already_processed(msg.id):\n        return\n    act(msg)\n"
     "    r.set(f'done:{msg.id}', 1)\n", []),
])
def test_helpers(tmp_path, body, expected):
    assert codes(tmp_path, body) == expected


def test_the_message_says_what_how_and_what_to_do(tmp_path):
    body = "def on_event(eid):\n    if r.exists(f'seen:{eid}'):\n        return\n    act(eid)\n    r.set(f'seen:{eid}', 1)\n"
    (tmp_path / "app.py").write_text(HEAD + body, encoding="utf-8")
    run = Runner(Settings(root=tmp_path, select=("RES404",)), use_cache=False).run([tmp_path / "app.py"])
    (finding,) = [f for res in run.results for f in res.findings]
    assert finding.message == (
        "`on_event` deduplicates by check-then-act: it checks `f'seen:{eid}'` (`exists()`), calls `act()`, then "
        "records the key (`set()`): two deliveries of the same message both pass the check before either writes "
        "the record, and a crash between the effect and the write loses the record, so the effect runs again on "
        "the redelivery; claim the key first with `set(key, ..., nx=True, ex=ttl)` (or `sadd`), act only when it "
        "returns true, and delete the claim if the effect fails")


def test_a_model_of_the_project_keeps_the_file_past_the_ast_prefilter(tmp_path):
    """The model is the project's class: no import names its manager, so the prefilter keeps a file
    whose calls go through ``.objects`` when RES404 runs (and only then)."""
    text = ("from django.http import HttpResponse\nfrom app.models import Delivery\n\n\n"
            "def webhook(request):\n    if Delivery.objects.filter(event_id=request.id).exists():\n"
            "        return HttpResponse()\n    act(request)\n    Delivery.objects.create(event_id=request.id)\n")
    tree = ast.parse(text)
    rows = CheckThenAct(DEDUP_ATTRIBUTES, ORM_READS, ORM_WRITES, DEDUP_WORDS, DELIVERY_DECORATORS,
                        DELIVERY_FUNCTION_WORDS)
    assert Relevance(frozenset(), canonical, loops=False, check_then_act=rows).wanted(tree, "app.views", False)
    assert not Relevance(frozenset(), canonical, loops=False).wanted(tree, "app.views", False)
    # the shape, not the manager alone: a read with no write, a write with no guard, no dedup context
    for other in (text.replace("Delivery.objects.create(event_id=request.id)", "act(request)"),
                  text.replace("if Delivery.objects.filter(event_id=request.id).exists():",
                               "if Delivery.objects.filter(event_id=request.id):"),
                  text.replace("webhook", "view").replace("event_id", "ident").replace("Delivery", "Order")):
        assert not Relevance(frozenset(), canonical, loops=False, check_then_act=rows).wanted(
            ast.parse(other), "app.views", False)
    assert codes(tmp_path, text[text.index("\n\n\n") + 3:], head=text[:text.index("\n\n\n") + 3]) == [(2, "RES404")]


# -- the second shape: a dedup record that expires before the sender stops redelivering --------

STRIPE_HEAD = HEAD.replace("import redis\n", "from datetime import timedelta\n\nimport redis\nimport stripe\n") + \
    "DEDUP_TTL_S = 3600\n\n\ndef verify(request):\n" \
    "    return stripe.Webhook.construct_event(request.body, request.headers['Stripe-Signature'], 'whsec')\n\n\n"


@pytest.mark.parametrize("body, expected", [
    # a claim or a write with a TTL shorter than Stripe's 3 days: ex=, px= (ms), setex, a constant, a timedelta
    ("def on_event(eid):\n    if not r.set(f'processed:{eid}', 1, nx=True, ex=3600):\n        return\n    act(eid)\n",
     [(2, "RES404")]),
    ("def mark_processed(eid):\n    r.set(f'processed:{eid}', 1, px=60_000)\n", [(2, "RES404")]),
    ("def mark_processed(eid):\n    r.setex(f'processed:{eid}', DEDUP_TTL_S, 1)\n", [(2, "RES404")]),
    ("def mark_processed(eid):\n    r.setex(f'processed:{eid}', timedelta(days=2, hours=23), 1)\n", [(2, "RES404")]),
    ("def on_event(eid):\n    if not cache.add(f'seen:{eid}', 1, timeout=timedelta(hours=24)):\n        return\n"
     "    act(eid)\n", [(2, "RES404")]),
    ("def on_event(eid):\n    if not cache.add(f'seen:{eid}', 1, 600):\n        return\n    act(eid)\n", [(2, "RES404")]),
    # long enough, forever, or not known
    ("def mark_processed(eid):\n    r.setex(f'processed:{eid}', 7 * 86400, 1)\n", []),
    ("def mark_processed(eid):\n    r.set(f'processed:{eid}', 1, ex=timedelta(days=3))\n", []),
    ("def mark_processed(eid):\n    r.set(f'processed:{eid}', 1)\n", []),
    ("def mark_processed(eid):\n    cache.set(f'processed:{eid}', 1, timeout=None)\n", []),
    ("def mark_processed(eid, ttl):\n    r.set(f'processed:{eid}', 1, ex=ttl)\n", []),
    ("def mark_processed(eid, **kw):\n    r.set(f'processed:{eid}', 1, **kw)\n", []),
    # not deduplication: a cache of the same module, with a short TTL
    ("def cache_price(sku, price):\n    r.set(f'price:{sku}', price, ex=60)\n", []),
    # a read is no record
    ("def on_event(eid):\n    return r.get(f'processed:{eid}')\n", []),
])
def test_a_dedup_record_shorter_than_stripes_redelivery_window(tmp_path, body, expected):
    assert codes(tmp_path, body, STRIPE_HEAD) == expected


@pytest.mark.parametrize("head, hour, day", [
    # no provider is known to send here: the window is unknown
    (HEAD, [], []),
    # a Stripe-Signature header read from Django's META is enough: 3 days, so a day is too short too
    (HEAD + "\n\ndef sig(request):\n    return request.META['HTTP_STRIPE_SIGNATURE']\n", [(2, "RES404")],
     [(2, "RES404")]),
    # Shopify: 4 hours; an hour is too short, a day is not
    (HEAD + "\n\ndef sig(request):\n    return request.headers['X-Shopify-Hmac-SHA256']\n", [(2, "RES404")], []),
    # two providers in one module: which window applies is not known
    (HEAD + "\n\ndef sig(request):\n    return request.headers['X-Shopify-Hmac-SHA256'], "
            "request.headers['Stripe-Signature']\n", [], []),
])
def test_the_redelivery_window_comes_from_the_provider_the_module_receives(tmp_path, head, hour, day):
    body = "def on_event(eid):\n    if not r.set(f'processed:{eid}', 1, nx=True, ex=3600):\n        return\n" \
           "    act(eid)\n"
    assert codes(tmp_path, body, head) == hour
    assert codes(tmp_path, body.replace("ex=3600", "ex=86400"), head) == day


def test_the_ttl_message_names_the_key_the_lifetime_and_the_window(tmp_path):
    from reslint.engine.filepass import Linter
    from tests.linting import messages

    body = "def on_event(eid):\n    if not r.set(f'processed:{eid}', 1, nx=True, ex=DEDUP_TTL_S):\n        return\n" \
           "    act(eid)\n"
    (message,) = messages(Linter(Settings(root=tmp_path, select=("RES404",))), STRIPE_HEAD, body, "RES404")
    assert message == ("`on_event` records the dedup key `f'processed:{eid}'` for 1 hour, but Stripe redelivers a "
                       "webhook for up to 3 days: a redelivery that comes after the record expired finds no record "
                       "and runs the effect again; keep the record at least 3 days (259200 s), or record processed "
                       "events durably (a row with a unique constraint)")


# -- the same shape, the sender being the project's own retry ---------------------------------

RETRY_HEAD = HEAD + "from tenacity import retry, retry_if_result, stop_after_attempt, stop_after_delay, wait_exponential, wait_fixed\n" \
    "from app.work import notify\n\n\n"
RETRIED = "@retry(stop=stop_after_attempt(4), wait=wait_fixed(120))\ndef on_event(eid):\n" \
    "    if not r.set(f'processed:{eid}', 1, nx=True, ex=60):\n        return\n    act(eid)\n    notify(eid)\n"


@pytest.mark.parametrize("body, expected", [
    # a claim for 1 minute, then code that can fail: the next attempt comes 120 s later
    (RETRIED, [(3, "RES404")]),
    # a time cap of 100 s still lets the first 120 s wait come
    (RETRIED.replace("stop_after_attempt(4)", "stop_after_attempt(4) | stop_after_delay(100)"), [(3, "RES404")]),
    # the record outlives each wait: 4 attempts 30 s apart take 90 s, but each attempt checks the
    # record again 30 s after the last one, and finds it
    (RETRIED.replace("wait_fixed(120)", "wait_fixed(30)"), []),
    # growing waits: the longest the retry reaches decides (1, 2, 4 s with 4 attempts; 64 s with 8)
    (RETRIED.replace("wait_fixed(120)", "wait_exponential(multiplier=1)"), []),
    (RETRIED.replace("wait_fixed(120)", "wait_exponential(multiplier=1)").replace("attempt(4)", "attempt(8)"),
     [(3, "RES404")]),
    # ... unless the time cap runs out before the long waits: after 1 + 2 + ... + 32 = 63 s > 50 s the
    # 64 s wait never comes, and 32 s is less than the record's 60 s
    (RETRIED.replace("wait_fixed(120)", "wait_exponential(multiplier=1)")
     .replace("stop_after_attempt(4)", "stop_after_attempt(8) | stop_after_delay(50)"), []),
    # the record outlives the retry, or the write is the last thing an attempt does
    (RETRIED.replace("ex=60", "ex=3600"), []),
    ("@retry(stop=stop_after_attempt(4), wait=wait_fixed(120))\ndef on_event(eid):\n"
     "    if r.exists(f'done:{eid}'):\n        return\n    r.set(f'done:{eid}', 1, ex=60)\n", []),
    # no retry around it, or a poll (a pass is a new request by design)
    (RETRIED.replace("@retry(stop=stop_after_attempt(4), wait=wait_fixed(120))\n", ""), []),
    (RETRIED.replace("@retry(", "@retry(retry=retry_if_result(lambda done: not done), "), []),
    # a hand-rolled loop: the same
    ("def on_event(eid):\n    for attempt in range(4):\n        try:\n"
     "            if not r.set(f'processed:{eid}', 1, nx=True, ex=60):\n                return\n"
     "            act(eid)\n            notify(eid)\n            return\n"
     "        except ConnectionError:\n            time.sleep(random.uniform(0, 120))\n", [(4, "RES404")]),
    # the sleep after the last attempt comes before no attempt: waits of 1 and 2 s, not 4 s
    ("def on_event(eid):\n    for attempt in range(3):\n        try:\n"
     "            if not r.set(f'processed:{eid}', 1, nx=True, ex=3):\n                return\n"
     "            act(eid)\n            notify(eid)\n            return\n"
     "        except ConnectionError:\n            time.sleep(2 ** attempt)\n", []),
])
def test_a_dedup_record_shorter_than_the_retry_around_it(tmp_path, body, expected):
    head = RETRY_HEAD if "time.sleep" not in body else "import random\nimport time\n" + RETRY_HEAD
    assert codes(tmp_path, body, head) == expected


def test_the_retry_window_message(tmp_path):
    from reslint.engine.filepass import Linter
    from tests.linting import messages

    (message,) = messages(Linter(Settings(root=tmp_path, select=("RES404",))), RETRY_HEAD, RETRIED, "RES404")
    assert message == ("`on_event` records the dedup key `f'processed:{eid}'` for 1 minute inside a tenacity retry, "
                       "and code after the record can fail: the retry runs the operation again and waits up to "
                       "2 minutes before an attempt, which checks the record anew; once it has expired, the attempt "
                       "runs the effect again (and while it lasts, the attempt skips the steps that failed); claim "
                       "the key once outside the retry and release it if the operation fails, or write the record "
                       "only after the whole operation has succeeded")
