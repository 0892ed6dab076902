"""A small inventory sync job, written the way many real services start out.

Run `reslint demo/` on it: every blocking call below can hang the job when
a dependency stalls. `reslint --diff --unsafe-fixes demo/` shows the fixes.
"""

import smtplib
import subprocess

import psycopg2
import requests

WAREHOUSE_API = "https://warehouse.example.invalid/api"
EXPORT_TIMEOUT_S = 600


class WarehouseClient:
    def __init__(self, token):
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.session.timeout = 10  # looks like a default timeout, but requests ignores it

    def stock(self, sku):
        resp = self.session.get(f"{WAREHOUSE_API}/stock/{sku}")
        resp.raise_for_status()
        return resp.json()["level"]

    def export(self):
        return self.session.get(f"{WAREHOUSE_API}/export", timeout=EXPORT_TIMEOUT_S).content


def record_levels(levels):
    with psycopg2.connect("host=db.example.invalid dbname=inventory") as conn, conn.cursor() as cur:
        cur.executemany("UPDATE stock SET level = %s WHERE sku = %s", [(v, k) for k, v in levels.items()])


def notify(report):
    with smtplib.SMTP("mail.example.invalid", 587) as smtp:
        smtp.sendmail("sync@example.invalid", ["ops@example.invalid"], report)


def archive(path):
    subprocess.run(["rsync", "-a", path, "backup.example.invalid:/srv/archive/"], check=True)


def main(skus, token):
    client = WarehouseClient(token)
    levels = {sku: client.stock(sku) for sku in skus}
    record_levels(levels)
    notify(f"synced {len(levels)} SKUs")
    archive("/var/tmp/inventory.json")
