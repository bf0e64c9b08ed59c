"""A gift card bought for someone else (issue 43): the cart page names its recipient (e-mail and
an optional message); after payment the code goes to the recipient, the buyer gets a notice
without the code; the order keeps the recipient; a bad e-mail or a line that is no gift card
is refused with nothing kept."""

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from inventory.models import Inventory
from orders.models import Order
from promotions.models import GiftCard
from tests.support.products import make_product
from tests.support.shopper import CARD, add


@pytest.fixture
def shop():
    call_command("make_gift_card_product", "--amounts", "25", "50")
    make_product("Album", sku="ALB", list_cents=1500)
    Inventory.objects.ensure_stock(["ALB"], 10)


def test_the_recipient_gets_the_code_and_message_and_the_buyer_a_notice(shop):
    client = Client()
    add(client, "GIFT-CARD-50", 2)
    add(client, "ALB")
    page = client.get("/cart/").content.decode()
    assert "Who gets" in page and 'name="email"' in page  # the form, on the gift card's line only
    response = client.post("/cart/gift-recipient/", {"sku": "GIFT-CARD-50", "email": "grace@example.com",
                                                    "message": "Happy birthday, Grace!"}, follow=True)
    assert "will be e-mailed to grace@example.com once paid" in response.content.decode()
    assert 'class="recipient">grace@example.com<' in response.content.decode()
    mail.outbox.clear()
    assert client.post("/checkout/", CARD).status_code == 302
    order = Order.objects.get()
    assert [(r.sku, r.email, r.message) for r in order.gift_recipients] == [
        ("GIFT-CARD-50", "grace@example.com", "Happy birthday, Grace!")]
    cards = list(GiftCard.objects.filter(order_number=order.number))
    assert len(cards) == 2 and all(card.sent_to == "grace@example.com" for card in cards)
    to_grace = [m for m in mail.outbox if m.to == ["grace@example.com"]]
    assert len(to_grace) == 2
    assert {m.body.split("Code:")[1].split()[0] for m in to_grace} == {card.code for card in cards}
    assert all("Ada Lovelace sent you a Chinook Records gift card." in m.body and
               '"Happy birthday, Grace!"' in m.body for m in to_grace)
    notices = [m for m in mail.outbox if m.to == ["ada@example.com"] and "was sent to" in m.subject]
    assert len(notices) == 2 and all("e-mailed to grace@example.com" in m.body for m in notices)
    assert not any(card.code in m.body or card.code in m.alternatives[0][0] for m in notices for card in cards)


def test_without_a_recipient_the_buyer_gets_the_code(shop):
    client = Client()
    add(client, "GIFT-CARD-25")
    client.post("/cart/gift-recipient/", {"sku": "GIFT-CARD-25", "email": "grace@example.com"})
    client.post("/cart/gift-recipient/", {"sku": "GIFT-CARD-25", "email": ""})  # back to the buyer
    mail.outbox.clear()
    assert client.post("/checkout/", CARD).status_code == 302
    order = Order.objects.get()
    assert order.gift_recipients == []
    (card,) = GiftCard.objects.filter(order_number=order.number)
    sent = [m for m in mail.outbox if "gift card" in m.subject]
    assert [m.to for m in sent] == [["ada@example.com"]] and f"Code:    {card.code}" in sent[0].body


@pytest.mark.parametrize("post, message", [
    ({"sku": "GIFT-CARD-50", "email": "not an address"}, "Enter a valid email address."),
    ({"sku": "ALB", "email": "grace@example.com"}, "That line of your cart is not a gift card."),
    ({"sku": "GIFT-CARD-25", "email": "grace@example.com"}, "That line of your cart is not a gift card."),
    ({"sku": "GIFT-CARD-50", "email": "grace@example.com", "message": "<script>"}, "Remove the &lt; and &gt; characters."),
])
def test_a_bad_recipient_is_refused_and_nothing_kept(shop, post, message):
    client = Client()
    add(client, "GIFT-CARD-50")
    add(client, "ALB")
    response = client.post("/cart/gift-recipient/", post, follow=True)
    assert message in response.content.decode()
    assert "gift_recipients" not in client.session or client.session["gift_recipients"] == {}
