"""Settings for the test suite: the shop's settings with a fixed secret key.

Everything else comes from the environment as in production. Without
``MONGODB_URI`` the run starts a throw-away SecantusDB server (in-memory
storage, a free port, ended with the run) and sets ``MONGODB_URI`` to it, so
the whole suite runs over the wire, and the processes the tests start inherit
it. With ``MONGODB_URI`` the same tests run against that MongoDB.
"""

import os

# Neither this run nor the processes it starts read or write the checkout's .env (core/dotenv.py).
os.environ["SHOP_DOTENV"] = ""
os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key-0123456789abcdefghijklmnopqrstuvwxyz")
# One throw-away server per test process of the run: pytest's own (the only one with -n 0) and
# each pytest-xdist worker (a child of pytest's process), which would otherwise inherit the run's.
# The local server is one Python process, its commands sharing one core, so a server shared by two
# workers made them queue behind each other on one core. Processes a test starts (manage.py,
# gunicorn) are not children of pytest's process: they inherit their worker's server.
_worker_of_this_run = (os.environ.get("PYTEST_XDIST_WORKER")
                       and os.environ.get("SHOP_TEST_RUN_PID") == str(os.getppid()))
if not os.environ.get("MONGODB_URI") or (_worker_of_this_run and os.environ.get("SHOP_TEST_RUN_SERVER")
                                         and os.environ["MONGODB_URI"] == os.environ["SHOP_TEST_RUN_SERVER"]):
    from core.mongo.localserver import start_throwaway

    os.environ["MONGODB_URI"], _THROWAWAY_SERVER = start_throwaway()
    if not _worker_of_this_run:
        os.environ["SHOP_TEST_RUN_PID"] = str(os.getpid())
        os.environ["SHOP_TEST_RUN_SERVER"] = os.environ["MONGODB_URI"]

from shop.settings import *  # noqa: E402,F403

SHOP_LOAD_DEMO_CATALOG = False
# Fast password hashing: tests create users.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The test client speaks plain http: no redirect to https, no Secure-only
# cookies (browser tests run against an http live server). The production
# values are tested through `check --deploy` (tests/shop/test_serving.py).
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = False
# Pages render without `collectstatic`: plain static names instead of the
# manifest, and WhiteNoise serves the source files (no STATIC_ROOT to warn about).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
# django-axes needs the request in authenticate(), which the test client's
# login() does not pass: off in tests, on in tests/shop/test_security.py.
AXES_ENABLED = False
# Every test client comes from 127.0.0.1: the POST rate limits are high here (a test
# adds to carts and checks out from many threads); tests/shop/test_throttle.py sets low ones.
SHOP_RATE_LIMITS = {action: "10000/m" for action in SHOP_RATE_LIMITS}  # noqa: F405
# Likewise the per-client caps of carts (tests/inventory/test_client_caps.py sets low ones).
CART_MAX_SKU_UNITS_PER_CLIENT = CART_MAX_OPEN_CARTS_PER_CLIENT = 100_000
CART_MAX_SKU_SHARE_PER_CLIENT = 100  # every unit (tests/inventory/test_client_caps.py sets its own)
# ...which is what inventory.W001 warns of (tests/inventory/test_client_caps.py checks it).
SILENCED_SYSTEM_CHECKS = [*SILENCED_SYSTEM_CHECKS, "inventory.W001"]  # noqa: F405

# Uploaded covers go to a throw-away folder, served by Django itself.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

MEDIA_ROOT = tempfile.mkdtemp(prefix="shop-test-media-")
atexit.register(shutil.rmtree, MEDIA_ROOT, True)
SHOP_SERVE_MEDIA = True

# Payments: the machine's local Stripe (localstripe, orders/stripelocal.py), started once and
# shared with every worker. The test shop is a staging shop for the start-up check (shop/startup.py):
# the processes the tests start inherit that; the test of the production refusal removes it.
os.environ["SHOP_PAYMENTS_TEST_MODE"] = "1"
SHOP_PAYMENTS_TEST_MODE = True
from orders.stripelocal import LocalStripe  # noqa: E402

LocalStripe().ensure_running()
# No reconciliation thread in the test process: tests run reconcile_payments themselves.
PAYMENT_RECONCILE_INTERVAL = 0
# Stock is read on every page here, as many tests write it behind the managers' back (raw
# writes, other processes); tests/inventory/test_stock_shown.py keeps it as production does.
STOCK_SHOWN_SECONDS = 0
