"""Settings of the shop, read from the environment (django-environ).

MONGODB_URI           a MongoDB server (unset: the shop's local SecantusDB server)
SHOP_LOCAL_DB_DIR     where the local server keeps its data (default var/db/)
SHOP_LOCAL_DB_CACHE_SIZE  the local server's WiredTiger cache, a ceiling (default 4G)
MONGODB_NAME          database name (default "shop")
MONGODB_READ_PREFERENCE  read preference of the catalog's read-only queries
                      (primary, primaryPreferred, secondary, secondaryPreferred,
                      nearest; default primary)
DJANGO_SECRET_KEY     required when DJANGO_DEBUG is off
DJANGO_DEBUG          "1"/"true" for development (default off)
DJANGO_ALLOWED_HOSTS  comma-separated host names (default localhost,127.0.0.1,[::1])
SHOP_ADMIN_USERNAME / SHOP_ADMIN_PASSWORD   a staff superuser made at start on
                      the local server (in DEBUG without them: admin / admin)
DJANGO_LOG_LEVEL      level of the shop's log (default INFO)
SHOP_PROXY_COUNT      reverse proxies in front of gunicorn appending to X-Forwarded-For
                      (default 1, 0 with DJANGO_DEBUG): the login rate limit's client address
SHOP_SESSION_ENDED_GRACE  seconds an ended session stays marked as ended (default 60;
                      docs/sessions.md)
CACHE_URL             the storefront's catalog cache (default: each process's memory)
CATALOG_CACHE_SECONDS lifetime of a cached catalog read (default 3600)
DJANGO_SECURE_*, DJANGO_CSRF_TRUSTED_ORIGINS  HTTPS settings: see "Production
                      serving and security" below
"""

from datetime import timedelta
from pathlib import Path

import environ

from core.dotenv import development_key, dotenv_path

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# The checkout's own settings (`.env`, written by the first start in DEBUG: a
# secret key, so that later commands work in a new shell); the environment wins.
DOTENV = dotenv_path()
if DOTENV is not None and DOTENV.exists():
    environ.Env.read_env(DOTENV)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            "Set DJANGO_SECRET_KEY (or DJANGO_DEBUG=1 for development, which writes one to .env).")
    SECRET_KEY = development_key(DOTENV)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "shop.apps.MongoAdminConfig",
    "shop.apps.MongoAuthConfig",
    "shop.apps.MongoContentTypesConfig",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: the shop's runserver (shop/management/commands/) overrides its.
    "core.apps.CoreConfig",
    "shop.apps.ShopConfig",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "imagekit",
    "catalog.apps.CatalogConfig",
    "inventory.apps.InventoryConfig",
    "orders.apps.OrdersConfig",
    "accounts.apps.AccountsConfig",
    "shop.apps.MongoAxesConfig",
    "django_ratelimit",
    "analytics.apps.AnalyticsConfig",
    "ninja",  # django-ninja: its Swagger UI files, served from the shop (static/ninja/)
    "api.apps.ApiConfig",
    "taxes.apps.TaxesConfig",
    "promotions.apps.PromotionsConfig",  # discount codes (issue 43)
    "shipping.apps.ShippingConfig",  # zones and shipping methods (issue 44)
    "content.apps.ContentConfig",  # the home page's blocks, content pages, the footer menu (issue 42)
]

MIDDLEWARE = [
    "core.middleware.RequestLogMiddleware",
    # Time spent waiting on Stripe, sent as Server-Timing when SHOP_SERVER_TIMING is on (core/timing.py).
    "core.timing.ServerTimingMiddleware",
    # A view that cannot reach the database answers 503 with Retry-After (core.unavailable).
    "core.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    # Django's, plus: a POST with a session that ended meanwhile in another tab is refused
    # (nothing changed), and a key the request brought is never sent back (core/sessions.py).
    "core.sessions.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Reads the catalog's version at most once per request (catalog/storefront/middleware.py, catalog/store/cache.py).
    "catalog.storefront.middleware.CatalogVersionMiddleware",
    # Reads the footer menu's version with the catalog's (content/middleware.py).
    "content.middleware.ContentVersionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: refuses logins after too many failures.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "shop.urls"
WSGI_APPLICATION = "shop.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "catalog.storefront.context_processors.navigation",
                "content.context_processors.footer",
                "taxes.context_processors.tax_display",
            ],
        },
    },
]

MONGODB_URI = env.str("MONGODB_URI", default="")
MONGODB_NAME = env.str("MONGODB_NAME", default="shop")
DATABASES = {
    "default": {
        "ENGINE": "core.mongo",
        "HOST": MONGODB_URI,
        "NAME": MONGODB_NAME,
        # A server that does not answer fails fast instead of hanging a page.
        "OPTIONS": {"serverSelectionTimeoutMS": 5000},
    }
}
# Without MONGODB_URI: the local SecantusDB server's data, logs and pid file
# (core/mongo/localserver.py); `manage.py dbserver status|stop` manages it.
SHOP_LOCAL_DB_DIR = Path(env.str("SHOP_LOCAL_DB_DIR", default=str(BASE_DIR / "var" / "db")))
DEFAULT_AUTO_FIELD = "django_mongodb_backend.fields.ObjectIdAutoField"
MIGRATION_MODULES = {
    "admin": "shop.mongo_migrations.admin",
    "auth": "shop.mongo_migrations.auth",
    "contenttypes": "shop.mongo_migrations.contenttypes",
    "axes": "shop.mongo_migrations.axes",
}

# Sessions live on the server: Django's database store, in MongoDB's
# django_session collection, so that sign-out ends a session everywhere (a copied cookie
# opens nothing) and a late answer of another tab cannot bring an ended guest session
# back (core/sessions.py). A request with a session cookie costs one read by key.
# `manage.py purge_carts` (cron, daily, with the finished carts; or `clearsessions`) deletes the expired ones.
SESSION_ENGINE = "core.sessions"
# An ended session (sign-out, or the old key at sign-in) stays marked as ended this many
# seconds, so that requests sent before it ended are answered as a guest's and set no cookie.
SESSION_ENDED_GRACE = env.int("SHOP_SESSION_ENDED_GRACE", default=60)
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# The demo catalog the shop ships (Chinook, MIT licence: data/chinook/LICENSE.md).
CHINOOK_DATABASE = BASE_DIR / "data" / "chinook" / "Chinook_Sqlite.sqlite"
# On the local server, load the demo catalog (and the Chinook sales) at start
# into an empty database, once (shop/startup.py).
SHOP_LOAD_DEMO_CATALOG = env.bool("SHOP_LOAD_DEMO_CATALOG", default=True)
SHOP_ADMIN_USERNAME = env.str("SHOP_ADMIN_USERNAME", default="")
SHOP_ADMIN_PASSWORD = env.str("SHOP_ADMIN_PASSWORD", default="")

# Products shown on a category page (and a page of /api/v1/categories/<slug>/products).
CATALOG_PAGE_SIZE = 24
# The product types (ProductType names) of the seeds' storefront queries whose index leads
# with ``type``: a genre page without ``?type=`` ("Find albums by genre"), an actor's page
# ("Find movies based on starring actor").
CATALOG_GENRE_TYPE = "Audio Album"
CATALOG_ACTOR_TYPE = "Film"
# The storefront's cache of catalog reads (catalog/store/cache.py, docs/performance.md):
# one URL (django-environ's cache_url). Default: each process's own memory, which the
# catalog's version keeps right across processes; CACHE_URL=pymemcache://host:11211 or
# redis://host:6379/0 shares one cache between every worker.
CACHES = {"default": env.cache_url("CACHE_URL", default="locmemcache://shop-catalog")}
if CACHES["default"]["BACKEND"].endswith("LocMemCache"):
    CACHES["default"].setdefault("OPTIONS", {}).setdefault("MAX_ENTRIES", 20_000)
CATALOG_CACHE = "default"
# How long a cached catalog read lives, in seconds (a catalog write makes it unreachable
# at once: this only bounds how long entries of old versions take space).
CATALOG_CACHE_SECONDS = env.int("CATALOG_CACHE_SECONDS", default=3600)
# A catalog write changing more scopes than this bumps the epoch alone (catalog/store/versions.py).
CATALOG_VERSIONS_BUMP_LIMIT = env.int("CATALOG_VERSIONS_BUMP_LIMIT", default=1000)
# The currency of every price, which the catalog keeps in integer cents, and of every
# PaymentIntent (Stripe takes it lower case: orders/payments.py).
SHOP_CURRENCY = "USD"
# The JSON API (/api/v1/): how long a client or proxy may reuse an answer, in seconds.
API_CACHE_SECONDS = env.int("API_CACHE_SECONDS", default=60)

# Catalog search and read scaling: the read preference of the
# catalog's read-only queries ("Product Catalog" use case "Scaling read performance").
MONGODB_READ_PREFERENCE = env.str("MONGODB_READ_PREFERENCE", default="primary")

# Inventory, carts and checkout (inventory app).
INVENTORY_DEFAULT_STOCK = env.int("INVENTORY_DEFAULT_STOCK", default=20)  # load_catalog --stock
CART_TIMEOUT = env.int("CART_TIMEOUT", default=30 * 60)  # seconds idle before expire_carts
# Seconds from a cart's creation after which it expires however often it is touched
# (expire_carts; an add, the cart page and checkout treat it as expired).
CART_MAX_AGE = env.int("CART_MAX_AGE", default=24 * 60 * 60)
INVENTORY_CLEANUP_TIMEOUT = env.int("INVENTORY_CLEANUP_TIMEOUT", default=60 * 60)  # seconds
# Seconds a finished cart (complete, expired, merged) is kept before purge_carts deletes it
# (its order keeps what it held); purge_carts clears the expired sessions in the same run.
CART_RETENTION = env.int("CART_RETENTION", default=30 * 24 * 60 * 60)
CART_MAX_LINE_QTY = 10  # units of one SKU per cart line
# Per client (inventory/limits.py: an address, an IPv6 /SHOP_IPV6_PREFIX network), counted
# for CART_TIMEOUT after its last add: units of one SKU in all its carts, at most
# CART_MAX_SKU_SHARE_PER_CLIENT percent of the SKU's stock (at least 1) and never more
# than CART_MAX_SKU_UNITS_PER_CLIENT; and carts it opened (a script without cookies gets a
# new cart on every request).
CART_MAX_SKU_UNITS_PER_CLIENT = env.int("CART_MAX_SKU_UNITS_PER_CLIENT", default=10)
CART_MAX_SKU_SHARE_PER_CLIENT = env.int("CART_MAX_SKU_SHARE_PER_CLIENT", default=25)
# Clients on IPv6 are counted by network: every home router hands out a /64, so one
# address is one client only among 2^64 of them (core/clientip.py, client_key).
SHOP_IPV6_PREFIX = env.int("SHOP_IPV6_PREFIX", default=64)
CART_MAX_OPEN_CARTS_PER_CLIENT = env.int("CART_MAX_OPEN_CARTS_PER_CLIENT", default=20)
# Below this many units available a product shows "Only N left".
STOCK_LOW_THRESHOLD = env.int("SHOP_STOCK_LOW_THRESHOLD", default=5)
# Seconds a page may show a SKU's stock as read a moment ago (inventory/shown.py): every stock
# write forgets it in its own process (all processes with a shared CACHE_URL); 0 reads it each time.
STOCK_SHOWN_SECONDS = env.int("SHOP_STOCK_SHOWN_SECONDS", default=2)
# Payments (docs/payments.md): Stripe through the official library. Without
# STRIPE_SECRET_KEY the shop runs the local fake Stripe (localstripe, its own
# process: orders/stripelocal.py); with DJANGO_DEBUG off that refuses to start
# (shop/startup.py) unless SHOP_PAYMENTS_TEST_MODE=1 (staging).
PAYMENT_PROVIDER = env.str("PAYMENT_PROVIDER", default="orders.payments.StripeProvider")
STRIPE_SECRET_KEY = env.str("STRIPE_SECRET_KEY", default="")
STRIPE_PUBLISHABLE_KEY = env.str("STRIPE_PUBLISHABLE_KEY", default="")
STRIPE_WEBHOOK_SECRET = env.str("STRIPE_WEBHOOK_SECRET", default="")
STRIPE_API_BASE = env.str("STRIPE_API_BASE", default="https://api.stripe.com")
SHOP_PAYMENTS_TEST_MODE = env.bool("SHOP_PAYMENTS_TEST_MODE", default=False)
# Send the time a request waited on Stripe in a Server-Timing header (core/timing.py): for
# benchmarks (bench/soak.py); off by default, as timings tell outsiders about the server.
SHOP_SERVER_TIMING = env.bool("SHOP_SERVER_TIMING", default=False)
# The shop's name in every PaymentIntent's metadata (default: the database's name), so that
# shops sharing one Stripe account never settle or audit each other's payments.
PAYMENT_SHOP_ID = env.str("PAYMENT_SHOP_ID", default="")
# Seconds a shopper has to finish 3-D Secure in the page before recovery cancels the intent.
PAYMENT_ACTION_TIMEOUT = env.int("PAYMENT_ACTION_TIMEOUT", default=15 * 60)
# Seconds after which a payment attempt still unfinished is taken over by
# reconcile_payments (longer than any provider call), and how often the
# serving processes run that reconciliation by themselves (0: never; cron then).
PAYMENT_RECOVERY_AFTER = env.int("PAYMENT_RECOVERY_AFTER", default=60)
PAYMENT_RECONCILE_INTERVAL = env.int("PAYMENT_RECONCILE_INTERVAL", default=60)

# Orders (orders app): tax in whole percent, added to every total (lines + shipping).
SHOP_TAX_PERCENT = env.int("SHOP_TAX_PERCENT", default=20)
# Prices as staff enter them: True, tax included (EU/UK style: the price shown is what is
# paid, the tax the part inside it); False, before tax (US style: tax added at checkout).
SHOP_PRICES_INCLUDE_TAX = env.bool("SHOP_PRICES_INCLUDE_TAX", default=False)
# The shop's own country (ISO 3166-1 alpha-2): an EU business buyer in another member
# state with a valid VAT number pays no VAT (reverse charge, taxes/vat.py).
SHOP_COUNTRY = env.str("SHOP_COUNTRY", default="GB")
# Shipping by the order's weight: [(up to grams, cents), ...] ascending; the last band's
# limit is None (any weight). Read by shipping methods priced "by SHIPPING_BANDS" (the seeded
# "Rest of world" zone's Standard method); other methods keep their own bands (shipping app).
SHIPPING_BANDS = [(250, 399), (1000, 699), (3000, 999), (None, 1999)]
SHOP_NAME = "Chinook Records"
# The shop's address as shoppers reach it, for links in e-mails.
SHOP_SITE_URL = env.str("SHOP_SITE_URL", default="http://127.0.0.1:8000")

# E-mail through Django's mail API, configured by one URL (django-environ's email_url):
# consolemail:// (default: printed on stderr), smtp+tls://user:password@host:587 in production.
EMAIL_URL = env.str("EMAIL_URL", default="consolemail://")
vars().update(env.email_url_config(EMAIL_URL))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Chinook Records <shop@localhost>")

# Shopper accounts (accounts app): Django's auth views under /account/.
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:account"
LOGOUT_REDIRECT_URL = "catalog:home"

# Analytics: the tax rate of the "totals with tax" report, in whole percent.
ANALYTICS_TAX_PERCENT = env.int("ANALYTICS_TAX_PERCENT", default=SHOP_TAX_PERCENT)
# The staff dashboard's figures are never older than this many seconds: opening
# it runs the incremental rollup first when they are (rollup_stats's --lag default, the source's 60).
ANALYTICS_ROLLUP_LAG = env.int("ANALYTICS_ROLLUP_LAG", default=60)

# ---------------------------------------------------------------------------
# Production serving and security (docs/production.md).
# Every HTTPS setting is on by default when DJANGO_DEBUG is off and can be
# switched through the environment (e.g. DJANGO_SECURE_SSL_REDIRECT=0 behind a
# proxy that redirects itself, or for a load test over loopback http).
# ---------------------------------------------------------------------------
_PRODUCTION = not DEBUG
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=_PRODUCTION)
# Load balancers ask for /healthz over plain http.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=_PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000 if _PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=_PRODUCTION)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=_PRODUCTION)
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (gunicorn already
# trusts it from 127.0.0.1, see gunicorn.conf.py).
if env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
SECURE_CONTENT_TYPE_NOSNIFF = True  # X-Content-Type-Options: nosniff
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): only the shop's own assets. The
# JSON-LD breadcrumbs (<script type="application/ld+json">) are data blocks,
# never executed, so script-src does not apply to them.
from csp.constants import NONE, SELF  # noqa: E402

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# The checkout page loads Stripe.js: it (and only it) adds Stripe's origins to its
# policy (orders/views.py, csp_update): script-src and frame-src js.stripe.com,
# frame-src hooks.stripe.com (3-D Secure), connect-src api.stripe.com, as Stripe's
# security guide lists them; with the local fake, its one origin for script and connect.
STRIPE_CSP_PRODUCTION = {
    "script-src": ["https://js.stripe.com", "https://*.js.stripe.com"],
    "frame-src": ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"],
    "connect-src": ["https://api.stripe.com"],
}

# Development: django-debug-toolbar with the MongoDB commands of each request
# (django-mongodb-extensions' MQL panel fed by pymongo's command monitoring,
# core/mqlpanel.py), for requests from this machine. Only with DJANGO_DEBUG on
# (never in production settings nor in the tests); SHOP_DEBUG_TOOLBAR=0 turns it off.
import importlib.util  # noqa: E402

SHOP_DEBUG_TOOLBAR = (DEBUG and env.bool("SHOP_DEBUG_TOOLBAR", default=True)
                      and importlib.util.find_spec("debug_toolbar") is not None)
if SHOP_DEBUG_TOOLBAR:
    INSTALLED_APPS += ["debug_toolbar", "django_mongodb_extensions"]
    MIDDLEWARE.insert(1, "debug_toolbar.middleware.DebugToolbarMiddleware")
    INTERNAL_IPS = ["127.0.0.1", "::1"]
    # Shut on a first visit (a handle at the side): open, it covers "Sign in" and the cart.
    DEBUG_TOOLBAR_CONFIG = {"SHOW_COLLAPSED": True}
    DEBUG_TOOLBAR_PANELS = [
        "debug_toolbar.panels.history.HistoryPanel",
        "debug_toolbar.panels.versions.VersionsPanel",
        "debug_toolbar.panels.timer.TimerPanel",
        "debug_toolbar.panels.settings.SettingsPanel",
        "debug_toolbar.panels.headers.HeadersPanel",
        "debug_toolbar.panels.request.RequestPanel",
        "core.mqlpanel.MongoCommandsPanel",  # instead of the SQL panel
        "debug_toolbar.panels.staticfiles.StaticFilesPanel",
        "debug_toolbar.panels.templates.TemplatesPanel",
        "debug_toolbar.panels.cache.CachePanel",
        "debug_toolbar.panels.signals.SignalsPanel",
        "debug_toolbar.panels.redirects.RedirectsPanel",
        "debug_toolbar.panels.profiling.ProfilingPanel",
    ]

# Static files: WhiteNoise serves what `collectstatic` wrote to STATIC_ROOT,
# compressed (gzip, and brotli when installed) under cache-busting hashed names.
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(STATIC_ROOT)))
STORAGES = {
    # Uploaded files (product images): DJANGO_MEDIA_STORAGE names another backend,
    # e.g. django-storages' "storages.backends.s3.S3Storage" (configured by its own settings).
    "default": {"BACKEND": env.str("DJANGO_MEDIA_STORAGE",
                                   default="django.core.files.storage.FileSystemStorage"),
                # That backend's options, a JSON object, e.g. {"bucket_name": "shop-media"}.
                "OPTIONS": env.json("DJANGO_MEDIA_STORAGE_OPTIONS", default={})},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Source maps are fetched only by a browser's developer tools: served as they are, not
# compressed (Swagger UI's took 13 s of `collectstatic`'s CPU, about half of it).
from whitenoise.compress import Compressor  # noqa: E402

WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]

# Uploaded files (product images and the sizes django-imagekit makes of them)
# go through Django's storage API: STORAGES["default"] above, a
# FileSystemStorage under MEDIA_ROOT unless production points it at shared
# storage (e.g. django-storages' S3 backend), so that every worker and host
# serves the same files. SHOP_SERVE_MEDIA makes Django itself serve
# MEDIA_URL (development and tests; production lets the web server or the
# storage's own URLs do it).
MEDIA_ROOT = Path(env.str("DJANGO_MEDIA_ROOT", default=str(BASE_DIR / "media")))
MEDIA_URL = env.str("DJANGO_MEDIA_URL", default="/media/")
SHOP_SERVE_MEDIA = env.bool("SHOP_SERVE_MEDIA", default=DEBUG)
if MEDIA_URL.startswith(("https://", "http://")):  # media on another host (a CDN, a bucket)
    _media_origin = "/".join(MEDIA_URL.split("/")[:3])
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["img-src"].append(_media_origin)
# Product image uploads: at most this many bytes, sides between these pixel counts (and
# never more pixels than Pillow's decompression-bomb limit, PIL.Image.MAX_IMAGE_PIXELS).
COVER_MAX_BYTES = 5 * 1024 * 1024
COVER_MIN_PIXELS = 200
COVER_MAX_PIXELS = 6000

# Login rate limit (django-axes, its records in MongoDB): three lock-outs, each with its
# own limit of failures within the cool-off (core/loginlimits.py): one username from one
# address (5), one username from any address (20: a password sprayed from many addresses),
# one address with any username (30: one address trying many usernames). A lock-out lasts
# an hour and answers the shop's 429 page with Retry-After.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("SHOP_LOGIN_FAILURE_LIMIT", default=5)
SHOP_LOGIN_FAILURE_LIMITS = {
    "username+ip_address": AXES_FAILURE_LIMIT,
    "username": env.int("SHOP_LOGIN_FAILURE_LIMIT_PER_USERNAME", default=20),
    "ip_address": env.int("SHOP_LOGIN_FAILURE_LIMIT_PER_ADDRESS", default=30),
}
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "username", "ip_address"]
AXES_HANDLER = "core.loginlimits.PerParameterLimitsHandler"
AXES_RESET_ON_SUCCESS = True
# No "AXES: BEGIN ..." line at every start: a command's output holds its result only.
AXES_VERBOSE = False
AXES_LOCKOUT_CALLABLE = "core.loginlimits.lockout_response"

# Rate limits of shoppers' POSTs (django-ratelimit, core/throttle.py): "count/period"
# (s, m, h, d), each counted per client address and, separately, per session; over a
# limit the POST answers 429 with Retry-After and changes nothing. Counts live in the
# "default" cache: with the default per-process memory cache every worker counts on its
# own; CACHE_URL=pymemcache://... or redis://... makes one count for all.
SHOP_RATE_LIMITS = {
    "signup": env.str("SHOP_RATE_SIGNUP", default="10/h"),
    "password_reset": env.str("SHOP_RATE_PASSWORD_RESET", default="5/h"),
    "cart_add": env.str("SHOP_RATE_CART_ADD", default="60/m"),
    "checkout": env.str("SHOP_RATE_CHECKOUT", default="10/m"),
    "discount_code": env.str("SHOP_RATE_DISCOUNT_CODE", default="10/m"),  # stops code guessing
}
# The rate limits' counts (django-ratelimit, core/throttle.py) live in a cache of their own, a
# MongoDB collection every worker shares with atomic counts (core/mongo/countcache.py):
# nothing the catalog caches can evict them, and all workers count together.
CACHES["ratelimit"] = {"BACKEND": "core.mongo.countcache.MongoCountCache", "LOCATION": "rate_limits"}
RATELIMIT_USE_CACHE = "ratelimit"
# W001 only says django-ratelimit does not know this backend; it is shared and atomic.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"]
# The client's address behind the reverse proxy: SHOP_PROXY_COUNT is the
# number of reverse proxies in front of gunicorn that each append the address they
# received the request from to X-Forwarded-For (the documented set-up: one, on the same
# host; 0 in DEBUG, where runserver faces the browser). django-axes takes the
# SHOP_PROXY_COUNT-th address from the right of that header (core/clientip.py), so a
# lock-out locks one client, not everyone behind the proxy. Without a proxy, set it to 0:
# a client talking to gunicorn directly could otherwise name any address.
SHOP_PROXY_COUNT = env.int("SHOP_PROXY_COUNT", default=0 if DEBUG else 1)
AXES_CLIENT_IP_CALLABLE = "core.clientip.client_ip"

# While the database cannot be reached, pages answer 503 with this Retry-After, in seconds
# (core.unavailable); on the local server the shop starts it again by itself (core.mongo.revive).
SHOP_UNAVAILABLE_RETRY_AFTER = env.int("SHOP_UNAVAILABLE_RETRY_AFTER", default=5)

# /healthz: how long a ping of MongoDB may take, in seconds, before it answers 503.
SHOP_HEALTHZ_TIMEOUT = env.float("SHOP_HEALTHZ_TIMEOUT", default=2.0)

# Logging: one line per request (shop.requests, from core.middleware), errors
# with their stack traces (django.request), what commands change (shop.commands),
# at DJANGO_LOG_LEVEL, to stderr and, with SHOP_LOG_FILE, to that file too. A
# command's change is printed on its stdout, so stderr leaves it out
# (core.commandlog.NotPrinted): a terminal or a cron mail says it once.
SHOP_LOG_FILE = env.str("SHOP_LOG_FILE", default="")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"},
    },
    "filters": {"not_printed": {"()": "core.commandlog.NotPrinted"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "line", "filters": ["not_printed"]},
        **({"file": {"class": "logging.handlers.WatchedFileHandler", "filename": SHOP_LOG_FILE,
                     "formatter": "line"}} if SHOP_LOG_FILE else {}),
    },
    "root": {"handlers": ["console", *(["file"] if SHOP_LOG_FILE else [])],
             "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
    # The stripe library logs every request at INFO: its errors reach the shop as exceptions.
    "loggers": {"stripe": {"level": "WARNING"}},
}


# Carriers staff ship with (orders.models.Shipment): key -> name shown to shoppers and the
# tracking page, "{tracking}" standing for the tracking number ("" when the carrier has none).
SHOP_CARRIERS = {
    "usps": {"name": "USPS", "tracking_url": "https://tools.usps.com/go/TrackConfirmAction?tLabels={tracking}"},
    "ups": {"name": "UPS", "tracking_url": "https://www.ups.com/track?tracknum={tracking}"},
    "fedex": {"name": "FedEx", "tracking_url": "https://www.fedex.com/fedextrack/?trknbr={tracking}"},
    "dhl": {"name": "DHL", "tracking_url": "https://www.dhl.com/en/express/tracking.html?AWB={tracking}"},
    "other": {"name": "Other carrier", "tracking_url": ""},
}

# Returns a shopper starts from the order page (orders.returns): days from delivery (or, for
# an order not marked delivered, from its last shipment) during which a return may be asked.
SHOP_RETURN_WINDOW_DAYS = env.int("SHOP_RETURN_WINDOW_DAYS", default=30)
# Reasons a shopper picks from (key -> text shown).
SHOP_RETURN_REASONS = {
    "damaged": "Arrived damaged or faulty",
    "wrong": "Not what I ordered",
    "unwanted": "No longer wanted",
    "other": "Another reason",
}

# Gift cards sold as a product (orders/gift_cards_sold.py, docs/promotions.md): the product type whose
# SKUs are gift cards (no shipping, no discount applies, no gift card pays for one; issued and
# e-mailed once paid) and how many days an issued card lasts.
SHOP_GIFT_CARD_TYPE = env.str("SHOP_GIFT_CARD_TYPE", default="Gift card")
SHOP_GIFT_CARD_DAYS = env.int("SHOP_GIFT_CARD_DAYS", default=365)
# Invoices and credit notes (orders/invoices.py, docs/after-the-sale.md#invoices): the
# seller's legal details printed on each, copied into the document when it is issued (a
# later change leaves documents issued before unchanged). SHOP_LEGAL_ADDRESS and
# SHOP_LEGAL_DETAILS are lines separated by "|" (e.g. "1 High Street|London EC1A 1AA|United
# Kingdom"; "Registered in England no. 01234567|Director: A. Smith").
SHOP_LEGAL_NAME = env.str("SHOP_LEGAL_NAME", default=SHOP_NAME)
SHOP_LEGAL_ADDRESS = [line.strip() for line in env.str("SHOP_LEGAL_ADDRESS", default="").split("|") if line.strip()]
SHOP_VAT_NUMBER = env.str("SHOP_VAT_NUMBER", default="")
SHOP_LEGAL_DETAILS = [line.strip() for line in env.str("SHOP_LEGAL_DETAILS", default="").split("|") if line.strip()]
# How far back (days) the recovery (reconcile_payments, issue_invoices) looks for refunds
# that went through without their credit note.
SHOP_CREDIT_NOTE_RECOVERY_DAYS = env.int("SHOP_CREDIT_NOTE_RECOVERY_DAYS", default=7)
# WeasyPrint logs each step of every PDF at INFO.
LOGGING["loggers"].update({"weasyprint": {"level": "WARNING"}, "fontTools": {"level": "WARNING"}})
INSTALLED_APPS += ["addresses.apps.AddressesConfig"]  # the shopper's address book (issue 44)
