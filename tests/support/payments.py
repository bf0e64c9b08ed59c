"""Payments in tests: card tokens made as Stripe.js makes them, and what the local Stripe holds.

``card_token`` posts a test card to the local Stripe's ``/v1/tokens`` with the
publishable key, exactly as its Stripe.js does in the page: the shop's code only
ever receives the token. ``charges`` and ``refunded`` are the local Stripe's own
view of the PaymentIntents this test created (``track_intents``, installed for
every test by ``tests/conftest.py``, records each id ``create_intent`` got back,
in this process and its live server's threads), each retrieved from it: listing
the machine's whole local Stripe would cost more with every test run before.
"""

import json
import urllib.parse
import urllib.request

from orders.payments import StripeProvider
from orders.stripelocal import PUBLISHABLE_KEY, LocalStripe

VISA = "4242424242424242"
DECLINED = "4000000000000002"  # refused when attached (localstripe and Stripe: card_declined)
DECLINED_AT_CHARGE = "4000000000000341"  # attached, then refused when charged
THREE_D_SECURE = "4000002500003155"  # asks for 3-D Secure


def card_token(number=VISA, exp_month="12", exp_year="2039", cvc="123"):
    """A ``tok_...`` of the test card ``number``, made by the local Stripe."""
    data = urllib.parse.urlencode({"card[number]": number, "card[exp_month]": exp_month,
                                   "card[exp_year]": exp_year, "card[cvc]": cvc, "key": PUBLISHABLE_KEY}).encode()
    with urllib.request.urlopen(f"{LocalStripe().url()}/v1/tokens", data=data, timeout=30) as response:
        return json.load(response)["id"]


CREATED = []


def track_intents(monkeypatch):
    """Record the id of every PaymentIntent ``StripeProvider.create_intent`` makes during the test."""
    CREATED.clear()
    create = StripeProvider.create_intent

    def recording(self, *args, **kwargs):
        intent, card = create(self, *args, **kwargs)
        CREATED.append(intent.id)
        return intent, card

    monkeypatch.setattr(StripeProvider, "create_intent", recording)


def _intents():
    provider = StripeProvider()
    found = [provider.retrieve(intent_id) for intent_id in dict.fromkeys(CREATED)]
    return provider, [intent for intent in found if intent.status == "succeeded"]


def charges():
    """``{PaymentIntent id: (amount cents, cart id)}`` of this shop's succeeded intents."""
    return {intent.id: (intent.amount, intent.metadata.get("cart")) for intent in _intents()[1]}


def refunded():
    """The ids of this shop's succeeded intents refunded in full."""
    provider, intents = _intents()
    return {intent.id for intent in intents if provider.refunded_amount(intent.id) >= intent.amount}


def refunded_amounts():
    """``{PaymentIntent id: cents refunded}`` of this shop's succeeded intents."""
    provider, intents = _intents()
    return {intent.id: provider.refunded_amount(intent.id) for intent in intents}
