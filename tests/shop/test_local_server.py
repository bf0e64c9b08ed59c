"""The local server (no ``MONGODB_URI``): shared by every process, durable, managed by a command.

These tests run real processes against a local server of their own in a
temporary ``SHOP_LOCAL_DB_DIR``: ``manage.py`` commands, a gunicorn with two
workers, and ``kill -9`` of the server.
"""

import hashlib
import http.cookiejar
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pymongo
import pytest

from core.mongo.localserver import LocalServer, answers

BASE_DIR = Path(__file__).resolve().parents[2]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


@pytest.fixture
def local_dir(tmp_path):
    """A data directory for a local server of the test's own, stopped after the test."""
    data_dir = tmp_path / "db"
    yield data_dir
    LocalServer(data_dir).stop()


def shop_environ(data_dir, **extra):
    """A development shop process's environment on the local server in ``data_dir``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "MONGODB_"))}
    environ.update(DJANGO_SETTINGS_MODULE="shop.settings", DJANGO_DEBUG="1", PYTHONPATH=str(BASE_DIR),
                   SHOP_LOCAL_DB_DIR=str(data_dir), SHOP_LOAD_DEMO_CATALOG="0",
                   # A shop of its own on the machine's one local Stripe (its database is named "shop",
                   # as every other test shop's here): it audits only its own payments.
                   PAYMENT_SHOP_ID=f"test-{hashlib.sha1(str(data_dir).encode()).hexdigest()[:12]}", **extra)
    return environ


def manage(data_dir, *args, check=True):
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR,
                            env=shop_environ(data_dir), capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def shell(data_dir, code):
    """Run ``code`` in a ``manage.py shell`` of its own; returns its stdout."""
    return manage(data_dir, "shell", "--no-imports", "-c", code).stdout


def test_processes_starting_at_once_start_one_server(local_dir):
    code = ("import sys; from core.mongo.localserver import LocalServer; "
            "print(LocalServer(sys.argv[1]).ensure_running())")
    with ThreadPoolExecutor(4) as pool:
        uris = list(pool.map(lambda _: subprocess.run(
            [sys.executable, "-c", code, str(local_dir)], cwd=BASE_DIR, capture_output=True,
            text=True, timeout=120).stdout.strip(), range(4)))
    assert len(set(uris)) == 1 and uris[0].startswith("mongodb://127.0.0.1:")
    status = LocalServer(local_dir).status()
    assert status["running"] and status["uri"] == uris[0]
    # The server runs in a session of its own: it outlives the processes that started it.
    assert answers(status["port"])


def test_dbserver_command_shows_starts_and_stops_the_server(local_dir):
    assert "not running" in manage(local_dir, "dbserver").stdout
    assert "running at mongodb://127.0.0.1:" in manage(local_dir, "dbserver", "start").stdout
    status = manage(local_dir, "dbserver", "status").stdout
    assert f"running, pid {LocalServer(local_dir).status()['pid']}" in status
    port = LocalServer(local_dir).status()["port"]
    assert "stopped (pid" in manage(local_dir, "dbserver", "stop").stdout
    assert not answers(port) and not LocalServer(local_dir).status()["running"]
    refused = manage(local_dir, "dbserver", "bogus", check=False)
    assert refused.returncode != 0 and "invalid choice" in refused.stderr


def test_dbserver_with_mongodb_uri_is_refused():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="MONGODB_URI is set"):
        call_command("dbserver")


CHECKOUT = """
from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.payments import StripeProvider
from tests.support.payments import card_token
Inventory.objects.ensure_stock(["DUR-1"], 5)
cart = Cart.objects.create_cart()
Cart.objects.add_item(cart.id, "DUR-1", 2, {"title": "Durable", "price": 1500}, 10)
order = place_order(cart.id, StripeProvider(), card_token(),
                    "Ann Buyer", "ann@example.com")
print(cart.id, order.number)
"""


def test_an_order_survives_kill_9_of_the_server_and_of_the_shop(local_dir):
    manage(local_dir, "migrate", "--verbosity", "0")
    # (the confirmation e-mail goes to the console backend: the ids are the last line)
    cart_id, number = shell(local_dir, CHECKOUT).strip().splitlines()[-1].split()
    # kill -9 the server: no clean shutdown. (The shop process that wrote has exited.)
    os.kill(LocalServer(local_dir).status()["pid"], signal.SIGKILL)
    time.sleep(0.5)
    assert not LocalServer(local_dir).status()["running"]
    # The next process starts the server again on the same files.
    report = shell(local_dir, f"""
from inventory.models import Cart, Inventory
from orders.models import Order
cart = Cart.objects.get_cart({cart_id!r})
order = Order.objects.get(number={number!r})
stock = Inventory.objects.collection.find_one({{"_id": "DUR-1"}})
print(cart.status, order.email, order.status, stock["qty"], stock["stocked"])
""")
    assert report.split() == ["complete", "ann@example.com", "paid", "3", "5"]
    assert "invariant holds" in manage(local_dir, "check_inventory").stdout


class Browser:
    """A shopper on the live shop: cookies kept, CSRF token sent with each form."""

    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path):
        with self.opener.open(self.base + path, timeout=30) as answer:
            return answer.read().decode()

    def post(self, path, fields):
        token = next(c.value for c in self.jar if c.name == "csrftoken")
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        with self.opener.open(self.base + path, data=data, timeout=30) as answer:
            return answer.read().decode()


def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_workers_and_the_operators_commands_share_one_shop(local_dir):
    """gunicorn with two workers on the local server; commands in other processes see
    and change what the shoppers did."""
    manage(local_dir, "migrate", "--verbosity", "0")
    manage(local_dir, "load_catalog", "--stock", "3")
    port = free_port()
    # Ann may hold all 3 units (the per-client share, 25 % by default, would let her hold 1:
    # tests/inventory/test_client_caps.py tests it).
    environ = shop_environ(local_dir, GUNICORN_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2",
                           DJANGO_ALLOWED_HOSTS="127.0.0.1", CART_MAX_SKU_SHARE_PER_CLIENT="100")
    server = subprocess.Popen([GUNICORN, "-c", "gunicorn.conf.py"], cwd=BASE_DIR, env=environ,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=5).close()
                break
            except OSError:
                assert server.poll() is None, "gunicorn exited"
                assert time.monotonic() < deadline, "gunicorn did not answer"
                time.sleep(0.2)
        ann, bob = Browser(base), Browser(base)
        ann.get("/p/CHK-0001/")
        # Three adds of one unit, each on a new connection (either worker): one cart.
        for _ in range(3):
            ann.post("/cart/add/", {"sku": "CHK-0001", "qty": 1})
        assert re.search(r'name="qty"[^>]*value="3"', ann.get("/cart/"))
        bob.get("/p/CHK-0001/")
        assert "is sold out" in bob.post("/cart/add/", {"sku": "CHK-0001", "qty": 1})
        # An operator in another process sees Ann's reservation and expires her cart...
        expired = manage(local_dir, "expire_carts", "--timeout", "0").stdout
        # Ann's cart and Bob's (empty: his add was refused); one reservation back.
        assert "Expired 2 cart(s); returned 1 reservation(s)" in expired
        # ...and the shop sees it: Bob can buy now, Ann's cart is gone.
        assert "is sold out" not in bob.post("/cart/add/", {"sku": "CHK-0001", "qty": 3})
        assert "expired" in ann.get("/cart/")
        manage(local_dir, "restock", "CHK-0001", "2")
        assert "invariant holds" in manage(local_dir, "check_inventory").stdout
        stock = pymongo.MongoClient(LocalServer(local_dir).status()["uri"]).shop.inventory.find_one(
            {"_id": "CHK-0001"})
        assert (stock["qty"], stock["stocked"], [e["qty"] for e in stock["carted"]]) == (2, 5, [3])
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=90)
    assert stderr.count("Booting worker") == 2
    assert " 500 " not in stderr, stderr


def test_the_first_process_on_a_new_directory_prepares_the_shop(local_dir):
    """What runserver and gunicorn's master do first: the server is not running yet,
    start-up starts it (under its own lock) and migrates; nothing waits for ever."""
    result = subprocess.run([sys.executable, "-c", "import shop.wsgi"], cwd=BASE_DIR,
                            env=shop_environ(local_dir), capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    status = LocalServer(local_dir).status()
    assert status["running"]
    tables = pymongo.MongoClient(status["uri"]).shop.list_collection_names()
    assert "django_migrations" in tables and "products" in tables


def test_the_local_server_gets_a_cache_big_enough_for_a_large_catalog(monkeypatch):
    """SecantusDB's own 1G WiredTiger cache stalled ``populatedb --products 100000``: the shop
    starts its server with ``DEFAULT_CACHE_SIZE``, or ``SHOP_LOCAL_DB_CACHE_SIZE``."""
    from core.mongo import localserver

    monkeypatch.delenv("SHOP_LOCAL_DB_CACHE_SIZE", raising=False)
    command = localserver._command("/tmp/db", 27099, durable=True)
    assert command[command.index("--cache-size") + 1] == localserver.DEFAULT_CACHE_SIZE == "4G"
    monkeypatch.setenv("SHOP_LOCAL_DB_CACHE_SIZE", "8G")
    command = localserver._command("/tmp/db", 27099, durable=True)
    assert command[command.index("--cache-size") + 1] == "8G"


@pytest.mark.parametrize("value", ["lots", "4 G", "-1G", "0"])
def test_a_cache_size_that_is_not_a_size_is_refused_in_one_line(monkeypatch, value):
    from core.mongo import localserver

    monkeypatch.setenv("SHOP_LOCAL_DB_CACHE_SIZE", value)
    with pytest.raises(localserver.LocalServerError, match="SHOP_LOCAL_DB_CACHE_SIZE must be a size"):
        localserver._command("/tmp/db", 27099, durable=True)


def test_the_local_server_keeps_no_oplog_and_still_runs_transactions():
    """SecantusDB writes an oplog entry for every document written (and, past its cap, deletes
    one) only as a replica set; the shop reads no change stream, so its server runs
    ``--standalone``: no oplog, and multi-document transactions (the invoices' numbering) as
    before (local-server difference 25)."""
    from core.mongo import localserver

    uri, process = localserver.start_throwaway()
    try:
        client = pymongo.MongoClient(uri)
        assert "setName" not in client.admin.command("hello")
        database = client.standalone_check
        database.counters.insert_one({"_id": "n", "seq": 0})
        with client.start_session() as session:
            session.with_transaction(lambda s: database.counters.update_one(
                {"_id": "n"}, {"$inc": {"seq": 1}}, session=s))
        assert database.counters.find_one({"_id": "n"})["seq"] == 1
        assert "oplog.rs" not in client.local.list_collection_names()
        client.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
