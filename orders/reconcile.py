"""Payment recovery: settle what a crash of the database or of a worker left in checkout.

The "Inventory Management" use case's "Error Handling" for money: a checkout that died after its cart
was locked leaves a *pending* cart, and perhaps a payment attempt
(``orders.managers.ledger``) still ``charging`` or ``charged``. ``reconcile`` (the
``reconcile_payments`` command, and a background thread of every serving
process: ``start_background``) settles each one older than
``PAYMENT_RECOVERY_AFTER`` seconds, and never does two things to one:

* charged (the attempt says so, or its PaymentIntent, retrieved from
  Stripe, ``succeeded``) and the cart still held for the attempt, or the
  order already written: the order is finished (``checkout.complete_attempt``);
* charged but the cart no longer held and no order: the charge is refunded;
* not charged: the intent is cancelled at Stripe (so it can never succeed
  later; a cancel refused because it succeeded meanwhile finishes the
  order instead), the attempt voided (which also fences a checkout still
  running with that key: it may no longer record or confirm an intent) and
  the cart unlocked back to the shopper, its units still reserved
  (``expire_carts`` returns them if it stays idle). An attempt that never
  recorded an intent was never confirmed: it is voided. An intent waiting
  for 3-D Secure is left to the shopper for ``PAYMENT_ACTION_TIMEOUT``;
* a pending cart whose attempt was never recorded: the key is voided (the
  fence) and the cart unlocked.

Every attempt voided or refunded here gives back the uses of the discount codes it
claimed (``orders.claims.release``); a finished one keeps them.

A finish and a refund exclude each other: the order is only written while
the cart is held for the attempt, and the cart is only released from it by
completing it (or, when nothing was charged, by unlocking it).
"""

import datetime
import logging
import threading

from django.conf import settings

from inventory.models import Cart
from core import clock

from . import claims
from .checkout import complete_attempt, order_id
from .managers.ledger import CHARGED, COMPLETED, DECLINED, REFUNDED, UNFINISHED, VOID
from .models import Order, PaymentAttempt
from .payments import Intent, get_provider
from .invoices import issue_missing

logger = logging.getLogger(__name__)

# Seconds one recovery holds an attempt (its lease) before another may take it over.
LEASE_SECONDS = 120


def reconcile(provider=None, older_than=None):
    """Settle every checkout interrupted before ``older_than`` seconds ago (default
    ``settings.PAYMENT_RECOVERY_AFTER``); returns ``{'finished', 'refunded', 'voided', 'unlocked'}`` counts.

    ``provider`` defaults to ``get_provider()``. Safe to run concurrently
    (leases) and repeatedly (every step is conditional). Raises what the
    database or the provider raise; what was settled before stays settled.
    """
    provider = provider or get_provider()
    seconds = settings.PAYMENT_RECOVERY_AFTER if older_than is None else older_than
    threshold = clock.now() - datetime.timedelta(seconds=seconds)
    report = {"finished": 0, "refunded": 0, "voided": 0, "unlocked": 0}
    for cart_id, key in Cart.objects.pending_before(threshold):
        outcome = _settle_cart(cart_id, key)
        if outcome:
            report[outcome] += 1
    for attempt in PaymentAttempt.objects.unfinished(threshold):
        outcome = settle_attempt(attempt["_id"], provider)
        if outcome:
            report[outcome] += 1
    return report


def _settle_cart(cart_id, key):
    """A cart pending for ``key``: unlock it when its attempt was never recorded or ended
    uncharged; an attempt still open is left to ``settle_attempt``. Returns "unlocked" or None."""
    if key is None:  # locked before the payment ledger existed: its checkout is long dead
        if Order.objects.get_by_cart(cart_id) is None and Cart.objects.unlock_checkout(cart_id, None):
            return "unlocked"
        return None
    attempt = PaymentAttempt.objects.get_raw(key)
    if attempt is None:
        PaymentAttempt.objects.void(key, cart_id, "The checkout stopped before its payment was recorded.")
        attempt = PaymentAttempt.objects.get_raw(key)
    if attempt["status"] in (VOID, DECLINED):
        claims.release(key)  # the codes it claimed, if any (a crash before its own release)
        if Cart.objects.unlock_checkout(cart_id, key):
            return "unlocked"
    if attempt["status"] == COMPLETED:
        complete_attempt(key, cart_id, attempt["order"], attempt["charge_id"])
    return None


def settle_attempt(key, provider, wait_for_action=True):
    """Settle the unfinished attempt ``key`` by asking the provider about its PaymentIntent:
    "finished", "refunded", "voided" or None (someone else holds it, it is finished, or its
    intent is still in the shopper's hands). See the module docstring for the rules.

    ``wait_for_action``: an intent waiting for 3-D Secure is left alone until
    ``PAYMENT_ACTION_TIMEOUT`` seconds after the attempt began (the shopper may still be
    authenticating); after that, or with False, it is cancelled like any unpaid intent.
    """
    attempt = PaymentAttempt.objects.claim(key, LEASE_SECONDS)
    if attempt is None:
        return None
    try:
        charge_id = attempt["charge_id"]
        if attempt["status"] != CHARGED:
            intent_id = attempt.get("intent_id") or ""
            if not intent_id:
                # No intent recorded: none was ever confirmed (checkout confirms only a recorded one).
                return _void(attempt)
            intent = provider.retrieve(intent_id)
            if intent.status == Intent.PROCESSING:
                return None
            if intent.status == Intent.REQUIRES_ACTION and wait_for_action:
                age = (clock.now() - clock.aware(attempt["created_at"])).total_seconds()
                if age < settings.PAYMENT_ACTION_TIMEOUT:
                    return None
            if intent.status != Intent.SUCCEEDED:
                intent = provider.cancel(intent_id)  # an unpaid intent can never succeed after this
            if intent.status != Intent.SUCCEEDED:
                return _void(attempt)
            charge_id = intent.id
        cart_id = attempt["cart_id"]
        placed = Order.objects.get_by_cart(cart_id)
        if (placed is not None and placed.pk == order_id(key)) or (
                placed is None and Cart.objects.held_for(cart_id, key)):
            complete_attempt(key, cart_id, attempt["order"], charge_id,
                             note="Placed by reconcile_payments after the checkout was interrupted.")
            logger.warning("Payment %s: order of cart %s finished by recovery.", key, cart_id)
            return "finished"
        provider.refund(charge_id, idempotency_key=f"{key}-refund")
        PaymentAttempt.objects.mark_refunded(
            key, charge_id, "Refunded by reconcile_payments: the cart was no longer held for this payment.")
        claims.release(key)
        logger.warning("Payment %s: charge %s refunded by recovery (cart %s not held).", key, charge_id, cart_id)
        return "refunded"
    finally:
        PaymentAttempt.objects.release_claim(key)


def _void(attempt):
    """No charge for ``attempt``: void it and give its cart back to the shopper. "voided" or None."""
    key, cart_id = attempt["_id"], attempt["cart_id"]
    if not PaymentAttempt.objects.void(key, cart_id, "No charge was taken: the checkout was interrupted before."):
        return None  # the checkout recorded its charge meanwhile: the next run settles it
    claims.release(key)  # its discount codes' uses (after the void: no checkout can charge now)
    Cart.objects.unlock_checkout(cart_id, key)
    logger.warning("Payment %s: nothing was charged; cart %s unlocked by recovery.", key, cart_id)
    return "voided"


def start_background(interval):
    """Run ``reconcile`` every ``interval`` seconds in a daemon thread of this process.

    Returns the thread (None when ``interval`` is 0); its ``stop()`` ends it
    after the current run. A failed run is logged and retried next time.
    """
    if interval <= 0:
        return None
    stopped = threading.Event()

    def loop():
        while not stopped.wait(interval):
            try:
                report = reconcile()
                if any(report.values()):
                    logger.warning("reconcile_payments (background): %s", report)

                issue_missing()  # the invoices and credit notes a crash left out (logged)
            except Exception:  # the database or the provider may be down: next time
                logger.exception("reconcile_payments (background) failed; retrying in %s s.", interval)

    thread = threading.Thread(target=loop, name="reconcile-payments", daemon=True)
    thread.stop = stopped.set
    thread.start()
    return thread


def checkout_outcome(cart_id, provider=None, recover=True):
    """What became of the checkout of cart ``cart_id``, for the shopper's status page.

    Returns ``(outcome, detail)``: ``("placed", Order)``; ``("pending",
    attempt or None)`` while the payment is being taken or confirmed;
    ``("refunded", attempt)``; ``("not_charged", attempt or None)`` when the
    cart is back to the shopper (declined, voided, never paid); ``("none",
    None)`` when there is no such cart. With ``recover``, a checkout pending
    for longer than ``PAYMENT_RECOVERY_AFTER`` is settled first (this cart
    only), so a shopper waiting on the page never depends on cron. 3 reads
    (more when it recovers).
    """
    placed = Order.objects.get_by_cart(cart_id)
    if placed is not None:
        return "placed", placed
    cart = Cart.objects.get_cart(cart_id)
    if cart is None:
        return "none", None
    attempt = PaymentAttempt.objects.latest_for_cart(cart_id)
    if cart.status == Cart.PENDING:
        threshold = clock.now() - datetime.timedelta(seconds=settings.PAYMENT_RECOVERY_AFTER)
        if recover and clock.aware(cart.last_modified) < threshold:
            key = cart.payment_key or None
            if attempt is not None and attempt["_id"] == key and attempt["status"] in UNFINISHED:
                settle_attempt(key, provider or get_provider())
            else:
                _settle_cart(cart_id, key)
            return checkout_outcome(cart_id, provider, recover=False)
        return "pending", attempt
    if attempt is not None and attempt["status"] == REFUNDED:
        return "refunded", attempt
    return "not_charged", attempt
