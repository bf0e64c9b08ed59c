"""Start Django for a benchmark script run as ``python bench/<script>.py`` from the project.

``production()`` uses the production settings over the test client's plain
http: no https redirect, static files collected to a scratch directory, no
per-request log line. ``development()`` uses ``DJANGO_DEBUG=1``. Both work in
the database ``shop_bench`` (on the local server unless ``MONGODB_URI`` is
set) and never load the demo catalog on their own. Any variable already set
in the environment wins.
"""

import json
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _start(environ):
    for name, value in {"DJANGO_SETTINGS_MODULE": "shop.settings", "MONGODB_NAME": "shop_bench",
                        "SHOP_LOAD_DEMO_CATALOG": "0", **environ}.items():
        os.environ.setdefault(name, value)
    import django

    django.setup()


def production():
    """Set up Django with the production settings (see the module docstring)."""
    _start({
        "DJANGO_SECRET_KEY": "benchmark-only-secret-key",
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": tempfile.mkdtemp(prefix="shop-bench-static-"),
        "DJANGO_LOG_LEVEL": "WARNING",
    })


def development():
    """Set up Django with ``DJANGO_DEBUG=1``."""
    _start({"DJANGO_DEBUG": "1"})


#: The environment of a shop that a benchmark loads from one address (127.0.0.1): the per-client
#: throttles and reservation caps (``core.throttle``, ``inventory.limits``) set out of the way,
#: since every simulated shopper shares that address; the payments on the machine's local
#: Stripe, on purpose (``shop.startup`` refuses a fake provider in production otherwise).
LOAD_FROM_ONE_ADDRESS = {
    "SHOP_RATE_SIGNUP": "1000000/m", "SHOP_RATE_PASSWORD_RESET": "1000000/m",
    "SHOP_RATE_CART_ADD": "1000000/m", "SHOP_RATE_CHECKOUT": "1000000/m",
    "CART_MAX_SKU_UNITS_PER_CLIENT": "100000000", "CART_MAX_OPEN_CARTS_PER_CLIENT": "100000000",
    "SHOP_PAYMENTS_TEST_MODE": "1",
}


def wait_healthy(url, server, timeout=120):
    """Wait until ``url`` (a ``/healthz``) answers 200, polling every half second; returns its
    JSON answer. Exits the benchmark with one line when ``server`` (a ``Popen``: gunicorn) ends
    first or ``timeout`` seconds pass (a first start on a large database migrates first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit("gunicorn exited before answering; see its log.")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:  # nosec B310 - http://127.0.0.1
                if answer.status == 200:
                    return json.loads(answer.read())
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit("gunicorn did not answer /healthz in time.")
