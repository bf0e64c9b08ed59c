"""Which zone covers a destination, which methods it offers an order, and at what price.

``apply_shipping(priced, context)`` is the body of the pricing pipeline's shipping step
(``orders.pricing._shipping``). All amounts are integer cents, weights grams. The zones
come from ``ShippingZone.objects.table()`` (cached: no round trip in a warm shop).

Rules (docs/taxes-and-shipping.md, "Shipping"):

* The zone: among the active zones, one whose countries hold the address's country
  and one of whose postcode prefixes starts its postcode (the longest prefix wins);
  else one listing the country without prefixes; else the rest-of-world zone; among
  equals the lowest ``position``. No address yet (the cart, the checkout before the
  address): the rest-of-world zone, as an estimate.
* The order's value, what thresholds compare with: the goods after discounts, before
  shipping (``subtotal - discount``).
* A method is offered when the value is at least its ``minimum_order``. Its price: the
  first band holding the weight (by weight; by ``SHIPPING_BANDS`` for the "setting"
  pricing) or the value (by value); 0 when the value is at least ``free_over``.
* The methods listed cheapest first (then by position); the one charged is the one the
  shopper chose (``context.shipping_method``, a method's code) when offered, else the
  cheapest.
* No zone covers the destination, or none of its methods is offered: ``priced.shipping``
  is 0 and ``priced.shipping_refused`` says why; checkout refuses the order before any
  payment (``orders.checkout._priced_order`` raises ``ShippingUnavailable``).
"""

from django.conf import settings
from django_countries import countries

from core.money import display

from .models import BY_SETTING, BY_VALUE
from .models import ShippingZone


def _postcode(value):
    return str(value or "").replace(" ", "").upper()


def zone_for(address, table=None):
    """The zone (a dict of ``ShippingZone.objects.table()``) covering ``address`` (a dict with
    ``country`` and ``postcode``; None: no address yet, the rest-of-world zone), or None."""
    table = ShippingZone.objects.table() if table is None else table
    rest = [zone for zone in table if zone["rest_of_world"]]
    if not address or not address.get("country"):
        return rest[0] if rest else None
    country, postcode = str(address["country"]).upper(), _postcode(address.get("postcode"))
    best, best_rank = None, None
    for zone in table:
        if zone["rest_of_world"] or country not in zone["countries"]:
            continue
        if zone["postcode_prefixes"]:
            matched = [len(prefix) for prefix in zone["postcode_prefixes"] if postcode.startswith(prefix)]
            if not matched:
                continue
            rank = (0, -max(matched), zone["position"])
        else:
            rank = (1, 0, zone["position"])
        if best_rank is None or rank < best_rank:
            best, best_rank = zone, rank
    return best or (rest[0] if rest else None)


def band_price(bands, amount):
    """The cents of the first band of ``bands`` (``[(up to or None, cents)]``, ascending) whose
    limit holds ``amount`` (limits inclusive: 250 holds 250); None when no band does."""
    for limit, cents in bands:
        if limit is None or amount <= limit:
            return int(cents)
    return None


def method_price(method, weight, value):
    """What ``method`` (a table dict) costs an order of ``weight`` grams and ``value`` cents
    (the goods after discounts): its band's cents, or 0 from ``free_over``; None when no
    band holds the amount (bands without a last ``*``)."""
    if method["free_over"] is not None and value >= method["free_over"]:
        return 0
    if method["pricing"] == BY_SETTING:
        return band_price(settings.SHIPPING_BANDS, weight)
    return band_price(method["bands"], value if method["pricing"] == BY_VALUE else weight)


def offers(zone, weight, value):
    """The methods of ``zone`` offered to an order of ``weight`` grams worth ``value`` cents,
    cheapest first: ``[{"code", "name", "kind", "zone", "cents", "days_min", "days_max"}]``."""
    offered = []
    for method in zone["methods"]:
        cents = method_price(method, weight, value)
        if value < method["minimum_order"] or cents is None:
            continue
        offered.append(({"code": method["code"], "name": method["name"], "kind": method["kind"],
                         "zone": zone["name"], "cents": cents, "days_min": method["days_min"],
                         "days_max": method["days_max"]}, method["position"]))
    offered.sort(key=lambda pair: (pair[0]["cents"], pair[1], pair[0]["name"]))
    return [entry for entry, _ in offered]


def refusal(address, zone, value):
    """Why nothing can ship to ``address`` (a shopper's message), given its ``zone`` (None:
    none covers it) and the goods' ``value`` cents."""
    if zone is None:
        if not address or not address.get("country"):
            return "Enter your shipping address to see the shipping methods."
        name = countries.name(str(address["country"]).upper()) or address["country"]
        postcode = f" (postcode {address['postcode']})" if address.get("postcode") else ""
        return f"Sorry, we do not ship to {name}{postcode}: choose another address."
    minimums = [method["minimum_order"] for method in zone["methods"] if method["minimum_order"] > value]
    if minimums:
        least = min(minimums)
        return (f"Orders shipped to {zone['name']} start at {display(least)}: add {display(least - value)} "
                "more to your cart.")
    return f"No shipping method is open for {zone['name']} at the moment."


def apply_shipping(priced, context):
    """Set ``priced.shipping`` (cents), ``priced.shipping_methods`` (the methods offered, as
    ``offers`` lists them), ``priced.shipping_method`` (the one charged, a snapshot dict, or
    None) and ``priced.shipping_refused`` ("" or the shopper's message) for the destination
    ``context.address`` and the choice ``context.shipping_method``. No round trip when the
    zones are cached (else two reads). An empty order ships free, nothing refused."""
    priced.shipping, priced.shipping_methods, priced.shipping_method, priced.shipping_refused = 0, [], None, ""
    if not priced.lines:
        return
    value = max(priced.subtotal - sum(line.discount for line in priced.lines), 0)
    zone = zone_for(context.address)
    offered = offers(zone, priced.weight, value) if zone else []
    if not offered:
        priced.shipping_refused = refusal(context.address, zone, value)
        return
    chosen = next((entry for entry in offered if entry["code"] == context.shipping_method), offered[0])
    priced.shipping_methods, priced.shipping_method, priced.shipping = offered, dict(chosen), chosen["cents"]
