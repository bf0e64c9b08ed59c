"""``python manage.py load_shipping_zones [--country GB]``: the default shipping zones.

Adds the domestic zone (the shop's country, ``SHOP_COUNTRY``), the European Union and the rest
of world's own bands, each with a standard and an express method (and a collection from the
shop at home, switched off), as ``shipping.defaults`` describes. Idempotent: a zone whose name
exists is kept as staff left it. The quick start runs it with the demo catalog
(``shop/startup.py``); docs/staff.md lists what it makes.
"""

from django.core.management.base import BaseCommand, CommandError

from core.commandlog import log_change
from shipping.defaults import load_defaults


class Command(BaseCommand):
    help = "Add the default shipping zones (domestic, EU, rest of world) and their methods."

    def add_arguments(self, parser):
        parser.add_argument("--country", default="", help="the shop's country (ISO code); default SHOP_COUNTRY")

    def handle(self, *args, country="", verbosity=1, **options):
        try:
            done = load_defaults(country or None)
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in done:
            log_change(self, f"Added {line}.", quiet=verbosity == 0)
        if not done and verbosity:
            self.stdout.write("The default zones are there already: nothing changed.")
