"""Gift cards sold as a product (``make_gift_card_product``, ``orders.gift_cards_sold``): a digital
variant per amount, issued once after payment (even when the signal comes twice, or from two
threads at once), its code e-mailed; no shipping, no discount, and no gift card pays for one."""

import threading

import pytest
from django.core import mail
from django.core.management import CommandError, call_command

from catalog.models import Product
from core import clock
from inventory.models import Cart, Inventory
from orders import pricing
from orders.gift_cards_sold import issue_gift_cards
from promotions.models import GiftCard, Offer, Voucher
from tests.orders.test_orders import place
from tests.support.products import make_product

ALBUM = 1500


@pytest.fixture
def shop():
    call_command("make_gift_card_product", "--amounts", "25", "50")
    make_product("Album", sku="ALB", list_cents=ALBUM)
    Inventory.objects.ensure_stock(["ALB"], 10)


def cart(*lines):
    made = Cart.objects.create_cart()
    for sku, qty, price in lines:
        Cart.objects.add_item(made.id, sku, qty, {"title": sku, "price": price}, 10)
    return made.id


def gift_card_mails():
    return [m for m in mail.outbox if "gift card" in m.subject]


def test_the_product_is_a_digital_variant_per_amount_with_a_large_stock(shop):
    product = Product.objects.get(sku="GIFT-CARD")
    assert [(v.sku, v.pricing.retail) for v in product.variants] == [("GIFT-CARD-25", 2500), ("GIFT-CARD-50", 5000)]
    facts = Product.objects.checkout_facts(["GIFT-CARD-50"])["GIFT-CARD-50"]
    assert (facts.weight, facts.product_type, facts.tax_class) == (0, "Gift card", "zero")
    assert Inventory.objects.collection.find_one({"_id": "GIFT-CARD-50"})["qty"] == 1_000_000
    with pytest.raises(CommandError, match="exists already"):
        call_command("make_gift_card_product")
    with pytest.raises(CommandError, match="--amounts"):
        call_command("make_gift_card_product", "--sku", "GC2", "--amounts", "0")


def test_paid_gift_cards_are_issued_and_their_codes_e_mailed_once(shop):
    order = place(cart(("GIFT-CARD-50", 2, 5000), ("ALB", 1, ALBUM)))
    cards = list(GiftCard.objects.filter(order_number=order.number))
    assert sorted(c.balance for c in cards) == [5000, 5000] and len({c.code for c in cards}) == 2
    assert all(c.sent_to == "ada@example.com" and c.history[0].amount == 5000 for c in cards)
    sent = gift_card_mails()
    assert len(sent) == 2 and {c.code for c in cards} == {m.body.split("Code:")[1].split()[0] for m in sent}
    # The signal again (a second delivery): nothing issued, nothing sent.
    assert issue_gift_cards(order=order) == []
    assert GiftCard.objects.filter(order_number=order.number).count() == 2 and len(gift_card_mails()) == 2


def test_two_threads_issuing_the_same_order_issue_each_card_once(shop):
    order = place(cart(("GIFT-CARD-25", 3, 2500),))
    GiftCard.objects.filter(order_number=order.number).delete()
    mail.outbox.clear()
    barrier, issued = threading.Barrier(4), []

    def run():
        barrier.wait()
        issued.extend(issue_gift_cards(order=order))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(issued) == 3 and GiftCard.objects.filter(order_number=order.number).count() == 3
    assert len(gift_card_mails()) == 3


def test_a_gift_card_order_ships_nothing_and_takes_no_discount(shop):
    Voucher(code="ALL10", name="Ten percent", benefit=Voucher.PERCENT, value=10, limit=5).save()
    Offer(name="Everything 5% off", benefit=Offer.PERCENT, value=5).save()
    facts = Product.objects.checkout_facts(["GIFT-CARD-25", "ALB"])
    only = pricing.price([{"sku": "GIFT-CARD-25", "qty": 1, "price": 2500}], facts,
                         pricing.PricingContext(codes=("ALL10",)))
    assert (only.shipping, only.discount, only.total) == (0, 0, 2500)
    both = pricing.price([{"sku": "GIFT-CARD-25", "qty": 1, "price": 2500}, {"sku": "ALB", "qty": 1, "price": ALBUM}],
                         facts, pricing.PricingContext(codes=("ALL10",)))
    assert both.shipping > 0 and both.lines[0].discount == 0 and both.lines[1].discount > 0


def test_a_gift_card_cannot_pay_for_a_gift_card(shop):
    GiftCard(code="HAVE100", balance=10000, expires_at=clock.now().replace(year=2100)).save()
    facts = Product.objects.checkout_facts(["GIFT-CARD-50", "ALB"])
    context = pricing.PricingContext(gift_cards=("HAVE100",))
    only = pricing.price([{"sku": "GIFT-CARD-50", "qty": 1, "price": 5000}], facts, context)
    assert (only.gift_card, only.charged) == (0, 5000)
    both = pricing.price([{"sku": "GIFT-CARD-50", "qty": 1, "price": 5000}, {"sku": "ALB", "qty": 1, "price": ALBUM}],
                         facts, context)
    assert both.gift_card == both.total - 5000 and both.charged == 5000
    # Checkout: the card pays the album and its shipping, Stripe the gift card bought.
    order = place(cart(("GIFT-CARD-50", 1, 5000), ("ALB", 1, ALBUM)), gift_cards=("HAVE100",))
    assert order.gift_card == order.total - 5000
    assert GiftCard.objects.get(code="HAVE100").balance == 10000 - order.gift_card
    (confirmation,) = [m for m in mail.outbox if order.number in m.subject]
    paid = f"Paid by gift card HAVE100: ${order.gift_card / 100:.2f}"
    assert paid in confirmation.body and "Paid by gift card HAVE100" in confirmation.alternatives[0][0]
