"""Order placement for the same service: the retries that make an outage worse.

`reslint demo/` follows the calls between functions: a retried job that calls a retried
client multiplies attempts, an idempotency key minted inside the retried code changes on
every attempt, and a POST replayed by the outer retry can ship an order twice.
`reslint graph demo/` draws the retry layers and the chains between them.
"""

import uuid

import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_random_exponential

PAYMENTS_API = "https://payments.example.invalid/v1"
TRANSIENT = (requests.ConnectionError, requests.Timeout)


@retry(retry=retry_if_exception_type(TRANSIENT), stop=stop_after_attempt(4) | stop_after_delay(30),
       wait=wait_random_exponential(multiplier=0.5, max=5), reraise=True)
def charge(order_id, cents):
    key = str(uuid.uuid4())  # a new key on every attempt: the server cannot tell a replay
    resp = requests.post(f"{PAYMENTS_API}/charges", json={"order": order_id, "amount": cents},
                         headers={"Idempotency-Key": key}, timeout=(3.05, 10))
    resp.raise_for_status()
    return resp.json()["id"]


def ship(order_id):
    resp = requests.post(f"{PAYMENTS_API}/shipments", json={"order": order_id}, timeout=(3.05, 10))
    resp.raise_for_status()


@retry(retry=retry_if_exception_type(TRANSIENT), stop=stop_after_attempt(3) | stop_after_delay(120),
       wait=wait_random_exponential(multiplier=1, max=10), reraise=True)
def place_order(order_id, cents):
    charge(order_id, cents)  # charge() retries too: up to 3 x 4 = 12 charges per order
    ship(order_id)
