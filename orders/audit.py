"""Money taken with no order: the audit ``check_inventory`` runs.

A trusted shop never keeps a payment it cannot match to an order. Two
sources are checked: the payment ledger (attempts left ``charging`` or
``charged`` past ``PAYMENT_RECOVERY_AFTER``: a crash interrupted them and
``reconcile_payments`` has not settled them yet), and the provider itself
when it can list its charges (``TestProvider.charges``; a real provider's
dashboard export would do the same): every charge must be refunded or be
the payment of an order.
"""

import datetime

from django.conf import settings

from core import clock

from .models import Order, PaymentAttempt
from .payments import get_provider


def charges_without_order(provider=None):
    """Lines (str) describing each payment that may be taken with no order; empty when none.

    Two to three reads, plus the provider's list of charges when it has one.
    """
    provider = provider or get_provider()
    threshold = clock.now() - datetime.timedelta(seconds=settings.PAYMENT_RECOVERY_AFTER)
    lines = [f"payment {attempt['_id']} of cart {attempt['cart_id']}: {attempt['status']} since "
             f"{attempt['created_at']:%Y-%m-%d %H:%M:%S} UTC, no order"
             for attempt in PaymentAttempt.objects.unfinished(threshold)]
    listing = getattr(provider, "charges", None)
    if callable(listing):
        paid = Order.objects.charge_references()
        lines += [f"charge {charge['id']} ({charge['amount']} cents, cart {charge['reference']}): "
                  "neither refunded nor paying an order"
                  for charge in listing() if not charge["refunded"] and charge["id"] not in paid
                  and charge["created_at"] < threshold.timestamp()]
    return lines
