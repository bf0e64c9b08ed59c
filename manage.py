#!/usr/bin/env python
"""Django's command-line utility for the shop."""
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A setting to fix (e.g. no DJANGO_SECRET_KEY): one line, not a traceback.
        sys.exit(f"manage.py: {exc}")
    except RuntimeError as exc:
        # The local database server cannot be used (read-only data directory, port taken...):
        # its one-line reason and a non-zero exit, not a traceback.
        from core.mongo.localserver import LocalServerError

        if not isinstance(exc, LocalServerError):
            raise
        sys.exit(f"manage.py: {exc}")


if __name__ == "__main__":
    main()
