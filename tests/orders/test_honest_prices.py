"""Honest prices: checkout re-reads each line's current price and charges only what the shopper
was shown. A price changed since the add is shown old and new and charged only once the shopper
pays again; the amount charged (Stripe's record, the local Stripe), the ledger attempt's amount and the
order's total are always one figure."""

import threading

import pytest

from catalog.models import Product
from inventory.models import Cart, Inventory
from orders.checkout import place_order
from orders.exceptions import PricesChanged
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from core.mongo.counter import count_operations

from tests.support.examined import documents_examined
from tests.support.inventory import assert_invariant, cart_doc, inventory
from tests.support.payments import card_token, charges
from tests.support.shopper import CARD, OTHER, SKU, add, session_cart



@pytest.fixture
def shop(chinook):
    Inventory.objects.set_stock(SKU, 5)
    Inventory.objects.set_stock(OTHER, 5)


def price_of(sku):
    return Product.objects.collection.find_one({"sku": sku})["pricing"]["retail"]


def set_price(sku, cents):
    """Staff change the product's retail price (what checkout reads)."""
    Product.objects.collection.update_one({"sku": sku}, {"$set": {"pricing.retail": cents}})


def line_prices(cart_id):
    return {line["sku"]: line["details"]["price"] for line in cart_doc(cart_id)["items"]}


def attempts():
    return list(PaymentAttempt.objects.collection.find({}))


def place(cart_id, provider=None, **kwargs):
    return place_order(cart_id, provider or StripeProvider(), card_token(), "Ada", "ada@example.com", **kwargs)


def assert_charged_as_ordered(order):
    """The provider's record, the ledger attempt and the order tell one total."""
    amount, reference = charges()[order.payment.reference]
    attempt = PaymentAttempt.objects.collection.find_one({"order_number": order.number})
    assert amount == attempt["amount"] == order.total
    assert reference == order.cart_id
    assert order.subtotal == sum(line.qty * line.price for line in order.lines)


# -- the pages ---------------------------------------------------------------

def test_the_checkout_page_shows_a_changed_price_old_and_new_and_the_cart_takes_the_new(client, shop):
    old = price_of(SKU)
    add(client, qty=2)
    set_price(SKU, old + 250)
    response = client.get("/checkout/")
    page = response.content.decode()
    assert "Prices have changed" in page
    change, = response.context["price_changes"]
    assert (change.sku, change.qty, change.old, change.new) == (SKU, 2, old, old + 250)
    assert response.context["totals"].subtotal == 2 * (old + 250)
    assert f'name="confirmed_total" value="{response.context["totals"].total}"' in page
    assert line_prices(session_cart(client)) == {SKU: old + 250}
    # Shown once: the cart holds the new price now.
    assert "Prices have changed" not in client.get("/checkout/").content.decode()


def test_a_price_changed_after_the_page_charges_nothing_then_the_confirm_charges_the_new_total(client, shop):
    old = price_of(SKU)
    add(client, qty=2)
    cart_id = session_cart(client)
    shown = client.get("/checkout/").context["totals"].total
    set_price(SKU, old + 100)  # staff change the price while the shopper types the card

    response = client.post("/checkout/", {**CARD, "confirmed_total": shown})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Prices have changed" in page and "Nothing was charged" in page
    change, = response.context["price_changes"]
    assert (change.old, change.new) == (old, old + 100)
    new_total = response.context["totals"].total
    assert new_total > shown
    assert f'name="confirmed_total" value="{new_total}"' in page
    assert charges() == {} and Order.objects.count() == 0 and attempts() == []
    assert cart_doc(cart_id)["status"] == "active" and line_prices(cart_id) == {SKU: old + 100}
    assert inventory(SKU)["qty"] == 3  # the reservation is kept

    confirmed = client.post("/checkout/", {**CARD, "confirmed_total": new_total})
    assert confirmed.status_code == 302
    order = Order.objects.get_by_cart(cart_id)
    assert order.total == new_total and [line.price for line in order.lines] == [old + 100]
    assert_charged_as_ordered(order)
    assert list(charges().values()) == [(new_total, cart_id)]
    assert_invariant()


def test_a_form_without_the_shown_total_is_held_to_the_carts_prices(client, shop):
    """A POST without ``confirmed_total`` (a page from before it existed): a price changed since
    the add still charges nothing the first time."""
    old = price_of(SKU)
    add(client, qty=1)
    cart_id = session_cart(client)
    set_price(SKU, old - 10)
    response = client.post("/checkout/", CARD)
    assert response.status_code == 200 and "Prices have changed" in response.content.decode()
    assert charges() == {}
    assert client.post("/checkout/", CARD).status_code == 302
    order = Order.objects.get_by_cart(cart_id)
    assert order.lines[0].price == old - 10
    assert_charged_as_ordered(order)


def test_a_quantity_changed_in_another_tab_after_the_page_charges_nothing(client, shop):
    add(client, qty=1)
    cart_id = session_cart(client)
    shown = client.get("/checkout/").context["totals"].total
    client.post("/cart/update/", {"sku": SKU, "qty": 2})  # another tab
    response = client.post("/checkout/", {**CARD, "confirmed_total": shown})
    assert response.status_code == 200
    assert "Your cart&#x27;s total has changed. Nothing was charged" in response.content.decode()
    assert charges() == {} and cart_doc(cart_id)["status"] == "active"
    new_total = response.context["totals"].total
    assert new_total > shown
    assert client.post("/checkout/", {**CARD, "confirmed_total": new_total}).status_code == 302
    assert_charged_as_ordered(Order.objects.get_by_cart(cart_id))


def test_a_price_changed_between_the_pages_read_and_checkouts_read_is_shown_too(client, shop, monkeypatch):
    """The view's own read saw the old price, checkout's re-read the new one: still nothing is
    charged, and the page shows the change and the total checkout computed."""
    from orders import repricing

    old = price_of(SKU)
    add(client, qty=1)
    cart_id = session_cart(client)
    shown = client.get("/checkout/").context["totals"].total
    real = repricing.quote
    calls = []

    def quote_then_change(cart, context=None):
        shown_quote = real(cart, context)
        calls.append(1)
        if len(calls) == 1:
            set_price(SKU, old + 7)
        return shown_quote

    monkeypatch.setattr(repricing, "quote", quote_then_change)
    response = client.post("/checkout/", {**CARD, "confirmed_total": shown})
    assert response.status_code == 200
    change, = response.context["price_changes"]
    assert (change.old, change.new) == (old, old + 7)
    assert response.context["totals"].subtotal == old + 7
    assert charges() == {} and cart_doc(cart_id)["status"] == "active"


# -- place_order ---------------------------------------------------------------

def test_place_order_refuses_a_changed_price_then_charges_the_new_one(shop):
    cart = Cart.objects.create_cart()
    old = price_of(SKU)
    Cart.objects.add_item(cart.id, SKU, 2, {"title": "Track", "price": old}, 10)
    Cart.objects.add_item(cart.id, OTHER, 1, {"title": "Other", "price": price_of(OTHER)}, 10)
    set_price(SKU, old * 3)
    with pytest.raises(PricesChanged) as refused:
        place(cart.id)
    change, = refused.value.changes
    assert (change.sku, change.old, change.new, change.qty) == (SKU, old, old * 3, 2)
    assert charges() == {} and attempts() == [] and Order.objects.count() == 0
    document = cart_doc(cart.id)
    assert document["status"] == "active" and "payment_key" not in document
    assert line_prices(cart.id) == {SKU: old * 3, OTHER: price_of(OTHER)}

    order = place(cart.id, confirmed_total=refused.value.total)
    assert order.total == refused.value.total
    assert_charged_as_ordered(order)
    assert_invariant()


def test_a_confirmed_total_that_differs_charges_nothing(shop):
    """Same prices, but the shopper was shown another total (a quantity changed in another tab)."""
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, SKU, 1, {"title": "Track", "price": price_of(SKU)}, 10)
    with pytest.raises(PricesChanged) as refused:
        place(cart.id, confirmed_total=1)
    assert refused.value.changes == [] and refused.value.total > 1
    assert str(refused.value).startswith("Your cart's total has changed. Nothing was charged")
    assert charges() == {} and cart_doc(cart.id)["status"] == "active"
    assert_charged_as_ordered(place(cart.id, confirmed_total=refused.value.total))


def test_a_price_changed_after_the_reread_is_not_charged_the_read_one_is(shop):
    """Staff change the price while the provider is charging: the charge, the ledger and the
    order keep the price checkout read (and the shopper confirmed)."""
    cart = Cart.objects.create_cart()
    old = price_of(SKU)
    Cart.objects.add_item(cart.id, SKU, 2, {"title": "Track", "price": old}, 10)

    class ChangingProvider(StripeProvider):
        def confirm(self, intent_id, idempotency_key):
            set_price(SKU, old + 500)
            return super().confirm(intent_id, idempotency_key=idempotency_key)

    order = place(cart.id, ChangingProvider())
    assert [line.price for line in order.lines] == [old]
    assert_charged_as_ordered(order)
    assert price_of(SKU) == old + 500


def test_staff_changing_a_price_in_a_loop_never_splits_charge_and_order(shop):
    """A staff thread flips the price while shoppers check out (retrying on PricesChanged):
    every order's charge equals its total, priced at one of the two prices."""
    old = price_of(SKU)
    Inventory.objects.set_stock(SKU, 50)
    stop = threading.Event()

    def staff():
        flip = 0
        while not stop.is_set():
            flip += 1
            set_price(SKU, old if flip % 2 else old + 1)

    carts = []
    for _ in range(6):
        cart = Cart.objects.create_cart()
        Cart.objects.add_item(cart.id, SKU, 1, {"title": "Track", "price": old}, 10)
        carts.append(cart.id)
    worker = threading.Thread(target=staff)
    worker.start()
    try:
        orders = []
        for cart_id in carts:
            for _ in range(50):
                try:
                    orders.append(place(cart_id))
                    break
                except PricesChanged:
                    continue
    finally:
        stop.set()
        worker.join(30)
    assert len(orders) == len(carts)
    for order in orders:
        assert order.lines[0].price in (old, old + 1)
        assert_charged_as_ordered(order)
    assert sum(amount for amount, _ in charges().values()) == sum(order.total for order in orders)
    assert_invariant()


def test_the_reread_is_one_read_of_the_carts_skus_whatever_the_catalog(shop):
    cart = Cart.objects.create_cart()
    Cart.objects.add_item(cart.id, SKU, 1, {"title": "Track", "price": price_of(SKU)}, 10)
    Cart.objects.add_item(cart.id, OTHER, 1, {"title": "Other", "price": price_of(OTHER)}, 10)
    assert Product.objects.count() > 100
    with count_operations() as ops:
        Product.objects.prices_and_weights([SKU, OTHER])
    assert ops.total == 1
    assert documents_examined(ops, "products") == 2
    from promotions.models import Offer

    Offer.objects.active()  # the live offers cached, as after the process's first cart (60 s)
    from shipping.models import ShippingZone

    ShippingZone.objects.table()  # the shipping zones cached likewise (60 s)
    with count_operations() as ops:
        place(cart.id)
    # The lock (a conditional update_one by _id and the read of the locked cart), the
    # reservations, the one re-read of prices and weights, then the ledger: the re-read replaced
    # the weights' read, so checkout costs no extra round trip. The second read is the gift
    # cards' check of the placed order's lines (orders/gift_cards_sold.py, an order_placed
    # receiver), after the charge.
    assert [op for op in ops.operations if op[0] == "products"] == [("products", "find")] * 2
    # The tax step reads the product types' tax classes from the catalog cache (one read
    # when it is cold, as here; none in a warm shop: taxes.rates._type_classes).
    assert [name for name, _ in ops.operations[:6]] == ["carts", "carts", "inventory", "products", "product_types",
                                                        "payment_attempts"]
