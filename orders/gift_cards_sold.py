"""Gift cards sold as a product (promotions): issued once the order is paid, their codes e-mailed.

A gift card product is a product of the type ``SHOP_GIFT_CARD_TYPE`` whose
variants are the amounts on sale (``make_gift_card_product``): no weight, a
large stock, tax class zero. ``issue_gift_cards`` is an ``orders.signals.order_placed``
receiver: for each unit of each such line it inserts one ``GiftCard`` whose
``_id`` is derived from the order and the unit (``card_id``), so the insert is
the conditional write: a signal delivered twice (or two processes placing the
same order) inserts each card once, the second insert failing on the ``_id``
index, and only the process whose insert went in e-mails that card's code. The
code is drawn at random (16 characters, ``ALPHABET``) and sent to the recipient the
buyer named for the line on the cart page (``Order.gift_recipients``: the e-mail and a
message), the buyer then getting a notice without the code; with no recipient, to the
buyer. All amounts are integer cents.
"""

import datetime
import hashlib
import logging
import secrets

from bson import ObjectId
from django.conf import settings
from pymongo.errors import DuplicateKeyError

from catalog.models import Product
from core import clock
from promotions.giftcards import is_gift_card
from promotions.managers import ALPHABET
from promotions.models import GiftCard, GiftCardEntry

from .emails import send_templated

logger = logging.getLogger(__name__)

#: Characters of a sold card's code after its ``GC`` prefix.
CODE_LENGTH = 14


def card_id(order_id, line, unit):
    """The ``_id`` (ObjectId) of the card for ``unit`` (0-based) of line ``line`` (0-based) of
    the order ``order_id``: the same every time, so issuing twice inserts once."""
    digest = hashlib.sha256(f"gift-card:{order_id}:{line}:{unit}".encode()).digest()
    return ObjectId(digest[:12])


def new_code():
    """A new gift card code: ``GC`` and ``CODE_LENGTH`` random characters of ``ALPHABET``."""
    return "GC" + "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def issue_gift_cards(sender=None, order=None, **kwargs):
    """Issue the gift cards ``order`` (an ``Order``, just paid) bought and e-mail each new one's
    code to its line's recipient (``order.gift_recipients``, with the buyer's message; the
    buyer gets a notice) or else to ``order.email``. Returns the cards issued now (``[GiftCard]``; [] when the order has
    none or they were issued already). One read of the lines' product types (only when the
    order has lines), one insert per card; a card whose insert finds its ``_id`` taken was
    issued before and is neither issued nor e-mailed again. A signal sent without an order
    (a test's, an import's) issues nothing."""
    if order is None:
        return []
    lines = list(order.lines or ())
    facts = Product.objects.checkout_facts({line.sku for line in lines}) if lines else {}
    issued = []
    expires = clock.now() + datetime.timedelta(days=settings.SHOP_GIFT_CARD_DAYS)
    recipients = {entry.sku: entry for entry in getattr(order, "gift_recipients", None) or ()}
    for index, line in enumerate(lines):
        fact = facts.get(line.sku)
        if fact is None or not is_gift_card(fact.product_type):
            continue
        recipient = recipients.get(line.sku)
        for unit in range(int(line.qty)):
            card = _insert(card_id(order.pk, index, unit), int(line.price), expires, order.number,
                           recipient.email if recipient else order.email)
            if card is not None:
                issued.append((card, recipient))
    for card, recipient in issued:
        try:
            send_gift_card(card, order, recipient.message if recipient else "")
            if recipient is not None:
                send_gift_card_notice(card, order)
        except Exception:  # the card stands; staff see it (and its order) in the admin
            logger.exception("Gift card %s of order %s issued but not e-mailed.", card.pk, order.number)
    return [card for card, _ in issued]


def _insert(pk, amount, expires, number, email):
    """Insert the card ``pk`` of ``amount`` cents: the ``GiftCard``, or None when it exists (its
    insert refused by the ``_id`` index). A code already in use is drawn again."""
    moment = clock.now()
    for _ in range(5):
        document = {"_id": pk, "code": new_code(), "balance": amount, "expires_at": expires,
                    "history": [{"at": moment, "amount": amount, "key": "", "note": f"bought in order {number}"}],
                    "holds": [], "order_number": number, "sent_to": email, "created_at": moment}
        try:
            GiftCard.objects.collection.insert_one(document)
        except DuplicateKeyError:
            if GiftCard.objects.collection.find_one({"_id": pk}, {"_id": 1}) is not None:
                return None  # issued before
            continue  # the code was taken: draw another
        return GiftCard(pk=pk, code=document["code"], balance=amount, expires_at=expires, order_number=number,
                        sent_to=email, history=[GiftCardEntry(**document["history"][0])], created_at=moment)
    raise RuntimeError(f"No free gift card code after 5 draws (order {number}).")


def send_gift_card(card, order, message=""):
    """E-mail ``card``'s code, amount and expiry to ``card.sent_to`` (the recipient named for
    it, else the buyer of ``order``), with the buyer's ``message`` (plain text, "" for none)."""
    gift = card.sent_to.lower() != (order.email or "").lower()
    return send_templated("gift_card", [card.sent_to], {"card": card, "order": order, "message": message,
                                                        "gift": gift})


def send_gift_card_notice(card, order):
    """E-mail the buyer of ``order`` that ``card`` (its amount, the code's last 4 characters,
    never the code) went to ``card.sent_to``."""
    return send_templated("gift_card_sent", [order.email], {"card": card, "order": order,
                                                            "last4": card.code[-4:]})
