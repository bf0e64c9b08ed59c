"""A shopper's requests through Django's test client: the SKUs of the demo catalog the page tests
use, a complete checkout form, adding to the cart, the session's cart."""

SKU = "CHK-0001"
OTHER = "CHK-0002"
CARD = {"name": "Ada Lovelace", "email": "ada@example.com", "card_number": "4242 4242 4242 4242",
        "expiry": "12/39", "cvc": "123",
        # The shipping address (orders.forms.AddressForm, prefix "ship").
        "ship-name": "Ada Lovelace", "ship-line1": "12 St James's Square", "ship-city": "London",
        "ship-postcode": "SW1Y 4JH", "ship-country": "GB"}


def add(client, sku=SKU, qty=1, follow=False):
    return client.post("/cart/add/", {"sku": sku, "qty": qty}, follow=follow)


def session_cart(client):
    return client.session.get("cart_id")
