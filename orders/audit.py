"""Money taken with no order: the audit ``check_inventory`` runs.

A trusted shop never keeps a payment it cannot match to an order. Two
sources are checked: the payment ledger (attempts left ``charging`` or
``charged`` past ``PAYMENT_RECOVERY_AFTER``: a crash interrupted them and
``reconcile_payments`` has not settled them yet), and Stripe itself: every
PaymentIntent of *this* shop (its metadata ``shop`` is ``payments.shop_id()``,
so two shops on one account never report each other) that succeeded must pay
an order or be refunded in full.
"""

import datetime

from django.conf import settings

from core import clock

from .models import Order, PaymentAttempt
from .payments import Intent, get_provider


def charges_without_order(provider=None):
    """Lines (str) describing each payment that may be taken with no order; empty when none.

    Two reads, plus the provider's list of intents (and the refunds of any intent with no order).
    """
    provider = provider or get_provider()
    threshold = clock.now() - datetime.timedelta(seconds=settings.PAYMENT_RECOVERY_AFTER)
    lines = [f"payment {attempt['_id']} of cart {attempt['cart_id']}: {attempt['status']} since "
             f"{attempt['created_at']:%Y-%m-%d %H:%M:%S} UTC, no order"
             for attempt in PaymentAttempt.objects.unfinished(threshold)]
    unsettled = {attempt["intent_id"] for attempt in PaymentAttempt.objects.unfinished(clock.now())
                 if attempt.get("intent_id")}
    paid = Order.objects.charge_references()
    for intent in provider.intents():
        if intent.status != Intent.SUCCEEDED or intent.id in paid or intent.id in unsettled:
            continue
        if provider.refunded_amount(intent.id) >= intent.amount:
            continue
        lines.append(f"charge {intent.id} ({intent.amount} cents, cart {intent.metadata.get('cart', '?')}): "
                     "neither refunded nor paying an order")
    return lines
