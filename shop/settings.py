"""Settings of the shop, read from the environment (django-environ).

MONGODB_URI           a MongoDB server (unset: the embedded in-process engine)
MONGODB_NAME          database name (default "shop")
MONGODB_READ_PREFERENCE  read preference of the catalog's read-only queries
                      (primary, primaryPreferred, secondary, secondaryPreferred,
                      nearest; default primary)
DJANGO_SECRET_KEY     required when DJANGO_DEBUG is off
DJANGO_DEBUG          "1"/"true" for development (default off)
DJANGO_ALLOWED_HOSTS  comma-separated host names (default localhost,127.0.0.1,[::1])
SHOP_ADMIN_USERNAME / SHOP_ADMIN_PASSWORD   a staff superuser made at start on
                      the embedded engine (whose users vanish on restart)
"""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("Set DJANGO_SECRET_KEY (or DJANGO_DEBUG=1 for development).")
    SECRET_KEY = "django-insecure-development-only-key-not-for-production"
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "shop.apps.MongoAdminConfig",
    "shop.apps.MongoAuthConfig",
    "shop.apps.MongoContentTypesConfig",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "shop.apps.ShopConfig",
    "catalog.apps.CatalogConfig",
    "inventory.apps.InventoryConfig",
    "analytics.apps.AnalyticsConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
                "catalog.context_processors.navigation",
            ],
        },
    },
]

MONGODB_URI = env.str("MONGODB_URI", default="")
MONGODB_NAME = env.str("MONGODB_NAME", default="shop")
DATABASES = {
    "default": {
        "ENGINE": "shop.mongo",
        "HOST": MONGODB_URI,
        "NAME": MONGODB_NAME,
        # A server that does not answer fails fast instead of hanging a page.
        "OPTIONS": {"serverSelectionTimeoutMS": 5000} if MONGODB_URI else {},
    }
}
DEFAULT_AUTO_FIELD = "django_mongodb_backend.fields.ObjectIdAutoField"
MIGRATION_MODULES = {
    "admin": "shop.mongo_migrations.admin",
    "auth": "shop.mongo_migrations.auth",
    "contenttypes": "shop.mongo_migrations.contenttypes",
}

# Sessions are signed cookies: a shopper's visit costs no database round trip.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
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
# On the embedded engine, load the demo catalog at start when the store is empty.
SHOP_LOAD_DEMO_CATALOG = env.bool("SHOP_LOAD_DEMO_CATALOG", default=True)
SHOP_ADMIN_USERNAME = env.str("SHOP_ADMIN_USERNAME", default="")
SHOP_ADMIN_PASSWORD = env.str("SHOP_ADMIN_PASSWORD", default="")

# Products shown on a category page.
CATALOG_PAGE_SIZE = 24

# Catalog search and read scaling (issue 5): the read preference of the
# catalog's read-only queries (seed 001 "Scaling read performance").
MONGODB_READ_PREFERENCE = env.str("MONGODB_READ_PREFERENCE", default="primary")

# Inventory, carts and checkout (inventory app).
INVENTORY_DEFAULT_STOCK = env.int("INVENTORY_DEFAULT_STOCK", default=20)  # load_catalog --stock
CART_TIMEOUT = env.int("CART_TIMEOUT", default=30 * 60)  # seconds idle before expire_carts
INVENTORY_CLEANUP_TIMEOUT = env.int("INVENTORY_CLEANUP_TIMEOUT", default=60 * 60)  # seconds
CART_MAX_LINE_QTY = 10  # units of one SKU per cart line
PAYMENT_PROVIDER = env.str("PAYMENT_PROVIDER", default="inventory.payments.TestProvider")

# Analytics (issue 6): the tax rate of the "totals with tax" report, in whole percent.
ANALYTICS_TAX_PERCENT = env.int("ANALYTICS_TAX_PERCENT", default=20)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
