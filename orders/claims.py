"""Claims of scarce promotions at checkout: the uses of discount codes, taken before any charge.

``claim(key, cart_id, order, claims)`` takes one use of each code the order
was priced with (``Voucher.objects.claim``: one conditional write per code)
for payment attempt ``key``, *before* the PaymentIntent is created, so a
checkout that loses the race for a code's last use is told before any card
is charged. ``release(key)`` gives the uses of an attempt back (one write
over the codes holding a claim of ``key``; a second release changes
nothing): checkout calls it when the payment is declined or the attempt
fenced, ``reconcile_payments`` when it voids or refunds an attempt. A
claim of a paid attempt stays: it is the code's record of that order's
use (docs/promotions.md, "The claim").
"""

import datetime

from django.conf import settings

from core import clock
from promotions.models import GiftCard, Voucher, normalize

from .managers.ledger import UNFINISHED
from .models import Order, PaymentAttempt

from .exceptions import CodeRefused, GiftCardRefused


def customer_of(order):
    """``(customer, email)`` a once-per-customer code is checked against: the account id (""
    for a guest) and the order's e-mail in lower case."""
    return str(order.get("user_id") or ""), (order.get("email") or "").strip().lower()


def refuse_missing(codes, claims):
    """Raise ``CodeRefused`` for the first of ``codes`` (as typed) that pricing did not apply
    (used up, expired or no longer applicable since the page was shown): the shopper is
    never charged without a discount they were shown."""
    applied = {entry["code"] for entry in claims}
    for code in codes or ():
        if normalize(code) not in applied:
            raise CodeRefused(normalize(code))


def claim(key, cart_id, order, claims):
    """Claim each code of ``claims`` (``Priced.claims``: ``[{"voucher_id", "code", "limit",
    "once_per_customer"}]``) for attempt ``key`` of cart ``cart_id`` and ``order`` (the priced
    order dict: its ``user_id`` and ``email``). One write per code; none without codes.

    All or nothing: when one is refused, those already claimed are released and
    ``CodeRefused`` names the refused code.
    """
    customer, email = customer_of(order)
    for entry in claims:
        if not Voucher.objects.claim(entry["voucher_id"], entry["limit"], cart_id, key, customer, email,
                                     entry["once_per_customer"]):
            release(key)
            raise CodeRefused(entry["code"])


def refuse_spent(typed, gift_cards, charged):
    """Raise ``GiftCardRefused`` for the first card of ``typed`` (codes) that pays nothing now
    (spent or expired since the page was shown) while something is left to charge
    (``charged`` cents): never charge the card for it silently."""
    if not charged:
        return
    paying = {entry["code"] for entry in gift_cards}
    for code in typed or ():
        if normalize(code) not in paying:
            raise GiftCardRefused(normalize(code))


def debit_gift_cards(key, gift_cards):
    """Debit each card of ``gift_cards`` (``Priced.gift_cards``: ``[{"card_id", "code",
    "amount"}]``) for attempt ``key``, before any PaymentIntent: one conditional write per card
    (``GiftCard.objects.debit``). All or nothing: a card refused (spent or expired meanwhile)
    gives back what was taken (``release``) and raises ``GiftCardRefused``."""
    at = clock.now()
    for entry in gift_cards:
        if not GiftCard.objects.debit(entry["card_id"], entry["amount"], key, at):
            release(key)
            raise GiftCardRefused(entry["code"])


def settle(key):
    """Attempt ``key``'s order is placed: its gift-card debits are final (holds dropped)."""
    GiftCard.objects.settle(key)


def audit(older_than=None):
    """What a crash left that recovery did not put right: a list of lines (str), empty when every
    claim of a code belongs to exactly one paid order (its cart's order lists the code) or to a
    checkout still under way (its attempt ``charging`` or ``charged``, or unrecorded and younger
    than ``older_than`` seconds, default ``PAYMENT_RECOVERY_AFTER``), every code's ``used``
    counts its claims, and every gift-card hold is a checkout's under way. Four reads (codes
    with claims, cards with holds, their attempts, their carts' orders). ``check_inventory``
    reports them."""
    seconds = settings.PAYMENT_RECOVERY_AFTER if older_than is None else older_than
    before = clock.now() - datetime.timedelta(seconds=seconds)
    codes, cards = Voucher.objects.with_claims(), GiftCard.objects.with_holds()
    statuses = PaymentAttempt.objects.statuses({c["key"] for v in codes for c in v["claims"]}
                                               | {h["key"] for card in cards for h in card["holds"]})
    orders = {d["cart_id"]: d for d in Order.objects.by_carts(c["cart"] for v in codes for c in v["claims"])}

    def under_way(key, at):
        status = statuses.get(key)
        return status in UNFINISHED or (status is None and at is not None and clock.aware(at) > before)

    problems = []
    for voucher in codes:
        code = voucher["code"]
        if voucher["used"] != len(voucher["claims"]):
            problems.append(f"code {code}: used {voucher['used']} but {len(voucher['claims'])} claim(s)")
        for entry in voucher["claims"]:
            order = orders.get(entry.get("cart"))
            if order is not None and any(d.get("code") == code for d in order.get("discounts") or []):
                continue
            if not under_way(entry.get("key"), entry.get("at")):
                problems.append(f"code {code}: the claim of cart {entry.get('cart')} (attempt {entry.get('key')}) "
                                "has no paid order and no checkout under way")
    for card in cards:
        for hold in card["holds"]:
            at = max((h["at"] for h in card["history"] if h.get("key") == hold["key"]), default=None)
            if not under_way(hold["key"], at):
                problems.append(f"gift card {card['code']}: {hold['amount']} cents held by attempt {hold['key']} "
                                f"({statuses.get(hold['key']) or 'unrecorded'}), neither credited back nor settled")
    return problems


def release(key):
    """Give back every use claimed and every gift-card debit held by attempt ``key`` (one
    indexed write for the codes; one read, and a write per card held, for the gift cards)."""
    GiftCard.objects.credit(key)
    return Voucher.objects.release(key)
