"""Shipping methods by zone: the seeded default, band edges by weight and by value, the
free-shipping threshold, the minimum order, zones by country and postcode prefix, the method
chosen, a destination no zone covers refused before any PaymentIntent, the order's snapshot of
the method, free-shipping codes, the admin, and the round trips of a priced checkout."""

from types import SimpleNamespace

import pytest
from bson import ObjectId

from core.mongo.counter import count_operations
from inventory.models import Cart
from orders import pricing
from orders.checkout import place_order
from orders.exceptions import ShippingUnavailable
from orders.models import Order, PaymentAttempt
from orders.payments import StripeProvider
from promotions.models import Voucher
from shipping.models import ShippingMethod, ShippingZone
from shipping.rates import zone_for

from tests.support import payments
from tests.support.inventory import add, cart_doc, stock
from tests.support.payments import card_token

PARIS = {"name": "Ada", "line1": "1 rue de Rivoli", "line2": "", "city": "Paris", "postcode": "75001",
         "country": "FR", "region": ""}
LONDON = {"name": "Ada", "line1": "1 Old St", "line2": "", "city": "London", "postcode": "EC1V 9HL",
          "country": "GB", "region": ""}
LEEDS = {**LONDON, "city": "Leeds", "postcode": "LS1 4AP"}
NEW_YORK = {"name": "Ada", "line1": "1 Fifth Ave", "line2": "", "city": "New York", "postcode": "10001",
            "country": "US", "region": "NY"}


def zone(name, countries=(), prefixes=(), rest=False, position=0, methods=()):
    """A zone with ``methods`` (dicts of ``ShippingMethod`` fields), validated as the admin does."""
    made = ShippingZone(name=name, countries=list(countries), postcode_prefixes=list(prefixes),
                        rest_of_world=rest, position=position)
    made.full_clean()
    made.save()
    for number, fields in enumerate(methods):
        method = ShippingMethod(zone=made, **{"name": f"Method {number}", "position": number, **fields})
        method.full_clean()
        method.save()
    return made


def no_rest_of_world():
    ShippingZone.objects.filter(rest_of_world=True).update(active=False)
    ShippingZone.objects.forget()


def fact(weight):
    return SimpleNamespace(price=None, weight=weight, product_id=ObjectId(), product_sku="", product_type="",
                           listed_in=(), tax_class="")


def priced(weight=0, value=1000, address=None, method="", codes=()):
    """One line of ``value`` cents weighing ``weight`` grams, priced for ``address``."""
    context = pricing.PricingContext(address=address, shipping_method=method, codes=tuple(codes))
    return pricing.price([{"sku": "A", "qty": 1, "price": value}], {"A": fact(weight)}, context)


BANDS = ["250:399", "1000:699", "*:1999"]


# -- the seeded default ---------------------------------------------------

@pytest.mark.parametrize("weight, cents", [(0, 399), (250, 399), (251, 699), (1000, 699), (1001, 999),
                                           (3000, 999), (3001, 1999)])
def test_the_seeded_rest_of_world_prices_by_shipping_bands_at_each_edge(weight, cents, settings):
    settings.SHIPPING_BANDS = [(250, 399), (1000, 699), (3000, 999), (None, 1999)]
    for address in (None, PARIS, NEW_YORK):  # no address yet, and anywhere: the one default zone
        figures = priced(weight, address=address)
        assert figures.shipping == cents and not figures.shipping_refused
        assert figures.shipping_method["name"] == "Standard"
        assert figures.shipping_method["zone"] == "Rest of world"
        assert (figures.shipping_method["days_min"], figures.shipping_method["days_max"]) == (3, 7)


def test_an_empty_order_ships_free_and_is_not_refused():
    no_rest_of_world()
    figures = pricing.price([], {}, pricing.PricingContext(address=NEW_YORK))
    assert figures.shipping == 0 and figures.shipping_refused == ""


# -- bands, thresholds, minimums ----------------------------------------

@pytest.mark.parametrize("weight, cents", [(0, 399), (250, 399), (251, 699), (1000, 699), (1001, 1999),
                                           (50000, 1999)])
def test_weight_bands_at_each_edge(weight, cents):
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": BANDS}])
    assert priced(weight, address=PARIS).shipping == cents


@pytest.mark.parametrize("value, cents", [(1, 599), (2999, 599), (3000, 599), (3001, 299), (10000, 299),
                                          (10001, 0)])
def test_value_bands_at_each_edge(value, cents):
    zone("France", ["FR"], methods=[{"pricing": "value", "bands": ["3000:599", "10000:299", "*:0"]}])
    assert priced(5000, value=value, address=PARIS).shipping == cents


@pytest.mark.parametrize("value, cents", [(4999, 699), (5000, 0), (5001, 0)])
def test_the_free_shipping_threshold_below_on_and_above(value, cents):
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": BANDS, "free_over": 5000}])
    figures = priced(500, value=value, address=PARIS)
    assert figures.shipping == cents and figures.shipping_method["cents"] == cents
    assert figures.total == value + cents + figures.tax


def test_the_threshold_compares_the_goods_after_discounts():
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": BANDS, "free_over": 5000}])
    Voucher(code="TEN", name="Ten off", benefit=Voucher.FIXED, value=1000).save()
    assert priced(500, value=5500, address=PARIS).shipping == 0
    assert priced(500, value=5500, address=PARIS, codes=["TEN"]).shipping == 699  # 4500 of goods


def test_the_minimum_order_below_and_on():
    zone("France", ["FR"], methods=[{"name": "Express", "kind": "express", "pricing": "weight", "bands": ["*:1500"],
                                     "minimum_order": 2000},
                                    {"name": "Standard", "pricing": "weight", "bands": ["*:500"], "minimum_order": 1000}])
    assert [m["name"] for m in priced(value=1999, address=PARIS).shipping_methods] == ["Standard"]
    assert [m["name"] for m in priced(value=2000, address=PARIS).shipping_methods] == ["Standard", "Express"]
    refused = priced(value=999, address=PARIS)
    assert refused.shipping == 0 and refused.shipping_method is None
    assert refused.shipping_refused == "Orders shipped to France start at $10.00: add $0.01 more to your cart."


# -- zones and the method chosen ---------------------------------------

def test_methods_are_listed_cheapest_first_and_the_chosen_one_is_charged():
    zone("France", ["FR"], methods=[
        {"name": "Express", "kind": "express", "pricing": "weight", "bands": ["*:1500"], "days_min": 1, "days_max": 1},
        {"name": "Collection", "kind": "collection", "pricing": "weight", "bands": ["*:0"], "days_min": 0,
         "days_max": 0},
        {"name": "Standard", "pricing": "weight", "bands": ["*:500"]}])
    figures = priced(address=PARIS)
    assert [(m["name"], m["cents"]) for m in figures.shipping_methods] == [
        ("Collection", 0), ("Standard", 500), ("Express", 1500)]
    assert figures.shipping_method["name"] == "Collection"  # nothing chosen: the cheapest
    express = figures.shipping_methods[2]["code"]
    chosen = priced(address=PARIS, method=express)
    assert chosen.shipping == 1500 and chosen.shipping_method == {
        "code": express, "name": "Express", "kind": "express", "zone": "France", "cents": 1500,
        "days_min": 1, "days_max": 1}
    assert priced(address=PARIS, method=str(ObjectId())).shipping == 0  # not offered here: the cheapest


def test_a_postcode_prefix_zone_wins_over_its_country_and_the_rest_of_world_takes_the_others():
    zone("UK", ["GB"], methods=[{"pricing": "weight", "bands": ["*:500"]}])
    zone("London", ["GB"], ["EC", "wc", "N 1"], methods=[{"pricing": "weight", "bands": ["*:300"]}])
    assert ShippingZone.objects.get(name="London").postcode_prefixes == ["EC", "WC", "N1"]
    assert priced(address=LONDON).shipping_method["zone"] == "London"
    assert priced(address=LEEDS).shipping_method["zone"] == "UK"
    assert priced(address=PARIS).shipping_method["zone"] == "Rest of world"
    assert zone_for({"country": "gb", "postcode": "n1 9gu"})["name"] == "London"


def test_a_destination_no_zone_covers_is_refused_with_a_clear_message():
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": ["*:500"]}])
    no_rest_of_world()
    figures = priced(address=NEW_YORK)
    assert figures.shipping_refused == "Sorry, we do not ship to United States of America (postcode 10001): " \
                                       "choose another address."
    assert priced(address=PARIS).shipping == 500


# -- checkout -----------------------------------------------------------

def cart_of(qty=1, sku="S1"):
    stock(sku, 10)
    cart = Cart.objects.create_cart()
    add(cart.id, sku, qty)  # 999 cents a unit, no product: weighs nothing
    return cart


def test_no_zone_refuses_the_checkout_before_any_payment_intent():
    no_rest_of_world()
    cart = cart_of()
    with pytest.raises(ShippingUnavailable) as refused:
        place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=NEW_YORK)
    assert "we do not ship to United States of America" in str(refused.value)
    assert "Nothing was charged" in str(refused.value)
    assert payments.CREATED == []  # no PaymentIntent was created
    assert not PaymentAttempt.objects.exists() and not Order.objects.exists()
    assert cart_doc(cart.id)["status"] == "active"  # the cart is the shopper's again


def test_the_order_keeps_the_method_as_applied_after_the_zone_is_edited():
    france = zone("France", ["FR"], methods=[{"name": "Colissimo", "pricing": "value", "bands": ["*:650"],
                                             "days_min": 2, "days_max": 4}])
    cart = cart_of(2)
    order = place_order(cart.id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=PARIS)
    assert order.shipping == 650 and order.total == 2 * 999 + 650 + order.tax
    method = france.methods.get()
    snapshot = {"code": str(method.pk), "name": "Colissimo", "kind": "standard", "zone": "France", "cents": 650,
                "days_min": 2, "days_max": 4}

    def kept():
        placed = Order.objects.get(pk=order.pk)
        return ({field: getattr(placed.shipping_method, field) for field in snapshot}, placed.shipping, placed.total)

    assert kept() == (snapshot, 650, order.total)
    method.name, method.bands, method.days_max = "Colissimo Plus", ["*:990"], 9
    method.full_clean()
    method.save()
    france.name = "France métropolitaine"
    france.save()
    assert priced(address=PARIS).shipping == 990  # new orders see the edit at once (the cache emptied)
    assert kept() == (snapshot, 650, order.total)
    france.delete()
    assert kept() == (snapshot, 650, order.total)


def test_a_free_shipping_code_takes_off_the_zones_method():
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": BANDS}])
    Voucher(code="SHIP", name="Free shipping", benefit=Voucher.FREE_SHIPPING).save()
    figures = priced(500, address=PARIS, codes=["SHIP"])
    assert figures.shipping == 0 and figures.shipping_method["cents"] == 699
    assert figures.discounts == [{"code": "SHIP", "name": "Free shipping", "kind": "free_shipping", "amount": 699}]


def test_checkout_round_trips_with_zones_cached_and_cold(monkeypatch):
    from orders.signals import order_placed
    from promotions.models import Offer

    monkeypatch.setattr(order_placed, "send_robust", lambda sender, **kwargs: [])
    zone("France", ["FR"], methods=[{"pricing": "weight", "bands": BANDS}])
    Order.objects.next_number()  # the counter exists, as after a shop's first order
    Offer.objects.active()  # the live offers cached, as after the process's first cart
    warm, cold = cart_of(sku="W"), cart_of(sku="C")
    ShippingZone.objects.table()  # the zones cached, as after the process's first priced cart (60 s)
    with count_operations() as ops:
        place_order(warm.id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=PARIS)
    assert not [op for op in ops.operations if op[0].startswith("shipping")]
    warm_total = ops.total
    ShippingZone.objects.forget()  # e.g. after staff saved a zone
    with count_operations() as ops:
        place_order(cold.id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=PARIS)
    # Cold: the active zones, then their methods, in two indexed-free reads of a few documents.
    assert [op for op in ops.operations if op[0].startswith("shipping")] == [
        ("shipping_zones", "find"), ("shipping_methods", "find")]
    assert ops.total == warm_total + 2


def test_checkout_page_lists_methods_in_price_order_and_charges_the_one_picked(client, chinook):
    from tests.support.shopper import CARD, SKU
    from tests.support.shopper import add as add_to_cart

    stock(SKU, 5)
    zone("UK", ["GB"], methods=[{"name": "Express", "kind": "express", "pricing": "weight", "bands": ["*:1200"]},
                                {"name": "Standard", "pricing": "weight", "bands": ["*:450"]}])
    add_to_cart(client)
    first = client.post("/checkout/", {**CARD, "confirmed_total": "0", "priced_for": ""})
    page = first.content.decode()
    assert page.index(">\n    Standard") < page.index(">\n    Express") and 'name="shipping_method"' in page
    shown = first.context["totals"]
    assert shown.shipping == 450 and not Order.objects.exists() and payments.CREATED == []
    express = shown.shipping_methods[1]["code"]
    again = client.post("/checkout/", {**CARD, "shipping_method": express, "confirmed_total": shown.total,
                                       "priced_for": first.context["priced_for"]})
    assert again.status_code == 200 and not Order.objects.exists()  # another method: the new total shown first
    assert again.context["totals"].shipping == 1200
    done = client.post("/checkout/", {**CARD, "shipping_method": express, "confirmed_total": again.context["totals"].total,
                                      "priced_for": again.context["priced_for"]})
    assert done.status_code == 302
    order = Order.objects.get()
    assert order.shipping == 1200 and order.shipping_method.name == "Express" and order.shipping_method.zone == "UK"
    assert "(Express, UK; 2–5 working days)" in client.get(done["Location"]).content.decode()


def test_checkout_page_refuses_a_destination_no_zone_covers(client, chinook):
    from tests.support.shopper import CARD, SKU
    from tests.support.shopper import add as add_to_cart

    stock(SKU, 5)
    no_rest_of_world()
    add_to_cart(client)
    page = client.get("/checkout/").content.decode()
    assert "Enter your shipping address to see the shipping methods." in page
    response = client.post("/checkout/", {**CARD, "confirmed_total": "0", "priced_for": ""})
    assert response.status_code == 200
    assert "we do not ship to United Kingdom" in response.content.decode()
    response = client.post("/checkout/", {**CARD, "confirmed_total": response.context["totals"].total,
                                          "priced_for": response.context["priced_for"]})
    assert "we do not ship to United Kingdom" in response.content.decode()
    assert payments.CREATED == [] and not Order.objects.exists()


# -- the admin ------------------------------------------------------------

def zone_form(**changes):
    data = {"name": "EU", "countries": "de, fr,AT", "postcode_prefixes": "", "active": "on", "position": "0",
            "methods-TOTAL_FORMS": "1", "methods-INITIAL_FORMS": "0", "methods-MIN_NUM_FORMS": "0",
            "methods-MAX_NUM_FORMS": "1000",
            "methods-0-name": "Standard", "methods-0-kind": "standard", "methods-0-active": "on",
            "methods-0-position": "0", "methods-0-pricing": "weight", "methods-0-bands": "500:450,*:900",
            "methods-0-free_over": "6000", "methods-0-minimum_order": "0", "methods-0-days_min": "2",
            "methods-0-days_max": "4"}
    data.update(changes)
    return data


def test_staff_make_a_zone_with_its_methods(admin_client):
    response = admin_client.post("/admin/shipping/shippingzone/add/", zone_form())
    assert response.status_code == 302, response.content.decode()[:3000]
    made = ShippingZone.objects.get(name="EU")
    assert made.countries == ["DE", "FR", "AT"]
    method = made.methods.get()
    assert (method.bands, method.free_over) == (["500:450", "*:900"], 6000)
    assert "Standard (by weight bands, free from $60.00)" in admin_client.get(
        "/admin/shipping/shippingzone/").content.decode()
    assert priced(600, value=1000, address={"country": "AT", "postcode": "1010"}).shipping == 900


@pytest.mark.parametrize("changes, message", [
    ({"countries": "DE,XX"}, "Unknown country codes: XX"),
    ({"countries": ""}, "Enter the zone&#x27;s countries"),
    ({"rest_of_world": "on", "countries": ""}, "Another active zone is already the rest of world."),
    ({"methods-0-bands": "500:450,250:300,*:900"}, "Band limits must go up"),
    ({"methods-0-bands": "500:450"}, "End the bands with *:cents"),
    ({"methods-0-bands": "half:450,*:900"}, "is not a band"),
    ({"methods-0-days_min": "5", "methods-0-days_max": "2"}, "The delivery estimate ends before it starts."),
])
def test_bad_zones_and_methods_are_form_errors_and_nothing_is_saved(admin_client, changes, message):
    before = ShippingZone.objects.count()
    response = admin_client.post("/admin/shipping/shippingzone/add/", zone_form(**changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert ShippingZone.objects.count() == before and ShippingMethod.objects.count() == 1  # the seeded one


def test_the_confirmation_email_names_the_method_and_its_delivery_estimate():
    from django.core import mail

    from orders.emails import send_templated

    france = zone("France", ["FR"], methods=[{"name": "Colissimo", "pricing": "value", "bands": ["*:650"],
                                             "days_min": 2, "days_max": 4}])
    order = place_order(cart_of().id, StripeProvider(), card_token(), "Ada", "ada@example.com", address=PARIS)
    # Renamed after the order: the e-mail names the method as snapshotted on the order.
    france.methods.update(name="Colissimo Plus", days_max=9)

    sent = mail.outbox[-1]
    assert "Shipping: $6.50 (Colissimo, France: delivery in 2-4 working days)" in sent.body
    html = sent.alternatives[0][0]
    assert "Shipping (Colissimo, France: delivery in 2–4 working days)" in html
    send_templated("order_confirmation", ["ada@example.com"], {"order": Order.objects.get(pk=order.pk)})
    assert "(Colissimo, France: delivery in 2-4 working days)" in mail.outbox[-1].body
