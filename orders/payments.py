"""Collecting payment: the provider interface checkout calls, and Stripe behind it.

``settings.PAYMENT_PROVIDER`` is the dotted path of the provider class;
``get_provider()`` makes one. The shop never sees a card: the shopper's
browser turns the card into a token inside Stripe's own fields (Stripe.js,
``stripe.createToken``), and the server pays with that token (Stripe's
"finalize payments on the server" integration). A provider has:

* ``client_config() -> dict``: ``{publishable_key, js_url}`` for the page.
* ``create_intent(amount, token, name, email, metadata, idempotency_key)
  -> (Intent, card)``: attach the token's card to a new customer and create
  a PaymentIntent of ``amount`` cents in ``settings.SHOP_CURRENCY``, **not
  confirmed**; ``card`` is ``{brand, last4}`` as the provider reports them.
  Raises ``PaymentDeclined`` (the card was refused when attached) or
  ``PaymentError``.
* ``confirm(intent_id, idempotency_key) -> Intent``: take the money. The
  intent comes back ``succeeded``, ``requires_action`` (3-D Secure: the
  page finishes it with Stripe.js), or raises ``PaymentDeclined``.
* ``retrieve(intent_id) -> Intent``: what the provider knows now (recovery,
  webhooks, the return from 3-D Secure).
* ``cancel(intent_id) -> Intent``: make an intent that has not succeeded
  unable to ever succeed; returns the intent as it is afterwards (still
  ``succeeded`` when the money was taken first).
* ``refund(intent_id, amount=None, idempotency_key=None) -> dict``: give
  back ``amount`` cents (all when None): ``{id, amount}``.
* ``intents() -> iterator of Intent``: this shop's intents (its metadata
  names the shop, ``shop_id()``), for ``check_inventory``'s audit.
* ``refunded_amount(intent_id) -> int``: cents refunded so far.

Every call that writes sends an ``Idempotency-Key`` derived from the payment
ledger's key. localstripe (the local Stripe, ``orders.stripelocal``) ignores
that header, so the ledger, not the provider, is what prevents a second
charge: an intent is confirmed only once its id is in the ledger, and only
by the checkout that recorded it.

``StripeProvider`` is the only provider; another provider plugs in by
implementing these methods (docs/payments.md).
"""

import errno
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.module_loading import import_string

from core.timing import waiting_on

logger = logging.getLogger(__name__)


class PaymentError(Exception):
    """The provider could not take the payment; ``str()`` is a message for the shopper."""


class PaymentDeclined(PaymentError):
    """The card was declined; ``str()`` says why, for the shopper."""


@dataclass(frozen=True)
class Intent:
    """A PaymentIntent as the shop uses it: ``id``, Stripe's ``status``, ``amount`` (cents),
    ``client_secret`` (for Stripe.js in the page), ``metadata`` (dict), ``error`` (the last
    payment error's message, "" when none)."""

    id: str
    status: str
    amount: int
    client_secret: str = ""
    metadata: dict = field(default_factory=dict)
    error: str = ""

    SUCCEEDED = "succeeded"
    REQUIRES_ACTION = "requires_action"
    PROCESSING = "processing"
    CANCELED = "canceled"


def shop_id():
    """The name this shop puts in every PaymentIntent's metadata (``shop``): ``PAYMENT_SHOP_ID``,
    by default the database's name, so that two shops (or staging and production) on one
    Stripe account never audit or settle each other's payments."""
    return settings.PAYMENT_SHOP_ID or settings.DATABASES["default"]["NAME"]


class PaymentProvider:
    """The interface checkout calls (see the module docstring)."""

    def client_config(self):
        raise NotImplementedError

    def create_intent(self, amount, token, name, email, metadata, idempotency_key):
        raise NotImplementedError

    def confirm(self, intent_id, idempotency_key):
        raise NotImplementedError

    def retrieve(self, intent_id):
        raise NotImplementedError

    def cancel(self, intent_id):
        raise NotImplementedError

    def refund(self, intent_id, amount=None, idempotency_key=None):
        raise NotImplementedError

    def refunded_amount(self, intent_id):
        raise NotImplementedError

    def intents(self):
        raise NotImplementedError


def _refused(error):
    """True when a ``stripe.APIConnectionError`` means the server refused the connection (the
    request was never sent, so sending it again is safe)."""
    cause = error
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
            return True
        cause = cause.__cause__ or cause.__context__
    return "Connection refused" in str(error)


class StripeProvider(PaymentProvider):
    """Stripe through the official ``stripe`` library (``StripeClient``).

    With ``STRIPE_SECRET_KEY`` set it talks to Stripe; without, to the
    machine's localstripe (``orders.stripelocal``), started if needed and
    started again when it is found gone (a refused connection: the request
    was never sent, so it is sent again once).
    """

    TIMEOUT = 20  # seconds per request

    def __init__(self):
        import stripe

        self.stripe = stripe
        self.local = not settings.STRIPE_SECRET_KEY
        if self.local:
            from .stripelocal import PUBLISHABLE_KEY, SECRET_KEY, LocalStripe

            self.api_base = LocalStripe().url() or LocalStripe().ensure_running()
            self.secret_key, self.publishable_key = SECRET_KEY, PUBLISHABLE_KEY
        else:
            self.api_base = settings.STRIPE_API_BASE
            self.secret_key, self.publishable_key = settings.STRIPE_SECRET_KEY, settings.STRIPE_PUBLISHABLE_KEY
        self.client = stripe.StripeClient(
            self.secret_key, base_addresses={"api": self.api_base}, max_network_retries=0,
            http_client=stripe.RequestsClient(timeout=self.TIMEOUT),
        )

    # -- plumbing ----------------------------------------------------------------------

    def _call(self, method, *args, **kwargs):
        """``method(*args, **kwargs)`` of the client; a refused connection to the local Stripe
        starts it again and sends the request once more. Card errors become ``PaymentDeclined``,
        invalid requests ``PaymentError``; anything else (a lost answer) propagates."""
        stripe = self.stripe
        for attempt in (1, 2):
            try:
                with waiting_on("stripe"):
                    return method(*args, **kwargs)
            except stripe.CardError as error:
                raise PaymentDeclined(error.user_message or "Your card was declined.") from error
            except stripe.InvalidRequestError as error:
                raise PaymentError(error.user_message or "The payment could not be taken.") from error
            except stripe.APIConnectionError as error:
                if not (self.local and attempt == 1 and _refused(error)):
                    raise
                from .stripelocal import LocalStripe

                logger.warning("The local Stripe is gone: starting it again.")
                LocalStripe().ensure_running()
        raise AssertionError("unreachable")

    @staticmethod
    def _intent(obj):
        obj = obj.to_dict() if hasattr(obj, "to_dict") else obj
        error = obj.get("last_payment_error") or {}
        return Intent(id=obj["id"], status=obj["status"], amount=int(obj["amount"]),
                      client_secret=obj.get("client_secret") or "", metadata=dict(obj.get("metadata") or {}),
                      error=(error.get("message") or "") if isinstance(error, dict) else "")

    # -- the interface -----------------------------------------------------------------

    def client_config(self):
        """``{publishable_key, js_url}``: Stripe.js from js.stripe.com, or localstripe's fake one
        (started first if it is gone, so that the page's script loads)."""
        if self.local:
            from .stripelocal import LocalStripe

            self.api_base = LocalStripe().ensure_running()
        js_url = f"{self.api_base}/js.stripe.com/v3/" if self.local else "https://js.stripe.com/v3/"
        return {"publishable_key": self.publishable_key, "js_url": js_url}

    def create_intent(self, amount, token, name, email, metadata, idempotency_key):
        """A customer holding the token's card, and an unconfirmed PaymentIntent of ``amount``
        cents paying with that card; returns ``(Intent, {brand, last4})``.

        The token becomes a ``card_`` source once attached to the customer (Stripe and
        localstripe both take a ``card_`` as the intent's ``payment_method``). Two requests.
        Raises ``PaymentDeclined`` (attaching was refused) or ``PaymentError``.
        """
        if amount <= 0:
            raise PaymentError("Nothing to pay.")
        if not isinstance(token, str) or not token.startswith("tok_"):
            raise PaymentError("Your card details did not reach the payment provider. Please enter them again.")
        customer = self._call(
            self.client.v1.customers.create,
            params={"source": token, "name": name[:200], "email": email, "metadata": metadata,
                    "expand": ["sources"]},
            options={"idempotency_key": f"{idempotency_key}-customer"},
        )
        customer = customer.to_dict()
        card_id = customer["default_source"]
        cards = [source for source in customer["sources"]["data"] if source["id"] == card_id]
        card = {"brand": cards[0].get("brand", "") if cards else "", "last4": cards[0].get("last4", "") if cards else ""}
        intent = self._call(
            self.client.v1.payment_intents.create,
            params={"amount": amount, "currency": settings.SHOP_CURRENCY.lower(), "customer": customer["id"],
                    "payment_method": card_id, "payment_method_types": ["card"], "metadata": metadata},
            options={"idempotency_key": idempotency_key},
        )
        return self._intent(intent), card

    def confirm(self, intent_id, idempotency_key):
        """Confirm ``intent_id``: ``succeeded``, or ``requires_action`` (3-D Secure in the page).
        Raises ``PaymentDeclined`` (the bank refused) or ``PaymentError`` (e.g. cancelled meanwhile)."""
        intent = self._intent(self._call(self.client.v1.payment_intents.confirm, intent_id,
                                         options={"idempotency_key": f"{idempotency_key}-confirm"}))
        if intent.status == "requires_payment_method":
            raise PaymentDeclined(intent.error or "Your card was declined.")
        return intent

    def retrieve(self, intent_id):
        """The intent ``intent_id`` as Stripe has it now."""
        return self._intent(self._call(self.client.v1.payment_intents.retrieve, intent_id))

    def cancel(self, intent_id):
        """Cancel ``intent_id`` unless it succeeded (or is processing); the intent afterwards."""
        intent = self.retrieve(intent_id)
        if intent.status in (Intent.SUCCEEDED, Intent.CANCELED, Intent.PROCESSING):
            return intent
        try:
            return self._intent(self._call(self.client.v1.payment_intents.cancel, intent_id))
        except PaymentError:  # it moved on meanwhile (succeeded): say how it is now
            return self.retrieve(intent_id)

    def refund(self, intent_id, amount=None, idempotency_key=None):
        """Refund ``amount`` cents (all that is left when None) of ``intent_id``: ``{id, amount}``."""
        params = {"payment_intent": intent_id}
        if amount is not None:
            params["amount"] = int(amount)
        options = {"idempotency_key": idempotency_key} if idempotency_key else {}
        refund = self._call(self.client.v1.refunds.create, params=params, options=options)
        return {"id": refund["id"], "amount": int(refund["amount"])}

    def refunded_amount(self, intent_id):
        """Cents refunded so far on ``intent_id`` (its refunds listed)."""
        listing = self._call(self.client.v1.refunds.list, params={"payment_intent": intent_id, "limit": 100})
        return sum(int(refund["amount"]) for refund in listing.auto_paging_iter())

    def intents(self):
        """This shop's intents (metadata ``shop`` is ``shop_id()``), every page of the account's list."""
        me = shop_id()
        listing = self._call(self.client.v1.payment_intents.list, params={"limit": 100})
        for obj in listing.auto_paging_iter():
            intent = self._intent(obj)
            if intent.metadata.get("shop") == me:
                yield intent


def get_provider():
    """An instance of ``settings.PAYMENT_PROVIDER`` (a dotted path to a ``PaymentProvider`` class)."""
    return import_string(settings.PAYMENT_PROVIDER)()
