"""A shopper's requests through Django's test client: the SKUs of the demo catalog the page tests
use, a complete checkout form, adding to the cart, the session's cart."""

from collections.abc import Mapping

SKU = "CHK-0001"
OTHER = "CHK-0002"
FORM = {"name": "Ada Lovelace", "email": "ada@example.com",
        # The shipping address (orders.forms.AddressForm, prefix "ship").
        "ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
        "ship-postcode": "SW1Y 4JH", "ship-country": "GB"}


class CheckoutForm(Mapping):
    """The checkout form as the page posts it: ``FORM`` plus ``stripe_token``, a token of the
    test card ``number`` made by the local Stripe afresh at each read (as Stripe.js makes one
    per press of Pay): ``client.post("/checkout/", CARD)`` and ``{**CARD, ...}`` both work."""

    def __init__(self, number="4242424242424242"):
        self.number = number

    def __getitem__(self, key):
        if key == "stripe_token":
            from tests.support.payments import card_token

            return card_token(self.number)
        return FORM[key]

    def __iter__(self):
        return iter([*FORM, "stripe_token"])

    def __len__(self):
        return len(FORM) + 1


CARD = CheckoutForm()


def add(client, sku=SKU, qty=1, follow=False):
    return client.post("/cart/add/", {"sku": sku, "qty": qty}, follow=follow)


def session_cart(client):
    return client.session.get("cart_id")
