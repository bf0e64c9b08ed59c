"""``python manage.py runserver``: Django's (with staticfiles'), preparing the local database first.

Django checks for unapplied migrations before it loads the WSGI application,
and the shop's start-up (``shop.startup``, run by ``shop.wsgi``) migrates the
local server's database only then: a first start printed "You have N
unapplied migration(s)" a second before they were applied. Here the database
is prepared before that check, so the check reports the truth (with
``MONGODB_URI`` nothing is prepared and the check warns as Django's does).
"""

import os

from django.contrib.staticfiles.management.commands.runserver import Command as StaticfilesRunserver

from django.core.management.base import CommandError

from shop.startup import PaymentsRefused, prepare_local_database, prepare_payments


class Command(StaticfilesRunserver):
    """runserver that migrates and loads the local database before checking migrations."""

    def check_migrations(self):
        """Prepare the local database (``shop.startup``), then Django's check; returns None."""
        try:
            prepare_payments(f"http://{self.addr if not self._raw_ipv6 else f'[{self.addr}]'}:{self.port}")
        except PaymentsRefused as exc:
            raise CommandError(f"The shop cannot start: {exc}") from None
        if prepare_local_database():
            # shop.wsgi need not prepare it again in this process.
            os.environ["SHOP_DATABASE_PREPARED"] = "1"
        super().check_migrations()
