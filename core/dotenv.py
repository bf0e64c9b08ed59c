"""The checkout's ``.env`` file: settings a newcomer's later commands need, written once.

The README's first command starts the shop with ``DJANGO_DEBUG=1`` and no
secret key. Without a file like this, the next command typed in a new shell
(``manage.py dbserver``, ``load_catalog``...) has neither and stops with
"Set DJANGO_SECRET_KEY". So the first start in DEBUG writes a random secret
key to ``.env`` at the project's root (ignored by git, mode 0600);
``shop.settings`` reads it with django-environ on every start, the
environment's own values winning. Only the key is written: ``.env`` never
switches DEBUG on, so a production start from the same checkout stays in
production settings.

``SHOP_DOTENV`` names another file; set to the empty string, no file is read
or written (the test settings do so: a test never reads or writes the
checkout's ``.env``).
"""

import os
import secrets
from pathlib import Path

DEFAULT_DOTENV = Path(__file__).resolve().parent.parent / ".env"
# The key of a DEBUG start when no .env may be written (SHOP_DOTENV="").
DEVELOPMENT_KEY = "django-insecure-development-only-key-not-for-production"


def dotenv_path():
    """The ``.env`` file to read and write: a ``Path``, or ``None`` when ``SHOP_DOTENV`` is ``""``."""
    configured = os.environ.get("SHOP_DOTENV")
    if configured is None:
        return DEFAULT_DOTENV
    return Path(configured) if configured else None


def development_key(path):
    """Return a ``DJANGO_SECRET_KEY`` for a DEBUG start without one (a str).

    Called only when neither the environment nor ``path`` holds a key. With a
    ``path``, a new random key (``secrets.token_urlsafe(50)``) is appended to it
    (created with mode 0600) and set in ``os.environ`` so that this process's
    children use it too; without one (or when the file cannot be written) the
    fixed development key.
    """
    if path is None:
        return DEVELOPMENT_KEY
    key = secrets.token_urlsafe(50)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a") as dotenv:
            dotenv.write("# Written by the shop's first start (core/dotenv.py); read by shop/settings.py.\n"
                         f"DJANGO_SECRET_KEY={key}\n")
    except OSError:
        return DEVELOPMENT_KEY
    os.environ["DJANGO_SECRET_KEY"] = key
    return key
