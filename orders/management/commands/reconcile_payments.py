"""``python manage.py reconcile_payments [--older-than SECONDS]``: settle interrupted checkouts.

For cron (every minute, say); every serving process also runs it by itself
every ``PAYMENT_RECONCILE_INTERVAL`` seconds. For every checkout left behind
by a crash (a pending cart, a payment attempt not finished), it either
finishes the order (the charge was taken, the units are still held) or
refunds the charge, and never both; a payment never taken is voided and its
cart given back to the shopper (``orders.reconcile``). Safe to run twice or
concurrently.

Then it finishes what a crash left after a refund (``orders.returns.recover``): a refund
of lines that went through with its units still due back in stock is restocked (once), and
a return left "refunding" is marked refunded when its refund went through. Last it
issues the invoice of every paid order that has none and the credit note of every recent
refund that has none (``orders.invoices.issue_missing``).
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from orders.reconcile import reconcile
from core.commandlog import log_change
from orders.returns import recover
from orders.invoices import issue_missing


class Command(BaseCommand):
    help = "Finish or refund every checkout interrupted by a crash (never both)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than", type=int, default=settings.PAYMENT_RECOVERY_AFTER, dest="older_than",
            help="Seconds a checkout may run before it counts as interrupted "
                 f"(default PAYMENT_RECOVERY_AFTER, {settings.PAYMENT_RECOVERY_AFTER}).",
        )

    def handle(self, *args, **options):
        if options["older_than"] < 0:
            raise CommandError("--older-than must be 0 or more seconds.")
        report = reconcile(older_than=options["older_than"])
        log_change(
            self,
            "Payments reconciled: {finished} order(s) finished, {refunded} charge(s) refunded, "
            "{voided} attempt(s) voided, {unlocked} cart(s) unlocked.".format(**report),
        )

        finished = recover()
        log_change(self, "Refunds finished: {restocked} restock(s) done, {returns} return(s) settled.".format(**finished))

        issued = issue_missing(older_than=options["older_than"])
        log_change(self, "Invoices issued: {invoices}; credit notes issued: {credit_notes}.".format(**issued))
