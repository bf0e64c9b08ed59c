"""``python manage.py issue_invoices [--older-than SECONDS] [--days DAYS]``: issue the invoices
and credit notes a crash left out.

The invoice of every order placed more than ``--older-than`` seconds ago that has none, and
the credit note of every refund of the last ``--days`` days that has none
(``orders.invoices.issue_missing``). ``reconcile_payments`` does the same after settling
payments; this command does only that. Safe to run twice or concurrently: a sale or a
refund gets one document, under one gapless number.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.commandlog import log_change
from orders.invoices import issue_missing


class Command(BaseCommand):
    help = "Issue the missing invoices of paid orders and credit notes of refunds."

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=int, default=settings.PAYMENT_RECOVERY_AFTER, dest="older_than",
                            help="Seconds after its placing an order's invoice counts as missing "
                                 f"(default PAYMENT_RECOVERY_AFTER, {settings.PAYMENT_RECOVERY_AFTER}).")
        parser.add_argument("--days", type=int, default=settings.SHOP_CREDIT_NOTE_RECOVERY_DAYS,
                            help="Days back to look for refunds without a credit note "
                                 f"(default SHOP_CREDIT_NOTE_RECOVERY_DAYS, {settings.SHOP_CREDIT_NOTE_RECOVERY_DAYS}).")

    def handle(self, *args, **options):
        if options["older_than"] < 0:
            raise CommandError("--older-than must be 0 or more seconds.")
        if options["days"] < 0:
            raise CommandError("--days must be 0 or more.")
        issued = issue_missing(older_than=options["older_than"], since_days=options["days"])
        log_change(self, "Invoices issued: {invoices}; credit notes issued: {credit_notes}.".format(**issued))
